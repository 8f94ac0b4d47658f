// tune --budget's arithmetic: which of the sweep's jobs start, their estimates, the
// report's lines.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "hiertune/tune/tune_budget.hpp"

namespace hiertune {
namespace {

TEST(TuneBudget, NoBudgetLetsEveryJobStart) {
    EXPECT_TRUE(fits_budget(0, 1e6, 1e6));
    EXPECT_TRUE(budget_lines(0, 3000, {}).empty());
}

TEST(TuneBudget, AJobStartsOnlyWhereItsEstimateEndsInside) {
    EXPECT_TRUE(fits_budget(2700, 2000, 700));
    EXPECT_FALSE(fits_budget(2700, 2000, 700.5));
    EXPECT_FALSE(fits_budget(2700, 2800, 0));  // already over: nothing more starts
    EXPECT_TRUE(fits_budget(2700, 2700, 0));
}

TEST(TuneBudget, BadTimesAreRefused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_THROW(fits_budget(-1, 0, 0), std::invalid_argument);
    EXPECT_THROW(fits_budget(inf, 0, 0), std::invalid_argument);
    EXPECT_THROW(fits_budget(100, nan, 0), std::invalid_argument);
    EXPECT_THROW(fits_budget(100, 0, -2), std::invalid_argument);
}

TEST(TuneBudget, TheNextJobIsEstimatedAsTheLongestThatRan) {
    EXPECT_DOUBLE_EQ(next_job_estimate({}, 42.5), 42.5);
    EXPECT_DOUBLE_EQ(next_job_estimate({10, 80, 30}, 42.5), 80);
}

TEST(TuneBudget, DurationsReadAsMinutesAndSeconds) {
    EXPECT_EQ(duration_text(12.46), "12.5 s");
    EXPECT_EQ(duration_text(2700), "45 min 0 s");
    EXPECT_EQ(duration_text(3723.4), "1 h 2 min 3 s");
}

TEST(TuneBudget, TheReportSaysTheTimeAgainstTheBudgetAndWhatWasLeftOut) {
    const std::vector<std::string> inside =
        budget_lines(2700, 2500, {{"exhaustive sweep of allreduce", 120, 95}});
    ASSERT_EQ(inside.size(), 2u);
    EXPECT_EQ(inside[0], "budget 45 min 0 s: this run took 41 min 40 s");
    EXPECT_EQ(inside[1], "  left out: exhaustive sweep of allreduce (estimated 2 min 0 s, 1 min 35 s left)");
    const std::vector<std::string> over = budget_lines(600, 900, {});
    ASSERT_EQ(over.size(), 1u);
    EXPECT_NE(over[0].find("over by 5 min 0 s"), std::string::npos) << over[0];
}

}  // namespace
}  // namespace hiertune
