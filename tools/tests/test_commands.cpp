// The command modules (tools/src/*_cli.cpp) on command lines: what `hiertune
// tune` and `hiertune learn` pass their jobs (tune_steps, learn_run) is parsed
// back by the jobs' own modules and must carry exactly what the step meant;
// every command answers --help and refuses an unknown option; bench's data check
// (payload.hpp) judges data moved as MPI would move it.  Parsing needs no MPI: nothing
// here runs a command or calls MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analytic_report_cli.hpp"
#include "command_options.hpp"
#include "commands.hpp"
#include "bench_cli.hpp"
#include "calibrate_cli.hpp"
#include "check_tree_cli.hpp"
#include "compare_tuners_cli.hpp"
#include "db_cli.hpp"
#include "fit_cli.hpp"
#include "generate_cli.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tune/learn_run.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/tune/tune_steps.hpp"
#include "hiertune/common/usage_error.hpp"
#include "install_tree_cli.hpp"
#include "learn_cli.hpp"
#include "link_bound_cli.hpp"
#include "overlap_cli.hpp"
#include "overlap_report_cli.hpp"
#include "payload.hpp"
#include "show_tree_cli.hpp"
#include "tasks_cli.hpp"
#include "tree_timing_cli.hpp"
#include "tune_cli.hpp"
#include "verify_cli.hpp"

namespace hiertune {
namespace {

const std::string kHiertune = "/opt/site/bin/hiertune";

// argv as main() gets it: the program first.
void parse_argv(CLI::App& app, const std::vector<std::string>& args) {
    std::vector<const char*> argv{"hiertune"};
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
}

// One command bound into its own app, as main.cpp binds its table.
template <class CommandType>
struct Bound {
    CLI::App app;
    CommandType command;
    CLI::App* subcommand;

    template <class... Args>
    explicit Bound(Args&&... args) : command(std::forward<Args>(args)...) {
        app.require_subcommand(1);
        subcommand = command.bind(app);
    }

    void parse(const std::vector<std::string>& args) {
        parse_argv(app, args);
        ASSERT_TRUE(subcommand->parsed());
    }
};

// What `hiertune link-bound` prints for `collectives` at 1000 B on `nodes` nodes of `ppn`
// ranks with links of 12.5e6 B/s (its exit status 0).
std::string link_bound_csv(const std::string& collectives, int nodes, int ppn) {
    Bound<LinkBoundCli> link_bound;
    link_bound.parse({"link-bound", "-C", collectives, "--sizes", "1000", "--nodes", std::to_string(nodes), "--ppn",
                      std::to_string(ppn), "--rate", "12.5e6"});
    ::testing::internal::CaptureStdout();
    const int status = link_bound.command.run();
    const std::string csv = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(status, 0);
    return csv;
}

// The words after the hiertune path of a launch: what the job's hiertune parses.
std::vector<std::string> job_args(const Launch& launch) {
    const auto at = std::find(launch.argv.begin(), launch.argv.end(), kHiertune);
    EXPECT_NE(at, launch.argv.end()) << describe(launch);
    return at == launch.argv.end() ? std::vector<std::string>{} : std::vector<std::string>(at + 1, launch.argv.end());
}

// The words before it: the launcher's (or mpiexec's).
std::vector<std::string> launch_prefix(const Launch& launch) {
    return {launch.argv.begin(), std::find(launch.argv.begin(), launch.argv.end(), kHiertune)};
}

// "ALGO NAME=V/V ..." with the parameters sorted: a spec as a comparable text.
std::string spec_text(const AlgorithmSpec& spec) {
    std::vector<std::string> params;
    for (const ParamSpec& param : spec.params) {
        std::string text = param.name + "=";
        for (std::size_t i = 0; i < param.values.size(); ++i) text += (i ? "/" : "") + param.values[i];
        params.push_back(text);
    }
    std::sort(params.begin(), params.end());
    std::string text = spec.algorithm;
    for (const std::string& param : params) text += " " + param;
    return text;
}

// The environment names the modules read: unset, so that only the command lines count.
class CommandLines : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : {kMachineEnv, kClusterEnv, kLinkRateEnv, kNumCliquesEnv}) unsetenv(name);
    }
};

// options() throws a UsageError whose message names `option`.
template <class Options>
void expect_usage_error(Options options, const std::string& option) {
    try {
        options();
        ADD_FAILURE() << "no error; expected one naming " << option;
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
}

// tune's own command line, every value off its default: the options the steps build from.
const std::vector<std::string> kTuneArgs{
    "tune", "-n", "8", "-C", "bcast,allreduce,allgather", "-m", "1K:4K", "--sizes", "3000",
    "--config", "inter_algo=tsp_kary/tsp_knomial/seg_chain", "-s", "4K,32K", "--db", "/data/tune db.sqlite",
    "-o", "/data/tree.json", "--stock", "/data/generic.json", "--report", "/data/report", "--launcher",
    "srun -N 4 --ntasks-per-node=2", "--fit-launcher", "srun -N 4 --ntasks-per-node=1", "--machine", "cluster-a",
    "--steady", "6", "--task-warmup", "2", "--task-min-reps", "7", "--task-reps", "40", "--bench-warmup", "3",
    "--bench-min-reps", "5", "--bench-reps", "60", "--precision", "1.2345678", "--max-time", "0.123456789",
    "--rate-tolerance", "7.5", "--tree-rounds", "4", "--tree-tolerance", "2.5", "--allow-cliques"};

TuneOptions parsed_tune_options() {
    Bound<TuneCli> tune(kHiertune);
    tune.parse(kTuneArgs);
    return tune.command.options();
}

// -C takes every collective with a hier algorithm: those without a task model are
// measured, at --measured-sizes (a range or a list).
TEST_F(CommandLines, TuneSplitsTheMeasuredCollectives) {
    for (const auto& [sizes, expected] :
         {std::pair<std::string, std::vector<std::uint64_t>>{"8K:32K", {8192, 16384, 32768}}, {"1K,64K", {1024, 65536}}}) {
        Bound<TuneCli> tune(kHiertune);
        tune.parse({"tune", "-n", "8", "-C", "gather,bcast,barrier", "--measured-sizes", sizes, "--stock", "/data/g.json"});
        const TuneOptions o = tune.command.options();
        EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
        EXPECT_EQ(o.measured, (std::vector<std::string>{"gather", "barrier"}));
        EXPECT_EQ(o.measured_sizes, expected);
    }
    Bound<TuneCli> plain(kHiertune);
    plain.parse({"tune", "-n", "8", "-C", "scatter", "--stock", "/data/g.json"});
    EXPECT_TRUE(plain.command.options().measured_sizes.empty());  // as -m
    EXPECT_TRUE(plain.command.options().collectives.empty());
    for (const char* bad : {"abc", "1K,,2K", "0", "64K:1K"}) {
        Bound<TuneCli> wrong(kHiertune);
        wrong.parse({"tune", "-n", "8", "-C", "gather", "--measured-sizes", bad, "--stock", "/data/g.json"});
        expect_usage_error([&] { return wrong.command.options(); }, "--measured-sizes");
    }
}

// --sizes-of COLL=SIZES: a task-model collective's own sizes, written as --measured-sizes.
TEST_F(CommandLines, TuneTakesACollectivesOwnSizes) {
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,allgather", "--sizes-of", "allgather=1K:4K", "--sizes-of",
                "bcast=2K,8K", "--stock", "/data/g.json"});
    const TuneOptions o = tune.command.options();
    EXPECT_EQ(o.collective_sizes.at("allgather"), (std::vector<std::uint64_t>{1024, 2048, 4096}));
    EXPECT_EQ(o.collective_sizes.at("bcast"), (std::vector<std::uint64_t>{2048, 8192}));
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"allgather"}, {"=1K"}, {"allgather=abc"}, {"allgather=1K", "allgather=2K"}}) {
        std::vector<std::string> args{"tune", "-n", "8", "-C", "bcast,allgather", "--stock", "/data/g.json"};
        for (const std::string& item : bad) args.insert(args.end(), {"--sizes-of", item});
        Bound<TuneCli> wrong(kHiertune);
        wrong.parse(args);
        expect_usage_error([&] { return wrong.command.options(); }, "--sizes-of");
    }
}

