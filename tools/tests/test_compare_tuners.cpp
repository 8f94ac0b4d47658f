// compare-tuners (compare_tuners.hpp): hand-computed slowdowns of hand-written
// trees on a small synthetic sweep, a pick that was not measured, a pick of the
// stock subtree (with and without the stock tree), MPICH's default row, the
// costs, the outputs and the errors.
#include <gtest/gtest.h>

#include <sstream>

#include "hiertune/report/compare_tuners.hpp"
#include "hiertune/common/usage_error.hpp"
#include "temp_dir.hpp"

namespace hiertune {
namespace {

constexpr const char* kSeg = "MPIR_CVAR_BCAST_SEG_SEGSIZE";

Summary at_us(double us) {
    Summary s;
    s.n = 10;
    s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = us * 1e-6;
    s.converged = true;
    return s;
}

JobDescription shape(const std::string& machine, int ranks) {
    return JobDescription{machine, ranks, ranks, 1, "block", "mpich test"};
}

// P=2 (2 nodes x 1): bcast 1024 B: binomial 4 us, scatter_ring_allgather 6 us (no default).
// P=4 (4 nodes x 1), bcast, us:
//            default  binomial  scatter_ring  seg_pipeline segsize=16384
//   1024        10        8          20           30         best binomial
//   65536      100      120          80           90         best scatter_ring
//   1048576   1000     1500         900          600         best seg_pipeline
// and reduce 1024 B: default 7 us.
class CompareTunersTest : public test::TempDirTest {
protected:
    void SetUp() override {
        test::TempDirTest::SetUp();
        MeasureDb db = MeasureDb::open(path_);
        four_ = db.find_or_create_job(shape("m", 4));
        two_ = db.find_or_create_job(shape("m", 2));
        const auto put = [&](JobId job, std::uint64_t bytes, const std::string& algorithm, Params params, double us,
                             const std::string& collective = "bcast") {
            ASSERT_TRUE(db.record_point(job, PointKey{collective, bytes, algorithm, std::move(params)}, at_us(us)));
        };
        put(two_, 1024, "binomial", {}, 4);
        put(two_, 1024, "scatter_ring_allgather", {}, 6);
        const std::uint64_t sizes[] = {1024, 65536, 1048576};
        const double times[][4] = {{10, 8, 20, 30}, {100, 120, 80, 90}, {1000, 1500, 900, 600}};
        for (int i = 0; i < 3; ++i) {
            put(four_, sizes[i], "default", {}, times[i][0]);
            put(four_, sizes[i], "binomial", {}, times[i][1]);
            put(four_, sizes[i], "scatter_ring_allgather", {}, times[i][2]);
            put(four_, sizes[i], "seg_pipeline", {{kSeg, "16384"}}, times[i][3]);
        }
        put(four_, 1024, "default", {}, 7, "reduce");
        db.add_step_time(four_, "exhaustive", 100);
        db.add_step_time(four_, "fit", 7);
        db.add_step_time(two_, "exhaustive", 20);
        ASSERT_TRUE(db.record_fit_point(four_, FitKey{kFitGamma, "", "", {}, 2, 65536, 0}, at_us(3)));
    }

    // binomial to 2048 B, then scatter_recursive_doubling_allgather (never
    // measured) to 128 KiB, then scatter_ring_allgather; no reduce
    static csel::Json hand_tree() {
        return csel::Json::parse(R"({"collective=bcast": {"comm_type=intra": {
            "avg_msg_size<=2048": {"algorithm=MPIR_Bcast_intra_binomial": {}},
            "avg_msg_size<=131072": {"algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {}},
            "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}}})");
    }
    // MPICH's tree, in small: binomial below 4 ranks, else scatter_ring_allgather
    static csel::Json stock_tree() {
        return csel::Json::parse(R"({"collective=bcast": {"comm_type=intra": {
            "comm_size<4": {"algorithm=MPIR_Bcast_intra_binomial": {}},
            "comm_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}}})");
    }
    // the stock subtree (as build_tree writes it) to 2048 B, seg_pipeline with
    // 16 KiB segments (measured) to 128 KiB, then with 64 KiB (not measured)
    static csel::Json stocky_tree() {
        csel::Json tree = csel::Json::parse(R"({"collective=bcast": {"comm_type=intra": {
            "avg_msg_size<=2048": {},
            "avg_msg_size<=131072": {"algorithm=MPIR_Bcast_intra_seg_pipeline": {"segsize=16384": {}}},
            "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_seg_pipeline": {"segsize=65536": {}}}}}})");
        tree["collective=bcast"]["comm_type=intra"]["avg_msg_size<=2048"] =
            csel::strict_comm_size(stock_tree()["collective=bcast"]["comm_type=intra"]);
        return tree;
    }

    JobId four_ = 0, two_ = 0;
};

