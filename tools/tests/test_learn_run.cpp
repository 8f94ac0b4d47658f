// `hiertune learn` without MPI: options, the bench jobs of a batch, the
// medians read back (resume included), and the tree from the predictions.
#include "hiertune/tune/learn_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/csel_show.hpp"
#include "hiertune/common/usage_error.hpp"
#include "mpich_trees.hpp"
#include "temp_dir.hpp"

namespace hiertune {
namespace {

const char* const kSegsize = "MPIR_CVAR_BCAST_HIER_SEGSIZE";

Configuration bcast(const std::string& algorithm, Params params = {}) {
    return Configuration{"bcast", algorithm, std::move(params)};
}

Configuration hier16k() { return bcast("hier", {{kSegsize, "16384"}}); }

LearnPoint point(int nodes, int ppn, std::uint64_t bytes, const Configuration& c) {
    return LearnPoint{nodes, ppn, bytes, c};
}

LearnRunOptions valid_options() {
    LearnRunOptions o;
    o.collectives = {"bcast"};
    o.nodes = {2};
    o.ppn = {1, 2};
    o.sizes = {1024, 2048, 4096};
    o.jobs.db_path = "/d/l.sqlite";
    o.jobs.mpiexec = "/m/bin/mpiexec";
    o.jobs.bench_warmup = 1;
    o.jobs.bench_min_reps = 3;
    o.jobs.bench_max_reps = 10;
    o.jobs.bench_max_time = 1;
    o.tree_path = "/d/tree.json";
    o.stock_path = "/s/generic.json";
    return o;
}

// The UsageError message of check_learn_options, "" when it passes.
std::string refusal(const LearnRunOptions& o) {
    try {
        check_learn_options(o);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
    return text;
}

// ---------------------------------------------------------------------------
// Options.

TEST(LearnRunChecks, ValidPasses) { EXPECT_EQ(refusal(valid_options()), ""); }

TEST(LearnRunChecks, SpaceErrors) {
    auto with = [](auto change) {
        LearnRunOptions o = valid_options();
        change(o);
        return refusal(o);
    };
    EXPECT_NE(with([](auto& o) { o.collectives = {"gather"}; }).find("bcast, reduce and allreduce"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.collectives = {"bcast", "bcast"}; }).find("given twice"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.collectives.clear(); }).find("-C: no collectives"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.nodes.clear(); }).find("--nodes: no node counts"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.nodes = {2, 2}; }).find("given twice"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.ppn = {0}; }).find("must be > 0"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.nodes = {1}; }).find("at least 2 ranks"), std::string::npos);  // 1 x 1
    EXPECT_NE(with([](auto& o) { o.sizes = {1000}; }).find("not a power of two"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.sizes = {std::uint64_t{1} << 31}; }).find("not a power of two up to 1 GiB"),
              std::string::npos);
    EXPECT_NE(with([](auto& o) { o.sizes.clear(); }).find("no sizes"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.batch = 0; }).find("--batch"), std::string::npos);
}

TEST(LearnRunChecks, ModeAndPathErrors) {
    auto with = [](auto change) {
        LearnRunOptions o = valid_options();
        change(o);
        return refusal(o);
    };
    EXPECT_NE(with([](auto& o) { o.collect_only = o.train_only = true; }).find("exclude each other"),
              std::string::npos);
    EXPECT_NE(with([](auto& o) { o.jobs.db_path.clear(); }).find("--db"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.tree_path.clear(); }).find("-o"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.stock_path.clear(); }).find("--stock"), std::string::npos);
    // collecting needs no tree
    EXPECT_EQ(with([](auto& o) {
                  o.collect_only = true;
                  o.tree_path.clear();
                  o.stock_path.clear();
              }),
              "");
    EXPECT_NE(with([](auto& o) { o.learn.initial_points = 0; }).find("--initial-points"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.learn.forest.trees = 1; }).find("--trees"), std::string::npos);
    EXPECT_NE(with([](auto& o) { o.learn.convergence.threshold = -1; }).find("--threshold"), std::string::npos);
}

