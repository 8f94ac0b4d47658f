#include "hiertune/models/analytic_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "hiertune/common/text.hpp"
#include "hiertune/models/analytic_model.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune::analytic {

namespace {

// The tree each seg_* algorithm builds (its entry point in bcast_intra_seg.c /
// reduce_intra_seg.c, and hier_submodules.c's seg_tree_of for the same names as
// inter-node submodules).
const std::map<std::string, MPII_Hier_tree_kind>& seg_trees() {
    static const std::map<std::string, MPII_Hier_tree_kind> trees{
        {"seg_linear", MPII_HIER_TREE_LINEAR},
        {"seg_chain", MPII_HIER_TREE_CHAIN},
        {"seg_pipeline", MPII_HIER_TREE_PIPELINE},
        {"seg_binary", MPII_HIER_TREE_BINARY},
        {"seg_split_binary", MPII_HIER_TREE_SPLIT_BINARY},
        {"seg_binomial", MPII_HIER_TREE_BINOMIAL},
        {"seg_in_order_binary", MPII_HIER_TREE_IN_ORDER_BINARY},
    };
    return trees;
}

const std::map<std::string, std::vector<std::string>>& mpich_algorithms() {
    static const std::map<std::string, std::vector<std::string>> algorithms{
        {to_string(grammar::Collective::bcast), {"binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather"}},
        {to_string(grammar::Collective::reduce), {"binomial", "reduce_scatter_gather"}},
    };
    return algorithms;
}

bool is_mpich(const Configuration& c) {
    const auto found = mpich_algorithms().find(c.collective);
    return found != mpich_algorithms().end() &&
           std::find(found->second.begin(), found->second.end(), c.algorithm) != found->second.end();
}

bool is_seg(const Configuration& c) {
    const grammar::Algorithm* algorithm = grammar::find(c.collective, c.algorithm);
    return algorithm && seg_trees().count(c.algorithm) && algorithm->param("segsize");
}

// The parameters a model reads, as their CVAR names.
std::vector<std::string> model_params(const Configuration& c) {
    if (!is_seg(c)) return {};
    std::vector<std::string> names{seg_param_cvar(c.collective, "segsize")};
    if (c.algorithm == "seg_chain") names.push_back(seg_param_cvar(c.collective, "fanout"));
    return names;
}

std::uint64_t param_value(const Configuration& c, const std::string& cvar) {
    const auto found = c.params.find(cvar);
    if (found == c.params.end()) throw std::invalid_argument(c.algorithm + ": the model needs " + cvar);
    return std::stoull(found->second);
}

}  // namespace

const Gamma& Gammas::at(std::uint64_t segsize) const {
    if (by_segment.empty()) throw std::invalid_argument("gamma: none measured");
    const auto exact = by_segment.find(segsize);
    if (exact != by_segment.end()) return exact->second;
    const auto distance = [&](std::uint64_t measured) {
        return std::fabs(std::log(static_cast<double>(std::max<std::uint64_t>(measured, 1))) -
                         std::log(static_cast<double>(std::max<std::uint64_t>(segsize, 1))));
    };
    const auto nearest = std::min_element(by_segment.begin(), by_segment.end(), [&](const auto& a, const auto& b) {
        return distance(a.first) < distance(b.first);
    });
    return nearest->second;
}

std::string seg_param_cvar(const std::string& collective, const std::string& param) {
    const grammar::Algorithm* chain = grammar::find(collective, "seg_chain");
    const grammar::Param* found = chain ? chain->param(param) : nullptr;
    if (!found) throw std::invalid_argument(collective + " has no seg_* parameter " + param);
    return chain->cvar(*found);
}

std::vector<std::string> modelled_collectives() {
    std::vector<std::string> names;
    for (const auto& [collective, algorithms] : mpich_algorithms()) names.push_back(collective);
    return names;
}

std::string modelled_collectives_text() { return spoken(modelled_collectives(), "and"); }

std::vector<std::string> modelled_algorithms(const std::string& collective) {
    std::vector<std::string> items;
    const auto mpich = mpich_algorithms().find(collective);
    if (mpich == mpich_algorithms().end()) return items;
    items = mpich->second;
    for (const grammar::Algorithm& algorithm : grammar::plugin_algorithms())
        if (algorithm.collective == collective && seg_trees().count(algorithm.item)) items.push_back(algorithm.item);
    return items;
}

bool has_model(const Configuration& c) {
    if (!is_mpich(c) && !is_seg(c)) return false;
    const std::vector<std::string> needed = model_params(c);
    for (const std::string& cvar : needed)
        if (!c.params.count(cvar)) return false;
    for (const auto& [cvar, value] : c.params)
        if (std::find(needed.begin(), needed.end(), cvar) == needed.end()) return false;
    return true;
}

