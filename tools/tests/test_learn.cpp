#include "hiertune/models/learn.hpp"

#include <gtest/gtest.h>

#include <dlib/random_forest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hiertune {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

Configuration config(const std::string& algorithm, Params params = {}) {
    return Configuration{"bcast", algorithm, std::move(params)};
}

LearnPoint point(int nodes, int ppn, std::uint64_t size, const Configuration& c) {
    return LearnPoint{nodes, ppn, size, c};
}

bool is_p2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// ---------------------------------------------------------------------------
// Jackknife variance, section IV-A, by hand: x_p the mean, x_i the mean
// without p_i, sigma^2 = sum (x_p - x_i)^2 / (n - 1).

TEST(LearnJackknife, ThreeTrees) {
    // x_p = 2; x_i = 2.5, 2, 1.5; (0.25 + 0 + 0.25) / 2
    EXPECT_DOUBLE_EQ(jackknife_variance({1, 2, 3}), 0.25);
}

TEST(LearnJackknife, FourTrees) {
    // x_p = 3; x_i = 11/3, 10/3, 3, 2; (4/9 + 1/9 + 0 + 1) / 3 = 14/27
    EXPECT_DOUBLE_EQ(jackknife_variance({1, 2, 3, 6}), 14.0 / 27.0);
}

TEST(LearnJackknife, TwoTrees) {
    // x_p = 2; x_i = 4, 0; (4 + 4) / 1
    EXPECT_DOUBLE_EQ(jackknife_variance({0, 4}), 8.0);
}

TEST(LearnJackknife, AgreementIsZero) { EXPECT_DOUBLE_EQ(jackknife_variance({-1.5, -1.5, -1.5, -1.5}), 0.0); }

TEST(LearnJackknife, EqualsSampleSpreadOverCube) {
    // the closed form: sum (p_i - x_p)^2 / (n - 1)^3
    const std::vector<double> p{0.3, -1.2, 4.4, 2.0, 0.0, 1.1, 7.5};
    double mean = 0;
    for (const double v : p) mean += v;
    mean /= p.size();
    double ss = 0;
    for (const double v : p) ss += (v - mean) * (v - mean);
    EXPECT_NEAR(jackknife_variance(p), ss / std::pow(p.size() - 1.0, 3), 1e-12);
}

TEST(LearnJackknife, PerRow) {
    const std::vector<double> v = jackknife_variances({{1, 2, 3}, {5, 5, 5}, {0, 4}});
    ASSERT_EQ(v.size(), 3u);
    EXPECT_DOUBLE_EQ(v[0], 0.25);
    EXPECT_DOUBLE_EQ(v[1], 0.0);
    EXPECT_DOUBLE_EQ(v[2], 8.0);
}