const TunerRow& row_named(const TunerComparison& c, const std::string& name) {
    for (const TunerRow& row : c.rows)
        if (row.name == name) return row;
    throw std::runtime_error("no row " + name);
}

TEST_F(CompareTunersTest, HandComputedSlowdownsAndDefaultRow) {
    const MeasureDb db = MeasureDb::open(path_);
    CompareOptions options;
    options.collectives = {"bcast"};
    options.stock = stock_tree();
    const TunerComparison c =
        compare_tuners(db, {{"hand", hand_tree()}, {"stocky", stocky_tree()}}, options);
    EXPECT_EQ(c.machine, "m");
    ASSERT_EQ(c.cases.size(), 4u);  // P=2 1024, P=4 1024, 65536, 1048576
    EXPECT_EQ(c.cases[0].label, "bcast P=2 (2x1)");
    EXPECT_EQ(c.cases[0].best, "binomial");
    EXPECT_EQ(c.cases[3].label, "bcast P=4 (4x1)");
    EXPECT_EQ(c.cases[3].best, "seg_pipeline MPIR_CVAR_BCAST_SEG_SEGSIZE=16384");
    EXPECT_DOUBLE_EQ(c.cases[3].best_seconds, 600e-6);
    ASSERT_EQ(c.rows.size(), 4u);
    EXPECT_EQ(c.rows.front().name, "exhaustive");
    EXPECT_EQ(c.rows.back().name, "MPICH default");

    const TunerRow& exhaustive = c.rows[0];
    EXPECT_EQ(exhaustive.cases, 4u);
    EXPECT_EQ(exhaustive.not_measured, 0u);
    EXPECT_DOUBLE_EQ(*exhaustive.average_slowdown, 1.0);
    EXPECT_DOUBLE_EQ(*exhaustive.worst_slowdown, 1.0);
    EXPECT_EQ(*exhaustive.cost.points, 14u);       // 12 + 2 bcast points
    EXPECT_DOUBLE_EQ(*exhaustive.cost.seconds, 120);  // 100 + 20, not fit's 7

    // hand: P=2 1024 binomial 4/4; P=4: 1024 binomial 8/8, 65536 not measured, 1M ring 900/600
    const TunerRow& hand = row_named(c, "hand");
    EXPECT_EQ(hand.cases, 4u);
    EXPECT_EQ(hand.not_measured, 1u);
    EXPECT_NEAR(*hand.average_slowdown, (1 + 1 + 1.5) / 3, 1e-12);
    EXPECT_NEAR(*hand.worst_slowdown, 1.5, 1e-12);
    EXPECT_EQ(hand.worst_case, "bcast P=4 (4x1) 1048576 B");
    EXPECT_EQ(hand.picks[2].status, PickStatus::not_measured);
    EXPECT_NE(hand.picks[2].selection.find("MPIR_Bcast_intra_scatter_recursive_doubling_allgather"),
              std::string::npos);
    EXPECT_EQ(hand.picks[3].config, "scatter_ring_allgather");
    EXPECT_FALSE(hand.cost.points);  // no tuning database given

    // stocky: P=2 1024 stock, but default not measured there; P=4 1024 stock -> default 10/8;
    // 65536 seg_pipeline 16K 90/80; 1M seg_pipeline 64K not measured
    const TunerRow& stocky = row_named(c, "stocky");
    EXPECT_EQ(stocky.not_measured, 2u);
    EXPECT_EQ(stocky.picks[0].status, PickStatus::not_measured);
    EXPECT_EQ(stocky.picks[1].config, "default");
    EXPECT_EQ(stocky.picks[1].selection.rfind("stock subtree: ", 0), 0u);
    EXPECT_EQ(stocky.picks[2].config, "seg_pipeline MPIR_CVAR_BCAST_SEG_SEGSIZE=16384");
    EXPECT_NEAR(stocky.picks[2].slowdown, 1.125, 1e-12);
    EXPECT_EQ(stocky.picks[3].status, PickStatus::not_measured);
    EXPECT_NEAR(*stocky.average_slowdown, (1.25 + 1.125) / 2, 1e-12);
    EXPECT_NEAR(*stocky.worst_slowdown, 1.25, 1e-12);
    EXPECT_EQ(stocky.worst_case, "bcast P=4 (4x1) 1024 B");

    // MPICH's default: not measured at P=2; 10/8, 100/80, 1000/600
    const TunerRow& mpich = c.rows.back();
    EXPECT_EQ(mpich.not_measured, 1u);
    EXPECT_NEAR(*mpich.average_slowdown, (1.25 + 1.25 + 1000.0 / 600) / 3, 1e-12);
    EXPECT_NEAR(*mpich.worst_slowdown, 1000.0 / 600, 1e-12);
    EXPECT_EQ(mpich.worst_case, "bcast P=4 (4x1) 1048576 B");
    EXPECT_FALSE(mpich.cost.points);
}

