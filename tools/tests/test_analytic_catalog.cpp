// The analytic models by name, `hiertune fit`'s equations and fit, its database
// tables, and `generate --from analytic` (no MPI).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/models/analytic_model.hpp"
#include "hiertune/report/analytic_report.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/usage_error.hpp"
#include "mpich_trees.hpp"
#include "summaries.hpp"
#include "temp_dir.hpp"

namespace hiertune::analytic {
namespace {

const char* kBcastSeg = "MPIR_CVAR_BCAST_SEG_SEGSIZE";
const char* kBcastFanout = "MPIR_CVAR_BCAST_SEG_FANOUT";

Configuration seg(const std::string& algorithm, std::uint64_t segsize) {
    return Configuration{"bcast", algorithm, {{kBcastSeg, std::to_string(segsize)}}};
}

ModelInputs inputs_with_gamma() {
    ModelInputs inputs;
    inputs.gammas.by_segment.emplace(16384, Gamma(std::map<int, double>{{2, 10e-6}, {3, 15e-6}, {4, 21e-6}}));
    inputs.gammas.by_segment.emplace(262144, Gamma(std::map<int, double>{{2, 10e-6}, {3, 12e-6}, {4, 14e-6}}));
    return inputs;
}

TEST(AnalyticCatalog, ModelledAlgorithmsComeFromMpichAndTheGrammar) {
    const std::vector<std::string> bcast = modelled_algorithms("bcast");
    for (const char* item : {"binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather", "seg_linear",
                             "seg_chain", "seg_pipeline", "seg_binary", "seg_split_binary", "seg_binomial"})
        EXPECT_NE(std::find(bcast.begin(), bcast.end(), item), bcast.end()) << item;
    EXPECT_EQ(std::find(bcast.begin(), bcast.end(), "seg_in_order_binary"), bcast.end());
    EXPECT_EQ(bcast.size(), 9u);
    const std::vector<std::string> reduce = modelled_algorithms("reduce");
    EXPECT_EQ(reduce.size(), 8u);  // binomial, reduce_scatter_gather, six trees
    EXPECT_NE(std::find(reduce.begin(), reduce.end(), "seg_in_order_binary"), reduce.end());
    EXPECT_TRUE(modelled_algorithms("allreduce").empty());
    EXPECT_EQ(modelled_collectives(), (std::vector<std::string>{"bcast", "reduce"}));
    EXPECT_EQ(modelled_collectives_text(), "bcast and reduce");
    EXPECT_EQ(seg_param_cvar("reduce", "fanout"), "MPIR_CVAR_REDUCE_SEG_FANOUT");
}

TEST(AnalyticCatalog, AModelNeedsItsParametersAndNoOthers) {
    EXPECT_TRUE(has_model(seg("seg_binomial", 65536)));
    EXPECT_FALSE(has_model(Configuration{"bcast", "seg_binomial", {}}));  // which segment size?
    Configuration windowed = seg("seg_binomial", 65536);
    windowed.params["MPIR_CVAR_BCAST_SEG_WINDOW"] = "2";
    EXPECT_FALSE(has_model(windowed));
    Configuration chain = seg("seg_chain", 65536);
    EXPECT_FALSE(has_model(chain));
    chain.params[kBcastFanout] = "2";
    EXPECT_TRUE(has_model(chain));
    EXPECT_TRUE(has_model(Configuration{"bcast", "binomial", {}}));
    EXPECT_FALSE(has_model(Configuration{"bcast", "binomial", {{kBcastSeg, "1024"}}}));
    EXPECT_FALSE(has_model(Configuration{"bcast", "hier", {}}));
    EXPECT_FALSE(has_model(Configuration{"bcast", "default", {}}));
    EXPECT_THROW(algorithm_cost(Configuration{"bcast", "hier", {}}, 4, 1024, inputs_with_gamma(), Line{}),
                 std::invalid_argument);
}

TEST(AnalyticCatalog, SegmentTreesUseTheGammaOfTheirSegmentSize) {
    const ModelInputs inputs = inputs_with_gamma();
    // 64 KiB lies as far from 16 KiB as from 256 KiB in log scale: the smaller wins
    EXPECT_EQ(&inputs.gammas.at(65536), &inputs.gammas.by_segment.at(16384));
    EXPECT_EQ(&inputs.gammas.at(200000), &inputs.gammas.by_segment.at(262144));
    const Cost cost = algorithm_cost(seg("seg_linear", 262144), 4, 262144, inputs, Line{});
    EXPECT_DOUBLE_EQ(cost.a, 1.4);  // one stage, fan-out to 3: T(4) / T(2) = 14 / 10
    EXPECT_DOUBLE_EQ(cost.b, 1.4 * 262144);
    const Cost same = tree_bcast_cost(MPII_HIER_TREE_LINEAR, 4, 1, 262144, 262144, inputs.gammas.by_segment.at(262144));
    EXPECT_DOUBLE_EQ(cost.a, same.a);
    EXPECT_EQ(algorithm_cost(seg("seg_linear", 1024), 1, 4096, inputs, Line{}).a, 0);  // one rank: nothing moves
}

TEST(AnalyticCatalog, SegBcastsUpToTheEagerLimitTakeTheLinkModel) {
    ModelInputs inputs = inputs_with_gamma();
    const Line reference{1e-6, 1e-9};
    // split-binary on 3 ranks, 8 KiB in one segment: halves of 4 KiB
    const Cost stages = algorithm_cost(seg("seg_split_binary", 262144), 3, 8192, inputs, reference);
    EXPECT_DOUBLE_EQ(stages.a, 1.2 + 1);  // gamma(3) at 256 KiB, then the exchange
    inputs.eager_bytes = 4096;
    const Cost links = algorithm_cost(seg("seg_split_binary", 262144), 3, 8192, inputs, reference);
    EXPECT_DOUBLE_EQ(links.a, 4);  // test_link_model.cpp: 4 halves
    EXPECT_DOUBLE_EQ(links.b, 4 * 4096);
    // a half of 4097 bytes is above the limit; the reduces keep their stages
    EXPECT_DOUBLE_EQ(algorithm_cost(seg("seg_split_binary", 262144), 3, 8194, inputs, reference).a, 2.2);
    EXPECT_DOUBLE_EQ(
        algorithm_cost(Configuration{"reduce", "seg_binary", {{"MPIR_CVAR_REDUCE_SEG_SEGSIZE", "262144"}}}, 4, 4096,
                       inputs, reference)
            .a,
        1 + 1.2);  // rank 1's fan-in from 3, then the root's from 1 and 2
}

TEST(AnalyticCatalog, ExperimentAddsTheLinearGather) {
    const ModelInputs inputs;
    const Configuration binomial{"bcast", "binomial", {}};
    // P = 8: 3 transfers of m, then 7 of the 1 KiB gather
    const Cost cost = experiment_cost(binomial, 8, 4096, 1024, inputs, Line{});
    EXPECT_DOUBLE_EQ(cost.a, 3 + 7);
    EXPECT_DOUBLE_EQ(cost.b, 3 * 4096 + 7 * 1024);
    EXPECT_EQ(experiment_gather_bytes(1024, 0), 1024u);
    EXPECT_EQ(experiment_gather_bytes(1024, 9), 10240u);
}

// A segmented tree's own cost is a multiple of alpha + beta * segsize at every
// m >= segsize: without the gather alpha and beta cannot be told apart.
TEST(AnalyticCatalog, VaryingGatherSeparatesAlphaFromBetaOfSegmentedTrees) {
    ModelInputs inputs;
    inputs.gammas.by_segment.emplace(4096, Gamma(std::map<int, double>{{2, 10e-6}, {3, 12e-6}, {4, 14e-6}}));
    const Configuration c{"reduce", "seg_linear", {{"MPIR_CVAR_REDUCE_SEG_SEGSIZE", "4096"}}};
    const Line truth{30e-6, 85e-9};
    std::vector<Measured> experiments;
    const std::vector<std::uint64_t> sizes{4096, 16384, 65536};
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::uint64_t gather = experiment_gather_bytes(512, i);
        experiments.push_back(
            {4, sizes[i], gather, experiment_cost(c, 4, sizes[i], gather, inputs, truth).seconds(truth)});
    }
    const Line fitted = fit_experiments(c, experiments, inputs, Line{});
    EXPECT_NEAR(fitted.alpha, truth.alpha, 1e-9);
    EXPECT_NEAR(fitted.beta, truth.beta, 1e-12);
    for (Measured& m : experiments) m.gather_bytes = 0;  // no gather: every x is the segment size
    EXPECT_THROW(fit_experiments(c, experiments, inputs, Line{}), std::invalid_argument);
}

// Synthetic experiments from a known line: recovered exactly, also where the
// critical path depends on the line (scatter-ring, from a first guess far off).
// With +-1 % noise on every experiment and one disturbed by half its time, the
// fit (relative errors, Huber) still predicts every undisturbed experiment
// within 6 %.
TEST(AnalyticCatalog, FitRecoversAlphaAndBetaDespiteAnOutlier) {
    const ModelInputs inputs = inputs_with_gamma();
    const Line truth{50e-6, 80e-9};
    for (const Configuration& c : {seg("seg_binomial", 16384), Configuration{"bcast", "scatter_ring_allgather", {}}}) {
        std::vector<Measured> experiments;
        const std::vector<std::uint64_t> sizes = log_spaced_sizes(8192, 4 << 20, 10);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const std::uint64_t gather = experiment_gather_bytes(1024, i);
            experiments.push_back(
                Measured{4, sizes[i], gather, experiment_cost(c, 4, sizes[i], gather, inputs, truth).seconds(truth)});
        }
        const Line exact = fit_experiments(c, experiments, inputs, Line{1e-3, 1e-6});
        EXPECT_NEAR(exact.alpha, truth.alpha, 1e-3 * truth.alpha) << c.algorithm;
        EXPECT_NEAR(exact.beta, truth.beta, 1e-3 * truth.beta) << c.algorithm;
        std::vector<Measured> disturbed = experiments;
        for (std::size_t i = 0; i < disturbed.size(); ++i) disturbed[i].seconds *= i % 2 ? 1.01 : 0.99;
        disturbed[5].seconds *= 1.5;  // 256 KiB
        const Line fitted = fit_experiments(c, disturbed, inputs, Line{1e-3, 1e-6});
        for (std::size_t i = 0; i < experiments.size(); ++i) {
            if (i == 5) continue;
            const Measured& m = experiments[i];
            const double predicted =
                experiment_cost(c, m.procs, m.msg_bytes, m.gather_bytes, inputs, fitted).seconds(fitted);
            EXPECT_NEAR(predicted / m.seconds, 1, 0.06) << c.algorithm << " " << m.msg_bytes;
        }
    }
}