TEST(LearnJackknife, RejectsBadInput) {
    EXPECT_THROW(jackknife_variance({}), std::invalid_argument);
    EXPECT_THROW(jackknife_variance({1.0}), std::invalid_argument);
    EXPECT_THROW(jackknife_variance({1.0, kNaN}), std::invalid_argument);
    EXPECT_THROW(jackknife_variances({{1, 2}, {3}}), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Space, features, targets.

TEST(LearnSpace, CrossProductInOrder) {
    const LearnSpace space{{2, 3}, {1}, {1, 1024}, {config("binomial"), config("scatter_ring_allgather")}};
    const std::vector<LearnPoint> c = candidate_points(space);
    ASSERT_EQ(c.size(), 8u);
    EXPECT_EQ(c[0], point(2, 1, 1, config("binomial")));
    EXPECT_EQ(c[1], point(2, 1, 1024, config("binomial")));
    EXPECT_EQ(c[2], point(3, 1, 1, config("binomial")));  // non-P2 node counts are fine
    EXPECT_EQ(c[7], point(3, 1, 1024, config("scatter_ring_allgather")));
}

TEST(LearnSpace, RejectsBadSpaces) {
    const auto c = config("binomial");
    EXPECT_THROW(candidate_points({{}, {1}, {1}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {}, {1}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {1}, {}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2, 2}, {1}, {1}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {8, 8}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {1}, {c, c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{0}, {1}, {1}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {-1}, {1}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {12}, {c}}), std::invalid_argument);  // not P2 (IV-A)
    EXPECT_THROW(candidate_points({{2}, {1}, {0}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {std::uint64_t{1} << 31}, {c}}), std::invalid_argument);
    EXPECT_THROW(candidate_points({{2}, {1}, {1}, {c, Configuration{"reduce", "binomial", {}}}}),
                 std::invalid_argument);
}

TEST(LearnFeatures, AlgorithmEnumeratedParametersOwnFeatures) {
    const std::string seg = "MPIR_CVAR_BCAST_HIER_SEGSIZE";
    const std::string inter = "MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM";
    const auto binomial = config("binomial");
    const auto hier_a = config("hier", {{seg, "16384"}, {inter, "tsp_kary"}});
    const auto hier_b = config("hier", {{seg, "65536"}, {inter, "tsp_knomial"}});
    const FeatureEncoder enc({binomial, hier_a, hier_b});
    EXPECT_EQ(enc.feature_names(),
              (std::vector<std::string>{"log2_msg_bytes", "nodes", "ppn", "algorithm", inter, seg}));
    EXPECT_EQ(enc.encode(point(4, 2, 1024, binomial)), (std::vector<double>{10, 4, 2, 0, -1, 16383}));
    EXPECT_EQ(enc.encode(point(4, 2, 1024, hier_a)), (std::vector<double>{10, 4, 2, 1, 0, 16384}));
    EXPECT_EQ(enc.encode(point(6, 8, 1, hier_b)), (std::vector<double>{0, 6, 8, 1, 1, 65536}));
    EXPECT_DOUBLE_EQ(enc.encode(point(4, 2, 1000, binomial))[0], std::log2(1000.0));
}

TEST(LearnFeatures, RejectsUnknownConfigurationsAndEmptyPoints) {
    const FeatureEncoder enc({config("binomial")});
    EXPECT_THROW(enc.encode(point(4, 2, 1024, config("scatter_ring_allgather"))), std::invalid_argument);
    EXPECT_THROW(enc.encode(point(4, 2, 1024, config("binomial", {{"x", "1"}}))), std::invalid_argument);
    EXPECT_THROW(enc.encode(point(4, 2, 0, config("binomial"))), std::invalid_argument);
    EXPECT_THROW(enc.encode(point(0, 2, 8, config("binomial"))), std::invalid_argument);
    EXPECT_THROW(FeatureEncoder({}), std::invalid_argument);
}

TEST(LearnFeatures, NormalisationIsLogPerByte) {
    EXPECT_DOUBLE_EQ(normalise_runtime(1.0, 1), 0.0);
    EXPECT_DOUBLE_EQ(normalise_runtime(std::exp(-3.0), 1), -3.0);
    EXPECT_DOUBLE_EQ(normalise_runtime(8.0, 8), 0.0);  // 1 s per byte
    EXPECT_NEAR(denormalise_runtime(normalise_runtime(2.5e-5, 4096), 4096), 2.5e-5, 1e-18);
    // a ratio is the same distance at any scale
    EXPECT_NEAR(normalise_runtime(2e-6, 64) - normalise_runtime(1e-6, 64),
                normalise_runtime(2.0, 1 << 20) - normalise_runtime(1.0, 1 << 20), 1e-12);
    // bandwidth-bound times (proportional to the size) have one target at every size
    EXPECT_NEAR(normalise_runtime(1e-3, 1 << 10), normalise_runtime(1.024, 1 << 20), 1e-12);
    EXPECT_THROW(normalise_runtime(0, 8), std::invalid_argument);
    EXPECT_THROW(normalise_runtime(-1, 8), std::invalid_argument);
    EXPECT_THROW(normalise_runtime(kNaN, 8), std::invalid_argument);
    EXPECT_THROW(normalise_runtime(1.0, 0), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// The forest.

void step_data(std::vector<std::vector<double>>& x, std::vector<double>& y) {
    for (int i = 0; i < 20; ++i) {
        x.push_back({double(i), double(i % 3)});
        y.push_back(i < 10 ? 0.0 : 1.0);
    }
}

TEST(LearnForest, TreeWalkMatchesDlib) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    step_data(x, y);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += 0.1 * std::sin(double(i));  // not only 0 and 1
    const ForestOptions options{25, 2, 0.5, "walk"};
    const LearnForest forest(x, y, options);
    EXPECT_EQ(forest.tree_count(), 25u);
    EXPECT_EQ(forest.dimension(), 2u);

    dlib::random_forest_regression_trainer<dlib::dense_feature_extractor> trainer;
    trainer.set_num_trees(25);
    trainer.set_min_samples_per_leaf(2);
    trainer.set_feature_subsampling_fraction(0.5);
    trainer.set_seed("walk");
    std::vector<dlib::dense_feature_extractor::sample_type> samples;
    for (const auto& row : x) {
        dlib::dense_feature_extractor::sample_type s(2);
        s(0) = row[0];
        s(1) = row[1];
        samples.push_back(s);
    }
    const auto reference = trainer.train(samples, y);
    for (double a = -1; a <= 21; a += 0.37) {
        dlib::dense_feature_extractor::sample_type s(2);
        s(0) = a;
        s(1) = std::fmod(a, 3.0);
        EXPECT_NEAR(forest.predict({s(0), s(1)}), reference(s), 1e-9) << a;
        const std::vector<double> p = forest.tree_predictions({s(0), s(1)});
        ASSERT_EQ(p.size(), 25u);
    }
}

TEST(LearnForest, FitsAStepAndIsDeterministic) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    step_data(x, y);
    const LearnForest a(x, y, ForestOptions{50, 1, 1.0, "seed"});
    const LearnForest b(x, y, ForestOptions{50, 1, 1.0, "seed"});
    EXPECT_LT(a.predict({2, 2}), 0.1);
    EXPECT_GT(a.predict({17, 2}), 0.9);
    for (double v = 0; v < 20; v += 0.5) EXPECT_EQ(a.tree_predictions({v, 1}), b.tree_predictions({v, 1}));
    // the trees agree far from the step and disagree at it
    EXPECT_LT(jackknife_variance(a.tree_predictions({2, 1})), jackknife_variance(a.tree_predictions({9.5, 1})));
}

TEST(LearnForest, OneRowAgreesEverywhere) {
    const LearnForest f({{1.0, 2.0}}, {3.0}, ForestOptions{10, 1, 1.0, "one"});
    EXPECT_DOUBLE_EQ(f.predict({100, -5}), 3.0);
    EXPECT_DOUBLE_EQ(jackknife_variance(f.tree_predictions({0, 0})), 0.0);
}

TEST(LearnForest, RejectsBadInput) {
    EXPECT_THROW(LearnForest({}, {}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {1.0, 2.0}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{}}, {1.0}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}, {1.0, 2.0}}, {1.0, 2.0}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{kNaN}}, {1.0}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {kNaN}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {1.0}, ForestOptions{0, 1, 1.0, ""}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {1.0}, ForestOptions{5, 0, 1.0, ""}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {1.0}, ForestOptions{5, 1, 0.0, ""}), std::invalid_argument);
    EXPECT_THROW(LearnForest({{1.0}}, {1.0}, ForestOptions{5, 1, 1.5, ""}), std::invalid_argument);
    const LearnForest f({{1.0, 2.0}}, {3.0});
    EXPECT_THROW(f.tree_predictions({1.0}), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Non-power-of-two sizes, section IV-B.

TEST(LearnNonP2, RangeIsWhereThePowerOfTwoIsClosest) {
    const auto r8 = non_p2_range(8);  // the paper's example: between 6 and 12
    EXPECT_EQ(r8.lo, 6u);
    EXPECT_EQ(r8.hi, 12u);
    EXPECT_EQ(non_p2_range(1).lo, 1u);
    EXPECT_EQ(non_p2_range(1).hi, 1u);
    EXPECT_EQ(non_p2_range(2).lo, 2u);
    EXPECT_EQ(non_p2_range(2).hi, 3u);
    EXPECT_EQ(non_p2_range(4).lo, 3u);
    EXPECT_EQ(non_p2_range(4).hi, 6u);
    EXPECT_EQ(non_p2_range(1024).lo, 768u);
    EXPECT_EQ(non_p2_range(1024).hi, 1536u);
    EXPECT_EQ(non_p2_range(std::uint64_t{1} << 30).hi, std::uint64_t{1} << 30);  // capped at 1 GiB
    EXPECT_THROW(non_p2_range(0), std::invalid_argument);
    EXPECT_THROW(non_p2_range(12), std::invalid_argument);
    EXPECT_THROW(non_p2_range(std::uint64_t{1} << 31), std::invalid_argument);
}

TEST(LearnNonP2, DrawsEveryNearbySizeButTheP2One) {
    std::mt19937_64 rng(7);
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 300; ++i) {
        const auto s = non_p2_size(8, {}, rng);
        ASSERT_TRUE(s.has_value());
        seen.insert(*s);
    }
    EXPECT_EQ(seen, (std::set<std::uint64_t>{6, 7, 9, 10, 11, 12}));
}

