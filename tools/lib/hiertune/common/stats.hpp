// Measurement statistics for `hiertune bench`.
//
// One benchmark point is timed repeatedly; each repetition yields one sample
// (the max-over-ranks time, in seconds, computed by the caller).  The Sampler
// decides when to stop: once the 95% confidence interval of the *median* is
// narrow enough relative to the median, or a repetition/time cap is hit.
//
// The median and its distribution-free (order-statistic) confidence interval
// are used instead of mean/stddev because timings have heavy right tails
// (OS noise, network hiccups): a few huge outliers move neither the result nor
// the stopping decision.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace hiertune {

// Median of the values; throws std::invalid_argument if empty.
double median(std::vector<double> values);

// Median of values already sorted ascending; throws std::invalid_argument if empty.
double median_of_sorted(const std::vector<double>& sorted);

// 1-based ranks (j, k) such that [x_(j), x_(k)] of n sorted samples covers
// the true median with probability >= confidence, for any continuous
// distribution.
struct OrderStatisticRanks {
    std::size_t lower = 0;
    std::size_t upper = 0;
};

// Exact binomial ranks: the largest j with P(Bin(n, 1/2) <= j-1) <= (1-c)/2,
// and k = n+1-j (symmetric).  For large n they coincide with the usual normal
// approximation n/2 -/+ 1.96*sqrt(n)/2; for small n the approximation
// under-covers, which is why the exact form is used.  Returns nullopt when
// even [x_(1), x_(n)] does not reach the confidence (n <= 5 at 95%).
// The first call for an (n, confidence) is O(n); later ones look it up.
// Throws std::invalid_argument unless 0 < confidence < 1.
std::optional<OrderStatisticRanks> median_ci_ranks(std::size_t n, double confidence = 0.95);

struct Summary {
    std::size_t n = 0;  // samples used (warm-up excluded)
    double median = 0;
    double ci_lo = 0;   // confidence interval of the median; min/max when it
    double ci_hi = 0;   // cannot be formed (then converged is false)
    double min = 0;
    double max = 0;
    double mean = 0;    // informative only: not robust to outliers
    bool converged = false;  // CI formed, n >= min_reps, precision reached

    // (ci_hi - ci_lo) / 2 / median; 0 for a degenerate interval at median 0,
    // +infinity for a non-degenerate one.
    double relative_half_width() const;
};

// Summary of the samples (in any order) at the given confidence.
// converged is true iff the CI could be formed and its relative half-width
// is <= precision.  Throws std::invalid_argument if samples is empty.
Summary summarize(std::vector<double> samples, double precision = 0.025,
                  double confidence = 0.95);

struct StoppingRule {
    double precision = 0.025;   // target relative CI half-width of the median
    double confidence = 0.95;
    std::size_t warmup_reps = 0;  // first samples discarded (caches, connections)
    std::size_t min_reps = 10;
    std::size_t max_reps = 1000;  // cap: stop here even if not converged
    // Cap on the sum of the recorded samples (measured time, deterministic);
    // 0 means none.  Wall-clock limits including synchronisation overhead
    // are the caller's business.
    double max_seconds = 0;
};

enum class StopReason { not_done, converged, max_reps, max_seconds };

// Collects samples of one benchmark point and applies the StoppingRule.
// Rank 0 owns it and broadcasts done() so that all ranks repeat alike.
class Sampler {
public:
    explicit Sampler(StoppingRule rule = {});  // throws std::invalid_argument on a bad rule

    // Adds one repetition's time in seconds (finite, >= 0, else
    // std::invalid_argument).  Samples added after done() are still kept.
    void add(double seconds);

    bool done() const { return stop_reason() != StopReason::not_done; }
    StopReason stop_reason() const;

    // Throws std::logic_error before the first non-warm-up sample.
    Summary summary() const;

    std::size_t count() const { return sorted_.size(); }  // warm-up excluded
    const StoppingRule& rule() const { return rule_; }

private:
    StoppingRule rule_;
    std::size_t warmups_seen_ = 0;
    std::vector<double> sorted_;  // kept sorted: summary() is O(n), add() O(n)
    double sum_ = 0;
};

// The stopping rule of `bench` (and `tasks`, `calibrate`) after each
// repetition: the sampler is done, or `max_time` wall-clock seconds (0: no
// cap) have passed since the first repetition, warm-up included, and at
// least one sample counts.
bool time_to_stop(const Sampler& sampler, double elapsed_seconds, double max_time);

}  // namespace hiertune