TEST(LearnRunChecks, LaunchErrors) {
    auto with = [](auto change) {
        LearnRunOptions o = valid_options();
        change(o);
        return refusal(o);
    };
    EXPECT_NE(with([](auto& o) { o.jobs.launcher = {"maint/emucluster", "run"}; }).find("--mpiexec"),
              std::string::npos);  // mpiexec still set
    EXPECT_EQ(with([](auto& o) {
                  o.jobs.mpiexec.clear();
                  o.jobs.launcher = {"maint/emucluster", "run"};
              }),
              "");
    EXPECT_NE(with([](auto& o) {
                  o.jobs.mpiexec.clear();
                  o.jobs.launcher = {"maint/emucluster", "run", "--"};
              }).find("ends in '--'"),
              std::string::npos);
    // with placeholders the words are the user's, "--" included
    EXPECT_EQ(with([](auto& o) {
                  o.jobs.mpiexec.clear();
                  o.jobs.launcher = {"maint/emucluster", "run", "--nodes", "{nodes}", "--ppn", "{ppn}", "--"};
              }),
              "");
}

TEST(LearnRunChecks, ParallelErrors) {
    auto with = [](auto change) {
        LearnRunOptions o = valid_options();
        change(o);
        return refusal(o);
    };
    EXPECT_EQ(with([](auto& o) { o.parallel_nodes = 4; }), "");
    EXPECT_NE(with([](auto& o) { o.parallel_nodes = 1; }).find("the largest job"), std::string::npos);
    EXPECT_NE(with([](auto& o) {
                  o.parallel_nodes = 4;
                  o.jobs.mpiexec.clear();
                  o.jobs.launcher = {"maint/emucluster", "run"};
              }).find("which nodes"),
              std::string::npos);
    EXPECT_NE(with([](auto& o) {
                  o.parallel_nodes = 4;
                  o.jobs.mpiexec_args = {"-f", "hosts"};
              }).find("--mpiexec-arg"),
              std::string::npos);
    EXPECT_NE(with([](auto& o) {
                  o.parallel_nodes = 4;
                  o.rack_nodes = 0;
              }).find("--rack-nodes"),
              std::string::npos);
}

TEST(LearnRunChecks, CliquesRefusal) {
    LearnRunOptions o = valid_options();
    // without a launcher 2 nodes are cliques
    ASSERT_TRUE(learn_cliques_refusal(o, nullptr).has_value());
    EXPECT_NE(learn_cliques_refusal(o, nullptr)->find("--nodes 2"), std::string::npos);
    o.jobs.allow_cliques = true;
    EXPECT_FALSE(learn_cliques_refusal(o, "4").has_value());
    // a launcher places real nodes: only the environment asks for cliques
    o.jobs.allow_cliques = false;
    o.jobs.mpiexec.clear();
    o.jobs.launcher = {"maint/emucluster", "run"};
    EXPECT_FALSE(learn_cliques_refusal(o, nullptr).has_value());
    EXPECT_TRUE(learn_cliques_refusal(o, "2").has_value());
}

// ---------------------------------------------------------------------------
// The jobs of a batch.

TEST(LearnLaunch, LauncherForShape) {
    const JobShape shape{4, 2};
    EXPECT_EQ(joined(launcher_for_shape({"maint/emucluster", "run"}, shape)),
              "maint/emucluster run --nodes 4 --ppn 2 --");
    EXPECT_EQ(joined(launcher_for_shape({"srun", "-N", "{nodes}", "--ntasks-per-node={ppn}", "-n{ranks}"}, shape)),
              "srun -N 4 --ntasks-per-node=2 -n8");
    EXPECT_EQ(joined(launcher_for_shape({"x", "{nodes}{nodes}"}, JobShape{12, 1})), "x 1212");
}

TEST(LearnLaunch, GroupsByShapeInBatchOrder) {
    const std::vector<LearnPoint> batch{point(2, 2, 4096, hier16k()), point(2, 1, 1024, bcast("binomial")),
                                        point(2, 2, 1024, bcast("binomial")), point(2, 2, 4096, bcast("binomial")),
                                        point(2, 2, 6000, hier16k())};
    const std::vector<LearnGroup> groups = group_points(batch);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].shape, (JobShape{2, 2}));
    EXPECT_EQ(groups[0].sizes, (std::vector<std::uint64_t>{1024, 4096, 6000}));  // ascending, a non-P2 one too
    ASSERT_EQ(groups[0].configurations.size(), 2u);
    EXPECT_EQ(groups[0].configurations[0], hier16k());  // first seen
    EXPECT_EQ(groups[0].points.size(), 4u);
    EXPECT_EQ(groups[1].shape, (JobShape{2, 1}));
    EXPECT_EQ(group_node_needs(groups), (std::vector<int>{2, 2}));
    // bench measures the cross product: 3 sizes x 2 configurations
    const std::vector<PointKey> keys = group_keys(groups[0]);
    EXPECT_EQ(keys.size(), 6u);
    for (const LearnPoint& p : groups[0].points) {
        const PointKey key{"bcast", p.msg_bytes, p.configuration.algorithm, p.configuration.params};
        EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end());
    }
    EXPECT_THROW(group_points({point(2, 2, 1024, bcast("binomial")),
                               point(2, 2, 1024, Configuration{"reduce", "binomial", {}})}),
                 std::invalid_argument);
}