TEST(LearnNonP2, AvoidsTakenSizes) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(non_p2_size(8, {6, 7, 9, 10, 11}, rng), std::uint64_t{12});
    EXPECT_FALSE(non_p2_size(8, {6, 7, 9, 10, 11, 12}, rng).has_value());
    EXPECT_FALSE(non_p2_size(1, {}, rng).has_value());  // nothing but 1 is closest to 1
    EXPECT_EQ(non_p2_size(2, {}, rng), std::uint64_t{3});
}

TEST(LearnNonP2, LargeSizesSampled) {
    std::mt19937_64 rng(3);
    const std::uint64_t m = std::uint64_t{1} << 20;
    for (int i = 0; i < 50; ++i) {
        const auto s = non_p2_size(m, {}, rng);
        ASSERT_TRUE(s.has_value());
        EXPECT_GE(*s, 3 * m / 4);
        EXPECT_LE(*s, 3 * m / 2);
        EXPECT_FALSE(is_p2(*s));
    }
}

// ---------------------------------------------------------------------------
// Selection, section IV-A and IV-B.

std::vector<LearnPoint> line(const Configuration& c) {
    return candidate_points(LearnSpace{{4}, {2}, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}, {c}});
}

TEST(LearnSelect, RankByVarianceSkipsMeasured) {
    const auto c = line(config("binomial"));
    const std::vector<double> v{0.1, 0.5, 0.5, 0.0, 0.9, 0.2, 0.3, 0.0, 0.0, 0.4};
    EXPECT_EQ(rank_by_variance(c, v, {}), (std::vector<std::size_t>{4, 1, 2, 9, 6, 5, 0, 3, 7, 8}));
    EXPECT_EQ(rank_by_variance(c, v, {c[4], c[2]}), (std::vector<std::size_t>{1, 9, 6, 5, 0, 3, 7, 8}));
    EXPECT_THROW(rank_by_variance(c, {0.1}, {}), std::invalid_argument);
    std::vector<double> bad = v;
    bad[3] = kNaN;
    EXPECT_THROW(rank_by_variance(c, bad, {}), std::invalid_argument);
}

