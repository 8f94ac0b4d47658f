#include "hiertune/models/han_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "hiertune/common/text.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune::han {

namespace {

// A pipeline stage and how many steps after the segment's first stage it runs.
struct Stage {
    const char* name;
    std::uint64_t lag;
};

// In task-name order (sb, ib, ia, ir, sr), as the paper names its tasks.
const std::vector<Stage>& stages(Decomposition form) {
    static const std::vector<Stage> bcast{{"sb", 1}, {"ib", 0}};
    static const std::vector<Stage> reduce{{"ir", 1}, {"sr", 0}};
    static const std::vector<Stage> allreduce{{"sb", 3}, {"ib", 2}, {"ir", 1}, {"sr", 0}};
    static const std::vector<Stage> allreduce_ia{{"sb", 2}, {"ia", 1}, {"sr", 0}};
    switch (form) {
        case Decomposition::bcast: return bcast;
        case Decomposition::reduce: return reduce;
        case Decomposition::allreduce: return allreduce;
        case Decomposition::allreduce_ia: return allreduce_ia;
        case Decomposition::allgather_ring:
            throw std::invalid_argument("the allgather ring's steps depend on the node count: allgather_sequence");
    }
    throw std::invalid_argument("unknown decomposition");
}

std::uint64_t depth(Decomposition form) {  // largest lag
    std::uint64_t d = 0;
    for (const Stage& stage : stages(form)) d = std::max(d, stage.lag);
    return d;
}

}  // namespace

std::string why_not(Collective collective, const Params& config) {
    const std::string name = to_string(collective);
    const auto inter = config.find("inter_algo");
    if (collective != Collective::allreduce && inter != config.end() && inter->second == kOneStepInterAlgo)
        return std::string(kOneStepInterAlgo) + " is allreduce only";
    const grammar::Algorithm* hier = grammar::find(name, "hier");
    if (!hier) return "the plugin has no " + name + " hier algorithm";
    for (const auto& [param, value] : config) {
        if (!hier->param(param)) return name + "'s hier algorithm has no " + param;
        if (!grammar::valid(*hier, param, value)) return param + "=" + value + " is not a " + name + " value";
    }
    if (collective == Collective::allgather && inter != config.end() && inter->second != kRingInterAlgo)
        return "inter_algo=" + inter->second + " is not pipelined: the model covers " + kRingInterAlgo;
    return "";
}

bool applies(Collective collective, const Params& config) { return why_not(collective, config).empty(); }

bool has_stage(Decomposition form, const std::string& stage) {
    if (form == Decomposition::allgather_ring) return false;
    const std::vector<Stage>& all = stages(form);
    return std::any_of(all.begin(), all.end(), [&](const Stage& s) { return s.name == stage; });
}

bool has_stage(Collective collective, const std::string& stage) {
    return has_stage(decomposition(collective, Params{}), stage);
}

Decomposition decomposition(Collective collective, const Params& config) {
    const std::string reason = why_not(collective, config);
    if (!reason.empty()) throw std::invalid_argument(to_string(collective) + " has no such pipeline: " + reason);
    if (collective == Collective::bcast) return Decomposition::bcast;
    if (collective == Collective::reduce) return Decomposition::reduce;
    if (collective == Collective::allgather) return Decomposition::allgather_ring;
    const auto inter = config.find("inter_algo");
    return inter != config.end() && inter->second == kOneStepInterAlgo ? Decomposition::allreduce_ia
                                                                       : Decomposition::allreduce;
}

std::string step_task(Decomposition form, std::uint64_t step, std::uint64_t segments) {
    std::string name;
    for (const Stage& stage : stages(form))
        if (step >= stage.lag && step - stage.lag < segments) name += stage.name;
    return name;
}

std::uint64_t step_count(Decomposition form, std::uint64_t segments) { return segments + depth(form); }

std::string steady_task(Decomposition form) {
    std::string name;
    for (const Stage& stage : stages(form)) name += stage.name;
    return name;
}

std::string to_string(Collective collective) {
    switch (collective) {
        case Collective::bcast: return to_string(grammar::Collective::bcast);
        case Collective::reduce: return to_string(grammar::Collective::reduce);
        case Collective::allreduce: return to_string(grammar::Collective::allreduce);
        case Collective::allgather: return to_string(grammar::Collective::allgather);
    }
    throw std::invalid_argument("unknown collective");
}

