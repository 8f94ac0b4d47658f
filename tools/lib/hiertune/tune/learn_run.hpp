// `hiertune learn`: the active-learning tuner (learn.hpp's ActiveLearner)
// run against real jobs, without MPI in this process.  The runner that
// launches the jobs is tools/src/learn_command.cpp; this file holds what it
// decides without MPI:
//
//   - the options and their checks;
//   - a batch of points as bench jobs: the points grouped by job shape (nodes x
//     ranks per node), ONE `hiertune bench --db` job per shape over the
//     group's sizes and configurations (bench measures their cross product:
//     the points beyond the batch cost measuring time but no launch, and are
//     recorded too);
//   - the medians read back from the database: the job a launch filed its
//     points under, and the points of a job that lie in the space (also what
//     a rerun starts from: resume);
//   - the Csel tree from the learned predictions: per (comm size, ppn) of the
//     space and candidate size, the configuration with the lowest predicted
//     time, through the existing tree machinery (csel::build_tree, compact
//     rules with the model re-queried at the midpoint where the choice changes,
//     ACCLAiM section V).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/models/learn.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/tune/tune_steps.hpp"

namespace hiertune {

// The shape of a job: nodes x ranks per node, block placement.
JobShape shape_of(const LearnPoint& point);
std::string describe(const JobShape& shape);  // "2 nodes x 4 ppn"

// The tree positions a shape becomes (comm_size = ranks, ppn), as generate's
// tree_position files a job.
std::pair<int, int> tree_position(const JobShape& shape);

// The collectives learn tunes (one learner each).
const std::vector<std::string>& learned_collectives();

struct LearnRunOptions {
    std::vector<std::string> collectives{to_string(grammar::Collective::bcast)};  // bcast, reduce, allreduce: one learner each, in turn
    std::vector<int> nodes;                         // the space's shapes: nodes x ppn
    std::vector<int> ppn{1};
    std::vector<std::uint64_t> sizes;  // powers of two (candidates; the every-fifth rule adds others)
    // The launch fields (mpiexec, mpiexec_args, launcher, machine,
    // allow_cliques), db_path and the bench effort (bench_*) of the jobs;
    // ranks, nodes and sizes are set per job.  launcher: the words before the
    // shape (launcher_for_shape, tune_steps.hpp).
    TuneOptions jobs;
    std::string tree_path;
    std::string stock_path;
    std::size_t batch = 1;         // points per iteration
    LearnOptions learn;            // forest, convergence (threshold, time budget per collective), initial points
    std::size_t parallel_nodes = 0;  // > 0: the allocation's nodes, a round's jobs run at once (IV-D)
    std::size_t rack_nodes = 1;
    bool collect_only = false;  // measure, no tree
    bool train_only = false;    // no measuring: the tree from what the database holds
};

// Throws UsageError for: no collective, one not bcast/reduce/allreduce or
// given twice; no node or ppn count, one <= 0 or given twice; a shape of
// fewer than 2 ranks; no sizes, a size not a power of two or above 1 GiB;
// batch 0; --collect-only with --train-only; an empty database path; no tree
// or stock path unless collect_only; a launcher together with mpiexec
// arguments or mpiexec; a launcher ending in "--" without placeholders
// (the shape is appended after it); parallel collection with a launcher
// (maint/emucluster run cannot choose the nodes of a job and holds a job
// lock, one job at a time) or with mpiexec arguments (two mpiexec runs of
// one host file start on the same hosts), an allocation smaller than the
// largest node count, rack_nodes 0; learn options out of range.
void check_learn_options(const LearnRunOptions& options);

// The error of a learn on emulated cliques without --allow-cliques: without a
// launcher every shape of more than one node runs as MPIR_CVAR_NUM_CLIQUES
// cliques; with one, MPIR_CVAR_NUM_CLIQUES > 1 in the environment
// (`num_cliques`) asks for them.  nullopt when it may go on.
std::optional<std::string> learn_cliques_refusal(const LearnRunOptions& options, const char* num_cliques);


// What one bench job measures: the points of a batch on one shape.
struct LearnGroup {
    JobShape shape;
    std::vector<std::uint64_t> sizes;           // ascending, distinct
    std::vector<Configuration> configurations;  // in order of first appearance
    std::vector<LearnPoint> points;             // the batch's points of this shape, in batch order
};

// The batch grouped by shape, the shapes in order of first appearance (the
// batch comes highest variance first, so a group's rank is its best point's).
// Throws std::invalid_argument for points of several collectives.
std::vector<LearnGroup> group_points(const std::vector<LearnPoint>& batch);

// Node counts of the groups, for schedule_round (IV-D).
std::vector<int> group_node_needs(const std::vector<LearnGroup>& groups);

// The keys bench stores for a group: its sizes x configurations.
std::vector<PointKey> group_keys(const LearnGroup& group);

// bench -a text of one configuration: "ALGO" or "ALGO:NAME=V,NAME=V" with the
// full control-variable names and canonical values (a single configuration
// again when bench expands it).
std::string algorithm_spec(const Configuration& configuration);

// The job options of one shape: the jobs' fields with ranks = nodes x ppn and
// the sizes; without a launcher nodes = the shape's (mpiexec -n RANKS with
// MPIR_CVAR_NUM_CLIQUES=NODES), with one the launcher's words for the shape.
TuneOptions shape_options(const LearnRunOptions& options, const JobShape& shape,
                          const std::vector<std::uint64_t>& sizes);

// The bench job of a group (step "learn", accounted in the database's
// step_times under it): `hiertune bench -C COLL -a SPEC... --sizes ... --db
// DB [--machine M] --account learn` with the jobs' bench effort.
Launch learn_launch(const LearnRunOptions& options, const std::string& hiertune, const LearnGroup& group);


// The job a launch of `shape` filed its points under: of the jobs with the
// shape's ranks, nodes and ppn (and `machine`, unless empty) that hold every
// key, the one whose newest of these points was measured last (a job the
// launch measured in; ties: the higher id).  nullopt when no job holds them
// all (the launch ran another shape, or failed).  `points_of` gives a job's
// stored points.
std::optional<Job> launched_job(const std::vector<Job>& jobs,
                                const std::function<std::vector<StoredPoint>(JobId)>& points_of,
                                const std::string& machine, const JobShape& shape,
                                const std::vector<PointKey>& keys);

// Of `keys`, those each job of the shape holds (jobs holding none are left
// out): taken before a launch, what the launch did not measure (bench skips
// stored points), so that the points read back afterwards are told apart.
std::map<JobId, std::set<PointKey>> held_keys(const std::vector<Job>& jobs,
                                              const std::function<std::vector<StoredPoint>(JobId)>& points_of,
                                              const JobShape& shape, const std::vector<PointKey>& keys);

// The machines that have a job of one of the shapes (train-only picks the
// one when --machine is not given).
std::set<std::string> machines_with_shapes(const std::vector<Job>& jobs, const std::vector<JobShape>& shapes);

// The stored points of a job on `shape` that lie in the space: the space's
// collective and configurations, a size within reach of its sizes (from
// non_p2_range of the smallest to that of the largest, non-powers of two
// included), a median > 0; as learner points with their medians (seconds).
std::vector<std::pair<LearnPoint, double>> stored_learn_points(const std::vector<StoredPoint>& points,
                                                               const JobShape& shape, const LearnSpace& space);

// What a learner knows of one collective, for the tree.
struct LearnedCollective {
    LearnSpace space;
    std::function<double(const LearnPoint&)> predicted_seconds;  // e.g. ActiveLearner::predicted_seconds
};

// The choice at (shape, size): the configuration a tree can run there (tree_can_run) with the
// lowest predicted time (ties: fewer parameters, then the choice's text, as
// best_measured), as the tree's choice; nullopt when none may be chosen.
std::optional<csel::Choice> learned_choice(const LearnedCollective& learned, const JobShape& shape,
                                           std::uint64_t msg_bytes);

// The tree's input: per collective, per shape of its space and candidate size
// the learned_choice (sampled), and the same asked at any other size of a
// shape (the requery of compact rules: the midpoint where the choice changes,
// section V).  Collectives keyed by the space's configurations' collective.
// `lines` gets one line per collective (sampled sizes, not stock, points no
// configuration may take).  Throws std::invalid_argument for a collective
// given twice or an empty space.
csel::TreeInput learned_tree_input(const std::vector<LearnedCollective>& learned, std::vector<std::string>* lines);

// One line per iteration: "iteration 3: 12 points measured, summed variance
// 0.0312, 14.2 s".
std::string iteration_line(std::size_t iteration, std::size_t measured, double summed_variance, double elapsed_s);

}  // namespace hiertune
