// What `hiertune tune` decides, made once from the database and read by every
// later step (no MPI here; the runner is tools/src/tune_command.cpp):
//
//   database (tasks, stock points, fitted models, the measured collectives' points)
//     -> plan_tune   per collective and size: the pick (model_pick: the HAN
//                    model's best candidate against MPICH's best measured
//                    point, a close call settled by the candidate's measured
//                    time; measured_pick for gather, scatter, barrier, scan,
//                    exscan, the reduce-scatters, allgatherv, alltoall, alltoallv,
//                    gatherv, scatterv and the non-blocking forms), every
//                    configuration's prediction, the
//                    verify case
//     -> close_calls step 2b: the candidates of close calls not yet timed, then
//                    plan_tune again
//     -> plan_tree      step 3: the tree of the picks
//     -> plan.verify    step 4: what the tree must run
//     -> the tree file  step 5: timed as loaded against no tree
//     -> keep_measured_faster  step 5b: picks not measured faster become
//                       stock, and the tree is made, verified and timed again
//     -> measure_plan   steps 6-7: the sweep's medians beside the picks; the
//                       picks are not recomputed
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/tree_coverage.hpp"
#include "hiertune/models/han_model.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/tune/tune_steps.hpp"
#include "hiertune/report/validation.hpp"

