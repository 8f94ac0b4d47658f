#include "tasks_cli.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "command_options.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* TasksCli::bind(CLI::App& app) {
    CLI::App* tasks = app.add_subcommand(
        "tasks", "HAN task benchmarks of the hier pipeline per leader (run it under mpiexec, >= 2 nodes)");
    tasks->add_option("-C,--collective", collectives_, model_collectives_text() + " (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember(model_collectives()))
        ->capture_default_str();
    tasks->add_option("--config", configs_,
                      "NAME=V[/V...][,...] of inter_algo, inter_k, inter_chunk, intra_algo (multiplied out)");
    tasks->add_option("-s,--segsize", segsizes_, "Segment sizes, e.g. 4K,64K (repeatable)")
        ->required()
        ->allow_extra_args(false);
    tasks->add_option("--steady", steady_, "Segments of the steady run (>= 4)")
        ->check(non_negative_number())  // CLI11 reads "-1" into an unsigned as 2^64 - 1
        ->capture_default_str();
    tasks->add_option("--max-message", max_message_,
                      "Largest message size the costs are for (e.g. 1M): the steady run has no more segments "
                      "than it needs, at least 4 (0: always --steady)")
        ->capture_default_str();
    tasks->add_option("--sizes", gather_sizes_,
                      "allgather: bytes per rank at which its node gather sg is timed, e.g. 1K,64K (required "
                      "with -C allgather)")
        ->allow_extra_args(false);
    tasks->add_option("-x,--warmup", warmup_,
                      "Warm-up repetitions before a group's first run (1 before each later run)")
        ->check(non_negative_number())
        ->capture_default_str();
    tasks->add_option("--min-reps", min_reps_, "Timed repetitions per run before it may stop")
        ->check(positive_number())
        ->capture_default_str();
    tasks->add_option("-i,--reps", reps_, "Cap on timed repetitions per run")
        ->check(positive_number())
        ->capture_default_str();
    tasks->add_option("--precision", precision_percent_,
                      "Stop a run when every leader's every task has its 95% CI half-width within this "
                      "percentage of its median")
        ->check(number_between(0.001, 100))
        ->capture_default_str();
    tasks->add_option("--max-time", max_time_,
                      "Cap on wall-clock seconds per group, shared by its runs (0: none; --min-reps still run)")
        ->check(non_negative_number())
        ->capture_default_str();
    tasks->add_option("--db", db_path_, "Record the task costs here and skip the groups already there");
    tasks->add_option("--machine", machine_, machine_help());
    tasks->add_option("--account", account_step_,
                      "Add each group's measuring time to this step of the database's step times "
                      "(hiertune tune's bookkeeping; survives a kill)")
        ->needs("--db");
    add_allow_cliques_flag(*tasks, allow_cliques_);
    return tasks;
}

TasksOptions TasksCli::options() const {
    refuse_cliques(allow_cliques_);
    TasksOptions options;
    options.collectives = collectives_;
    options.configs = parse_task_configs(configs_);
    for (const std::string& text : segsizes_)
        for (std::uint64_t size : parse_size_list(text)) options.segsizes.push_back(size);
    if (steady_ < 4) throw UsageError("--steady " + std::to_string(steady_) + ": at least 4 segments");
    options.steady_segments = steady_;
    options.max_message = parse_size(max_message_);  // 0: no limit
    for (const std::string& text : gather_sizes_)
        for (std::uint64_t size : parse_size_list(text)) options.gather_sizes.push_back(size);
    options.warmup = warmup_;
    options.min_reps = std::min(min_reps_, reps_);  // a small -i lowers the default
    options.reps = reps_;
    options.precision = precision_percent_ / 100;
    options.max_time = max_time_;
    options.db_path = db_path_;
    options.machine = machine_name(machine_, std::getenv(kMachineEnv));
    options.account_step = account_step_;
    return options;
}

int TasksCli::run() { return run_tasks(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
