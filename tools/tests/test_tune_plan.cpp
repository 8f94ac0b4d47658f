// tune's plan: made once from the database, it gives the same tree as
// `generate --from model` over the same data, the verify cases of its picks, and
// the sweep's medians beside the picks without recomputing them.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "temp_dir.hpp"

#include <optional>

#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/csel_show.hpp"
#include "hiertune/tune/predicted_shape.hpp"
#include "hiertune/tune/tune_plan.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {
namespace {

using csel::Json;

Json stock() {
    return Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                           "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
      "collective=allreduce": {"comm_type=intra": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}
    })");
}

// bcast and gather as MPICH ships them, enough for a tree of either
Json mpich_like_stock() {
    Json tree = stock();
    tree["collective=gather"] = Json::parse(R"({"comm_type=intra": {"algorithm=MPIR_Gather_intra_binomial": {}},
        "comm_type=inter": {"algorithm=MPIR_Gather_inter_linear": {}}})");
    tree["collective=ibcast"] = Json::parse(R"({"comm_type=intra": {"algorithm=MPIR_Ibcast_intra_sched_binomial": {}},
        "comm_type=inter": {"algorithm=MPIR_Ibcast_inter_sched_flat": {}}})");
    tree["collective=igather"] = Json::parse(R"({"comm_type=intra": {"algorithm=MPIR_Igather_intra_sched_binomial": {}},
        "comm_type=inter": {"algorithm=MPIR_Igather_inter_sched_long": {}}})");
    return tree;
}

Summary summary(double seconds, double half_width = 0) {
    Summary s;
    s.n = 10;
    s.median = s.mean = seconds;
    s.min = s.ci_lo = seconds - half_width;
    s.max = s.ci_hi = seconds + half_width;
    s.converged = true;
    return s;
}

class TunePlanTest : public test::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        db_.emplace(MeasureDb::open(path_));
        job_ = db_->find_or_create_job(JobDescription{"box", 4, 2, 2, "block", "b"});
        options_.ranks = 4;
        options_.nodes = 2;
        options_.collectives = {"bcast"};
        options_.sizes = {1024, 8192, 65536};
        options_.configs = "inter_algo=tsp_kary/sched_binomial";
        options_.segsizes = {4096, 32768};
        // kary: ib 10, sbib 4, sb 1 us at 4K, 20/6/2 at 32K, 3/2/1 at 1K; binomial twice as dear
        for (const auto& [algo, factor] : {std::pair<std::string, double>{"tsp_kary", 1}, {"sched_binomial", 2}})
            for (const auto& [seg, ib, sbib, sb] : {std::tuple<std::uint64_t, double, double, double>{1024, 3, 2, 1},
                                                    {4096, 10, 4, 1},
                                                    {32768, 20, 6, 2}}) {
                const Params config{{"inter_algo", algo}};
                record_task(config, "ib", seg, ib * factor);
                record_task(config, "sbib", seg, sbib * factor);
                record_task(config, "sb", seg, sb * factor);
            }
    }
    void TearDown() override {
        db_.reset();
        TempDirTest::TearDown();
    }
    void record_task(const Params& config, const std::string& name, std::uint64_t seg, double us) {
        db_->record_task(job_, TaskKey{"bcast", name, config, seg}, {TaskTiming{kMaxOverLeaders, summary(us * 1e-6)}});
    }
    // MPICH's selection: 5 us at 1K, 20 us (or `at_8k`) at 8K, 200 us at 64K
    void record_stock(double at_8k = 20) {
        for (const auto& [bytes, us] : {std::pair<std::uint64_t, double>{1024, 5}, {8192, at_8k}, {65536, 200}})
            db_->record_point(job_, PointKey{"bcast", bytes, "default", {}}, summary(us * 1e-6, us * 1e-8));
    }
    TunePlan plan() const { return plan_tune(options_, db_->tasks(job_), db_->points(job_), JobDescription{"box", 4, 2, 2, "block", "b"}); }
    GenerateReport generated() const {
        GenerateOptions generate;
        generate.source = GenerateSource::model;
        generate.collectives = options_.collectives;
        generate.jobs = {job_};
        generate.sizes = options_.sizes;
        generate.candidate_filter = [this](const han::Candidate& c) { return in_search_space(options_, c); };
        return generate_tree(*db_, stock(), generate);
    }

    std::optional<MeasureDb> db_;
    JobId job_ = 0;
    TuneOptions options_;
};

