#include "hiertune/models/analytic_han.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune::analytic {

namespace {

// A task's cost at one leader (its values are per leader or one for all), or,
// with leader = kAll, the max over leaders.
constexpr std::size_t kAll = static_cast<std::size_t>(-1);
double at_leader(const std::vector<double>& values, std::size_t leader) {
    if (leader == kAll) return *std::max_element(values.begin(), values.end());
    return values[values.size() == 1 ? 0 : leader];
}

// The seg_* inter-node submodules of the collective, from the grammar.
std::vector<std::string> seg_inter_algos(han::Collective collective) {
    const grammar::Algorithm* hier = grammar::find(han::to_string(collective), "hier");
    std::vector<std::string> algos;
    if (!hier) return algos;
    for (const std::string& value : grammar::values(*hier, "inter_algo"))
        if (value.rfind("seg_", 0) == 0) algos.push_back(value);
    return algos;
}

const FittedModel* model_of(const std::vector<FittedModel>& models, const std::string& collective,
                            const std::string& algorithm) {
    for (const FittedModel& m : models)
        if (m.collective == collective && m.algorithm == algorithm) return &m;
    return nullptr;
}

}  // namespace

std::vector<std::string> task_stages(const std::string& task) {
    static const std::set<std::string> known{"sb", "ib", "ia", "ir", "sr"};
    if (task.empty() || task.size() % 2) throw std::invalid_argument("task '" + task + "': not a sequence of stages");
    std::vector<std::string> stages;
    for (std::size_t i = 0; i < task.size(); i += 2) {
        const std::string stage = task.substr(i, 2);
        if (!known.count(stage)) throw std::invalid_argument("task '" + task + "': unknown stage " + stage);
        stages.push_back(stage);
    }
    return stages;
}

bool is_seg_inter(const Params& config) {
    const auto inter = config.find("inter_algo");
    return inter != config.end() && inter->second.rfind("seg_", 0) == 0;
}

std::vector<Params> seg_inter_targets(han::Collective collective, const std::vector<han::Candidate>& measured,
                                      const std::vector<std::uint64_t>& chunks, const std::vector<int>& chain_fanouts) {
    std::set<std::string> intras;
    for (const han::Candidate& c : measured) {
        const auto intra = c.config.find("intra_algo");
        intras.insert(intra == c.config.end() ? std::string() : intra->second);
    }
    std::vector<Params> targets;
    for (const std::string& algo : seg_inter_algos(collective))
        for (const std::string& intra : intras)
            for (std::uint64_t chunk : chunks)
                for (int fanout : algo == "seg_chain" ? chain_fanouts : std::vector<int>{0}) {
                    Params target{{"inter_algo", algo}, {"inter_chunk", std::to_string(chunk)}};
                    if (!intra.empty()) target["intra_algo"] = intra;
                    if (fanout > 0) target["inter_k"] = std::to_string(fanout);
                    targets.push_back(std::move(target));
                }
    return targets;
}

std::vector<han::Candidate> seg_inter_candidates(han::Collective collective, const std::vector<han::Candidate>& measured,
                                                 const std::vector<FittedModel>& models, const ModelInputs& inputs,
                                                 int nodes, const std::vector<Params>& targets) {
    if (nodes < 2) throw std::invalid_argument("seg_* inter-node candidates need 2 nodes");
    // the inter-node stages the collective's pipeline runs (allgather's ring has neither: no seg_* form)
    const bool bcasts = han::has_stage(collective, "ib");
    const bool reduces = han::has_stage(collective, "ir");
    std::vector<std::string> single;
    if (reduces) single.insert(single.end(), {"sr", "ir"});
    if (bcasts) single.insert(single.end(), {"ib", "sb"});
    const auto value_of = [](const Params& config, const std::string& key, const std::string& fallback) {
        const auto found = config.find(key);
        return found == config.end() ? fallback : found->second;
    };
    // the base of each (segment size, intra_algo)
    std::map<std::pair<std::uint64_t, std::string>, const han::Candidate*> bases;
    for (const han::Candidate& c : measured) {
        if (is_seg_inter(c.config) || value_of(c.config, "inter_algo", "") == han::kOneStepInterAlgo) continue;
        if (!std::all_of(single.begin(), single.end(), [&](const std::string& s) { return c.costs.count(s) > 0; }))
            continue;
        bases.emplace(std::make_pair(c.segsize, value_of(c.config, "intra_algo", "")), &c);
    }
    std::vector<han::Candidate> derived;
    for (const Params& target : targets) {
        if (!is_seg_inter(target)) continue;
        const std::string algo = target.at("inter_algo");
        const FittedModel* bcast = bcasts ? model_of(models, to_string(grammar::Collective::bcast), algo) : nullptr;
        const FittedModel* reduce = reduces ? model_of(models, to_string(grammar::Collective::reduce), algo) : nullptr;
        if ((bcasts && !bcast) || (reduces && !reduce)) continue;
        const std::uint64_t chunk = std::stoull(value_of(target, "inter_chunk", "0"));
        const std::string fanout = algo == "seg_chain" ? value_of(target, "inter_k", "2") : "";
        const auto inter_seconds = [&](const FittedModel& model, std::uint64_t segment) {
            Configuration c{model.collective, algo, {{seg_param_cvar(model.collective, "segsize"), std::to_string(chunk)}}};
            if (!fanout.empty()) c.params[seg_param_cvar(model.collective, "fanout")] = fanout;
            return predict_if_modelled(Candidate{c, Line{model.alpha, model.beta}}, nodes, segment, inputs);
        };
        for (const auto& [key, base] : bases) {
            if (key.second != value_of(target, "intra_algo", "") || chunk >= base->segsize) continue;
            const std::optional<double> ib = bcast ? inter_seconds(*bcast, base->segsize) : std::nullopt;
            const std::optional<double> ir = reduce ? inter_seconds(*reduce, base->segsize) : std::nullopt;
            if ((bcast && !ib) || (reduce && !ir)) continue;
            std::size_t leaders = 1;
            for (const auto& [task, values] : base->costs) leaders = std::max(leaders, values.size());
            han::Candidate candidate{target, base->segsize, {}};
            for (const auto& [task, values] : base->costs) {
                std::vector<double>& out = candidate.costs[task];
                // per leader; a task stored as the max over leaders scales by its
                // stages' max over leaders
                std::vector<std::size_t> positions{kAll};
                if (values.size() > 1) {
                    positions.clear();
                    for (std::size_t leader = 0; leader < leaders; ++leader) positions.push_back(leader);
                }
                for (std::size_t leader : positions) {
                    double before = 0, after = 0;
                    for (const std::string& stage : task_stages(task)) {
                        const double measured_stage = at_leader(base->costs.at(stage), leader);
                        before = std::max(before, measured_stage);
                        after = std::max(after, stage == "ib" ? *ib : stage == "ir" ? *ir : measured_stage);
                    }
                    out.push_back(before > 0 ? at_leader(values, leader) * after / before : after);
                }
            }
            derived.push_back(std::move(candidate));
        }
    }
    return derived;
}

}  // namespace hiertune::analytic
