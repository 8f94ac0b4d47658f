#include "fit_cli.hpp"

#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* FitCli::bind(CLI::App& app) {
    CLI::App* fit = app.add_subcommand(
        "fit", "Measure gamma and each algorithm's alpha and beta for the analytic models and store them with the "
               "job (under mpiexec, one rank per node)");
    fit->add_option("-C,--collective", collectives_,
                    analytic::modelled_collectives_text() + " (comma-separated; the analytic models' collectives)")
        ->delimiter(',')
        ->check(CLI::IsMember(analytic::modelled_collectives()))
        ->capture_default_str();
    fit->add_option("-a,--algorithm", algorithms_,
                    "Only these algorithm items (comma-separated; default: every modelled one)")
        ->delimiter(',');
    fit->add_option("--smallest", smallest_, "Smallest experiment message")->capture_default_str();
    fit->add_option("--largest", largest_, "Largest experiment message")->capture_default_str();
    fit->add_option("--count", count_, "Experiment message sizes, log-spaced")
        ->check(CLI::Range(2, 100))
        ->capture_default_str();
    fit->add_option("--gamma-segsizes", gamma_segsizes_, "Segment sizes gamma is measured at")
        ->delimiter(',')
        ->capture_default_str();
    fit->add_option("--segsize", segsize_, "Segment size of the seg_* experiments")->capture_default_str();
    fit->add_option("--chain-fanout", chain_fanout_, "Chains of the seg_chain experiments")
        ->check(positive_number())
        ->capture_default_str();
    fit->add_option("--gather", gather_,
                    "Bytes each rank sends in the linear gather after the experiment at the smallest size (i+1 "
                    "times as many at the i-th)")
        ->capture_default_str();
    add_stopping_options(*fit, stopping_, "measurement", "Cap on wall-clock seconds per measurement (0: none)");
    fit->add_option("--db", db_path_, "Measurement database (created; a rerun measures what is missing)")->required();
    fit->add_option("--machine", machine_, machine_help());
    add_allow_cliques_flag(*fit, allow_cliques_);
    command_ = fit;
    return fit;
}

FitOptions FitCli::options() const {
    refuse_cliques(allow_cliques_);
    FitOptions options;
    options.collectives = collectives_;
    options.algorithms = algorithms_;
    try {
        options.sizes = analytic::log_spaced_sizes(parse_size(smallest_), parse_size(largest_), count_);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--smallest/--largest/--count: ") + e.what());
    }
    for (const std::string& text : gamma_segsizes_) options.gamma_segsizes.push_back(parse_size(text));
    options.segsize = parse_size(segsize_);
    options.chain_fanout = chain_fanout_;
    options.gather_bytes = parse_size(gather_);
    if (options.segsize == 0 || options.gather_bytes == 0) throw UsageError("--segsize and --gather must be > 0");
    options.rule = stopping_.rule(command_->count("--min-reps") > 0);
    options.max_time = stopping_.max_time;
    options.db_path = db_path_;
    options.machine = machine_name(machine_, std::getenv(kMachineEnv));
    return options;
}

int FitCli::run() { return run_fit(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