TEST_F(TunePlanTest, PicksAgainstStockAndTheirVerifyCases) {
    record_stock();
    const TunePlan p = plan();
    ASSERT_EQ(p.cases.size(), 3u);
    // 1K: kary sends one 1 KiB segment: 3 + 1 = 4 us < stock 5
    EXPECT_EQ(p.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");
    // 8K: kary 4K, 2 segments: 10 + 4 + 1 = 15 us; kary 32K, one 8K segment, 1/7 of the way
    // from 4K to 32K: ib 10 + 10/7, sb 1 + 1/7: 12.57 us < 20
    EXPECT_EQ(p.cases[1].pick, "segsize=32768 inter_algo=tsp_kary");
    EXPECT_NEAR(*p.cases[1].configs[1].predicted, 11e-6 + 11e-6 / 7, 1e-12);
    EXPECT_DOUBLE_EQ(*p.cases[1].configs[0].predicted, 15e-6);
    // 64K: kary 32K 2 segments 20 + 6 + 2 = 28 us < 200
    EXPECT_EQ(p.cases[2].pick, "segsize=32768 inter_algo=tsp_kary");
    EXPECT_EQ(p.verify, (std::vector<VerifyCase>{{"bcast", 1024, true, 1}, {"bcast", 8192, true, 1},
                                                 {"bcast", 65536, true, 2}}));
    ASSERT_EQ(p.collectives.at("bcast").picks.size(), 3u);
    EXPECT_TRUE(p.collectives.at("bcast").stock_measured);
    EXPECT_EQ(p.collectives.at("bcast").candidates.size(), 4u);  // the 1K runs are no candidates of their own
}

TEST_F(TunePlanTest, StockStaysWhereItMeasuredFaster) {
    record_stock(12);  // 12 < 12.57 predicted
    const TunePlan p = plan();
    EXPECT_EQ(p.cases[1].pick, "stock");
    EXPECT_EQ(p.verify[1], (VerifyCase{"bcast", 8192, false, 0}));
}

// One of MPICH's algorithms, forced faster than its selection: the tree names it
// whole_comm=1, and verify expects the call handed to the MPIR level.
TEST_F(TunePlanTest, MpichAlgorithmsAreVerifiedOnTheWholeComm) {
    record_stock(12);
    db_->record_point(job_, PointKey{"bcast", 8192, "binomial", {}}, summary(10e-6));  // > 5 % faster than 12
    const TunePlan p = plan();
    EXPECT_EQ(p.cases[1].pick, "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(p.verify[1], (VerifyCase{"bcast", 8192, false, 0, true}));
    EXPECT_EQ(to_string(p.verify[1]), "bcast:8192:whole_comm");
}

// The tree is made from the plan's picks, not recomputed: the same tree as
// generate --from model over the same database, with and without stock points.
TEST_F(TunePlanTest, TreeEqualsGenerateFromModel) {
    const GenerateReport without_stock = plan_tree(plan(), stock());
    EXPECT_EQ(without_stock.tree.tree, generated().tree.tree);
    record_stock(12);
    const GenerateReport with_stock = plan_tree(plan(), stock());
    EXPECT_EQ(with_stock.tree.tree, generated().tree.tree);
    EXPECT_NE(with_stock.tree.tree, without_stock.tree.tree);  // 8K went to stock
    EXPECT_EQ(with_stock.lines.front(), "bcast: 3 sizes, 2 not stock");
}

TEST_F(TunePlanTest, TheSweepIsMeasuredBesideThePicks) {
    record_stock();
    TunePlan p = plan();
    const std::vector<VerifyCase> verify = p.verify;
    EXPECT_FALSE(sweep_complete(p));
    // 2 x 2 configurations at 8K and 64K, 2 runs at 1K (one segment: each algorithm one run)
    EXPECT_EQ(unmeasured_runs(p), (std::map<std::string, std::size_t>{{"bcast", 10}}));
    // the sweep: every configuration at every size, binomial 4K fastest at 8K
    for (std::uint64_t bytes : options_.sizes)
        for (const char* algo : {"tsp_kary", "sched_binomial"})
            for (std::uint64_t seg : options_.segsizes) {
                const double us = std::string(algo) == "sched_binomial" && seg == 4096 && bytes == 8192 ? 9 : 50;
                db_->record_point(job_,
                                  PointKey{"bcast", bytes, "hier",
                                           {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", std::to_string(seg)},
                                            {"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", algo}}},
                                  summary(us * 1e-6, us * 1e-7));
            }
    measure_plan(p, db_->points(job_));
    measure_plan(p, db_->points(job_));  // again: nothing added twice
    EXPECT_TRUE(sweep_complete(p));
    EXPECT_TRUE(unmeasured_runs(p).empty());
    EXPECT_EQ(p.verify, verify);  // picks unchanged
    ASSERT_EQ(p.cases[1].configs.size(), 5u);  // 2 x 2 hier and stock
    EXPECT_EQ(p.cases[1].configs.back().config, "stock");
    EXPECT_DOUBLE_EQ(*p.cases[1].configs.back().measured, 20e-6);
    EXPECT_NEAR(*p.cases[1].configs.back().noise, 0.01, 1e-12);
    const ValidationReport report = validate(p.cases, 1.0, 4.0);
    EXPECT_EQ(report.verdicts[1].best, "segsize=4096 inter_algo=sched_binomial");
    EXPECT_DOUBLE_EQ(report.verdicts[1].slowdown, 50.0 / 9.0);
    EXPECT_NEAR(*report.verdicts[1].noise, 0.2, 1e-12);  // 10 % + 10 %
}

// At 1 KiB both segment sizes cut the message into one segment: the same run.  The
// sweep times the one with the smaller (bench --same-runs-once), and its figure stands
// for both, also where both were timed (one run has one figure, not the faster of two
// draws); at 8 KiB 32 KiB segments are a run of their own.
TEST_F(TunePlanTest, TheSameRunHasOneFigure) {
    record_stock();
    TunePlan p = plan();
    const auto record = [&](std::uint64_t bytes, std::uint64_t seg, const char* algo, double us) {
        db_->record_point(job_,
                          PointKey{"bcast", bytes, "hier",
                                   {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", std::to_string(seg)},
                                    {"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", algo}}},
                          summary(us * 1e-6, us * 1e-7));
    };
    record(1024, 4096, "tsp_kary", 30);
    record(1024, 4096, "sched_binomial", 40);
    record(1024, 32768, "tsp_kary", 10);  // a faster draw of the same run
    record(8192, 4096, "tsp_kary", 30);
    record(8192, 4096, "sched_binomial", 40);
    measure_plan(p, db_->points(job_));
    ASSERT_EQ(p.cases[0].msg_bytes, 1024u);
    EXPECT_TRUE(case_swept(p.cases[0]));
    EXPECT_FALSE(case_swept(p.cases[1]));
    for (const ConfigTime& config : p.cases[0].configs) {
        if (config.config == "stock") continue;
        const bool kary = config.config.find("tsp_kary") != std::string::npos;
        EXPECT_DOUBLE_EQ(*config.measured, (kary ? 30 : 40) * 1e-6) << config.config;
        const bool large = config.config.find("segsize=32768") != std::string::npos;
        EXPECT_EQ(config.same_run_as,
                  large ? std::string("segsize=4096 inter_algo=") + (kary ? "tsp_kary" : "sched_binomial") : "");
    }
    EXPECT_EQ(p.cases[1].configs[1].config, "segsize=32768 inter_algo=tsp_kary");
    EXPECT_EQ(p.cases[1].configs[1].same_run_as, "");
    // left: 32K segments at 8K (2 runs), every configuration at 64K (4)
    EXPECT_EQ(unmeasured_runs(p), (std::map<std::string, std::size_t>{{"bcast", 6}}));
}

TreeTimingRow timing_row(std::uint64_t bytes, TreeVerdict verdict) {
    TreeTimingRow row;
    row.collective = "bcast";
    row.msg_bytes = bytes;
    row.verdict = verdict;
    return row;
}

// Never slower: a hier pick stays only where the tree was measured faster beyond the
// noise; within the noise or slower it becomes stock (picks, cases, verify, tree), and a
// size without a timing row keeps its pick.
TEST_F(TunePlanTest, PicksNotMeasuredFasterGoBackToStock) {
    record_stock();
    TunePlan p = plan();
    TreeTimingReport timing;
    timing.rows = {timing_row(65536, TreeVerdict::slower), timing_row(1024, TreeVerdict::within_noise),
                   timing_row(8192, TreeVerdict::faster)};
    const std::vector<RevertedPick> reverted = keep_measured_faster(p, timing);
    ASSERT_EQ(reverted.size(), 2u);
    EXPECT_EQ(reverted[0].msg_bytes, 1024u);  // plan order, not the timing's
    EXPECT_EQ(reverted[0].pick, "segsize=4096 inter_algo=tsp_kary");
    EXPECT_EQ(reverted[0].timing.verdict, TreeVerdict::within_noise);
    EXPECT_EQ(reverted[1].msg_bytes, 65536u);
    EXPECT_EQ(p.cases[0].pick, "stock");
    EXPECT_EQ(p.cases[1].pick, "segsize=32768 inter_algo=tsp_kary");
    EXPECT_EQ(p.cases[2].pick, "stock");
    EXPECT_EQ(p.verify, (std::vector<VerifyCase>{{"bcast", 1024, false, 0}, {"bcast", 8192, true, 1},
                                                 {"bcast", 65536, false, 0}}));
    EXPECT_EQ(plan_tree(p, stock()).lines.front(), "bcast: 3 sizes, 1 not stock");
    EXPECT_TRUE(keep_measured_faster(p, timing).empty());  // once is enough

    TunePlan untimed = plan();
    timing.rows = {timing_row(8192, TreeVerdict::slower)};
    ASSERT_EQ(keep_measured_faster(untimed, timing).size(), 1u);
    EXPECT_EQ(untimed.cases[0].pick, "segsize=4096 inter_algo=tsp_kary");  // no row: kept
    EXPECT_EQ(untimed.cases[1].pick, "stock");
}

// The coverage table: runs of sizes with one source and choice, in plan order; what the
// tree leaves to MPICH below the smallest size tuned; the largest size's choice above it.
TEST_F(TunePlanTest, CoverageSaysWhereEachChoiceComesFrom) {
    record_stock(12);
    db_->record_point(job_, PointKey{"bcast", 8192, "binomial", {}}, summary(10e-6));
    TunePlan p = plan();
    const std::vector<CoverageRow> rows = coverage(p, {});
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].source, PickSource::model);
    EXPECT_EQ(rows[1].source, PickSource::measured);  // MPICH's binomial, measured faster
    EXPECT_EQ(rows[1].choice, "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(rows[2].source, PickSource::model);
    TreeTimingReport timing;
    timing.rows = {timing_row(65536, TreeVerdict::within_noise)};
    const std::vector<RevertedPick> reverted = keep_measured_faster(p, timing);
    const std::vector<CoverageRow> after = coverage(p, reverted);
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after[2].source, PickSource::put_back);
    EXPECT_EQ(after[2].choice, "stock");
    const std::vector<std::string> lines = coverage_lines(p, after);
    ASSERT_EQ(lines.size(), 7u);  // 3 header lines, below 1024, 3 rows
    EXPECT_NE(lines[1].find("tuned at 4 ranks, 2 per node"), std::string::npos);
    EXPECT_EQ(lines[3].rfind("bcast        < 1024", 0), 0u) << lines[3];
    EXPECT_NE(lines[3].find("MPICH's selection (not measured)"), std::string::npos);
    EXPECT_NE(lines[6].find("65536 and up"), std::string::npos) << lines[6];
    EXPECT_NE(lines[6].find("put back"), std::string::npos);
}

