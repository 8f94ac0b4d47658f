// hiertune: measure MPICH collective algorithms and find the best per size.
//
//   hiertune bench [options]            (under mpiexec) time collectives
//   hiertune db list|best|points|check  query a measurement database
//   hiertune tasks [options]            (under mpiexec) HAN task benchmarks
//   hiertune calibrate [options]        (under mpiexec) latency and bandwidth per link
//   hiertune overlap [options]          (under mpiexec) overlap of non-blocking operations with computation
//   hiertune overlap-report FILE...     overlap runs side by side, heat maps
//   hiertune fit [options]              (under mpiexec) the analytic models' gamma, alpha, beta
//   hiertune generate                   write a Csel JSON tree from a database
//   hiertune analytic-report            the fitted analytic models vs an exhaustive sweep
//   hiertune tune [options]             (without mpiexec) calibrate, tasks, model, tree,
//                                       verify, tree timing, exhaustive sweep, report
//   hiertune verify --case ...          (under mpiexec; run by tune) check the
//                                       tree's choices through the plugin's pvars
//   hiertune tree-timing --tree FILE    (without mpiexec) a tree as loaded vs no
//                                       tree, alternating jobs
//   hiertune learn [options]            (without mpiexec) active learning (ACCLAiM):
//                                       bench jobs picked by a random forest's
//                                       variance, then the tree of its predictions
//   hiertune show-tree [FILE]           what a Csel tree selects, as a table (no
//                                       FILE: the site's installed tree and its record)
//   hiertune install-tree TREE          the site's tree for every job, with its record
//   hiertune compare-tuners             the tuners' trees against one exhaustive
//                                       sweep: slowdowns, points, tuning time
//
// This file only maps the command line onto the library (tools/lib) and the
// MPI runners (bench.cpp, tasks.cpp, calibrate.cpp, verify.cpp), tune's
// runner (tune_command.cpp) and learn's (learn_command.cpp); see
// tools/README.md for the options.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <mpi.h>

#include "bench.hpp"
#include "calibrate.hpp"
#include "fit.hpp"
#include "hiertune/analytic_catalog.hpp"
#include "hiertune/calibration.hpp"
#include "hiertune/cluster_env.hpp"
#include "hiertune/compare_tuners.hpp"
#include "hiertune/csel_show.hpp"
#include "hiertune/db_commands.hpp"
#include "hiertune/generate.hpp"
#include "hiertune/grammar.hpp"
#include "hiertune/learn_run.hpp"
#include "hiertune/site_tree.hpp"
#include "hiertune/overlap.hpp"
#include "hiertune/sizes.hpp"
#include "hiertune/task_bench.hpp"
#include "hiertune/usage_error.hpp"
#include "install_tree_command.hpp"
#include "learn_command.hpp"
#include "mpi_session.hpp"
#include "overlap.hpp"
#include "tasks.hpp"
#include "tune_command.hpp"
#include "verify.hpp"

// Where the MPICH this hiertune is built against lives (Makefile.am).
#ifndef HIERTUNE_MPICH_PREFIX
#define HIERTUNE_MPICH_PREFIX ""
#endif
#ifndef HIERTUNE_GENERIC_JSON
#define HIERTUNE_GENERIC_JSON ""
#endif

namespace {

using namespace hiertune;

struct OutputFlags {
    bool json = false;
    bool csv = false;
    OutputFormat format() const { return json ? OutputFormat::json : csv ? OutputFormat::csv : OutputFormat::osu; }
};

void add_output_flags(CLI::App& command, OutputFlags& flags) {
    auto* json = command.add_flag("--json", flags.json, "JSON Lines: one object per point");
    auto* csv = command.add_flag("--csv", flags.csv, "CSV with a header line");
    json->excludes(csv);
}

// Performance commands refuse emulated cliques unless --allow-cliques.
void refuse_cliques(bool allowed) {  // throws UsageError
    if (allowed) return;
    if (const std::optional<std::string> why = cliques_refusal(std::getenv(kNumCliquesEnv))) throw UsageError(*why);
}

void add_allow_cliques_flag(CLI::App& command, bool& allowed) {
    command.add_flag(kAllowCliquesFlag, allowed,
                     std::string("Run even on emulated nodes (") + kNumCliquesEnv +
                         " > 1): their timings measure the scheduler, for correctness runs only");
}

const std::string kMachineHelp = std::string("Machine name of the job in the database (default: ") + kMachineEnv +
                                 ", else rank 0's processor name)";

// The raw bench command line, turned into BenchOptions once parsed.
// The stopping rule of a measurement (bench's points, calibrate's measurements): the
// same five options, parsed into lib/stats' StoppingRule and a time cap.
struct StoppingArgs {
    std::size_t warmup;
    std::size_t min_reps = 10;
    std::size_t max_reps = 1000;
    double precision_percent = 2.5;
    double max_time = 5;

    explicit StoppingArgs(std::size_t default_warmup) : warmup(default_warmup) {}

    StoppingRule rule(bool min_reps_given) const {  // throws UsageError
        if (min_reps_given && min_reps > max_reps) throw UsageError("--min-reps must not exceed --max-reps");
        StoppingRule rule;
        rule.warmup_reps = warmup;
        rule.min_reps = std::min(min_reps, max_reps);  // a small -i lowers the default
        rule.max_reps = max_reps;
        rule.precision = precision_percent / 100;
        return rule;
    }
};

// `what`: "point", "measurement"; `time_help`: the --max-time help.
void add_stopping_options(CLI::App& command, StoppingArgs& args, const std::string& what,
                          const std::string& time_help) {
    command.add_option("-x,--warmup", args.warmup, "Warm-up repetitions per " + what + " (not recorded)")
        ->capture_default_str();
    command.add_option("--min-reps", args.min_reps, "Repetitions before a " + what + " may stop")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    command.add_option("-i,--max-reps", args.max_reps, "Cap on repetitions per " + what)
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    command.add_option("--precision", args.precision_percent,
                       "Stop when the 95% CI half-width of the median is within this percentage of it")
        ->check(CLI::Range(0.001, 100.0))
        ->capture_default_str();
    command.add_option("--max-time", args.max_time, time_help)->check(CLI::NonNegativeNumber)->capture_default_str();
}

struct BenchArgs {
    std::vector<std::string> collectives{"bcast"};
    std::vector<std::string> algorithms;
    std::vector<std::string> params;
    std::string size_range;
    std::vector<std::string> sizes;
    StoppingArgs stopping{10};
    bool min_reps_given = false;
    std::size_t reps = 0;
    OutputFlags output;
    bool full = false;
    bool validate = false;
    bool progress = false;
    bool no_progress = false;
    std::string db_path;
    std::string machine;
    std::string account_step;
    bool allow_cliques = false;