TEST(LearnSelect, HighestVarianceFirst) {
    const auto c = line(config("binomial"));
    const std::vector<double> v{0.1, 0.5, 0.6, 0.0, 0.9, 0.2, 0.3, 0.0, 0.0, 0.4};
    std::mt19937_64 rng(1);
    const auto p = select_points(c, v, {c[4]}, 3, 0, rng);
    EXPECT_EQ(p, (std::vector<LearnPoint>{c[2], c[1], c[9]}));
}

TEST(LearnSelect, EveryFifthPointIsANearbyNonP2Size) {
    const auto c = line(config("binomial"));
    const std::vector<double> v{0.1, 0.5, 0.6, 0.0, 0.9, 0.2, 0.3, 0.05, 0.02, 0.4};
    std::mt19937_64 rng(1);
    // ordinal 5: the best point (16 bytes) moved into [12, 24]
    const auto one = select_points(c, v, {}, 1, 4, rng);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_FALSE(is_p2(one[0].msg_bytes));
    EXPECT_GE(one[0].msg_bytes, 12u);
    EXPECT_LE(one[0].msg_bytes, 24u);
    EXPECT_EQ(one[0].nodes, 4);
    EXPECT_EQ(one[0].ppn, 2);
    EXPECT_EQ(one[0].configuration, config("binomial"));

    // a batch of 10: ordinals 5 and 10 substituted, the others in variance order
    const auto batch = select_points(c, v, {}, 10, 0, rng);
    ASSERT_EQ(batch.size(), 10u);
    const std::vector<std::size_t> order{4, 2, 1, 9, 6, 5, 0, 7, 8, 3};
    for (std::size_t k = 0; k < 10; ++k) {
        if ((k + 1) % 5 == 0) {
            const auto r = non_p2_range(c[order[k]].msg_bytes);
            EXPECT_FALSE(is_p2(batch[k].msg_bytes)) << k;
            EXPECT_GE(batch[k].msg_bytes, r.lo) << k;
            EXPECT_LE(batch[k].msg_bytes, r.hi) << k;
        } else {
            EXPECT_EQ(batch[k], c[order[k]]) << k;
        }
    }
    EXPECT_EQ(std::set<LearnPoint>(batch.begin(), batch.end()).size(), 10u);  // distinct

    // a 3-point batch after 3 selected: ordinal 5 is its second point
    const auto b = select_points(c, v, {}, 3, 3, rng);
    EXPECT_EQ(b[0], c[4]);
    EXPECT_FALSE(is_p2(b[1].msg_bytes));
    EXPECT_EQ(b[2], c[1]);
}

TEST(LearnSelect, NonP2SubstituteIsNewAndFallsBackToP2) {
    const auto c = line(config("binomial"));
    std::vector<double> v(c.size(), 0.0);
    v[3] = 1.0;  // 8 bytes
    std::set<LearnPoint> measured;
    for (const std::uint64_t s : {6, 7, 9, 10, 11}) measured.insert(point(4, 2, s, config("binomial")));
    measured.insert(point(8, 2, 12, config("binomial")));  // other nodes: not in the way
    std::mt19937_64 rng(1);
    EXPECT_EQ(select_points(c, v, measured, 1, 4, rng)[0].msg_bytes, 12u);
    measured.insert(point(4, 2, 12, config("binomial")));
    EXPECT_EQ(select_points(c, v, measured, 1, 4, rng)[0].msg_bytes, 8u);  // none left: the P2 point
    v[3] = 0;
    v[0] = 1.0;  // 1 byte: has no non-P2 neighbour
    EXPECT_EQ(select_points(c, v, {}, 1, 9, rng)[0].msg_bytes, 1u);
}

