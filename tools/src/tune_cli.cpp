#include "tune_cli.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"
#include "tune_command.hpp"

namespace hiertune {

CLI::App* TuneCli::bind(CLI::App& app) {
    CLI::App* tune = app.add_subcommand(
        "tune",
        "Tune at install (run it WITHOUT mpiexec): link calibration, task benchmarks, HAN model, tree, its check "
        "in MPICH, its timing as loaded against no tree, exhaustive sweep and the validation report");
    add_job_shape_options(*tune, shape_, "Ranks of the MPI jobs", tuned_collectives(),
                          name_list(tuned_collectives()) + " (comma-separated): " + model_collectives_text() +
                              " by the HAN task model, " + name_list(measured_collectives()) +
                              " by measuring hier (with each inter-node step; a non-blocking form: its schedule) against MPICH's (one "
                              "choice per job shape)");
    tune->add_option("--measured-sizes", measured_sizes_,
                     "Message sizes of the measured collectives (-C): [MIN:]MAX, OSU style, or a list "
                     "A,B,... (default: as -m; barrier: none)");
    tune->add_option("--sizes-of", sizes_of_,
                     "COLL=SIZES: the message sizes of one collective of the HAN task model instead of -m, as "
                     "--measured-sizes (repeatable; e.g. allgather=1K:128K, whose sizes are per rank)");
    bind_space_and_files(*tune);
    add_launch_options(*tune, launch_,
                       {"mpiexec to launch the jobs with (default: the one of the MPICH hiertune is built against, " +
                            mpich_prefix() + "/bin/mpiexec)",
                        "Extra mpiexec argument (repeatable, e.g. -f)",
                        "Launch prefix of every job instead of 'MPIEXEC [--mpiexec-arg ...] -n N', split into words "
                        "like a shell, e.g. 'maint/emucluster run --ppn 2 --' or 'srun -N 4 --ntasks-per-node=4' "
                        "(-n still names the job in the database)"});
    tune->add_option("--fit-launcher", fit_launcher_,
                     "Launch prefix of step 0b, hiertune fit, with ONE rank per node, e.g. 'maint/emucluster run "
                     "--ppn 1 --': needed when --config has seg_* inter-node submodules (their inter-node stages "
                     "are costed by the analytic models; with --nodes: mpiexec -n NODES on cliques)");
    tune->add_option("--shapes", shapes_,
                     "Further job shapes NODESxPPN (comma-separated, e.g. 2x2,4x1) inside the allocation: each "
                     "measured in jobs of its own (every -C collective, hier with each inter-node step against "
                     "MPICH's selection, at --measured-sizes), keyed in the same tree, verified and timed "
                     "against no tree at that shape")
        ->delimiter(',');
    tune->add_option("--predict-shapes", predicted_shapes_,
                     "Job shapes NODESx1 (comma-separated, e.g. 8x1,16x1) larger than the allocation: their bcast "
                     "and reduce picks predicted by the analytic models fitted in step 0b (needs --fit-launcher), "
                     "keyed in the same tree, marked predicted in the report (neither verified nor timed)")
        ->delimiter(',');
    tune->add_option("--shape-launcher", shape_launcher_,
                     "Launch prefix of the --shapes jobs, {nodes}, {ppn} and {ranks} replaced per shape, e.g. "
                     "'maint/emucluster run --nodes {nodes} --ppn {ppn} --' (with --nodes: emulated nodes instead)");
    tune->add_option("--machine", machine_,
                     std::string("Machine name of the job in the database (default: ") + kMachineEnv +
                         ", else the name the calibrate job of step 0 files it under: the launch's " + kMachineEnv +
                         " or rank 0's processor name)");
    bind_repetitions(*tune);
    bind_tree_and_model(*tune);
    command_ = tune;
    return tune;
}

void TuneCli::bind_space_and_files(CLI::App& tune) {
    tune.add_option("--config", configs_,
                    "Search space: NAME=V[/V...][,...] of inter_algo, inter_k, inter_chunk, intra_algo (as tasks)");
    tune.add_option("-s,--segsize", segsizes_, "Segment sizes of the search space")
        ->allow_extra_args(false)
        ->capture_default_str();
    tune.add_option("--db", db_path_, "Measurement database (created; a rerun resumes)")->capture_default_str();
    tune.add_option("-o,--output", output_path_, "Tree file to write")->capture_default_str();
    tune.add_option("--stock", stock_path_, "MPICH's maint/tuning/coll/mpir/generic.json")->capture_default_str();
    tune.add_option("--ch4-stock", ch4_stock_path_,
                    "MPICH's maint/tuning/coll/ch4/generic.json: the CH4 tree the compositions picked go into")
        ->capture_default_str();
    tune.add_option("--report", report_dir_, "Directory of the validation report")->capture_default_str();
}

void TuneCli::bind_repetitions(CLI::App& tune) {
    // CLI11 reads "-1" into an unsigned as 2^64 - 1: the unsigned options are checked
    tune.add_option("--steady", steady_, "tasks: segments of the steady run")
        ->check(non_negative_number())
        ->capture_default_str();
    tune.add_option("--task-warmup", task_warmup_, "tasks: warm-up repetitions")
        ->check(non_negative_number())
        ->capture_default_str();
    tune.add_option("--task-min-reps", task_min_reps_, "tasks: timed repetitions per run before it may stop")
        ->check(positive_number())
        ->capture_default_str();
    tune.add_option("--task-reps", task_reps_, "tasks: cap on timed repetitions per run")
        ->check(positive_number())
        ->capture_default_str();
    tune.add_option("--bench-warmup", bench_warmup_, "bench: warm-up repetitions per point")
        ->check(non_negative_number())
        ->capture_default_str();
    tune.add_option("--bench-min-reps", bench_min_reps_, "bench: repetitions before a point may stop")
        ->check(positive_number())
        ->capture_default_str();
    tune.add_option("--bench-reps", bench_max_reps_, "bench: cap on repetitions per point")
        ->check(positive_number())
        ->capture_default_str();
    tune.add_option("--precision", precision_percent_,
                    "bench, tasks and calibrate: CI half-width target in % of the median")
        ->check(number_between(0.001, 100))
        ->capture_default_str();
    tune.add_option("--max-time", max_time_,
                    "bench: cap on seconds per point; tasks: per segment-size group; calibrate: per "
                    "measurement (0: none)")
        ->check(non_negative_number())
        ->capture_default_str();
    tune.add_option("--rate-tolerance", rate_tolerance_percent_,
                    std::string("calibrate: percent an inter-node link's bandwidth may be off ") + kLinkRateEnv +
                        " (where the launch sets it) before step 0 fails")
        ->check(non_negative_number())
        ->capture_default_str();
}

void TuneCli::bind_tree_and_model(CLI::App& tune) {
    tune.add_option("--tree-rounds", tree_rounds_,
                    "Step 5: rounds of the two alternating jobs timing the tree as loaded and no tree (>= 2)")
        ->capture_default_str();
    tune.add_option("--tree-tolerance", tree_tolerance_percent_,
                    "Step 5: percent the tree may be slower (median ratio no-tree / tree below 1 - this) before "
                    "a size whose every tree round is slower than every no-tree round fails")
        ->capture_default_str();
    tune.add_flag("--allow-tree-slower", allow_tree_slower_,
                  "Report sizes where the tree is slower than no tree beyond the noise, but exit 0 (e.g. on "
                  "emulated cliques, where timings measure the scheduler)");
    tune.add_flag("--time-every-size", time_every_size_,
                  "Step 5: time also the sizes where the tree picked MPICH's selection (by default not: the tree "
                  "runs there what no tree runs)");
    tune.add_flag("--keep-unproven", keep_unproven_,
                  "Step 5b: keep the picks at sizes where the tree was not measured faster than no tree beyond "
                  "the noise (by default they become MPICH's own selection, and the tree is made, verified and "
                  "timed again)");
    tune.add_option("--install", install_prefix_,
                    std::string("When the tree passes verify and the tree timing, install it as the site's tree "
                                "of this MPICH prefix (as 'hiertune install-tree'; without a value: ") +
                        mpich_prefix() + ", the MPICH hiertune is built against)")
        ->expected(0, 1);
    tune.add_option("--budget", budget_s_,
                    "Wall time this run may take, e.g. 45m, 2700s, 1h: the steps that make, verify and time the "
                    "tree always run; the exhaustive sweep (step 6), which checks the picks and changes no tree, "
                    "runs its jobs while each is estimated to end inside it; the report says what was left out "
                    "(default: none)")
        ->transform(CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1}, {"m", 60}, {"min", 60}, {"h", 3600}},
                                          CLI::AsNumberWithUnit::CASE_SENSITIVE))
        // a transform runs before those added earlier: this one first, since CLI11 reads a
        // unit alone ("m") as one of it
        ->transform(CLI::Validator(
            [](std::string& text) {
                return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')
                           ? std::string()
                           : "a number with s, m, min or h (none: seconds) expected, not '" + text + "'";
            },
            "TIME"))
        ->check(positive_number());
    tune.add_flag("--no-stock", no_stock_,
                  "Do not measure the stock selection (the tree then takes hier wherever the model predicts it)");
    tune.add_flag("--prune", prune_, "Model: HAN III-C pruning heuristics");
    tune.add_flag("--no-collapse", no_collapse_, "Model: also rank segment sizes larger than the message");
    tune.add_flag(kAllowCliquesFlag, allow_cliques_,
                  std::string("Run on emulated nodes (--nodes, ") + kNumCliquesEnv +
                      " > 1) anyway and pass the flag to the jobs: timings measure the scheduler, for "
                      "correctness runs only");
}