TEST(AnalyticCatalog, LogSpacedSizes) {
    const std::vector<std::uint64_t> sizes = log_spaced_sizes(8192, 4 << 20, 10);
    ASSERT_EQ(sizes.size(), 10u);
    EXPECT_EQ(sizes.front(), 8192u);
    EXPECT_EQ(sizes.back(), 4u << 20);
    for (std::size_t i = 1; i < sizes.size(); ++i)  // 512x in 9 steps: 2^(1/9 * 9) = 2 each
        EXPECT_NEAR(static_cast<double>(sizes[i]) / sizes[i - 1], 2.0, 0.001);
    EXPECT_EQ(log_spaced_sizes(100, 100, 5), std::vector<std::uint64_t>{100});  // distinct only
    EXPECT_EQ(log_spaced_sizes(7, 9, 1), std::vector<std::uint64_t>{7});
    EXPECT_THROW(log_spaced_sizes(0, 9, 3), std::invalid_argument);
    EXPECT_THROW(log_spaced_sizes(9, 8, 3), std::invalid_argument);
}

TEST(AnalyticCatalog, FitSpecsNameTheExperimentsParameters) {
    const std::vector<AlgorithmSpec> specs = fit_algorithm_specs("bcast", {"binomial", "seg_chain"}, 65536, 2);
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_TRUE(specs[0].params.empty());
    ASSERT_EQ(specs[1].params.size(), 2u);
    EXPECT_EQ(specs[1].params[0].name, kBcastSeg);
    EXPECT_EQ(specs[1].params[0].values, std::vector<std::string>{"65536"});
    EXPECT_EQ(specs[1].params[1].values, std::vector<std::string>{"2"});
    EXPECT_EQ(fit_algorithm_specs("reduce", {}, 65536, 2).size(), 8u);
    EXPECT_THROW(fit_algorithm_specs("bcast", {"smp"}, 65536, 2), std::invalid_argument);
}

