// `hiertune generate`: a complete MPIR Csel tree from a measurement database
// (no MPI needed).
//
//   --from measured  per job, collective and size, the fastest measured point
//                    that a tree can express (MPICH's own selection = the
//                    stock subtree, an algorithm without parameters, or hier
//                    with its parameters);
//   --from model     per job, collective and size, the HAN task model's best
//                    hier configuration (tasks table, and seg_* inter-node
//                    submodules costed by the analytic models fitted on the
//                    job's nodes, analytic_han.hpp), against the measured
//                    stock point ("default") of that size where there is one;
//   --from analytic  the job's fitted analytic models (`hiertune fit`,
//                    analytic_catalog.hpp): per comm size and size the modelled
//                    algorithm (seg_*: and segment size) with the least predicted
//                    time, at comm sizes beyond the measured one too (the models
//                    take P); midpoints are asked of the models; below the
//                    smallest size the models were fitted at, the stock subtree.
//
// A job becomes (comm_size = ranks, ppn = ceil(ranks / nodes)): the values the
// tree's comm_size<= and comm_avg_ppn<= tests compare against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/models/han_model.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

enum class GenerateSource { measured, model, analytic };

struct GenerateOptions {
    GenerateSource source = GenerateSource::measured;
    std::vector<std::string> collectives;  // default: bcast, reduce, allreduce (model: bcast, allreduce)
    std::vector<JobId> jobs;               // default: every job
    std::vector<std::uint64_t> sizes;      // model: sizes to evaluate (default: the measured stock
                                           // sizes of the job, else 1..1M powers of two)
    han::ModelOptions model;
    // model: only the task-benchmarked candidates this accepts (default: all),
    // e.g. tune's search space when the database holds more.
    std::function<bool(const han::Candidate&)> candidate_filter;
    // analytic: the comm sizes (default: powers of two from 2 to 4x the fitted
    // size, and the fitted size), segment sizes (default: those gamma was measured
    // at) and seg_chain fanouts of the candidates; model: the inter_chunk values
    // (default: 0 and gamma's segment sizes) and seg_chain fanouts of the seg_*
    // inter-node candidates.
    std::vector<int> comm_sizes;
    std::vector<std::uint64_t> segsizes;
    std::vector<int> chain_fanouts{2, 4};
    // model: the seg_* inter-node configurations to cost (default: every seg_*
    // submodule x inter_chunk values x fanouts x the measured intra_algo values)
    std::vector<Params> seg_targets;
};

// MPICH's selection forced to one of its CH4 compositions (MPIR_CVAR_<COLL>_COMPOSITION=N
// alone, as `bench -a default:<coll>_composition=N` measures it): the composition's
// choice where a CH4 tree can name it (csel::build_tree_pair writes it there), else
// nullopt; and whether the forced composition ran as itself at that point (ch4_coll.h
// runs the netmod-only one instead, silently, where its check fails: no node comm,
// allreduce gamma off one node, allgather alpha above 4096 B per rank).
std::optional<csel::Choice> composition_of_point(const PointKey& key);
// The N of a point that sets MPIR_CVAR_<COLL>_COMPOSITION=N alone on MPICH's selection.
std::optional<int> forced_composition(const PointKey& key);
bool composition_ran(const PointKey& key, int comm_size, int ppn);

// The tree's choice for a measured point, or nullopt when a tree cannot
// express it (a parameter that is not one of the algorithm's own, or an
// algorithm MPICH has no container for, e.g. binomial for allreduce, or one whose
// container MPICH cannot give every parameter from a tree, grammar::mpich_unread_params,
// e.g. recexch for barrier).  The
// plugin's parameters map from their control variables as the grammar names
// them (grammar::Algorithm::cvar: MPIR_CVAR_BCAST_HIER_SEGSIZE -> segsize,
// MPIR_CVAR_REDUCE_SEG_FANOUT -> fanout of seg_chain only); any other variable,
// e.g. _SEG_WINDOW, is not expressible.  MPICH's own algorithms get every call
// parameter (grammar::mpich_call_params): the point's value of its variable,
// else the variable's default (a sweep run with such a variable in its
// environment, not set by the point, is described with the default).
std::optional<csel::Choice> choice_of_point(const PointKey& key);

