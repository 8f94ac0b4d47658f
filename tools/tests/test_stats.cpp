#include "hiertune/common/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace hiertune {
namespace {

// Deterministic, evenly spread values in [1, 11): fractional parts of i * golden ratio.
double spread_sample(std::size_t i) {
    const double golden = 0.6180339887498949;
    const double x = static_cast<double>(i) * golden;
    return 1.0 + 10.0 * (x - std::floor(x));
}

TEST(Median, OddSize) {
    EXPECT_DOUBLE_EQ(median({3.0}), 3.0);
    EXPECT_DOUBLE_EQ(median({5.0, 1.0, 3.0}), 3.0);
    EXPECT_DOUBLE_EQ(median({9.0, 2.0, 7.0, 4.0, 1.0}), 4.0);
}

TEST(Median, EvenSizeAveragesTheMiddlePair) {
    EXPECT_DOUBLE_EQ(median({1.0, 2.0}), 1.5);
    EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
    EXPECT_DOUBLE_EQ(median({10.0, 1.0, 1.0, 10.0, 5.0, 6.0}), 5.5);
}

TEST(Median, EmptyThrows) {
    EXPECT_THROW(median({}), std::invalid_argument);
    EXPECT_THROW(median_of_sorted({}), std::invalid_argument);
}

// Expected ranks computed by hand from the Bin(n, 1/2) CDF: j is the largest
// rank with P(B <= j-1) <= 0.025, k = n + 1 - j.
TEST(MedianCiRanks, NoIntervalBelowSixSamples) {
    for (std::size_t n = 0; n <= 5; ++n) EXPECT_FALSE(median_ci_ranks(n).has_value()) << n;
}

// The ranks of median_ci_ranks(n) are [lower, upper].
void expect_ranks(std::size_t n, std::size_t lower, std::size_t upper) {
    const auto r = median_ci_ranks(n);
    ASSERT_TRUE(r) << n;
    EXPECT_EQ(r->lower, lower) << n;
    EXPECT_EQ(r->upper, upper) << n;
}

TEST(MedianCiRanks, SmallSamples) {
    // n=6: P(B<=0) = 1/64 = 0.016 -> [1, 6]
    expect_ranks(6, 1, 6);
    // n=10: P(B<=1) = 11/1024 = 0.0107, P(B<=2) = 56/1024 = 0.055 -> [2, 9]
    expect_ranks(10, 2, 9);
}

TEST(MedianCiRanks, ThirtySamples) {
    // P(B<=9) = 0.0214, P(B<=10) = 0.0494 -> [10, 21]
    expect_ranks(30, 10, 21);
}

TEST(MedianCiRanks, LargeSamplesMatchNormalApproximation) {
    // floor(n/2 - 0.98 sqrt(n)), ceil(n/2 + 1 + 0.98 sqrt(n)): 100 -> [40, 61], 1000 -> [469, 532]
    expect_ranks(100, 40, 61);
    expect_ranks(1000, 469, 532);
}

TEST(MedianCiRanks, HugeSampleDoesNotUnderflow) {
    auto r = median_ci_ranks(100000);  // 2^-100000 underflows; log space must not
    ASSERT_TRUE(r);
    const double expected_lower = 50000 - 0.98 * std::sqrt(100000.0);  // ~49690
    EXPECT_NEAR(static_cast<double>(r->lower), expected_lower, 2.0);
    EXPECT_EQ(r->upper, 100001u - r->lower);
}

// The ranks by the definition, from Pascal's triangle of Bin(n, 1/2)
// probabilities (halving is exact; no log or exp): for each n, the largest j
// with P(B <= j-1) <= (1 - confidence) / 2, or none.
std::vector<std::optional<OrderStatisticRanks>> reference_ranks(std::size_t max_n, double confidence) {
    const double tail = (1 - confidence) / 2;
    std::vector<std::optional<OrderStatisticRanks>> ranks(max_n + 1);
    std::vector<double> pmf{1.0};  // Bin(0, 1/2)
    for (std::size_t n = 1; n <= max_n; ++n) {
        std::vector<double> next(n + 1, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            next[i] += pmf[i] / 2;
            next[i + 1] += pmf[i] / 2;
        }
        pmf = std::move(next);
        double cdf = 0;
        std::size_t j = 0;
        for (std::size_t i = 0; i <= n / 2 && cdf + pmf[i] <= tail; ++i) {
            cdf += pmf[i];
            j = i + 1;
        }
        if (j > 0) ranks[n] = OrderStatisticRanks{j, n + 1 - j};
    }
    return ranks;
}

TEST(MedianCiRanks, MatchTheDefinitionUpTo300Samples) {
    for (const double confidence : {0.95, 0.90, 0.99}) {
        const auto expected = reference_ranks(300, confidence);
        // descending first: the ranks do not depend on the order they are asked in
        for (std::size_t n = 300; n >= 1; --n) {
            const auto ranks = median_ci_ranks(n, confidence);
            ASSERT_EQ(ranks.has_value(), expected[n].has_value()) << "n=" << n << " c=" << confidence;
            if (!ranks) continue;
            EXPECT_EQ(ranks->lower, expected[n]->lower) << "n=" << n << " c=" << confidence;
            EXPECT_EQ(ranks->upper, expected[n]->upper) << "n=" << n << " c=" << confidence;
        }
        for (std::size_t n = 1; n <= 300; ++n) {
            const auto ranks = median_ci_ranks(n, confidence);
            ASSERT_EQ(ranks.has_value(), expected[n].has_value()) << "n=" << n << " c=" << confidence;
            if (!ranks) continue;
            EXPECT_EQ(ranks->lower, expected[n]->lower) << "n=" << n << " c=" << confidence;
        }
    }
}

TEST(MedianCiRanks, RejectsBadConfidence) {
    EXPECT_THROW(median_ci_ranks(10, 0.0), std::invalid_argument);
    EXPECT_THROW(median_ci_ranks(10, 1.0), std::invalid_argument);
}

TEST(Summarize, UsesOrderStatisticsForTheInterval) {
    // 10 samples 1..10 shuffled: CI = [x_(2), x_(9)] = [2, 9]
    Summary s = summarize({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
    EXPECT_EQ(s.n, 10u);
    EXPECT_DOUBLE_EQ(s.median, 5.5);
    EXPECT_DOUBLE_EQ(s.ci_lo, 2.0);
    EXPECT_DOUBLE_EQ(s.ci_hi, 9.0);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 10.0);
    EXPECT_DOUBLE_EQ(s.mean, 5.5);
    EXPECT_DOUBLE_EQ(s.relative_half_width(), 3.5 / 5.5);
    EXPECT_FALSE(s.converged);
}

TEST(Summarize, TooFewSamplesReportsMinMaxNotConverged) {
    Summary s = summarize({2.0, 2.0, 2.0});
    EXPECT_DOUBLE_EQ(s.ci_lo, 2.0);
    EXPECT_DOUBLE_EQ(s.ci_hi, 2.0);
    EXPECT_FALSE(s.converged);  // even constant data: no interval at n=3

    Summary spread = summarize({1.0, 4.0, 2.0});
    EXPECT_DOUBLE_EQ(spread.ci_lo, 1.0);
    EXPECT_DOUBLE_EQ(spread.ci_hi, 4.0);
    EXPECT_FALSE(spread.converged);
}

TEST(Summarize, OneHugeOutlierChangesNeitherMedianNorConvergence) {
    std::vector<double> samples(50, 1.0e-5);
    Summary clean = summarize(samples);
    samples.insert(samples.begin() + 20, 1.0e-2);  // 1000x
    Summary noisy = summarize(samples);
    EXPECT_DOUBLE_EQ(clean.median, 1.0e-5);
    EXPECT_DOUBLE_EQ(noisy.median, 1.0e-5);
    EXPECT_DOUBLE_EQ(noisy.ci_lo, 1.0e-5);
    EXPECT_DOUBLE_EQ(noisy.ci_hi, 1.0e-5);
    EXPECT_TRUE(clean.converged);
    EXPECT_TRUE(noisy.converged);
    EXPECT_DOUBLE_EQ(noisy.max, 1.0e-2);
    EXPECT_GT(noisy.mean, 2 * clean.mean);  // the mean is not robust, hence not used
}

TEST(RelativeHalfWidth, ZeroMedian) {
    Summary degenerate;
    EXPECT_EQ(degenerate.relative_half_width(), 0.0);
    Summary wide;
    wide.ci_hi = 1.0;
    EXPECT_EQ(wide.relative_half_width(), std::numeric_limits<double>::infinity());
}

TEST(Sampler, ConstantDataStopsAtMinReps) {
    StoppingRule rule;
    rule.min_reps = 10;
    Sampler sampler(rule);
    for (int i = 0; i < 9; ++i) {
        sampler.add(2.0e-6);
        EXPECT_FALSE(sampler.done()) << "after " << sampler.count();
    }
    sampler.add(2.0e-6);
    EXPECT_TRUE(sampler.done());
    EXPECT_EQ(sampler.stop_reason(), StopReason::converged);
    Summary s = sampler.summary();
    EXPECT_EQ(s.n, 10u);
    EXPECT_TRUE(s.converged);
    EXPECT_DOUBLE_EQ(s.median, 2.0e-6);
}

TEST(Sampler, ConstantDataNeedsSixSamplesForAnInterval) {
    StoppingRule rule;
    rule.min_reps = 1;
    Sampler sampler(rule);
    for (int i = 0; i < 5; ++i) {
        sampler.add(1.0);
        EXPECT_FALSE(sampler.done());
    }
    sampler.add(1.0);
    EXPECT_TRUE(sampler.done());
}

TEST(Sampler, WarmupSamplesAreDiscarded) {
    StoppingRule rule;
    rule.warmup_reps = 2;
    rule.min_reps = 6;
    Sampler sampler(rule);
    sampler.add(100.0);  // cold caches
    sampler.add(50.0);
    EXPECT_EQ(sampler.count(), 0u);
    EXPECT_THROW(sampler.summary(), std::logic_error);
    for (int i = 0; i < 6; ++i) sampler.add(1.0);
    EXPECT_TRUE(sampler.done());
    EXPECT_DOUBLE_EQ(sampler.summary().max, 1.0);
}

TEST(Sampler, SpreadDataRunsToTheCap) {
    StoppingRule rule;  // precision 2.5%, max_reps 1000
    Sampler sampler(rule);
    std::size_t i = 0;
    while (!sampler.done()) sampler.add(spread_sample(i++));
    EXPECT_EQ(sampler.count(), 1000u);
    EXPECT_EQ(sampler.stop_reason(), StopReason::max_reps);
    Summary s = sampler.summary();
    EXPECT_FALSE(s.converged);
    EXPECT_GT(s.relative_half_width(), rule.precision);
    EXPECT_NEAR(s.median, 6.0, 0.1);
}

TEST(Sampler, SmallCapIsHit) {
    StoppingRule rule;
    rule.max_reps = 20;
    Sampler sampler(rule);
    for (std::size_t i = 0; i < 19; ++i) {
        sampler.add(spread_sample(i));
        EXPECT_FALSE(sampler.done());
    }
    sampler.add(spread_sample(19));
    EXPECT_TRUE(sampler.done());
    EXPECT_EQ(sampler.stop_reason(), StopReason::max_reps);
    EXPECT_FALSE(sampler.summary().converged);
}

TEST(Sampler, TimeCapIsHit) {
    StoppingRule rule;
    rule.max_seconds = 2.0;
    Sampler sampler(rule);
    const double samples[] = {0.25, 0.75, 0.25, 0.75};  // sums exactly to 2.0
    for (double s : samples) {
        EXPECT_FALSE(sampler.done());
        sampler.add(s);
    }
    EXPECT_TRUE(sampler.done());
    EXPECT_EQ(sampler.stop_reason(), StopReason::max_seconds);
}

TEST(Sampler, EarlyOutlierDoesNotDelayConvergence) {
    StoppingRule rule;
    rule.min_reps = 10;
    Sampler sampler(rule);
    for (int i = 0; i < 10; ++i) sampler.add(i == 2 ? 1000.0 : 1.0);
    EXPECT_TRUE(sampler.done());
    EXPECT_EQ(sampler.stop_reason(), StopReason::converged);
    EXPECT_DOUBLE_EQ(sampler.summary().median, 1.0);
}

TEST(Sampler, ConvergesOnModeratelyNoisyData) {
    // +-1% around 1.0: well within 2.5% once the interval exists.
    StoppingRule rule;
    Sampler sampler(rule);
    std::size_t i = 0;
    while (!sampler.done()) sampler.add(0.99 + 0.002 * (spread_sample(i++) - 1.0));
    EXPECT_EQ(sampler.stop_reason(), StopReason::converged);
    EXPECT_EQ(sampler.count(), rule.min_reps);
    EXPECT_NEAR(sampler.summary().median, 1.0, 0.01);
}

TEST(Sampler, RejectsBadInput) {
    Sampler sampler;
    EXPECT_THROW(sampler.add(-1.0), std::invalid_argument);
    EXPECT_THROW(sampler.add(std::nan("")), std::invalid_argument);
    EXPECT_THROW(sampler.add(std::numeric_limits<double>::infinity()), std::invalid_argument);
    StoppingRule inverted;
    inverted.min_reps = 10;
    inverted.max_reps = 5;
    EXPECT_THROW(Sampler{inverted}, std::invalid_argument);
    StoppingRule no_precision;
    no_precision.precision = 0;
    EXPECT_THROW(Sampler{no_precision}, std::invalid_argument);
}

TEST(TimeToStop, ConvergedOrOutOfTimeWithASample) {
    StoppingRule rule;
    rule.warmup_reps = 1;
    rule.min_reps = 3;
    rule.max_reps = 100;
    Sampler sampler(rule);
    EXPECT_FALSE(time_to_stop(sampler, 10, 5));  // no sample yet: even past the cap
    sampler.add(9.0);                           // the warm-up
    EXPECT_FALSE(time_to_stop(sampler, 10, 5));  // still none that counts
    sampler.add(1.0);
    EXPECT_TRUE(time_to_stop(sampler, 5, 5));    // at the cap
    EXPECT_FALSE(time_to_stop(sampler, 4.9, 5));
    EXPECT_FALSE(time_to_stop(sampler, 1e9, 0));  // 0: no cap
    for (int i = 0; i < 20; ++i) sampler.add(1.0);  // identical samples: converged
    EXPECT_TRUE(sampler.done());
    EXPECT_TRUE(time_to_stop(sampler, 0, 5));
}

}  // namespace
}  // namespace hiertune