namespace hiertune {

struct CollectivePlan {
    std::vector<han::Candidate> candidates;  // the search space's, seg_* ones included
    std::vector<csel::SampledChoice> picks;  // per size, at the plan's tree position
    bool stock_measured = false;             // else the tree asks the model at its midpoints
};

// A model case the model cannot decide (generate.hpp: its prediction within
// kCloseCallFactor of MPICH's best measured point, or hier candidates predicted within
// kTieFactor of its best): its candidates and MPICH's best point.
struct CloseCallCandidate {
    Params config;  // without the segment size
    std::uint64_t segsize = 0;
    // the segment size its run is timed under: its own, or a smaller one of the same run
    // (sweep.hpp same_run_representative), so that the sweep's point is the close call's
    std::uint64_t timed_segsize = 0;
    double predicted_s = 0;
    std::optional<double> measured_s;  // its median; nullopt: not timed yet
};
struct CloseCall {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::vector<CloseCallCandidate> candidates;  // the model's best first
    std::string stock;  // MPICH's best point's choice (describe); "" where none is measured
    double stock_s = 0;
    std::string chosen;  // the settled pick (SizeCase::pick); "" until every candidate is timed
};

struct TunePlan {
    int comm_size = 0;  // the tree position of the job (generate.hpp tree_position)
    int ppn = 0;
    int nodes = 0;
    bool node_consecutive = true;  // the job's ranks numbered node by node (generate.hpp)
    han::ModelOptions model;
    std::map<std::string, CollectivePlan> collectives;
    // per collective and size, in the options' order: the pick and every
    // configuration of the search space with its prediction and (measure_plan)
    // the sweep's median; MPICH's measured choices of the size beside them
    std::vector<SizeCase> cases;
    std::vector<VerifyCase> verify;        // one per case
    std::vector<std::string> unpredicted;  // "bcast 1024 B": no prediction and no stock point
    std::vector<std::string> skipped;      // configurations without a pipeline for a collective
    std::vector<CloseCall> close_calls;    // in the cases' order
    bool predicted = false;  // a shape larger than the allocation: picks from the models, none measured
};

// The report's lines on the close calls: what each candidate was predicted, timed and
// weighed against, and which side the time chose; none without close calls.
std::vector<std::string> close_call_lines(const TunePlan& plan);
// The configurations step 2b times: per collective, the close calls' candidates not
// timed yet (candidate_params, at their timed segment size) and the sizes they are due at.
struct CloseCallTiming {
    std::string collective;
    std::vector<Params> candidates;
    std::vector<std::uint64_t> sizes;  // ascending
};
std::vector<CloseCallTiming> untimed_close_calls(const TunePlan& plan);

// The plan of the job's measurements: ranks from the options, `nodes` from the
// job.  The candidates are the job's task benchmarks restricted to the search
// space (their shorter segments kept: han_model segment_costs), plus
// seg_candidates (per collective, the seg_* inter-node candidates the analytic
// models give: generate.hpp seg_inter_candidates_of).  Configurations without
// a pipeline for a collective (bcast: inter_algo=tsp_allreduce_ring) are left
// out and named in `skipped` (task_bench configs_for).  The cases carry the
// measurements of `points` (measure_plan).  job: the measured job, whose nodes
// and placement decide which of MPICH's algorithms ran as themselves (tree_can_run).
TunePlan plan_tune(const TuneOptions& options, const std::vector<StoredTask>& tasks,
                   const std::vector<StoredPoint>& points, const JobDescription& job,
                   const std::map<std::string, std::vector<han::Candidate>>& seg_candidates = {});

// One alternative to MPICH's selection for a collective without a task model:
// hier with a configuration (label: config_label) or one of MPICH's algorithms
// forced (label: the choice's description), with its measured points by size.
struct MeasuredOption {
    csel::Choice choice;
    std::string label;
    std::map<std::uint64_t, Summary> times;
};

// The choice for the sizes of `stock` of such a collective, all of its sizes where
// MPICH cannot select it by bytes (csel::message_size_key: one choice per job shape),
// else each size alone: among `options`, those measured at every size
// of `stock` (MPICH's selection by size), never slower than it beyond the noise
// (the two medians' relative CI half-widths added) at any size and faster beyond
// the noise (and kStockMargin) at one at least; of these the one with the lowest
// geometric mean of its time over stock's (ties: the first).  nullptr: stock.
const MeasuredOption* measured_pick(const std::map<std::uint64_t, Summary>& stock,
                                    const std::vector<MeasuredOption>& options);

// The medians (and their noise) of `points` into the cases: hier points by
// configuration, MPICH's by choice (its selection and its forced algorithms a
// tree can run, each added to the case of its size once).  The picks stay.
void measure_plan(TunePlan& plan, const std::vector<StoredPoint>& points);

// Whether the sweep measured every configuration of the case (after measure_plan).
bool case_swept(const SizeCase& c);
// Step 6's done-test: every case swept, every size planned.
bool sweep_complete(const TunePlan& plan);
// The runs the sweep has left to measure per collective (after measure_plan): its
// configurations not measured at each size, those of one run (same_run_as) counted once.
std::map<std::string, std::size_t> unmeasured_runs(const TunePlan& plan);

// A pick put back to stock by keep_measured_faster, with the timing that sent it back.
struct RevertedPick {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::string pick;  // what it was (SizeCase::pick)
    TreeTimingRow timing;
};

// Step 5b, "never slower": a pick that is not stock stays only where the tree as
// loaded was measured faster than no tree beyond the noise (TreeVerdict::faster); at
// every other timed size (within the noise, slower) it becomes stock in the picks, the
// cases and the verify cases.  A collective with one choice per shape (no
// csel::message_size_key) keeps it only where no timed size is slower and one at
// least is faster; else it becomes stock at every size.  Sizes the timing has no
// row for are left.  Returns the picks put back, in plan order.
std::vector<RevertedPick> keep_measured_faster(TunePlan& plan, const TreeTimingReport& timing);

// The (collective, size) of the plan's cases whose pick is MPICH's selection: the tree
// runs there what no tree runs.
std::set<std::pair<std::string, std::uint64_t>> stock_cases(const TunePlan& plan);

// Marks the rows of sizes where the plan's pick is MPICH's selection
// (TreeTimingRow::same_choice): the tree runs there what no tree runs; of those, the
// ones step 5b put back (TreeTimingRow::put_back instead).
void mark_same_choices(const TunePlan& plan, TreeTimingReport& timing, const std::vector<RevertedPick>& reverted = {});

// A run of a collective's tuned sizes (in the plan's order) with one source and choice.
struct CoverageRow {
    std::string collective;
    std::uint64_t first_bytes = 0;
    std::uint64_t last_bytes = 0;
    PickSource source = PickSource::stock;
    std::string choice;  // SizeCase::pick
};
std::vector<CoverageRow> coverage(const TunePlan& plan, const std::vector<RevertedPick>& reverted);

// The coverage table as text: the tuned shape, per collective the rows, what the tree
// leaves to MPICH below the smallest size tuned (csel_tree.hpp) and at every other
// comm size and ppn, and where the largest size's choice holds beyond it.
std::vector<std::string> coverage_lines(const TunePlan& plan, const std::vector<CoverageRow>& rows);

// The coverage file of a tree (tree_coverage.hpp) of these plans, each at its tree
// position with its coverage (its picks put back by step 5b given beside it).
TreeCoverage tree_coverage(const std::string& tree_digest,
                           const std::vector<std::pair<const TunePlan*, const std::vector<RevertedPick>*>>& plans);

// Below this size a job whose ranks share cores times the scheduler as much as the links
// (8 ranks on the 2-core VM: README, "small messages"): the report says which picks
// stand on such figures.
constexpr std::uint64_t kSharedCoresNoiseBelow = 16384;

// The report's note on a job whose ranks shared cores (MeasureDb::shared_cores of the
// plan's job; none: no lines): the hosts, the picks below kSharedCoresNoiseBelow that
// are not MPICH's selection, and whether step 5b checked them against no tree
// (keep_unproven: it did not).
std::vector<std::string> shared_cores_lines(const TunePlan& plan, const std::vector<HostLoad>& shared_cores,
                                            bool keep_unproven);

// Step 3: the trees of the plan's picks over `stock` and `ch4_stock`
// (build_checked_pair: the CH4 tree where a composition was picked), with
// the picks of the further shapes' plans beside them, each at its own tree
// position; where a collective's stock was not measured, sizes between the
// main plan's picks are asked of the model (model_midpoint).  Throws UsageError
// when no collective has a pick, or two plans share a tree position; csel errors
// as build_checked_pair.
GenerateReport plan_tree(const TunePlan& plan, const csel::Json& stock,
                         const std::vector<const TunePlan*>& shapes = {},
                         const std::optional<csel::Json>& ch4_stock = std::nullopt);

}  // namespace hiertune
