#include "hiertune/models/overlap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <ctime>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace hiertune {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Eq. (1) by hand: (measured - max) / min.
TEST(OverlapRatio, PerfectOverlapIsZero) {
    // communication longer: measured = t_comm = 10
    EXPECT_DOUBLE_EQ(overhead_ratio(10, 10, 4), 0.0);
    // computation longer: measured = t_comp = 8
    EXPECT_DOUBLE_EQ(overhead_ratio(8, 3, 8), 0.0);
}

TEST(OverlapRatio, SerializedIsOne) {
    EXPECT_DOUBLE_EQ(overhead_ratio(14, 10, 4), 1.0);  // (14 - 10) / 4
    EXPECT_DOUBLE_EQ(overhead_ratio(11, 3, 8), 1.0);   // (11 - 8) / 3
}

TEST(OverlapRatio, InBetween) {
    EXPECT_DOUBLE_EQ(overhead_ratio(9.5, 3, 8), 0.5);  // (9.5 - 8) / 3
    EXPECT_DOUBLE_EQ(overhead_ratio(7.5, 5, 5), 0.5);  // equal times: (7.5 - 5) / 5
}

TEST(OverlapRatio, SlowerThanSerializedIsAboveOne) {
    // overlap tried and lost: 16 against 14 serialized; (16 - 10) / 4
    EXPECT_DOUBLE_EQ(overhead_ratio(16, 10, 4), 1.5);
}

TEST(OverlapRatio, ImpreciseCommTimeGivesNegative) {
    // t_comm measured 10 but the overlapped run took 9: (9 - 10) / 4, not clamped
    EXPECT_DOUBLE_EQ(overhead_ratio(9, 10, 4), -0.25);
}