Cost algorithm_cost(const Configuration& c, int size, std::uint64_t msg_bytes, const ModelInputs& inputs,
                    const Line& reference) {
    if (!has_model(c))
        throw std::invalid_argument("no analytic model of " + c.collective + " " + c.algorithm + " with these parameters");
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    if (size == 1 || msg_bytes == 0) return Cost{};
    const bool bcast = c.collective == grammar::Collective::bcast;
    if (is_mpich(c)) {
        if (bcast && c.algorithm == "binomial") return mpich_binomial_bcast_cost(size, msg_bytes);
        if (bcast && c.algorithm == "scatter_ring_allgather")
            return mpich_scatter_ring_bcast_cost(size, msg_bytes, reference);
        if (bcast) return mpich_scatter_rd_bcast_cost(size, msg_bytes, reference);
        if (c.algorithm == "binomial") return mpich_binomial_reduce_cost(size, msg_bytes);
        return mpich_reduce_scatter_gather_cost(size, msg_bytes, inputs.elem_bytes);
    }
    const MPII_Hier_tree_kind kind = seg_trees().at(c.algorithm);
    const std::uint64_t segsize = param_value(c, seg_param_cvar(c.collective, "segsize"));
    const int fanout =
        c.algorithm == "seg_chain" ? static_cast<int>(param_value(c, seg_param_cvar(c.collective, "fanout"))) : 1;
    const Gamma& gamma = inputs.gammas.at(segsize);
    if (bcast && tree_bcast_largest_transfer(kind, msg_bytes, segsize) <= inputs.eager_bytes)
        return tree_bcast_link_cost(kind, size, fanout, msg_bytes, segsize, reference);
    if (bcast) return tree_bcast_cost(kind, size, fanout, msg_bytes, segsize, gamma);
    return tree_reduce_cost(kind, size, fanout, msg_bytes, segsize, inputs.elem_bytes, gamma);
}

Cost experiment_cost(const Configuration& c, int size, std::uint64_t msg_bytes, std::uint64_t gather_bytes,
                     const ModelInputs& inputs, const Line& reference) {
    Cost cost = algorithm_cost(c, size, msg_bytes, inputs, reference);
    if (gather_bytes > 0) cost += transfers(size - 1, static_cast<double>(gather_bytes));
    return cost;
}

Line fit_experiments(const Configuration& c, const std::vector<Measured>& experiments, const ModelInputs& inputs,
                     const Line& first) {
    Line line = first;
    for (int round = 0; round < 8; ++round) {
        std::vector<Equation> system;
        for (const Measured& m : experiments) {
            const Cost cost = experiment_cost(c, m.procs, m.msg_bytes, m.gather_bytes, inputs, line);
            system.push_back(Equation{cost.a, cost.b, m.seconds});
        }
        const Line fitted = fit_alpha_beta_relative(system);
        const bool settled = fitted.alpha == line.alpha && fitted.beta == line.beta;
        line = fitted;
        if (settled) break;
    }
    return line;
}

std::vector<AlgorithmSpec> fit_algorithm_specs(const std::string& collective, const std::vector<std::string>& algorithms,
                                               std::uint64_t segsize, int chain_fanout) {
    const std::vector<std::string> modelled = modelled_algorithms(collective);
    std::vector<AlgorithmSpec> specs;
    for (const std::string& item : algorithms.empty() ? modelled : algorithms) {
        if (std::find(modelled.begin(), modelled.end(), item) == modelled.end())
            throw std::invalid_argument("no analytic model of " + collective + " " + item);
        AlgorithmSpec spec{item, {}};
        if (is_seg(Configuration{collective, item, {}})) {
            spec.params.push_back({seg_param_cvar(collective, "segsize"), {std::to_string(segsize)}});
            if (item == "seg_chain")
                spec.params.push_back({seg_param_cvar(collective, "fanout"), {std::to_string(chain_fanout)}});
        }
        specs.push_back(std::move(spec));
    }
    return specs;
}

std::uint64_t experiment_gather_bytes(std::uint64_t base, std::size_t index) { return base * (index + 1); }

std::vector<std::uint64_t> log_spaced_sizes(std::uint64_t lo, std::uint64_t hi, std::size_t count) {
    if (lo == 0 || hi < lo || count == 0) throw std::invalid_argument("log-spaced sizes: need 0 < lo <= hi and a count");
    if (count == 1) return {lo};
    std::vector<std::uint64_t> sizes;
    const double step = std::log(static_cast<double>(hi) / static_cast<double>(lo)) / static_cast<double>(count - 1);
    for (std::size_t i = 0; i < count; ++i) {
        const auto bytes = i + 1 == count ? hi : static_cast<std::uint64_t>(std::llround(lo * std::exp(step * i)));
        if (sizes.empty() || bytes > sizes.back()) sizes.push_back(bytes);
    }
    return sizes;
}