// Gather, the measured way: MPICH's selection and hier with each inter-node step at
// 1K and 64K (relative noise 1 %).
class MeasuredPlanTest : public TunePlanTest {
protected:
    void SetUp() override {
        TunePlanTest::SetUp();
        options_.collectives.clear();
        options_.measured = {"gather"};
        options_.measured_sizes = {1024, 65536};
    }
    void record(std::uint64_t bytes, const std::string& inter, double us) {
        const PointKey key = inter.empty() ? PointKey{"gather", bytes, "default", {}}
                                           : PointKey{"gather", bytes, "hier",
                                                      {{"MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM", inter}}};
        db_->record_point(job_, key, summary(us * 1e-6, us * 1e-8));
    }
    // stock 10 / 100 us; linear and binomial as given, in a job of their own (a stored
    // point is not overwritten)
    void record_all(double linear_1k, double linear_64k, double binomial_1k, double binomial_64k) {
        job_ = db_->find_or_create_job(JobDescription{"box" + std::to_string(++jobs_), 4, 2, 2, "block", "b"});
        record(1024, "", 10);
        record(65536, "", 100);
        record(1024, "linear", linear_1k);
        record(65536, "linear", linear_64k);
        record(1024, "binomial", binomial_1k);
        record(65536, "binomial", binomial_64k);
    }
    // one of collective's configurations (an algorithm item, no parameters) at 1K and 64K
    void record_pair(const std::string& collective, const std::string& algorithm, double us_1k, double us_64k) {
        db_->record_point(job_, PointKey{collective, 1024, algorithm, {}}, summary(us_1k * 1e-6, us_1k * 1e-8));
        db_->record_point(job_, PointKey{collective, 65536, algorithm, {}}, summary(us_64k * 1e-6, us_64k * 1e-8));
    }
    int jobs_ = 0;
};

// One choice for every size: the alternative never slower beyond the noise and
// faster at one size at least, the lowest geometric mean of the ratios among them.
TEST_F(MeasuredPlanTest, OneChoicePerShapeNeverSlowerFasterSomewhere) {
    record_all(10.05, 60, 9, 50);  // linear even at 1K (within 2 % noise), binomial faster at both
    TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "inter_algo=binomial");
    EXPECT_EQ(p.cases[1].pick, "inter_algo=binomial");
    EXPECT_EQ(p.verify, (std::vector<VerifyCase>{{"gather", 1024, true, 0}, {"gather", 65536, true, 0}}));
    EXPECT_EQ(to_string(p.verify[0]), "gather:1024:hier/0");
    EXPECT_TRUE(sweep_complete(p));  // its configurations and stock, all measured
    const Json tree = plan_tree(p, mpich_like_stock()).tree.tree;
    EXPECT_EQ(tree["collective=gather"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"],
              (Json{{"algorithm=MPIR_Gather_intra_hier", {{"inter_algo=binomial", Json::object()}}}}));

    record_all(10.05, 60, 12, 40);  // binomial slower beyond the noise at 1K: linear
    EXPECT_EQ(plan().cases[0].pick, "inter_algo=linear");
    record_all(10.05, 100.5, 12, 40);  // linear faster nowhere: stock
    const TunePlan none = plan();
    EXPECT_EQ(none.cases[0].pick, "stock");
    EXPECT_EQ(none.verify[1], (VerifyCase{"gather", 65536, false, 0}));
    EXPECT_EQ(plan_tree(none, mpich_like_stock()).tree.tree, mpich_like_stock());  // MPICH's gather kept
}

