// Job shapes larger than the allocation, predicted by the analytic models.
#include "hiertune/tune/predicted_shape.hpp"

#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "hiertune/common/text.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune {

namespace {

bool is_plugin(const analytic::Candidate& candidate) {
    return grammar::find(candidate.configuration.collective, candidate.configuration.algorithm) != nullptr;
}

// The fastest predicted candidate of the plugin's (plugin) or of MPICH's algorithms.
struct Fastest {
    std::optional<double> seconds;
    const analytic::Candidate* candidate = nullptr;
};
Fastest fastest(const std::vector<analytic::Candidate>& candidates, bool plugin, int procs, std::uint64_t bytes,
                const analytic::ModelInputs& inputs) {
    Fastest best;
    for (const analytic::Candidate& candidate : candidates) {
        if (is_plugin(candidate) != plugin) continue;
        const std::optional<double> seconds = analytic::predict_if_modelled(candidate, procs, bytes, inputs);
        if (seconds && (!best.seconds || *seconds < *best.seconds)) best = {seconds, &candidate};
    }
    return best;
}

PointKey point_of(const analytic::Candidate& candidate, std::uint64_t bytes) {
    const Configuration& c = candidate.configuration;
    return PointKey{c.collective, bytes, c.algorithm, c.params};
}

// One size: the two fastest, and the pick where the plugin's wins by the margin.
PredictedCase predict_case(const std::string& collective, std::uint64_t bytes, const JobShape& shape,
                           const std::vector<analytic::Candidate>& candidates, const PredictionBasis& basis,
                           csel::Choice& choice) {
    PredictedCase c{collective, bytes, std::nullopt, "", std::nullopt, "", false};
    choice = csel::Choice::stock_tree();
    if (bytes < basis.smallest_fitted) return c;
    const Fastest plugin = fastest(candidates, true, shape.nodes, bytes, basis.inputs);
    const Fastest mpich = fastest(candidates, false, shape.nodes, bytes, basis.inputs);
    std::optional<csel::Choice> plugin_choice;
    if (plugin.candidate) {
        plugin_choice = choice_of_point(point_of(*plugin.candidate, bytes));
        c.plugin_seconds = plugin.seconds;
        c.plugin_label = plugin_choice ? plugin_choice->describe() : plugin.candidate->configuration.algorithm;
    }
    if (mpich.candidate) {
        c.mpich_seconds = mpich.seconds;
        c.mpich_label = mpich.candidate->configuration.algorithm;
    }
    c.picked = plugin_choice && mpich.seconds && tree_can_run(point_of(*plugin.candidate, bytes), shape.ranks(), 1) &&
               *plugin.seconds * (1 + kPredictedMargin) <= *mpich.seconds;
    if (c.picked) choice = *plugin_choice;
    return c;
}

}  // namespace

PredictedShape predict_shape(const JobShape& shape, const std::map<std::string, std::vector<std::uint64_t>>& sizes,
                             const PredictionBasis& basis) {
    if (shape.ppn != 1) throw std::invalid_argument("predict_shape: " + to_string(shape) + ": one rank per node only");
    if (shape.nodes <= basis.fitted_procs)
        throw std::invalid_argument("predict_shape: " + to_string(shape) + ": not larger than the " +
                                    std::to_string(basis.fitted_procs) + " nodes fitted on");
    PredictedShape predicted{shape, {}, {}};
    TunePlan& plan = predicted.plan;
    plan.comm_size = shape.ranks();
    plan.ppn = 1;
    plan.nodes = shape.nodes;
    plan.predicted = true;
    for (const auto& [collective, own_sizes] : sizes) {
        if (analytic::modelled_algorithms(collective).empty()) continue;
        const std::vector<analytic::Candidate> candidates =
            analytic::candidates_of(basis.models, collective, basis.segsizes, basis.chain_fanouts);
        CollectivePlan& own = plan.collectives[collective];
        for (std::uint64_t bytes : own_sizes) {
            csel::Choice choice;
            predicted.cases.push_back(predict_case(collective, bytes, shape, candidates, basis, choice));
            const PredictedCase& c = predicted.cases.back();
            own.picks.push_back(csel::SampledChoice{plan.comm_size, plan.ppn, bytes, choice});
            plan.cases.push_back(SizeCase{collective, bytes, c.picked ? c.plugin_label : kStockLabel, {}, false});
        }
    }
    return predicted;
}

std::vector<std::string> predicted_shape_lines(const PredictedShape& predicted, const PredictionBasis& basis) {
    std::vector<std::string> lines{
        "# predicted shape " + to_string(predicted.shape) + ": larger than the allocation, not measured, not " +
            "verified, not timed; the analytic models of job " + std::to_string(basis.fit_job) + " (fitted on " +
            std::to_string(basis.fitted_procs) + " nodes x 1 rank), the plugin's fastest picked where predicted " +
            "faster than MPICH's fastest modelled algorithm by " +
            std::to_string(static_cast<int>(kPredictedMargin * 100 + 0.5)) + " %",
        "collective   size (B)   plugin's fastest (predicted us)                              MPICH's fastest "
        "(predicted us)         pick"};
    const auto us = [](const std::optional<double>& seconds) { return seconds ? microseconds(*seconds, 1) : "-"; };
    for (const PredictedCase& c : predicted.cases) {
        std::ostringstream line;
        line << std::left << std::setw(12) << c.collective << ' ' << std::setw(10) << c.msg_bytes << ' '
             << std::setw(60) << (c.plugin_label.empty() ? "-" : c.plugin_label + " (" + us(c.plugin_seconds) + ")")
             << ' ' << std::setw(37) << (c.mpich_label.empty() ? "-" : c.mpich_label + " (" + us(c.mpich_seconds) + ")")
             << ' '
             << (c.picked ? "plugin's"
                          : c.msg_bytes < basis.smallest_fitted ? "MPICH's selection (below the sizes fitted)"
                                                                : "MPICH's selection");
        lines.push_back(line.str());
    }
    lines.push_back("");
    for (const std::string& line : coverage_lines(predicted.plan, coverage(predicted.plan, {}))) lines.push_back(line);
    return lines;
}

}  // namespace hiertune