Summary at(double seconds) { return test::exact_summary(seconds, 10); }

std::vector<StoredFitPoint> synthetic_points(const Line& truth) {
    std::vector<StoredFitPoint> points;
    for (int p = 2; p <= 4; ++p)
        points.push_back({FitKey{kFitGamma, "", "", {}, p, 65536, 0}, at(p == 2 ? 10e-6 : p == 3 ? 13e-6 : 16e-6)});
    ModelInputs inputs;
    inputs.gammas.by_segment.emplace(65536, Gamma(std::map<int, double>{{2, 10e-6}, {3, 13e-6}, {4, 16e-6}}));
    for (const Configuration& c : {seg("seg_pipeline", 65536), Configuration{"bcast", "binomial", {}}})
        for (std::uint64_t bytes : {65536u, 262144u, 1048576u})
            points.push_back({FitKey{kFitExperiment, c.collective, c.algorithm, c.params, 4, bytes, 1024},
                              at(experiment_cost(c, 4, bytes, 1024, inputs, truth).seconds(truth))});
    return points;
}

TEST(AnalyticCatalog, EagerLimitIsTheLargestSizeUpToWhichEverySendWasEager) {
    const auto eager = [](std::vector<std::pair<std::uint64_t, double>> ratios) {
        std::vector<StoredEagerPoint> points;
        for (const auto& [bytes, ratio] : ratios) points.push_back(StoredEagerPoint{bytes, at(ratio)});
        return eager_limit(points);
    };
    EXPECT_EQ(eager({}), 0u);
    EXPECT_EQ(eager({{1024, 0.02}, {2048, 0.03}, {4096, 0.9}, {8192, 1.0}}), 2048u);
    EXPECT_EQ(eager({{8192, 1.0}, {1024, 0.02}, {4096, 0.2}, {2048, 0.03}}), 4096u);  // in any order
    EXPECT_EQ(eager({{1024, 0.8}, {2048, 0.1}}), 0u);                               // not eager from the start
    EXPECT_EQ(eager({{1024, 0.1}, {2048, 0.9}, {4096, 0.1}}), 1024u);               // not past a rendezvous
    EXPECT_EQ(eager({{1024, 0.1}, {2048, kEagerRatio}}), 1024u);
}