// One choice per shape: one coverage row for every size, nothing said below it.
TEST_F(MeasuredPlanTest, CoverageOfOneChoicePerShapeIsEverySize) {
    record_all(10.05, 60, 9, 50);
    const TunePlan p = plan();
    const std::vector<CoverageRow> rows = coverage(p, {});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].source, PickSource::measured);
    EXPECT_EQ(rows[0].first_bytes, 1024u);
    EXPECT_EQ(rows[0].last_bytes, 65536u);
    const std::vector<std::string> lines = coverage_lines(p, rows);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_NE(lines[3].find("every size (1024-65536)"), std::string::npos) << lines[3];
}

// A further shape's plan: its picks beside the main plan's in one tree, each at its
// own tree position; two plans at one position are refused.
TEST_F(MeasuredPlanTest, FurtherShapesShareTheTree) {
    record_all(10.05, 60, 9, 50);  // binomial at 4 ranks, 2 per node
    const TunePlan main = plan();
    options_.ranks = 2;
    job_ = db_->find_or_create_job(JobDescription{"box", 2, 2, 1, "block", "b"});
    record(1024, "", 10);
    record(65536, "", 100);
    record(1024, "linear", 5);
    record(65536, "linear", 50);
    record(1024, "binomial", 10);
    record(65536, "binomial", 100);
    const TunePlan shape = plan_tune(options_, {}, db_->points(job_), JobDescription{"box", 2, 2, 1, "block", "b"});
    EXPECT_EQ(shape.comm_size, 2);
    EXPECT_EQ(shape.ppn, 1);
    ASSERT_EQ(shape.cases.size(), 2u);
    EXPECT_EQ(shape.cases[0].pick, "inter_algo=linear");
    const GenerateReport report = plan_tree(main, mpich_like_stock(), {&shape});
    EXPECT_EQ(report.lines.front(), "gather: 4 sizes, 4 not stock");
    const Json& intra = report.tree.tree["collective=gather"]["comm_type=intra"];
    EXPECT_TRUE(intra["comm_hierarchy=parent"].contains("comm_size<=4")) << intra.dump();
    EXPECT_TRUE(intra["comm_hierarchy=any"].contains("comm_size<=2")) << intra.dump();  // one rank per node
    EXPECT_THROW(plan_tree(main, mpich_like_stock(), {&main}), UsageError);
}

TEST_F(MeasuredPlanTest, MissingStockIsUnpredictedAndHalfMeasuredOptionsDoNotCompete) {
    record(1024, "", 10);
    record(1024, "binomial", 5);
    record(65536, "binomial", 50);
    record(1024, "linear", 5);  // not at 64K
    EXPECT_EQ(plan().unpredicted, std::vector<std::string>{"gather 65536 B"});
    record(65536, "", 100);
    EXPECT_EQ(plan().cases[0].pick, "inter_algo=binomial");
}

// A non-blocking form: its schedule (no parameters, label "defaults") against MPICH's
// selection and its algorithms; MPICH's algorithm is verified as not hier, since CH4
// hands the call to the MPIR level whole (no route to count).
TEST_F(MeasuredPlanTest, NonBlockingFormsPickTheirScheduleOrMpichs) {
    options_.measured = {"igather"};
    record_pair("igather", "default", 10, 100);
    record_pair("igather", "tsp_hier", 9, 50);
    record_pair("igather", "sched_binomial", 11, 80);
    record_pair("igather", "tsp_tree", 5, 5);  // k unread from a tree: never picked
    TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, kDefaultsLabel);
    EXPECT_TRUE(p.cases[0].measured_pick);
    EXPECT_EQ(p.verify[0], (VerifyCase{"igather", 1024, true, 0}));
    EXPECT_TRUE(sweep_complete(p));
    EXPECT_EQ(plan_tree(p, mpich_like_stock()).tree.tree["collective=igather"]["comm_type=intra"]
                  ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"],
              (Json{{"algorithm=MPIR_Igather_intra_tsp_hier", Json::object()}}));

    job_ = db_->find_or_create_job(JobDescription{"box-nb", 4, 2, 2, "block", "b"});
    record_pair("igather", "default", 10, 100);
    record_pair("igather", "tsp_hier", 12, 50);  // slower at 1K
    record_pair("igather", "sched_binomial", 9, 60);
    p = plan();
    EXPECT_EQ(p.cases[1].pick, "MPIR_Igather_intra_sched_binomial");
    EXPECT_EQ(p.verify[1], (VerifyCase{"igather", 65536, false, 0, false}));
}

// A collective MPICH selects by bytes (ibcast: avg_msg_size) gets each size's own pick.
TEST_F(MeasuredPlanTest, CollectivesSelectedByBytesGetAPickPerSize) {
    options_.measured = {"ibcast"};
    record_pair("ibcast", "default", 10, 100);
    record_pair("ibcast", "tsp_hier", 12, 50);        // slower at 1K, fastest at 64K
    record_pair("ibcast", "sched_binomial", 9, 100);  // fastest at 1K
    const TunePlan p = plan();
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "MPIR_Ibcast_intra_sched_binomial");
    EXPECT_EQ(p.cases[1].pick, kDefaultsLabel);
    EXPECT_EQ(p.verify[1], (VerifyCase{"ibcast", 65536, true, 0}));
    const Json tuned = plan_tree(p, mpich_like_stock()).tree.tree["collective=ibcast"]["comm_type=intra"]
                                                                  ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"];
    EXPECT_TRUE(tuned.begin().key().rfind("avg_msg_size<=", 0) == 0) << tuned.dump();
    EXPECT_EQ(tuned["avg_msg_size=any"], (Json{{"algorithm=MPIR_Ibcast_intra_tsp_hier", Json::object()}}));
}

