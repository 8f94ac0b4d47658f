#include "bench_cli.hpp"

#include <cstdlib>
#include <iostream>

#include "hiertune/models/calibration.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

CLI::App* BenchCli::bind(CLI::App& app) {
    CLI::App* bench = app.add_subcommand(
        "bench",
        "Time MPI_Bcast/MPI_Reduce/MPI_Allreduce/MPI_Allgather/MPI_Gather/MPI_Scatter/MPI_Barrier per "
        "message size, algorithm and parameter set, the configurations of a size in turns, each compared with "
        "the first (run it under mpiexec)");
    bench->add_option("-C,--collective", collectives_, "Collectives to time (comma-separated): " + collective_list())
        ->delimiter(',')
        ->check(CLI::IsMember(supported_collectives()))
        ->capture_default_str();
    bench->add_option("-a,--algorithm", algorithms_,
                      "ALGO[:NAME=V[/V...][,NAME=V...]] (repeatable): an item of "
                      "MPIR_CVAR_<COLL>_INTRA_ALGORITHM, 'default' (MPICH's selection), 'all' or 'stock' (all but the plugin's), with "
                      "parameters of its own; default: default")
        ->allow_extra_args(false);
    bench->add_option("-p,--param", params_,
                      "NAME=V[/V...] (repeatable): an MPI_T control variable (MPIR_CVAR_ prefix optional) "
                      "set for every algorithm; value lists multiply out")
        ->allow_extra_args(false);
    bench->add_option("-m,--message-size", size_range_,
                      "[MIN:]MAX: powers of two from MIN (default 1) to MAX, OSU style; K/M/G suffixes "
                      "(default 1:1048576 unless --sizes). allgather, allgatherv, gather, scatter, reduce_scatter, "
                      "reduce_scatter_block: the bytes each rank sends/receives (root, allgather, allgatherv: "
                      "size x ranks; the reduce-scatters: each rank's block, size x ranks sent); gatherv, "
                      "scatterv: the mean of the ranks' uneven blocks (rank pairs size +/- size/2; root: size x "
                      "ranks); alltoall, alltoallv: the bytes each rank sends to each peer, the block (size x ranks "
                      "sent and received); barrier: --sizes 0 only");
    bench->add_option("--sizes", sizes_, "Explicit sizes, e.g. 3,1000,65537 (added to -m)")->allow_extra_args(false);
    add_stopping_options(*bench, stopping_, "point", "Cap on wall-clock seconds per point, its own turns (0: none)");
    bench->add_option("-r,--reps", reps_,
                      "Exactly this many repetitions per point (after the -x warm-up ones): no stopping rule")
        ->check(positive_number())
        ->excludes("--min-reps")
        ->excludes("--max-reps")
        ->excludes("--precision")
        ->excludes("--max-time");
    add_output_flags(*bench, output_);
    bench->add_flag("-f,--full", full_, "OSU format: add Min/Max Latency(us) and Iterations columns");
    bench->add_flag("-c,--validate", validate_,
                    "Check the received data/result on every rank, every repetition (exit 1 on failure; "
                    "gather: at the root; exscan: off rank 0; barrier: nothing to check)");
    bench->add_flag("--same-runs-once", same_runs_once_,
                    "Of hier configurations that differ only in segment sizes at or above what they cut (the message; "
                    "allgather: the fullest node's block), so one segment (the same run), time the one with the "
                    "smallest segment size");
    CLI::Option* progress =
        bench->add_flag("--progress", progress_,
                        "Draw a progress bar on stderr (default: only when stderr is a terminal and stdout is not)");
    bench->add_flag("--no-progress", no_progress_, "No progress bar on stderr")->excludes(progress);
    bench->add_option("--db", db_path_,
                      "Record every point in this SQLite database and skip points already there "
                      "(rerun the same command to resume a killed sweep)");
    bench->add_option("--machine", machine_, machine_help());
    bench->add_option("--account", account_step_,
                      "Add each point's measuring time to this step of the database's step times "
                      "(hiertune tune's bookkeeping; survives a kill)")
        ->needs("--db");
    add_allow_cliques_flag(*bench, allow_cliques_);
    command_ = bench;
    return bench;
}

BenchOptions BenchCli::options() const {
    refuse_cliques(allow_cliques_);
    BenchOptions options;
    options.collectives = collectives_;
    for (const std::string& text : algorithms_) options.algorithms.push_back(parse_algorithm_spec(text));
    for (const std::string& text : params_) options.params.push_back(parse_param_spec(text));
    options.sizes = message_sizes(size_range_, sizes_);
    options.rule = stopping_.rule(command_->count("--min-reps") > 0);
    options.max_time = stopping_.max_time;
    if (reps_ > 0) {  // a fixed count: no precision stop, no caps below it
        options.reps = reps_;
        options.rule.min_reps = options.rule.max_reps = reps_;
        options.max_time = 0;
    }
    options.format = output_.format();
    options.full = full_;
    options.validate = validate_;
    options.same_runs_once = same_runs_once_;
    options.progress = progress_ ? ProgressMode::always : no_progress_ ? ProgressMode::never : ProgressMode::automatic;
    options.db_path = db_path_;
    options.machine = machine_name(machine_, std::getenv(kMachineEnv));
    options.account_step = account_step_;
    const std::string rate_env = env_text(std::getenv(kLinkRateEnv));
    if (!rate_env.empty()) options.link_rate = parse_rate(rate_env, kLinkRateEnv);
    options.cluster = env_text(std::getenv(kClusterEnv));
    return options;
}

int BenchCli::run() { return run_bench(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
