// `hiertune tune` orchestration without MPI: options, the jobs' command lines,
// verify cases, the job lookup and the validation cases from stored data.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hier_grammar.h"
#include "hiertune/common/text.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tune/tune_plan.hpp"
#include "hiertune/tune/tune_steps.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {
namespace {

TuneOptions options() {
    TuneOptions o;
    o.ranks = 4;
    o.nodes = 2;
    o.collectives = {"bcast"};
    o.sizes = {1024, 65536};
    o.configs = "inter_algo=tsp_kary/sched_binomial";
    o.segsizes = {4096, 32768};
    o.db_path = "/d/t.sqlite";
    o.tree_path = "/d/tree.json";
    o.report_dir = "/d/report";
    o.mpiexec = "/opt/mpich/bin/mpiexec";
    o.machine = "box";
    return o;
}

// The measured job of options(): 4 ranks on `nodes` nodes, placed as given.
JobDescription job_on_nodes(int nodes, const std::string& placement = "block") {
    return JobDescription{"box", 4, nodes, (4 + nodes - 1) / nodes, placement, ""};
}

bool contains(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
    return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

TEST(Tune, OptionsAreChecked) {
    EXPECT_NO_THROW(check_tune_options(options()));
    TuneOptions o = options();
    o.ranks = 1;
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.nodes = 5;  // more nodes than ranks
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.nodes = 1;
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.sizes = {0, 8};
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.segsizes.clear();
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.collectives = {"gather"};
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.collectives = {"bcast", "bcast"};
    EXPECT_THROW(check_tune_options(o), UsageError);
    // gather, scatter, barrier: measured (after split_measured), alone or beside the model's
    o = options();
    o.collectives = {"gather", "bcast", "barrier"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"gather", "barrier"}));
    EXPECT_NO_THROW(check_tune_options(o));
    o.collectives.clear();
    EXPECT_NO_THROW(check_tune_options(o));
    o.measured = {"bcast"};  // the model's
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.measured = {"gather", "gather"};
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.measured = {"gather"};
    o.measured_sizes = {0};
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.configs = "inter_algo=seg_chain";  // costed by the analytic models: fitted on cliques (--nodes)
    EXPECT_NO_THROW(check_tune_options(o));
    o.nodes.reset();  // a real cluster needs a launch of one rank per node
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.fit_launcher = {"srun", "--ntasks-per-node=1"};
    EXPECT_NO_THROW(check_tune_options(o));
    o = options();
    o.configs = "bogus=1";
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.nodes.reset();  // a real cluster: nodes from the launch
    EXPECT_NO_THROW(check_tune_options(o));
    // tsp_allreduce_ring is allreduce's own: bcast skips it, but needs another configuration
    o = options();
    o.configs = "inter_algo=tsp_allreduce_ring";
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.collectives = {"allreduce"};
    EXPECT_NO_THROW(check_tune_options(o));
    o.collectives = {"bcast", "allreduce"};
    o.configs = "inter_algo=tsp_kary/tsp_allreduce_ring";
    EXPECT_NO_THROW(check_tune_options(o));
    // step 5: at least 2 rounds, a tolerance in [0, 1)
    o = options();
    o.tree_rounds = 1;
    EXPECT_THROW(check_tune_options(o), UsageError);
    o = options();
    o.tree_tolerance = 1;
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.tree_tolerance = 0;
    EXPECT_NO_THROW(check_tune_options(o));
}

// ---- step 5 and `hiertune tree-timing`: the tree as loaded vs no tree

TEST(TreeTiming, OptionsAreChecked) {
    TuneOptions o = options();
    o.collectives = {"bcast", "reduce", "allreduce"};  // any tree: reduce too
    o.configs = "inter_algo=seg_chain";                  // tune's search space is not looked at
    o.segsizes.clear();
    EXPECT_NO_THROW(check_tree_timing_options(o));
    for (const auto& change : std::vector<void (*)(TuneOptions&)>{
             [](TuneOptions& t) { t.ranks = 1; }, [](TuneOptions& t) { t.nodes = 5; },
             [](TuneOptions& t) { t.sizes = {0}; }, [](TuneOptions& t) { t.sizes.clear(); },
             [](TuneOptions& t) { t.collectives = {"alltoallw"}; },
             [](TuneOptions& t) { t.collectives = {"bcast", "bcast"}; }, [](TuneOptions& t) { t.tree_path.clear(); },
             [](TuneOptions& t) { t.tree_rounds = 1; }, [](TuneOptions& t) { t.tree_tolerance = -0.01; },
             [](TuneOptions& t) { t.launcher = {"srun"}; }}) {
        TuneOptions bad = o;
        change(bad);
        EXPECT_THROW(check_tree_timing_options(bad), UsageError);
    }
}