TEST(LearnLaunch, AlgorithmSpec) {
    EXPECT_EQ(algorithm_spec(bcast("default")), "default");
    EXPECT_EQ(algorithm_spec(bcast("hier", {{kSegsize, "16384"}, {"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", "tsp_kary"}})),
              "hier:MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM=tsp_kary,MPIR_CVAR_BCAST_HIER_SEGSIZE=16384");
    const PointKey parsed_back{"bcast", 1, "hier", {{kSegsize, "16384"}}};
    EXPECT_EQ(configuration_of(parsed_back), hier16k());
}

TEST(LearnLaunch, MpiexecOnCliques) {
    LearnRunOptions o = valid_options();
    o.jobs.allow_cliques = true;
    const std::vector<LearnGroup> groups =
        group_points({point(2, 2, 4096, hier16k()), point(2, 2, 1024, bcast("binomial"))});
    const Launch launch = learn_launch(o, "/h/hiertune", groups.front());
    EXPECT_EQ(launch.step, "learn");
    EXPECT_EQ(describe(launch),
              "MPIR_CVAR_NUM_CLIQUES=2 /m/bin/mpiexec -n 4 /h/hiertune bench -C bcast -a "
              "hier:MPIR_CVAR_BCAST_HIER_SEGSIZE=16384 -a binomial --sizes 1024,4096 -x 1 --min-reps 3 -i 10 "
              "--precision 2.5 --max-time 1 --no-progress --db /d/l.sqlite --account learn --allow-cliques");
    // a known machine is passed on (the job it names is the one read back)
    o.jobs.machine = "box";
    EXPECT_NE(describe(learn_launch(o, "/h/hiertune", groups.front())).find(" --machine box --account learn"),
              std::string::npos);
}

TEST(LearnLaunch, LauncherGetsTheShape) {
    LearnRunOptions o = valid_options();
    o.jobs.mpiexec.clear();
    o.jobs.launcher = {"maint/emucluster", "run"};
    const std::vector<LearnGroup> groups = group_points({point(2, 1, 2048, bcast("default"))});
    const Launch launch = learn_launch(o, "/h/hiertune", groups.front());
    EXPECT_TRUE(launch.env.empty());  // the launcher places the nodes: no cliques
    EXPECT_EQ(joined(std::vector<std::string>(launch.argv.begin(), launch.argv.begin() + 11)),
              "maint/emucluster run --nodes 2 --ppn 1 -- /h/hiertune bench -C bcast");
    const TuneOptions shaped = shape_options(o, JobShape{2, 1}, {2048});
    EXPECT_EQ(shaped.ranks, 2);
    EXPECT_FALSE(shaped.nodes.has_value());
}

// ---------------------------------------------------------------------------
// Reading back and resuming.

Job job(JobId id, const std::string& machine, int nodes, int ppn) {
    return Job{id, JobDescription{machine, nodes * ppn, nodes, ppn, "block", "b"}, ""};
}

StoredPoint stored(const Configuration& c, std::uint64_t bytes, double median, const std::string& at = "2026-01-01T00:00:00Z") {
    StoredPoint p;
    p.key = PointKey{c.collective, bytes, c.algorithm, c.params};
    p.summary.n = 5;
    p.summary.median = p.summary.ci_lo = p.summary.ci_hi = p.summary.min = p.summary.max = p.summary.mean = median;
    p.measured_at = at;
    return p;
}