namespace {

constexpr Collective kCollectives[] = {Collective::bcast, Collective::reduce, Collective::allreduce,
                                       Collective::allgather};

}  // namespace

const std::vector<std::string>& collective_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all;
        for (Collective collective : kCollectives) all.push_back(to_string(collective));
        return all;
    }();
    return names;
}

Collective parse_collective(const std::string& name) {
    for (Collective collective : kCollectives)
        if (to_string(collective) == name) return collective;
    throw std::invalid_argument("the task model knows " + spoken(collective_names(), "and") + ", not '" + name + "'");
}

std::uint64_t pipelined_bytes(Collective collective, std::uint64_t msg_bytes, int ppn) {
    return grammar::segmented_bytes(*grammar::find(to_string(collective), "hier"), msg_bytes, ppn).value_or(msg_bytes);
}

std::uint64_t segment_count(std::uint64_t msg_bytes, std::uint64_t segsize) {
    if (segsize == 0) throw std::invalid_argument("segment size 0: the task model needs fs > 0");
    return std::max<std::uint64_t>(1, msg_bytes / segsize + (msg_bytes % segsize != 0));
}

std::vector<std::pair<Step, std::uint64_t>> task_sequence(Decomposition form, std::uint64_t segments) {
    if (segments == 0) throw std::invalid_argument("a collective has at least one segment");
    const std::uint64_t d = depth(form);
    std::vector<std::pair<Step, std::uint64_t>> sequence;
    for (std::uint64_t s = 0; s < segments + d; ++s) {
        if (s == d && segments > d) {  // steps d .. u-1 have every stage: the steady state
            sequence.push_back({Step{step_task(form, s, segments), true}, segments - d});
            s = segments - 1;
            continue;
        }
        sequence.push_back({Step{step_task(form, s, segments), false}, 1});
    }
    return sequence;
}

std::vector<std::pair<Step, std::uint64_t>> allgather_sequence(std::uint64_t pieces_per_block, int nodes) {
    if (pieces_per_block == 0) throw std::invalid_argument("a node block has at least one piece");
    if (nodes < 2) throw std::invalid_argument("the allgather ring needs at least 2 nodes");
    const std::uint64_t ring_steps = static_cast<std::uint64_t>(nodes - 1) * pieces_per_block;
    return {{Step{kGatherTask, false}, 1}, {Step{"sbia", true}, ring_steps}, {Step{"sb", false}, pieces_per_block}};
}

std::vector<std::string> task_names(Decomposition form) {
    switch (form) {
        case Decomposition::bcast: return {"ib", "sbib", "sb"};
        case Decomposition::reduce: return {"sr", "irsr", "ir"};
        case Decomposition::allreduce:
            return {"sr", "ir", "irsr", "ib", "ibir", "ibirsr", "sbibirsr", "sbibir", "sbib", "sb"};
        case Decomposition::allreduce_ia: return {"sr", "ia", "iasr", "sbiasr", "sbia", "sb"};
        case Decomposition::allgather_ring: return {kGatherTask, "sbia", "sb"};
    }
    throw std::invalid_argument("unknown decomposition");
}

std::vector<std::string> required_tasks(Decomposition form, std::uint64_t segments) {
    if (form == Decomposition::allgather_ring) {  // every u >= 1 on N >= 2 nodes runs all three
        if (segments == 0) throw std::invalid_argument("a collective has at least one segment");
        return task_names(form);
    }
    std::vector<std::string> names;
    for (const auto& [step, count] : task_sequence(form, segments))
        if (std::find(names.begin(), names.end(), step.task) == names.end()) names.push_back(step.task);
    return names;
}

