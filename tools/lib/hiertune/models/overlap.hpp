// The MPI-free core of `hiertune overlap`: how much a non-blocking
// collective overlaps with computation.
//
// Following Denis and Trahay, "MPI Overlap: Benchmark and Analysis" (ICPP
// 2016), one operation is timed over the full 2-D space message size
// x computation time, not along one axis with the other fixed: an overlap
// strategy may only work in part of that space.  Each cell gets the overhead
// ratio of eq. (1); the operation's verdict is the median ratio over the
// cells where both communication and computation are significant.
//
// The computation is a calibrated busy loop: it must really occupy the CPU
// (a sleeping rank would let the MPI library progress freely and overstate
// the overlap).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <string_view>
#include <vector>

namespace hiertune {

// Eq. (1): (t_measured - max(t_comm, t_comp)) / min(t_comm, t_comp), the
// overhead relative to serialized execution: 0 is perfect overlap, 1 none.
// Not clamped: it is < 0 when t_comm was measured imprecisely (too high),
// and > 1 when trying to overlap made things slower than serializing.
// Any unit, the same for the three times.  Throws std::invalid_argument when
// an input is negative or not finite, or min(t_comm, t_comp) <= 0 (no
// serialized overhead to normalise by).
double overhead_ratio(double t_measured, double t_comm, double t_comp);

enum class OverlapVerdict { overlaps, partial, none };

// A median ratio up to here is mostly overlap: the paper's black/purple zone,
// with room for the noise of three separate measurements.
constexpr double kOverlapsMaxRatio = 0.2;
// A median ratio from here on is essentially serialized (the paper's red, 1),
// the same margin below 1 as above 0.
constexpr double kNoOverlapMinRatio = 0.8;

// Verdict from the ratios of the cells where both t_comm and t_comp are
// significant (the caller picks them): overlaps when their median is
// <= kOverlapsMaxRatio, none when >= kNoOverlapMinRatio, partial otherwise.
// The median, as in the paper, so that a few noisy cells do not decide.
// Throws std::invalid_argument when ratios is empty or one is not finite.
OverlapVerdict overlap_verdict(std::vector<double> ratios);

// A cell counts towards the verdict only when each time is at least this
// share of the other: where one side is negligible, eq. (1) divides by it and
// measures noise.
constexpr double kSignificantShare = 0.1;

// t_comm >= kSignificantShare * t_comp and t_comp >= kSignificantShare * t_comm
// (the times in the same unit).
bool significant_cell(double t_comm, double t_comp);

// One cell of the grid as measured: medians over the repetitions, in us.
struct OverlapCell {
    std::size_t bytes = 0;
    double comp_us = 0;  // the computation asked for
    double t_comm_us = 0, t_comp_us = 0, t_measured_us = 0;
    double ratio = 0;  // overhead_ratio(t_measured_us, t_comm_us, t_comp_us)
};

// What the cells of one operation say: the median ratio and verdict over the
// significant cells; both empty when no cell is significant.
struct OverlapSummary {
    std::size_t cells = 0;
    std::size_t significant = 0;
    std::optional<double> median_ratio;
    std::optional<OverlapVerdict> verdict;
};
OverlapSummary summarize_overlap(const std::vector<OverlapCell>& cells);

// What `hiertune overlap -O` accepts: pt2pt (isend, irecv, both: ranks 0 and
// 1) and non-blocking collectives (every rank), in this order.
const std::vector<std::string>& overlap_operations();
// ibcast, ireduce, ...: their algorithm is MPIR_CVAR_<OP>_INTRA_ALGORITHM.
bool is_collective_operation(std::string_view operation);

// "overlaps", "partially", "not at all": reads as "<collective> overlaps ...".
std::string to_string(OverlapVerdict verdict);

// The cells explored: every size crossed with every computation time.
struct OverlapGrid {
    std::vector<std::size_t> sizes;  // bytes, powers of two, ascending
    std::vector<double> comp_us;     // microseconds, ascending, distinct
};

// sizes: the powers of two from min_size (rounded up to one) to max_size
// inclusive.  comp_us: comp_points times log-spaced from min_comp_us to
// max_comp_us (comp_points 1: min_comp_us alone), rounded to 0.1 us (finer
// than a busy loop keeps) and deduplicated, so close ends give fewer points.
// Throws std::invalid_argument when min_size is 0 or > max_size, no power of
// two lies in [min_size, max_size], min_comp_us rounds to 0 (< 0.05),
// max_comp_us < min_comp_us, a time is not finite, or comp_points is 0.
OverlapGrid make_overlap_grid(std::size_t min_size, std::size_t max_size, double min_comp_us,
                              double max_comp_us, unsigned comp_points);

// Speed of the busy loop of compute_for on this CPU.
struct ComputeCalibration {
    double iters_per_us = 0;
};

// Times the busy loop by std::chrono::steady_clock: doubling runs until one
// lasts at least target_ms, then that run 4 more times, the fastest setting
// the rate (a preempted run is slower), about 6 x target_ms in all.
// Throws std::invalid_argument unless target_ms is finite and > 0.
ComputeCalibration calibrate_compute(double target_ms);

// Iterations of the loop for `us` microseconds: iters_per_us * us rounded to
// the nearest integer.  Throws std::invalid_argument when iters_per_us is not
// finite and > 0, us is negative or not finite, or the count overflows.
std::uint64_t compute_iterations(const ComputeCalibration& calibration, double us);

// Keeps the CPU busy (no sleep) for about `us` microseconds: spins
// compute_iterations(calibration, us) iterations.
void compute_for(const ComputeCalibration& calibration, double us);

// The paper's multi-threaded computation: run(us) has `threads` threads (the
// caller's one of them) each spin compute_for(us), and returns when all are
// done.  Between runs the helpers sleep on a condition variable, leaving the
// cores to MPI; waking them costs the same in the computation-alone and the
// overlapped phase.  Throws std::invalid_argument for 0 threads.
class ComputeTeam {
public:
    ComputeTeam(const ComputeCalibration& calibration, unsigned threads);
    ~ComputeTeam();
    ComputeTeam(const ComputeTeam&) = delete;
    ComputeTeam& operator=(const ComputeTeam&) = delete;

    unsigned threads() const { return static_cast<unsigned>(helpers_.size()) + 1; }
    void run(double us);
    // Iterations every thread of the team has spun, all runs together.
    std::uint64_t iterations_spun();

private:
    void helper_loop();

    ComputeCalibration calibration_;
    std::vector<std::thread> helpers_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    std::uint64_t generation_ = 0;  // run() number, under mutex_
    double us_ = 0;                 // this run's duration, under mutex_
    unsigned running_ = 0;          // helpers still computing, under mutex_
    std::uint64_t spun_ = 0;        // iterations_spun(), under mutex_
    bool stop_ = false;             // under mutex_
};

}  // namespace hiertune
