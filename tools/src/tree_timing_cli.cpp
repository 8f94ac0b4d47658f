#include "tree_timing_cli.hpp"

#include <iostream>

#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/tune/sweep.hpp"
#include "tune_command.hpp"

namespace hiertune {

CLI::App* TreeTimingCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "tree-timing",
        "Time a Csel tree as loaded against no tree (run it WITHOUT mpiexec): alternating jobs of 'bench -a "
        "default' with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=TREE (and TREE.ch4 as the CH4 tree where there is "
        "one) and without it, the ratio per size; where TREE's coverage file (tune's) says the tree runs MPICH's own "
        "selection at the jobs' shape, a slower size is noise between equal choices, not a failure");
    command->add_option("--tree", tree_path_, "The tree (JSON) to time")->required();
    add_job_shape_options(*command, shape_, "Ranks of the jobs", tuned_collectives(),
                          name_list(tuned_collectives()) + " (comma-separated; barrier and ibarrier at size 0)");
    add_launch_options(*command, launch_,
                       {"mpiexec to launch the jobs with (default: " + mpich_prefix() + "/bin/mpiexec)",
                        "Extra mpiexec argument (repeatable, e.g. -f)",
                        "Launch prefix of every job instead of 'MPIEXEC [--mpiexec-arg ...] -n N', split into "
                        "words like a shell (as for tune)"});
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
    TuneOptions options;
    options.tree_path = tree_path_;
    shape_.apply(*command_, options);
    launch_.apply(*command_, options);
    apply_bench_stopping(*command_, stopping_, options);
    options.tree_rounds = rounds_;
    options.tree_tolerance = tolerance_percent_ / 100;
    options.allow_tree_slower = allow_slower_;
    options.allow_cliques = allow_cliques_;
    return options;
}

int TreeTimingCli::run() { return run_tree_timing(options(), hiertune_, std::cout, std::cerr); }

}  // namespace hiertune