namespace {

// A list "1K,64K" or a range "1K:64K" of message sizes, as `flag` gave it.
std::vector<std::uint64_t> size_list(const std::string& text, const std::string& flag) {
    try {
        return text.find(',') == std::string::npos ? message_sizes(text, {}) : message_sizes("", {text});
    } catch (const UsageError& e) {
        throw UsageError(flag + ": " + e.what());
    }
}

}  // namespace

TuneOptions TuneCli::options() const {
    TuneOptions options;
    shape_.apply(*command_, options);
    if (!measured_sizes_.empty()) options.measured_sizes = size_list(measured_sizes_, "--measured-sizes");
    for (const std::string& item : sizes_of_) {
        const std::size_t equals = item.find('=');
        if (equals == std::string::npos || equals == 0)
            throw UsageError("--sizes-of '" + item + "': COLL=SIZES expected, e.g. allgather=1K:128K");
        if (!options.collective_sizes
                 .emplace(item.substr(0, equals), size_list(item.substr(equals + 1), "--sizes-of " + item))
                 .second)
            throw UsageError("--sizes-of: " + item.substr(0, equals) + " given twice");
    }
    options.configs = configs_;
    for (const std::string& text : segsizes_)
        for (std::uint64_t size : parse_size_list(text)) options.segsizes.push_back(size);
    options.db_path = db_path_;
    options.tree_path = output_path_;
    options.report_dir = report_dir_;
    require_stock_path(stock_path_);
    require_stock_path(ch4_stock_path_, "--ch4-stock");
    options.stock_path = stock_path_;
    options.ch4_stock_path = ch4_stock_path_;
    launch_.apply(*command_, options);
    if (!fit_launcher_.empty()) options.fit_launcher = launcher_words(fit_launcher_);
    for (const std::string& shape : shapes_) options.shapes.push_back(parse_job_shape(shape));
    if (!shape_launcher_.empty()) options.shape_launcher = launcher_words(shape_launcher_);
    for (const std::string& shape : predicted_shapes_)
        options.predicted_shapes.push_back(parse_job_shape(shape, "--predict-shapes"));
    options.machine = machine_name(machine_, std::getenv(kMachineEnv));  // else: step 0's job names it
    options.steady_segments = steady_;
    options.task_warmup = task_warmup_;
    options.task_min_reps = std::min(task_min_reps_, task_reps_);  // a small --task-reps lowers it
    options.task_reps = task_reps_;
    options.bench_warmup = bench_warmup_;
    if (bench_min_reps_ > bench_max_reps_) throw UsageError("--bench-min-reps must not exceed --bench-reps");
    options.bench_min_reps = bench_min_reps_;
    options.bench_max_reps = bench_max_reps_;
    options.bench_precision_percent = precision_percent_;
    options.bench_max_time = max_time_;
    options.rate_tolerance_percent = rate_tolerance_percent_;
    options.tree_rounds = tree_rounds_;
    options.tree_tolerance = tree_tolerance_percent_ / 100;
    options.allow_tree_slower = allow_tree_slower_;
    options.keep_unproven = keep_unproven_;
    options.time_every_size = time_every_size_;
    options.budget_s = budget_s_;
    if (command_->count("--install") > 0) options.install_prefix = install_prefix_.empty() ? mpich_prefix() : install_prefix_;
    options.stock = !no_stock_;
    options.allow_cliques = allow_cliques_;
    options.model.prune.enabled = prune_;
    options.model.collapse_oversize_segments = !no_collapse_;
    return options;
}

int TuneCli::run() { return run_tune(options(), hiertune_, std::cout, std::cerr); }

}  // namespace hiertune