TEST_F(CommandLines, TuneParsesItsOwnOptions) {
    const TuneOptions o = parsed_tune_options();
    EXPECT_EQ(o.ranks, 8);
    EXPECT_FALSE(o.nodes);
    EXPECT_EQ(o.collectives, (std::vector<std::string>{"bcast", "allreduce", "allgather"}));
    EXPECT_EQ(o.sizes, (std::vector<std::uint64_t>{1024, 2048, 3000, 4096}));
    EXPECT_EQ(o.configs, "inter_algo=tsp_kary/tsp_knomial/seg_chain");
    EXPECT_EQ(o.segsizes, (std::vector<std::uint64_t>{4096, 32768}));
    EXPECT_EQ(o.db_path, "/data/tune db.sqlite");
    EXPECT_EQ(o.tree_path, "/data/tree.json");
    EXPECT_EQ(o.stock_path, "/data/generic.json");
    EXPECT_EQ(o.report_dir, "/data/report");
    EXPECT_EQ(o.launcher, (std::vector<std::string>{"srun", "-N", "4", "--ntasks-per-node=2"}));
    EXPECT_EQ(o.fit_launcher, (std::vector<std::string>{"srun", "-N", "4", "--ntasks-per-node=1"}));
    EXPECT_EQ(o.mpiexec, "");  // the launcher replaces it
    EXPECT_EQ(o.machine, "cluster-a");
    EXPECT_EQ(o.steady_segments, 6u);
    EXPECT_EQ(o.task_warmup, 2u);
    EXPECT_EQ(o.task_min_reps, 7u);
    EXPECT_EQ(o.task_reps, 40u);
    EXPECT_EQ(o.bench_warmup, 3u);
    EXPECT_EQ(o.bench_min_reps, 5u);
    EXPECT_EQ(o.bench_max_reps, 60u);
    EXPECT_DOUBLE_EQ(o.bench_precision_percent, 1.2345678);  // more digits than a stream writes:
    EXPECT_DOUBLE_EQ(o.bench_max_time, 0.123456789);        // the jobs must still get them exactly
    EXPECT_DOUBLE_EQ(o.rate_tolerance_percent, 7.5);
    EXPECT_EQ(o.tree_rounds, 4);
    EXPECT_DOUBLE_EQ(o.tree_tolerance, 0.025);
    EXPECT_TRUE(o.allow_cliques);
    EXPECT_EQ(o.install_prefix, "");  // no --install
    EXPECT_NO_THROW(check_tune_options(o));
}

// --install PREFIX installs the tree there; --install alone, into the MPICH hiertune is built against.
TEST_F(CommandLines, TuneInstallsIntoAPrefix) {
    std::vector<std::string> args = kTuneArgs;
    args.insert(args.end(), {"--install", "/opt/mpich-site"});
    Bound<TuneCli> given(kHiertune);
    given.parse(args);
    EXPECT_EQ(given.command.options().install_prefix, "/opt/mpich-site");
    args.pop_back();
    Bound<TuneCli> bare(kHiertune);
    bare.parse(args);
    EXPECT_EQ(bare.command.options().install_prefix, mpich_prefix());
}

// --budget takes seconds, minutes or hours; without it there is none; nothing below 1 s.
TEST_F(CommandLines, TuneReadsItsBudget) {
    for (const auto& [text, seconds] : {std::pair<std::string, double>{"45m", 2700}, {"2700", 2700}, {"90s", 90},
                                        {"1h", 3600}, {"1.5m", 90}}) {
        std::vector<std::string> args = kTuneArgs;
        args.insert(args.end(), {"--budget", text});
        Bound<TuneCli> tune(kHiertune);
        tune.parse(args);
        EXPECT_DOUBLE_EQ(tune.command.options().budget_s, seconds) << text;
    }
    EXPECT_DOUBLE_EQ(parsed_tune_options().budget_s, 0);
    for (const char* bad : {"0", "-5m", "45x", "abc", "m"}) {
        std::vector<std::string> args = kTuneArgs;
        args.insert(args.end(), {"--budget", bad});
        Bound<TuneCli> tune(kHiertune);
        EXPECT_THROW(tune.parse(args), CLI::ParseError) << bad;
    }
}

// What every bench job of tune carries: the sizes, the stopping rule and the database.
void expect_bench_effort(const BenchOptions& bench, const TuneOptions& o) {
    EXPECT_EQ(bench.sizes, o.sizes);
    EXPECT_EQ(bench.rule.warmup_reps, o.bench_warmup);
    EXPECT_EQ(bench.rule.min_reps, o.bench_min_reps);
    EXPECT_EQ(bench.rule.max_reps, o.bench_max_reps);
    EXPECT_DOUBLE_EQ(bench.rule.precision, o.bench_precision_percent / 100);
    EXPECT_DOUBLE_EQ(bench.max_time, o.bench_max_time);
    EXPECT_EQ(bench.reps, 0u);  // the stopping rule, not a fixed count
    EXPECT_EQ(bench.progress, ProgressMode::never);
}

// The options the job of `launch` parses, on emulated nodes: it runs there only
// because tune passes --allow-cliques.
template <class Cli>
auto emulated_job_options(const Launch& launch) {
    Bound<Cli> job;
    job.parse(job_args(launch));
    setenv(kNumCliquesEnv, "4", 1);
    return job.command.options();
}

// What a calibrate or fit job of tune carries: the stopping rule's precision and
// time cap, the database and the machine name.
template <class JobOptions>
void expect_measurement_effort(const JobOptions& job, const TuneOptions& o) {
    EXPECT_DOUBLE_EQ(job.rule.precision, o.bench_precision_percent / 100);
    EXPECT_DOUBLE_EQ(job.max_time, o.bench_max_time);
    EXPECT_EQ(job.db_path, o.db_path);
    EXPECT_EQ(job.machine, o.machine);
}

TEST_F(CommandLines, TuneCalibrateJobCarriesTheStoppingRuleAndTolerance) {
    const TuneOptions o = parsed_tune_options();
    const Launch launch = calibrate_launch(o, kHiertune);
    EXPECT_EQ(launch_prefix(launch), o.launcher);
    const CalibrateOptions c = emulated_job_options<CalibrateCli>(launch);
    EXPECT_TRUE(c.if_missing);
    EXPECT_EQ(c.format, OutputFormat::json);
    EXPECT_DOUBLE_EQ(c.tolerance_percent, o.rate_tolerance_percent);
    expect_measurement_effort(c, o);
}

TEST_F(CommandLines, TuneFitJobFitsTheSegInterAlgorithmsOnOneRankPerNode) {
    const TuneOptions o = parsed_tune_options();
    const std::optional<Launch> launch = fit_launch(o, kHiertune);
    ASSERT_TRUE(launch);
    EXPECT_EQ(launch_prefix(*launch), o.fit_launcher);
    const FitOptions f = emulated_job_options<FitCli>(*launch);
    EXPECT_EQ(f.collectives, (std::vector<std::string>{"bcast", "reduce"}));  // allreduce is tuned
    EXPECT_EQ(f.algorithms, (std::vector<std::string>{"seg_chain"}));
    ASSERT_EQ(f.sizes.size(), 5u);
    EXPECT_EQ(f.sizes.front(), 4096u);  // from the smallest segment size ...
    EXPECT_EQ(f.sizes.back(), 32768u);  // ... to the largest
    EXPECT_EQ(f.gamma_segsizes, o.segsizes);  // seg_chain without inter_chunk moves the segments
    expect_measurement_effort(f, o);
}