TEST(LearnSelect, FewerWhenTheSpaceRunsOut) {
    const auto c = line(config("binomial"));
    const std::vector<double> v(c.size(), 1.0);
    std::set<LearnPoint> measured(c.begin(), c.begin() + 8);
    std::mt19937_64 rng(1);
    EXPECT_EQ(select_points(c, v, measured, 4, 0, rng).size(), 2u);
    EXPECT_THROW(select_points(c, v, measured, 4, 0, rng, 0), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Convergence, section IV-C (VI-C: four iterations, 1e-9).

TEST(LearnConvergence, PaperRuleNeedsFourSmallChanges) {
    const ConvergenceRule paper{1e-9, false, 4, 0};
    EXPECT_FALSE(variance_converged({}, paper));
    EXPECT_FALSE(variance_converged({0.5, 0.5, 0.5, 0.5}, paper));  // three changes
    EXPECT_TRUE(variance_converged({0.5, 0.5, 0.5, 0.5, 0.5}, paper));
    EXPECT_TRUE(variance_converged({3.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5}, paper));  // the old changes do not count
    EXPECT_FALSE(variance_converged({0.5, 0.5, 0.5 + 1e-6, 0.5 + 1e-6, 0.5 + 1e-6, 0.5 + 1e-6}, paper));
    EXPECT_TRUE(variance_converged({0.5, 0.5 + 1e-6, 0.5 + 1e-6, 0.5 + 1e-6, 0.5 + 1e-6, 0.5 + 1e-6}, paper));
    EXPECT_FALSE(variance_converged({0.5, 0.5, 0.5, 0.5, 0.4}, paper));  // a drop is a change too
}

TEST(LearnConvergence, RelativeRule) {
    const ConvergenceRule rule{1e-2, true, 4, 0};
    EXPECT_TRUE(variance_converged({100, 100.5, 100.0, 100.9, 100.1}, rule));  // all < 1 %
    EXPECT_FALSE(variance_converged({100, 100.5, 100.0, 102.0, 102.1}, rule));  // 2 % once
    EXPECT_TRUE(variance_converged({1e-3, 1.0001e-3, 1e-3, 1e-3, 1e-3}, rule));  // scale-free
    EXPECT_TRUE(variance_converged({0, 0, 0, 0, 0}, rule));  // 0: absolute
    const ConvergenceRule two{1e-2, true, 2, 0};
    EXPECT_TRUE(variance_converged({5, 100, 100.1, 100.2}, two));
}

TEST(LearnConvergence, RejectsBadInput) {
    EXPECT_THROW(variance_converged({1, 2}, ConvergenceRule{-1, true, 4, 0}), std::invalid_argument);
    EXPECT_THROW(variance_converged({1, 2}, ConvergenceRule{kNaN, true, 4, 0}), std::invalid_argument);
    EXPECT_THROW(variance_converged({1, 2}, ConvergenceRule{1e-3, true, 0, 0}), std::invalid_argument);
    EXPECT_THROW(variance_converged({1, 2}, ConvergenceRule{1e-3, true, 4, -1}), std::invalid_argument);
    EXPECT_THROW(variance_converged({1, -2}, ConvergenceRule{}), std::invalid_argument);
    EXPECT_THROW(variance_converged({1, kNaN}, ConvergenceRule{}), std::invalid_argument);
    EXPECT_THROW(ConvergenceTracker(ConvergenceRule{1e-3, true, 0, 0}), std::invalid_argument);
    ConvergenceTracker t(ConvergenceRule{});
    EXPECT_THROW(t.add(-1, 0), std::invalid_argument);
    EXPECT_THROW(t.add(1, kNaN), std::invalid_argument);
}

TEST(LearnConvergence, TrackerStopsAtConvergenceOrBudget) {
    ConvergenceTracker t(ConvergenceRule{1e-9, false, 4, 100});
    for (int i = 0; i < 4; ++i) EXPECT_EQ(t.add(2.0, i), LearnStop::running);
    EXPECT_EQ(t.add(2.0, 4), LearnStop::converged);  // fifth entry: four changes of 0
    EXPECT_EQ(t.add(9.0, 5), LearnStop::converged);  // stays stopped
    EXPECT_EQ(t.history().size(), 6u);

    ConvergenceTracker b(ConvergenceRule{1e-9, false, 4, 10});
    EXPECT_EQ(b.add(5, 3), LearnStop::running);
    EXPECT_EQ(b.add(4, 9.99), LearnStop::running);
    EXPECT_EQ(b.add(3, 10), LearnStop::time_budget);
    EXPECT_EQ(b.add(3, 11), LearnStop::time_budget);
    EXPECT_EQ(b.state(), LearnStop::time_budget);

    ConvergenceTracker none(ConvergenceRule{1e-9, false, 4, 0});  // no budget
    for (int i = 0; i < 10; ++i) EXPECT_EQ(none.add(i, 1e9), LearnStop::running);
    EXPECT_EQ(to_string(LearnStop::time_budget), "time budget");
}

// ---------------------------------------------------------------------------
// Parallel schedule, section IV-D.

// Disjoint, inside the allocation, no rack shared within a round.
void expect_valid(const std::vector<ScheduleRound>& rounds, const std::vector<int>& needs, std::size_t alloc,
                  std::size_t rack) {
    std::vector<int> seen(needs.size(), 0);
    for (const ScheduleRound& round : rounds) {
        std::vector<int> rack_user(alloc / rack + 1, -1);
        std::size_t used = 0;
        for (const ScheduledRun& run : round) {
            ASSERT_LT(run.point, needs.size());
            ++seen[run.point];
            EXPECT_EQ(run.node_count, static_cast<std::size_t>(needs[run.point]));
            EXPECT_LE(run.first_node + run.node_count, alloc);
            used += run.node_count;
            for (std::size_t n = run.first_node; n < run.first_node + run.node_count; ++n) {
                int& user = rack_user[n / rack];
                EXPECT_TRUE(user == -1 || user == static_cast<int>(run.point)) << "rack " << n / rack << " shared";
                user = static_cast<int>(run.point);
            }
        }
        EXPECT_LE(used, alloc);
    }
    for (std::size_t i = 0; i < needs.size(); ++i) EXPECT_EQ(seen[i], 1) << "point " << i;
}

TEST(LearnSchedule, RoundStopsAtFirstMisfit) {
    const ScheduleRound r = schedule_round({4, 2, 2, 8, 1}, 8);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].first_node, 0u);
    EXPECT_EQ(r[1].first_node, 4u);
    EXPECT_EQ(r[2].first_node, 6u);
    EXPECT_EQ(r[2].point, 2u);
    // a point needing 8 of 10 after 4 used: the greedy stops, the 1 waits
    EXPECT_EQ(schedule_round({4, 8, 1}, 10).size(), 1u);
}