TEST(TreeTiming, LaunchesWithAndWithoutTheTree) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    o.allow_cliques = true;
    const Launch with = tree_timing_launch(o, "/bin/hiertune", "/d/tree.json", true, timed_groups(o).at(0));
    EXPECT_EQ(with.step, "tree");
    EXPECT_EQ(with.argv, (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "bench",
                                                   "-C", "bcast,allreduce", "-a", "default", "--sizes", "1024,65536",
                                                   "-x", "10", "--min-reps", "10", "-i", "1000", "--precision", "2.5",
                                                   "--max-time", "5", "--no-progress", "--json",
                                                   "--allow-cliques"}));
    using Env = std::vector<std::pair<std::string, std::string>>;
    // no CH4 tree beside the tree: its variable set empty too
    EXPECT_EQ(with.env, (Env{{"MPIR_CVAR_NUM_CLIQUES", "2"},
                             {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "/d/tree.json"},
                             {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", ""}}));
    // without: the variables set empty (MPICH's built-in trees), whatever tune's environment holds
    const Launch without = tree_timing_launch(o, "/bin/hiertune", "/d/tree.json", false, timed_groups(o).at(0));
    EXPECT_EQ(without.step, "no-tree");
    EXPECT_EQ(without.argv, with.argv);
    EXPECT_EQ(without.env, (Env{{"MPIR_CVAR_NUM_CLIQUES", "2"},
                                {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", ""},
                                {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", ""}}));
    EXPECT_EQ(describe(without).rfind("MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE='' "
                                      "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE='' "
                                      "/opt/mpich/bin/mpiexec -n 4 /bin/hiertune bench",
                                      0),
              0u)
        << describe(without);
    // the by_size crossovers step 0 measured: every job runs with them, with the tree or not
    o.latency_bytes = 465;
    for (const bool tree : {true, false})
        EXPECT_EQ(tree_timing_launch(o, "/bin/hiertune", "/d/tree.json", tree, timed_groups(o).at(0)).env.at(1),
                  (std::pair<std::string, std::string>{"MPIR_CVAR_HIER_LATENCY_BYTES", "465"}));
    o.latency_bytes = 0;
    // the bench effort of the options; the launcher's words
    o.bench_warmup = 1;
    o.bench_min_reps = 3;
    o.bench_max_reps = 2;  // min-reps capped by -i
    o.allow_cliques = false;
    o.nodes.reset();
    o.mpiexec.clear();
    o.launcher = {"srun", "-N", "2"};
    const Launch launched = tree_timing_launch(o, "h", "/d/tree.json", true, timed_groups(o).at(0));
    EXPECT_TRUE(contains(launched.argv, {"srun", "-N", "2", "h", "bench"}));
    EXPECT_TRUE(contains(launched.argv, {"-x", "1", "--min-reps", "2", "-i", "2"}));
    EXPECT_EQ(launched.argv.back(), "--json");
    EXPECT_EQ(launched.env, (Env{{"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "/d/tree.json"},
                                 {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", ""}}));
    EXPECT_THROW(tree_timing_launch(o, "h", "tree.json", true, timed_groups(o).at(0)), UsageError);  // MPICH's cwd is not ours
}

std::string bench_point(const std::string& collective, std::uint64_t size, double median_us,
                        const std::string& algorithm = "default", int nodes = 2) {
    std::ostringstream line;
    line << R"({"collective":")" << collective << R"(","size":)" << size << R"(,"algorithm":")" << algorithm
         << R"(","params":{},"median_us":)" << median_us << R"(,"ci_lo_us":)" << median_us * 0.9
         << R"(,"ci_hi_us":)" << median_us * 1.1 << R"(,"min_us":)" << median_us * 0.8 << R"(,"max_us":)"
         << median_us * 2 << R"(,"mean_us":)" << median_us * 1.2
         << R"(,"n":12,"converged":true,"source":"measured","ranks":4,"nodes":)" << nodes
         << R"(,"ppn":2,"placement":"block"})" << '\n';
    return line.str();
}

TEST(TreeTiming, ParsesTheJobsJsonLines) {
    TuneOptions o = options();  // bcast at 1024 and 65536
    std::istringstream lines(bench_point("bcast", 1024, 12.5) + "\n" + bench_point("bcast", 65536, 400));
    const TreeTimingOutput output = parse_tree_timing_output(lines, timed_groups(o).at(0), 2, kNoTreeVariant);
    ASSERT_EQ(output.timings.size(), 2u);
    const TreeTiming& t = output.timings[0];
    EXPECT_EQ(t.round, 2);
    EXPECT_EQ(t.variant, "no-tree");
    EXPECT_EQ(t.collective, "bcast");
    EXPECT_EQ(t.msg_bytes, 1024u);
    EXPECT_NEAR(t.summary.median, 12.5e-6, 1e-15);
    EXPECT_NEAR(t.summary.max, 25e-6, 1e-15);
    EXPECT_EQ(t.summary.n, 12u);
    EXPECT_TRUE(t.summary.converged);
    EXPECT_NEAR(output.timings[1].summary.median, 400e-6, 1e-15);
    EXPECT_EQ(output.layout.ranks, 4);
    EXPECT_EQ(output.layout.nodes, 2);
    EXPECT_EQ(output.layout.ppn, 2);
    EXPECT_EQ(output.layout.placement, "block");
    EXPECT_TRUE(same_layout(output.layout, JobDescription{"box", 4, 2, 2, "block", "4.0.2"}));
    EXPECT_FALSE(same_layout(output.layout, JobDescription{"box", 4, 2, 2, "round-robin", "4.0.2"}));

    const std::string good = bench_point("bcast", 1024, 12.5);
    for (const std::string& bad : {
             good,                                                           // 65536 missing
             good + bench_point("bcast", 65536, 400) + bench_point("bcast", 8, 3),   // not asked for
             good + good + bench_point("bcast", 65536, 400),                  // twice
             good + bench_point("allreduce", 65536, 400),                     // another collective
             good + bench_point("bcast", 65536, 400, "binomial"),             // not the default selection
             good + bench_point("bcast", 65536, 400, "default", 4),           // another layout
             good + "# OSU MPI Broadcast Latency Test\n" + bench_point("bcast", 65536, 400),  // not JSON
             good + R"({"collective":"bcast","size":65536})" + "\n",       // fields missing
         }) {
        std::istringstream input(bad);
        EXPECT_THROW(parse_tree_timing_output(input, timed_groups(o).at(0), 1, kTreeVariant), std::runtime_error) << bad;
    }
}

TEST(TreeTiming, RoundsStoredAndCases) {
    TuneOptions o = options();
    o.tree_rounds = 2;
    const auto timing = [](int round, const char* variant, std::uint64_t bytes, double median) {
        Summary s;
        s.n = 3;
        s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = median;
        return TreeTiming{round, variant, "bcast", bytes, s};
    };
    std::vector<TreeTiming> stored{timing(1, kTreeVariant, 1024, 1), timing(1, kTreeVariant, 65536, 2),
                                   timing(1, kNoTreeVariant, 1024, 3), timing(2, kTreeVariant, 1024, 5)};
    EXPECT_TRUE(tree_round_stored(timed_groups(o).at(0), stored, 1, kTreeVariant));
    EXPECT_FALSE(tree_round_stored(timed_groups(o).at(0), stored, 1, kNoTreeVariant));  // 65536 missing
    EXPECT_FALSE(tree_round_stored(timed_groups(o).at(0), stored, 2, kTreeVariant));
    EXPECT_FALSE(tree_round_stored(timed_groups(o).at(0), stored, 2, kNoTreeVariant));
    try {
        tree_timing_cases(o, stored);
        ADD_FAILURE() << "incomplete rounds accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "no no-tree timing of bcast 1024 B in round 2");
    }
    stored.push_back(timing(1, kNoTreeVariant, 65536, 4));
    stored.push_back(timing(2, kNoTreeVariant, 1024, 7));
    stored.push_back(timing(2, kTreeVariant, 65536, 6));
    stored.push_back(timing(2, kNoTreeVariant, 65536, 8));
    stored.push_back(timing(3, kNoTreeVariant, 65536, 99));  // a round beyond --tree-rounds is not used
    const std::vector<TreeTimingCase> cases = tree_timing_cases(o, stored);
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].collective, "bcast");
    EXPECT_EQ(cases[0].msg_bytes, 1024u);
    EXPECT_EQ(cases[0].tree, (std::vector<double>{1, 5}));
    EXPECT_EQ(cases[0].no_tree, (std::vector<double>{3, 7}));
    EXPECT_EQ(cases[1].tree, (std::vector<double>{2, 6}));
    EXPECT_EQ(cases[1].no_tree, (std::vector<double>{4, 8}));
    // a size where the tree runs MPICH's selection is not timed, and no case wants it
    o.same_as_no_tree = {{"bcast", 65536}};
    const std::vector<TreeTimingCase> timed = tree_timing_cases(o, {stored[0], stored[2], stored[3], stored[5]});
    ASSERT_EQ(timed.size(), 1u);
    EXPECT_EQ(timed[0].msg_bytes, 1024u);
}

// Step 5 times the sizes where the tree picked other than MPICH's selection, each
// collective's remaining sizes regrouped; a collective with none is left out.
TEST(Tune, TreeTimingLeavesOutTheSameChoice) {
    TuneOptions o = options();
    o.collectives = {"bcast", "reduce"};
    o.sizes = {1024, 8192, 65536};
    o.measured = {"gather", "barrier"};
    o.measured_sizes = {8192};
    o.same_as_no_tree = {{"bcast", 1024}, {"reduce", 1024}, {"gather", 8192}};
    const std::vector<TimedGroup> groups = tree_timed_groups(o);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].collectives, (std::vector<std::string>{"bcast", "reduce"}));
    EXPECT_EQ(groups[0].sizes, (std::vector<std::uint64_t>{8192, 65536}));
    EXPECT_EQ(groups[1].collectives, (std::vector<std::string>{"barrier"}));
    o.same_as_no_tree.insert({"barrier", 0});
    EXPECT_EQ(tree_timed_groups(o).size(), 1u);
    EXPECT_EQ(timed_groups(o).size(), 3u);  // the steps that measure keep every size
}

// seg_* inter-node configurations: no task benchmarks (no stand-in), a fit on one
// rank per node instead, only of the trees the space uses.
TEST(Tune, SegInterNodeConfigurationsAreFittedNotTaskBenchmarked) {
    TuneOptions o = options();
    EXPECT_FALSE(fit_launch(o, "/bin/hiertune"));
    o.collectives = {"bcast", "allreduce"};
    o.configs = "inter_algo=tsp_kary/seg_pipeline/seg_chain,inter_chunk=0/8192";
    EXPECT_EQ(seg_inter_configs(o).size(), 4u);
    const std::vector<Launch> tasks = tasks_launches(o, "/bin/hiertune");
    ASSERT_EQ(tasks.size(), 2u);  // tsp_kary with each chunk, one launch each
    EXPECT_TRUE(contains(tasks[0].argv, {"--config", "inter_algo=tsp_kary,inter_chunk=0"})) << describe(tasks[0]);
    EXPECT_TRUE(contains(tasks[1].argv, {"--config", "inter_algo=tsp_kary,inter_chunk=8192"})) << describe(tasks[1]);
    // one launch per configuration, for the collectives it applies to
    o.configs = "inter_algo=tsp_allreduce_ring/seg_pipeline";
    const std::vector<Launch> ring = tasks_launches(o, "/bin/hiertune");
    ASSERT_EQ(ring.size(), 1u);
    EXPECT_TRUE(contains(ring[0].argv, {"tasks", "-C", "allreduce", "-s"})) << describe(ring[0]);
    TuneOptions measured_only = o;  // no model collective: no task, no model size to bound them
    measured_only.collectives.clear();
    measured_only.measured = {"gather"};
    EXPECT_TRUE(model_sizes(measured_only).empty());
    EXPECT_TRUE(tasks_launches(measured_only, "/bin/hiertune").empty());
    o.configs = "inter_algo=tsp_kary/seg_pipeline/seg_chain,inter_chunk=0/8192";
    const std::optional<Launch> fit = fit_launch(o, "/bin/hiertune");
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->step, "fit");
    EXPECT_EQ(describe(*fit),
              "MPIR_CVAR_NUM_CLIQUES=2 /opt/mpich/bin/mpiexec -n 2 /bin/hiertune fit --db /d/t.sqlite -C bcast,reduce "
              "-a seg_chain,seg_pipeline --smallest 4096 --largest 32768 --count 5 --gamma-segsizes 4096,8192,32768 "
              "--precision 2.5 --max-time 5 --machine box");
    o.fit_launcher = {"maint/emucluster", "run", "--ppn", "1", "--"};
    o.collectives = {"bcast"};
    EXPECT_EQ(describe(*fit_launch(o, "hiertune")),
              "maint/emucluster run --ppn 1 -- hiertune fit --db /d/t.sqlite -C bcast -a seg_chain,seg_pipeline "
              "--smallest 4096 --largest 32768 --count 5 --gamma-segsizes 4096,8192,32768 --precision 2.5 "
              "--max-time 5 --machine box");
}

// Shapes larger than the allocation: one rank per node, predicted from a fit of every
// modelled algorithm (MPICH's too, no -a) of the predicted collectives up to the largest size.
TEST(Tune, PredictedShapesFitEveryModelledAlgorithm) {
    TuneOptions o = options();
    o.predicted_shapes = {{8, 1}, {16, 1}};
    EXPECT_NO_THROW(check_tune_options(o));
    EXPECT_EQ(predicted_collectives(o), std::vector<std::string>{"bcast"});
    const std::optional<Launch> fit = fit_launch(o, "/bin/hiertune");
    ASSERT_TRUE(fit);
    EXPECT_EQ(describe(*fit),
              "MPIR_CVAR_NUM_CLIQUES=2 /opt/mpich/bin/mpiexec -n 2 /bin/hiertune fit --db /d/t.sqlite -C bcast "
              "--smallest 4096 --largest 65536 --count 5 --gamma-segsizes 4096,32768 --precision 2.5 --max-time 5 "
              "--machine box");
    EXPECT_THROW(parse_job_shape("8", "--predict-shapes"), UsageError);
    try {
        parse_job_shape("1x1", "--predict-shapes");
        ADD_FAILURE() << "1x1 taken";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--predict-shapes"), std::string::npos) << e.what();
    }
    for (const std::vector<JobShape>& bad : {std::vector<JobShape>{{8, 2}}, {{8, 1}, {8, 1}}}) {
        o.predicted_shapes = bad;
        EXPECT_THROW(check_tune_options(o), UsageError) << to_string(bad.back());  // ppn 2; twice
    }
    o.predicted_shapes = {{8, 1}};
    o.shapes = {{8, 1}};
    EXPECT_THROW(check_tune_options(o), UsageError);  // measured and predicted
    o.shapes.clear();
    o.collectives = {"allreduce"};  // no model predicts it
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.collectives = {"bcast"};
    o.nodes.reset();  // no way to fit: neither --fit-launcher nor cliques
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.fit_launcher = {"srun", "--ntasks-per-node=1"};
    EXPECT_NO_THROW(check_tune_options(o));
}

TEST(Tune, TasksLaunch) {
    const std::vector<Launch> launches = tasks_launches(options(), "/bin/hiertune");
    ASSERT_EQ(launches.size(), 1u);
    const Launch& l = launches[0];
    EXPECT_EQ(l.step, "tasks");
    EXPECT_EQ(l.argv, (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "tasks", "-C",
                                                "bcast", "-s", "1024,4096,32768", "--steady", "8", "--max-message", "65536",
                                                "-x", "3", "--min-reps",
                                                "10", "-i", "100", "--precision", "2.5", "--max-time", "5",
                                                "--config", "inter_algo=tsp_kary/sched_binomial", "--db",
                                                "/d/t.sqlite", "--machine", "box", "--account", "tasks"}));
    EXPECT_EQ(l.env, (std::vector<std::pair<std::string, std::string>>{{"MPIR_CVAR_NUM_CLIQUES", "2"}}));
    EXPECT_EQ(describe(l),
              "MPIR_CVAR_NUM_CLIQUES=2 /opt/mpich/bin/mpiexec -n 4 /bin/hiertune tasks -C bcast -s 1024,4096,32768 "
              "--steady 8 --max-message 65536 -x 3 --min-reps 10 -i 100 --precision 2.5 --max-time 5 --config "
              "inter_algo=tsp_kary/sched_binomial --db /d/t.sqlite --machine box --account tasks");
}

// Messages shorter than the smallest segment get task runs of their own length.
TEST(Tune, TaskSegsizesAddTheShortMessages) {
    TuneOptions o = options();
    EXPECT_EQ(task_segsizes(o), (std::vector<std::uint64_t>{1024, 4096, 32768}));
    o.sizes = {4096, 8192, 65536};  // 8K lies between two segment sizes: interpolated, not measured
    EXPECT_EQ(task_segsizes(o), (std::vector<std::uint64_t>{4096, 32768}));
    o.sizes = {512, 2048, 1 << 20};
    o.segsizes = {32768, 4096};
    EXPECT_EQ(task_segsizes(o), (std::vector<std::uint64_t>{512, 2048, 4096, 32768}));
}

TEST(Tune, PlannedTasksAreTheDoneTestOfStepA) {
    TuneOptions o = options();
    o.configs = "inter_algo=tsp_kary";
    const std::vector<TaskKey> keys = planned_tasks(o);
    // bcast's three tasks (ib sbib sb) at 1K, 4K and 32K
    ASSERT_EQ(keys.size(), 9u);
    std::set<std::uint64_t> segsizes;
    for (const TaskKey& key : keys) segsizes.insert(key.seg_bytes);
    EXPECT_EQ(segsizes, (std::set<std::uint64_t>{1024, 4096, 32768}));
    o.collectives = {"allgather"};
    o.configs = "";
    std::size_t gathers = 0;
    for (const TaskKey& key : planned_tasks(o)) gathers += key.task == "sg";
    EXPECT_EQ(gathers, o.sizes.size());  // sg at every message size
}

TEST(Tune, KnomialGetsItsOwnLaunch) {
    TuneOptions o = options();
    o.configs = "inter_algo=tsp_kary/tsp_knomial,inter_k=2";
    o.mpiexec_args = {"-f", "hosts"};
    o.nodes.reset();
    const std::vector<Launch> launches = tasks_launches(o, "hiertune");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_TRUE(launches[0].env.empty());
    EXPECT_TRUE(contains(launches[0].argv, {"--config", "inter_algo=tsp_kary,inter_k=2"}));
    EXPECT_TRUE(contains(launches[0].argv, {"/opt/mpich/bin/mpiexec", "-f", "hosts", "-n", "4"}));
    EXPECT_EQ(launches[1].env,
              (std::vector<std::pair<std::string, std::string>>{{"MPIR_CVAR_IBCAST_TREE_TYPE", "knomial_1"}}));
    EXPECT_TRUE(contains(launches[1].argv, {"--config", "inter_algo=tsp_knomial,inter_k=2"}));
    const std::vector<SweepJob> bench = sweep_jobs(o, "hiertune");
    ASSERT_EQ(bench.size(), 2u);
    EXPECT_EQ(bench[1].launch.env, launches[1].env);
}

TEST(Tune, BenchSpecAndLaunch) {
    EXPECT_EQ(bench_algorithm_spec("bcast", {}, {4096}), "hier:bcast_hier_segsize=4096");
    EXPECT_EQ(bench_algorithm_spec("allreduce",
                                   {{"inter_algo", "tsp_kary"}, {"inter_k", "4"}, {"inter_chunk", "1024"},
                                    {"intra_algo", "shm"}},
                                   {4096, 65536}),
              "hier:allreduce_hier_segsize=4096/65536,allreduce_hier_inter_algorithm=tsp_kary,"
              "allreduce_hier_inter_chunk_size=1024,allreduce_hier_inter_kval=4,allreduce_hier_intra_algorithm=shm");
    EXPECT_THROW(bench_algorithm_spec("bcast", {{"window", "2"}}, {4096}), UsageError);

    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    const std::vector<SweepJob> jobs = sweep_jobs(o, "/bin/hiertune");
    ASSERT_EQ(jobs.size(), 2u);  // one per collective
    EXPECT_EQ(jobs[0].collective, "bcast");
    EXPECT_EQ(jobs[0].launch.argv,
              (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "bench", "-C", "bcast",
                                        "-a", "hier:bcast_hier_segsize=4096/32768,bcast_hier_inter_algorithm=tsp_kary",
                                        "-a",
                                        "hier:bcast_hier_segsize=4096/32768,bcast_hier_inter_algorithm=sched_binomial",
                                        "--sizes", "1024,65536", "-x", "10", "--min-reps", "10", "-i", "1000",
                                        "--precision", "2.5", "--max-time", "5", "--no-progress", "--db",
                                        "/d/t.sqlite", "--machine", "box", "--account", "bench", "--same-runs-once"}));
    EXPECT_TRUE(contains(jobs[1].launch.argv, {"-C", "allreduce"}));
}

TEST(Tune, BcastSkipsTheAllreduceRing) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    o.configs = "inter_algo=tsp_kary/tsp_allreduce_ring";
    // one tasks job: the ring needs no launch variable (the job skips it for bcast)
    const std::vector<Launch> tasks = tasks_launches(o, "/bin/hiertune");
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_TRUE(contains(tasks[0].argv, {"--config", "inter_algo=tsp_kary/tsp_allreduce_ring"}));
    EXPECT_EQ(tasks[0].env, (std::vector<std::pair<std::string, std::string>>{{"MPIR_CVAR_NUM_CLIQUES", "2"}}));
    // the sweep: bcast without the ring, allreduce with it
    const std::vector<SweepJob> bench = sweep_jobs(o, "/bin/hiertune");
    ASSERT_EQ(bench.size(), 2u);
    EXPECT_EQ(std::count(bench[0].launch.argv.begin(), bench[0].launch.argv.end(), "-a"), 1);
    EXPECT_TRUE(contains(bench[0].launch.argv,
                         {"-a", "hier:bcast_hier_segsize=4096/32768,bcast_hier_inter_algorithm=tsp_kary", "--sizes"}));
    EXPECT_TRUE(contains(
        bench[1].launch.argv,
        {"-a", "hier:allreduce_hier_segsize=4096/32768,allreduce_hier_inter_algorithm=tsp_kary", "-a",
         "hier:allreduce_hier_segsize=4096/32768,allreduce_hier_inter_algorithm=tsp_allreduce_ring", "--sizes"}));
    // how tune --budget names a sweep job it leaves out: not the emulated nodes' variable
    EXPECT_EQ(bench[1].collective, "allreduce");
    EXPECT_EQ(bench[1].configurations, 2u);
    EXPECT_EQ(sweep_job_name(bench[0]), "bcast, 1 configuration");
    EXPECT_EQ(sweep_job_name(bench[1]), "allreduce, 2 configurations");
    SweepJob grouped = bench[1];
    grouped.launch.env.push_back({"MPIR_CVAR_X", "y"});
    EXPECT_EQ(sweep_job_name(grouped), "allreduce, 2 configurations, MPIR_CVAR_X=y");
}

TEST(Tune, AllowCliquesReachesTheMeasuringJobs) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    o.allow_cliques = true;
    std::vector<Launch> launches = tasks_launches(o, "/bin/hiertune");
    for (const SweepJob& job : sweep_jobs(o, "/bin/hiertune")) launches.push_back(job.launch);
    launches.push_back(stock_launches(o, "/bin/hiertune").at(0));
    ASSERT_EQ(launches.size(), 4u);
    for (const Launch& l : launches) {
        EXPECT_EQ(std::count(l.argv.begin(), l.argv.end(), "--allow-cliques"), 1) << describe(l);
    }
    EXPECT_TRUE(contains(launches.back().argv, {"--account", "stock", "--allow-cliques"}));
    // verify is a correctness run: it never needs the flag
    const Launch verify = verify_launch(o, "/bin/hiertune", "/d/tree.json", {{"bcast", 8, false, 0}});
    EXPECT_EQ(std::count(verify.argv.begin(), verify.argv.end(), "--allow-cliques"), 0);
}

TEST(Tune, CliquesAreRefusedWithoutTheFlag) {
    TuneOptions o = options();  // --nodes 2
    const std::optional<std::string> why = tune_cliques_refusal(o, nullptr);
    ASSERT_TRUE(why);
    EXPECT_EQ(why->rfind("--nodes 2: emulated nodes share one host's cores", 0), 0u) << *why;
    o.nodes.reset();
    EXPECT_FALSE(tune_cliques_refusal(o, nullptr));
    EXPECT_FALSE(tune_cliques_refusal(o, "1"));
    ASSERT_TRUE(tune_cliques_refusal(o, "4"));
    EXPECT_EQ(tune_cliques_refusal(o, "4")->rfind("MPIR_CVAR_NUM_CLIQUES=4: ", 0), 0u);
    o.allow_cliques = true;
    EXPECT_FALSE(tune_cliques_refusal(o, "4"));
    o.nodes = 2;
    EXPECT_FALSE(tune_cliques_refusal(o, nullptr));
}

TEST(Tune, LauncherWordsSplitLikeAShell) {
    using Words = std::vector<std::string>;
    EXPECT_EQ(launcher_words("maint/emucluster run --ppn 2 --"),
              (Words{"maint/emucluster", "run", "--ppn", "2", "--"}));
    EXPECT_EQ(launcher_words("  mpiexec\t-f hostfile\n-n 16 "), (Words{"mpiexec", "-f", "hostfile", "-n", "16"}));
    EXPECT_EQ(launcher_words("srun -N 4 --ntasks-per-node=4"), (Words{"srun", "-N", "4", "--ntasks-per-node=4"}));
    // quotes group and concatenate; '' is an empty word; nothing is expanded
    EXPECT_EQ(launcher_words("env 'A=b c' \"x\\\"y\" a\\ b '' \"$HOME\"'*'"),
              (Words{"env", "A=b c", "x\"y", "a b", "", "$HOME*"}));
    // in double quotes a backslash escapes only \" \\ $ ` and newline
    EXPECT_EQ(launcher_words("echo \"a\\n\\$b\\\\\""), (Words{"echo", "a\\n$b\\"}));
    EXPECT_EQ(launcher_words("echo 'a\\\"b'"), (Words{"echo", "a\\\"b"}));  // literal in single quotes
    EXPECT_EQ(launcher_words("mpiexec \\\n-n 2"), (Words{"mpiexec", "-n", "2"}));  // line continuation
    for (const char* bad : {"", "   ", "''", "mpiexec 'a", "mpiexec \"a", "mpiexec a\\"})
        EXPECT_THROW(launcher_words(bad), UsageError) << bad;
}

TEST(Tune, LauncherReplacesMpiexecAndRanks) {
    TuneOptions o = options();
    o.nodes.reset();
    o.mpiexec.clear();
    o.launcher = {"maint/emucluster", "run", "--ppn", "2", "--"};
    EXPECT_NO_THROW(check_tune_options(o));
    const std::vector<Launch> tasks = tasks_launches(o, "/bin/hiertune");
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_EQ(tasks[0].argv, (std::vector<std::string>{"maint/emucluster", "run", "--ppn", "2", "--",
                                                       "/bin/hiertune", "tasks", "-C", "bcast", "-s", "1024,4096,32768",
                                                       "--steady", "8", "--max-message", "65536", "-x", "3",
                                                       "--min-reps", "10", "-i", "100", "--precision", "2.5",
                                                       "--max-time", "5", "--config",
                                                       "inter_algo=tsp_kary/sched_binomial", "--db", "/d/t.sqlite",
                                                       "--machine", "box", "--account", "tasks"}));
    EXPECT_TRUE(tasks[0].env.empty());  // no MPIR_CVAR_NUM_CLIQUES: the launch places the ranks
    for (const Launch& l : {sweep_jobs(o, "/bin/hiertune").at(0).launch, stock_launches(o, "/bin/hiertune").at(0),
                            verify_launch(o, "/bin/hiertune", "/d/tree.json", {{"bcast", 8, false, 0}})}) {
        EXPECT_TRUE(contains(l.argv, {"maint/emucluster", "run", "--ppn", "2", "--", "/bin/hiertune"})) << describe(l);
        EXPECT_EQ(std::count(l.argv.begin(), l.argv.end(), "-n"), 0) << describe(l);
    }
    EXPECT_EQ(describe(stock_launches(o, "h").at(0)).rfind("maint/emucluster run --ppn 2 -- h bench -C bcast -a stock", 0),
              0u);

    // the launcher's words replace --nodes, --mpiexec and --mpiexec-arg
    TuneOptions bad = o;
    bad.nodes = 2;
    EXPECT_THROW(check_tune_options(bad), UsageError);
    bad = o;
    bad.mpiexec = "/opt/mpich/bin/mpiexec";
    EXPECT_THROW(check_tune_options(bad), UsageError);
    bad = o;
    bad.mpiexec_args = {"-f", "hosts"};
    EXPECT_THROW(check_tune_options(bad), UsageError);
}

TEST(Tune, CalibrateLaunch) {
    TuneOptions o = options();
    Launch l = calibrate_launch(o, "/bin/hiertune");
    EXPECT_EQ(l.step, "calibrate");
    EXPECT_EQ(l.argv, (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "calibrate",
                                                "--db", "/d/t.sqlite", "--if-missing", "--json", "--precision", "2.5",
                                                "--max-time", "5", "--tolerance", "15", "--machine", "box"}));
    EXPECT_EQ(l.env, (std::vector<std::pair<std::string, std::string>>{{"MPIR_CVAR_NUM_CLIQUES", "2"}}));
    // no machine yet: the job names itself (HIERTUNE_MACHINE of the launch or rank 0's processor name)
    o.machine.clear();
    o.allow_cliques = true;
    o.bench_precision_percent = 1;
    o.bench_max_time = 0.5;
    o.rate_tolerance_percent = 25;
    o.nodes.reset();
    o.mpiexec.clear();
    o.launcher = {"srun", "-N", "2"};
    l = calibrate_launch(o, "h");
    EXPECT_EQ(describe(l),
              "srun -N 2 h calibrate --db /d/t.sqlite --if-missing --json --precision 1 --max-time 0.5 --tolerance 25 "
              "--allow-cliques");
    EXPECT_TRUE(l.env.empty());
    o.rate_tolerance_percent = -1;
    EXPECT_THROW(check_tune_options(o), UsageError);
}

TEST(Tune, VerifyCases) {
    const VerifyCase hier{"bcast", 65536, true, 16};
    const VerifyCase any{"allreduce", 8, false, 0};
    EXPECT_EQ(to_string(hier), "bcast:65536:hier/16");
    EXPECT_EQ(to_string(any), "allreduce:8:any");
    EXPECT_EQ(parse_verify_case("bcast:65536:hier/16"), hier);
    EXPECT_EQ(parse_verify_case("allreduce:8:any"), any);
    const VerifyCase whole{"allreduce", 4096, false, 0, true};
    EXPECT_EQ(to_string(whole), "allreduce:4096:whole_comm");
    EXPECT_EQ(parse_verify_case("allreduce:4096:whole_comm"), whole);
    EXPECT_FALSE(parse_verify_case("allreduce:4096:whole_comm") == any);
    for (const char* bad : {"", "bcast", "bcast:8", "alltoallw:8:any", "bcast:0:any", "bcast:x:any", "bcast:8:hier",
                            "bcast:8:hier/-1", "bcast:8:hier/x", "bcast:8:stock", "bcast:-8:any", "bcast:8:whole_comm/1",
                            "gather:8:hier/1", "barrier:8:any", "barrier:0:hier/2"})
        EXPECT_THROW(parse_verify_case(bad), UsageError) << bad;
    // the measured collectives: hier counts no segments; barrier has no size
    EXPECT_EQ(parse_verify_case("gather:8:hier/0"), (VerifyCase{"gather", 8, true, 0}));
    EXPECT_EQ(parse_verify_case("barrier:0:hier/0"), (VerifyCase{"barrier", 0, true, 0}));
    EXPECT_EQ(parse_verify_case("scatter:8:whole_comm"), (VerifyCase{"scatter", 8, false, 0, true}));
    // a pick by measurement (a further shape's bcast): hier runs, its segments unchecked
    EXPECT_EQ(parse_verify_case("bcast:8:hier/0"), (VerifyCase{"bcast", 8, true, 0}));

    const Launch launch = verify_launch(options(), "/bin/hiertune", "/d/tree.json", {hier, any});
    EXPECT_EQ(launch.argv, (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "verify",
                                                     "--case", "bcast:65536:hier/16", "--case", "allreduce:8:any"}));
    EXPECT_EQ(launch.env, (std::vector<std::pair<std::string, std::string>>{
                              {"MPIR_CVAR_NUM_CLIQUES", "2"},
                              {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "/d/tree.json"},
                              {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", ""}}));
    EXPECT_THROW(verify_launch(options(), "/bin/hiertune", "tree.json", {hier}), UsageError);
}

// A CH4 tree beside the tree goes into the jobs with it; the plugin then routes nothing,
// so a whole_comm case is checked as any (the tree timing's no-tree job names neither)
TEST(Tune, TheCh4TreeBesideTheTree) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hiertune-ch4-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string tree = (dir / "tree.json").string();
    std::ofstream(tree + ".ch4") << "{}";
    const VerifyCase hier{"bcast", 65536, true, 16}, whole{"allreduce", 4096, false, 0, true};
    const Launch launch = verify_launch(options(), "/bin/hiertune", tree, {hier, whole});
    EXPECT_EQ(launch.env.back(), (std::pair<std::string, std::string>{"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE",
                                                                       tree + ".ch4"}));
    EXPECT_TRUE(contains(launch.argv, {"--case", "bcast:65536:hier/16", "--case", "allreduce:4096:any"}));
    TuneOptions o = options();
    EXPECT_EQ(tree_timing_launch(o, "h", tree, true, timed_groups(o).at(0)).env.back().second, tree + ".ch4");
    EXPECT_EQ(tree_timing_launch(o, "h", tree, false, timed_groups(o).at(0)).env.back().second, "");
    std::filesystem::remove_all(dir);
    EXPECT_TRUE(contains(verify_launch(options(), "/bin/hiertune", tree, {whole}).argv,
                         {"--case", "allreduce:4096:whole_comm"}));
    // CH4 hands gather and scatter to the MPIR level whole: no route to count
    const VerifyCase gather{"gather", 2048, false, 0, true};
    EXPECT_TRUE(contains(verify_launch(options(), "/bin/hiertune", tree, {gather}).argv,
                         {"--case", "gather:2048:any"}));
}

TEST(Tune, FindsItsJob) {
    const auto job = [](JobId id, const std::string& machine, int ranks, int nodes) {
        return Job{id, JobDescription{machine, ranks, nodes, (ranks + nodes - 1) / nodes, "block", "b"}, ""};
    };
    const std::vector<Job> jobs{job(1, "box", 4, 2), job(2, "other", 4, 2), job(3, "box", 8, 2),
                                job(4, "box", 4, 4), job(5, "box", 4, 2)};
    TuneOptions o = options();
    ASSERT_TRUE(find_tune_job(jobs, o));
    EXPECT_EQ(find_tune_job(jobs, o)->id, 5);  // the newest of 1 and 5
    o.nodes = 4;
    EXPECT_EQ(find_tune_job(jobs, o)->id, 4);
    o.nodes.reset();
    EXPECT_EQ(find_tune_job(jobs, o)->id, 5);
    o.ranks = 16;
    EXPECT_FALSE(find_tune_job(jobs, o));
}

TEST(Tune, ConfigLabel) {
    EXPECT_EQ(config_label({{"segsize", "4096"}, {"inter_algo", "tsp_kary"}, {"inter_k", "2"}}),
              "segsize=4096 inter_algo=tsp_kary inter_k=2");
    EXPECT_EQ(config_label({{"segsize", "4096"}}), "segsize=4096");
    EXPECT_EQ(config_label({}), kDefaultsLabel);  // a non-blocking form's schedule
}

// Stored data by hand: bcast tasks of two configurations x two segment sizes
// (max over leaders), the measured sweep of the same space.
StoredTask task(const std::string& name, const std::string& algo, std::uint64_t seg, double seconds,
                const std::string& collective = "bcast") {
    Summary s;
    s.n = 5;
    s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = seconds;
    return StoredTask{TaskKey{collective, name, {{"inter_algo", algo}}, seg}, {TaskTiming{kMaxOverLeaders, s}}, ""};
}

StoredPoint point(std::uint64_t bytes, const std::string& algo, std::uint64_t seg, double seconds) {
    Summary s;
    s.n = 5;
    s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = seconds;
    Params params{{"MPIR_CVAR_BCAST_HIER_SEGSIZE", std::to_string(seg)}};
    if (!algo.empty()) params["MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM"] = algo;
    return StoredPoint{PointKey{"bcast", bytes, algo.empty() ? "default" : "hier", algo.empty() ? Params{} : params},
                       s, ""};
}

std::vector<StoredTask> stored_tasks() {
    // kary: ib 10, sbib 4, sb 1 (us) at 4K; 20/6/2 at 32K.  binomial: twice kary.
    std::vector<StoredTask> tasks;
    for (const auto& [algo, factor] : {std::pair<std::string, double>{"tsp_kary", 1}, {"sched_binomial", 2}}) {
        tasks.push_back(task("ib", algo, 4096, 10e-6 * factor));
        tasks.push_back(task("sbib", algo, 4096, 4e-6 * factor));
        tasks.push_back(task("sb", algo, 4096, 1e-6 * factor));
        tasks.push_back(task("ib", algo, 32768, 20e-6 * factor));
        tasks.push_back(task("sbib", algo, 32768, 6e-6 * factor));
        tasks.push_back(task("sb", algo, 32768, 2e-6 * factor));
    }
    tasks.push_back(task("ib", "tsp_ring", 4096, 1e-9));  // outside the search space: ignored
    tasks.push_back(task("sbib", "tsp_ring", 4096, 1e-9));
    tasks.push_back(task("sb", "tsp_ring", 4096, 1e-9));
    return tasks;
}

TEST(Tune, CasesFromStoredData) {
    // 1024 B: one segment everywhere; collapse keeps 4K per config: kary 10+1 = 11 us.
    // 65536 B: kary 4K: 16 segs: 10 + 15*4 + 1 = 71; kary 32K: 2 segs: 20 + 6 + 2 = 28 -> kary 32K.
    const std::vector<StoredPoint> points{
        point(1024, "tsp_kary", 4096, 12e-6),        point(1024, "tsp_kary", 32768, 13e-6),
        point(1024, "sched_binomial", 4096, 11e-6),  point(1024, "sched_binomial", 32768, 14e-6),
        point(65536, "tsp_kary", 4096, 80e-6),       point(65536, "tsp_kary", 32768, 30e-6),
        point(65536, "sched_binomial", 4096, 90e-6), point(65536, "sched_binomial", 32768, 60e-6)};
    const TunePlan result = plan_tune(options(), stored_tasks(), points, job_on_nodes(2));
    EXPECT_TRUE(result.unpredicted.empty());
    ASSERT_EQ(result.cases.size(), 2u);
    const SizeCase& small = result.cases[0];
    EXPECT_EQ(small.msg_bytes, 1024u);
    EXPECT_EQ(small.pick, "segsize=4096 inter_algo=tsp_kary");
    ASSERT_EQ(small.configs.size(), 4u);  // no stock point measured
    EXPECT_EQ(small.configs[0].config, "segsize=4096 inter_algo=tsp_kary");
    EXPECT_DOUBLE_EQ(*small.configs[0].predicted, 11e-6);
    EXPECT_DOUBLE_EQ(*small.configs[0].measured, 12e-6);
    // kary at 32K sends one 1 KiB segment, shorter than every measured one: 4K's costs, not 32K's
    EXPECT_DOUBLE_EQ(*small.configs[1].predicted, 11e-6);
    const SizeCase& large = result.cases[1];
    EXPECT_EQ(large.pick, "segsize=32768 inter_algo=tsp_kary");
    EXPECT_DOUBLE_EQ(*large.configs[0].predicted, 71e-6);
    EXPECT_EQ(result.verify, (std::vector<VerifyCase>{{"bcast", 1024, true, 1}, {"bcast", 65536, true, 2}}));

    const ValidationReport report = validate(result.cases, 1.0, 4.0);
    EXPECT_DOUBLE_EQ(report.verdicts[0].slowdown, 12.0 / 11.0);  // binomial 4K measured best
    EXPECT_EQ(report.verdicts[0].best, "segsize=4096 inter_algo=sched_binomial");
    EXPECT_DOUBLE_EQ(report.verdicts[1].slowdown, 1.0);
}

// A 1 KiB run of kary (u = 1: ib 3, sb 1 us) makes the 1 KiB message cheap in every segment size;
// 2 KiB lies between 1K and 4K: a third of the way from 4 to 11 us.
TEST(Tune, ShortMessagesArePredictedAtTheirLength) {
    std::vector<StoredTask> tasks = stored_tasks();
    for (const auto& [name, us] : {std::pair<std::string, double>{"ib", 3}, {"sbib", 2}, {"sb", 1}})
        tasks.push_back(task(name, "tsp_kary", 1024, us * 1e-6));
    TuneOptions o = options();
    o.sizes = {1024, 2048};
    const TunePlan result = plan_tune(o, tasks, {}, job_on_nodes(2));
    ASSERT_EQ(result.cases.size(), 2u);
    for (const ConfigTime& config : result.cases[0].configs)
        if (config.config.find("tsp_kary") != std::string::npos) {
            EXPECT_DOUBLE_EQ(*config.predicted, 4e-6);
        }
    EXPECT_EQ(result.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");  // the 1K run is not in the space
    EXPECT_DOUBLE_EQ(*result.cases[1].configs[0].predicted, 4e-6 + (11e-6 - 4e-6) / 3);
    EXPECT_EQ(result.verify[1], (VerifyCase{"bcast", 2048, true, 1}));
}

TEST(Tune, CasesSkipTheRingForBcastAndModelItsIaForAllreduce) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    o.configs = "inter_algo=tsp_kary/sched_binomial/tsp_allreduce_ring";
    o.segsizes = {4096};
    std::vector<StoredTask> tasks = stored_tasks();
    // allreduce ia at 4K (us): sr 1, ia 2, iasr 3, sbiasr 4, sbia 5, sb 6
    const std::vector<std::pair<std::string, double>> ia{{"sr", 1}, {"ia", 2},    {"iasr", 3},
                                                         {"sbiasr", 4}, {"sbia", 5}, {"sb", 6}};
    for (const auto& [name, us] : ia) tasks.push_back(task(name, "tsp_allreduce_ring", 4096, us * 1e-6, "allreduce"));
    const TunePlan result = plan_tune(o, tasks, {}, job_on_nodes(2));
    EXPECT_EQ(result.skipped, std::vector<std::string>{"bcast: inter_algo=tsp_allreduce_ring skipped "
                                                       "(tsp_allreduce_ring is allreduce only)"});
    // no allreduce tasks for kary and binomial: those stay unpredicted, the sizes are not
    EXPECT_TRUE(result.unpredicted.empty());
    ASSERT_EQ(result.cases.size(), 4u);
    for (const SizeCase& c : result.cases) {
        const std::size_t configs = c.collective == "bcast" ? 2 : 3;  // bcast: kary and binomial only
        EXPECT_EQ(c.configs.size(), configs) << c.collective << " " << c.msg_bytes;
    }
    const SizeCase& small = result.cases[2];
    EXPECT_EQ(small.collective, "allreduce");
    EXPECT_EQ(small.pick, "segsize=4096 inter_algo=tsp_allreduce_ring");
    EXPECT_DOUBLE_EQ(*small.configs[2].predicted, 9e-6);  // u = 1: sr 1 + ia 2 + sb 6
    EXPECT_FALSE(small.configs[0].predicted);             // kary: no allreduce tasks stored
    // 65536 B, u = 16: sr 1 + iasr 3 + 14 sbiasr 4 + sbia 5 + sb 6 = 71
    EXPECT_DOUBLE_EQ(*result.cases[3].configs[2].predicted, 71e-6);
    EXPECT_EQ(result.verify[3], (VerifyCase{"allreduce", 65536, true, 16}));
}

TEST(Tune, StockPointWinsWhereMeasuredFaster) {
    std::vector<StoredPoint> points{point(1024, "", 0, 5e-6)};  // default: 5 us < 11 us predicted
    const TunePlan result = plan_tune(options(), stored_tasks(), points, job_on_nodes(2));
    ASSERT_EQ(result.cases.size(), 2u);
    EXPECT_EQ(result.cases[0].pick, kStockLabel);
    EXPECT_EQ(result.cases[0].configs.back().config, kStockLabel);
    EXPECT_EQ(result.verify[0], (VerifyCase{"bcast", 1024, false, 0}));
    EXPECT_EQ(result.cases[1].pick, "segsize=32768 inter_algo=tsp_kary");  // no stock point there
    // the sweep is missing: a clear error, not a report
    EXPECT_THROW(validate(result.cases, std::nullopt, std::nullopt), ValidationError);
}

StoredPoint with_noise(StoredPoint point, double relative) {
    point.summary.ci_lo = point.summary.median * (1 - relative);
    point.summary.ci_hi = point.summary.median * (1 + relative);
    point.summary.min = std::min(point.summary.min, point.summary.ci_lo);
    point.summary.max = std::max(point.summary.max, point.summary.ci_hi);
    return point;
}

// Where the model's prediction lies within kCloseCallFactor of MPICH's measured best, the
// model does not decide: its candidates' measured times do (beyond their noise), and
// until they are measured the case is a close call for step 2b to time.
TEST(Tune, CloseCallsAreSettledByTheCandidatesTime) {
    const auto plan = [](std::vector<StoredPoint> points) { return plan_tune(options(), stored_tasks(), points, job_on_nodes(2)); };
    // predicted 11 us (kary; 4096 and 32768 cut 1 KiB alike: one run, timed under 4096)
    // against MPICH's 15 us: a close call, not yet timed
    TunePlan result = plan({point(1024, "", 0, 15e-6)});
    EXPECT_EQ(result.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");  // the model's pick until timed
    ASSERT_EQ(result.close_calls.size(), 1u);
    const CloseCall& call = result.close_calls[0];
    EXPECT_EQ(call.collective, "bcast");
    EXPECT_EQ(call.msg_bytes, 1024u);
    // tied at 11 us, 32768 cuts 1 KiB as 4096 does: one run, listed once
    ASSERT_EQ(call.candidates.size(), 1u);
    EXPECT_EQ(call.candidates[0].config, (Params{{"inter_algo", "tsp_kary"}}));
    EXPECT_EQ(call.candidates[0].segsize, 4096u);
    EXPECT_EQ(call.candidates[0].timed_segsize, 4096u);
    EXPECT_DOUBLE_EQ(call.candidates[0].predicted_s, 11e-6);
    EXPECT_DOUBLE_EQ(call.stock_s, 15e-6);
    EXPECT_EQ(call.stock, kStockLabel);
    EXPECT_FALSE(call.candidates[0].measured_s);
    EXPECT_EQ(call.chosen, "");
    EXPECT_EQ(untimed_close_calls(result).at(0).candidates,
              (std::vector<Params>{{{"inter_algo", "tsp_kary"}, {"segsize", "4096"}}}));
    // timed slower than MPICH beyond the noise: MPICH's choice
    result = plan({point(1024, "", 0, 15e-6), point(1024, "tsp_kary", 4096, 20e-6)});
    EXPECT_EQ(result.cases[0].pick, kStockLabel);
    EXPECT_EQ(result.close_calls.at(0).chosen, kStockLabel);
    EXPECT_EQ(result.verify[0], (VerifyCase{"bcast", 1024, false, 0}));
    EXPECT_EQ(result.close_calls.at(0).candidates.at(0).measured_s, std::optional<double>(20e-6));
    EXPECT_TRUE(untimed_close_calls(result).empty());
    // predicted slower (11 against 8 us), timed faster: the candidate
    result = plan({point(1024, "", 0, 8e-6), point(1024, "tsp_kary", 4096, 6e-6)});
    EXPECT_EQ(result.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");
    EXPECT_EQ(result.verify[0], (VerifyCase{"bcast", 1024, true, 1}));
    EXPECT_EQ(coverage(result, {}).front().source, PickSource::measured);  // the time chose it
    EXPECT_EQ(coverage(plan({point(1024, "", 0, 15e-6)}), {}).front().source, PickSource::model);
    // within the two medians' noise (10 % each): the model's side
    result = plan({with_noise(point(1024, "", 0, 8e-6), 0.1), with_noise(point(1024, "tsp_kary", 4096, 7.5e-6), 0.1)});
    EXPECT_EQ(result.cases[0].pick, kStockLabel);  // the model predicted MPICH faster
    result = plan({with_noise(point(1024, "", 0, 12e-6), 0.1), with_noise(point(1024, "tsp_kary", 4096, 13e-6), 0.1)});
    EXPECT_EQ(result.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");  // the model predicted hier faster
    // beyond the factor, and no tie, the model decides alone: no close call
    EXPECT_TRUE(plan({point(1024, "", 0, 5e-6)}).close_calls.empty());
    EXPECT_TRUE(plan({point(65536, "", 0, 60e-6)}).close_calls.size() == 1);  // 1 KiB: no stock, ties
}

// Step 2b times the untimed close calls' candidates, one job per collective and launch
// group, and the report says what each was predicted, timed and weighed against.
TEST(Tune, CloseCallsAreTimedInJobsOfTheirOwnAndReported) {
    const auto candidate = [](const std::string& inter, std::uint64_t segsize, double predicted,
                              std::optional<double> measured) {
        return CloseCallCandidate{{{"inter_algo", inter}}, segsize, segsize, predicted, measured};
    };
    TunePlan plan;
    plan.close_calls = {
        {"bcast", 65536, {candidate("tsp_kary", 4096, 20e-6, std::nullopt)}, kStockLabel, 30e-6, ""},
        {"bcast", 1024, {candidate("tsp_kary", 4096, 11e-6, 20e-6)}, kStockLabel, 15e-6, kStockLabel},
        {"bcast", 8192, {candidate("sched_binomial", 32768, 9e-6, std::nullopt), candidate("tsp_kary", 4096, 9.5e-6, 9e-6)},
         "MPIR_Bcast_intra_binomial", 10e-6, ""},
        {"bcast", 2048, {candidate("sched_binomial", 32768, 9e-6, std::nullopt)}, "", 0, ""}};
    const std::vector<CloseCallTiming> timings = untimed_close_calls(plan);
    ASSERT_EQ(timings.size(), 1u);
    EXPECT_EQ(timings[0].collective, "bcast");
    EXPECT_EQ(timings[0].sizes, (std::vector<std::uint64_t>{2048, 8192, 65536}));
    EXPECT_EQ(timings[0].candidates,
              (std::vector<Params>{{{"inter_algo", "tsp_kary"}, {"segsize", "4096"}},
                                   {{"inter_algo", "sched_binomial"}, {"segsize", "32768"}}}));
    const std::vector<Launch> launches = candidate_launches(options(), "/bin/hiertune", "bcast", timings[0].candidates,
                                                            timings[0].sizes);
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_TRUE(contains(launches[0].argv, {"bench", "-C", "bcast", "-a",
                                            "hier:bcast_hier_segsize=4096,bcast_hier_inter_algorithm=tsp_kary", "-a",
                                            "hier:bcast_hier_segsize=32768,bcast_hier_inter_algorithm=sched_binomial",
                                            "--sizes", "2048,8192,65536"}));
    EXPECT_TRUE(contains(launches[0].argv, {"--account", "close"}));
    const std::vector<std::string> lines = close_call_lines(plan);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_NE(lines[0].find("within 2x"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("within 1.1x of its best"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[2], "  bcast 1024 B: MPICH's best 15.0 us (stock); segsize=4096 inter_algo=tsp_kary predicted "
                        "11.0 us, timed 20.0 us: stock");
    EXPECT_NE(lines[1].find("not timed: not settled, the model's pick stands"), std::string::npos) << lines[1];
    EXPECT_NE(lines[3].find("(MPIR_Bcast_intra_binomial); segsize=32768 inter_algo=sched_binomial predicted 9.0 us, "
                            "not timed; segsize=4096 inter_algo=tsp_kary predicted 9.5 us, timed 9.0 us"),
              std::string::npos)
        << lines[3];
    EXPECT_EQ(lines[4].rfind("  bcast 2048 B: no MPICH point; ", 0), 0u) << lines[4];
    EXPECT_TRUE(close_call_lines(TunePlan{}).empty());
}

// Allgather's candidates are its share of the space's configurations (inter_algo=ring):
// timed although no configuration of the space names them, and once although two launch
// groups (kary, knomial) share them; so is its sweep.
TEST(Tune, AllgatherCandidatesAreItsShareTimedOnce) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allgather"};
    o.configs = "inter_algo=tsp_kary/tsp_knomial,intra_algo=binomial";
    ASSERT_EQ(launch_groups(o).size(), 2u);
    const std::vector<Params> candidates{{{"inter_algo", "ring"}, {"intra_algo", "binomial"}, {"segsize", "4096"}}};
    const std::vector<Launch> launches = candidate_launches(o, "h", "allgather", candidates, {16384});
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_TRUE(contains(launches[0].argv,
                         {"-C", "allgather", "-a",
                          "hier:allgather_hier_segsize=4096,allgather_hier_inter_algorithm=ring,"
                          "allgather_hier_intra_algorithm=binomial",
                          "--sizes", "16384"}));
    std::size_t allgather_jobs = 0;
    for (const SweepJob& job : sweep_jobs(o, "h")) allgather_jobs += job.collective == "allgather";
    EXPECT_EQ(allgather_jobs, 1u);
}

// Hier candidates the model predicts within kTieFactor of its best are timed together.
TEST(Generate, TiedCandidatesAreTheBestsNeighbours) {
    han::Candidate best{{{"inter_algo", "tsp_kary"}}, 4096, {}}, other{{{"inter_algo", "tsp_ring"}}, 4096, {}};
    const ModelPick none{csel::Choice::stock_tree(), std::nullopt};
    const std::vector<han::Candidate> two{best, other};
    EXPECT_TRUE(tied_candidates(han::predict_all(han::Collective::bcast, two, 2, 1024), none).empty());
    const std::vector<han::Candidate> tasks = candidates_from_tasks(stored_tasks(), "bcast");
    ASSERT_FALSE(tasks.empty());
    const han::Predictions predicted = han::predict_all(han::Collective::bcast, tasks, 2, 65536);
    const auto prediction = han::best_candidate(predicted);
    ASSERT_TRUE(prediction);
    EXPECT_EQ(prediction->time, han::best_candidate(han::Collective::bcast, tasks, 2, 65536)->time);
    const std::vector<han::Prediction> tied = tied_candidates(predicted, ModelPick{csel::Choice::stock_tree(), prediction});
    ASSERT_FALSE(tied.empty());
    EXPECT_EQ(tied[0].candidate, prediction->candidate);  // the best first
    for (const han::Prediction& p : tied) EXPECT_LE(p.time, prediction->time * kTieFactor);
    EXPECT_EQ(tied.size(), 1u);  // 28 us (kary, 32K) against 71 (kary, 4K) and more: no tie
}

TEST(Generate, CloseCallsLieWithinTheFactorEitherWay) {
    han::Candidate candidate{{{"inter_algo", "tsp_kary"}}, 4096, {}};
    const ModelPick pick{csel::Choice::stock_tree(), han::Prediction{&candidate, 10}};
    const auto stock = [](double us, double noise = 0) {
        return std::optional<StockPoint>(StockPoint{csel::Choice::stock_tree(), kStockLabel, us, noise});
    };
    EXPECT_TRUE(close_call(pick, stock(10 * kCloseCallFactor)));
    EXPECT_TRUE(close_call(pick, stock(10 / kCloseCallFactor)));
    EXPECT_FALSE(close_call(pick, stock(10 * kCloseCallFactor * 1.01)));
    EXPECT_FALSE(close_call(pick, stock(10 / kCloseCallFactor / 1.01)));
    EXPECT_FALSE(close_call(pick, std::nullopt));  // nothing measured to weigh against
    EXPECT_FALSE(close_call(ModelPick{csel::Choice::stock_tree(), std::nullopt}, stock(10)));
    EXPECT_FALSE(close_call(pick, stock(0)));
    const auto timed = [](double median, double noise, const std::string& segsize = "4096") {
        Summary s;
        s.n = 5;
        s.median = s.mean = median;
        s.ci_lo = s.min = median * (1 - noise);
        s.ci_hi = s.max = median * (1 + noise);
        return std::pair<Params, Summary>{{{"inter_algo", "tsp_kary"}, {"segsize", segsize}}, s};
    };
    const ModelPick hier_pick{csel::Choice::container("MPIR_Bcast_intra_hier", {}), pick.prediction};
    // the fastest timed beyond the noise, MPICH beyond it, else the model's side
    ModelPick settled = settle_close_call(pick, "bcast", stock(12), {timed(11, 0, "4096"), timed(10, 0, "32768")});
    EXPECT_EQ(settled.choice.algorithm, "MPIR_Bcast_intra_hier");
    EXPECT_EQ(settled.choice.params.at("segsize"), "32768");
    EXPECT_TRUE(settle_close_call(hier_pick, "bcast", stock(12), {timed(13, 0)}).choice.stock);
    EXPECT_TRUE(settle_close_call(pick, "bcast", stock(12, 0.05), {timed(11.5, 0.05)}).choice.stock);
    EXPECT_FALSE(settle_close_call(hier_pick, "bcast", stock(12, 0.05), {timed(12.5, 0.05)}).choice.stock);
    EXPECT_FALSE(settle_close_call(pick, "bcast", std::nullopt, {timed(50, 0)}).choice.stock);  // nothing to weigh
}

// MPICH's algorithms measured in step 1 (bench -a stock) compete too: the fastest
// stock point at a size is the one the pick weighs against the model, and every
// stock point is a configuration of the exhaustive best.
TEST(Tune, FastestMpichAlgorithmIsTheStockCandidate) {
    StoredPoint tree = point(1024, "", 0, 4e-6), binomial = point(1024, "", 0, 8e-6);
    tree.key.algorithm = "tree";
    tree.key.params = {{"MPIR_CVAR_BCAST_TREE_KVAL", "4"}};
    binomial.key.algorithm = "binomial";
    const std::vector<StoredPoint> points{point(1024, "", 0, 5e-6), tree, binomial};
    const TunePlan result = plan_tune(options(), stored_tasks(), points, job_on_nodes(2));
    ASSERT_EQ(result.cases.size(), 2u);
    EXPECT_EQ(result.cases[0].pick, "MPIR_Bcast_intra_tree is_non_blocking=1 k=4 tree_type=kary");
    std::vector<std::string> labels;
    for (const ConfigTime& config : result.cases[0].configs)
        if (!config.predicted) labels.push_back(config.config);  // the model predicts hier's only
    EXPECT_EQ(labels, (std::vector<std::string>{"stock", "MPIR_Bcast_intra_tree is_non_blocking=1 k=4 tree_type=kary",
                                                "MPIR_Bcast_intra_binomial"}));
    EXPECT_EQ(result.verify[0], (VerifyCase{"bcast", 1024, false, 0, true}));  // on the whole comm, not hier
    // the best stock point by time; MPICH's own selection unless beaten by more than 5 %
    const auto best = best_stock_points(points, "bcast", 4, 2);
    ASSERT_EQ(best.size(), 1u);
    EXPECT_EQ(best.at(1024).label, "MPIR_Bcast_intra_tree is_non_blocking=1 k=4 tree_type=kary");
    tree.summary.median = 4.8e-6;  // 4 % faster than the selection's 5 us
    EXPECT_TRUE(best_stock_points({tree, point(1024, "", 0, 5e-6)}, "bcast", 4, 2).at(1024).choice.stock);
    tree.summary.median = 4.7e-6;  // 6 % faster
    EXPECT_FALSE(best_stock_points({tree, point(1024, "", 0, 5e-6)}, "bcast", 4, 2).at(1024).choice.stock);
    EXPECT_FALSE(best_stock_points({tree}, "bcast", 4, 2).at(1024).choice.stock);  // no selection measured
}

// An algorithm forced on a job whose layout fails its condition fell back to MPICH's
// selection (scan's smp needs ranks numbered node by node): no pick, and a job whose
// placement meets it may pick it.
TEST(Tune, AnAlgorithmTheLayoutFailsIsNoCandidate) {
    TuneOptions o = options();
    o.collectives = {};
    o.measured = {"scan"};
    o.measured_sizes = {1024};
    StoredPoint smp = point(1024, "", 0, 2e-6);
    smp.key.collective = "scan";
    smp.key.algorithm = "smp";
    StoredPoint selection = point(1024, "", 0, 5e-6);
    selection.key.collective = "scan";
    const std::vector<StoredPoint> points{selection, smp};
    const TunePlan round_robin = plan_tune(o, {}, points, job_on_nodes(2, "round-robin"));
    ASSERT_EQ(round_robin.cases.size(), 1u);
    EXPECT_EQ(round_robin.cases[0].pick, kStockLabel);
    EXPECT_FALSE(round_robin.verify[0].whole_comm);
    const TunePlan block = plan_tune(o, {}, points, job_on_nodes(2));
    ASSERT_EQ(block.cases.size(), 1u);
    EXPECT_EQ(block.cases[0].pick, "MPIR_Scan_intra_smp");
    EXPECT_TRUE(block.verify[0].whole_comm);
}

// MPICH's CH4 compositions measured in step 1 compete as its algorithms do, where the
// forced one ran as itself; a composition pick goes into the CH4 tree of the pair, and
// step 4 checks its data only.
TEST(Tune, ACh4CompositionIsAStockCandidate) {
    StoredPoint beta = point(1024, "", 0, 4e-6), alpha = point(1024, "", 0, 6e-6);
    beta.key.params = {{"MPIR_CVAR_BCAST_COMPOSITION", "2"}};
    alpha.key.params = {{"MPIR_CVAR_BCAST_COMPOSITION", "1"}};
    const std::vector<StoredPoint> points{point(1024, "", 0, 5e-6), beta, alpha};
    EXPECT_EQ(tree_choice_of_point(beta.key, 4, 2), csel::Choice::container("MPIDI_Bcast_intra_composition_beta"));
    EXPECT_FALSE(tree_choice_of_point(beta.key, 4, 1));  // CH4 ran the netmod-only one
    EXPECT_EQ(tree_choice_of_point(points[0].key, 4, 1), csel::Choice::stock_tree());
    EXPECT_EQ(best_stock_points(points, "bcast", 4, 2).at(1024).label, "MPIDI_Bcast_intra_composition_beta");
    EXPECT_TRUE(best_stock_points(points, "bcast", 4, 1).at(1024).choice.stock);

    TunePlan result = plan_tune(options(), stored_tasks(), points, job_on_nodes(2));
    ASSERT_EQ(result.cases.size(), 2u);
    EXPECT_EQ(result.cases[0].pick, "MPIDI_Bcast_intra_composition_beta");
    EXPECT_EQ(result.verify[0], (VerifyCase{"bcast", 1024, false, 0, false}));
    std::vector<std::string> labels;
    for (const ConfigTime& config : result.cases[0].configs)
        if (!config.predicted) labels.push_back(config.config);
    EXPECT_EQ(labels, (std::vector<std::string>{"stock", "MPIDI_Bcast_intra_composition_beta",
                                                "MPIDI_Bcast_intra_composition_alpha"}));

    const csel::Json mpir = csel::Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})");
    const csel::Json ch4 = csel::Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}}})");
    EXPECT_THROW(plan_tree(result, mpir), UsageError);  // no CH4 stock tree to put it in
    const GenerateReport report = plan_tree(result, mpir, {}, ch4);
    ASSERT_TRUE(report.ch4);
    EXPECT_NE(report.ch4->tree.dump().find("MPIDI_Bcast_intra_composition_beta"), std::string::npos);
    EXPECT_EQ(report.tree.tree.dump().find("composition"), std::string::npos);
    EXPECT_EQ(report.lines.back(), "a CH4 composition picked: a CH4 tree goes with the tree");

    // ranks that shared cores: the report says which picks below 16 KiB stand on such figures
    EXPECT_TRUE(shared_cores_lines(result, {}, false).empty());
    const std::vector<HostLoad> shared{{"n0, n1", 4, 2}};
    std::vector<std::string> lines = shared_cores_lines(result, shared, false);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "shared cores: n0, n1: 4 ranks on 2 cores");
    EXPECT_EQ(lines[1].rfind("  below 16384 B such jobs time the scheduler", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2], "  picks there other than MPICH's selection: bcast 1024 B (each measured faster than no tree "
                        "beyond the noise: step 5b)");
    EXPECT_NE(shared_cores_lines(result, shared, true)[2].find("(--keep-unproven: not checked against no tree)"),
              std::string::npos);
    result.cases[0].pick = kStockLabel;
    EXPECT_EQ(shared_cores_lines(result, shared, false)[2], "  no pick there other than MPICH's selection");
}

