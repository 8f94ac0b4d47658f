#include "calibrate_cli.hpp"

#include <cstdlib>
#include <iostream>

#include "hiertune/models/calibration.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* CalibrateCli::bind(CLI::App& app) {
    CLI::App* calibrate = app.add_subcommand(
        "calibrate",
        "Point-to-point latency and bandwidth from node 0's leader to every other node leader, and of one "
        "intra-node pair (run it under mpiexec, >= 2 nodes)");
    add_stopping_options(*calibrate, stopping_, "measurement",
                         "Cap on wall-clock seconds per measurement (a link's latency or bandwidth; 0: none)");
    calibrate->add_option("--bw-size", bw_size_, "Bytes per message of the bandwidth stream (K, M, G: 1024s)")
        ->capture_default_str();
    calibrate->add_option("--bw-window", bw_window_, "Messages in flight before the 1-byte ack")
        ->check(positive_number())
        ->capture_default_str();
    add_output_flags(*calibrate, output_);
    calibrate->add_option("--db", db_path_,
                          "Store the calibration of the job in this measurement database (replacing a stored one)");
    calibrate->add_option("--machine", machine_, machine_help());
    calibrate->add_flag("--if-missing", if_missing_,
                        "With --db: keep the job's stored calibration if it has these links and holds the expected "
                        "rate (print it, measure nothing)")
        ->needs("--db");
    calibrate->add_option("--expect-rate", expect_rate_,
                          std::string("Bytes/s every inter-node link should carry, e.g. 12500000, 12.5M, 100mbit "
                                      "(K/M/G: powers of 1000; default: ") +
                              kLinkRateEnv + " if set): exit 1 if a link is off by more than --tolerance");
    calibrate->add_option("--tolerance", tolerance_percent_, "Percent a link's bandwidth may be off the rate")
        ->check(non_negative_number())
        ->capture_default_str();
    add_allow_cliques_flag(*calibrate, allow_cliques_);
    command_ = calibrate;
    return calibrate;
}

CalibrateOptions CalibrateCli::options() const {
    refuse_cliques(allow_cliques_);
    CalibrateOptions options;
    options.rule = stopping_.rule(command_->count("--min-reps") > 0);
    options.max_time = stopping_.max_time;
    options.bw_size = parse_size(bw_size_);
    if (options.bw_size == 0) throw UsageError("--bw-size must be > 0");
    options.bw_window = bw_window_;
    if (options.bw_window > kMaxMessageBytes / options.bw_size)  // divided: the product may wrap around
        throw UsageError("--bw-size " + bw_size_ + " x --bw-window " + std::to_string(options.bw_window) +
                         ": at most " + std::to_string(kMaxMessageBytes) + " bytes (1G) may be in flight");
    options.format = output_.format();
    options.db_path = db_path_;
    options.machine = machine_name(machine_, std::getenv(kMachineEnv));
    options.if_missing = if_missing_;
    const std::string rate_env = env_text(std::getenv(kLinkRateEnv));
    if (command_->count("--expect-rate") > 0)
        options.expect_rate = parse_rate(expect_rate_, "--expect-rate");
    else if (!rate_env.empty())
        options.expect_rate = parse_rate(rate_env, kLinkRateEnv);
    options.tolerance_percent = tolerance_percent_;
    options.cluster = env_text(std::getenv(kClusterEnv));
    return options;
}

int CalibrateCli::run() { return run_calibrate(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