TEST(OverlapRatio, BadInputsThrow) {
    EXPECT_THROW(overhead_ratio(5, 0, 4), std::invalid_argument);  // min <= 0
    EXPECT_THROW(overhead_ratio(5, 4, 0), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(-1, 10, 4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(5, -2, 4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(5, 10, -4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(kNaN, 10, 4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(kInf, 10, 4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(5, kInf, 4), std::invalid_argument);
    EXPECT_THROW(overhead_ratio(5, 10, kNaN), std::invalid_argument);
    // measured 0 is a (bad) measurement, not an error: (0 - 10) / 4
    EXPECT_DOUBLE_EQ(overhead_ratio(0, 10, 4), -2.5);
}

TEST(OverlapVerdicts, ThresholdsAroundPointTwo) {
    EXPECT_EQ(overlap_verdict({0.19}), OverlapVerdict::overlaps);
    EXPECT_EQ(overlap_verdict({0.2}), OverlapVerdict::overlaps);  // at the threshold
    EXPECT_EQ(overlap_verdict({0.21}), OverlapVerdict::partial);
    EXPECT_EQ(overlap_verdict({-0.3}), OverlapVerdict::overlaps);
}

TEST(OverlapVerdicts, ThresholdsAroundPointEight) {
    EXPECT_EQ(overlap_verdict({0.79}), OverlapVerdict::partial);
    EXPECT_EQ(overlap_verdict({0.8}), OverlapVerdict::none);  // at the threshold
    EXPECT_EQ(overlap_verdict({0.81}), OverlapVerdict::none);
    EXPECT_EQ(overlap_verdict({1.7}), OverlapVerdict::none);
}

TEST(OverlapVerdicts, DecidedByTheMedian) {
    EXPECT_EQ(overlap_verdict({5.0, 0.0, 0.1}), OverlapVerdict::overlaps);  // median 0.1
    EXPECT_EQ(overlap_verdict({0.0, 0.4}), OverlapVerdict::overlaps);       // median 0.2
    EXPECT_EQ(overlap_verdict({0.0, 0.5, 1.0}), OverlapVerdict::partial);   // median 0.5
    EXPECT_EQ(overlap_verdict({1.0, 0.6, 0.8}), OverlapVerdict::none);      // median 0.8
    EXPECT_EQ(overlap_verdict({0.9, 1.1, -2.0}), OverlapVerdict::none);     // median 0.9
}

TEST(OverlapVerdicts, BadInputsThrow) {
    EXPECT_THROW(overlap_verdict({}), std::invalid_argument);
    EXPECT_THROW(overlap_verdict({0.1, kNaN}), std::invalid_argument);
    EXPECT_THROW(overlap_verdict({kInf}), std::invalid_argument);
}

TEST(OverlapVerdicts, Names) {
    EXPECT_EQ(to_string(OverlapVerdict::overlaps), "overlaps");
    EXPECT_EQ(to_string(OverlapVerdict::partial), "partially");
    EXPECT_EQ(to_string(OverlapVerdict::none), "not at all");
}

using Sizes = std::vector<std::size_t>;
using Times = std::vector<double>;

TEST(OverlapGrids, SizesArePowersOfTwo) {
    EXPECT_EQ(make_overlap_grid(1, 8, 1, 1, 1).sizes, (Sizes{1, 2, 4, 8}));
    EXPECT_EQ(make_overlap_grid(3, 16, 1, 1, 1).sizes, (Sizes{4, 8, 16}));  // 3 rounds up to 4
    EXPECT_EQ(make_overlap_grid(3, 20, 1, 1, 1).sizes, (Sizes{4, 8, 16}));  // 32 > 20
    EXPECT_EQ(make_overlap_grid(8, 8, 1, 1, 1).sizes, (Sizes{8}));
    EXPECT_EQ(make_overlap_grid(1, 1, 1, 1, 1).sizes, (Sizes{1}));
}

TEST(OverlapGrids, SizesAtTheTopDoNotOverflow) {
    const std::size_t top = std::numeric_limits<std::size_t>::max();
    const std::size_t highest_power = top / 2 + 1;  // 2^63 with a 64-bit size_t
    EXPECT_EQ(make_overlap_grid(highest_power, top, 1, 1, 1).sizes, (Sizes{highest_power}));
    EXPECT_EQ(make_overlap_grid(highest_power / 2, top, 1, 1, 1).sizes,
              (Sizes{highest_power / 2, highest_power}));
    EXPECT_THROW(make_overlap_grid(highest_power + 1, top, 1, 1, 1), std::invalid_argument);
}

TEST(OverlapGrids, CompTimesAreLogSpaced) {
    EXPECT_EQ(make_overlap_grid(1, 1, 1, 100, 3).comp_us, (Times{1, 10, 100}));
    // pow(1000, 1/3) = 9.999999999999998: rounding to 0.1 us makes it 10
    EXPECT_EQ(make_overlap_grid(1, 1, 1, 1000, 4).comp_us, (Times{1, 10, 100, 1000}));
    // 2, 2 * sqrt(2) = 2.83, 4
    EXPECT_EQ(make_overlap_grid(1, 1, 2, 4, 3).comp_us, (Times{2, 2.8, 4}));
}

TEST(OverlapGrids, OneCompPointIsMin) {
    EXPECT_EQ(make_overlap_grid(1, 1, 2.5, 100, 1).comp_us, (Times{2.5}));
}

TEST(OverlapGrids, CompTimesRoundedAndDeduplicated) {
    EXPECT_EQ(make_overlap_grid(1, 1, 0.123, 0.123, 1).comp_us, (Times{0.1}));
    // 1.1^(i/4): 1, 1.024, 1.049, 1.074, 1.1 -> 1.0 1.0 1.0 1.1 1.1
    EXPECT_EQ(make_overlap_grid(1, 1, 1, 1.1, 5).comp_us, (Times{1.0, 1.1}));
    EXPECT_EQ(make_overlap_grid(1, 1, 7, 7, 3).comp_us, (Times{7}));
}

TEST(OverlapGrids, BadSizesThrow) {
    EXPECT_THROW(make_overlap_grid(0, 8, 1, 10, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(16, 8, 1, 10, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(5, 7, 1, 10, 2), std::invalid_argument);  // no power of two
}

TEST(OverlapGrids, BadCompTimesThrow) {
    EXPECT_THROW(make_overlap_grid(1, 8, 0, 10, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(1, 8, -1, 10, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(1, 8, 0.04, 10, 2), std::invalid_argument);  // rounds to 0
    EXPECT_THROW(make_overlap_grid(1, 8, 10, 1, 2), std::invalid_argument);     // max < min
    EXPECT_THROW(make_overlap_grid(1, 8, kNaN, 10, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(1, 8, 1, kInf, 2), std::invalid_argument);
    EXPECT_THROW(make_overlap_grid(1, 8, 1, 10, 0), std::invalid_argument);
}

TEST(OverlapCompute, IterationsForADuration) {
    EXPECT_EQ(compute_iterations({100}, 2.5), 250u);
    EXPECT_EQ(compute_iterations({1000}, 2000), 2000000u);
    EXPECT_EQ(compute_iterations({3.5}, 3), 11u);  // 10.5 rounds to nearest, away from 0
    EXPECT_EQ(compute_iterations({0.4}, 1), 0u);
    EXPECT_EQ(compute_iterations({100}, 0), 0u);
}

TEST(OverlapCompute, BadIterationInputsThrow) {
    EXPECT_THROW(compute_iterations({0}, 1), std::invalid_argument);
    EXPECT_THROW(compute_iterations({-5}, 1), std::invalid_argument);
    EXPECT_THROW(compute_iterations({kNaN}, 1), std::invalid_argument);
    EXPECT_THROW(compute_iterations({100}, -1), std::invalid_argument);
    EXPECT_THROW(compute_iterations({100}, kInf), std::invalid_argument);
    EXPECT_THROW(compute_iterations({1e10}, 1e10), std::invalid_argument);  // 1e20 > 2^64
}

TEST(OverlapCompute, CalibrationRejectsBadTarget) {
    EXPECT_THROW(calibrate_compute(0), std::invalid_argument);
    EXPECT_THROW(calibrate_compute(-1), std::invalid_argument);
    EXPECT_THROW(calibrate_compute(kNaN), std::invalid_argument);
}

// CPU time, not wall time: a loaded machine preempts the loop but cannot
// make it use less CPU.
double thread_cpu_ms() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

TEST(OverlapCompute, CalibrationGivesARate) { EXPECT_GT(calibrate_compute(5).iters_per_us, 0); }

// The loop is not optimised away: 50 million iterations take at least 5 ms
// of CPU on any CPU (a load, an add and a store each: about 10 ms at 5 GHz).
TEST(OverlapCompute, LoopReallySpendsCpu) {
    const double start = thread_cpu_ms();
    compute_for({1.0}, 5e7);  // 1 iteration per us: 5e7 iterations
    EXPECT_GE(thread_cpu_ms() - start, 5.0);
}

// The verdict's cells: each time at least 10% of the other, both ways.
TEST(OverlapCells, SignificantWhenEachIsATenthOfTheOther) {
    EXPECT_TRUE(significant_cell(10, 100));
    EXPECT_TRUE(significant_cell(100, 10));
    EXPECT_TRUE(significant_cell(50, 50));
    EXPECT_FALSE(significant_cell(9.9, 100));
    EXPECT_FALSE(significant_cell(100, 9.9));
    EXPECT_FALSE(significant_cell(0, 1));
}

OverlapCell cell(double t_comm, double t_comp, double ratio) {
    OverlapCell c;
    c.t_comm_us = t_comm;
    c.t_comp_us = t_comp;
    c.ratio = ratio;
    return c;
}

TEST(OverlapSummaries, MedianOverTheSignificantCellsOnly) {
    // the third cell's computation is < 10% of its communication: left out
    const OverlapSummary summary =
        summarize_overlap({cell(100, 50, 0.1), cell(100, 100, 0.3), cell(1000, 5, 9.0), cell(20, 100, 0.9)});
    EXPECT_EQ(summary.cells, 4u);
    EXPECT_EQ(summary.significant, 3u);
    ASSERT_TRUE(summary.median_ratio);
    EXPECT_DOUBLE_EQ(*summary.median_ratio, 0.3);
    EXPECT_EQ(summary.verdict, OverlapVerdict::partial);
}

TEST(OverlapSummaries, NoSignificantCellNoVerdict) {
    const OverlapSummary summary = summarize_overlap({cell(1000, 5, 0.0)});
    EXPECT_EQ(summary.cells, 1u);
    EXPECT_EQ(summary.significant, 0u);
    EXPECT_FALSE(summary.median_ratio);
    EXPECT_FALSE(summary.verdict);
    EXPECT_EQ(summarize_overlap({}).cells, 0u);
}

// run() comes back run after run (a lost wake-up would hang here), and
// checks its duration before waking anyone.
TEST(OverlapCompute, TeamRunsOnEveryThreadAndWaitsForAll) {
    EXPECT_THROW(ComputeTeam({100}, 0), std::invalid_argument);
    ComputeTeam team({100}, 3);
    EXPECT_EQ(team.threads(), 3u);
    for (int run = 0; run < 5; ++run) team.run(100);  // returns: helpers finished each run
    EXPECT_THROW(team.run(-1), std::invalid_argument);
    team.run(0);
    ComputeTeam alone({100}, 1);
    EXPECT_EQ(alone.threads(), 1u);
    alone.run(10);
}

// Every thread of the team spins the whole duration's iterations, each run
// (LoopReallySpendsCpu shows the loop is not optimised away).  Counted, not
// timed: CPU clocks on a loaded or virtual machine say little.
TEST(OverlapCompute, TeamThreadsReallyCompute) {
    const ComputeCalibration calibration{1.0};
    ComputeTeam one(calibration, 1), three(calibration, 3);
    one.run(1e5);
    EXPECT_EQ(one.iterations_spun(), 100000u);
    three.run(1e5);
    three.run(2e5);
    EXPECT_EQ(three.iterations_spun(), 3u * 300000u);
}

TEST(OverlapOperations, CollectivesAreTheNonBlockingOnes) {
    for (const std::string& operation : overlap_operations())
        EXPECT_EQ(is_collective_operation(operation), operation.front() == 'i' && operation != "isend" &&
                                                          operation != "irecv")
            << operation;
    EXPECT_FALSE(is_collective_operation("bcast"));
    // the non-blocking reductions, the scans and the reduce-scatters among them
    for (const char* operation : {"ireduce", "iallreduce", "iscan", "iexscan", "ireduce_scatter",
                                  "ireduce_scatter_block"}) {
        EXPECT_EQ(std::count(overlap_operations().begin(), overlap_operations().end(), operation), 1) << operation;
        EXPECT_TRUE(is_collective_operation(operation)) << operation;
    }
    EXPECT_FALSE(is_collective_operation("scan"));
    EXPECT_FALSE(is_collective_operation("reduce_scatter_block"));
    EXPECT_FALSE(is_collective_operation("igather"));  // not among them
    // MPI_Iallgatherv, right after MPI_Iallgather
    const auto iallgather = std::find(overlap_operations().begin(), overlap_operations().end(), "iallgather");
    ASSERT_NE(iallgather, overlap_operations().end());
    ASSERT_NE(iallgather + 1, overlap_operations().end());
    EXPECT_EQ(*(iallgather + 1), "iallgatherv");
    EXPECT_TRUE(is_collective_operation("iallgatherv"));
    EXPECT_FALSE(is_collective_operation("allgatherv"));
    // MPI_Ialltoall, MPI_Ialltoallv, then MPI_Igatherv and MPI_Iscatterv, the last (the
    // v-forms' uneven blocks; igather and iscatter stay out)
    ASSERT_GE(overlap_operations().size(), 4u);
    EXPECT_EQ(std::vector<std::string>(overlap_operations().end() - 4, overlap_operations().end()),
              (std::vector<std::string>{"ialltoall", "ialltoallv", "igatherv", "iscatterv"}));
    EXPECT_TRUE(is_collective_operation("ialltoall"));
    EXPECT_FALSE(is_collective_operation("alltoall"));
    EXPECT_TRUE(is_collective_operation("ialltoallv"));
    EXPECT_FALSE(is_collective_operation("alltoallv"));
    EXPECT_FALSE(is_collective_operation("ialltoallw"));
    for (const char* v : {"igatherv", "iscatterv"}) EXPECT_TRUE(is_collective_operation(v)) << v;
    for (const char* blocking : {"gatherv", "scatterv", "iscatter"}) EXPECT_FALSE(is_collective_operation(blocking));
}

}  // namespace
}  // namespace hiertune
