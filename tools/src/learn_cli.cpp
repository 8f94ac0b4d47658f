#include "learn_cli.hpp"

#include <iostream>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/text.hpp"
#include "learn_command.hpp"

namespace hiertune {

CLI::App* LearnCli::bind(CLI::App& app) {
    CLI::App* learn = app.add_subcommand(
        "learn",
        "Active learning (ACCLAiM; run it WITHOUT mpiexec): a random forest per collective over nodes x ppn x "
        "size x configuration picks the bench jobs by its jackknife variance until the summed variance settles "
        "or the time budget is spent, then the Csel tree of its predictions");
    bind_space_and_files(*learn);
    bind_learning(*learn);
    add_launch_options(*learn, launch_,
                       {"mpiexec to launch the jobs with (default: " + mpich_prefix() +
                            "/bin/mpiexec): -n NODES*PPN with MPIR_CVAR_NUM_CLIQUES=NODES (emulated nodes)",
                        "Extra mpiexec argument (repeatable)",
                        "Launch prefix of every job, split like a shell; {nodes}, {ppn}, {ranks} are replaced by "
                        "the job's shape, else '--nodes N --ppn P --' is appended (e.g. 'maint/emucluster run')"});
    learn->add_option("--machine", machine_,
                      "Machine name of the jobs in the database (default: the one the first job is filed under)");
    add_stopping_options(*learn, stopping_, "point", "bench: cap on seconds per point (0: none)");
    learn->add_flag(kAllowCliquesFlag, allow_cliques_,
                    std::string("Run on emulated nodes (") + kNumCliquesEnv +
                        ") anyway and pass the flag to the jobs: timings measure the scheduler, for correctness "
                        "runs only");
    command_ = learn;
    return learn;
}

void LearnCli::bind_space_and_files(CLI::App& learn) {
    learn.add_option("-C,--collective", collectives_,
                     join(learned_collectives(), ", ") + " (comma-separated; learned in turn)")
        ->delimiter(',')
        ->check(CLI::IsMember(learned_collectives()))
        ->capture_default_str();
    learn.add_option("--nodes", nodes_, "Node counts of the space (comma-separated)")->delimiter(',')->required();
    learn.add_option("--ppn", ppn_, "Ranks per node of the space (comma-separated)")
        ->delimiter(',')
        ->capture_default_str();
    learn.add_option("-m,--message-size", size_range_,
                     "MIN:MAX: the candidate sizes, powers of two (every fifth point is measured at a size "
                     "near one)")
        ->capture_default_str();
    learn.add_option("-a,--algorithm", algorithms_,
                     "ALGO[:NAME=V[/V...][,NAME=V...]] (repeatable), as bench's; default: all")
        ->allow_extra_args(false);
    learn.add_option("-p,--param", params_, "NAME=V[/V...] (repeatable), as bench's")->allow_extra_args(false);
    learn.add_option("--db", db_path_,
                     "Measurement database (created; points stored for the machine and shape are used, not "
                     "measured again)")
        ->capture_default_str();
    learn.add_option("-o,--output", output_path_, "Tree file to write")->capture_default_str();
    learn.add_option("--stock", stock_path_, "MPICH's maint/tuning/coll/mpir/generic.json")->capture_default_str();
}

void LearnCli::bind_learning(CLI::App& learn) {
    // CLI11 reads "-1" into an unsigned as 2^64 - 1: the unsigned options are checked
    learn.add_option("--batch", batch_, "Points per iteration")->check(non_negative_number())->capture_default_str();
    learn.add_option("--time-budget", time_budget_,
                     "Seconds per collective after which learning stops at the next iteration (0: none)")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_option("--threshold", threshold_,
                     "Converged when the summed variance changes by less than this (relative to it) in "
                     "--converge-iterations iterations in a row")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_flag("--absolute", absolute_,
                   "--threshold is an absolute change of the summed variance (the paper's rule, 1e-9)");
    learn.add_option("--converge-iterations", converge_iterations_, "Iterations in a row below the threshold")
        ->check(positive_number())
        ->capture_default_str();
    learn.add_option("--trees", trees_, "Trees of the random forest")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_option("--initial-points", initial_points_, "Random points measured before the first forest")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_flag("--random-start", random_start_,
                   "Start with --initial-points random points only (ACCLAiM's start), not every configuration "
                   "at the smallest size on every shape and at the largest on the largest shape first");
    learn.add_option("--seed", seed_, "Seed of the random points and non-power-of-two sizes")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_option("--parallel", parallel_,
                     "Nodes of the allocation: the jobs of a batch that fit on disjoint nodes run at once "
                     "(mpiexec on emulated nodes only; 0: one job at a time)")
        ->check(non_negative_number())
        ->capture_default_str();
    learn.add_option("--rack-nodes", rack_nodes_, "--parallel: nodes per rack; no two jobs share a rack")
        ->check(non_negative_number())
        ->capture_default_str();
    CLI::Option* collect =
        learn.add_flag("--collect-only", collect_only_, "Measure the points the learner picks; write no tree");
    learn.add_flag("--train-only", train_only_, "Measure nothing: train on the points in --db and write the tree")
        ->excludes(collect);
}

LearnRunOptions LearnCli::options() const {
    LearnRunOptions options;
    options.collectives = collectives_;
    options.nodes = nodes_;
    options.ppn = ppn_;
    options.sizes = osu_size_range(size_range_);
    options.tree_path = output_path_;
    if (!collect_only_) require_stock_path(stock_path_);
    options.stock_path = stock_path_;
    options.batch = batch_;
    options.learn.convergence.threshold = threshold_;
    options.learn.convergence.relative = !absolute_;
    options.learn.convergence.iterations = converge_iterations_;
    options.learn.convergence.time_budget_s = time_budget_;
    options.learn.forest.trees = trees_;
    options.learn.initial_points = initial_points_;
    options.learn.start_at_both_ends = !random_start_;
    options.learn.seed = seed_;
    options.parallel_nodes = parallel_;
    options.rack_nodes = rack_nodes_;
    options.collect_only = collect_only_;
    options.train_only = train_only_;
    TuneOptions& jobs = options.jobs;
    jobs.db_path = db_path_;
    launch_.apply(*command_, jobs);
    jobs.machine = machine_;  // HIERTUNE_MACHINE of this process is not the launch's: the first job names it
    apply_bench_stopping(*command_, stopping_, jobs);
    jobs.allow_cliques = allow_cliques_;
    check_learn_options(options);
    return options;
}

std::vector<AlgorithmSpec> LearnCli::algorithms() const {
    std::vector<AlgorithmSpec> algorithms;
    for (const std::string& text : algorithms_) algorithms.push_back(parse_algorithm_spec(text));
    if (algorithms.empty()) algorithms.push_back(parse_algorithm_spec(kAllAlgorithms));
    return algorithms;
}

std::vector<ParamSpec> LearnCli::params() const {
    std::vector<ParamSpec> params;
    for (const std::string& text : params_) params.push_back(parse_param_spec(text));
    return params;
}

int LearnCli::run() {
    const LearnRunOptions options = this->options();
    const std::vector<AlgorithmSpec> algorithms = this->algorithms();  // its errors before those of -p
    const std::vector<ParamSpec> params = this->params();
    return run_learn(options, plan_learn_configurations(options.collectives, algorithms, params), hiertune_,
                     std::cout);
}

}  // namespace hiertune
