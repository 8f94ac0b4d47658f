// What to measure next, when to stop, and how to share the allocation
// (ACCLAiM sections IV-A to IV-D).
#include "hiertune/models/learn.hpp"

#include "hiertune/common/sizes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hiertune {

namespace {

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Ranges up to this many sizes are enumerated, so a nearly taken range still
// yields its last free size; larger ones are sampled (a taken size is rare).
constexpr std::uint64_t kEnumerateSizes = 4096;
constexpr int kSampleTries = 256;

}  // namespace

SizeRange non_p2_range(std::uint64_t p2) {
    if (!is_power_of_two(p2) || p2 > kMaxMessageBytes)
        throw std::invalid_argument("non-P2 range: " + std::to_string(p2) + " is not a power of two up to 1 GiB");
    // s is closest to p2 when s >= p2 - p2/4 (midpoint to p2/2) and
    // s <= p2 + p2/2 (midpoint to 2 p2): 6 and 12 for 8 as in IV-B.
    // In integers: p2 - floor(p2/4) = ceil(3 p2 / 4) and p2 + floor(p2/2) =
    // floor(3 p2 / 2), also for 1 ([1, 1]) and 2 ([2, 3]).
    return SizeRange{p2 - p2 / 4, std::min<std::uint64_t>(p2 + p2 / 2, kMaxMessageBytes)};
}

std::optional<std::uint64_t> non_p2_size(std::uint64_t p2, const std::set<std::uint64_t>& taken,
                                         std::mt19937_64& rng) {
    const SizeRange r = non_p2_range(p2);
    const std::uint64_t span = r.hi - r.lo + 1;  // includes p2 itself
    if (span <= kEnumerateSizes) {
        std::vector<std::uint64_t> free;
        for (std::uint64_t s = r.lo; s <= r.hi; ++s)
            if (s != p2 && taken.count(s) == 0) free.push_back(s);
        if (free.empty()) return std::nullopt;
        return free[std::uniform_int_distribution<std::size_t>(0, free.size() - 1)(rng)];
    }
    std::uniform_int_distribution<std::uint64_t> pick(r.lo, r.hi);
    for (int i = 0; i < kSampleTries; ++i) {
        const std::uint64_t s = pick(rng);
        if (s != p2 && taken.count(s) == 0) return s;
    }
    return std::nullopt;
}

std::vector<std::size_t> rank_by_variance(const std::vector<LearnPoint>& candidates,
                                          const std::vector<double>& variances,
                                          const std::set<LearnPoint>& measured) {
    if (candidates.size() != variances.size())
        throw std::invalid_argument("rank by variance: " + std::to_string(candidates.size()) + " candidates but " +
                                    std::to_string(variances.size()) + " variances");
    for (const double v : variances)
        if (!std::isfinite(v)) throw std::invalid_argument("rank by variance: variance not finite");
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (measured.count(candidates[i]) == 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return variances[a] > variances[b]; });
    return order;
}

std::vector<LearnPoint> select_points(const std::vector<LearnPoint>& candidates,
                                      const std::vector<double>& variances,
                                      const std::set<LearnPoint>& measured, std::size_t count,
                                      std::size_t already_selected, std::mt19937_64& rng,
                                      std::size_t non_p2_every) {
    if (non_p2_every == 0) throw std::invalid_argument("select points: non-P2 period must be > 0");
    const std::vector<std::size_t> order = rank_by_variance(candidates, variances, measured);
    std::vector<LearnPoint> chosen;
    std::set<LearnPoint> chosen_set;
    for (const std::size_t i : order) {
        if (chosen.size() == count) break;
        LearnPoint p = candidates[i];
        const std::size_t ordinal = already_selected + chosen.size() + 1;
        if (ordinal % non_p2_every == 0) {
            // The sizes already measured or chosen at this point's other
            // features: the substitute must be a new point too.  (It cannot
            // collide with a candidate: those are powers of two.)
            std::set<std::uint64_t> taken;
            const SizeRange r = non_p2_range(p.msg_bytes);
            const std::set<LearnPoint>* pools[] = {&measured, &chosen_set};
            for (const std::set<LearnPoint>* pool : pools)
                for (const LearnPoint& q : *pool)
                    if (q.nodes == p.nodes && q.ppn == p.ppn && q.configuration == p.configuration &&
                        q.msg_bytes >= r.lo && q.msg_bytes <= r.hi)
                        taken.insert(q.msg_bytes);
            if (const auto s = non_p2_size(p.msg_bytes, taken, rng)) p.msg_bytes = *s;
        }
        chosen_set.insert(p);
        chosen.push_back(std::move(p));
    }
    return chosen;
}

// ---------------------------------------------------------------------------