TEST_F(CommandLines, TuneTasksJobsCoverTheSearchSpaceWithTheTaskEffort) {
    const TuneOptions o = parsed_tune_options();
    const std::vector<Launch> launches = tasks_launches(o, kHiertune);
    ASSERT_FALSE(launches.empty());
    std::set<Params> configs;
    for (const Launch& launch : launches) {
        SCOPED_TRACE(describe(launch));
        EXPECT_EQ(launch_prefix(launch), o.launcher);
        Bound<TasksCli> tasks;
        tasks.parse(job_args(launch));
        setenv(kNumCliquesEnv, "4", 1);
        const TasksOptions t = tasks.command.options();
        for (const std::string& collective : t.collectives)
            EXPECT_TRUE(std::count(o.collectives.begin(), o.collectives.end(), collective)) << collective;
        configs.insert(t.configs.begin(), t.configs.end());
        EXPECT_EQ(t.segsizes, task_segsizes(o));  // the space's and the messages shorter than them
        EXPECT_EQ(t.steady_segments, o.steady_segments);
        EXPECT_EQ(t.max_message, o.sizes.back());
        const bool allgather = std::count(t.collectives.begin(), t.collectives.end(), "allgather") > 0;
        EXPECT_EQ(t.gather_sizes, allgather ? o.sizes : std::vector<std::uint64_t>{});
        EXPECT_EQ(t.warmup, o.task_warmup);
        EXPECT_EQ(t.min_reps, o.task_min_reps);
        EXPECT_EQ(t.reps, o.task_reps);
        EXPECT_DOUBLE_EQ(t.precision, o.bench_precision_percent / 100);
        EXPECT_DOUBLE_EQ(t.max_time, o.bench_max_time);
        EXPECT_EQ(t.db_path, o.db_path);
        EXPECT_EQ(t.machine, o.machine);
        EXPECT_EQ(t.account_step, "tasks");
    }
    // every configuration tasks can time (seg_* ones are fitted instead), each in some job
    EXPECT_EQ(configs, (std::set<Params>{{{"inter_algo", "tsp_kary"}}, {{"inter_algo", "tsp_knomial"}}}));
}

TEST_F(CommandLines, TuneBenchJobsMeasureEveryConfigurationAtTheSegmentSizes) {
    const TuneOptions o = parsed_tune_options();
    std::set<std::string> measured;
    for (const SweepJob& job : sweep_jobs(o, kHiertune)) {
        const Launch& launch = job.launch;
        EXPECT_EQ(job.configurations, static_cast<std::size_t>(std::count(launch.argv.begin(), launch.argv.end(), "-a")));
        SCOPED_TRACE(describe(launch));
        EXPECT_EQ(launch_prefix(launch), o.launcher);
        const BenchOptions b = emulated_job_options<BenchCli>(launch);
        expect_bench_effort(b, o);
        EXPECT_EQ(b.db_path, o.db_path);
        EXPECT_EQ(b.machine, o.machine);
        EXPECT_EQ(b.account_step, "bench");
        ASSERT_EQ(b.collectives.size(), 1u);
        for (const AlgorithmSpec& spec : b.algorithms) measured.insert(b.collectives.front() + " " + spec_text(spec));
    }
    std::set<std::string> expected;
    for (const std::string& collective : o.collectives)
        for (const Params& config : configs_for(collective, parse_task_configs(o.configs)))
            expected.insert(collective + " hier " + collective + "_hier_inter_algorithm=" + config.at("inter_algo") +
                            " " + collective + "_hier_segsize=4096/32768");
    EXPECT_EQ(measured, expected);
    EXPECT_GE(measured.size(), 6u);  // bcast and allreduce: each of the three inter algorithms
}

TEST_F(CommandLines, TuneStockJobMeasuresTheStockSelection) {
    const TuneOptions o = parsed_tune_options();
    const Launch launch = stock_launches(o, kHiertune).at(0);
    const BenchOptions b = emulated_job_options<BenchCli>(launch);
    expect_bench_effort(b, o);
    EXPECT_EQ(b.collectives, o.collectives);
    ASSERT_EQ(b.algorithms.size(), 1u);
    EXPECT_EQ(spec_text(b.algorithms.front()), kStockAlgorithms);
    EXPECT_EQ(b.db_path, o.db_path);
    EXPECT_EQ(b.account_step, "stock");
}

TEST_F(CommandLines, TreeTimingJobTimesTheDefaultSelectionAsJson) {
    const TuneOptions o = parsed_tune_options();
    for (const bool with_tree : {true, false}) {
        const Launch launch = tree_timing_launch(o, kHiertune, o.tree_path, with_tree, timed_groups(o).at(0));
        const BenchOptions b = emulated_job_options<BenchCli>(launch);
        expect_bench_effort(b, o);
        EXPECT_EQ(b.collectives, o.collectives);
        ASSERT_EQ(b.algorithms.size(), 1u);
        EXPECT_EQ(spec_text(b.algorithms.front()), "default");
        EXPECT_EQ(b.format, OutputFormat::json);  // read back by parse_tree_timing_output
        EXPECT_EQ(b.db_path, "");
    }
}

TEST_F(CommandLines, TreeTimingCommandGivesItsJobsItsOptions) {
    Bound<TreeTimingCli> timing(kHiertune);
    timing.parse({"tree-timing", "--tree", "/data/tree.json", "-n", "6", "--nodes", "3", "-C", "reduce,allgather",
                  "--sizes", "8,1000", "--mpiexec", "/usr/bin/mpiexec", "--rounds", "5", "--tolerance", "3", "-x", "4",
                  "--min-reps", "6", "-i", "50", "--precision", "0.5", "--max-time", "2"});
    const TuneOptions o = timing.command.options();
    EXPECT_NO_THROW(check_tree_timing_options(o));
    EXPECT_EQ(o.nodes, 3);
    EXPECT_EQ(o.tree_rounds, 5);
    EXPECT_DOUBLE_EQ(o.tree_tolerance, 0.03);
    const Launch launch = tree_timing_launch(o, kHiertune, o.tree_path, true, timed_groups(o).at(0));
    EXPECT_EQ(launch_prefix(launch), (std::vector<std::string>{"/usr/bin/mpiexec", "-n", "6"}));
    Bound<BenchCli> bench;
    bench.parse(job_args(launch));
    const BenchOptions b = bench.command.options();
    expect_bench_effort(b, o);
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"reduce", "allgather"}));
    EXPECT_EQ(b.sizes, (std::vector<std::uint64_t>{8, 1000}));
    EXPECT_EQ(b.rule.warmup_reps, 4u);
    EXPECT_EQ(b.rule.min_reps, 6u);
    EXPECT_EQ(b.rule.max_reps, 50u);
}

TEST_F(CommandLines, TuneVerifyJobChecksTheCasesGiven) {
    const TuneOptions o = parsed_tune_options();
    const std::vector<VerifyCase> cases{{"bcast", 16384, true, 4}, {"allreduce", 8, false, 0},
                                        {"allgather", 1024, true, 2}};
    const Launch launch = verify_launch(o, kHiertune, o.tree_path, cases);
    Bound<VerifyCli> verify;
    verify.parse(job_args(launch));
    EXPECT_EQ(verify.command.cases(), cases);
}

TEST_F(CommandLines, RefusedCliquesWithoutTheFlag) {
    TuneOptions o = parsed_tune_options();
    o.allow_cliques = false;
    setenv(kNumCliquesEnv, "4", 1);
    Bound<BenchCli> bench;
    bench.parse(job_args(stock_launches(o, kHiertune).at(0)));
    expect_usage_error([&] { return bench.command.options(); }, kAllowCliquesFlag);
    Bound<CalibrateCli> calibrate;
    calibrate.parse(job_args(calibrate_launch(o, kHiertune)));
    expect_usage_error([&] { return calibrate.command.options(); }, kAllowCliquesFlag);
}