// Whether a tree may name the point's configuration for calls on comm_size
// ranks, ppn per node: one it can express (choice_of_point), and not where
// MPICH 5.0.1 falls back to its own selection when the algorithm is forced
// through the control variable (MPII_COLLECTIVE_FALLBACK_CHECK), so that the
// point measured MPICH's selection while a tree would call the container
// directly, where it asserts or fails: smp on a communicator without a node
// hierarchy (one rank per node), reduce_scatter_gather (reduce) and
// reduce_scatter_allgather (allreduce) with fewer bytes than the largest power
// of two <= comm_size (count < pof2 for MPI_UNSIGNED_CHAR), iallgatherv's
// tsp_recexch_doubling and tsp_recexch_halving (displacements in rank order only:
// bench's are reversed, and no key of a tree tests their order), alltoall's and
// alltoallv's pairwise_sendrecv_replace, ialltoall's and ialltoallv's sched_inplace and
// ialltoallv's tsp_inplace (MPI_IN_PLACE only: bench's sendbuf never is).
// node_consecutive: the job's ranks are numbered node by node (block placement), so
// that MPICH's algorithms needing is_node_consecutive=yes ran as themselves where the
// job has 2 .. comm_size-1 nodes (layout_meets).
bool tree_can_run(const PointKey& key, int comm_size, int ppn, bool node_consecutive = true);

// Whether a job of comm_size ranks, ppn per node, meets the conditions of MPICH's
// container that its layout decides (grammar::requirements: comm_size=pow2,
// is_node_consecutive=yes).  Where it does not, the algorithm forced through its
// variable fell back to MPICH's selection (MPII_COLLECTIVE_FALLBACK_CHECK), and a tree
// puts the container behind the condition, so that such a job would not run it either.
bool layout_meets(const std::string& container, int comm_size, int ppn, bool node_consecutive);

// What a pair of trees (csel::build_tree_pair) selects for a measured point at
// comm_size ranks, ppn per node: the forced composition where it ran as itself
// (composition_ran), else choice_of_point where tree_can_run; nullopt where a tree
// cannot run what the point measured.
std::optional<csel::Choice> tree_choice_of_point(const PointKey& key, int comm_size, int ppn,
                                                 bool node_consecutive = true);

// The (comm_size, ppn) a job is filed under in the tree.
std::pair<int, int> tree_position(const JobDescription& job);
// Whether the job's ranks are numbered node by node (tree_can_run's node_consecutive).
bool node_consecutive(const JobDescription& job);

// Per size, the fastest point of the collective a tree can run at the job's
// position (tree_can_run; ties: fewer parameters, then the choice's text).
// skipped counts the points that a tree
// cannot express.
std::vector<csel::SampledChoice> best_measured(const Job& job, const std::vector<StoredPoint>& points,
                                               const std::string& collective, std::size_t* skipped = nullptr);

// Model candidates of a collective from stored task benchmarks: per
// (configuration, segment size), the median of each task per leader (or the
// max over leaders where no per-leader timing is stored).  Allgather's sg
// (stored by bytes per rank) goes to gather_costs of every candidate of its
// configuration, not into a candidate of its own.
std::vector<han::Candidate> candidates_from_tasks(const std::vector<StoredTask>& tasks, const std::string& collective);

// MPICH's fastest measured configuration at a size: its own selection
// (choice: the stock subtree), or one of its algorithms or CH4 compositions forced
// (choice: that container, an algorithm with every call parameter) where it is faster
// than the selection by more than kStockMargin or the selection was not measured,
// among the points a pair of trees can run on comm_size ranks, ppn per node
// (tree_choice_of_point).
// The margin keeps a tree from naming an algorithm that measured equal to
// MPICH's choice (often the same algorithm, or one that falls back to the
// selection, e.g. ccl without a CCL library).  label: "stock" or the choice's
// description ("MPIR_Allreduce_intra_recursive_multiplying k=2").
constexpr double kStockMargin = 0.05;
struct StockPoint {
    csel::Choice choice;
    std::string label;
    double time = 0;  // the point's median, s
    double noise = 0;  // the median's relative CI half-width (Summary::relative_half_width)
};
std::map<std::uint64_t, StockPoint> best_stock_points(const std::vector<StoredPoint>& points,
                                                      const std::string& collective, int comm_size, int ppn,
                                                      bool node_consecutive = true);

// hier's container of collective with params (MPIR_<Coll>_intra_hier), and whether a
// choice is one.
csel::Choice hier_container(const std::string& collective, const Params& params);
bool hier_choice(const std::string& collective, const csel::Choice& choice);

// What --from model chooses for an m-byte message: the model's best hier
// candidate (choice: MPIR_<Coll>_intra_hier with the candidate's parameters
// and segsize), unless MPICH's best point of that size is measured (stock)
// and not slower, then that point's choice.  nullopt when the model cannot
// predict any candidate and no stock point is known.
struct ModelPick {
    csel::Choice choice;
    std::optional<han::Prediction> prediction;  // the model's best candidate, if any
};
// predictions: the candidates' at the size (han::predict_all).
std::optional<ModelPick> model_pick(const han::Predictions& predictions, const std::optional<StockPoint>& stock,
                                    const han::ModelOptions& options);