TEST(LearnSchedule, RacksAreNotShared) {
    // racks of 4: the first run's rack is closed, the second starts at 4
    const ScheduleRound r = schedule_round({2, 2, 2}, 8, 4);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1].first_node, 4u);
    // a run over one and a half racks closes both
    const ScheduleRound s = schedule_round({6, 2}, 16, 4);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[1].first_node, 8u);
    // rack = allocation: one at a time
    EXPECT_EQ(schedule_round({1, 1}, 8, 8).size(), 1u);
}

TEST(LearnSchedule, RoundsFirstFit) {
    const std::vector<int> needs{4, 2, 2, 8, 1};
    const auto rounds = schedule_rounds(needs, 8);
    ASSERT_EQ(rounds.size(), 3u);
    EXPECT_EQ(rounds[0].size(), 3u);
    ASSERT_EQ(rounds[1].size(), 1u);
    EXPECT_EQ(rounds[1][0].point, 3u);
    ASSERT_EQ(rounds[2].size(), 1u);
    EXPECT_EQ(rounds[2][0].point, 4u);
    expect_valid(rounds, needs, 8, 1);
    // first fit fills an earlier round's gap
    const auto gap = schedule_rounds({6, 6, 2, 2}, 8);
    ASSERT_EQ(gap.size(), 2u);
    EXPECT_EQ(gap[0].size(), 2u);
    EXPECT_EQ(gap[0][1].point, 2u);
    EXPECT_EQ(gap[1].size(), 2u);
}

TEST(LearnSchedule, RandomNeedsNeverOverCapacity) {
    std::mt19937_64 rng(11);
    for (const std::size_t alloc : {1u, 7u, 13u, 64u}) {
        for (const std::size_t rack : {std::size_t{1}, std::size_t{3}, alloc}) {
            std::vector<int> needs;
            std::uniform_int_distribution<int> need(1, static_cast<int>(alloc));
            for (int i = 0; i < 40; ++i) needs.push_back(need(rng));
            expect_valid(schedule_rounds(needs, alloc, rack), needs, alloc, rack);
            const ScheduleRound one = schedule_round(needs, alloc, rack);
            ASSERT_FALSE(one.empty());
            for (std::size_t k = 0; k < one.size(); ++k) EXPECT_EQ(one[k].point, k);  // a prefix, in order
        }
    }
}