TEST(AnalyticCatalog, FitPointsGiveGammaAndEveryAlgorithmsLine) {
    const Line truth{40e-6, 90e-9};
    const FitResult fit = fit_points(synthetic_points(truth), {}, Line{10e-6, 1e-9});
    EXPECT_TRUE(fit.notes.empty());
    ASSERT_EQ(fit.inputs.gammas.by_segment.size(), 1u);
    EXPECT_DOUBLE_EQ(fit.inputs.gammas.at(65536)(4), 1.6);
    ASSERT_EQ(fit.models.size(), 2u);
    for (const FittedModel& model : fit.models) {
        EXPECT_NEAR(model.alpha, truth.alpha, 1e-9) << model.algorithm;
        EXPECT_NEAR(model.beta, truth.beta, 1e-12) << model.algorithm;
        EXPECT_EQ(model.procs, 4);
        EXPECT_EQ(model.equations, 3u);
    }
    // without T(2) there is no gamma: the seg tree cannot be fitted, binomial can
    std::vector<StoredFitPoint> points = synthetic_points(truth);
    points.erase(points.begin());
    const FitResult partial = fit_points(points, {}, Line{10e-6, 1e-9});
    EXPECT_EQ(partial.models.size(), 1u);
    EXPECT_EQ(partial.notes.size(), 2u);  // gamma, and the seg tree it leaves unfitted
}