TEST(Tune, SizesWithoutTasksAreNamed) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};  // no allreduce tasks stored
    const TunePlan result = plan_tune(o, stored_tasks(), {}, job_on_nodes(2));
    EXPECT_EQ(result.cases.size(), 2u);
    EXPECT_EQ(result.unpredicted, (std::vector<std::string>{"allreduce 1024 B", "allreduce 65536 B"}));
}

// One bench job per set of sizes: the model's collectives at -m, gather and scatter
// at their own sizes, barrier at 0; the measured collectives' hier in one spec each.
// --shapes: NODESxPPN, each launched through the shape launcher's placeholders (or on
// emulated nodes), every tuned collective measured against MPICH's selection alone.
TEST(Tune, FurtherShapes) {
    EXPECT_EQ(parse_job_shape("2x4"), (JobShape{2, 4}));
    EXPECT_EQ(to_string(JobShape{8, 1}), "8x1");
    for (const char* bad : {"", "2", "x2", "2x", "1x4", "2x0", "2x2x2", "-2x2", "a x2", "2X2", "9999999x1"})
        EXPECT_THROW(parse_job_shape(bad), UsageError) << bad;

    TuneOptions o = options();
    o.measured = {"gather"};
    o.measured_sizes = {8192};
    o.shapes = {{2, 1}, {3, 1}};
    EXPECT_NO_THROW(check_tune_options(o));  // --nodes: emulated nodes
    const TuneOptions cliques = shape_options(o, {3, 1});
    EXPECT_EQ(cliques.ranks, 3);
    EXPECT_EQ(cliques.nodes, 3);
    EXPECT_EQ(cliques.collectives, std::vector<std::string>{});
    EXPECT_EQ(cliques.measured, (std::vector<std::string>{"bcast", "gather"}));
    EXPECT_EQ(cliques.measured_sizes, std::vector<std::uint64_t>{8192});
    EXPECT_TRUE(cliques.shapes.empty());

    o.nodes.reset();
    o.mpiexec.clear();
    EXPECT_THROW(check_tune_options(o), UsageError);  // no way to launch a shape
    o.shape_launcher = {"emu", "run", "--nodes", "{nodes}", "--ppn={ppn}", "-n{ranks}", "--"};
    EXPECT_NO_THROW(check_tune_options(o));
    const TuneOptions launched = shape_options(o, {2, 3});
    EXPECT_EQ(launched.launcher, (std::vector<std::string>{"emu", "run", "--nodes", "2", "--ppn=3", "-n6", "--"}));
    EXPECT_FALSE(launched.nodes);
    const Launch stock = shape_stock_launches(launched, "/bin/hiertune").front();
    EXPECT_TRUE(contains(stock.argv, {"-a", "default", "--sizes", "8192"})) << describe(stock);
    EXPECT_EQ(stock.argv.front(), "emu");

    o.shape_launcher = {"maint/emucluster", "run"};  // the shape appended
    EXPECT_EQ(shape_options(o, {2, 3}).launcher,
              (std::vector<std::string>{"maint/emucluster", "run", "--nodes", "2", "--ppn", "3", "--"}));
    o.shape_launcher = {"emu", "run", "--"};  // the shape would follow the '--'
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.shape_launcher = {"emu", "{ranks}"};
    o.nodes = 2;  // cliques launch through mpiexec
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.nodes.reset();
    o.shape_launcher = {"emu", "{ranks}"};
    o.shapes = {{2, 1}, {2, 1}};
    EXPECT_THROW(check_tune_options(o), UsageError);  // twice
    o.shapes.clear();
    EXPECT_THROW(check_tune_options(o), UsageError);  // a shape launcher without shapes

    const auto job = [](JobId id, const std::string& machine, int ranks, int nodes, int ppn) {
        return Job{id, JobDescription{machine, ranks, nodes, ppn, "block", "b"}, ""};
    };
    const std::vector<Job> jobs{job(1, "box", 4, 2, 2), job(2, "box", 4, 4, 1), job(3, "other", 4, 4, 1),
                                job(4, "box", 4, 4, 1)};
    EXPECT_EQ(find_shape_job(jobs, "box", {4, 1})->id, 4);  // the newest of 2 and 4
    EXPECT_EQ(find_shape_job(jobs, "box", {2, 2})->id, 1);
    EXPECT_FALSE(find_shape_job(jobs, "box", {2, 1}));
}