TEST(LearnSchedule, BatchOfPoints) {
    // a batch as next_points gives it: 4, 2 and 3 nodes of an 8-node allocation
    const std::vector<LearnPoint> batch{point(4, 2, 8, config("binomial")), point(2, 2, 8, config("binomial")),
                                        point(3, 2, 8, config("binomial"))};
    EXPECT_EQ(node_needs(batch), (std::vector<int>{4, 2, 3}));
    const ScheduleRound r = schedule_round(node_needs(batch), 8);
    ASSERT_EQ(r.size(), 2u);  // 4 + 2 fit, the 3 waits for the next round
    EXPECT_EQ(r[1].first_node, 4u);
    EXPECT_EQ(schedule_rounds(node_needs(batch), 8).size(), 2u);
}

TEST(LearnSchedule, RejectsBadInput) {
    EXPECT_THROW(schedule_round({9}, 8), std::invalid_argument);  // more than the allocation
    EXPECT_THROW(schedule_rounds({2, 9}, 8), std::invalid_argument);
    EXPECT_THROW(schedule_round({0}, 8), std::invalid_argument);
    EXPECT_THROW(schedule_round({-1}, 8), std::invalid_argument);
    EXPECT_THROW(schedule_round({1}, 0), std::invalid_argument);
    EXPECT_THROW(schedule_round({1}, 8, 0), std::invalid_argument);
    EXPECT_TRUE(schedule_rounds({}, 8).empty());
}

// ---------------------------------------------------------------------------
// The loop on a synthetic machine.

// Two bandwidth-bound algorithms (times proportional to the size, what the
// learner's per-byte target sees as constant): "flat" always takes 20 us per
// KiB; "step" 10 us per KiB below 2^(8 + log2 nodes) bytes and 40 us per KiB
// from there on, so they cross over at 512 B on 2 nodes, 1 KiB on 4, ... 4 KiB
// on 16.  Away from the crossover both are flat per byte: there is nothing to
// learn there.
const Configuration kFlat = config("flat");
const Configuration kStep = config("step");

double crossover_log2(int nodes) { return 8 + std::log2(double(nodes)); }

double synthetic_seconds(const LearnPoint& p) {
    const double kib = double(p.msg_bytes) / 1024;
    if (p.configuration == kFlat) return 20e-6 * kib;
    return (std::log2(double(p.msg_bytes)) < crossover_log2(p.nodes) ? 10e-6 : 40e-6) * kib;
}

LearnSpace synthetic_space() {
    LearnSpace s{{2, 4, 8, 16}, {1}, {}, {kFlat, kStep}};
    for (int e = 0; e <= 20; ++e) s.sizes.push_back(std::uint64_t{1} << e);
    return s;
}

// The start design: every configuration at the smallest size on every shape,
// then at the largest size on the largest shape, in configuration order, before
// anything random; recorded points leave it.
TEST(LearnLoop, StartsWithEveryConfigurationAtBothEndsOfTheSizes) {
    LearnOptions options;
    options.initial_points = 12;
    ActiveLearner learner(synthetic_space(), options);
    const std::uint64_t top = std::uint64_t{1} << 20;
    std::vector<LearnPoint> start;
    for (const int n : {2, 4, 8, 16})
        for (const Configuration& c : {kFlat, kStep}) start.push_back(point(n, 1, 1, c));
    start.push_back(point(16, 1, top, kFlat));
    start.push_back(point(16, 1, top, kStep));
    EXPECT_EQ(learner.start_points(), start);
    EXPECT_EQ(learner.start_wanted(), 12u);  // the 10 of the design, 2 random
    const auto first = learner.next_points(1);
    EXPECT_EQ(first, (std::vector<LearnPoint>{start[0]}));
    learner.record(first[0], synthetic_seconds(first[0]));
    EXPECT_EQ(learner.start_points(), std::vector<LearnPoint>(start.begin() + 1, start.end()));
    // the rest of the start, then random points while fewer than initial_points are in
    const auto next = learner.next_points(11);
    ASSERT_EQ(next.size(), 11u);
    EXPECT_EQ(std::vector<LearnPoint>(next.begin(), next.begin() + 9), learner.start_points());
    EXPECT_EQ(std::set<LearnPoint>(next.begin(), next.end()).size(), 11u);
    for (std::size_t i = 9; i < next.size(); ++i)
        EXPECT_EQ(std::find(start.begin(), start.end(), next[i]), start.end());
    for (const LearnPoint& p : next) learner.record(p, synthetic_seconds(p));
    EXPECT_TRUE(learner.start_points().empty());
    EXPECT_EQ(learner.start_wanted(), 0u);
    EXPECT_THROW(learner.next_points(1), std::logic_error);  // the variance's turn: iterate first

    options.start_at_both_ends = false;  // ACCLAiM's own start: random only
    ActiveLearner acclaim(synthetic_space(), options);
    EXPECT_TRUE(acclaim.start_points().empty());
}

