// The analytic models' fits: Huber regression ignores outliers, the Fig. 4
// scaling, gamma(P) as measured ratios with a linear extension (hand-computed).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "hiertune/models/analytic_fit.hpp"

namespace hiertune::analytic {
namespace {

TEST(HuberFit, ExactLineIsRecovered) {
    const Line line = huber_fit({1, 2, 3, 4}, {5, 7, 9, 11});  // y = 3 + 2x
    EXPECT_NEAR(line.alpha, 3, 1e-9);
    EXPECT_NEAR(line.beta, 2, 1e-9);
}

TEST(HuberFit, OutliersDoNotMoveTheLine) {
    // y = 3 + 2x at x = 0..11, two of them disturbed 10-fold; least squares is pulled away
    std::vector<double> x, y;
    for (int i = 0; i < 12; ++i) {
        x.push_back(i);
        y.push_back(3 + 2 * i);
    }
    y[4] *= 10;
    y[9] *= 10;
    const Line robust = huber_fit(x, y), plain = least_squares_fit(x, y);
    EXPECT_NEAR(robust.beta, 2, 0.1);
    EXPECT_NEAR(robust.alpha, 3, 1.0);
    EXPECT_GT(std::abs(plain.beta - 2), 2.0);  // the check could fail: the outliers matter
}

TEST(HuberFit, TwoPointsGiveTheLineThroughThem) {
    const Line line = huber_fit({2, 4}, {1, 2});
    EXPECT_NEAR(line.alpha, 0, 1e-12);
    EXPECT_NEAR(line.beta, 0.5, 1e-12);
}

TEST(HuberFit, BadInputIsRefused) {
    EXPECT_THROW(huber_fit({1, 2}, {1}), std::invalid_argument);
    EXPECT_THROW(huber_fit({1, 1, 1}, {1, 2, 3}), std::invalid_argument);  // one distinct x
    EXPECT_THROW(huber_fit({1, 2, 3}, {1, 2, std::nan("")}), std::invalid_argument);
    EXPECT_THROW(huber_fit({}, {}), std::invalid_argument);
}

// Times that grow less than linearly at small x (a token bucket's burst): the line
// through them starts below zero; the non-negative fit goes through the origin.
TEST(HuberFit, NonNegativeInterceptThroughTheOrigin) {
    const std::vector<double> x{1, 2, 4, 8};
    const std::vector<double> y{0.5, 1.5, 3.5, 7.5};  // y = x - 0.5 exactly
    EXPECT_NEAR(huber_fit(x, y).alpha, -0.5, 1e-9);
    const Line origin = huber_fit_nonnegative(x, y);
    EXPECT_EQ(origin.alpha, 0);
    EXPECT_GT(origin.beta, 0.85);  // least squares through the origin: 77 / 85 = 0.906
    EXPECT_LT(origin.beta, 0.95);
    const Line positive = huber_fit_nonnegative(x, {1.5, 2.5, 4.5, 8.5});  // y = x + 0.5: kept
    EXPECT_NEAR(positive.alpha, 0.5, 1e-9);
    EXPECT_NEAR(positive.beta, 1, 1e-9);
}

TEST(AlphaBeta, EquationsAreScaledToOneLine) {
    // alpha = 1e-5 s, beta = 1e-9 s/B; equations a*alpha + b*beta = t, by hand:
    // (a=3, b=3e6): t = 3e-5 + 3e-3 = 3.03e-3; (a=5, b=1e6): t = 5e-5 + 1e-3 = 1.05e-3;
    // (a=2, b=8e6): t = 2e-5 + 8e-3 = 8.02e-3
    const Line line = fit_alpha_beta({{3, 3e6, 3.03e-3}, {5, 1e6, 1.05e-3}, {2, 8e6, 8.02e-3}});
    EXPECT_NEAR(line.alpha, 1e-5, 1e-12);
    EXPECT_NEAR(line.beta, 1e-9, 1e-15);
    EXPECT_THROW(fit_alpha_beta({{0, 1, 1}, {1, 2, 3}}), std::invalid_argument);
}

TEST(AlphaBeta, RelativeFitOfTheSameEquations) {
    // the equations of EquationsAreScaledToOneLine: exact, so both fits agree
    const Line line = fit_alpha_beta_relative({{3, 3e6, 3.03e-3}, {5, 1e6, 1.05e-3}, {2, 8e6, 8.02e-3}});
    EXPECT_NEAR(line.alpha, 1e-5, 1e-12);
    EXPECT_NEAR(line.beta, 1e-9, 1e-15);
    // t = b * 1e-9 - 1e-6 per transfer: a negative start-up, refitted through the origin
    const Line origin = fit_alpha_beta_relative({{1, 1e4, 9e-6}, {1, 1e5, 99e-6}, {1, 1e6, 999e-6}});
    EXPECT_EQ(origin.alpha, 0);
    EXPECT_NEAR(origin.beta, 1e-9, 0.12e-9);
    EXPECT_THROW(fit_alpha_beta_relative({{1, 1, 0}, {1, 2, 1}}), std::invalid_argument);  // a time of 0
    EXPECT_THROW(fit_alpha_beta_relative({{1, 5, 1}, {2, 10, 3}}), std::invalid_argument);  // one x
}

TEST(Gamma, RatiosToOneChildAndTheirLine) {
    // T(2..5) = 10, 15, 21, 25 us -> gamma 1, 1.5, 2.1, 2.5; least squares through
    // (2,1) (3,1.5) (4,2.1) (5,2.5): mean x 3.5, mean y 1.775, slope = sum dx dy / sum dx^2
    // = (-1.5*-0.775 + -0.5*-0.275 + 0.5*0.325 + 1.5*0.725) / 5 = 2.55 / 5 = 0.51,
    // intercept 1.775 - 0.51*3.5 = -0.01
    const Gamma gamma({{2, 10e-6}, {3, 15e-6}, {4, 21e-6}, {5, 25e-6}});
    EXPECT_DOUBLE_EQ(gamma(2), 1);
    EXPECT_DOUBLE_EQ(gamma(4), 2.1);
    EXPECT_NEAR(gamma.extension().beta, 0.51, 1e-12);
    EXPECT_NEAR(gamma.extension().alpha, -0.01, 1e-12);
    EXPECT_NEAR(gamma(8), -0.01 + 0.51 * 8, 1e-12);
    EXPECT_THROW(gamma(1), std::invalid_argument);
}

TEST(Gamma, NeedsTheOneChildUnit) {
    using Times = std::map<int, double>;
    EXPECT_THROW(Gamma(Times{{3, 1e-5}}), std::invalid_argument);
    EXPECT_THROW(Gamma(Times{{2, 0}}), std::invalid_argument);
    EXPECT_DOUBLE_EQ(Gamma(Times{{2, 1e-5}})(6), 1);  // nothing but P = 2: gamma stays 1
    EXPECT_THROW(Gamma(Times{{2, 1e-5}, {4, 2e-5}})(3), std::invalid_argument);  // a gap
}

}  // namespace
}  // namespace hiertune::analytic