TEST(LearnReadBack, ShapeJobIsTheNewestOfMachineAndShape) {
    const std::vector<Job> jobs{job(1, "box", 2, 2), job(2, "box", 2, 1), job(3, "other", 2, 2), job(4, "box", 2, 2)};
    EXPECT_EQ(find_shape_job(jobs, "box", JobShape{2, 2})->id, 4);
    EXPECT_EQ(find_shape_job(jobs, "box", JobShape{2, 1})->id, 2);
    EXPECT_FALSE(find_shape_job(jobs, "box", JobShape{4, 1}).has_value());
    EXPECT_EQ(machines_with_shapes(jobs, {JobShape{2, 2}}), (std::set<std::string>{"box", "other"}));
    EXPECT_EQ(machines_with_shapes(jobs, {JobShape{2, 1}}), (std::set<std::string>{"box"}));
}

TEST(LearnReadBack, LaunchedJobHoldsEveryKeyAndWasMeasuredLast) {
    const std::vector<Job> jobs{job(1, "box", 2, 2), job(2, "other", 2, 2), job(3, "box", 2, 1)};
    std::map<JobId, std::vector<StoredPoint>> points;
    points[1] = {stored(bcast("binomial"), 1024, 1e-5, "2026-01-01T10:00:00Z"),
                 stored(bcast("binomial"), 2048, 2e-5, "2026-01-01T10:00:01Z")};
    points[2] = {stored(bcast("binomial"), 1024, 1e-5, "2026-01-02T10:00:00Z"),
                 stored(bcast("binomial"), 2048, 2e-5, "2026-01-02T10:00:00Z")};
    points[3] = points[2];  // another shape
    const auto points_of = [&](JobId id) { return points[id]; };
    const std::vector<PointKey> keys{stored(bcast("binomial"), 1024, 1).key, stored(bcast("binomial"), 2048, 1).key};
    // no machine given: the job the launch measured in last
    EXPECT_EQ(launched_job(jobs, points_of, "", JobShape{2, 2}, keys)->id, 2);
    EXPECT_EQ(launched_job(jobs, points_of, "box", JobShape{2, 2}, keys)->id, 1);
    // a key missing everywhere: none (the launch ran elsewhere)
    std::vector<PointKey> more = keys;
    more.push_back(stored(bcast("binomial"), 4096, 1).key);
    EXPECT_FALSE(launched_job(jobs, points_of, "", JobShape{2, 2}, more).has_value());
    EXPECT_FALSE(launched_job(jobs, points_of, "box", JobShape{4, 1}, keys).has_value());
}

TEST(LearnReadBack, StoredPointsInTheSpace) {
    const LearnSpace space{{2}, {2}, {1024, 2048}, {bcast("binomial"), hier16k()}};
    const std::vector<StoredPoint> points{
        stored(bcast("binomial"), 1024, 1e-5),
        stored(bcast("binomial"), 768, 2e-5),    // non_p2_range(1024).lo: near the space
        stored(bcast("binomial"), 767, 2e-5),    // below it
        stored(bcast("binomial"), 3072, 3e-5),   // non_p2_range(2048).hi
        stored(bcast("binomial"), 3073, 3e-5),   // above it
        stored(bcast("smp"), 1024, 1e-5),        // another configuration
        stored(bcast("hier", {{kSegsize, "65536"}}), 1024, 1e-5),  // another parameter value
        stored(hier16k(), 2048, 0),              // no time to learn from
        stored(hier16k(), 2048 + 5, 4e-5),
        stored(Configuration{"reduce", "binomial", {}}, 1024, 1e-5),
    };
    const auto result = stored_learn_points(points, JobShape{2, 2}, space);
    std::vector<std::uint64_t> sizes;
    for (const auto& [p, seconds] : result) {
        EXPECT_EQ(p.nodes, 2);
        EXPECT_EQ(p.ppn, 2);
        EXPECT_GT(seconds, 0);
        sizes.push_back(p.msg_bytes);
    }
    EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1024, 768, 3072, 2053}));
}

class LearnDbTest : public test::TempDirTest {};