TEST_F(CommandLines, LearnJobsMeasureTheGroupWithTheLearnOptions) {
    Bound<LearnCli> learn(kHiertune);
    learn.parse({"learn", "-C", "bcast", "--nodes", "2,4", "--ppn", "1,3", "-m", "1K:64K", "--db", "/data/learn.sqlite",
                 "-o", "/data/tree.json", "--stock", "/data/generic.json", "--launcher", "emu run", "--machine",
                 "cluster-b", "-x", "4", "--min-reps", "6", "-i", "80", "--precision", "0.75", "--max-time", "3",
                 "--allow-cliques"});
    const LearnRunOptions options = learn.command.options();
    const Configuration binomial{"bcast", "binomial", {}};
    const Configuration hier{"bcast", "hier", {{"bcast_hier_segsize", "4096"}, {"bcast_hier_inter_kval", "4"}}};
    LearnGroup group;
    group.shape = JobShape{4, 3};
    group.sizes = {1024, 4096};
    group.configurations = {binomial, hier};
    group.points = {LearnPoint{4, 3, 1024, binomial}, LearnPoint{4, 3, 4096, hier}};
    const Launch launch = learn_launch(options, kHiertune, group);
    EXPECT_EQ(launch_prefix(launch),
              (std::vector<std::string>{"emu", "run", "--nodes", "4", "--ppn", "3", "--"}));  // the group's shape
    const BenchOptions b = emulated_job_options<BenchCli>(launch);
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"bcast"}));
    ASSERT_EQ(b.algorithms.size(), 2u);
    EXPECT_EQ(spec_text(b.algorithms[0]), "binomial");
    EXPECT_EQ(spec_text(b.algorithms[1]), "hier bcast_hier_inter_kval=4 bcast_hier_segsize=4096");
    EXPECT_EQ(b.sizes, group.sizes);
    EXPECT_EQ(b.rule.warmup_reps, 4u);
    EXPECT_EQ(b.rule.min_reps, 6u);
    EXPECT_EQ(b.rule.max_reps, 80u);
    EXPECT_DOUBLE_EQ(b.rule.precision, 0.0075);
    EXPECT_DOUBLE_EQ(b.max_time, 3);
    EXPECT_EQ(b.db_path, "/data/learn.sqlite");
    EXPECT_EQ(b.machine, "cluster-b");
    EXPECT_EQ(b.account_step, "learn");
}

// Every command of main.cpp's table, in its order.
std::vector<std::unique_ptr<Command>> every_command() { return hiertune_commands(kHiertune); }

// The command lines naming one (sub)command: "bench", ..., "db list", ...
std::vector<std::vector<std::string>> command_paths(const CLI::App& app) {
    std::vector<std::vector<std::string>> paths;
    for (const CLI::App* command : app.get_subcommands({})) {
        paths.push_back({command->get_name()});
        for (const CLI::App* sub : command->get_subcommands({}))
            paths.push_back({command->get_name(), sub->get_name()});
    }
    return paths;
}

TEST_F(CommandLines, EachAnswersHelp) {
    const auto commands = every_command();
    CLI::App app;
    for (const auto& command : commands) command->bind(app);
    const auto paths = command_paths(app);
    EXPECT_EQ(paths.size(), commands.size() + 4);  // and db's list, best, points, check
    for (std::vector<std::string> args : paths) {
        SCOPED_TRACE(args.front());
        args.push_back("--help");
        try {
            parse_argv(app, args);
            ADD_FAILURE() << "--help parsed as a command line";
        } catch (const CLI::CallForHelp& e) {
            EXPECT_EQ(e.get_exit_code(), 0);
        }
        app.clear();
    }
}

TEST_F(CommandLines, EachRefusesAnUnknownOption) {
    const auto commands = every_command();
    CLI::App app;
    for (const auto& command : commands) command->bind(app);
    for (std::vector<std::string> args : command_paths(app)) {
        SCOPED_TRACE(args.front());
        args.push_back("--no-such-option");
        try {
            parse_argv(app, args);
            ADD_FAILURE() << "an unknown option parsed";
        } catch (const CLI::ParseError& e) {
            EXPECT_NE(e.get_exit_code(), 0) << e.what();
        }
        app.clear();
    }
}

TEST_F(CommandLines, TheMpiOnesAreTheJobsRunUnderMpiexec) {
    std::set<std::string> under_mpi;
    CLI::App app;
    for (const auto& command : every_command()) {
        const CLI::App* bound = command->bind(app);
        if (command->needs_mpi()) under_mpi.insert(bound->get_name());
    }
    EXPECT_EQ(under_mpi, (std::set<std::string>{"bench", "tasks", "calibrate", "overlap", "fit", "verify"}));
}

TEST_F(CommandLines, BadValuesAreUsageErrorsOfTheOptions) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "--min-reps", "50", "-i", "10"});
    expect_usage_error([&] { return bench.command.options(); }, "--min-reps");
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "4", "--stock", "/data/generic.json", "--bench-min-reps", "20", "--bench-reps", "10"});
    expect_usage_error([&] { return tune.command.options(); }, "--bench-min-reps");
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "bcast:8:oops"});
    expect_usage_error([&] { return verify.command.cases(); }, "bcast:8:oops");
    Bound<TasksCli> tasks;
    tasks.parse({"tasks", "-s", "4K", "--steady", "3"});
    expect_usage_error([&] { return tasks.command.options(); }, "--steady");
    Bound<CalibrateCli> calibrate;  // a product that would wrap around 2^64
    calibrate.parse({"calibrate", "--bw-size", "1G", "--bw-window", "18446744073709551615"});
    expect_usage_error([&] { return calibrate.command.options(); }, "--bw-window");
}

// bench, tune and verify take scan, exscan and their non-blocking forms by MPICH's names,
// sized like allreduce (every rank's contribution and result, 0 bytes a valid call).
TEST_F(CommandLines, ScanAndExscanAreCollectivesOfTheCommands) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "scan,iexscan", "--sizes", "0,8", "-c", "-a", "all"});
    const BenchOptions b = bench.command.options();
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"scan", "iexscan"}));
    EXPECT_EQ(b.sizes, (std::vector<std::uint64_t>{0, 8}));
    EXPECT_TRUE(b.validate);
    Bound<BenchCli> misspelt;
    EXPECT_THROW(parse_argv(misspelt.app, {"bench", "-C", "xscan"}), CLI::ValidationError);
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,scan,iscan", "--measured-sizes", "1K", "--stock", "/data/g.json"});
    EXPECT_EQ(tune.command.options().measured, (std::vector<std::string>{"scan", "iscan"}));
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "exscan:8:hier/0", "--case", "iscan:1024:any"});
    EXPECT_EQ(verify.command.cases(),
              (std::vector<VerifyCase>{{"exscan", 8, true, 0, false}, {"iscan", 1024, false, 0, false}}));
}

// bench, tune, verify, overlap and link-bound take reduce_scatter, reduce_scatter_block
// and their non-blocking forms by MPICH's names, sized per rank (each rank's block).
TEST_F(CommandLines, ReduceScattersAreCollectivesOfTheCommands) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "reduce_scatter,ireduce_scatter_block", "--sizes", "0,8", "-c", "-a", "all"});
    const BenchOptions b = bench.command.options();
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"reduce_scatter", "ireduce_scatter_block"}));
    EXPECT_EQ(b.sizes, (std::vector<std::uint64_t>{0, 8}));
    Bound<BenchCli> misspelt;
    EXPECT_THROW(parse_argv(misspelt.app, {"bench", "-C", "reduce_scatterv"}), CLI::ValidationError);
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,reduce_scatter_block,ireduce_scatter", "--measured-sizes", "1K",
                "--stock", "/data/g.json"});
    EXPECT_EQ(tune.command.options().measured, (std::vector<std::string>{"reduce_scatter_block", "ireduce_scatter"}));
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "reduce_scatter:8:hier/0", "--case", "ireduce_scatter_block:1024:any"});
    EXPECT_EQ(verify.command.cases(), (std::vector<VerifyCase>{{"reduce_scatter", 8, true, 0, false},
                                                               {"ireduce_scatter_block", 1024, false, 0, false}}));
    Bound<OverlapCli> overlap;
    overlap.parse({"overlap", "-O", "ireduce_scatter,ireduce_scatter_block", "-m", "1K:4K"});
    EXPECT_EQ(overlap.command.options().operations,
              (std::vector<std::string>{"ireduce_scatter", "ireduce_scatter_block"}));
    Bound<OverlapCli> blocking;
    EXPECT_THROW(parse_argv(blocking.app, {"overlap", "-O", "reduce_scatter"}), CLI::ValidationError);
    // 4 nodes x 2 ranks, 1000 B blocks: 6000 B out of each node at 12.5e6 B/s
    EXPECT_EQ(link_bound_csv("reduce_scatter,ireduce_scatter_block", 4, 2),
              "collective,size,link_bound_us\nreduce_scatter,1000,480.000\nireduce_scatter_block,1000,480.000\n");
}