    BenchOptions options() const {  // throws UsageError
        refuse_cliques(allow_cliques);
        BenchOptions options;
        options.collectives = collectives;
        for (const std::string& text : algorithms) options.algorithms.push_back(parse_algorithm_spec(text));
        for (const std::string& text : params) options.params.push_back(parse_param_spec(text));
        options.sizes = message_sizes(size_range, sizes);
        options.rule = stopping.rule(min_reps_given);
        options.max_time = stopping.max_time;
        if (reps > 0) {  // a fixed count: no precision stop, no caps below it
            options.reps = reps;
            options.rule.min_reps = options.rule.max_reps = reps;
            options.max_time = 0;
        }
        options.format = output.format();
        options.full = full;
        options.validate = validate;
        options.progress = progress ? ProgressMode::always : no_progress ? ProgressMode::never : ProgressMode::automatic;
        options.db_path = db_path;
        options.machine = machine_name(machine, std::getenv(kMachineEnv));
        options.account_step = account_step;
        const std::string rate_env = env_text(std::getenv(kLinkRateEnv));
        if (!rate_env.empty()) options.link_rate = parse_rate(rate_env, kLinkRateEnv);
        options.cluster = env_text(std::getenv(kClusterEnv));
        return options;
    }
};

CLI::App* add_bench_command(CLI::App& app, BenchArgs& args) {
    CLI::App* bench = app.add_subcommand(
        "bench",
        "Time MPI_Bcast/MPI_Reduce/MPI_Allreduce/MPI_Allgather/MPI_Gather/MPI_Scatter/MPI_Barrier per "
        "message size, algorithm and parameter set, the configurations of a size in turns, each compared with "
        "the first (run it under mpiexec)");
    bench->add_option("-C,--collective", args.collectives,
                      "Collectives to time (comma-separated): " + collective_list())
        ->delimiter(',')
        ->check(CLI::IsMember(supported_collectives()))
        ->capture_default_str();
    bench->add_option("-a,--algorithm", args.algorithms,
                      "ALGO[:NAME=V[/V...][,NAME=V...]] (repeatable): an item of "
                      "MPIR_CVAR_<COLL>_INTRA_ALGORITHM, 'default' (MPICH's selection), 'all' or 'stock' (all but the plugin's), with "
                      "parameters of its own; default: default")
        ->allow_extra_args(false);
    bench->add_option("-p,--param", args.params,
                      "NAME=V[/V...] (repeatable): an MPI_T control variable (MPIR_CVAR_ prefix optional) "
                      "set for every algorithm; value lists multiply out")
        ->allow_extra_args(false);
    bench->add_option("-m,--message-size", args.size_range,
                      "[MIN:]MAX: powers of two from MIN (default 1) to MAX, OSU style; K/M/G suffixes "
                      "(default 1:1048576 unless --sizes). allgather, gather, scatter: the bytes each rank "
                      "sends/receives (root, allgather: size x ranks); barrier: --sizes 0 only");
    bench->add_option("--sizes", args.sizes, "Explicit sizes, e.g. 3,1000,65537 (added to -m)")
        ->allow_extra_args(false);
    add_stopping_options(*bench, args.stopping, "point",
                         "Cap on wall-clock seconds per point, its own turns (0: none)");
    bench->add_option("-r,--reps", args.reps,
                      "Exactly this many repetitions per point (after the -x warm-up ones): no stopping rule")
        ->check(CLI::PositiveNumber)
        ->excludes("--min-reps")
        ->excludes("--max-reps")
        ->excludes("--precision")
        ->excludes("--max-time");
    add_output_flags(*bench, args.output);
    bench->add_flag("-f,--full", args.full, "OSU format: add Min/Max Latency(us) and Iterations columns");
    bench->add_flag("-c,--validate", args.validate,
                    "Check the received data/result on every rank, every repetition (exit 1 on failure; "
                    "gather: at the root; barrier: nothing to check)");
    CLI::Option* progress = bench->add_flag(
        "--progress", args.progress,
        "Draw a progress bar on stderr (default: only when stderr is a terminal and stdout is not)");
    bench->add_flag("--no-progress", args.no_progress, "No progress bar on stderr")->excludes(progress);
    bench->add_option("--db", args.db_path,
                      "Record every point in this SQLite database and skip points already there "
                      "(rerun the same command to resume a killed sweep)");
    bench->add_option("--machine", args.machine, kMachineHelp);
    bench->add_option("--account", args.account_step,
                      "Add each point's measuring time to this step of the database's step times "
                      "(hiertune tune's bookkeeping; survives a kill)")
        ->needs("--db");
    add_allow_cliques_flag(*bench, args.allow_cliques);
    return bench;
}

struct OverlapArgs {
    std::vector<std::string> operations{"isend"};
    std::vector<std::string> algorithms;
    std::vector<std::string> params;
    std::string size_range = "1K:1M";
    std::pair<double, double> comp_us{10, 10000};
    unsigned comp_points = 4;
    std::size_t reps = 10;
    unsigned threads = 1;
    OutputFlags output;
    bool allow_cliques = false;

    OverlapOptions options() const {  // throws UsageError
        refuse_cliques(allow_cliques);
        OverlapOptions options;
        options.operations = operations;
        for (const std::string& text : algorithms) options.algorithms.push_back(parse_algorithm_spec(text));
        for (const std::string& text : params) options.params.push_back(parse_param_spec(text));
        const std::vector<std::uint64_t> sizes = osu_size_range(size_range);
        options.min_size = sizes.front();
        options.max_size = sizes.back();
        options.min_comp_us = comp_us.first;
        options.max_comp_us = comp_us.second;
        options.comp_points = comp_points;
        try {  // checked here, so that a bad grid is a usage error like the others
            make_overlap_grid(options.min_size, options.max_size, options.min_comp_us, options.max_comp_us,
                              options.comp_points);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("-m/--comp/--comp-points: ") + e.what());
        }
        options.reps = reps;
        options.threads = threads;
        options.format = output.format();
        return options;
    }
};

CLI::App* add_overlap_command(CLI::App& app, OverlapArgs& args) {
    CLI::App* overlap = app.add_subcommand(
        "overlap",
        "How much non-blocking pt2pt and collective operations overlap with computation, over message size x "
        "computation time: the overhead ratio of each cell and a verdict per operation (run it under mpiexec, "
        ">= 2 ranks)");
    overlap->add_option("-O,--operation", args.operations,
                        "Operations (comma-separated): isend, irecv, both (ranks 0 and 1), ibcast, ireduce, "
                        "iallreduce, iallgather (every rank)")
        ->delimiter(',')
        ->check(CLI::IsMember(overlap_operations()))
        ->capture_default_str();
    overlap->add_option("-a,--algorithm", args.algorithms,
                        "ALGO[:NAME=V[,NAME=V...]] (repeatable, collectives only): an item of "
                        "MPIR_CVAR_<OP>_INTRA_ALGORITHM (e.g. IALLREDUCE), 'default' or 'all'; default: default")
        ->allow_extra_args(false);
    overlap->add_option("-p,--param", args.params,
                        "NAME=V[/V...] (repeatable): an MPI_T control variable set at run time for every "
                        "operation; those MPICH reads only in MPI_Init (e.g. ASYNC_PROGRESS) go in the "
                        "environment (compare such runs with overlap-report)")
        ->allow_extra_args(false);
    overlap->add_option("-m,--message-size", args.size_range,
                        "MIN:MAX: the powers of two from MIN to MAX; K/M/G suffixes (iallgather: per rank)")
        ->capture_default_str();
    overlap->add_option("--comp", args.comp_us, "MIN_US:MAX_US: computation times, log-spaced")
        ->delimiter(':')
        ->capture_default_str();
    overlap->add_option("--comp-points", args.comp_points, "Computation times between MIN_US and MAX_US")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    overlap->add_option("-r,--reps", args.reps, "Repetitions per cell (after one warm-up); the median is reported")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    overlap->add_option("-t,--threads", args.threads,
                        "Computation threads per rank (the paper's multi-threaded variant; more than the cores "
                        "a rank may use draws a warning)")
        ->check(CLI::Range(1u, 1024u))
        ->capture_default_str();
    add_output_flags(*overlap, args.output);
    add_allow_cliques_flag(*overlap, args.allow_cliques);
    return overlap;
}

struct CalibrateArgs {
    StoppingArgs stopping{1};
    std::string bw_size = "1M";
    std::uint64_t bw_window = 8;
    OutputFlags output;
    std::string db_path;
    std::string machine;
    bool if_missing = false;
    std::string expect_rate;
    double tolerance_percent = 10;
    bool allow_cliques = false;

    CalibrateOptions options(bool min_reps_given, bool expect_rate_given) const {  // throws UsageError
        refuse_cliques(allow_cliques);
        CalibrateOptions options;
        options.rule = stopping.rule(min_reps_given);
        options.max_time = stopping.max_time;
        options.bw_size = parse_size(bw_size);
        if (options.bw_size == 0) throw UsageError("--bw-size must be > 0");
        options.bw_window = bw_window;
        if (options.bw_size * options.bw_window > kMaxMessageBytes)
            throw UsageError("--bw-size x --bw-window is " + std::to_string(options.bw_size * options.bw_window) +
                             " bytes: at most " + std::to_string(kMaxMessageBytes) + " (1G) may be in flight");
        options.format = output.format();
        options.db_path = db_path;
        options.machine = machine_name(machine, std::getenv(kMachineEnv));
        options.if_missing = if_missing;
        const std::string rate_env = env_text(std::getenv(kLinkRateEnv));
        if (expect_rate_given)
            options.expect_rate = parse_rate(expect_rate, "--expect-rate");
        else if (!rate_env.empty())
            options.expect_rate = parse_rate(rate_env, kLinkRateEnv);
        options.tolerance_percent = tolerance_percent;
        options.cluster = env_text(std::getenv(kClusterEnv));
        return options;
    }
};

CLI::App* add_calibrate_command(CLI::App& app, CalibrateArgs& args) {
    CLI::App* calibrate = app.add_subcommand(
        "calibrate",
        "Point-to-point latency and bandwidth from node 0's leader to every other node leader, and of one "
        "intra-node pair (run it under mpiexec, >= 2 nodes)");
    add_stopping_options(*calibrate, args.stopping, "measurement",
                         "Cap on wall-clock seconds per measurement (a link's latency or bandwidth; 0: none)");
    calibrate->add_option("--bw-size", args.bw_size, "Bytes per message of the bandwidth stream (K, M, G: 1024s)")
        ->capture_default_str();
    calibrate->add_option("--bw-window", args.bw_window, "Messages in flight before the 1-byte ack")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    add_output_flags(*calibrate, args.output);
    calibrate->add_option("--db", args.db_path,
                          "Store the calibration of the job in this measurement database (replacing a stored one)");
    calibrate->add_option("--machine", args.machine, kMachineHelp);
    calibrate->add_flag("--if-missing", args.if_missing,
                        "With --db: keep the job's stored calibration if it has these links and holds the expected "
                        "rate (print it, measure nothing)")
        ->needs("--db");
    calibrate->add_option("--expect-rate", args.expect_rate,
                          std::string("Bytes/s every inter-node link should carry, e.g. 12500000, 12.5M, 100mbit "
                                      "(K/M/G: powers of 1000; default: ") +
                              kLinkRateEnv + " if set): exit 1 if a link is off by more than --tolerance");
    calibrate->add_option("--tolerance", args.tolerance_percent, "Percent a link's bandwidth may be off the rate")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    add_allow_cliques_flag(*calibrate, args.allow_cliques);
    return calibrate;
}