// Resume: what a rerun finds in the database goes into the learner unmeasured,
// the job of a launch is found from the database itself.
TEST_F(LearnDbTest, StoredPointsFeedTheLearner) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId id = db.find_or_create_job(JobDescription{"box", 4, 2, 2, "block", "b"});
    db.find_or_create_job(JobDescription{"box", 2, 2, 1, "block", "b"});
    const LearnSpace space{{2}, {1, 2}, {1024, 2048, 4096}, {bcast("binomial"), hier16k()}};
    for (const auto& [c, bytes, seconds] :
         std::vector<std::tuple<Configuration, std::uint64_t, double>>{{bcast("binomial"), 1024, 1e-5},
                                                                       {bcast("binomial"), 4096, 3e-5},
                                                                       {hier16k(), 2048, 2e-5},
                                                                       {hier16k(), 5000, 4e-5}})
        ASSERT_TRUE(db.record_point(id, stored(c, bytes, seconds).key, stored(c, bytes, seconds).summary));
    const std::optional<Job> found = find_shape_job(db.jobs(), "box", JobShape{2, 2});
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->id, id);
    ActiveLearner learner(space);
    for (const auto& [p, seconds] : stored_learn_points(db.points(id), JobShape{2, 2}, space))
        learner.record(p, seconds);
    EXPECT_EQ(learner.measured_count(), 4u);
    learner.iterate(0);
    // the measured points are not asked for again
    for (const LearnPoint& p : learner.next_points(100)) {
        EXPECT_FALSE(p.ppn == 2 && p.msg_bytes == 1024 && p.configuration == bcast("binomial"));
        EXPECT_FALSE(p.ppn == 2 && p.msg_bytes == 2048 && p.configuration == hier16k());
    }
    const auto points_of = [&](JobId job) { return db.points(job); };
    const std::vector<PointKey> keys{stored(hier16k(), 2048, 1).key, stored(bcast("binomial"), 4096, 1).key};
    EXPECT_EQ(launched_job(db.jobs(), points_of, "", JobShape{2, 2}, keys)->id, id);
    EXPECT_FALSE(launched_job(db.jobs(), points_of, "", JobShape{2, 1}, keys).has_value());
}

// ---------------------------------------------------------------------------
// The tree.

TEST(LearnTree, LowestPredictionAmongWhatATreeMayName) {
    // smp is predicted fastest everywhere, binomial next
    LearnedCollective learned{LearnSpace{{2}, {1, 2}, {1024}, {bcast("binomial"), bcast("smp"), hier16k()}},
                              [](const LearnPoint& p) {
                                  if (p.configuration.algorithm == "smp") return 1.0;
                                  return p.configuration.algorithm == "binomial" ? 2.0 : 3.0;
                              }};
    EXPECT_EQ(learned_choice(learned, JobShape{2, 2}, 1024)->algorithm, "MPIR_Bcast_intra_smp");
    EXPECT_EQ(learned_choice(learned, JobShape{2, 1}, 1024)->algorithm, "MPIR_Bcast_intra_binomial");
    // ties: fewer parameters
    learned.predicted_seconds = [](const LearnPoint& p) { return p.configuration.algorithm == "smp" ? 9.0 : 1.0; };
    EXPECT_EQ(learned_choice(learned, JobShape{2, 2}, 1024)->algorithm, "MPIR_Bcast_intra_binomial");
    // the stock selection is a choice like any other
    learned.space.configurations.push_back(bcast("default"));
    learned.predicted_seconds = [](const LearnPoint& p) { return p.configuration.algorithm == "default" ? 0.5 : 1.0; };
    EXPECT_TRUE(learned_choice(learned, JobShape{2, 2}, 1024)->stock);
    // nothing a tree may name
    const LearnedCollective smp_only{LearnSpace{{2}, {1}, {1024}, {bcast("smp")}}, [](const LearnPoint&) { return 1.0; }};
    EXPECT_FALSE(learned_choice(smp_only, JobShape{2, 1}, 1024).has_value());
}

// binomial below 3800 bytes, hier above: the sampled sizes 2048 and 4096 change
// choice; the model asked at the midpoint 3072 says binomial, so binomial
// holds up to 4095 (without the requery the rule would end at 3072).
double crossover(const LearnPoint& p) {
    const bool binomial = p.configuration.algorithm == "binomial";
    return p.msg_bytes < 3800 ? (binomial ? 1.0 : 2.0) : (binomial ? 3.0 : 2.0);
}