// The task model cannot tell its hier candidate from MPICH's measured best where its
// prediction lies within this factor of that time either way: it sums the tasks' times
// and sees neither how they overlap nor what ranks sharing cores cost.  Nor can it rank
// candidates predicted within kTieFactor of its best: their tasks are timed to a few per
// cent on a shared machine.  A tune settles such a close call by timing the candidates.
constexpr double kCloseCallFactor = 2.0;
constexpr double kTieFactor = 1.1;
// Whether pick's prediction and stock's time lie within kCloseCallFactor of each other.
bool close_call(const ModelPick& pick, const std::optional<StockPoint>& stock);
// The candidates predicted within kTieFactor of pick's prediction (one of predictions'),
// the best first (pick.prediction's); none without a prediction.
std::vector<han::Prediction> tied_candidates(const han::Predictions& predictions, const ModelPick& pick);
// A close call settled by its timed candidates (candidate_params, each with its median):
// the fastest of them where it is faster than stock beyond the two medians' noise (their
// relative CI half-widths added), stock's choice where stock is faster beyond it; within
// the noise the model's side (its hier pick: the fastest timed; else stock's choice).
// Without stock: the fastest timed.  timed must not be empty.
ModelPick settle_close_call(ModelPick pick, const std::string& collective, const std::optional<StockPoint>& stock,
                            const std::vector<std::pair<Params, Summary>>& timed);

// The model's choice at a message size no pick was made for (a midpoint the
// tree asks about where stock was not measured): the best candidate's hier
// container, nullopt where no candidate is predicted.
std::optional<csel::Choice> model_midpoint(const std::string& collective, const std::vector<han::Candidate>& candidates,
                                           int nodes, int ppn, std::uint64_t msg_bytes,
                                           const han::ModelOptions& options);

// The collectives the task model covers (--from model; tune, tasks): bcast,
// reduce, allreduce, allgather; and the same as text ("bcast, reduce, ...").
const std::vector<std::string>& model_collectives();
std::string model_collectives_text();
// Every collective with a plugin algorithm, the blocking ones (grammar::collectives())
// then their non-blocking forms (grammar::nonblocking_collectives()).
const std::vector<std::string>& tuned_collectives();
// The others than the model's (gather, scatter, barrier, scan, exscan, reduce_scatter,
// reduce_scatter_block, allgatherv, alltoall, alltoallv, gatherv, scatterv, ibcast ..
// iscatterv): tune picks them from measurement (TuneOptions::measured).
const std::vector<std::string>& measured_collectives();

// The parameters of a candidate as the tree and the measurements name them:
// its configuration plus segsize.
Params candidate_params(const han::Candidate& candidate);

struct GenerateReport {
    csel::TreeResult tree;
    std::optional<csel::TreeResult> ch4;  // the CH4 tree of the compositions chosen, if any
    std::vector<std::string> lines;  // human-readable summary, one item per line
};

// The job of the same machine with one rank on each of this job's nodes that
// `hiertune fit` fitted models for; nullopt if none.
std::optional<Job> fit_job_of(const MeasureDb& db, const Job& job);

// The hier candidates of a job with a seg_* inter-node submodule, costed by the
// analytic models fitted on its nodes (a job of the same machine with one rank
// per node; analytic_han.hpp) from its measured candidates; a line for the
// report either way.
std::vector<han::Candidate> seg_inter_candidates_of(const MeasureDb& db, const Job& job, const std::string& collective,
                                                    const std::vector<han::Candidate>& measured,
                                                    const GenerateOptions& options, std::vector<std::string>& lines);

// The tree of `input` on `stock`, checked as MPI_Init checks it (csel::check_tree).
// Throws UsageError for bad input (a CH4 composition chosen among it) and for a tree
// that fails the check; csel::TreeError for a stock tree without a chosen collective.
csel::TreeResult build_checked_tree(const csel::Json& stock, const csel::TreeInput& input);
// The pair of trees of `input` (csel::build_tree_pair), each checked as MPI_Init and
// MPID_Init check it; ch4_stock nullopt: an input that chooses a composition is refused.
// Throws as build_checked_tree.
csel::TreePair build_checked_pair(const csel::Json& stock, const std::optional<csel::Json>& ch4_stock,
                                  const csel::TreeInput& input);

// The lines a built tree adds to a report: collectives left stock, the rules
// written, the midpoints worth measuring.
std::vector<std::string> tree_summary_lines(const csel::TreeResult& tree);

// --from analytic (generate_tree calls it).
GenerateReport generate_analytic_tree(const MeasureDb& db, const csel::Json& stock, const GenerateOptions& options);

// Builds the tree from the database.  Throws UsageError for unusable input
// (unknown collective or job, no data for any requested collective, two jobs
// filed under the same tree position), TreeError for a stock tree lacking a
// collective, and UsageError when the resulting tree fails check_tree.
GenerateReport generate_tree(const MeasureDb& db, const csel::Json& stock, const GenerateOptions& options);

}  // namespace hiertune