// bench, tune, verify, overlap and link-bound take allgatherv and iallgatherv by MPICH's
// names, sized per rank (each rank's block, as allgather); tune measures them (-C only).
TEST_F(CommandLines, AllgathervIsACollectiveOfTheCommands) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "allgatherv,iallgatherv", "--sizes", "0,8", "-c", "-a", "all"});
    const BenchOptions b = bench.command.options();
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"allgatherv", "iallgatherv"}));
    EXPECT_EQ(b.sizes, (std::vector<std::uint64_t>{0, 8}));
    Bound<BenchCli> misspelt;
    EXPECT_THROW(parse_argv(misspelt.app, {"bench", "-C", "allgatherw"}), CLI::ValidationError);
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "allgather,iallgatherv,allgatherv", "--measured-sizes", "1K", "--stock",
                "/data/g.json"});
    EXPECT_EQ(tune.command.options().collectives, std::vector<std::string>{"allgather"});
    EXPECT_EQ(tune.command.options().measured, (std::vector<std::string>{"iallgatherv", "allgatherv"}));
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "allgatherv:8:hier/0", "--case", "iallgatherv:1024:any"});
    EXPECT_EQ(verify.command.cases(), (std::vector<VerifyCase>{{"allgatherv", 8, true, 0, false},
                                                               {"iallgatherv", 1024, false, 0, false}}));
    Bound<OverlapCli> overlap;
    overlap.parse({"overlap", "-O", "iallgather,iallgatherv", "-m", "1K:4K"});
    EXPECT_EQ(overlap.command.options().operations, (std::vector<std::string>{"iallgather", "iallgatherv"}));
    Bound<OverlapCli> blocking;
    EXPECT_THROW(parse_argv(blocking.app, {"overlap", "-O", "allgatherv"}), CLI::ValidationError);
    // 4 nodes x 2 ranks, 1000 B blocks: the other nodes' 6000 B into each node at 12.5e6 B/s
    EXPECT_EQ(link_bound_csv("allgather,allgatherv,iallgatherv", 4, 2),
              "collective,size,link_bound_us\nallgather,1000,480.000\nallgatherv,1000,480.000\n"
              "iallgatherv,1000,480.000\n");
}

// bench, tune, verify, overlap and link-bound take alltoall and ialltoall by MPICH's names,
// sized per pair (the block each rank sends each rank); tune measures them (-C only).
TEST_F(CommandLines, AlltoallIsACollectiveOfTheCommands) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "alltoall,ialltoall", "--sizes", "0,8", "-c", "-a", "all"});
    const BenchOptions b = bench.command.options();
    EXPECT_EQ(b.collectives, (std::vector<std::string>{"alltoall", "ialltoall"}));
    EXPECT_EQ(b.sizes, (std::vector<std::uint64_t>{0, 8}));
    Bound<BenchCli> other;
    EXPECT_THROW(parse_argv(other.app, {"bench", "-C", "alltoallw"}), CLI::ValidationError);
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,ialltoall,alltoall", "--measured-sizes", "1K", "--stock",
                "/data/g.json"});
    EXPECT_EQ(tune.command.options().collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(tune.command.options().measured, (std::vector<std::string>{"ialltoall", "alltoall"}));
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "alltoall:8:hier/0", "--case", "ialltoall:1024:any"});
    EXPECT_EQ(verify.command.cases(), (std::vector<VerifyCase>{{"alltoall", 8, true, 0, false},
                                                               {"ialltoall", 1024, false, 0, false}}));
    Bound<OverlapCli> overlap;
    overlap.parse({"overlap", "-O", "ialltoall,iallgather", "-m", "1K:4K"});
    EXPECT_EQ(overlap.command.options().operations, (std::vector<std::string>{"ialltoall", "iallgather"}));
    Bound<OverlapCli> blocking;
    EXPECT_THROW(parse_argv(blocking.app, {"overlap", "-O", "alltoall"}), CLI::ValidationError);
    // 4 nodes x 2 ranks, 1000 B blocks: each node's 2 x 6 blocks out at 12.5e6 B/s, twice
    // allgather's 6 blocks in
    EXPECT_EQ(link_bound_csv("alltoall,ialltoall,allgather", 4, 2),
              "collective,size,link_bound_us\nalltoall,1000,960.000\nialltoall,1000,960.000\n"
              "allgather,1000,480.000\n");
}

// bench, tune, verify, overlap and link-bound take alltoallv and ialltoallv as they take
// alltoall, sized per pair (every count the block); tune measures them (-C only); the
// link bound is alltoall's.
TEST_F(CommandLines, AlltoallvIsACollectiveOfTheCommands) {
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "alltoallv,ialltoallv", "--sizes", "0,8", "-c", "-a", "all"});
    EXPECT_EQ(bench.command.options().collectives, (std::vector<std::string>{"alltoallv", "ialltoallv"}));
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,alltoallv,ialltoallv", "--measured-sizes", "1K", "--stock",
                "/data/g.json"});
    EXPECT_EQ(tune.command.options().collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(tune.command.options().measured, (std::vector<std::string>{"alltoallv", "ialltoallv"}));
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "alltoallv:8:hier/0", "--case", "ialltoallv:1024:any"});
    EXPECT_EQ(verify.command.cases(), (std::vector<VerifyCase>{{"alltoallv", 8, true, 0, false},
                                                               {"ialltoallv", 1024, false, 0, false}}));
    Bound<OverlapCli> overlap;
    overlap.parse({"overlap", "-O", "ialltoallv", "-m", "1K:4K"});
    EXPECT_EQ(overlap.command.options().operations, std::vector<std::string>{"ialltoallv"});
    Bound<OverlapCli> blocking;
    EXPECT_THROW(parse_argv(blocking.app, {"overlap", "-O", "alltoallv"}), CLI::ValidationError);
    EXPECT_EQ(link_bound_csv("alltoallv,ialltoallv,alltoall", 4, 2),
              "collective,size,link_bound_us\nalltoallv,1000,960.000\nialltoallv,1000,960.000\n"
              "alltoall,1000,960.000\n");
}