TEST(LearnTree, TreeInputSamplesAndRequeries) {
    const LearnedCollective learned{LearnSpace{{2}, {1, 2}, {1024, 2048, 4096, 8192}, {bcast("binomial"), hier16k()}},
                                    crossover};
    std::vector<std::string> lines;
    const csel::TreeInput input = learned_tree_input({learned}, &lines);
    ASSERT_EQ(input.choices.count("bcast"), 1u);
    EXPECT_EQ(input.choices.at("bcast").size(), 8u);  // 2 shapes x 4 sizes
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "bcast: 8 sampled (shape, size) points, 8 not stock");
    for (const csel::SampledChoice& s : input.choices.at("bcast")) {
        EXPECT_TRUE(s.comm_size == 2 || s.comm_size == 4);
        EXPECT_EQ(s.comm_size, 2 * s.ppn);
    }
    ASSERT_TRUE(input.requery);
    EXPECT_EQ(input.requery("bcast", 4, 2, 3072)->algorithm, "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(input.requery("bcast", 4, 2, 3900)->algorithm, "MPIR_Bcast_intra_hier");
    EXPECT_FALSE(input.requery("bcast", 8, 2, 3072).has_value());   // not a shape of the space
    EXPECT_FALSE(input.requery("reduce", 4, 2, 3072).has_value());  // not learned
    EXPECT_THROW(learned_tree_input({learned, learned}, nullptr), std::invalid_argument);
}

TEST(LearnTree, TheTreeSelectsWhatWasLearned) {
    const LearnedCollective learned{LearnSpace{{2}, {1, 2}, {1024, 2048, 4096, 8192}, {bcast("binomial"), hier16k()}},
                                    crossover};
    const csel::TreeResult tree = csel::build_tree(test::small_stock(), learned_tree_input({learned}, nullptr));
    EXPECT_TRUE(csel::check_tree(tree.tree).empty());
    for (const int ppn : {1, 2}) {
        csel::CallPoint call;
        call.collective = "bcast";
        call.comm_size = 2 * ppn;
        call.nodes = 2;
        for (const auto& [bytes, container] : std::vector<std::pair<std::uint64_t, std::string>>{
                 {1024, "MPIR_Bcast_intra_binomial"},
                 {3500, "MPIR_Bcast_intra_binomial"},  // the requeried midpoint's choice holds to 4095
                 {4095, "MPIR_Bcast_intra_binomial"},
                 {4096, "MPIR_Bcast_intra_hier"},
                 {1 << 20, "MPIR_Bcast_intra_hier"}}) {
            call.bytes = bytes;
            const csel::Selection selection = csel::select(tree.tree, call);
            ASSERT_TRUE(selection.matched()) << selection.describe();
            EXPECT_EQ(selection.container, container) << "ppn " << ppn << ", " << bytes << " B";
        }
    }
}

// The learner's own predictions make the tree: a synthetic machine where
// binomial wins small messages and hier large ones, measured by the learner's
// choice of points (no jobs), then the tree of the trained forest.
TEST(LearnTree, FromATrainedLearner) {
    const LearnSpace space{{2}, {2}, {1024, 2048, 4096, 8192, 16384, 32768, 65536}, {bcast("binomial"), hier16k()}};
    const auto machine = [](const LearnPoint& p) {
        const double bytes = static_cast<double>(p.msg_bytes);
        return p.configuration.algorithm == "binomial" ? 1e-5 + bytes * 1e-9 : 3e-5 + bytes * 2e-10;
    };
    LearnOptions options;
    options.forest.trees = 30;
    ActiveLearner learner(space, options);
    for (std::size_t round = 0; round < 20 && learner.measured_count() < learner.candidates().size(); ++round) {
        if (learner.measured_count() >= options.initial_points) learner.iterate(0);
        for (const LearnPoint& p : learner.next_points(2)) learner.record(p, machine(p));
    }
    learner.iterate(0);
    const LearnedCollective learned{space, [&](const LearnPoint& p) { return learner.predicted_seconds(p); }};
    EXPECT_EQ(learned_choice(learned, JobShape{2, 2}, 1024)->algorithm, "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(learned_choice(learned, JobShape{2, 2}, 65536)->algorithm, "MPIR_Bcast_intra_hier");
    const csel::TreeResult tree = csel::build_tree(test::small_stock(), learned_tree_input({learned}, nullptr));
    EXPECT_TRUE(csel::check_tree(tree.tree).empty());
    EXPECT_GE(tree.message_rules, 2u);
}

TEST(LearnTree, IterationLine) {
    EXPECT_EQ(iteration_line(3, 12, 0.031234, 14.26), "iteration 3: 12 points measured, summed variance 0.03123, 14.3 s");
    EXPECT_EQ(iteration_line(1, 1, 0, 0), "iteration 1: 1 point measured, summed variance 0, 0.0 s");
}

}  // namespace
}  // namespace hiertune