// exscan: hier (its one inter-node step) against MPICH's selection and algorithm, one
// choice per shape (csel.c selects it by no size), into MPICH 5.0.1's stock exscan, which
// tests no comm_type; MPICH's algorithm verified as not hier.
TEST_F(MeasuredPlanTest, ExscanPicksOncePerShapeIntoAStockWithoutCommType) {
    options_.measured = {"exscan"};
    record_pair("exscan", "default", 10, 100);
    record_pair("exscan", "recursive_doubling", 10, 100);
    const Params hier{{"MPIR_CVAR_EXSCAN_HIER_INTER_ALGORITHM", "recursive_doubling"}};
    db_->record_point(job_, PointKey{"exscan", 1024, "hier", hier}, summary(9e-6, 9e-8));
    db_->record_point(job_, PointKey{"exscan", 65536, "hier", hier}, summary(60e-6, 60e-8));
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "inter_algo=recursive_doubling");
    EXPECT_EQ(p.cases[1].pick, "inter_algo=recursive_doubling");
    EXPECT_EQ(p.verify[0], (VerifyCase{"exscan", 1024, true, 0}));
    Json stock = mpich_like_stock();
    const Json exscan = Json::parse(R"({"algorithm=MPIR_Exscan_intra_recursive_doubling": {}})");
    stock["collective=exscan"] = exscan;
    const Json tree = plan_tree(p, stock).tree.tree;
    EXPECT_EQ(tree["collective=exscan"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"],
              (Json{{"algorithm=MPIR_Exscan_intra_hier", {{"inter_algo=recursive_doubling", Json::object()}}}}));
    EXPECT_EQ(tree["collective=exscan"]["comm_type=inter"], exscan);

    job_ = db_->find_or_create_job(JobDescription{"box-rd", 4, 2, 2, "block", "b"});
    record_pair("exscan", "default", 10, 100);
    record_pair("exscan", "recursive_doubling", 8, 80);  // MPICH's algorithm faster than its selection
    db_->record_point(job_, PointKey{"exscan", 1024, "hier", hier}, summary(12e-6, 12e-8));
    db_->record_point(job_, PointKey{"exscan", 65536, "hier", hier}, summary(120e-6, 120e-8));
    const TunePlan mpich = plan();
    EXPECT_EQ(mpich.cases[0].pick, "MPIR_Exscan_intra_recursive_doubling");
    EXPECT_FALSE(mpich.verify[0].hier);
}

// reduce_scatter: hier (its one inter-node step) against MPICH's selection and algorithms,
// a pick per size, since csel.c selects it by the vector's bytes (total_msg_size: the
// block per rank times the 4 ranks); MPICH's algorithm behind the op it needs.
TEST_F(MeasuredPlanTest, ReduceScatterPicksPerSizeByTheVectorsBytes) {
    options_.measured = {"reduce_scatter"};
    record_pair("reduce_scatter", "default", 10, 100);
    record_pair("reduce_scatter", "recursive_halving", 8, 100);  // fastest at 1K
    const Params linear{{"MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM", "linear"}};
    db_->record_point(job_, PointKey{"reduce_scatter", 1024, "hier", linear}, summary(12e-6, 12e-8));
    db_->record_point(job_, PointKey{"reduce_scatter", 65536, "hier", linear}, summary(50e-6, 50e-8));
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "MPIR_Reduce_scatter_intra_recursive_halving");
    EXPECT_FALSE(p.verify[0].hier);
    EXPECT_EQ(p.cases[1].pick, "inter_algo=linear");
    EXPECT_EQ(p.verify[1], (VerifyCase{"reduce_scatter", 65536, true, 0}));
    Json stock = mpich_like_stock();
    const Json intra = Json::parse(R"({"is_commutative=yes": {"algorithm=MPIR_Reduce_scatter_intra_recursive_halving": {}},
        "is_commutative=no": {"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {}}})");
    stock["collective=reduce_scatter"] = {{"comm_type=intra", intra},
        {"comm_type=inter", {{"algorithm=MPIR_Reduce_scatter_inter_remote_reduce_local_scatter", Json::object()}}}};
    const Json tuned = plan_tree(p, stock).tree.tree["collective=reduce_scatter"]["comm_type=intra"]
                                                   ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"];
    // below the smallest size measured (1 KiB blocks, 4 KiB vectors) MPICH's selection
    EXPECT_EQ(tuned.begin().key(), "total_msg_size<=4095") << tuned.dump();
    EXPECT_EQ(tuned.begin().value(), intra);
    EXPECT_EQ(tuned["total_msg_size=any"],
              (Json{{"algorithm=MPIR_Reduce_scatter_intra_hier", {{"inter_algo=linear", Json::object()}}}}));
    const Json halving{{"algorithm=MPIR_Reduce_scatter_intra_recursive_halving", {{"whole_comm=1", Json::object()}}}};
    EXPECT_TRUE(std::any_of(tuned.begin(), tuned.end(), [&](const Json& rule) {
        return rule.contains("is_commutative=yes") && rule["is_commutative=yes"] == halving;
    })) << tuned.dump();
}

// allgatherv: hier (its one inter-node step) against MPICH's selection and algorithms, a
// pick per size, since csel.c selects it by total_msg_size (the block per rank times the
// 4 ranks), below the smallest size measured MPICH's selection; MPICH's algorithm with
// whole_comm=1 and verified on the whole comm.
TEST_F(MeasuredPlanTest, AllgathervPicksPerSizeByTheBlocksTotalBytes) {
    options_.measured = {"allgatherv"};
    record_pair("allgatherv", "default", 10, 100);
    record_pair("allgatherv", "ring", 8, 100);  // fastest at 1K
    const Params linear{{"MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM", "linear"}};
    db_->record_point(job_, PointKey{"allgatherv", 1024, "hier", linear}, summary(12e-6, 12e-8));
    db_->record_point(job_, PointKey{"allgatherv", 65536, "hier", linear}, summary(50e-6, 50e-8));
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "MPIR_Allgatherv_intra_ring");
    EXPECT_EQ(p.verify[0], (VerifyCase{"allgatherv", 1024, false, 0, true}));
    EXPECT_EQ(p.cases[1].pick, "inter_algo=linear");
    EXPECT_EQ(p.verify[1], (VerifyCase{"allgatherv", 65536, true, 0}));
    Json stock = mpich_like_stock();
    const Json intra = Json::parse(R"({"algorithm=MPIR_Allgatherv_intra_brucks": {}})");
    stock["collective=allgatherv"] = {
        {"comm_type=intra", intra},
        {"comm_type=inter", {{"algorithm=MPIR_Allgatherv_inter_remote_gather_local_bcast", Json::object()}}}};
    const Json tuned = plan_tree(p, stock).tree.tree["collective=allgatherv"]["comm_type=intra"]
                                                   ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"];
    // below the smallest size measured (1 KiB blocks, 4 KiB in all) MPICH's selection
    EXPECT_EQ(tuned.begin().key(), "total_msg_size<=4095") << tuned.dump();
    EXPECT_EQ(tuned.begin().value(), intra);
    EXPECT_EQ(tuned["total_msg_size=any"],
              (Json{{"algorithm=MPIR_Allgatherv_intra_hier", {{"inter_algo=linear", Json::object()}}}}));
    const Json ring{{"algorithm=MPIR_Allgatherv_intra_ring", {{"whole_comm=1", Json::object()}}}};
    EXPECT_TRUE(std::any_of(tuned.begin(), tuned.end(), [&](const Json& rule) { return rule == ring; }))
        << tuned.dump();
}