struct DbArgs {
    std::string path;
    std::vector<std::string> collectives;
    std::optional<JobId> job;
    OutputFlags output;
    bool full = false;

    DbQuery query() const { return DbQuery{job, collectives, output.format(), full}; }
};

CLI::App* add_db_query(CLI::App& db, const std::string& name, const std::string& description, DbArgs& args,
                       bool with_filters) {
    CLI::App* command = db.add_subcommand(name, description);
    command->add_option("--db", args.path, "Measurement database")->required();
    if (with_filters) {
        command->add_option("-C,--collective", args.collectives, "Only these collectives")->delimiter(',');
        command->add_option("--job", args.job, "Only this job (see 'db list')");
    }
    add_output_flags(*command, args.output);
    return command;
}

struct TasksArgs {
    std::vector<std::string> collectives{"bcast"};
    std::string configs;
    std::vector<std::string> segsizes;
    std::uint64_t steady = 8;
    std::string max_message = "0";
    std::vector<std::string> gather_sizes;
    std::size_t warmup = 3;
    std::size_t min_reps = 10;
    std::size_t reps = 100;
    double precision_percent = 2.5;
    double max_time = 5;
    std::string db_path;
    std::string machine;
    std::string account_step;
    bool allow_cliques = false;

    TasksOptions options() const {  // throws UsageError
        refuse_cliques(allow_cliques);
        TasksOptions options;
        options.collectives = collectives;
        options.configs = parse_task_configs(configs);
        for (const std::string& text : segsizes)
            for (std::uint64_t size : parse_size_list(text)) options.segsizes.push_back(size);
        options.steady_segments = steady;
        options.max_message = parse_size(max_message);  // 0: no limit
        for (const std::string& text : gather_sizes)
            for (std::uint64_t size : parse_size_list(text)) options.gather_sizes.push_back(size);
        options.warmup = warmup;
        options.min_reps = std::min(min_reps, reps);  // a small -i lowers the default
        options.reps = reps;
        options.precision = precision_percent / 100;
        options.max_time = max_time;
        options.db_path = db_path;
        options.machine = machine_name(machine, std::getenv(kMachineEnv));
        options.account_step = account_step;
        return options;
    }
};