TEST(AnalyticCatalog, CandidatesAndTheFastest) {
    const std::vector<FittedModel> models{{"bcast", "binomial", {}, 4, 1e-6, 1e-9, 5},
                                          {"bcast", "seg_chain", {}, 4, 2e-6, 1e-9, 5},
                                          {"reduce", "binomial", {}, 4, 1e-6, 1e-9, 5}};
    const std::vector<Candidate> candidates = candidates_of(models, "bcast", {16384, 65536}, {2, 4});
    ASSERT_EQ(candidates.size(), 1u + 2 * 2);
    EXPECT_EQ(candidates[1].configuration.params.at(kBcastSeg), "16384");
    EXPECT_EQ(candidates[1].configuration.params.at(kBcastFanout), "2");
    EXPECT_DOUBLE_EQ(candidates[4].alpha_beta.alpha, 2e-6);

    // binomial 8 ranks: 3 transfers; seg_pipeline 1 segment: 7 stages; both with
    // the same line, binomial wins; pipeline wins with a 4x cheaper line
    ModelInputs inputs;
    inputs.gammas.by_segment.emplace(65536, Gamma(std::map<int, double>{{2, 1.0}}));
    const std::vector<Candidate> two{{Configuration{"bcast", "binomial", {}}, Line{1e-6, 1e-9}},
                                     {seg("seg_pipeline", 65536), Line{1e-6, 1e-9}}};
    auto pick = best_candidate(two, 8, 4096, inputs);
    ASSERT_TRUE(pick);
    EXPECT_EQ(pick->candidate, &two[0]);
    EXPECT_DOUBLE_EQ(pick->seconds, 3 * (1e-6 + 4096e-9));
    const std::vector<Candidate> cheap{two[0], {seg("seg_pipeline", 65536), Line{0.1e-6, 0.1e-9}}};
    EXPECT_EQ(best_candidate(cheap, 8, 4096, inputs)->candidate, &cheap[1]);
    EXPECT_FALSE(best_candidate({}, 8, 4096, inputs));
    // reduce_scatter_gather needs count >= pof2: 3 bytes on 8 ranks is not modelled
    const std::vector<Candidate> reduce{{Configuration{"reduce", "reduce_scatter_gather", {}}, Line{1e-9, 1e-12}},
                                        {Configuration{"reduce", "binomial", {}}, Line{1e-6, 1e-9}}};
    EXPECT_FALSE(predict_if_modelled(reduce[0], 8, 3, inputs));
    EXPECT_EQ(best_candidate(reduce, 8, 3, inputs)->candidate, &reduce[1]);
    EXPECT_EQ(best_candidate(reduce, 8, 4096, inputs)->candidate, &reduce[0]);
}

class FitDbTest : public test::TempDirTest {};

TEST_F(FitDbTest, PointsResumeAndModelsReplace) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    const std::vector<StoredFitPoint> points = synthetic_points(Line{40e-6, 90e-9});
    std::vector<FitKey> plan;
    for (const StoredFitPoint& p : points) plan.push_back(p.key);
    EXPECT_EQ(db.pending_fit_points(job, plan).size(), plan.size());
    for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(db.record_fit_point(job, points[i].key, points[i].summary));
    EXPECT_FALSE(db.record_fit_point(job, points[0].key, at(1)));  // kept
    const std::vector<FitKey> pending = db.pending_fit_points(job, plan);
    EXPECT_EQ(pending, std::vector<FitKey>(plan.begin() + 4, plan.end()));
    const std::vector<StoredFitPoint> stored = db.fit_points(job);  // ordered by key: experiments first
    ASSERT_EQ(stored.size(), 4u);
    EXPECT_EQ(stored[0].key, points[3].key);
    EXPECT_EQ(stored[0].key.params.at(kBcastSeg), "65536");
    EXPECT_DOUBLE_EQ(stored[0].summary.median, points[3].summary.median);
    EXPECT_EQ(stored[1].key, points[0].key);
    EXPECT_DOUBLE_EQ(stored[1].summary.median, points[0].summary.median);

    EXPECT_THROW(db.record_fit_point(job, FitKey{"other", "", "", {}, 2, 1, 0}, at(1)), std::invalid_argument);
    EXPECT_THROW(db.record_fit_point(job, FitKey{kFitGamma, "bcast", "", {}, 2, 1, 0}, at(1)), std::invalid_argument);
    EXPECT_THROW(db.record_fit_point(job, FitKey{kFitExperiment, "bcast", "binomial", {}, 1, 1, 0}, at(1)),
                 std::invalid_argument);

    db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, 1e-5, 1e-8, 10});
    db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, 2e-5, 2e-8, 12});  // a refit replaces
    const std::vector<FittedModel> models = db.fit_models(job);
    ASSERT_EQ(models.size(), 1u);
    EXPECT_DOUBLE_EQ(models[0].alpha, 2e-5);
    EXPECT_EQ(models[0].equations, 12u);
    EXPECT_THROW(db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, NAN, 1e-8, 10}),
                 std::invalid_argument);
    EXPECT_THROW(db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, 1e-5, 1e-8, 1}),
                 std::invalid_argument);
    EXPECT_EQ(db.integrity_check(), "ok");
}