TEST(Tune, TimedGroupsAndMeasuredLaunches) {
    TuneOptions o = options();
    o.measured = {"barrier", "gather", "scatter"};
    o.measured_sizes = {1024, 16384};
    const std::vector<TimedGroup> groups = timed_groups(o);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0].collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(groups[0].sizes, o.sizes);
    EXPECT_EQ(groups[1].collectives, std::vector<std::string>{"barrier"});
    EXPECT_EQ(groups[1].sizes, std::vector<std::uint64_t>{0});
    EXPECT_EQ(groups[2].collectives, (std::vector<std::string>{"gather", "scatter"}));
    EXPECT_EQ(groups[2].sizes, o.measured_sizes);
    o.measured_sizes.clear();  // as -m: one job with bcast
    EXPECT_EQ(timed_groups(o).front().collectives, (std::vector<std::string>{"bcast", "gather", "scatter"}));
    o.measured_sizes = {1024, 16384};

    EXPECT_EQ(measured_configs("gather"),
              (std::vector<Params>{{{"inter_algo", "linear"}}, {{"inter_algo", "binomial"}}}));
    EXPECT_EQ(measured_configs("barrier"),
              (std::vector<Params>{{{"inter_algo", "auto"}}, {{"inter_algo", "dissemination"}}}));
    // a tree gives a non-blocking form's schedule no parameters: one configuration
    EXPECT_EQ(measured_configs("ibcast"), (std::vector<Params>{Params{}}));
    EXPECT_THROW(measured_configs("alltoallw"), UsageError);
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 3u);
    EXPECT_EQ(launches[0].step, "measured");
    EXPECT_TRUE(contains(launches[0].argv, {"h", "bench", "-C", "barrier", "-a",
                                            "hier:barrier_hier_inter_algorithm=auto/dissemination", "--sizes", "0"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "gather", "-a", "hier:gather_hier_inter_algorithm=linear/binomial",
                                            "--sizes", "1024,16384"}));
    EXPECT_TRUE(contains(launches[2].argv, {"-C", "scatter"}));
    // each group's MPICH algorithms, then its collectives' CH4 compositions (none for gather, scatter)
    const std::vector<Launch> stock = stock_launches(o, "h");
    ASSERT_EQ(stock.size(), 5u);
    EXPECT_TRUE(contains(stock[2].argv, {"-C", "barrier", "-a", "stock", "--sizes", "0"}));
    EXPECT_TRUE(contains(stock[3].argv,
                         {"-C", "barrier", "-a", "default:MPIR_CVAR_BARRIER_COMPOSITION=1/2", "--sizes", "0"}));
    EXPECT_EQ(stock[3].step, "stock");
    EXPECT_TRUE(contains(stock[4].argv, {"-C", "gather,scatter", "-a", "stock", "--sizes", "1024,16384"}));
    EXPECT_TRUE(contains(tree_timing_launch(o, "h", "/d/t.json", true, groups[1]).argv,
                         {"-C", "barrier", "-a", "default", "--sizes", "0"}));

    o.collectives.clear();
    o.measured = {"gather"};
    o.measured_sizes = {1024};
    const StoredPoint linear{PointKey{"gather", 1024, "hier", {{"MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM", "linear"}}},
                             {}, ""};
    EXPECT_EQ(missing_measured_points(o, {}),
              (std::vector<std::string>{"gather 1024 B inter_algo=linear", "gather 1024 B inter_algo=binomial"}));
    EXPECT_EQ(missing_measured_points(o, {linear}), std::vector<std::string>{"gather 1024 B inter_algo=binomial"});
}