// bench, tune, verify and link-bound take gatherv, scatterv and their schedules, overlap
// the schedules, sized per rank (the mean of bench's uneven blocks); tune measures them
// (-C only); the link bound is the uneven blocks off the root's node.
TEST_F(CommandLines, GathervAndScattervAreCollectivesOfTheCommands) {
    const std::vector<std::string> rooted{"gatherv", "igatherv", "scatterv", "iscatterv"};
    Bound<BenchCli> bench;
    bench.parse({"bench", "-C", "gatherv,igatherv,scatterv,iscatterv", "--sizes", "0,8", "-c", "-a", "all"});
    EXPECT_EQ(bench.command.options().collectives, rooted);
    for (const char* blocking : {"gatherv", "scatterv"}) {
        Bound<OverlapCli> refused;
        EXPECT_THROW(parse_argv(refused.app, {"overlap", "-O", blocking}), CLI::ValidationError) << blocking;
    }
    Bound<OverlapCli> overlap;
    overlap.parse({"overlap", "-O", "iscatterv,igatherv", "-m", "1K:4K"});
    EXPECT_EQ(overlap.command.options().operations, (std::vector<std::string>{"iscatterv", "igatherv"}));
    // bcast to the task model, the others measured, in the order given
    Bound<TuneCli> tune(kHiertune);
    tune.parse({"tune", "-n", "8", "-C", "bcast,gatherv,igatherv,scatterv,iscatterv", "--measured-sizes", "1K",
                "--stock", "/data/g.json"});
    EXPECT_EQ(tune.command.options().measured, rooted);
    EXPECT_EQ(tune.command.options().collectives, std::vector<std::string>{"bcast"});
    Bound<VerifyCli> verify;
    verify.parse({"verify", "--case", "gatherv:8:hier/0", "--case", "iscatterv:1024:any"});
    EXPECT_EQ(verify.command.cases(), (std::vector<VerifyCase>{{"gatherv", 8, true, 0, false},
                                                               {"iscatterv", 1024, false, 0, false}}));
    // 3 nodes x 3 ranks, 1000 B per rank: ranks 3 .. 8's uneven blocks, 5500 B, through the
    // root's node link at 12.5e6 B/s; gather's six 1000 B blocks 480 us
    EXPECT_EQ(link_bound_csv("gatherv,iscatterv,gather", 3, 3),
              "collective,size,link_bound_us\ngatherv,1000,440.000\niscatterv,1000,440.000\ngather,1000,480.000\n");
}

}  // namespace

// payload.hpp's buffers, where the test moves the data as MPI would.
struct PayloadTestAccess {
    static const std::vector<unsigned char>& sent(const Payload& payload) { return payload.send_; }
    static std::vector<unsigned char>& received(Payload& payload) { return payload.recv_; }
};

namespace {

// Every rank's payload of one point, prepared for repetition `rep`.
std::vector<Payload> prepared_payloads(const std::string& collective, std::size_t bytes, int size, std::size_t rep) {
    std::vector<Payload> ranks;
    for (int rank = 0; rank < size; ++rank) {
        ranks.emplace_back(std::vector<PointKey>{PointKey{collective, bytes, "default", {}}}, rank, size);
        ranks.back().prepare(Payload::call_of(collective), bytes, rep);
    }
    return ranks;
}

// What MPI_Scan (inclusive) or MPI_Exscan leaves with MPI_SUM on MPI_UNSIGNED_CHAR: rank
// r receives the byte-wise sums mod 256 of ranks 0 .. r (0 .. r-1; rank 0 nothing).
void move_prefix_sums(std::vector<Payload>& ranks, std::size_t bytes, bool inclusive) {
    std::vector<unsigned char> prefix(bytes, 0);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[r]);
        ASSERT_GE(received.size(), bytes);
        if (!inclusive && r > 0) std::copy(prefix.begin(), prefix.end(), received.begin());
        const std::vector<unsigned char>& own = PayloadTestAccess::sent(ranks[r]);
        for (std::size_t i = 0; i < bytes; ++i) prefix[i] = static_cast<unsigned char>(prefix[i] + own[i]);
        if (inclusive) std::copy(prefix.begin(), prefix.end(), received.begin());
    }
}

// Each rank's check of repetition `rep`.
std::vector<bool> checked(std::vector<Payload>& ranks, const std::string& collective, std::size_t bytes,
                          std::size_t rep) {
    std::vector<bool> ok;
    for (Payload& rank : ranks) ok.push_back(rank.check(Payload::call_of(collective), bytes, rep));
    return ok;
}

// bench -c and verify on MPI_Scan and MPI_Exscan (their non-blocking forms: the same
// data): each rank holds the sum of its own and the lower ranks' contributions (exscan:
// the lower ranks' alone; rank 0 gets none); nothing moved, the other scan's sums or
// another repetition's fail on every rank that gets a result.
TEST(Payload, ScanAndExscanHoldEachRanksPrefixSum) {
    constexpr int kSize = 5;
    constexpr std::size_t kBytes = 300;  // past 256: every byte value
    constexpr std::size_t kRep = 3;
    const std::vector<bool> all(kSize, true), none(kSize, false);
    std::vector<bool> rank0_only(kSize, false);
    rank0_only[0] = true;
    for (const char* collective : {"scan", "iscan"}) {
        std::vector<Payload> ranks = prepared_payloads(collective, kBytes, kSize, kRep);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), none) << collective << ": nothing moved";
        move_prefix_sums(ranks, kBytes, false);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), none) << collective << ": exscan's sums";
        move_prefix_sums(ranks, kBytes, true);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), all) << collective;
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep + 1), none) << collective << ": another repetition";
    }
    for (const char* collective : {"exscan", "iexscan"}) {
        std::vector<Payload> ranks = prepared_payloads(collective, kBytes, kSize, kRep);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), rank0_only) << collective << ": nothing moved";
        move_prefix_sums(ranks, kBytes, true);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), rank0_only) << collective << ": scan's sums";
        move_prefix_sums(ranks, kBytes, false);
        EXPECT_EQ(checked(ranks, collective, kBytes, kRep), all) << collective;
    }
    EXPECT_TRUE(Payload::call_of("iexscan").nonblocking());
    EXPECT_EQ(Payload::call_of("iexscan").blocking(), Payload::call_of("exscan"));
}

// What MPI_Reduce_scatter(_block) leaves with MPI_SUM on MPI_UNSIGNED_CHAR and equal
// blocks of `bytes`: rank r receives block r of the byte-wise sum (mod 256) of every
// rank's vector, or block (r + shift) mod size (a block summed into the wrong rank).
void move_block_sums(std::vector<Payload>& ranks, std::size_t bytes, std::size_t shift) {
    const std::size_t size = ranks.size();
    std::vector<unsigned char> sum(size * bytes, 0);
    for (const Payload& rank : ranks) {
        const std::vector<unsigned char>& vector = PayloadTestAccess::sent(rank);
        ASSERT_GE(vector.size(), sum.size());
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = static_cast<unsigned char>(sum[i] + vector[i]);
    }
    for (std::size_t r = 0; r < size; ++r) {
        std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[r]);
        ASSERT_GE(received.size(), bytes);
        const auto block = sum.begin() + static_cast<std::ptrdiff_t>((r + shift) % size * bytes);
        std::copy(block, block + static_cast<std::ptrdiff_t>(bytes), received.begin());
    }
}

// bench -c and verify on the reduce-scatters (their non-blocking forms: the same data):
// every rank sends a vector of one block per rank and holds its own block of the vectors'
// sum; nothing moved, a neighbour's block or another repetition's fail on every rank.
TEST(Payload, ReduceScattersHoldEachRanksBlockOfTheSum) {
    constexpr int kSize = 5;
    constexpr std::size_t kRep = 2;
    const std::vector<bool> all(kSize, true), none(kSize, false);
    // 256 B: without each block's mark every block's sum would be the same
    for (const std::size_t bytes : {std::size_t{256}, std::size_t{300}, std::size_t{1}}) {
        for (const char* collective : {"reduce_scatter", "reduce_scatter_block", "ireduce_scatter",
                                       "ireduce_scatter_block"}) {
            std::vector<Payload> ranks = prepared_payloads(collective, bytes, kSize, kRep);
            EXPECT_EQ(PayloadTestAccess::sent(ranks[1]).size(), kSize * bytes) << collective;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": nothing moved";
            move_block_sums(ranks, bytes, 1);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": the next rank's block";
            move_block_sums(ranks, bytes, 0);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), all) << collective << " " << bytes;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep + 1), none) << collective << ": another repetition";
        }
    }
    // 0 bytes: a valid call that moves nothing, and nothing to check
    std::vector<Payload> empty = prepared_payloads("reduce_scatter", 0, kSize, kRep);
    EXPECT_EQ(checked(empty, "reduce_scatter", 0, kRep), all);
    EXPECT_EQ(Payload::call_of("ireduce_scatter_block").blocking(), Payload::call_of("reduce_scatter_block"));
    EXPECT_NE(Payload::call_of("reduce_scatter"), Payload::call_of("reduce_scatter_block"));
}