TEST_F(FitDbTest, EagerPointsResumeByMessageSize) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    const JobId other = db.find_or_create_job(JobDescription{"box", 2, 2, 1, "block", "4.0.2"});
    EXPECT_TRUE(db.record_eager_point(job, 4096, at(0.9)));
    EXPECT_TRUE(db.record_eager_point(job, 1024, at(0.02)));
    EXPECT_FALSE(db.record_eager_point(job, 1024, at(0.7)));  // kept
    EXPECT_TRUE(db.record_eager_point(other, 1024, at(0.5)));
    const std::vector<StoredEagerPoint> stored = db.eager_points(job);
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[0].msg_bytes, 1024u);
    EXPECT_DOUBLE_EQ(stored[0].summary.median, 0.02);
    EXPECT_EQ(stored[1].msg_bytes, 4096u);
    EXPECT_EQ(eager_limit(stored), 1024u);
    EXPECT_THROW(db.record_eager_point(job, 0, at(0.1)), std::invalid_argument);
    EXPECT_THROW(db.record_eager_point(job + other + 1, 1024, at(0.1)), std::invalid_argument);
}

// A version-6 file gets the eager table when opened.
TEST_F(FitDbTest, VersionSixFileIsUpgraded) {
    {
        MeasureDb db = MeasureDb::open(path_);
        db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    }
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE fit_eager; PRAGMA user_version=6;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.jobs().front().id;
    EXPECT_TRUE(db.eager_points(job).empty());
    EXPECT_TRUE(db.record_eager_point(job, 1024, at(0.1)));
    EXPECT_EQ(db.eager_points(job).size(), 1u);
}

// A version-5 file gets the fit tables when opened.
TEST_F(FitDbTest, VersionFiveFileIsUpgraded) {
    {
        MeasureDb db = MeasureDb::open(path_);
        db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    }
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE fit_points; DROP TABLE fit_models; PRAGMA user_version=5;", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.jobs().front().id;
    EXPECT_TRUE(db.fit_points(job).empty());
    db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, 1e-5, 1e-8, 10});
    EXPECT_EQ(db.fit_models(job).size(), 1u);
}

class GenerateAnalyticTest : public test::TempDirTest {};

TEST_F(GenerateAnalyticTest, TreeFromFittedModelsCoversPredictedCommSizes) {
    MeasureDb db = MeasureDb::open(path_);
    GenerateOptions options;
    options.source = GenerateSource::analytic;
    options.collectives = {"bcast"};
    EXPECT_THROW(generate_tree(db, test::small_stock(), options), UsageError);  // nothing fitted

    const JobId job = db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    for (const StoredFitPoint& p : synthetic_points(Line{40e-6, 90e-9})) db.record_fit_point(job, p.key, p.summary);
    // binomial: cheap start-up, costly bytes; pipeline: the other way round
    db.record_fit_model(job, FittedModel{"bcast", "binomial", {}, 4, 1e-6, 100e-9, 3});
    db.record_fit_model(job, FittedModel{"bcast", "seg_pipeline", {{kBcastSeg, "65536"}}, 4, 500e-6, 10e-9, 3});
    options.comm_sizes = {4, 16};
    options.sizes = {1024, 65536, 4194304};
    const GenerateReport report = generate_tree(db, test::small_stock(), options);
    const std::string text = report.tree.tree.dump();
    // stock below the smallest comm size, then 4 and 16 (the same picks: one rule)
    EXPECT_NE(text.find("\"comm_size<=3\":{\"comm_size<=7\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"comm_size<=16\":{\"comm_avg_ppn<=1\""), std::string::npos) << text;
    EXPECT_NE(text.find("algorithm=MPIR_Bcast_intra_binomial"), std::string::npos);
    // below 65536 B, the smallest fitted size: stock (the midpoint asked of generate too)
    const auto& chain = report.tree.tree["collective=bcast"]["comm_type=intra"]["comm_hierarchy=any"]["comm_size<=16"]
                                        ["comm_avg_ppn<=1"];
    EXPECT_EQ(chain.begin().key(), "avg_msg_size<=65535") << chain.dump();
    EXPECT_TRUE(chain.begin().value().contains("comm_size<=7")) << chain.dump();  // stock, strict form
    EXPECT_NE(text.find("algorithm=MPIR_Bcast_intra_seg_pipeline"), std::string::npos);
    EXPECT_NE(text.find("\"segsize=65536\""), std::string::npos);
    bool said = false;
    for (const std::string& line : report.lines) said |= line.find("measured 4; predicted 16") != std::string::npos;
    EXPECT_TRUE(said);
    options.collectives = {"allreduce"};
    EXPECT_THROW(generate_tree(db, test::small_stock(), options), UsageError);
}