// --sizes-of: a model collective's own sizes reach its stock, sweep and tasks jobs and
// its plan; the others keep -m.
TEST(Tune, ACollectiveTunedAtItsOwnSizes) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allgather"};
    o.configs = "inter_algo=tsp_kary";
    o.collective_sizes = {{"allgather", {1024, 4096}}};
    EXPECT_NO_THROW(check_tune_options(o));
    EXPECT_EQ(sizes_of(o, "bcast"), o.sizes);
    EXPECT_EQ(sizes_of(o, "allgather"), (std::vector<std::uint64_t>{1024, 4096}));
    EXPECT_EQ(model_sizes(o), (std::vector<std::uint64_t>{1024, 4096, 65536}));
    const std::vector<TimedGroup> groups = timed_groups(o);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[1].collectives, std::vector<std::string>{"allgather"});
    EXPECT_EQ(groups[1].sizes, (std::vector<std::uint64_t>{1024, 4096}));
    const std::vector<SweepJob> sweep = sweep_jobs(o, "h");
    ASSERT_EQ(sweep.size(), 2u);
    EXPECT_TRUE(contains(sweep[0].launch.argv, {"--sizes", "1024,65536"}));
    EXPECT_TRUE(contains(sweep[1].launch.argv, {"--sizes", "1024,4096"}));
    const std::vector<Launch> tasks = tasks_launches(o, "h");
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_TRUE(contains(tasks[0].argv, {"--max-message", "65536"}));
    EXPECT_TRUE(contains(tasks[0].argv, {"--sizes", "1024,4096"}));  // allgather's sg
    // the plan asks for allgather at its own sizes only
    const TunePlan plan = plan_tune(o, {}, {}, job_on_nodes(2));
    std::vector<std::string> unpredicted = plan.unpredicted;
    EXPECT_EQ(std::count_if(unpredicted.begin(), unpredicted.end(),
                            [](const std::string& what) { return what.rfind("allgather", 0) == 0; }),
              2);
    EXPECT_NE(std::find(unpredicted.begin(), unpredicted.end(), "allgather 4096 B"), unpredicted.end());

    o.collective_sizes = {{"reduce", {1024}}};  // not tuned
    EXPECT_THROW(check_tune_options(o), UsageError);
    o.collective_sizes = {{"allgather", {0, 1024}}};
    EXPECT_THROW(check_tune_options(o), UsageError);
}