// What MPI_Allgatherv leaves with recvcounts all `bytes` and displs[r] = (size-1-r) x bytes
// (bench's layout, the reversed rank order): every rank's block at its displacement on
// every rank; with in_rank_order, at rank r x bytes instead (a call that ignored displs).
void move_allgatherv_blocks(std::vector<Payload>& ranks, std::size_t bytes, bool in_rank_order) {
    const std::size_t size = ranks.size();
    for (std::size_t from = 0; from < size; ++from) {
        const std::vector<unsigned char>& block = PayloadTestAccess::sent(ranks[from]);
        ASSERT_GE(block.size(), bytes);
        const std::size_t at = (in_rank_order ? from : size - 1 - from) * bytes;
        for (Payload& to : ranks) {
            std::vector<unsigned char>& received = PayloadTestAccess::received(to);
            ASSERT_GE(received.size(), size * bytes);
            std::copy(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(bytes),
                      received.begin() + static_cast<std::ptrdiff_t>(at));
        }
    }
}

// bench -c, verify and overlap on MPI_Allgatherv (MPI_Iallgatherv: the same data): equal
// recvcounts, the blocks in reversed rank order; every block is checked at its
// displacement on every rank, so blocks in rank order, a missing one or another
// repetition's fail.
TEST(Payload, AllgathervHoldsEveryBlockAtItsDisplacement) {
    constexpr int kSize = 5;
    constexpr std::size_t kRep = 3;
    std::vector<int> counts(kSize, -1), displs(kSize, -1);
    Payload::allgatherv_layout(300, counts, displs);
    EXPECT_EQ(counts, (std::vector<int>{300, 300, 300, 300, 300}));
    EXPECT_EQ(displs, (std::vector<int>{1200, 900, 600, 300, 0}));
    const std::vector<bool> all(kSize, true), none(kSize, false);
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{256}, std::size_t{300}}) {
        for (const char* collective : {"allgatherv", "iallgatherv"}) {
            std::vector<Payload> ranks = prepared_payloads(collective, bytes, kSize, kRep);
            EXPECT_EQ(PayloadTestAccess::received(ranks[2]).size(), kSize * bytes) << collective;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": nothing moved";
            move_allgatherv_blocks(ranks, bytes, true);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": displs ignored";
            move_allgatherv_blocks(ranks, bytes, false);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), all) << collective << " " << bytes;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep + 1), none) << collective << ": another repetition";
            // one block lost on one rank: that rank fails
            std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[1]);
            received[bytes - 1] = static_cast<unsigned char>(~received[bytes - 1]);  // rank 4's block, at 0
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), (std::vector<bool>{true, false, true, true, true}));
        }
    }
    // 0 bytes: a valid call that moves nothing, and nothing to check
    std::vector<Payload> empty = prepared_payloads("allgatherv", 0, kSize, kRep);
    EXPECT_EQ(checked(empty, "allgatherv", 0, kRep), all);
    EXPECT_EQ(Payload::call_of("iallgatherv").blocking(), Payload::call_of("allgatherv"));
    EXPECT_NE(Payload::call_of("allgatherv"), Payload::call_of("allgather"));
    // displacements that exceed MPI's int: refused before anything is allocated
    EXPECT_THROW(Payload({PointKey{"allgatherv", 1u << 30, "default", {}}}, 0, 4), std::runtime_error);
    EXPECT_NO_THROW(Payload::check_displacements("allgatherv", 1u << 30, 2));
    EXPECT_THROW(Payload::check_displacements("iallgatherv", 1u << 30, 3), std::runtime_error);
}

// What MPI_Alltoall leaves with blocks of `bytes`: rank `to`'s block r holds rank r's
// block `to`; with `transposed`, its own block r instead (what it sent rank r); with
// `shift`, the block meant for rank to + shift (mod the size).
void move_alltoall_blocks(std::vector<Payload>& ranks, std::size_t bytes, bool transposed, std::size_t shift) {
    const std::size_t size = ranks.size();
    for (std::size_t to = 0; to < size; ++to) {
        std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[to]);
        ASSERT_GE(received.size(), size * bytes);
        for (std::size_t from = 0; from < size; ++from) {
            const std::size_t sender = transposed ? to : from;
            const std::size_t block = ((transposed ? from : to) + shift) % size;
            const std::vector<unsigned char>& sent = PayloadTestAccess::sent(ranks[sender]);
            ASSERT_GE(sent.size(), size * bytes);
            const auto first = sent.begin() + static_cast<std::ptrdiff_t>(block * bytes);
            std::copy(first, first + static_cast<std::ptrdiff_t>(bytes),
                      received.begin() + static_cast<std::ptrdiff_t>(from * bytes));
        }
    }
}

// bench -c, verify and overlap on MPI_Alltoall (MPI_Ialltoall: the same data): every rank
// sends one block per rank and receives one from each, every block checked on every
// rank, so nothing moved, blocks meant for another rank, the transposed blocks (each
// rank's own to the others) or another repetition's fail.
TEST(Payload, AlltoallHoldsEveryRanksBlockForIt) {
    constexpr int kSize = 5;
    constexpr std::size_t kRep = 4;
    const std::vector<bool> all(kSize, true), none(kSize, false);
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{256}, std::size_t{300}}) {
        for (const char* collective : {"alltoall", "ialltoall"}) {
            std::vector<Payload> ranks = prepared_payloads(collective, bytes, kSize, kRep);
            EXPECT_EQ(PayloadTestAccess::sent(ranks[1]).size(), kSize * bytes) << collective;
            EXPECT_EQ(PayloadTestAccess::received(ranks[3]).size(), kSize * bytes) << collective;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": nothing moved";
            move_alltoall_blocks(ranks, bytes, false, 1);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": the next rank's blocks";
            move_alltoall_blocks(ranks, bytes, true, 0);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": transposed";
            move_alltoall_blocks(ranks, bytes, false, 0);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), all) << collective << " " << bytes;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep + 1), none) << collective << ": another repetition";
            // one block lost on one rank: that rank fails
            std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[2]);
            received[4 * bytes] = static_cast<unsigned char>(~received[4 * bytes]);  // rank 4's block
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), (std::vector<bool>{true, true, false, true, true}));
        }
    }
    // 0 bytes: a valid call that moves nothing, and nothing to check
    std::vector<Payload> empty = prepared_payloads("alltoall", 0, kSize, kRep);
    EXPECT_EQ(checked(empty, "alltoall", 0, kRep), all);
    EXPECT_EQ(Payload::call_of("ialltoall").blocking(), Payload::call_of("alltoall"));
    EXPECT_NE(Payload::call_of("alltoall"), Payload::call_of("allgather"));
}

// What MPI_Alltoallv leaves with bench's arguments for blocks of `bytes`
// (Payload::alltoallv_layout): rank `to` receives rank r's block at sdispls[to] at
// rdispls[r], sendcount and recvcount alike.
void move_alltoallv_blocks(std::vector<Payload>& ranks, std::size_t bytes) {
    const std::size_t size = ranks.size();
    std::vector<int> counts(size, -1), sdispls(size, -1), rdispls(size, -1);
    Payload::alltoallv_layout(static_cast<int>(bytes), counts, sdispls, rdispls);
    for (std::size_t to = 0; to < size; ++to) {
        std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[to]);
        ASSERT_GE(received.size(), size * bytes);
        for (std::size_t from = 0; from < size; ++from) {
            const std::vector<unsigned char>& sent = PayloadTestAccess::sent(ranks[from]);
            ASSERT_GE(sent.size(), size * bytes);
            const auto first = sent.begin() + sdispls[to];
            std::copy(first, first + counts[to], received.begin() + rdispls[from]);
        }
    }
}

