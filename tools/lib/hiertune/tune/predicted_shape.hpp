// Job shapes larger than the allocation, predicted (tune --predict-shapes; no MPI).
//
// A tune measures shapes of at most its allocation's nodes; a job on more nodes
// selects in a branch of the tree no tune job can time.  For one rank per node the
// analytic models fitted on the allocation's nodes (step 0b, `hiertune fit`:
// MPICH's modelled algorithms and the plugin's seg_* trees, each a line in alpha
// and beta, the seg_* trees with gamma(P)) take the comm size as a parameter
// (analytic_catalog.hpp), so they predict every candidate at P = nodes.
//
// The pick at a size is the candidate with the least predicted time where it is
// one of the plugin's and predicted faster than every modelled MPICH algorithm by
// kPredictedMargin; else MPICH's selection.  MPICH's selection runs one of its
// algorithms (a modelled one, or one the models do not cover), so a pick that
// beats them all by more than the models' error at comm sizes they were not
// fitted at is faster than the selection though neither was measured there.
// Below the smallest size fitted at (analytic::smallest_fitted_size) and for a
// collective without models: MPICH's selection.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/tune/tune_plan.hpp"

namespace hiertune {

// How much faster than every modelled MPICH algorithm a predicted pick must be:
// predicted(pick) * (1 + margin) <= predicted(MPICH's best).
constexpr double kPredictedMargin = 0.5;

// What the predictions come from: the models fitted on the allocation's nodes.
struct PredictionBasis {
    JobId fit_job = 0;
    int fitted_procs = 0;  // the nodes they were fitted on
    std::vector<FittedModel> models;
    analytic::ModelInputs inputs;
    std::uint64_t smallest_fitted = 0;
    std::vector<std::uint64_t> segsizes;  // of the seg_* candidates
    std::vector<int> chain_fanouts;       // of the seg_chain candidates
};

// One size of a predicted shape: the fastest predicted candidate of the plugin and
// of MPICH (nullopt: none modelled there), and whether the plugin's is the pick.
struct PredictedCase {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::optional<double> plugin_seconds;
    std::string plugin_label;  // its choice (csel::Choice::describe)
    std::optional<double> mpich_seconds;
    std::string mpich_label;  // its algorithm item
    bool picked = false;
};

struct PredictedShape {
    JobShape shape;
    std::vector<PredictedCase> cases;
    TunePlan plan;  // predicted: its picks at the shape's tree position, SizeCases for the coverage
};

// The predictions at `shape` (one rank per node, more nodes than the models were
// fitted on: std::invalid_argument otherwise) for each collective at each of its sizes.
PredictedShape predict_shape(const JobShape& shape, const std::map<std::string, std::vector<std::uint64_t>>& sizes,
                             const PredictionBasis& basis);

// The report's section: the basis, per case the two candidates, their predicted
// times and the pick, then the coverage table.
std::vector<std::string> predicted_shape_lines(const PredictedShape& predicted, const PredictionBasis& basis);

}  // namespace hiertune