namespace {

// The max over leaders of the sum of a leader's step costs, or nullopt when a
// task is missing (named in *missing).
std::optional<double> leaders_worst_sum(const std::vector<std::pair<Step, std::uint64_t>>& sequence,
                                        const TaskCosts& costs, std::vector<std::string>* missing) {
    std::size_t leaders = 1;
    std::vector<std::string> absent;
    for (const auto& [step, count] : sequence) {
        const auto found = costs.find(step.task);
        if (found == costs.end() || found->second.empty()) {
            if (std::find(absent.begin(), absent.end(), step.task) == absent.end()) absent.push_back(step.task);
            continue;
        }
        for (double value : found->second)
            if (!std::isfinite(value) || value < 0)
                throw std::invalid_argument("task " + step.task + ": cost must be finite and >= 0");
        const std::size_t n = found->second.size();
        if (n == 1) continue;
        if (leaders != 1 && leaders != n)
            throw std::invalid_argument("task " + step.task + " has " + std::to_string(n) +
                                        " leaders, another task " + std::to_string(leaders));
        leaders = n;
    }
    if (missing) *missing = absent;
    if (!absent.empty()) return std::nullopt;

    double worst = 0;
    for (std::size_t leader = 0; leader < leaders; ++leader) {
        double total = 0;
        for (const auto& [step, count] : sequence) {
            const std::vector<double>& values = costs.at(step.task);
            total += static_cast<double>(count) * values[values.size() == 1 ? 0 : leader];
        }
        worst = std::max(worst, total);
    }
    return worst;
}

}  // namespace

std::optional<double> predict(Decomposition form, const TaskCosts& costs, std::uint64_t segsize,
                              std::uint64_t msg_bytes, std::vector<std::string>* missing) {
    if (form == Decomposition::allgather_ring)
        throw std::invalid_argument("the allgather ring needs the layout: predict_allgather");
    return leaders_worst_sum(task_sequence(form, segment_count(msg_bytes, segsize)), costs, missing);
}

std::optional<double> predict_allgather(const TaskCosts& costs, std::uint64_t segsize, std::uint64_t msg_bytes,
                                        int nodes, int ppn, std::vector<std::string>* missing) {
    const std::uint64_t block = pipelined_bytes(Collective::allgather, msg_bytes, ppn);
    return leaders_worst_sum(allgather_sequence(segment_count(block, segsize), nodes), costs, missing);
}

TaskCosts segment_costs(const Candidate& candidate, std::uint64_t piece) {
    if (piece >= candidate.segsize) return candidate.costs;
    const auto exact = candidate.shorter_segments.find(piece);
    if (exact != candidate.shorter_segments.end()) return exact->second;
    const auto above = candidate.shorter_segments.upper_bound(piece);
    const std::uint64_t hi_bytes = above == candidate.shorter_segments.end() ? candidate.segsize : above->first;
    const TaskCosts& hi = above == candidate.shorter_segments.end() ? candidate.costs : above->second;
    if (above == candidate.shorter_segments.begin()) return hi;  // below every measured size
    const auto& [lo_bytes, lo] = *std::prev(above);
    const double weight = static_cast<double>(piece - lo_bytes) / static_cast<double>(hi_bytes - lo_bytes);
    TaskCosts costs = hi;
    for (auto& [task, values] : costs) {
        const auto low = lo.find(task);
        if (low == lo.end() || low->second.empty()) continue;
        if (low->second.size() != values.size() && low->second.size() != 1 && values.size() != 1)
            throw std::invalid_argument("task " + task + ": " + std::to_string(low->second.size()) + " leaders at " +
                                        std::to_string(lo_bytes) + " B, " + std::to_string(values.size()) + " at " +
                                        std::to_string(hi_bytes) + " B");
        std::vector<double> mixed(std::max(values.size(), low->second.size()));
        for (std::size_t leader = 0; leader < mixed.size(); ++leader) {
            const double a = low->second[low->second.size() == 1 ? 0 : leader];
            const double b = values[values.size() == 1 ? 0 : leader];
            mixed[leader] = a + (b - a) * weight;
        }
        values = std::move(mixed);
    }
    return costs;
}

