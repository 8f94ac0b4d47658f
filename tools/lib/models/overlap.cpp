#include "hiertune/models/overlap.hpp"

#include "hiertune/common/stats.hpp"
#include "hiertune/tree/collective.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>

namespace hiertune {

double overhead_ratio(double t_measured, double t_comm, double t_comp) {
    for (const double t : {t_measured, t_comm, t_comp})
        if (!(std::isfinite(t) && t >= 0))
            throw std::invalid_argument("overhead ratio: times must be finite and >= 0");
    const double shorter = std::min(t_comm, t_comp);
    if (shorter <= 0)
        throw std::invalid_argument("overhead ratio: t_comm and t_comp must be > 0");
    return (t_measured - std::max(t_comm, t_comp)) / shorter;
}

OverlapVerdict overlap_verdict(std::vector<double> ratios) {
    if (ratios.empty()) throw std::invalid_argument("overlap verdict: no ratios");
    for (const double r : ratios)
        if (!std::isfinite(r)) throw std::invalid_argument("overlap verdict: ratio not finite");
    const double m = median(std::move(ratios));
    if (m <= kOverlapsMaxRatio) return OverlapVerdict::overlaps;
    if (m >= kNoOverlapMinRatio) return OverlapVerdict::none;
    return OverlapVerdict::partial;
}

bool significant_cell(double t_comm, double t_comp) {
    return t_comm >= kSignificantShare * t_comp && t_comp >= kSignificantShare * t_comm;
}

OverlapSummary summarize_overlap(const std::vector<OverlapCell>& cells) {
    OverlapSummary summary;
    summary.cells = cells.size();
    std::vector<double> ratios;
    for (const OverlapCell& cell : cells)
        if (significant_cell(cell.t_comm_us, cell.t_comp_us)) ratios.push_back(cell.ratio);
    summary.significant = ratios.size();
    if (ratios.empty()) return summary;
    summary.median_ratio = median(ratios);
    summary.verdict = overlap_verdict(std::move(ratios));
    return summary;
}

namespace {

// The collectives whose non-blocking forms overlap times beside isend/irecv.
constexpr grammar::Collective::Kind kCollectiveKinds[] = {
    grammar::Collective::bcast,          grammar::Collective::reduce,    grammar::Collective::allreduce,
    grammar::Collective::allgather,      grammar::Collective::allgatherv, grammar::Collective::scan,
    grammar::Collective::exscan,         grammar::Collective::reduce_scatter,
    grammar::Collective::reduce_scatter_block, grammar::Collective::alltoall, grammar::Collective::alltoallv,
    grammar::Collective::gatherv,        grammar::Collective::scatterv};

}  // namespace

const std::vector<std::string>& overlap_operations() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all{"isend", "irecv", "both"};
        for (grammar::Collective::Kind kind : kCollectiveKinds) all.push_back(grammar::Collective(kind, true).name());
        return all;
    }();
    return names;
}

bool is_collective_operation(std::string_view operation) {
    const std::optional<grammar::Collective> found = grammar::Collective::find(operation);
    return found && found->nonblocking() &&
           std::find(std::begin(kCollectiveKinds), std::end(kCollectiveKinds), found->kind()) != std::end(kCollectiveKinds);
}

std::string to_string(OverlapVerdict verdict) {
    switch (verdict) {
    case OverlapVerdict::overlaps: return "overlaps";
    case OverlapVerdict::partial: return "partially";
    case OverlapVerdict::none: return "not at all";
    }
    throw std::invalid_argument("unknown overlap verdict");
}

namespace {

double round_to_tenth(double us) { return std::round(us * 10) / 10; }

}  // namespace

OverlapGrid make_overlap_grid(std::size_t min_size, std::size_t max_size, double min_comp_us,
                              double max_comp_us, unsigned comp_points) {
    if (min_size == 0) throw std::invalid_argument("overlap grid: min size must be > 0");
    if (min_size > max_size) throw std::invalid_argument("overlap grid: min size > max size");
    if (!(std::isfinite(min_comp_us) && std::isfinite(max_comp_us)))
        throw std::invalid_argument("overlap grid: computation times must be finite");
    if (!(min_comp_us > 0) || round_to_tenth(min_comp_us) <= 0)
        throw std::invalid_argument("overlap grid: min computation time must be >= 0.05 us");
    if (max_comp_us < min_comp_us)
        throw std::invalid_argument("overlap grid: max computation time < min");
    if (comp_points == 0) throw std::invalid_argument("overlap grid: no computation points");

    OverlapGrid grid;
    std::size_t p = 1;
    while (p < min_size) {
        if (p > std::numeric_limits<std::size_t>::max() / 2)
            throw std::invalid_argument("overlap grid: no power of two >= min size");
        p *= 2;
    }
    while (p <= max_size) {
        grid.sizes.push_back(p);
        if (p > max_size / 2) break;  // 2p > max_size, and would overflow near the top
        p *= 2;
    }
    if (grid.sizes.empty())
        throw std::invalid_argument("overlap grid: no power of two between min and max size");

    // Equal ratios between neighbours; the ends are min and max themselves,
    // not a pow() that may land a hair off them.
    const double ratio = max_comp_us / min_comp_us;
    for (unsigned i = 0; i < comp_points; ++i) {
        double t = min_comp_us;
        if (i > 0 && i + 1 == comp_points)
            t = max_comp_us;
        else if (i > 0)
            t = min_comp_us * std::pow(ratio, static_cast<double>(i) / (comp_points - 1));
        const double rounded = round_to_tenth(t);
        if (grid.comp_us.empty() || rounded != grid.comp_us.back()) grid.comp_us.push_back(rounded);
    }
    return grid;
}