// bench -c, verify and overlap on MPI_Alltoallv (MPI_Ialltoallv: the same data): alltoall's
// blocks, every count the block, sent in rank order and received at reversed
// displacements; every block checked at its displacement on every rank, so blocks in rank
// order (rdispls ignored: what MPI_Alltoall leaves), transposed ones, a missing one or
// another repetition's fail.
TEST(Payload, AlltoallvHoldsEveryRanksBlockAtItsDisplacement) {
    constexpr int kSize = 5;
    constexpr std::size_t kRep = 2;
    std::vector<int> counts(kSize, -1), sdispls(kSize, -1), rdispls(kSize, -1);
    Payload::alltoallv_layout(300, counts, sdispls, rdispls);
    EXPECT_EQ(counts, (std::vector<int>{300, 300, 300, 300, 300}));
    EXPECT_EQ(sdispls, (std::vector<int>{0, 300, 600, 900, 1200}));
    EXPECT_EQ(rdispls, (std::vector<int>{1200, 900, 600, 300, 0}));
    const std::vector<bool> all(kSize, true), none(kSize, false);
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{256}, std::size_t{300}}) {
        for (const char* collective : {"alltoallv", "ialltoallv"}) {
            std::vector<Payload> ranks = prepared_payloads(collective, bytes, kSize, kRep);
            EXPECT_EQ(PayloadTestAccess::sent(ranks[1]).size(), kSize * bytes) << collective;
            EXPECT_EQ(PayloadTestAccess::received(ranks[3]).size(), kSize * bytes) << collective;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": nothing moved";
            move_alltoall_blocks(ranks, bytes, false, 0);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": rdispls ignored";
            move_alltoall_blocks(ranks, bytes, true, 0);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), none) << collective << ": transposed";
            move_alltoallv_blocks(ranks, bytes);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), all) << collective << " " << bytes;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep + 1), none) << collective << ": another repetition";
            // one block lost on one rank: that rank fails
            std::vector<unsigned char>& received = PayloadTestAccess::received(ranks[2]);
            received[0] = static_cast<unsigned char>(~received[0]);  // rank 4's block, at 0
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), (std::vector<bool>{true, true, false, true, true}));
        }
    }
    // 0 bytes: a valid call that moves nothing, and nothing to check
    std::vector<Payload> empty = prepared_payloads("alltoallv", 0, kSize, kRep);
    EXPECT_EQ(checked(empty, "alltoallv", 0, kRep), all);
    EXPECT_EQ(Payload::call_of("ialltoallv").blocking(), Payload::call_of("alltoallv"));
    EXPECT_NE(Payload::call_of("alltoallv"), Payload::call_of("alltoall"));
    // displacements that exceed MPI's int: refused before anything is allocated
    EXPECT_THROW(Payload({PointKey{"alltoallv", 1u << 30, "default", {}}}, 0, 4), std::runtime_error);
    EXPECT_THROW(Payload::check_displacements("ialltoallv", 1u << 30, 3), std::runtime_error);
}

// What MPI_Gatherv (`gather`) or MPI_Scatterv leaves where a call moves rank r's block of
// counts[r] bytes between that rank's buffer and the root's at displs[r] (bench's
// arguments: Payload::uneven_layout; a call that misreads them: other arrays).
void move_uneven_blocks(std::vector<Payload>& ranks, bool gather, const std::vector<int>& counts,
                        const std::vector<int>& displs) {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto count = static_cast<std::size_t>(counts[r]), at = static_cast<std::size_t>(displs[r]);
        const std::vector<unsigned char>& from = PayloadTestAccess::sent(ranks[gather ? r : 0]);
        std::vector<unsigned char>& to = PayloadTestAccess::received(ranks[gather ? 0 : r]);
        const std::size_t from_at = gather ? 0 : at, to_at = gather ? at : 0;
        ASSERT_GE(from.size(), from_at + count);
        ASSERT_GE(to.size(), to_at + count);
        std::copy(from.begin() + from_at, from.begin() + from_at + count, to.begin() + to_at);
    }
}

// bench -c, verify and overlap on MPI_Gatherv and MPI_Scatterv (their non-blocking forms:
// the same data): uneven blocks (half a block more and less on each pair of ranks) in
// reversed rank order at the root; a call that takes every count alike or ignores displs
// fails on the root (rank 0's block misplaced), one that moves nothing or another
// repetition's wherever data is received (gatherv: the root alone).
TEST(Payload, GathervAndScattervHoldEveryUnevenBlockInPlace) {
    constexpr int kSize = 5;
    constexpr std::size_t kRep = 2;
    std::vector<int> counts(kSize, -1), displs(kSize, -1);
    Payload::uneven_layout(300, counts, displs);
    // displacements that exceed MPI's int: refused before anything is allocated
    EXPECT_THROW(Payload({PointKey{"gatherv", 1u << 30, "default", {}}}, 0, 4), std::runtime_error);
    EXPECT_EQ(counts, (std::vector<int>{450, 150, 450, 150, 300}));
    EXPECT_EQ(displs, (std::vector<int>{1050, 900, 450, 300, 0}));
    EXPECT_EQ(Payload::call_of("igatherv").blocking(), Payload::call_of("gatherv"));
    EXPECT_NE(Payload::call_of("scatterv"), Payload::call_of("scatter"));
    // 0 bytes: a valid call that moves nothing, and nothing to check
    const std::vector<bool> all(kSize, true);
    std::vector<Payload> empty = prepared_payloads("scatterv", 0, kSize, kRep);
    EXPECT_EQ(checked(empty, "scatterv", 0, kRep), all);
    for (const std::size_t bytes : {std::size_t{2}, std::size_t{300}}) {
        std::vector<int> equal(kSize, -1), reversed(kSize, -1), right(kSize, -1), in_rank_order(kSize, 0);
        Payload::allgatherv_layout(static_cast<int>(bytes), equal, reversed);
        Payload::uneven_layout(bytes, right, displs);
        for (int r = 1; r < kSize; ++r) in_rank_order[r] = in_rank_order[r - 1] + right[r - 1];
        for (const char* collective : {"gatherv", "igatherv", "scatterv", "iscatterv"}) {
            const bool gather = Payload::call_of(collective).kind() == grammar::Collective::gatherv;
            std::vector<bool> wrong(kSize, gather);  // gatherv: the root alone receives
            wrong[0] = false;
            std::vector<Payload> ranks = prepared_payloads(collective, bytes, kSize, kRep);
            EXPECT_EQ(PayloadTestAccess::sent(ranks[gather ? 1 : 0]).size(),
                      gather ? bytes + bytes / 2 : kSize * bytes);
            EXPECT_EQ(PayloadTestAccess::received(ranks[gather ? 0 : 1]).size(),
                      gather ? kSize * bytes : bytes + bytes / 2);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), wrong) << collective << ": nothing moved";
            // (scatterv: a rank whose block the wrong arrays still cover holds it)
            move_uneven_blocks(ranks, gather, equal, reversed);
            EXPECT_NE(checked(ranks, collective, bytes, kRep), all) << collective << ": every count alike";
            EXPECT_FALSE(checked(ranks, collective, bytes, kRep)[0]) << collective << ": every count alike";
            move_uneven_blocks(ranks, gather, right, in_rank_order);
            EXPECT_FALSE(checked(ranks, collective, bytes, kRep)[0]) << collective << ": displs ignored";
            move_uneven_blocks(ranks, gather, right, displs);
            EXPECT_EQ(checked(ranks, collective, bytes, kRep), all) << collective << " " << bytes;
            EXPECT_EQ(checked(ranks, collective, bytes, kRep + 1), wrong) << collective << ": another repetition";
        }
    }
}

// An error is one line however many its message has (install-tree's list of problems,
// an MPI library's error stack).
TEST(ErrorLine, JoinsTheLinesOfAMessage) {
    EXPECT_EQ(one_line("plain"), "plain");
    EXPECT_EQ(one_line("t.json: not installed:\n  one\n  two\n"), "t.json: not installed: one; two");
    EXPECT_EQ(one_line("Invalid argument, error stack:\nMPIR_Bcast(1): x\r\nMPIR_Y(2): y"),
              "Invalid argument, error stack: MPIR_Bcast(1): x; MPIR_Y(2): y");
    EXPECT_EQ(kBadInputStatus, 2);
}

}  // namespace
}  // namespace hiertune