// iallgatherv: its schedule against MPICH's, a pick per size; the recexch schedules,
// which bench's reversed displacements make fall back to MPICH's selection, never.
TEST_F(MeasuredPlanTest, IallgathervNeverPicksWhatFellBack) {
    options_.measured = {"iallgatherv"};
    record_pair("iallgatherv", "default", 10, 100);
    record_pair("iallgatherv", "tsp_recexch_doubling", 5, 40);  // its time is a fallback's
    record_pair("iallgatherv", "tsp_hier", 12, 60);             // slower at 1K, faster at 64K
    record_pair("iallgatherv", "sched_ring", 11, 90);
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "stock");
    EXPECT_EQ(p.cases[1].pick, kDefaultsLabel);
    EXPECT_EQ(p.verify[1], (VerifyCase{"iallgatherv", 65536, true, 0}));
}

// alltoall: hier (its inter-node steps) against MPICH's selection and algorithms, a pick
// per size, since csel.c selects it by avg_msg_size (the block per pair itself, not times
// the ranks), below the smallest size measured MPICH's selection; MPICH's algorithm behind
// is_sendbuf_inplace=no with whole_comm=1; pairwise_sendrecv_replace, which bench's
// buffers (not in place) made fall back to MPICH's selection, never.
TEST_F(MeasuredPlanTest, AlltoallPicksPerSizeByTheBlock) {
    options_.measured = {"alltoall"};
    record_pair("alltoall", "default", 10, 100);
    record_pair("alltoall", "pairwise", 8, 100);                   // fastest at 1K
    record_pair("alltoall", "pairwise_sendrecv_replace", 5, 40);  // its time is a fallback's
    const Params brucks{{"MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", "brucks"}};
    db_->record_point(job_, PointKey{"alltoall", 1024, "hier", brucks}, summary(12e-6, 12e-8));
    db_->record_point(job_, PointKey{"alltoall", 65536, "hier", brucks}, summary(50e-6, 50e-8));
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "MPIR_Alltoall_intra_pairwise");
    EXPECT_EQ(p.verify[0], (VerifyCase{"alltoall", 1024, false, 0, true}));
    EXPECT_EQ(p.cases[1].pick, "inter_algo=brucks");
    EXPECT_EQ(p.verify[1], (VerifyCase{"alltoall", 65536, true, 0}));
    Json stock = mpich_like_stock();
    const Json intra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoall_intra_scattered": {}}})");
    stock["collective=alltoall"] = {
        {"comm_type=intra", intra},
        {"comm_type=inter", {{"algorithm=MPIR_Alltoall_inter_pairwise_exchange", Json::object()}}}};
    const Json tuned = plan_tree(p, stock).tree.tree["collective=alltoall"]["comm_type=intra"]
                                                   ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"];
    // below the smallest block measured (1 KiB) MPICH's selection; pairwise up to the
    // blocks' midpoint (1024 + (65536 - 1024) / 2), behind the is_sendbuf_inplace=no it
    // needs (MPICH's selection where the call is in place); hier above
    const Json pairwise{{"algorithm=MPIR_Alltoall_intra_pairwise", {{"whole_comm=1", Json::object()}}}};
    EXPECT_EQ(tuned, (Json{{"avg_msg_size<=1023", intra},
                           {"avg_msg_size<=33280",
                            {{"is_sendbuf_inplace=no", pairwise}, {"is_sendbuf_inplace=yes", intra}}},
                           {"avg_msg_size=any",
                            {{"algorithm=MPIR_Alltoall_intra_hier", {{"inter_algo=brucks", Json::object()}}}}}}))
        << tuned.dump();
}

// alltoallv: as alltoall, but csel.c selects it by total_msg_size (the sendcounts' sum:
// the block per pair times the 4 ranks; it asserts on avg_msg_size), so the chain's
// bounds are the blocks' times 4; pairwise_sendrecv_replace (in place only) never.
TEST_F(MeasuredPlanTest, AlltoallvPicksPerSizeByTheSendcountsSum) {
    options_.measured = {"alltoallv"};
    record_pair("alltoallv", "default", 10, 100);
    record_pair("alltoallv", "scattered", 8, 100);                  // fastest at 1K
    record_pair("alltoallv", "pairwise_sendrecv_replace", 5, 40);  // its time is a fallback's
    const Params direct{{"MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM", "direct"}};
    db_->record_point(job_, PointKey{"alltoallv", 1024, "hier", direct}, summary(12e-6, 12e-8));
    db_->record_point(job_, PointKey{"alltoallv", 65536, "hier", direct}, summary(50e-6, 50e-8));
    const TunePlan p = plan();
    ASSERT_TRUE(p.unpredicted.empty());
    ASSERT_EQ(p.cases.size(), 2u);
    EXPECT_EQ(p.cases[0].pick, "MPIR_Alltoallv_intra_scattered");
    EXPECT_EQ(p.verify[0], (VerifyCase{"alltoallv", 1024, false, 0, true}));
    EXPECT_EQ(p.cases[1].pick, "inter_algo=direct");
    EXPECT_EQ(p.verify[1], (VerifyCase{"alltoallv", 65536, true, 0}));
    Json stock = mpich_like_stock();
    const Json intra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoallv_intra_pairwise_sendrecv_replace": {}},
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoallv_intra_scattered": {}}})");
    stock["collective=alltoallv"] = {
        {"comm_type=intra", intra},
        {"comm_type=inter", {{"algorithm=MPIR_Alltoallv_inter_pairwise_exchange", Json::object()}}}};
    const Json tuned = plan_tree(p, stock).tree.tree["collective=alltoallv"]["comm_type=intra"]
                                                   ["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"];
    // below the smallest size measured (1 KiB blocks, 4 KiB sent) MPICH's selection;
    // scattered up to the midpoint of 4 KiB and 256 KiB sent (4096 + (262144 - 4096) / 2)
    const Json scattered{{"algorithm=MPIR_Alltoallv_intra_scattered", {{"whole_comm=1", Json::object()}}}};
    EXPECT_EQ(tuned, (Json{{"total_msg_size<=4095", intra},
                           {"total_msg_size<=133120",
                            {{"is_sendbuf_inplace=no", scattered}, {"is_sendbuf_inplace=yes", intra}}},
                           {"total_msg_size=any",
                            {{"algorithm=MPIR_Alltoallv_intra_hier", {{"inter_algo=direct", Json::object()}}}}}}))
        << tuned.dump();
}

