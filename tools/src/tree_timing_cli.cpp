#include "tree_timing_cli.hpp"

#include <iostream>

#include "hiertune/sizes.hpp"
#include "tune_command.hpp"

namespace hiertune {

CLI::App* TreeTimingCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "tree-timing",
        "Time a Csel tree as loaded against no tree (run it WITHOUT mpiexec): alternating jobs of 'bench -a "
        "default' with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=TREE and without it, the ratio per size");
    command->add_option("--tree", tree_path_, "The tree (JSON) to time")->required();
    command->add_option("-n,--ranks", ranks_, "Ranks of the jobs")->required()->check(CLI::Range(2, 1 << 20));
    command->add_option("--nodes", nodes_, "Emulated nodes (sets MPIR_CVAR_NUM_CLIQUES for the jobs)");
    command->add_option("-C,--collective", collectives_, "bcast, reduce, allreduce, allgather (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember({"bcast", "reduce", "allreduce", "allgather"}))
        ->capture_default_str();
    command->add_option("-m,--message-size", size_range_, "[MIN:]MAX: message sizes, OSU style (default 1K:1M)");
    command->add_option("--sizes", sizes_, "Explicit message sizes (added to -m)")->allow_extra_args(false);
    command->add_option("--mpiexec", mpiexec_,
                        "mpiexec to launch the jobs with (default: " + mpich_prefix() +
                            "/bin/mpiexec)");
    command->add_option("--mpiexec-arg", mpiexec_args_, "Extra mpiexec argument (repeatable, e.g. -f)")
        ->allow_extra_args(false);
    command->add_option("--launcher", launcher_,
                        "Launch prefix of every job instead of 'MPIEXEC [--mpiexec-arg ...] -n N', split into "
                        "words like a shell (as for tune)");
    command->add_option("--rounds", rounds_, "Rounds of the two alternating jobs (>= 2)")->capture_default_str();
    command->add_option("--tolerance", tolerance_percent_,
                        "Percent the tree may be slower (median ratio below 1 - this) before a size whose every "
                        "tree round is slower than every no-tree round fails")
        ->capture_default_str();
    command->add_flag("--allow-tree-slower", allow_slower_,
                      "Report sizes where the tree is slower beyond the noise, but exit 0");
    add_stopping_options(*command, stopping_, "point", "Cap on wall-clock seconds per point (0: none)");
    add_allow_cliques_flag(*command, allow_cliques_);
    command_ = command;
    return command;
}

TuneOptions TreeTimingCli::options() const {
    const bool launcher_given = command_->count("--launcher") > 0;
    TuneOptions options;
    options.tree_path = tree_path_;
    options.ranks = ranks_;
    if (command_->count("--nodes") > 0) options.nodes = nodes_;
    options.collectives = collectives_;
    options.sizes = message_sizes(size_range_.empty() && sizes_.empty() ? "1K:1M" : size_range_, sizes_);
    if (launcher_given) options.launcher = launcher_words(launcher_);
    options.mpiexec = mpiexec_or_default(mpiexec_, launcher_given);
    options.mpiexec_args = mpiexec_args_;
    const StoppingRule rule = stopping_.rule(command_->count("--min-reps") > 0);
    options.bench_warmup = rule.warmup_reps;
    options.bench_min_reps = rule.min_reps;
    options.bench_max_reps = rule.max_reps;
    options.bench_precision_percent = stopping_.precision_percent;
    options.bench_max_time = stopping_.max_time;
    options.tree_rounds = rounds_;
    options.tree_tolerance = tolerance_percent_ / 100;
    options.allow_tree_slower = allow_slower_;
    options.allow_cliques = allow_cliques_;
    return options;
}

int TreeTimingCli::run() { return run_tree_timing(options(), hiertune_, std::cout, std::cerr); }

}  // namespace hiertune
