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

TEST(TuneBudget, AJobIsEstimatedByItsRunsAtTheSlowestRateThatRan) {
    EXPECT_DOUBLE_EQ(job_estimate({}, 0.5, 40), 20);  // nothing ran: the fallback rate
    // 1 s and 2 s per run: a job of 84 runs after two of 40 and 10 runs
    EXPECT_DOUBLE_EQ(job_estimate({{40, 40}, {20, 10}}, 0.5, 84), 168);
    EXPECT_DOUBLE_EQ(job_estimate({{40, 40}, {3, 0}}, 0.5, 10), 10);  // one that measured nothing: no rate
    EXPECT_DOUBLE_EQ(job_estimate({{3, 0}}, 0.5, 10), 5);
    EXPECT_DOUBLE_EQ(job_estimate({{40, 40}}, 0.5, 0), 0);  // nothing to measure
    EXPECT_THROW(job_estimate({{-1, 2}}, 0.5, 1), std::invalid_argument);
    EXPECT_THROW(job_estimate({}, 0.5, std::nan("")), std::invalid_argument);
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

namespace hiertune {
namespace {

// Each step's time in this run against the budget (the run's time without one); a
// step whose data was stored measured nothing; the rest is the report's and outside the steps.
TEST(TuneBudget, TheReportSaysWhereTheTimeWent) {
    const std::vector<std::string> lines =
        spend_lines({{"1 task benchmarks", 270, false}, {"6 exhaustive sweep", 0, true}}, 2700, 300);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], "where this run's time went (share of the budget, 45 min 0 s):");
    EXPECT_NE(lines[1].find("1 task benchmarks"), std::string::npos);
    EXPECT_NE(lines[1].find("4 min 30 s"), std::string::npos);
    EXPECT_NE(lines[1].find("10.0 %"), std::string::npos);
    EXPECT_NE(lines[2].find("0.0 %  (stored: nothing measured)"), std::string::npos);
    EXPECT_NE(lines[3].find("the rest (this report, outside the steps)"), std::string::npos);
    EXPECT_NE(lines[3].find("30.0 s"), std::string::npos);
    const std::vector<std::string> unbudgeted = spend_lines({{"0 calibrate the links", 30, false}}, 0, 60);
    EXPECT_EQ(unbudgeted[0], "where this run's time went (share of the run, 1 min 0 s):");
    EXPECT_NE(unbudgeted[1].find("50.0 %"), std::string::npos);
    EXPECT_THROW(spend_lines({{"x", -1, false}}, 0, 60), std::invalid_argument);
}

}  // namespace
}  // namespace hiertune