// The validation: per swept comm size, the least predicted measured configuration
// against the measured best, MPICH's default beside, fitting time vs sweep time.
TEST_F(GenerateAnalyticTest, ValidationAgainstTheSweep) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId fit_job = db.find_or_create_job(JobDescription{"box", 4, 4, 1, "block", "4.0.2"});
    const JobId two = db.find_or_create_job(JobDescription{"box", 2, 2, 1, "block", "4.0.2"});
    for (const StoredFitPoint& p : synthetic_points(Line{40e-6, 90e-9})) db.record_fit_point(fit_job, p.key, p.summary);
    db.record_fit_model(fit_job, FittedModel{"bcast", "binomial", {}, 4, 1e-6, 100e-9, 3});
    db.record_fit_model(fit_job, FittedModel{"bcast", "seg_pipeline", {{kBcastSeg, "65536"}}, 4, 500e-6, 10e-9, 3});
    EXPECT_THROW(validate_analytic(db, two, {}), UsageError);  // no models there
    EXPECT_THROW(validate_analytic(db, fit_job, {}), UsageError);  // no sweep yet
    // 2 ranks, 1 MiB: binomial predicted 1 (1 us + 104.9 ms), pipeline 16 (500 us + 655 us):
    // pipeline picked; measured slower than binomial by 11 %
    const std::uint64_t mib = 1 << 20;
    db.record_point(two, PointKey{"bcast", mib, "binomial", {}}, at(0.100));
    db.record_point(two, PointKey{"bcast", mib, "seg_pipeline", {{kBcastSeg, "65536"}}}, at(0.111));
    db.record_point(two, PointKey{"bcast", mib, "default", {}}, at(0.105));
    db.record_point(two, PointKey{"bcast", mib, "seg_pipeline", {{kBcastSeg, "65536"}, {kBcastFanout, "2"}}},
                    at(0.001));  // not modelled (a fanout on a pipeline): not part of the space
    db.add_step_time(two, "exhaustive", 100);
    db.add_step_time(fit_job, "fit", 15);
    const AnalyticValidation v = validate_analytic(db, fit_job, ValidationTargets{1.03, 0.20, 1.10});
    ASSERT_EQ(v.report.verdicts.size(), 1u);
    const SizeVerdict& verdict = v.report.verdicts[0];
    EXPECT_EQ(verdict.collective, "bcast P=2");
    EXPECT_EQ(verdict.pick, "seg_pipeline MPIR_CVAR_BCAST_SEG_SEGSIZE=65536");
    EXPECT_EQ(verdict.best, "binomial");
    EXPECT_NEAR(verdict.slowdown, 1.11, 1e-12);
    EXPECT_EQ(v.report.cases[0].configs.size(), 2u);
    ASSERT_TRUE(v.default_seconds[0]);
    EXPECT_DOUBLE_EQ(*v.default_seconds[0], 0.105);
    EXPECT_DOUBLE_EQ(*v.report.task_share(), 0.15);
    EXPECT_FALSE(*v.report.worst_target_met());
    std::ostringstream text;
    write_default_text(v, text);
    EXPECT_NE(text.str().find("average slowdown 1.050 over 1 sizes"), std::string::npos) << text.str();
    ASSERT_FALSE(v.lines.empty());
    EXPECT_NE(v.lines[0].find("comm sizes swept: none (fitted there), 2 (predicted)"), std::string::npos) << v.lines[0];
}

}  // namespace
}  // namespace hiertune::analytic