TEST_F(CompareTunersTest, WithoutStockTreeAStockPickIsTheAlgorithmItRuns) {
    const MeasureDb db = MeasureDb::open(path_);
    CompareOptions options;
    options.collectives = {"bcast"};
    const TunerComparison c = compare_tuners(db, {{"stocky", stocky_tree()}}, options);
    const TunerRow& stocky = row_named(c, "stocky");
    // P=2 1024: binomial (comm_size<=3) 4/4; P=4 1024: scatter_ring_allgather 20/8; 65536 90/80
    EXPECT_EQ(stocky.picks[0].config, "binomial");
    EXPECT_EQ(stocky.picks[1].config, "scatter_ring_allgather");
    EXPECT_EQ(stocky.not_measured, 1u);
    EXPECT_NEAR(*stocky.average_slowdown, (1 + 2.5 + 1.125) / 3, 1e-12);
    EXPECT_NEAR(*stocky.worst_slowdown, 2.5, 1e-12);
    bool noted = false;
    for (const std::string& note : c.notes) noted = noted || note.find("no stock tree") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST_F(CompareTunersTest, ACollectiveTheTreeLacksIsNotMeasured) {
    const MeasureDb db = MeasureDb::open(path_);
    const TunerComparison c = compare_tuners(db, {{"hand", hand_tree()}}, CompareOptions{});
    ASSERT_EQ(c.cases.size(), 5u);  // the reduce case too
    const TunerRow& hand = row_named(c, "hand");
    EXPECT_EQ(hand.not_measured, 2u);
    EXPECT_EQ(hand.picks[4].status, PickStatus::not_measured);
    EXPECT_NE(hand.picks[4].selection.find("NO MATCH"), std::string::npos);
    // MPICH's default at reduce: the only point, the best: 1
    EXPECT_EQ(c.rows.back().picks[4].config, "default");
    EXPECT_DOUBLE_EQ(c.rows.back().picks[4].slowdown, 1.0);
    EXPECT_EQ(*c.rows.front().cost.points, 15u);
}

TEST_F(CompareTunersTest, TuningCosts) {
    const std::string learn_path = (dir_ / "learn.sqlite").string();
    {
        MeasureDb learn = MeasureDb::open(learn_path);
        const JobId job = learn.find_or_create_job(shape("m", 4));
        for (std::uint64_t bytes : {1024u, 2048u, 4096u})
            learn.record_point(job, PointKey{"bcast", bytes, "binomial", {}}, at_us(5));
        learn.add_step_time(job, "learn", 10);
        learn.add_step_time(job, "learn", 2);
        learn.add_step_time(job, "tree-timing", 4);  // a check of the tree, not tuning
    }
    const MeasureDb learn = MeasureDb::open(learn_path);
    const TuningCost cost = tuning_cost(learn);
    EXPECT_EQ(*cost.points, 3u);
    EXPECT_DOUBLE_EQ(*cost.seconds, 12);
    EXPECT_NE(cost.detail.find("not counted: tree-timing"), std::string::npos);

    // the analytic models' fit filed in the sweep's own file: its fit point and
    // step, not the sweep's points and time
    const MeasureDb db = MeasureDb::open(path_);
    CompareOptions options;
    options.collectives = {"bcast"};
    TunerComparison c = compare_tuners(db, {{"hand", hand_tree()}, {"ml", hand_tree()}}, options);
    EXPECT_EQ(sweep_jobs(c), (std::set<JobId>{four_, two_}));
    const TuningCost fit = tuning_cost(db, sweep_jobs(c));
    EXPECT_EQ(*fit.points, 1u);
    EXPECT_DOUBLE_EQ(*fit.seconds, 7);
    set_cost(c, "hand", fit);
    set_cost(c, "ml", cost);
    EXPECT_EQ(*row_named(c, "hand").cost.points, 1u);
    EXPECT_DOUBLE_EQ(*row_named(c, "ml").cost.seconds, 12);
    EXPECT_THROW(set_cost(c, "exhaustive", cost), UsageError);
    EXPECT_THROW(set_cost(c, "nope", cost), UsageError);
}

TEST_F(CompareTunersTest, Outputs) {
    const MeasureDb db = MeasureDb::open(path_);
    CompareOptions options;
    options.collectives = {"bcast"};
    options.stock = stock_tree();
    const TunerComparison c = compare_tuners(db, {{"hand", hand_tree()}}, options);

    std::ostringstream text;
    write_comparison_text(c, text);
    EXPECT_NE(text.str().find("tuner          cases  not measured  avg slowdown"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("hand               4             1         1.167"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("MPICH default      4             1         1.389"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("not measured: hand at bcast P=4 (4x1) 65536 B: MPIR_Bcast_intra_scatter_recursive"),
              std::string::npos);

    std::ostringstream csv;
    write_comparison_csv(c, csv);
    EXPECT_EQ(csv.str(),
              "tuner,cases,not_measured,average_slowdown,worst_slowdown,worst_case,points,seconds\n"
              "exhaustive,4,0,1.0000,1.0000,,14,120.000\n"
              "hand,4,1,1.1667,1.5000,bcast P=4 (4x1) 1048576 B,,\n"
              "MPICH default,4,1,1.3889,1.6667,bcast P=4 (4x1) 1048576 B,,\n");

    std::ostringstream json;
    write_comparison_json(c, json);
    const csel::Json doc = csel::Json::parse(json.str());
    EXPECT_EQ(doc["cases"], 4);
    ASSERT_EQ(doc["rows"].size(), 3u);
    EXPECT_EQ(doc["rows"][1]["tuner"], "hand");
    EXPECT_TRUE(doc["rows"][1]["points"].is_null());
    EXPECT_TRUE(doc["rows"][1]["picks"][2]["pick"].is_null());
    EXPECT_EQ(doc["rows"][1]["picks"][3]["pick"], "scatter_ring_allgather");
    EXPECT_DOUBLE_EQ(doc["rows"][1]["picks"][3]["slowdown"].get<double>(), 1.5);
}

TEST_F(CompareTunersTest, Errors) {
    {
        MeasureDb db = MeasureDb::open(path_);
        const JobId other = db.find_or_create_job(shape("other", 2));
        db.record_point(other, PointKey{"bcast", 1024, "binomial", {}}, at_us(1));
    }
    const MeasureDb db = MeasureDb::open(path_);
    CompareOptions options;
    EXPECT_THROW(compare_tuners(db, {{"hand", hand_tree()}}, options), UsageError);  // two machines
    options.machine = "nowhere";
    EXPECT_THROW(compare_tuners(db, {{"hand", hand_tree()}}, options), UsageError);
    options.machine = "m";
    EXPECT_NO_THROW(compare_tuners(db, {{"hand", hand_tree()}}, options));
    EXPECT_THROW(compare_tuners(db, {}, options), UsageError);
    EXPECT_THROW(compare_tuners(db, {{"exhaustive", hand_tree()}}, options), UsageError);
    EXPECT_THROW(compare_tuners(db, {{"MPICH default", hand_tree()}}, options), UsageError);
    EXPECT_THROW(compare_tuners(db, {{"a", hand_tree()}, {"a", hand_tree()}}, options), UsageError);
    options.collectives = {"allreduce"};
    EXPECT_THROW(compare_tuners(db, {{"hand", hand_tree()}}, options), UsageError);
}

}  // namespace
}  // namespace hiertune