CLI::App* add_tasks_command(CLI::App& app, TasksArgs& args) {
    CLI::App* tasks = app.add_subcommand(
        "tasks", "HAN task benchmarks of the hier pipeline per leader (run it under mpiexec, >= 2 nodes)");
    tasks->add_option("-C,--collective", args.collectives, "bcast, allreduce, allgather (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "allreduce", "allgather"}))
        ->capture_default_str();
    tasks->add_option("--config", args.configs,
                      "NAME=V[/V...][,...] of inter_algo, inter_k, inter_chunk, intra_algo (multiplied out)");
    tasks->add_option("-s,--segsize", args.segsizes, "Segment sizes, e.g. 4K,64K (repeatable)")
        ->required()
        ->allow_extra_args(false);
    tasks->add_option("--steady", args.steady, "Segments of the steady run (>= 4)")->capture_default_str();
    tasks->add_option("--max-message", args.max_message,
                      "Largest message size the costs are for (e.g. 1M): the steady run has no more segments "
                      "than it needs, at least 4 (0: always --steady)")
        ->capture_default_str();
    tasks->add_option("--sizes", args.gather_sizes,
                      "allgather: bytes per rank at which its node gather sg is timed, e.g. 1K,64K (required "
                      "with -C allgather)")
        ->allow_extra_args(false);
    tasks->add_option("-x,--warmup", args.warmup,
                      "Warm-up repetitions before a group's first run (1 before each later run)")
        ->capture_default_str();
    tasks->add_option("--min-reps", args.min_reps, "Timed repetitions per run before it may stop")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tasks->add_option("-i,--reps", args.reps, "Cap on timed repetitions per run")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tasks->add_option("--precision", args.precision_percent,
                      "Stop a run when every leader's every task has its 95% CI half-width within this "
                      "percentage of its median")
        ->check(CLI::Range(0.001, 100.0))
        ->capture_default_str();
    tasks->add_option("--max-time", args.max_time,
                      "Cap on wall-clock seconds per group, shared by its runs (0: none; --min-reps still run)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    tasks->add_option("--db", args.db_path, "Record the task costs here and skip the groups already there");
    tasks->add_option("--machine", args.machine, kMachineHelp);
    tasks->add_option("--account", args.account_step,
                      "Add each group's measuring time to this step of the database's step times "
                      "(hiertune tune's bookkeeping; survives a kill)")
        ->needs("--db");
    add_allow_cliques_flag(*tasks, args.allow_cliques);
    return tasks;
}

struct FitArgs {
    std::vector<std::string> collectives{"bcast", "reduce"};
    std::vector<std::string> algorithms;
    std::string smallest = "8K";
    std::string largest = "4M";
    std::size_t count = 10;
    std::vector<std::string> gamma_segsizes{"16K", "64K", "256K"};
    std::string segsize = "64K";
    int chain_fanout = 2;
    std::string gather = "1K";
    StoppingArgs stopping{2};
    bool min_reps_given = false;
    std::string db_path;
    std::string machine;
    bool allow_cliques = false;

    FitOptions options() const {  // throws UsageError
        refuse_cliques(allow_cliques);
        FitOptions options;
        options.collectives = collectives;
        options.algorithms = algorithms;
        try {
            options.sizes = analytic::log_spaced_sizes(parse_size(smallest), parse_size(largest), count);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--smallest/--largest/--count: ") + e.what());
        }
        for (const std::string& text : gamma_segsizes) options.gamma_segsizes.push_back(parse_size(text));
        options.segsize = parse_size(segsize);
        options.chain_fanout = chain_fanout;
        options.gather_bytes = parse_size(gather);
        if (options.segsize == 0 || options.gather_bytes == 0) throw UsageError("--segsize and --gather must be > 0");
        options.rule = stopping.rule(min_reps_given);
        options.max_time = stopping.max_time;
        options.db_path = db_path;
        options.machine = machine_name(machine, std::getenv(kMachineEnv));
        return options;
    }
};

CLI::App* add_fit_command(CLI::App& app, FitArgs& args) {
    CLI::App* fit = app.add_subcommand(
        "fit", "Measure gamma and each algorithm's alpha and beta for the analytic models and store them with the "
               "job (under mpiexec, one rank per node)");
    fit->add_option("-C,--collective", args.collectives, "bcast, reduce (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "reduce"}))
        ->capture_default_str();
    fit->add_option("-a,--algorithm", args.algorithms,
                    "Only these algorithm items (comma-separated; default: every modelled one)")
        ->delimiter(',');
    fit->add_option("--smallest", args.smallest, "Smallest experiment message")->capture_default_str();
    fit->add_option("--largest", args.largest, "Largest experiment message")->capture_default_str();
    fit->add_option("--count", args.count, "Experiment message sizes, log-spaced")
        ->check(CLI::Range(2, 100))
        ->capture_default_str();
    fit->add_option("--gamma-segsizes", args.gamma_segsizes, "Segment sizes gamma is measured at")
        ->delimiter(',')
        ->capture_default_str();
    fit->add_option("--segsize", args.segsize, "Segment size of the seg_* experiments")->capture_default_str();
    fit->add_option("--chain-fanout", args.chain_fanout, "Chains of the seg_chain experiments")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    fit->add_option("--gather", args.gather, "Bytes each rank sends in the linear gather after the experiment at the smallest size (i+1 times as many at the "
                    "i-th)")
        ->capture_default_str();
    add_stopping_options(*fit, args.stopping, "measurement", "Cap on wall-clock seconds per measurement (0: none)");
    fit->add_option("--db", args.db_path, "Measurement database (created; a rerun measures what is missing)")
        ->required();
    fit->add_option("--machine", args.machine, kMachineHelp);
    add_allow_cliques_flag(*fit, args.allow_cliques);
    return fit;
}

struct GenerateArgs {
    std::string db_path;
    std::string stock_path;
    std::string output_path;
    std::string from = "measured";
    std::vector<std::string> collectives;
    std::vector<JobId> jobs;
    std::string size_range;
    std::vector<std::string> sizes;
    bool prune = false;
    bool no_collapse = false;
    bool no_stock = false;
    std::vector<int> comm_sizes;
    std::vector<std::string> segsizes;
    std::vector<int> chain_fanouts;

    GenerateOptions options() const {  // throws UsageError
        GenerateOptions options;
        options.source = from == "model"      ? GenerateSource::model
                         : from == "analytic" ? GenerateSource::analytic
                                              : GenerateSource::measured;
        options.collectives = collectives;
        options.jobs = jobs;
        if (!size_range.empty() || !sizes.empty()) {
            if (options.source == GenerateSource::measured)
                throw UsageError("-m/--sizes choose the sizes a model evaluates: they need --from model or analytic");
            options.sizes = message_sizes(size_range, sizes);
        }
        if (!comm_sizes.empty() && options.source != GenerateSource::analytic)
            throw UsageError("--comm-sizes needs --from analytic");
        if ((!segsizes.empty() || !chain_fanouts.empty()) && options.source == GenerateSource::measured)
            throw UsageError("--segsizes and --chain-fanouts need --from model or analytic");
        options.comm_sizes = comm_sizes;
        for (const std::string& text : segsizes) options.segsizes.push_back(parse_size(text));
        if (!chain_fanouts.empty()) options.chain_fanouts = chain_fanouts;
        options.model.prune.enabled = prune;
        options.model.collapse_oversize_segments = !no_collapse;
        return options;
    }
};

CLI::App* add_generate_command(CLI::App& app, GenerateArgs& args) {
    CLI::App* generate = app.add_subcommand(
        "generate",
        "Write a complete MPIR Csel JSON tree (for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) from a database");
    generate->add_option("--db", args.db_path, "Measurement database")->required();
    generate->add_option("--stock", args.stock_path,
                         "MPICH's stock tree (maint/tuning/coll/mpir/generic.json) to start from")
        ->required();
    generate->add_option("-o,--output", args.output_path, "Tree file to write")->required();
    generate->add_option("--from", args.from,
                         "measured: fastest measured point per size; model: HAN task model vs measured stock; "
                         "analytic: the fitted analytic models ('hiertune fit')")
        ->check(CLI::IsMember({"measured", "model", "analytic"}))
        ->capture_default_str();
    generate->add_option("-C,--collective", args.collectives,
                         "Collectives to tune (default: bcast,reduce,allreduce; model: bcast,allreduce,allgather; analytic: "
                         "bcast,reduce)")
        ->delimiter(',');
    generate->add_option("--job", args.jobs, "Only these jobs (repeatable; see 'db list')")->allow_extra_args(false);
    generate->add_option("-m,--message-size", args.size_range,
                         "--from model/analytic: [MIN:]MAX sizes to evaluate (default model: the measured stock "
                         "sizes, else 1:1M; analytic: 1:4M)");
    generate->add_option("--sizes", args.sizes, "--from model/analytic: explicit sizes to evaluate")
        ->allow_extra_args(false);
    generate->add_option("--comm-sizes", args.comm_sizes,
                         "--from analytic: comm sizes (default: powers of two up to 4x the fitted size, and it)")
        ->delimiter(',')
        ->check(CLI::Range(2, 1 << 20));
    generate->add_option("--segsizes", args.segsizes,
                         "--from analytic: segment sizes of the seg_* candidates; model: inter_chunk values of the "
                         "seg_* inter-node candidates (default: gamma's segment sizes, model also 0)")
        ->delimiter(',');
    generate->add_option("--chain-fanouts", args.chain_fanouts, "--from analytic/model: seg_chain fanouts (default 2,4)")
        ->delimiter(',')
        ->check(CLI::PositiveNumber);
    generate->add_flag("--prune", args.prune, "--from model: HAN III-C pruning heuristics");
    generate->add_flag("--no-collapse", args.no_collapse,
                       "--from model: also consider every segment size larger than the message");
    return generate;
}

int run_generate(const GenerateArgs& args) {
    const GenerateOptions options = args.options();
    const MeasureDb measurements = open_existing_db(args.db_path);
    const csel::Json stock = csel::load_tree(args.stock_path);
    const GenerateReport report = generate_tree(measurements, stock, options);
    csel::save_tree(report.tree.tree, args.output_path);
    for (const std::string& line : report.lines) std::cout << line << '\n';
    std::cout << "wrote " << args.output_path << " (" << csel::collectives_of(report.tree.tree).size()
              << " collectives); use it with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" << args.output_path << '\n';
    return 0;
}

// `hiertune show-tree`: the selections of a tree, no MPI.
struct ShowTreeArgs {
    std::string tree_path;
    std::vector<std::string> collectives;
    std::vector<int> comm_sizes;
    std::vector<int> ppns;
    std::uint64_t type_size = 1;
    bool json = false;
};

CLI::App* add_show_tree_command(CLI::App& app, ShowTreeArgs& args) {
    CLI::App* command = app.add_subcommand(
        "show-tree",
        "Print what an MPIR Csel JSON tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) selects per collective, "
        "comm size, ppn and message-size range, walked as MPICH 5.0.1 walks it");
    command->add_option("file", args.tree_path,
                        "The tree (JSON); default: the site's installed tree (hiertune install-tree), with "
                        "its record and whether MPI_Init loads it");
    command->add_option("-C,--collective", args.collectives,
                        "Collectives to show (repeatable or comma-separated; default bcast,reduce,allreduce)")
        ->delimiter(',')
        ->check(CLI::IsMember(csel::known_collectives()));
    command->add_option("--comm-sizes", args.comm_sizes,
                        "Comm sizes, e.g. 8,16 (default: both sides of the tree's comm_size bounds)")
        ->delimiter(',')
        ->check(CLI::Range(1, 1 << 20));
    command->add_option("--ppn", args.ppns,
                        "Ranks per node, e.g. 1,2,4 (default: 1, 2 and both sides of the tree's comm_avg_ppn "
                        "bounds); above the comm size means one node")
        ->delimiter(',')
        ->check(CLI::Range(1, 1 << 20));
    command->add_option("--type-size", args.type_size, "Bytes per element: count = bytes / type size")
        ->check(CLI::Range(1, 1 << 20))
        ->capture_default_str();
    command->add_flag("--json", args.json, "A JSON array of row objects");
    return command;
}

// The site's installed tree: where it is, its record, whether this MPICH loads it.
std::string show_site_tree() {
    const std::filesystem::path path = site_tree_path(HIERTUNE_MPICH_PREFIX);
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        throw UsageError("no site tree at " + path.string() +
                         " (hiertune install-tree TREE installs one; show-tree FILE shows another tree)");
    std::cout << "site tree: " << path.string() << '\n';
    if (const std::optional<SiteRecord> record = read_site_record(path))
        std::cout << "measured on " << record->machine << " (" << record->cluster << ") at " << record->measured
                  << " with MPICH " << record->mpich_version << "; installed " << record->installed << " from "
                  << record->source << '\n';
    const std::vector<std::string> problems = site_tree_problems(path, MPICH_VERSION);
    for (const std::string& problem : problems) std::cout << "refused: " << problem << '\n';
    std::cout << (problems.empty() ? "MPI_Init loads it for every job whose environment names no tree "
                                     "(MPIR_CVAR_HIER_SITE_TREE=0 leaves it out)\n"
                                   : "MPI_Init refuses it: jobs run on MPICH's built-in tree\n");
    return path.string();
}

int run_show_tree(const ShowTreeArgs& args) {
    const std::string path = args.tree_path.empty() ? show_site_tree() : args.tree_path;
    const csel::Json tree = csel::load_tree(path);
    // MPICH walks the whole tree when it loads it: problems off the table's paths count too
    // (checked as the tree's own level: an MPIR tree, or CH4's compositions)
    const std::vector<std::string> problems = grammar::check_tree(tree, grammar::level_of(tree));
    for (const std::string& problem : problems) std::cerr << "hiertune: warning: " << problem << '\n';
    if (!problems.empty())
        std::cerr << "hiertune: warning: MPI_Init refuses this tree (" << problems.size() << " problem"
                  << (problems.size() == 1 ? "" : "s") << ")\n";
    csel::TableOptions options;
    options.collectives = args.collectives;
    options.comm_sizes = args.comm_sizes;
    options.ppns = args.ppns;
    options.type_size = args.type_size;
    const std::vector<csel::TableRow> rows = csel::selection_table(tree, options);
    if (args.json)
        std::cout << csel::table_json(rows).dump(2) << '\n';
    else
        csel::print_table(rows, std::cout);
    return 0;
}

// `hiertune compare-tuners`: every tuner's tree against one exhaustive sweep, no MPI.
struct CompareTunersArgs {
    std::string db_path;
    std::vector<std::string> trees;       // NAME=FILE
    std::vector<std::string> tuning_dbs;  // NAME=DB
    std::vector<std::string> collectives;
    std::string machine;
    std::string stock_path = HIERTUNE_GENERIC_JSON;
    OutputFlags output;
};

CLI::App* add_compare_tuners_command(CLI::App& app, CompareTunersArgs& args) {
    CLI::App* command = app.add_subcommand(
        "compare-tuners",
        "One table for all tuners: each tree's picks (walked as MPICH 5.0.1 walks it) against an exhaustive sweep "
        "('bench --db --account exhaustive'): cases, not measured, average and worst slowdown, points measured and "
        "tuning time; the sweep and MPICH's default as rows");
    command->add_option("--db", args.db_path, "The exhaustive sweep's measurement database")->required();
    command->add_option("--tree", args.trees, "NAME=FILE: a tuner's Csel tree (repeatable)")->required();
    command->add_option("--tuning-db", args.tuning_dbs,
                        "NAME=DB: the database the tuner of tree NAME measured into (its points and step times)");
    command->add_option("-C,--collective", args.collectives,
                        "Collectives (repeatable or comma-separated; default: every one the sweep has)")
        ->delimiter(',');
    command->add_option("--machine", args.machine, "The sweep's machine (default: the only one with points)");
    command->add_option("--stock", args.stock_path,
                        "MPICH's generic.json, to tell a pick of the stock subtree (default: the MPICH build's)");
    add_output_flags(*command, args.output);
    return command;
}

std::pair<std::string, std::string> name_and_path(const std::string& text, const char* option) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError(std::string(option) + " wants NAME=FILE, not '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

int run_compare_tuners(const CompareTunersArgs& args, bool stock_given) {
    const MeasureDb sweep = open_existing_db(args.db_path);
    std::vector<TunerTree> trees;
    for (const std::string& text : args.trees) {
        const auto [name, path] = name_and_path(text, "--tree");
        trees.push_back(TunerTree{name, csel::load_tree(path)});
    }
    CompareOptions options;
    options.collectives = args.collectives;
    options.machine = args.machine;
    std::error_code error;
    if (!args.stock_path.empty() && (stock_given || std::filesystem::exists(args.stock_path, error)))
        options.stock = csel::load_tree(args.stock_path);
    TunerComparison comparison = compare_tuners(sweep, trees, options);
    for (const std::string& text : args.tuning_dbs) {
        const auto [name, path] = name_and_path(text, "--tuning-db");
        const MeasureDb db = open_existing_db(path);
        // a tuner filed in the sweep's own file: the sweep's points are not its
        const bool same = std::filesystem::equivalent(path, args.db_path, error);
        set_cost(comparison, name, tuning_cost(db, same ? sweep_jobs(comparison) : std::set<JobId>{}));
    }
    if (args.output.json)
        write_comparison_json(comparison, std::cout);
    else if (args.output.csv)
        write_comparison_csv(comparison, std::cout);
    else
        write_comparison_text(comparison, std::cout);
    return 0;
}

// `hiertune check-tree`: the problems MPI_Init would report, one line each.
struct CheckTreeArgs {
    std::vector<std::string> paths;
    std::string level = "auto";
};

CLI::App* add_check_tree_command(CLI::App& app, CheckTreeArgs& args) {
    CLI::App* command = app.add_subcommand(
        "check-tree",
        "Check Csel JSON trees against MPICH 5.0.1's keys and the plugin's grammar, as MPI_Init does: one line "
        "per problem (exit 1 if any)");
    command->add_option("files", args.paths, "Tree files (JSON)")->required();
    command->add_option("--level", args.level,
                        "mpir: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE; ch4: MPIR_CVAR_CH4_COLL_SELECTION_"
                        "TUNING_JSON_FILE; auto: from the tree's first container")
        ->check(CLI::IsMember({"auto", "mpir", "ch4"}))
        ->capture_default_str();
    return command;
}

int run_check_tree(const CheckTreeArgs& args) {
    int failed = 0;
    for (const std::string& path : args.paths) {
        grammar::Level level = args.level == "ch4" ? grammar::Level::ch4 : grammar::Level::mpir;
        std::vector<std::string> collectives;
        try {  // a file that does not load is reported by the check itself
            const csel::Json tree = csel::load_tree(path);
            if (args.level == "auto") level = grammar::level_of(tree);
            collectives = csel::collectives_of(tree);
        } catch (const csel::TreeError&) {
        }
        const std::vector<std::string> problems = grammar::check_tree_file(path, level);
        for (const std::string& problem : problems) std::cout << path << ": " << problem << '\n';
        const char* kind = level == grammar::Level::ch4 ? "CH4" : "MPIR";
        if (!problems.empty()) {
            std::cout << path << ": " << problems.size() << " problem(s) in this " << kind << " tree\n";
            ++failed;
            continue;
        }
        // what the tree leaves out: MPIR trees are merged over MPICH's built-in one at
        // MPI_Init, CH4 trees fall back to the MPIR level
        std::cout << path << ": ok (" << kind << " tree, " << collectives.size() << " collectives; "
                  << (level == grammar::Level::mpir ? "the others keep MPICH's built-in choices"
                                                    : "the others go to the MPIR level")
                  << ")\n";
    }
    return failed ? 1 : 0;
}

struct TuneArgs {
    int ranks = 0;
    int nodes = 0;
    std::vector<std::string> collectives{"bcast", "allreduce", "allgather"};
    std::string size_range;
    std::vector<std::string> sizes;
    std::string configs;
    std::vector<std::string> segsizes{"16K", "64K", "256K"};
    std::string db_path = "tune.sqlite";
    std::string output_path = "tree.json";
    std::string stock_path = HIERTUNE_GENERIC_JSON;
    std::string report_dir = "tune-report";
    std::string mpiexec;
    std::vector<std::string> mpiexec_args;
    std::string launcher;
    std::string fit_launcher;
    std::string machine;
    std::uint64_t steady = 8;
    std::size_t task_warmup = 3;
    std::size_t task_min_reps = 10;
    std::size_t task_reps = 100;
    std::size_t bench_warmup = 10;
    std::size_t bench_min_reps = 10;
    std::size_t bench_max_reps = 1000;
    double precision_percent = 2.5;
    double max_time = 5;
    double rate_tolerance_percent = 10;
    int tree_rounds = 3;
    double tree_tolerance_percent = 5;
    bool allow_tree_slower = false;
    bool install = false;
    bool prune = false;
    bool no_collapse = false;
    bool no_stock = false;
    bool allow_cliques = false;

    TuneOptions options(bool nodes_given, bool launcher_given) const {  // throws UsageError
        TuneOptions options;
        options.ranks = ranks;
        if (nodes_given) options.nodes = nodes;
        options.collectives = collectives;
        options.sizes = message_sizes(size_range.empty() && sizes.empty() ? "1K:1M" : size_range, sizes);
        options.configs = configs;
        for (const std::string& text : segsizes)
            for (std::uint64_t size : parse_size_list(text)) options.segsizes.push_back(size);
        options.db_path = db_path;
        options.tree_path = output_path;
        options.report_dir = report_dir;
        if (stock_path.empty())
            throw UsageError("--stock: this hiertune knows no MPICH build tree; name MPICH's "
                             "maint/tuning/coll/mpir/generic.json");
        options.stock_path = stock_path;
        if (launcher_given) options.launcher = launcher_words(launcher);
        if (!fit_launcher.empty()) options.fit_launcher = launcher_words(fit_launcher);
        options.mpiexec = mpiexec.empty() && !launcher_given ? std::string(HIERTUNE_MPICH_PREFIX) + "/bin/mpiexec"
                                                             : mpiexec;
        options.mpiexec_args = mpiexec_args;
        options.machine = machine_name(machine, std::getenv(kMachineEnv));  // else: step 0's job names it
        options.steady_segments = steady;
        options.task_warmup = task_warmup;
        options.task_min_reps = std::min(task_min_reps, task_reps);  // a small --task-reps lowers it
        options.task_reps = task_reps;
        options.bench_warmup = bench_warmup;
        if (bench_min_reps > bench_max_reps) throw UsageError("--bench-min-reps must not exceed --bench-reps");
        options.bench_min_reps = bench_min_reps;
        options.bench_max_reps = bench_max_reps;
        options.bench_precision_percent = precision_percent;
        options.bench_max_time = max_time;
        options.rate_tolerance_percent = rate_tolerance_percent;
        options.tree_rounds = tree_rounds;
        options.tree_tolerance = tree_tolerance_percent / 100;
        options.allow_tree_slower = allow_tree_slower;
        if (install) options.install_prefix = HIERTUNE_MPICH_PREFIX;
        options.stock = !no_stock;
        options.allow_cliques = allow_cliques;
        options.model.prune.enabled = prune;
        options.model.collapse_oversize_segments = !no_collapse;
        return options;
    }
};

CLI::App* add_tune_command(CLI::App& app, TuneArgs& args) {
    CLI::App* tune = app.add_subcommand(
        "tune",
        "Tune at install (run it WITHOUT mpiexec): link calibration, task benchmarks, HAN model, tree, its check "
        "in MPICH, its timing as loaded against no tree, exhaustive sweep and the validation report");
    tune->add_option("-n,--ranks", args.ranks, "Ranks of the MPI jobs")->required()->check(CLI::Range(2, 1 << 20));
    tune->add_option("--nodes", args.nodes, "Emulated nodes (sets MPIR_CVAR_NUM_CLIQUES for the jobs)");
    tune->add_option("-C,--collective", args.collectives, "bcast, allreduce, allgather (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "allreduce", "allgather"}))
        ->capture_default_str();
    tune->add_option("-m,--message-size", args.size_range, "[MIN:]MAX: message sizes, OSU style (default 1K:1M)");
    tune->add_option("--sizes", args.sizes, "Explicit message sizes (added to -m)")->allow_extra_args(false);
    tune->add_option("--config", args.configs,
                     "Search space: NAME=V[/V...][,...] of inter_algo, inter_k, inter_chunk, intra_algo (as tasks)");
    tune->add_option("-s,--segsize", args.segsizes, "Segment sizes of the search space")
        ->allow_extra_args(false)
        ->capture_default_str();
    tune->add_option("--db", args.db_path, "Measurement database (created; a rerun resumes)")->capture_default_str();
    tune->add_option("-o,--output", args.output_path, "Tree file to write")->capture_default_str();
    tune->add_option("--stock", args.stock_path, "MPICH's maint/tuning/coll/mpir/generic.json")
        ->capture_default_str();
    tune->add_option("--report", args.report_dir, "Directory of the validation report")->capture_default_str();
    tune->add_option("--mpiexec", args.mpiexec,
                     "mpiexec to launch the jobs with (default: the one of the MPICH hiertune is built against, " +
                         std::string(HIERTUNE_MPICH_PREFIX) + "/bin/mpiexec)");
    tune->add_option("--mpiexec-arg", args.mpiexec_args, "Extra mpiexec argument (repeatable, e.g. -f)")
        ->allow_extra_args(false);
    tune->add_option("--launcher", args.launcher,
                     "Launch prefix of every job instead of 'MPIEXEC [--mpiexec-arg ...] -n N', split into words "
                     "like a shell, e.g. 'maint/emucluster run --ppn 2 --' or 'srun -N 4 --ntasks-per-node=4' "
                     "(-n still names the job in the database)");
    tune->add_option("--fit-launcher", args.fit_launcher,
                     "Launch prefix of step 0b, hiertune fit, with ONE rank per node, e.g. 'maint/emucluster run "
                     "--ppn 1 --': needed when --config has seg_* inter-node submodules (their inter-node stages "
                     "are costed by the analytic models; with --nodes: mpiexec -n NODES on cliques)");
    tune->add_option("--machine", args.machine,
                     std::string("Machine name of the job in the database (default: ") + kMachineEnv +
                         ", else the name the calibrate job of step 0 files it under: the launch's " + kMachineEnv +
                         " or rank 0's processor name)");
    tune->add_option("--steady", args.steady, "tasks: segments of the steady run")->capture_default_str();
    tune->add_option("--task-warmup", args.task_warmup, "tasks: warm-up repetitions")->capture_default_str();
    tune->add_option("--task-min-reps", args.task_min_reps, "tasks: timed repetitions per run before it may stop")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tune->add_option("--task-reps", args.task_reps, "tasks: cap on timed repetitions per run")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tune->add_option("--bench-warmup", args.bench_warmup, "bench: warm-up repetitions per point")
        ->capture_default_str();
    tune->add_option("--bench-min-reps", args.bench_min_reps, "bench: repetitions before a point may stop")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tune->add_option("--bench-reps", args.bench_max_reps, "bench: cap on repetitions per point")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    tune->add_option("--precision", args.precision_percent,
                     "bench, tasks and calibrate: CI half-width target in % of the median")
        ->check(CLI::Range(0.001, 100.0))
        ->capture_default_str();
    tune->add_option("--max-time", args.max_time,
                     "bench: cap on seconds per point; tasks: per segment-size group; calibrate: per "
                     "measurement (0: none)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    tune->add_option("--rate-tolerance", args.rate_tolerance_percent,
                     std::string("calibrate: percent an inter-node link's bandwidth may be off ") + kLinkRateEnv +
                         " (where the launch sets it) before step 0 fails")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    tune->add_option("--tree-rounds", args.tree_rounds,
                     "Step 5: rounds of the two alternating jobs timing the tree as loaded and no tree (>= 2)")
        ->capture_default_str();
    tune->add_option("--tree-tolerance", args.tree_tolerance_percent,
                     "Step 5: percent the tree may be slower (median ratio no-tree / tree below 1 - this) before "
                     "a size whose every tree round is slower than every no-tree round fails")
        ->capture_default_str();
    tune->add_flag("--allow-tree-slower", args.allow_tree_slower,
                   "Report sizes where the tree is slower than no tree beyond the noise, but exit 0 (e.g. on "
                   "emulated cliques, where timings measure the scheduler)");
    tune->add_flag("--install", args.install,
                   std::string("When the tree passes verify and the tree timing, install it as the site's tree "
                               "of ") + HIERTUNE_MPICH_PREFIX + " (as 'hiertune install-tree')");
    tune->add_flag("--no-stock", args.no_stock,
                   "Do not measure the stock selection (the tree then takes hier wherever the model predicts it)");
    tune->add_flag("--prune", args.prune, "Model: HAN III-C pruning heuristics");
    tune->add_flag("--no-collapse", args.no_collapse, "Model: also rank segment sizes larger than the message");
    tune->add_flag(kAllowCliquesFlag, args.allow_cliques,
                   std::string("Run on emulated nodes (--nodes, ") + kNumCliquesEnv +
                       " > 1) anyway and pass the flag to the jobs: timings measure the scheduler, for "
                       "correctness runs only");
    return tune;
}

// `hiertune tree-timing`: tune's step 5 for any tree.
struct TreeTimingArgs {
    std::string tree_path;
    int ranks = 0;
    int nodes = 0;
    std::vector<std::string> collectives{"bcast", "allreduce"};
    std::string size_range;
    std::vector<std::string> sizes;
    std::string mpiexec;
    std::vector<std::string> mpiexec_args;
    std::string launcher;
    int rounds = 3;
    double tolerance_percent = 5;
    bool allow_slower = false;
    StoppingArgs stopping{10};
    bool allow_cliques = false;

    TuneOptions options(bool nodes_given, bool launcher_given, bool min_reps_given) const {  // throws UsageError
        TuneOptions options;
        options.tree_path = tree_path;
        options.ranks = ranks;
        if (nodes_given) options.nodes = nodes;
        options.collectives = collectives;
        options.sizes = message_sizes(size_range.empty() && sizes.empty() ? "1K:1M" : size_range, sizes);
        if (launcher_given) options.launcher = launcher_words(launcher);
        options.mpiexec = mpiexec.empty() && !launcher_given ? std::string(HIERTUNE_MPICH_PREFIX) + "/bin/mpiexec"
                                                             : mpiexec;
        options.mpiexec_args = mpiexec_args;
        const StoppingRule rule = stopping.rule(min_reps_given);
        options.bench_warmup = rule.warmup_reps;
        options.bench_min_reps = rule.min_reps;
        options.bench_max_reps = rule.max_reps;
        options.bench_precision_percent = stopping.precision_percent;
        options.bench_max_time = stopping.max_time;
        options.tree_rounds = rounds;
        options.tree_tolerance = tolerance_percent / 100;
        options.allow_tree_slower = allow_slower;
        options.allow_cliques = allow_cliques;
        return options;
    }
};

CLI::App* add_tree_timing_command(CLI::App& app, TreeTimingArgs& args) {
    CLI::App* command = app.add_subcommand(
        "tree-timing",
        "Time a Csel tree as loaded against no tree (run it WITHOUT mpiexec): alternating jobs of 'bench -a "
        "default' with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=TREE and without it, the ratio per size");
    command->add_option("--tree", args.tree_path, "The tree (JSON) to time")->required();
    command->add_option("-n,--ranks", args.ranks, "Ranks of the jobs")->required()->check(CLI::Range(2, 1 << 20));
    command->add_option("--nodes", args.nodes, "Emulated nodes (sets MPIR_CVAR_NUM_CLIQUES for the jobs)");
    command->add_option("-C,--collective", args.collectives, "bcast, reduce, allreduce, allgather (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "reduce", "allreduce", "allgather"}))
        ->capture_default_str();
    command->add_option("-m,--message-size", args.size_range, "[MIN:]MAX: message sizes, OSU style (default 1K:1M)");
    command->add_option("--sizes", args.sizes, "Explicit message sizes (added to -m)")->allow_extra_args(false);
    command->add_option("--mpiexec", args.mpiexec,
                        "mpiexec to launch the jobs with (default: " + std::string(HIERTUNE_MPICH_PREFIX) +
                            "/bin/mpiexec)");
    command->add_option("--mpiexec-arg", args.mpiexec_args, "Extra mpiexec argument (repeatable, e.g. -f)")
        ->allow_extra_args(false);
    command->add_option("--launcher", args.launcher,
                        "Launch prefix of every job instead of 'MPIEXEC [--mpiexec-arg ...] -n N', split into "
                        "words like a shell (as for tune)");
    command->add_option("--rounds", args.rounds, "Rounds of the two alternating jobs (>= 2)")->capture_default_str();
    command->add_option("--tolerance", args.tolerance_percent,
                        "Percent the tree may be slower (median ratio below 1 - this) before a size whose every "
                        "tree round is slower than every no-tree round fails")
        ->capture_default_str();
    command->add_flag("--allow-tree-slower", args.allow_slower,
                      "Report sizes where the tree is slower beyond the noise, but exit 0");
    add_stopping_options(*command, args.stopping, "point", "Cap on wall-clock seconds per point (0: none)");
    add_allow_cliques_flag(*command, args.allow_cliques);
    return command;
}

// `hiertune learn`: active learning over bench jobs, then the tree.
struct LearnArgs {
    std::vector<std::string> collectives{"bcast"};
    std::vector<int> nodes;
    std::vector<int> ppn{1};
    std::string size_range = "1K:1M";
    std::vector<std::string> algorithms;
    std::vector<std::string> params;
    std::string db_path = "learn.sqlite";
    std::string output_path = "tree.json";
    std::string stock_path = HIERTUNE_GENERIC_JSON;
    std::size_t batch = 1;
    double time_budget = 0;
    double threshold = 0.1;
    bool absolute = false;
    std::size_t converge_iterations = 4;
    std::size_t trees = 100;
    std::size_t initial_points = 4;
    bool random_start = false;
    std::uint64_t seed = 1;
    std::size_t parallel = 0;
    std::size_t rack_nodes = 1;
    bool collect_only = false;
    bool train_only = false;
    std::string mpiexec;
    std::vector<std::string> mpiexec_args;
    std::string launcher;
    std::string machine;
    StoppingArgs stopping{10};
    bool allow_cliques = false;

    LearnRunOptions options(bool launcher_given, bool min_reps_given) const {  // throws UsageError
        LearnRunOptions options;
        options.collectives = collectives;
        options.nodes = nodes;
        options.ppn = ppn;
        options.sizes = osu_size_range(size_range);
        options.tree_path = output_path;
        if (stock_path.empty() && !collect_only)
            throw UsageError("--stock: this hiertune knows no MPICH build tree; name MPICH's "
                             "maint/tuning/coll/mpir/generic.json");
        options.stock_path = stock_path;
        options.batch = batch;
        options.learn.convergence.threshold = threshold;
        options.learn.convergence.relative = !absolute;
        options.learn.convergence.iterations = converge_iterations;
        options.learn.convergence.time_budget_s = time_budget;
        options.learn.forest.trees = trees;
        options.learn.initial_points = initial_points;
        options.learn.start_at_both_ends = !random_start;
        options.learn.seed = seed;
        options.parallel_nodes = parallel;
        options.rack_nodes = rack_nodes;
        options.collect_only = collect_only;
        options.train_only = train_only;
        TuneOptions& jobs = options.jobs;
        jobs.db_path = db_path;
        if (launcher_given) jobs.launcher = launcher_words(launcher);
        jobs.mpiexec =
            mpiexec.empty() && !launcher_given ? std::string(HIERTUNE_MPICH_PREFIX) + "/bin/mpiexec" : mpiexec;
        jobs.mpiexec_args = mpiexec_args;
        jobs.machine = machine;  // HIERTUNE_MACHINE of this process is not the launch's: the first job names it
        const StoppingRule rule = stopping.rule(min_reps_given);
        jobs.bench_warmup = rule.warmup_reps;
        jobs.bench_min_reps = rule.min_reps;
        jobs.bench_max_reps = rule.max_reps;
        jobs.bench_precision_percent = stopping.precision_percent;
        jobs.bench_max_time = stopping.max_time;
        jobs.allow_cliques = allow_cliques;
        check_learn_options(options);
        return options;
    }
};

CLI::App* add_learn_command(CLI::App& app, LearnArgs& args) {
    CLI::App* learn = app.add_subcommand(
        "learn",
        "Active learning (ACCLAiM; run it WITHOUT mpiexec): a random forest per collective over nodes x ppn x "
        "size x configuration picks the bench jobs by its jackknife variance until the summed variance settles "
        "or the time budget is spent, then the Csel tree of its predictions");
    learn->add_option("-C,--collective", args.collectives, "bcast, reduce, allreduce (comma-separated; learned in turn)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "reduce", "allreduce"}))
        ->capture_default_str();
    learn->add_option("--nodes", args.nodes, "Node counts of the space (comma-separated)")
        ->delimiter(',')
        ->required();
    learn->add_option("--ppn", args.ppn, "Ranks per node of the space (comma-separated)")
        ->delimiter(',')
        ->capture_default_str();
    learn->add_option("-m,--message-size", args.size_range,
                      "MIN:MAX: the candidate sizes, powers of two (every fifth point is measured at a size "
                      "near one)")
        ->capture_default_str();
    learn->add_option("-a,--algorithm", args.algorithms,
                      "ALGO[:NAME=V[/V...][,NAME=V...]] (repeatable), as bench's; default: all")
        ->allow_extra_args(false);
    learn->add_option("-p,--param", args.params, "NAME=V[/V...] (repeatable), as bench's")->allow_extra_args(false);
    learn->add_option("--db", args.db_path,
                      "Measurement database (created; points stored for the machine and shape are used, not "
                      "measured again)")
        ->capture_default_str();
    learn->add_option("-o,--output", args.output_path, "Tree file to write")->capture_default_str();
    learn->add_option("--stock", args.stock_path, "MPICH's maint/tuning/coll/mpir/generic.json")
        ->capture_default_str();
    learn->add_option("--batch", args.batch, "Points per iteration")->capture_default_str();
    learn->add_option("--time-budget", args.time_budget,
                      "Seconds per collective after which learning stops at the next iteration (0: none)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    learn->add_option("--threshold", args.threshold,
                      "Converged when the summed variance changes by less than this (relative to it) in "
                      "--converge-iterations iterations in a row")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    learn->add_flag("--absolute", args.absolute,
                    "--threshold is an absolute change of the summed variance (the paper's rule, 1e-9)");
    learn->add_option("--converge-iterations", args.converge_iterations, "Iterations in a row below the threshold")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    learn->add_option("--trees", args.trees, "Trees of the random forest")->capture_default_str();
    learn->add_option("--initial-points", args.initial_points, "Random points measured before the first forest")
        ->capture_default_str();
    learn->add_flag("--random-start", args.random_start,
                     "Start with --initial-points random points only (ACCLAiM's start), not every configuration "
                     "at the smallest size on every shape and at the largest on the largest shape first");
    learn->add_option("--seed", args.seed, "Seed of the random points and non-power-of-two sizes")
        ->capture_default_str();
    learn->add_option("--parallel", args.parallel,
                      "Nodes of the allocation: the jobs of a batch that fit on disjoint nodes run at once "
                      "(mpiexec on emulated nodes only; 0: one job at a time)")
        ->capture_default_str();
    learn->add_option("--rack-nodes", args.rack_nodes, "--parallel: nodes per rack; no two jobs share a rack")
        ->capture_default_str();
    CLI::Option* collect =
        learn->add_flag("--collect-only", args.collect_only, "Measure the points the learner picks; write no tree");
    learn->add_flag("--train-only", args.train_only,
                    "Measure nothing: train on the points in --db and write the tree")
        ->excludes(collect);
    learn->add_option("--mpiexec", args.mpiexec,
                      "mpiexec to launch the jobs with (default: " + std::string(HIERTUNE_MPICH_PREFIX) +
                          "/bin/mpiexec): -n NODES*PPN with MPIR_CVAR_NUM_CLIQUES=NODES (emulated nodes)");
    learn->add_option("--mpiexec-arg", args.mpiexec_args, "Extra mpiexec argument (repeatable)")
        ->allow_extra_args(false);
    learn->add_option("--launcher", args.launcher,
                      "Launch prefix of every job, split like a shell; {nodes}, {ppn}, {ranks} are replaced by "
                      "the job's shape, else '--nodes N --ppn P --' is appended (e.g. 'maint/emucluster run')");
    learn->add_option("--machine", args.machine,
                      "Machine name of the jobs in the database (default: the one the first job is filed under)");
    add_stopping_options(*learn, args.stopping, "point", "bench: cap on seconds per point (0: none)");
    learn->add_flag(kAllowCliquesFlag, args.allow_cliques,
                    std::string("Run on emulated nodes (") + kNumCliquesEnv +
                        ") anyway and pass the flag to the jobs: timings measure the scheduler, for correctness "
                        "runs only");
    return learn;
}

std::string own_path(const char* argv0) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) return self.string();
    return std::filesystem::absolute(argv0).string();
}

int print_error(const std::string& message) {
    std::cerr << "hiertune: error: " << message << '\n';
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    // bench runs under mpiexec: MPI comes up before parsing, so that a bad
    // command line is reported once (rank 0) and every rank exits alike.
    std::optional<MpiSession> mpi;
    if (argc > 1 && (std::string_view(argv[1]) == "bench" || std::string_view(argv[1]) == "tasks" ||
                     std::string_view(argv[1]) == "calibrate" || std::string_view(argv[1]) == "verify" ||
                     std::string_view(argv[1]) == "fit" || std::string_view(argv[1]) == "overlap"))
        mpi.emplace(argc, argv);
    const bool speaker = !mpi || mpi->rank() == 0;

    CLI::App app{"hiertune: measure MPICH collective algorithms and find the best per message size"};
    app.require_subcommand(1);
    BenchArgs bench_args;
    CLI::App* bench = add_bench_command(app, bench_args);

    CLI::App* db = app.add_subcommand("db", "Query a measurement database written by 'bench --db'");
    db->require_subcommand(1);
    DbArgs db_args;
    CLI::App* db_list = add_db_query(*db, "list", "Jobs in the database and their point counts", db_args, false);
    CLI::App* db_best = add_db_query(*db, "best", "Best configuration (lowest median) per job, collective and size",
                                     db_args, true);
    CLI::App* db_points = add_db_query(*db, "points", "Every stored point", db_args, true);
    CLI::App* db_check = db->add_subcommand("check", "SQLite integrity check (exit 1 unless ok)");
    db_check->add_option("--db", db_args.path, "Measurement database")->required();

    TasksArgs tasks_args;
    CLI::App* tasks = add_tasks_command(app, tasks_args);
    CalibrateArgs calibrate_args;
    CLI::App* calibrate = add_calibrate_command(app, calibrate_args);
    OverlapArgs overlap_args;
    CLI::App* overlap = add_overlap_command(app, overlap_args);
    std::vector<std::string> overlap_report_files;
    std::string overlap_png_dir;
    CLI::App* overlap_report = app.add_subcommand(
        "overlap-report", "Runs of 'overlap --json' side by side (e.g. without and with MPIR_CVAR_ASYNC_PROGRESS=1 "
                          "in the environment): ratio tables, verdicts, and heat maps with --png-dir");
    overlap_report->add_option("files", overlap_report_files, "Outputs of 'hiertune overlap --json'")->required();
    overlap_report->add_option("--png-dir", overlap_png_dir,
                               "Write one heat map per configuration here (PNG via gnuplot, one panel per run)");
    FitArgs fit_args;
    CLI::App* fit = add_fit_command(app, fit_args);
    GenerateArgs generate_args;
    CLI::App* generate = add_generate_command(app, generate_args);

    std::string report_db, report_dir;
    JobId report_job = 0;
    CLI::App* analytic_report = app.add_subcommand(
        "analytic-report", "Validate the fitted analytic models ('fit') against the exhaustive sweep in the same "
                           "database ('bench --db --account exhaustive', one job per comm size): picks, slowdowns, "
                           "predicted vs measured, fitting vs sweep time, MPICH's default (exit 1 if a target is missed)");
    analytic_report->add_option("--db", report_db, "Measurement database")->required();
    analytic_report->add_option("--job", report_job, "The job with the fitted models (see 'db list')")->required();
    analytic_report->add_option("-o,--output", report_dir, "Directory of the report files")->required();

    TuneArgs tune_args;
    CLI::App* tune = add_tune_command(app, tune_args);
    TreeTimingArgs tree_timing_args;
    CLI::App* tree_timing = add_tree_timing_command(app, tree_timing_args);
    LearnArgs learn_args;
    CLI::App* learn = add_learn_command(app, learn_args);
    ShowTreeArgs show_tree_args;
    CLI::App* show_tree = add_show_tree_command(app, show_tree_args);
    CheckTreeArgs check_tree_args;
    CLI::App* check_tree = add_check_tree_command(app, check_tree_args);
    CompareTunersArgs compare_tuners_args;
    CLI::App* compare_tuners_command = add_compare_tuners_command(app, compare_tuners_args);
    // the commands that bind their own options (command.hpp)
    std::vector<std::pair<std::unique_ptr<Command>, CLI::App*>> commands;
    {
        std::unique_ptr<Command> modules[] = {install_tree_command()};
        for (std::unique_ptr<Command>& command : modules) {
            CLI::App* bound = command->bind(app);
            commands.emplace_back(std::move(command), bound);
        }
    }
    std::vector<std::string> verify_cases;
    CLI::App* verify = app.add_subcommand(
        "verify", "Check through the plugin's pvars that collectives run what the loaded tree says "
                  "(under mpiexec; run by tune)");
    verify->add_option("--case", verify_cases, "COLL:BYTES:hier/SEGMENTS or COLL:BYTES:any (repeatable)")
        ->required()
        ->allow_extra_args(false);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int status = speaker ? app.exit(e) : e.get_exit_code();
        return status == 0 ? 0 : 1;
    }
    bench_args.min_reps_given = bench->count("--min-reps") > 0;

    if (bench->parsed()) {
        if (!mpi) return print_error("'bench' must be the first argument");
        BenchOptions options;
        try {
            options = bench_args.options();
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;  // every rank parsed the same text
        }
        try {
            return run_bench(options, std::cout, std::cerr);
        } catch (const std::exception& e) {  // e.g. no memory for the buffers, on some rank
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (tasks->parsed()) {
        if (!mpi) return print_error("'tasks' must be the first argument");
        TasksOptions options;
        try {
            options = tasks_args.options();
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;
        }
        try {
            return run_tasks(options, std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (overlap->parsed()) {
        if (!mpi) return print_error("'overlap' must be the first argument");
        OverlapOptions options;
        try {
            options = overlap_args.options();
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;
        }
        try {
            return run_overlap(options, std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (overlap_report->parsed()) {
        try {
            return run_overlap_report(overlap_report_files, overlap_png_dir, std::cout);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (calibrate->parsed()) {
        if (!mpi) return print_error("'calibrate' must be the first argument");
        CalibrateOptions options;
        try {
            options = calibrate_args.options(calibrate->count("--min-reps") > 0,
                                             calibrate->count("--expect-rate") > 0);
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;
        }
        try {
            return run_calibrate(options, std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (fit->parsed()) {
        if (!mpi) return print_error("'fit' must be the first argument");
        fit_args.min_reps_given = fit->count("--min-reps") > 0;
        FitOptions options;
        try {
            options = fit_args.options();
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;
        }
        try {
            return run_fit(options, std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (verify->parsed()) {
        if (!mpi) return print_error("'verify' must be the first argument");
        std::vector<VerifyCase> cases;
        try {
            for (const std::string& text : verify_cases) cases.push_back(parse_verify_case(text));
        } catch (const UsageError& e) {
            return speaker ? print_error(e.what()) : 1;
        }
        try {
            return run_verify(cases, std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cerr << "hiertune: error on rank " << mpi->rank() << ": " << e.what() << '\n';
            mpi->abort(1);
        }
    }

    if (tune->parsed()) {
        try {
            const TuneOptions options =
                tune_args.options(tune->count("--nodes") > 0, tune->count("--launcher") > 0);
            return run_tune(options, own_path(argv[0]), std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (tree_timing->parsed()) {
        try {
            const TuneOptions options =
                tree_timing_args.options(tree_timing->count("--nodes") > 0, tree_timing->count("--launcher") > 0,
                                         tree_timing->count("--min-reps") > 0);
            return run_tree_timing(options, own_path(argv[0]), std::cout, std::cerr);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (learn->parsed()) {
        try {
            const LearnRunOptions options =
                learn_args.options(learn->count("--launcher") > 0, learn->count("--min-reps") > 0);
            std::vector<AlgorithmSpec> algorithms;
            for (const std::string& text : learn_args.algorithms) algorithms.push_back(parse_algorithm_spec(text));
            if (algorithms.empty()) algorithms.push_back(parse_algorithm_spec(kAllAlgorithms));
            std::vector<ParamSpec> params;
            for (const std::string& text : learn_args.params) params.push_back(parse_param_spec(text));
            return run_learn(options, plan_learn_configurations(options.collectives, algorithms, params),
                             own_path(argv[0]), std::cout);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (generate->parsed()) {
        try {
            return run_generate(generate_args);
        } catch (const std::exception& e) {
            return print_error(e.what());
        }
    }

    if (check_tree->parsed()) return run_check_tree(check_tree_args);

    for (auto& [command, bound] : commands)
        if (bound->parsed()) {
            try {
                return command->run();
            } catch (const std::exception& e) {
                std::cout.flush();
                return print_error(e.what());
            }
        }

    if (analytic_report->parsed()) {
        try {
            open_existing_db(report_db);
            return run_analytic_report(report_db, report_job, report_dir, std::cout);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (compare_tuners_command->parsed()) {
        try {
            return run_compare_tuners(compare_tuners_args, compare_tuners_command->count("--stock") > 0);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    if (show_tree->parsed()) {
        try {
            return run_show_tree(show_tree_args);
        } catch (const std::exception& e) {
            std::cout.flush();
            return print_error(e.what());
        }
    }

    try {
        const MeasureDb measurements = open_existing_db(db_args.path);
        if (db_list->parsed()) print_jobs(measurements, db_args.output.format(), std::cout);
        if (db_best->parsed()) print_best(measurements, db_args.query(), std::cout);
        if (db_points->parsed()) print_points(measurements, db_args.query(), std::cout);
        if (db_check->parsed()) return print_check(measurements, std::cout) ? 0 : 1;
    } catch (const std::exception& e) {
        return print_error(e.what());
    }
    return 0;
}