// The non-blocking forms are measured collectives: their schedule in one spec, ibarrier
// at size 0 beside barrier, their points stored under the schedule's item.
TEST(Tune, NonBlockingFormsAreMeasured) {
    for (const std::string& form : grammar::nonblocking_collectives())
        EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), form), 1) << form;
    TuneOptions o = options();
    o.collectives = {"bcast", "ibcast", "ibarrier"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"ibcast", "ibarrier"}));
    const std::vector<TimedGroup> groups = timed_groups(o);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].collectives, (std::vector<std::string>{"bcast", "ibcast"}));
    EXPECT_EQ(groups[1].collectives, std::vector<std::string>{"ibarrier"});
    EXPECT_EQ(groups[1].sizes, std::vector<std::uint64_t>{0});
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "ibcast", "-a", "tsp_hier"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "ibarrier", "-a", "tsp_hier", "--sizes", "0"}));
    const StoredPoint ibarrier{PointKey{"ibarrier", 0, "tsp_hier", {}}, {}, ""};
    EXPECT_EQ(missing_measured_points(o, {ibarrier}),
              (std::vector<std::string>{"ibcast 1024 B defaults", "ibcast 65536 B defaults"}));
    EXPECT_EQ(parse_verify_case("ibarrier:0:hier/0"), (VerifyCase{"ibarrier", 0, true, 0, false}));
    EXPECT_THROW(parse_verify_case("ibarrier:8:any"), UsageError);
}