void check_rule(const ConvergenceRule& rule) {
    if (!(std::isfinite(rule.threshold) && rule.threshold >= 0))
        throw std::invalid_argument("convergence: threshold must be finite and >= 0");
    if (rule.iterations == 0) throw std::invalid_argument("convergence: iterations must be > 0");
    if (!(std::isfinite(rule.time_budget_s) && rule.time_budget_s >= 0))
        throw std::invalid_argument("convergence: time budget must be finite and >= 0");
}

bool variance_converged(const std::vector<double>& summed, const ConvergenceRule& rule) {
    check_rule(rule);
    for (const double s : summed)
        if (!(std::isfinite(s) && s >= 0))
            throw std::invalid_argument("convergence: summed variance must be finite and >= 0");
    if (summed.size() < rule.iterations + 1) return false;
    for (std::size_t i = summed.size() - rule.iterations; i < summed.size(); ++i) {
        const double change = std::fabs(summed[i] - summed[i - 1]);
        const double scale = rule.relative && summed[i - 1] > 0 ? summed[i - 1] : 1.0;
        if (!(change < rule.threshold * scale)) return false;
    }
    return true;
}

std::string to_string(LearnStop stop) {
    switch (stop) {
    case LearnStop::running: return "running";
    case LearnStop::converged: return "converged";
    case LearnStop::time_budget: return "time budget";
    }
    throw std::invalid_argument("unknown learn stop");
}

ConvergenceTracker::ConvergenceTracker(ConvergenceRule rule) : rule_(rule) { check_rule(rule_); }

LearnStop ConvergenceTracker::add(double summed_variance, double elapsed_s) {
    if (!(std::isfinite(summed_variance) && summed_variance >= 0))
        throw std::invalid_argument("convergence: summed variance must be finite and >= 0");
    if (!(std::isfinite(elapsed_s) && elapsed_s >= 0))
        throw std::invalid_argument("convergence: elapsed time must be finite and >= 0");
    history_.push_back(summed_variance);
    if (state_ != LearnStop::running) return state_;
    if (variance_converged(history_, rule_))
        state_ = LearnStop::converged;
    else if (rule_.time_budget_s > 0 && elapsed_s >= rule_.time_budget_s)
        state_ = LearnStop::time_budget;
    return state_;
}

// ---------------------------------------------------------------------------

namespace {

void check_schedule(const std::vector<int>& node_needs, std::size_t allocation_nodes, std::size_t rack_nodes) {
    if (allocation_nodes == 0) throw std::invalid_argument("schedule: allocation has no nodes");
    if (rack_nodes == 0) throw std::invalid_argument("schedule: rack size must be > 0");
    for (const int n : node_needs) {
        if (n <= 0) throw std::invalid_argument("schedule: a point needs at least one node");
        if (static_cast<std::size_t>(n) > allocation_nodes)
            throw std::invalid_argument("schedule: a point needs " + std::to_string(n) + " nodes, the allocation has " +
                                        std::to_string(allocation_nodes));
    }
}

// The first node a later run may use after one ending before `end`: the
// start of the next rack, so runs never share one.
std::size_t next_free(std::size_t end, std::size_t rack_nodes) {
    return (end + rack_nodes - 1) / rack_nodes * rack_nodes;
}

}  // namespace

ScheduleRound schedule_round(const std::vector<int>& node_needs, std::size_t allocation_nodes,
                             std::size_t rack_nodes) {
    check_schedule(node_needs, allocation_nodes, rack_nodes);
    ScheduleRound round;
    std::size_t free = 0;
    for (std::size_t i = 0; i < node_needs.size(); ++i) {
        const auto need = static_cast<std::size_t>(node_needs[i]);
        if (free + need > allocation_nodes) break;  // the paper's greedy stops here
        round.push_back(ScheduledRun{i, free, need});
        free = next_free(free + need, rack_nodes);
    }
    return round;
}

std::vector<int> node_needs(const std::vector<LearnPoint>& points) {
    std::vector<int> needs;
    needs.reserve(points.size());
    for (const LearnPoint& p : points) needs.push_back(p.nodes);
    return needs;
}

std::vector<ScheduleRound> schedule_rounds(const std::vector<int>& node_needs, std::size_t allocation_nodes,
                                           std::size_t rack_nodes) {
    check_schedule(node_needs, allocation_nodes, rack_nodes);
    std::vector<ScheduleRound> rounds;
    std::vector<std::size_t> free;  // per round
    for (std::size_t i = 0; i < node_needs.size(); ++i) {
        const auto need = static_cast<std::size_t>(node_needs[i]);
        std::size_t r = 0;
        while (r < rounds.size() && free[r] + need > allocation_nodes) ++r;
        if (r == rounds.size()) {
            rounds.emplace_back();
            free.push_back(0);
        }
        rounds[r].push_back(ScheduledRun{i, free[r], need});
        free[r] = next_free(free[r] + need, rack_nodes);
    }
    return rounds;
}

}  // namespace hiertune