std::optional<double> predict_candidate(Collective collective, const Candidate& candidate, int nodes,
                                        std::uint64_t msg_bytes, int ppn) {
    if (collective == Collective::allgather) {
        if (ppn < 1) throw std::invalid_argument("the allgather ring needs the ranks per node (ppn >= 1)");
        const auto gather = candidate.gather_costs.find(msg_bytes);
        if (gather == candidate.gather_costs.end()) return std::nullopt;  // sg not measured at this size
        const std::uint64_t block = static_cast<std::uint64_t>(ppn) * msg_bytes;
        TaskCosts costs = segment_costs(candidate, std::min(block, candidate.segsize));
        costs[kGatherTask] = gather->second;
        return predict_allgather(costs, candidate.segsize, msg_bytes, nodes, ppn);
    }
    const std::uint64_t piece = std::max<std::uint64_t>(1, std::min(msg_bytes, candidate.segsize));
    return predict(decomposition(collective, candidate.config), segment_costs(candidate, piece), candidate.segsize,
                   msg_bytes);
}

bool pruned(const Candidate& candidate, int nodes, std::uint64_t msg_bytes, const PruneOptions& prune) {
    if (!prune.enabled) return false;
    const auto value_of = [&](const std::string& key) -> std::string {
        const auto found = candidate.config.find(key);
        return found == candidate.config.end() ? std::string() : found->second;
    };
    const std::string inter = value_of("inter_algo");
    if (std::find(prune.chain_algos.begin(), prune.chain_algos.end(), inter) != prune.chain_algos.end()) {
        const double u = static_cast<double>(segment_count(msg_bytes, candidate.segsize));
        if (u < prune.chain_min_segments_per_node * nodes) return true;
    }
    for (const PruneOptions::MinSegsize& rule : prune.min_segsize)
        if (value_of(rule.param) == rule.value && candidate.segsize < rule.min_segsize) return true;
    return false;
}

std::optional<double> Predictions::of(const Candidate& candidate) const {
    const std::less<const Candidate*> before;  // a total order, also for addresses outside the vector
    if (!candidates || candidates->empty() || before(&candidate, candidates->data()) ||
        !before(&candidate, candidates->data() + candidates->size()))
        return std::nullopt;
    return time.at(static_cast<std::size_t>(&candidate - candidates->data()));
}

Predictions predict_all(Collective collective, const std::vector<Candidate>& candidates, int nodes,
                        std::uint64_t msg_bytes, int ppn) {
    Predictions predictions{collective, &candidates, nodes, msg_bytes, ppn, {}};
    predictions.time.reserve(candidates.size());
    for (const Candidate& c : candidates)
        predictions.time.push_back(applies(collective, c.config)
                                       ? predict_candidate(collective, c, nodes, msg_bytes, ppn)
                                       : std::nullopt);
    return predictions;
}

std::optional<Prediction> best_candidate(const Predictions& predictions, const ModelOptions& options) {
    const std::vector<Candidate>& candidates = *predictions.candidates;
    // what one segment carries at most
    const std::uint64_t pipelined = pipelined_bytes(predictions.collective, predictions.msg_bytes, predictions.ppn);
    // Per configuration, the smallest segment size that covers the message.
    std::map<std::string, std::uint64_t> smallest_cover;
    if (options.collapse_oversize_segments)
        for (const Candidate& c : candidates)
            if (c.segsize >= pipelined && c.segsize > 0) {
                const std::string key = canonical_params(c.config);
                const auto found = smallest_cover.find(key);
                if (found == smallest_cover.end() || c.segsize < found->second) smallest_cover[key] = c.segsize;
            }

    std::optional<Prediction> best;
    std::string best_key;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        const std::string key = canonical_params(c.config);
        if (options.collapse_oversize_segments && c.segsize > pipelined) {
            const auto found = smallest_cover.find(key);
            if (found != smallest_cover.end() && c.segsize != found->second) continue;
        }
        const std::optional<double>& time = predictions.time[i];
        if (!time || pruned(c, predictions.nodes, pipelined, options.prune)) continue;
        const bool better = !best || std::tie(*time, c.segsize, key) <
                                         std::tie(best->time, best->candidate->segsize, best_key);
        if (better) {
            best = Prediction{&c, *time};
            best_key = key;
        }
    }
    return best;
}

std::optional<Prediction> best_candidate(Collective collective, const std::vector<Candidate>& candidates,
                                         int nodes, std::uint64_t msg_bytes, const ModelOptions& options, int ppn) {
    return best_candidate(predict_all(collective, candidates, nodes, msg_bytes, ppn), options);
}

}  // namespace hiertune::han