// scan, exscan and their schedules: measured (no task model), hier with its one inter-node
// step against MPICH's algorithms at the measured sizes; verified as hier/0 (no segments).
TEST(Tune, ScanAndExscanAreMeasured) {
    TuneOptions o = options();
    o.collectives = {"scan", "bcast", "exscan", "iscan", "iexscan"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"scan", "exscan", "iscan", "iexscan"}));
    o.measured_sizes = {8, 4096};
    EXPECT_NO_THROW(check_tune_options(o));
    // each of scan's own inter-node steps but by_size (which runs one of the others)
    std::vector<Params> scan_steps;
    std::vector<std::string> scan_inter;
    for (const std::string& inter : grammar::values(*grammar::find("scan", "hier"), "inter_algo"))
        if (inter != MPII_HIER_BY_SIZE_ITEM) {
            scan_steps.push_back({{"inter_algo", inter}});
            scan_inter.push_back(inter);
        }
    EXPECT_EQ(measured_configs("scan"), scan_steps);
    EXPECT_EQ(scan_steps.front(), (Params{{"inter_algo", "recursive_doubling"}}));
    EXPECT_EQ(measured_configs("iexscan"), (std::vector<Params>{Params{}}));
    const std::vector<TimedGroup> groups = timed_groups(o);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[1].collectives, (std::vector<std::string>{"scan", "exscan", "iscan", "iexscan"}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 4u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "scan", "-a", "hier:scan_hier_inter_algorithm=" + join(scan_inter, "/"),
                                            "--sizes", "8,4096"}));
    EXPECT_TRUE(contains(launches[3].argv, {"-C", "iexscan", "-a", "tsp_hier", "--sizes", "8,4096"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "scan,exscan,iscan,iexscan", "-a", "stock", "--sizes", "8,4096"});
    }));
    EXPECT_EQ(missing_measured_points(o, {}).front(), "scan 8 B inter_algo=recursive_doubling");
    EXPECT_EQ(parse_verify_case("exscan:8:hier/0"), (VerifyCase{"exscan", 8, true, 0, false}));
    EXPECT_EQ(parse_verify_case("iscan:4096:any"), (VerifyCase{"iscan", 4096, false, 0, false}));
    EXPECT_THROW(parse_verify_case("scan:8:hier/2"), UsageError);  // counts no segments
    EXPECT_THROW(parse_verify_case("exscan:0:any"), UsageError);   // a sized collective
}

// The reduce-scatters and their schedules: measured (no task model), hier with its one
// inter-node step against MPICH's algorithms at the measured sizes (per rank); verified
// as hier/0.  CH4 composes them (and scan), but MPICH reads no composition variable of
// theirs: their stock reference is MPICH's algorithms alone, no forced composition.
TEST(Tune, ReduceScattersAreMeasured) {
    TuneOptions o = options();
    o.collectives = {"reduce_scatter", "allreduce", "reduce_scatter_block", "ireduce_scatter", "scan"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"allreduce"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"reduce_scatter", "reduce_scatter_block", "ireduce_scatter", "scan"}));
    o.measured_sizes = {8, 4096};
    EXPECT_NO_THROW(check_tune_options(o));
    std::vector<std::string> inter;
    for (const std::string& value : grammar::values(*grammar::find("reduce_scatter", "hier"), "inter_algo"))
        if (value != MPII_HIER_BY_SIZE_ITEM) inter.push_back(value);
    ASSERT_FALSE(inter.empty());
    EXPECT_EQ(measured_configs("reduce_scatter_block").front(), (Params{{"inter_algo", inter.front()}}));
    EXPECT_EQ(measured_configs("ireduce_scatter"), (std::vector<Params>{Params{}}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 4u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "reduce_scatter", "-a",
                                            "hier:reduce_scatter_hier_inter_algorithm=" + join(inter, "/"), "--sizes",
                                            "8,4096"}));
    EXPECT_TRUE(contains(launches[2].argv, {"-C", "ireduce_scatter", "-a", "tsp_hier", "--sizes", "8,4096"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "reduce_scatter,reduce_scatter_block,ireduce_scatter,scan", "-a", "stock",
                                      "--sizes", "8,4096"});
    }));
    // compositions forced for allreduce alone
    for (const Launch& launch : stock)
        for (const std::string& word : launch.argv) {
            if (word.find("_COMPOSITION") != std::string::npos) {
                EXPECT_EQ(word, "default:MPIR_CVAR_ALLREDUCE_COMPOSITION=1/2/3");
            }
        }
    for (const std::string& missing : missing_stock_points(o, {})) {
        if (missing.find("composition") != std::string::npos) {
            EXPECT_EQ(missing.rfind("allreduce ", 0), 0u) << missing;
        }
    }
    EXPECT_EQ(missing_measured_points(o, {}).front(), "reduce_scatter 8 B inter_algo=" + inter.front());
    EXPECT_EQ(parse_verify_case("reduce_scatter_block:8:hier/0"),
              (VerifyCase{"reduce_scatter_block", 8, true, 0, false}));
    EXPECT_THROW(parse_verify_case("reduce_scatter:8:hier/2"), UsageError);  // counts no segments
    EXPECT_THROW(parse_verify_case("ireduce_scatter:0:any"), UsageError);    // a sized collective
}

// allgatherv and its schedule: measured (no task model), not in the default plan; hier
// with its one inter-node step against MPICH's algorithms at the measured sizes (per
// rank); verified as hier/0.  CH4 composes allgatherv, but MPICH 5.0.1 has no
// MPIR_CVAR_ALLGATHERV_COMPOSITION: its stock reference is MPICH's algorithms alone.
TEST(Tune, AllgathervIsMeasured) {
    const std::vector<std::string> plan = TuneOptions{}.collectives;  // the default plan
    EXPECT_EQ(std::count(plan.begin(), plan.end(), "allgatherv"), 0);
    EXPECT_EQ(std::count(plan.begin(), plan.end(), "iallgatherv"), 0);
    EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), "allgatherv"), 1);
    EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), "iallgatherv"), 1);
    TuneOptions o = options();
    o.collectives = {"allgatherv", "allgather", "iallgatherv"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"allgather"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"allgatherv", "iallgatherv"}));
    o.measured_sizes = {8, 4096};
    EXPECT_NO_THROW(check_tune_options(o));
    std::vector<std::string> inter;
    for (const std::string& value : grammar::values(*grammar::find("allgatherv", "hier"), "inter_algo"))
        if (value != MPII_HIER_BY_SIZE_ITEM) inter.push_back(value);
    ASSERT_FALSE(inter.empty());
    EXPECT_EQ(measured_configs("allgatherv").front(), (Params{{"inter_algo", inter.front()}}));
    EXPECT_EQ(measured_configs("iallgatherv"), (std::vector<Params>{Params{}}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "allgatherv", "-a",
                                            "hier:allgatherv_hier_inter_algorithm=" + join(inter, "/"), "--sizes",
                                            "8,4096"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "iallgatherv", "-a", "tsp_hier", "--sizes", "8,4096"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "allgatherv,iallgatherv", "-a", "stock", "--sizes", "8,4096"});
    }));
    // compositions forced for allgather alone
    for (const Launch& launch : stock)
        for (const std::string& word : launch.argv) {
            if (word.find("_COMPOSITION") != std::string::npos) {
                EXPECT_EQ(word.find("ALLGATHERV"), std::string::npos) << word;
            }
        }
    for (const std::string& missing : missing_stock_points(o, {})) {
        if (missing.find("composition") != std::string::npos) {
            EXPECT_EQ(missing.rfind("allgather ", 0), 0u) << missing;
        }
    }
    EXPECT_EQ(missing_measured_points(o, {}).front(), "allgatherv 8 B inter_algo=" + inter.front());
    EXPECT_EQ(parse_verify_case("allgatherv:8:hier/0"), (VerifyCase{"allgatherv", 8, true, 0, false}));
    EXPECT_EQ(parse_verify_case("iallgatherv:4096:any"), (VerifyCase{"iallgatherv", 4096, false, 0, false}));
    EXPECT_THROW(parse_verify_case("allgatherv:8:hier/2"), UsageError);  // counts no segments
    EXPECT_THROW(parse_verify_case("iallgatherv:0:any"), UsageError);    // a sized collective
}