TEST(LearnLoop, SelectionConcentratesAtTheCrossover) {
    LearnOptions options;
    options.initial_points = 8;
    options.seed = 5;
    ActiveLearner learner(synthetic_space(), options);
    std::vector<LearnPoint> chosen;
    for (int it = 0; it < 40; ++it) {
        const auto next = learner.next_points(1);
        ASSERT_EQ(next.size(), 1u);
        if (it >= 8) chosen.push_back(next[0]);
        learner.record(next[0], synthetic_seconds(next[0]));
        learner.iterate(it);
    }
    // within two octaves of the crossover: 5 of the 21 sizes, 24 % of a uniform draw
    std::size_t near = 0;
    for (const LearnPoint& p : chosen)
        if (std::fabs(std::log2(double(p.msg_bytes)) - crossover_log2(p.nodes)) <= 2.0) ++near;
    EXPECT_GE(near * 10, chosen.size() * 6) << near << " of " << chosen.size();
}

TEST(LearnLoop, ConvergesAndPicksTheFasterAlgorithm) {
    LearnOptions options;
    options.initial_points = 8;
    options.seed = 9;
    ActiveLearner learner(synthetic_space(), options);
    const std::size_t space = learner.candidates().size();
    LearnStop stop = LearnStop::running;
    int iterations = 0;
    // batches of 4, as a parallel round would measure them
    while (stop == LearnStop::running && learner.measured_count() < space) {
        const auto batch = learner.next_points(4);
        ASSERT_FALSE(batch.empty());
        EXPECT_EQ(std::set<LearnPoint>(batch.begin(), batch.end()).size(), batch.size());
        for (const LearnPoint& p : batch) learner.record(p, synthetic_seconds(p));
        stop = learner.iterate(++iterations);
    }
    EXPECT_EQ(stop, LearnStop::converged);  // the default rule: relative, 10 %, four iterations
    EXPECT_LT(learner.measured_count() * 4, space * 3) << "measured " << learner.measured_count() << " of " << space;
    // the learned selection at every P2 point
    std::size_t right = 0, total = 0;
    for (const int n : {2, 4, 8, 16})
        for (int e = 0; e <= 20; ++e) {
            const LearnPoint f = point(n, 1, std::uint64_t{1} << e, kFlat);
            const LearnPoint s = point(n, 1, std::uint64_t{1} << e, kStep);
            const bool step_faster = synthetic_seconds(s) < synthetic_seconds(f);
            const bool learned = learner.predicted_seconds(s) < learner.predicted_seconds(f);
            right += step_faster == learned;
            ++total;
        }
    EXPECT_GE(right * 100, total * 95) << right << " of " << total;
}

TEST(LearnLoop, Errors) {
    LearnOptions random_start;  // the start design needs no forest: not stale
    random_start.start_at_both_ends = false;
    ActiveLearner learner(synthetic_space(), random_start);
    EXPECT_THROW(learner.iterate(0), std::logic_error);
    EXPECT_THROW(learner.predicted_seconds(point(2, 1, 1, kFlat)), std::logic_error);
    EXPECT_THROW(learner.record(point(2, 1, 1, config("binomial")), 1e-5), std::invalid_argument);
    EXPECT_THROW(learner.record(point(2, 1, 1, kFlat), 0), std::invalid_argument);
    // the first points are random, distinct and from the space
    const auto first = learner.next_points(4);
    ASSERT_EQ(first.size(), 4u);
    EXPECT_EQ(std::set<LearnPoint>(first.begin(), first.end()).size(), 4u);
    for (const LearnPoint& p : first) learner.record(p, synthetic_seconds(p));
    EXPECT_THROW(learner.next_points(1), std::logic_error);  // not iterated since
    learner.iterate(0);
    EXPECT_EQ(learner.next_points(1).size(), 1u);
    EXPECT_EQ(learner.variances().size(), learner.candidates().size());
    LearnOptions bad;
    bad.initial_points = 0;
    EXPECT_THROW(ActiveLearner(synthetic_space(), bad), std::invalid_argument);
    bad = LearnOptions{};
    bad.forest.trees = 1;
    EXPECT_THROW(ActiveLearner(synthetic_space(), bad), std::invalid_argument);
    EXPECT_THROW(ActiveLearner(LearnSpace{}), std::invalid_argument);
}

}  // namespace
}  // namespace hiertune
