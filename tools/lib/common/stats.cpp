#include "hiertune/common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace hiertune {

double median_of_sorted(const std::vector<double>& sorted) {
    if (sorted.empty()) throw std::invalid_argument("median of an empty sample");
    const std::size_t n = sorted.size();
    const std::size_t mid = n / 2;
    return n % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return median_of_sorted(values);
}

namespace {

// The definition itself: walk the Bin(n, 1/2) CDF from the left in log space
// (2^-n underflows for n > 1074).  j counts the ranks whose left tail stays
// within `tail`.  O(n) exp and log.
std::optional<OrderStatisticRanks> walked_ranks(std::size_t n, double tail) {
    double log_pmf = -static_cast<double>(n) * std::log(2.0);
    double cdf = 0;
    std::size_t j = 0;
    for (std::size_t i = 0; i <= n / 2; ++i) {
        cdf += std::exp(log_pmf);
        if (cdf > tail) break;
        j = i + 1;
        log_pmf += std::log(static_cast<double>(n - i)) - std::log(static_cast<double>(i + 1));
    }
    if (j == 0) return std::nullopt;
    return OrderStatisticRanks{j, n + 1 - j};
}

// The ranks walked so far, per confidence and n: the stopping rule asks after
// every repetition, n growing by one, and the walk is O(n) each time.  Shared
// by all samplers (a bench sweep asks for the same n point after point); the
// lock makes it safe from any thread.
class RankCache {
public:
    std::optional<OrderStatisticRanks> ranks(std::size_t n, double confidence) {
        const std::lock_guard<std::mutex> lock(mutex_);
        std::vector<Entry>& known = by_confidence_[confidence];
        if (n >= known.size()) known.resize(n + 1);
        Entry& entry = known[n];
        if (!entry.walked) entry = Entry{true, walked_ranks(n, (1 - confidence) / 2)};
        return entry.ranks;
    }

private:
    struct Entry {
        bool walked = false;
        std::optional<OrderStatisticRanks> ranks;
    };
    std::mutex mutex_;
    std::map<double, std::vector<Entry>> by_confidence_;
};

}  // namespace

std::optional<OrderStatisticRanks> median_ci_ranks(std::size_t n, double confidence) {
    if (!(confidence > 0 && confidence < 1))
        throw std::invalid_argument("confidence must be in (0, 1)");
    static RankCache cache;
    return cache.ranks(n, confidence);
}

double Summary::relative_half_width() const {
    const double half_width = (ci_hi - ci_lo) / 2;
    if (half_width == 0) return 0;
    if (median <= 0) return std::numeric_limits<double>::infinity();
    return half_width / median;
}

namespace {

Summary summarize_sorted(const std::vector<double>& sorted, double precision, double confidence) {
    Summary s;
    s.n = sorted.size();
    s.median = median_of_sorted(sorted);
    s.min = sorted.front();
    s.max = sorted.back();
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
    if (const auto ranks = median_ci_ranks(s.n, confidence)) {
        s.ci_lo = sorted[ranks->lower - 1];
        s.ci_hi = sorted[ranks->upper - 1];
        s.converged = s.relative_half_width() <= precision;
    } else {
        s.ci_lo = s.min;
        s.ci_hi = s.max;
        s.converged = false;
    }
    return s;
}

}  // namespace

Summary summarize(std::vector<double> samples, double precision, double confidence) {
    std::sort(samples.begin(), samples.end());
    return summarize_sorted(samples, precision, confidence);
}

Sampler::Sampler(StoppingRule rule) : rule_(rule) {
    if (!(rule_.precision > 0)) throw std::invalid_argument("precision must be > 0");
    if (!(rule_.confidence > 0 && rule_.confidence < 1))
        throw std::invalid_argument("confidence must be in (0, 1)");
    if (rule_.max_reps == 0) throw std::invalid_argument("max_reps must be > 0");
    if (rule_.min_reps > rule_.max_reps) throw std::invalid_argument("min_reps must be <= max_reps");
    if (!(rule_.max_seconds >= 0)) throw std::invalid_argument("max_seconds must be >= 0");
}

void Sampler::add(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        throw std::invalid_argument("sample must be a finite, non-negative time");
    if (warmups_seen_ < rule_.warmup_reps) {
        ++warmups_seen_;
        return;
    }
    sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), seconds), seconds);
    sum_ += seconds;
}

StopReason Sampler::stop_reason() const {
    if (sorted_.empty()) return StopReason::not_done;
    // Precision first: a point that converged exactly at the cap is converged.
    if (summary().converged) return StopReason::converged;
    if (sorted_.size() >= rule_.max_reps) return StopReason::max_reps;
    if (rule_.max_seconds > 0 && sum_ >= rule_.max_seconds) return StopReason::max_seconds;
    return StopReason::not_done;
}

Summary Sampler::summary() const {
    if (sorted_.empty()) throw std::logic_error("Sampler::summary() before any sample");
    Summary s = summarize_sorted(sorted_, rule_.precision, rule_.confidence);
    s.converged = s.converged && s.n >= rule_.min_reps;
    return s;
}

bool time_to_stop(const Sampler& sampler, double elapsed_seconds, double max_time) {
    if (sampler.done()) return true;
    return max_time > 0 && sampler.count() > 0 && elapsed_seconds >= max_time;
}

}  // namespace hiertune