// alltoall and its schedule: measured (no task model), not in the default plan; hier with
// each inter-node step of its own list but by_size against MPICH's algorithms at the
// measured sizes (the block per pair); verified as hier/0.  MPICH reads
// MPIR_CVAR_ALLTOALL_COMPOSITION (1 multi-leader alpha, 2 netmod-only beta): step 1 forces
// both, as allgather's; none of ialltoall.
TEST(Tune, AlltoallIsMeasured) {
    const std::vector<std::string> plan = TuneOptions{}.collectives;  // the default plan
    EXPECT_EQ(std::count(plan.begin(), plan.end(), "alltoall"), 0);
    EXPECT_EQ(std::count(plan.begin(), plan.end(), "ialltoall"), 0);
    EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), "alltoall"), 1);
    EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), "ialltoall"), 1);
    TuneOptions o = options();
    o.collectives = {"alltoall", "bcast", "ialltoall"};
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(o.measured, (std::vector<std::string>{"alltoall", "ialltoall"}));
    o.measured_sizes = {8, 4096};
    EXPECT_NO_THROW(check_tune_options(o));
    std::vector<std::string> inter;
    for (const std::string& value : grammar::values(*grammar::find("alltoall", "hier"), "inter_algo"))
        if (value != MPII_HIER_BY_SIZE_ITEM) inter.push_back(value);
    ASSERT_GT(inter.size(), 1u);
    EXPECT_EQ(measured_configs("alltoall").size(), inter.size());
    EXPECT_EQ(measured_configs("alltoall").front(), (Params{{"inter_algo", inter.front()}}));
    EXPECT_EQ(measured_configs("ialltoall"), (std::vector<Params>{Params{}}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "alltoall", "-a",
                                            "hier:alltoall_hier_inter_algorithm=" + join(inter, "/"), "--sizes",
                                            "8,4096"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "ialltoall", "-a", "tsp_hier", "--sizes", "8,4096"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "alltoall,ialltoall", "-a", "stock", "--sizes", "8,4096"});
    }));
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv,
                        {"-C", "alltoall", "-a", "default:MPIR_CVAR_ALLTOALL_COMPOSITION=1/2", "--sizes", "8,4096"});
    }));
    // compositions forced for bcast and alltoall alone
    for (const Launch& launch : stock)
        for (const std::string& word : launch.argv) {
            if (word.find("_COMPOSITION") != std::string::npos) {
                EXPECT_TRUE(word == "default:MPIR_CVAR_ALLTOALL_COMPOSITION=1/2" ||
                            word == "default:MPIR_CVAR_BCAST_COMPOSITION=1/2/3")
                    << word;
            }
        }
    std::vector<std::string> compositions;
    for (const std::string& missing : missing_stock_points(o, {}))
        if (missing.find("composition") != std::string::npos && missing.rfind("bcast ", 0) != 0)
            compositions.push_back(missing);
    EXPECT_EQ(compositions, (std::vector<std::string>{"alltoall 8 B composition 1", "alltoall 8 B composition 2",
                                                      "alltoall 4096 B composition 1", "alltoall 4096 B composition 2"}));
    EXPECT_EQ(missing_measured_points(o, {}).front(), "alltoall 8 B inter_algo=" + inter.front());
    EXPECT_EQ(parse_verify_case("alltoall:8:hier/0"), (VerifyCase{"alltoall", 8, true, 0, false}));
    EXPECT_EQ(parse_verify_case("ialltoall:4096:any"), (VerifyCase{"ialltoall", 4096, false, 0, false}));
    EXPECT_EQ(parse_verify_case("alltoall:4096:whole_comm"), (VerifyCase{"alltoall", 4096, false, 0, true}));
    EXPECT_THROW(parse_verify_case("alltoall:8:hier/2"), UsageError);  // counts no segments
    EXPECT_THROW(parse_verify_case("ialltoall:0:any"), UsageError);    // a sized collective
}

// Options whose -C names `measured` with bcast after the first of them, split as tune
// splits them (bcast the model's, the others measured) and checked, at measured sizes 8
// and 4096.
TuneOptions measured_beside_bcast(const std::vector<std::string>& measured) {
    TuneOptions o = options();
    o.collectives = measured;
    o.collectives.insert(o.collectives.begin() + 1, "bcast");
    split_measured(o);
    EXPECT_EQ(o.collectives, std::vector<std::string>{"bcast"});
    EXPECT_EQ(o.measured, measured);
    o.measured_sizes = {8, 4096};
    EXPECT_NO_THROW(check_tune_options(o));
    return o;
}

// alltoallv and its schedule: measured as alltoall, not in the default plan; hier with
// each inter-node step of its own list (direct, linear) against MPICH's algorithms at the
// measured sizes (the block per pair); verified as hier/0.  MPICH reads no
// MPIR_CVAR_ALLTOALLV_COMPOSITION: step 1 forces no composition of either form.
TEST(Tune, AlltoallvIsMeasured) {
    const std::vector<std::string> plan = TuneOptions{}.collectives;  // the default plan
    for (const char* form : {"alltoallv", "ialltoallv"}) {
        EXPECT_EQ(std::count(plan.begin(), plan.end(), form), 0) << form;
        EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), form), 1) << form;
    }
    const TuneOptions o = measured_beside_bcast({"alltoallv", "ialltoallv"});
    EXPECT_EQ(measured_configs("alltoallv"),
              (std::vector<Params>{{{"inter_algo", "direct"}}, {{"inter_algo", "linear"}}}));
    EXPECT_EQ(measured_configs("ialltoallv"), (std::vector<Params>{Params{}}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_TRUE(contains(launches[0].argv, {"-C", "alltoallv", "-a",
                                            "hier:alltoallv_hier_inter_algorithm=direct/linear", "--sizes",
                                            "8,4096"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "ialltoallv", "-a", "tsp_hier", "--sizes", "8,4096"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "alltoallv,ialltoallv", "-a", "stock", "--sizes", "8,4096"});
    }));
    for (const Launch& launch : stock)
        for (const std::string& word : launch.argv)
            EXPECT_EQ(word.find("ALLTOALLV_COMPOSITION"), std::string::npos) << word;
    for (const std::string& missing : missing_stock_points(o, {}))
        EXPECT_FALSE(missing.rfind("alltoallv ", 0) == 0 && missing.find("composition") != std::string::npos)
            << missing;
    EXPECT_EQ(missing_measured_points(o, {}).front(), "alltoallv 8 B inter_algo=direct");
    EXPECT_EQ(parse_verify_case("alltoallv:8:hier/0"), (VerifyCase{"alltoallv", 8, true, 0, false}));
    EXPECT_EQ(parse_verify_case("ialltoallv:4096:any"), (VerifyCase{"ialltoallv", 4096, false, 0, false}));
    EXPECT_THROW(parse_verify_case("alltoallv:8:hier/2"), UsageError);  // counts no segments
    EXPECT_THROW(parse_verify_case("ialltoallv:0:any"), UsageError);    // a sized collective
}

// gatherv, scatterv and their schedules: measured (-C only, not in the default plan), each
// in a job of its own, hier with the one inter-node step of its own list (linear), the
// schedules once; MPICH's algorithms at the measured sizes (the mean block per rank) in
// the stock job, no composition forced (MPICH reads no MPIR_CVAR_GATHERV_COMPOSITION);
// verified as hier/0 or any, sized.
TEST(Tune, GathervAndScattervAreMeasured) {
    const std::vector<std::string> rooted{"gatherv", "iscatterv", "scatterv", "igatherv"};
    const std::vector<std::string> plan = TuneOptions{}.collectives;  // the default plan
    for (const std::string& form : rooted) {
        EXPECT_EQ(std::count(plan.begin(), plan.end(), form), 0) << form;
        EXPECT_EQ(std::count(measured_collectives().begin(), measured_collectives().end(), form), 1) << form;
    }
    const TuneOptions o = measured_beside_bcast(rooted);
    EXPECT_EQ(measured_configs("scatterv"), (std::vector<Params>{{{"inter_algo", "linear"}}}));
    EXPECT_EQ(measured_configs("igatherv"), (std::vector<Params>{Params{}}));
    const std::vector<Launch> launches = measured_launches(o, "h");
    ASSERT_EQ(launches.size(), 4u);
    EXPECT_TRUE(contains(launches[0].argv,
                         {"-C", "gatherv", "-a", "hier:gatherv_hier_inter_algorithm=linear", "--sizes", "8,4096"}));
    EXPECT_TRUE(contains(launches[1].argv, {"-C", "iscatterv", "-a", "tsp_hier", "--sizes", "8,4096"}));
    EXPECT_TRUE(contains(launches[2].argv, {"-a", "hier:scatterv_hier_inter_algorithm=linear"}));
    const std::vector<Launch> stock = stock_launches(o, "h");
    EXPECT_TRUE(std::any_of(stock.begin(), stock.end(), [](const Launch& launch) {
        return contains(launch.argv, {"-C", "gatherv,iscatterv,scatterv,igatherv", "-a", "stock", "--sizes", "8,4096"});
    }));
    for (const Launch& launch : stock)
        for (const std::string& word : launch.argv)
            EXPECT_TRUE(word.find("GATHERV_COMPOSITION") == std::string::npos &&
                        word.find("SCATTERV_COMPOSITION") == std::string::npos)
                << word;
    EXPECT_EQ(missing_measured_points(o, {}).front(), "gatherv 8 B inter_algo=linear");
    // no segments counted, a size > 0
    for (const char* bad : {"gatherv:8:hier/2", "iscatterv:0:any"}) EXPECT_THROW(parse_verify_case(bad), UsageError);
    EXPECT_EQ(parse_verify_case("scatterv:8:hier/0"), (VerifyCase{"scatterv", 8, true, 0, false}));
    EXPECT_EQ(parse_verify_case("igatherv:4096:any"), (VerifyCase{"igatherv", 4096, false, 0, false}));
}

TEST(Tune, StockReference) {
    TuneOptions o = options();
    o.collectives = {"bcast", "allreduce"};
    const Launch launch = stock_launches(o, "/bin/hiertune").at(0);
    EXPECT_EQ(launch.step, "stock");
    EXPECT_EQ(launch.argv, (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "4", "/bin/hiertune", "bench",
                                                     "-C", "bcast,allreduce", "-a", "stock", "--sizes",
                                                     "1024,65536", "-x", "10", "--min-reps", "10", "-i", "1000",
                                                     "--precision", "2.5", "--max-time", "5", "--no-progress",
                                                     "--db", "/d/t.sqlite", "--machine", "box", "--account",
                                                     "stock"}));
    EXPECT_EQ(launch.env, (std::vector<std::pair<std::string, std::string>>{{"MPIR_CVAR_NUM_CLIQUES", "2"}}));
    const std::vector<Launch> launches = stock_launches(o, "/bin/hiertune");
    ASSERT_EQ(launches.size(), 3u);
    EXPECT_TRUE(contains(launches[1].argv,
                         {"-C", "bcast", "-a", "default:MPIR_CVAR_BCAST_COMPOSITION=1/2/3", "--sizes", "1024,65536"}));
    EXPECT_TRUE(contains(launches[2].argv, {"-C", "allreduce", "-a", "default:MPIR_CVAR_ALLREDUCE_COMPOSITION=1/2/3"}));

    // hier points do not count; a stock point counts for its collective and size only, a
    // forced composition for itself
    o.collectives = {"bcast"};
    const auto composition = [](std::uint64_t bytes, const std::string& n) {
        return StoredPoint{PointKey{"bcast", bytes, "default", {{"MPIR_CVAR_BCAST_COMPOSITION", n}}}, {}, ""};
    };
    std::vector<StoredPoint> points{point(1024, "", 0, 5e-6), point(65536, "tsp_kary", 4096, 8e-5),
                                    composition(1024, "1"), composition(1024, "3"), composition(65536, "2")};
    EXPECT_EQ(missing_stock_points(o, points),
              (std::vector<std::string>{"bcast 1024 B composition 2", "bcast 65536 B", "bcast 65536 B composition 1",
                                        "bcast 65536 B composition 3"}));
    o.sizes = {1024};
    points.push_back(composition(1024, "2"));
    EXPECT_TRUE(missing_stock_points(o, points).empty());

    // which reference a point is (missing_stock_points counts these)
    EXPECT_EQ(stock_reference(points[0].key), std::optional<int>(0));
    EXPECT_EQ(stock_reference(points[1].key), std::nullopt);
    EXPECT_EQ(stock_reference(points[3].key), std::optional<int>(3));
    EXPECT_EQ(stock_reference(PointKey{"bcast", 1024, "default", {{"MPIR_CVAR_BCAST_COMPOSITION", "x"}}}),
              std::nullopt);
    EXPECT_EQ(stock_reference(PointKey{"bcast", 1024, "binomial", {}}), std::nullopt);

    // the stock step's rate counts every point it measured, MPICH's forced algorithms
    // too, and no hier point
    points.push_back(StoredPoint{PointKey{"bcast", 1024, "binomial", {}}, {}, ""});
    EXPECT_DOUBLE_EQ(stock_seconds_per_run(points, 12), 2);  // 6 of the 7 points
    EXPECT_DOUBLE_EQ(stock_seconds_per_run({points[1]}, 12), 0);
}

}  // namespace
}  // namespace hiertune