namespace {

// The computation: the volatile accumulator forces a load and a store per
// iteration, so the compiler can neither drop nor fold the loop.
void spin(std::uint64_t iterations) {
    volatile std::uint64_t sink = 0;
    for (std::uint64_t i = 0; i < iterations; ++i) sink = sink + i;
}

}  // namespace

// Reruns of the calibrated chunk; the fastest counts.
constexpr int kCalibrationReruns = 4;

ComputeCalibration calibrate_compute(double target_ms) {
    if (!(std::isfinite(target_ms) && target_ms > 0))
        throw std::invalid_argument("compute calibration: target must be finite and > 0 ms");
    using Clock = std::chrono::steady_clock;
    const double target_us = target_ms * 1000;
    // Doubling chunks until one alone lasts target_ms; the rate is that
    // chunk's: the earlier ones run while the core is still clocking up
    // (averaged in, they made 2 ms of compute_for last about 1.4 ms), and
    // few clock reads keep their cost out of the rate.
    // That chunk then runs a few more times and the fastest run sets the rate: a run
    // the scheduler preempted (ranks sharing cores) lasts longer, and a rate taken from
    // it made every compute_for run short.
    const auto time_us = [](std::uint64_t iterations) {
        const auto start = Clock::now();
        spin(iterations);
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    };
    std::uint64_t chunk = 1024;
    double elapsed_us = time_us(chunk);
    for (; elapsed_us < target_us; elapsed_us = time_us(chunk)) chunk *= 2;
    for (int run = 0; run < kCalibrationReruns; run++) elapsed_us = std::min(elapsed_us, time_us(chunk));
    return ComputeCalibration{static_cast<double>(chunk) / elapsed_us};
}

std::uint64_t compute_iterations(const ComputeCalibration& calibration, double us) {
    if (!(std::isfinite(calibration.iters_per_us) && calibration.iters_per_us > 0))
        throw std::invalid_argument("compute iterations: iters_per_us must be finite and > 0");
    if (!(std::isfinite(us) && us >= 0))
        throw std::invalid_argument("compute iterations: duration must be finite and >= 0");
    const double iterations = std::round(calibration.iters_per_us * us);
    // 2^64: the first double past std::uint64_t
    if (!(iterations < 18446744073709551616.0))
        throw std::invalid_argument("compute iterations: too many iterations");
    return static_cast<std::uint64_t>(iterations);
}

void compute_for(const ComputeCalibration& calibration, double us) {
    spin(compute_iterations(calibration, us));
}

ComputeTeam::ComputeTeam(const ComputeCalibration& calibration, unsigned threads) : calibration_(calibration) {
    if (threads == 0) throw std::invalid_argument("compute team: at least one thread");
    compute_iterations(calibration, 0);  // checks the rate before any thread starts
    for (unsigned i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper_loop(); });
}

ComputeTeam::~ComputeTeam() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    start_.notify_all();
    for (std::thread& helper : helpers_) helper.join();
}

void ComputeTeam::run(double us) {
    compute_iterations(calibration_, us);  // a bad duration throws here, before any helper starts
    {
        std::lock_guard<std::mutex> lock(mutex_);
        us_ = us;
        running_ = static_cast<unsigned>(helpers_.size());
        ++generation_;
    }
    start_.notify_all();
    compute_for(calibration_, us);
    std::unique_lock<std::mutex> lock(mutex_);
    spun_ += compute_iterations(calibration_, us);
    done_.wait(lock, [this] { return running_ == 0; });
}

std::uint64_t ComputeTeam::iterations_spun() {
    std::lock_guard<std::mutex> lock(mutex_);
    return spun_;
}

void ComputeTeam::helper_loop() {
    std::uint64_t seen = 0;
    while (true) {
        double us = 0;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            us = us_;
        }
        compute_for(calibration_, us);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            spun_ += compute_iterations(calibration_, us);
            --running_;
        }
        done_.notify_one();
    }
}

}  // namespace hiertune