// gatherv and scatterv: hier (its one inter-node step) against MPICH's selection and
// algorithms, one choice per shape (csel.c sizes neither), into MPICH 5.0.1's stock of a
// bare allcomm container (no comm_type); MPICH's algorithm, picked, is its allcomm
// container on the whole comm (whole_comm=1), verified as routed there.
TEST_F(MeasuredPlanTest, GathervAndScattervPickOncePerShapeIntoABareStock) {
    struct Case {
        std::string collective;
        std::string cvar;          // hier's inter-node step
        std::string linear;        // MPICH's container of linear, generic.json's stock
        double hier_1k, hier_64k;  // us; MPICH's selection 10 / 100, linear 8 / 80
        bool hier_picked;
    };
    const Case cases[] = {
        {"gatherv", "MPIR_CVAR_GATHERV_HIER_INTER_ALGORITHM", "MPIR_Gatherv_allcomm_linear", 9, 90, false},
        {"scatterv", "MPIR_CVAR_SCATTERV_HIER_INTER_ALGORITHM", "MPIR_Scatterv_allcomm_linear", 5, 50, true}};
    for (const Case& c : cases) {
        job_ = db_->find_or_create_job(JobDescription{"box-" + c.collective, 4, 2, 2, "block", "b"});
        options_.measured = {c.collective};
        record_pair(c.collective, "default", 10, 100);
        record_pair(c.collective, "linear", 8, 80);
        record_pair(c.collective, "nb", 20, 200);
        const Params hier{{c.cvar, "linear"}};
        db_->record_point(job_, PointKey{c.collective, 1024, "hier", hier},
                          summary(c.hier_1k * 1e-6, c.hier_1k * 1e-8));
        db_->record_point(job_, PointKey{c.collective, 65536, "hier", hier},
                          summary(c.hier_64k * 1e-6, c.hier_64k * 1e-8));
        const TunePlan p = plan();
        ASSERT_TRUE(p.unpredicted.empty()) << c.collective;
        ASSERT_EQ(p.cases.size(), 2u) << c.collective;
        const std::string pick = c.hier_picked ? "inter_algo=linear" : c.linear;
        EXPECT_EQ(p.cases[0].pick, pick);
        EXPECT_EQ(p.cases[1].pick, pick);
        EXPECT_EQ(p.verify[1], (VerifyCase{c.collective, 65536, c.hier_picked, 0, !c.hier_picked})) << c.collective;
        Json stock = mpich_like_stock();
        const Json bare{{"algorithm=" + c.linear, Json::object()}};
        stock["collective=" + c.collective] = bare;
        const Json tree = plan_tree(p, stock).tree.tree["collective=" + c.collective];
        const Json leaf = c.hier_picked ? Json{{"algorithm=" + csel::container_name(c.collective, "hier"),
                                                {{"inter_algo=linear", Json::object()}}}}
                                        : Json{{"algorithm=" + c.linear, {{"whole_comm=1", Json::object()}}}};
        EXPECT_EQ(tree["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=4"]["comm_avg_ppn<=2"], leaf)
            << tree.dump();
        EXPECT_EQ(tree["comm_type=inter"], bare);
    }
}

TreeTimingRow gather_row(std::uint64_t bytes, TreeVerdict verdict) {
    TreeTimingRow row = timing_row(bytes, verdict);
    row.collective = "gather";
    return row;
}