std::uint64_t eager_limit(const std::vector<StoredEagerPoint>& points) {
    std::vector<StoredEagerPoint> sorted(points);
    std::sort(sorted.begin(), sorted.end(),
              [](const StoredEagerPoint& x, const StoredEagerPoint& y) { return x.msg_bytes < y.msg_bytes; });
    std::uint64_t limit = 0;
    for (const StoredEagerPoint& p : sorted) {
        if (!(p.summary.median < kEagerRatio)) break;
        limit = p.msg_bytes;
    }
    return limit;
}

ModelInputs inputs_of(const std::vector<StoredFitPoint>& points, const std::vector<StoredEagerPoint>& eager,
                      std::vector<std::string>* notes) {
    std::map<std::uint64_t, std::map<int, double>> fanout_seconds;  // by segment, by procs
    for (const StoredFitPoint& p : points)
        if (p.key.kind == kFitGamma) fanout_seconds[p.key.msg_bytes][p.key.procs] = p.summary.median;
    ModelInputs inputs;
    inputs.eager_bytes = eager_limit(eager);
    for (const auto& [segment, seconds] : fanout_seconds) {
        try {
            inputs.gammas.by_segment.emplace(segment, Gamma(seconds));
        } catch (const std::invalid_argument& e) {
            if (notes) notes->push_back("gamma at " + std::to_string(segment) + " B: " + e.what());
        }
    }
    return inputs;
}

FitResult fit_points(const std::vector<StoredFitPoint>& points, const std::vector<StoredEagerPoint>& eager,
                     const Line& first) {
    FitResult result;
    result.inputs = inputs_of(points, eager, &result.notes);
    std::map<std::tuple<std::string, std::string, Params>, std::vector<Measured>> experiments;
    for (const StoredFitPoint& p : points)
        if (p.key.kind == kFitExperiment)
            experiments[{p.key.collective, p.key.algorithm, p.key.params}].push_back(
                Measured{p.key.procs, p.key.msg_bytes, p.key.gather_bytes, p.summary.median});
    for (const auto& [key, measured] : experiments) {
        const auto& [collective, algorithm, params] = key;
        const Configuration configuration{collective, algorithm, params};
        try {
            const Line line = fit_experiments(configuration, measured, result.inputs, first);
            int procs = 0;
            for (const Measured& m : measured) procs = std::max(procs, m.procs);
            result.models.push_back(
                FittedModel{collective, algorithm, params, procs, line.alpha, line.beta, measured.size()});
        } catch (const std::invalid_argument& e) {
            result.notes.push_back(collective + " " + algorithm + ": not fitted: " + e.what());
        }
    }
    return result;
}

Configuration configuration_of(const FittedModel& model) {
    return Configuration{model.collective, model.algorithm, model.params};
}

std::vector<Candidate> candidates_of(const std::vector<FittedModel>& models, const std::string& collective,
                                     const std::vector<std::uint64_t>& segsizes, const std::vector<int>& chain_fanouts) {
    std::vector<Candidate> candidates;
    for (const FittedModel& model : models) {
        if (model.collective != collective) continue;
        const Line line{model.alpha, model.beta};
        Configuration c{collective, model.algorithm, {}};
        if (!is_seg(c)) {
            candidates.push_back({c, line});
            continue;
        }
        const std::vector<int> fanouts = model.algorithm == "seg_chain" ? chain_fanouts : std::vector<int>{0};
        for (std::uint64_t segsize : segsizes)
            for (int fanout : fanouts) {
                c.params = {{seg_param_cvar(collective, "segsize"), std::to_string(segsize)}};
                if (fanout > 0) c.params[seg_param_cvar(collective, "fanout")] = std::to_string(fanout);
                candidates.push_back({c, line});
            }
    }
    return candidates;
}

double predict(const Candidate& candidate, int size, std::uint64_t msg_bytes, const ModelInputs& inputs) {
    return algorithm_cost(candidate.configuration, size, msg_bytes, inputs, candidate.alpha_beta)
        .seconds(candidate.alpha_beta);
}

std::optional<double> predict_if_modelled(const Candidate& candidate, int size, std::uint64_t msg_bytes,
                                          const ModelInputs& inputs) {
    try {
        return predict(candidate, size, msg_bytes, inputs);
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
}

std::uint64_t smallest_fitted_size(const std::vector<StoredFitPoint>& points) {
    std::uint64_t smallest_fitted = 0;
    for (const StoredFitPoint& p : points)
        if (p.key.kind == kFitExperiment && (smallest_fitted == 0 || p.key.msg_bytes < smallest_fitted))
            smallest_fitted = p.key.msg_bytes;
    return smallest_fitted;
}

std::optional<Pick> best_candidate(const std::vector<Candidate>& candidates, int size, std::uint64_t msg_bytes,
                                   const ModelInputs& inputs) {
    std::optional<Pick> best;
    for (const Candidate& candidate : candidates) {
        const std::optional<double> seconds = predict_if_modelled(candidate, size, msg_bytes, inputs);
        if (seconds && (!best || *seconds < best->seconds)) best = Pick{&candidate, *seconds};
    }
    return best;
}

}  // namespace hiertune::analytic