// A slower verdict where the pick is MPICH's selection (the tree runs what no tree runs)
// is the verdict's chance: marked, printed, not counted.
TEST_F(MeasuredPlanTest, SlowerWhereTheTreeChoseStockIsNoise) {
    record_all(10.05, 60, 9, 50);
    TunePlan p = plan();
    p.cases[0].pick = kStockLabel;  // 1K: MPICH's selection
    TreeTimingReport timing;
    timing.rows = {gather_row(1024, TreeVerdict::slower), gather_row(65536, TreeVerdict::slower)};
    mark_same_choices(p, timing);
    EXPECT_TRUE(timing.rows[0].same_choice);
    EXPECT_FALSE(timing.rows[1].same_choice);
    ASSERT_EQ(timing.slower().size(), 1u);
    EXPECT_EQ(timing.slower()[0]->msg_bytes, 65536u);
    std::ostringstream text;
    write_tree_timing_text(timing, text);
    EXPECT_NE(text.str().find("slower, same choice: noise\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("1 of 2 sizes slower beyond the noise"), std::string::npos) << text.str();
}

// A faster verdict there is the same chance: marked too, and the CSV says which rows
// do not count.
TEST_F(MeasuredPlanTest, FasterWhereTheTreeChoseStockIsNoiseToo) {
    record_all(10.05, 60, 9, 50);
    TunePlan p = plan();
    p.cases[0].pick = kStockLabel;
    TreeTimingReport timing;
    timing.rows = {gather_row(1024, TreeVerdict::faster), gather_row(65536, TreeVerdict::faster)};
    mark_same_choices(p, timing);
    std::ostringstream text;
    write_tree_timing_text(timing, text);
    EXPECT_NE(text.str().find("  faster, same choice: noise\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("  faster\n"), std::string::npos) << text.str();
    std::ostringstream csv;
    write_tree_timing_csv(timing, csv);
    EXPECT_NE(csv.str().find(",faster,same_choice\n"), std::string::npos) << csv.str();
    EXPECT_NE(csv.str().find(",faster,\n"), std::string::npos) << csv.str();
}

// Step 5b's tree is not timed again: the timed tree's rows stand, the sizes put back
// marked (their figures are of a choice the tree written no longer makes) and not counted.
TEST_F(MeasuredPlanTest, PutBackSizesKeepTheTimedTreesFiguresUncounted) {
    record_all(10.05, 60, 9, 50);
    TunePlan p = plan();
    p.cases[0].pick = kStockLabel;  // 1K: put back by step 5b
    TreeTimingReport timing;
    timing.rows = {gather_row(1024, TreeVerdict::slower), gather_row(65536, TreeVerdict::within_noise)};
    const std::vector<RevertedPick> reverted{{"gather", 1024, "inter_algo=linear", timing.rows[0]}};
    mark_same_choices(p, timing, reverted);
    EXPECT_TRUE(timing.rows[0].put_back);
    EXPECT_FALSE(timing.rows[0].same_choice);
    EXPECT_FALSE(timing.rows[1].put_back);
    EXPECT_TRUE(timing.slower().empty());
    EXPECT_FALSE(timing.failed());
    std::ostringstream text;
    write_tree_timing_text(timing, text);
    EXPECT_NE(text.str().find("  slower: put back\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("  within noise\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("0 of 2 sizes slower beyond the noise: ok"), std::string::npos) << text.str();
}

// Step 5b for one choice per shape: kept where no size is slower and one is faster,
// else stock at every size (the tree cannot split it by size).
TEST_F(MeasuredPlanTest, OneChoiceGoesBackWhole) {
    record_all(10.05, 60, 9, 50);
    TunePlan p = plan();
    TreeTimingReport timing;
    timing.rows = {gather_row(1024, TreeVerdict::within_noise), gather_row(65536, TreeVerdict::faster)};
    EXPECT_TRUE(keep_measured_faster(p, timing).empty());
    EXPECT_EQ(p.cases[0].pick, "inter_algo=binomial");
    timing.rows = {gather_row(1024, TreeVerdict::within_noise), gather_row(65536, TreeVerdict::within_noise)};
    TunePlan unproven = plan();
    EXPECT_EQ(keep_measured_faster(unproven, timing).size(), 2u);
    timing.rows = {gather_row(1024, TreeVerdict::slower), gather_row(65536, TreeVerdict::faster)};
    TunePlan slower = plan();
    EXPECT_EQ(keep_measured_faster(slower, timing).size(), 2u);
    EXPECT_EQ(slower.cases[0].pick, "stock");
    EXPECT_EQ(slower.cases[1].pick, "stock");
    EXPECT_EQ(slower.verify[0], (VerifyCase{"gather", 1024, false, 0}));
}

// Fitted on 4 nodes: binomial (MPICH's) with a cheap start-up and costly bytes,
// seg_pipeline (the plugin's) the other way round, as on a slow link.
PredictionBasis four_node_basis() {
    PredictionBasis basis;
    basis.fit_job = 7;
    basis.fitted_procs = 4;
    basis.models = {{"bcast", "binomial", {}, 4, 1e-6, 100e-9, 3},
                    {"bcast", "seg_pipeline", {{"MPIR_CVAR_BCAST_SEG_SEGSIZE", "65536"}}, 4, 500e-6, 10e-9, 3}};
    basis.inputs.gammas.by_segment.emplace(65536, analytic::Gamma(std::map<int, double>{{2, 1.0}, {3, 2.0}}));
    basis.smallest_fitted = 16384;
    basis.segsizes = {65536};
    basis.chain_fanouts = {2};
    return basis;
}

// A shape larger than the allocation gets the plugin's pick only where the models
// predict it faster than every MPICH algorithm by the margin; the tree keys it at the
// shape's position, one rank per node, and the coverage says "predicted".
TEST(PredictedShape, PicksThePluginOnlyWhereFasterByTheMargin) {
    const PredictionBasis basis = four_node_basis();
    const std::uint64_t mib = 1 << 20;
    const PredictedShape predicted =
        predict_shape(JobShape{8, 1}, {{"bcast", {8192, 16384, mib}}, {"allreduce", {8192, 16384, mib}}}, basis);
    ASSERT_EQ(predicted.cases.size(), 3u);  // allreduce: no model, nothing predicted
    const PredictedCase& below = predicted.cases[0];
    EXPECT_FALSE(below.picked);  // under the smallest fitted size: MPICH's selection
    EXPECT_TRUE(below.plugin_label.empty());
    const analytic::Candidate binomial{Configuration{"bcast", "binomial", {}}, analytic::Line{1e-6, 100e-9}};
    for (const PredictedCase& c : {predicted.cases[1], predicted.cases[2]}) {
        ASSERT_TRUE(c.plugin_seconds && c.mpich_seconds);
        EXPECT_EQ(c.mpich_label, "binomial");
        EXPECT_DOUBLE_EQ(*c.mpich_seconds, analytic::predict(binomial, 8, c.msg_bytes, basis.inputs));
        EXPECT_EQ(c.picked, *c.plugin_seconds * (1 + kPredictedMargin) <= *c.mpich_seconds) << c.msg_bytes;
    }
    // 16 KiB: the plugin's predicted faster, but not by the margin
    EXPECT_LT(*predicted.cases[1].plugin_seconds, *predicted.cases[1].mpich_seconds);
    EXPECT_FALSE(predicted.cases[1].picked);
    EXPECT_TRUE(predicted.cases[2].picked);
    EXPECT_EQ(predicted.cases[2].plugin_label, "MPIR_Bcast_intra_seg_pipeline segsize=65536");

    const TunePlan& plan = predicted.plan;
    EXPECT_TRUE(plan.predicted);
    EXPECT_EQ(std::make_pair(plan.comm_size, plan.ppn), std::make_pair(8, 1));
    const std::vector<CoverageRow> rows = coverage(plan, {});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].source, PickSource::stock);
    EXPECT_EQ(rows[0].last_bytes, 16384u);
    EXPECT_EQ(rows[1].source, PickSource::predicted);
    const TreeCoverage file = tree_coverage("d", {{&plan, nullptr}});
    ASSERT_EQ(file.positions.size(), 1u);
    EXPECT_TRUE(file.positions[0].predicted);
    EXPECT_EQ(file.positions[0].shape, "8x1");
    ASSERT_EQ(file.positions[0].ranges.size(), 2u);
    EXPECT_EQ(file.positions[0].ranges[1].source, "predicted");
    const std::vector<std::string> lines = predicted_shape_lines(predicted, basis);
    EXPECT_NE(lines.front().find("predicted shape 8x1"), std::string::npos) << lines.front();
    EXPECT_NE(lines.back().find("predicted"), std::string::npos) << lines.back();

    TunePlan main;  // the allocation's own shape, 4 x 2, one stock pick
    main.comm_size = 8;
    main.ppn = 2;
    main.nodes = 4;
    main.collectives["bcast"].picks = {{8, 2, 65536, csel::Choice::stock_tree()}};
    main.collectives["bcast"].stock_measured = true;
    const Json tree = plan_tree(main, mpich_like_stock(), {&plan}).tree.tree;
    csel::CallPoint call;
    call.comm_size = 8;
    call.nodes = 8;
    call.bytes = mib;
    EXPECT_EQ(csel::select(tree, call).container, "MPIR_Bcast_intra_seg_pipeline");
    call.bytes = 16384;
    EXPECT_EQ(csel::select(tree, call).container, "MPIR_Bcast_intra_binomial");  // the stock tree's
    call.bytes = mib;
    call.nodes = 4;  // 8 ranks on 4 nodes: the measured shape's branch
    EXPECT_EQ(csel::select(tree, call).container, "MPIR_Bcast_intra_binomial");
}

TEST(PredictedShape, OnlyOneRankPerNodeBeyondTheNodesFitted) {
    const PredictionBasis basis = four_node_basis();
    EXPECT_THROW(predict_shape(JobShape{8, 2}, {{"bcast", {65536}}}, basis), std::invalid_argument);
    EXPECT_THROW(predict_shape(JobShape{4, 1}, {{"bcast", {65536}}}, basis), std::invalid_argument);
    EXPECT_NO_THROW(predict_shape(JobShape{5, 1}, {{"bcast", {65536}}}, basis));
}

}  // namespace
}  // namespace hiertune
