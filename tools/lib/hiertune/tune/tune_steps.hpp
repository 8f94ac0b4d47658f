// `hiertune tune`: the site admin's one command (no MPI here; the runner that
// launches the jobs is tools/src/tune_command.cpp).
//
//   (0) calibrate `hiertune calibrate --db --if-missing`: latency and bandwidth
//                 per link, and the job all later steps file under
//   (a) tasks     `hiertune tasks` for the search space into the database,
//                 and the stock selection measured at every size (--no-stock: not)
//   (b) model     HAN model predictions per (size, configuration)
//   (c) generate  `generate --from model` -> the tree
//   (d) verify    `hiertune verify` under the tree: the tuned collectives run,
//                 the plugin's pvars show that the chosen algorithm ran (hier,
//                 with the tree's segment size) and the data arrives
//   (e) tree timing  the tree as loaded: R rounds of two alternating jobs,
//                 `bench -a default` with the tree in the environment and
//                 without it (the tree is read at MPI_Init only)
//   (f) bench     the exhaustive sweep of the same space into the database
//   (g) report    lib/validation
//
// Every step is resumable through the database (calibrate, tasks, the tree
// timing and bench measure only what is missing; the others are cheap and
// recomputed).  This file holds the
// MPI-free parts: the options, the command lines of the jobs, the verify cases
// and the validation cases from the database.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hiertune/models/calibration.hpp"
#include "hiertune/models/han_model.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/report/validation.hpp"
#include "hiertune/tree/collective.hpp"

namespace hiertune {

// A job shape: nodes x ranks per node (tune --shapes, learn's space).
struct JobShape {
    int nodes = 0;
    int ppn = 0;
    int ranks() const { return nodes * ppn; }
};
bool operator==(const JobShape& a, const JobShape& b);
bool operator<(const JobShape& a, const JobShape& b);
std::string to_string(const JobShape& shape);  // "2x2"
// "2x2" -> {2, 2}.  Throws UsageError (naming `option`) for anything else, or a shape
// of fewer than 2 nodes (one node has no inter-node step to tune).
JobShape parse_job_shape(const std::string& text, const std::string& option = "--shapes");

// Whether a launcher's words hold "{nodes}", "{ppn}" or "{ranks}".
bool has_shape_placeholder(const std::vector<std::string>& words);
// The launcher's words for a shape: "{nodes}", "{ppn}" and "{ranks}" in any
// word are replaced by the shape's numbers (e.g. 'srun -N {nodes}
// --ntasks-per-node={ppn}'); without any placeholder, maint/emucluster run's
// options "--nodes N --ppn P --" are appended ('maint/emucluster run').
std::vector<std::string> launcher_for_shape(const std::vector<std::string>& launcher, const JobShape& shape);

struct TuneOptions {
    int ranks = 0;                                             // -n (> 1)
    std::optional<int> nodes;                                  // --nodes: MPIR_CVAR_NUM_CLIQUES (emulated)
    std::vector<std::string> collectives{to_string(grammar::Collective::bcast), to_string(grammar::Collective::allreduce),
                                         to_string(grammar::Collective::allgather)};  // model_collectives()
    std::vector<std::uint64_t> sizes;                          // > 0
    // a model collective's own sizes instead of `sizes` (--sizes-of: allgather's per
    // rank, whose whole message is ranks times larger); read through sizes_of
    std::map<std::string, std::vector<std::uint64_t>> collective_sizes;
    // collectives without a task model (measured_collectives(): gather, scatter,
    // barrier, scan, exscan, the reduce-scatters, allgatherv, alltoall, alltoallv,
    // gatherv, scatterv, the non-blocking forms), picked from their measured points, one
    // choice per job shape where MPICH cannot select them by bytes, else one per size
    // (csel::message_size_key), and their sizes (empty: `sizes`; barrier: 0 only; the
    // reduce-scatters', allgatherv's, gatherv's and scatterv's: per rank, the last two's
    // the mean of their uneven blocks; alltoall's and alltoallv's: per pair, the block each
    // rank sends each rank)
    std::vector<std::string> measured;
    std::vector<std::uint64_t> measured_sizes;
    std::string configs;                                       // as tasks --config
    std::vector<std::uint64_t> segsizes;                       // > 0
    std::string db_path;
    std::string tree_path;
    std::string stock_path;
    std::string ch4_stock_path;  // the CH4 stock tree (tune: where a composition is picked)
    std::string report_dir;
    std::string mpiexec;                                       // resolved by the runner
    std::vector<std::string> mpiexec_args;                     // e.g. -f hostfile
    std::vector<std::string> launcher;                         // --launcher words: replace mpiexec [args] -n N
    std::vector<std::string> fit_launcher;                     // --fit-launcher words: one rank per node
    std::string machine;                                       // --machine or HIERTUNE_MACHINE; else, once
                                                               // step 0 ran, the name its job is filed under
    bool allow_cliques = false;                                // --allow-cliques, passed to the measuring jobs
    // measurement effort of the jobs
    std::uint64_t steady_segments = 8;
    std::size_t task_warmup = 3;
    std::size_t task_min_reps = 10;
    std::size_t task_reps = 100;  // cap; runs stop earlier by bench's precision and time cap
    std::size_t bench_warmup = 10;
    std::size_t bench_min_reps = 10;
    std::size_t bench_max_reps = 1000;
    double bench_precision_percent = 2.5;
    double bench_max_time = 5;
    double rate_tolerance_percent = kDefaultRateTolerancePercent;  // step 0: calibrate --tolerance
    bool stock = true;  // measure the stock selection in step (a)
    han::ModelOptions model;
    // step (e), the tree as loaded (also `hiertune tree-timing`)
    int tree_rounds = 3;           // rounds of the two jobs (>= 2)
    double tree_tolerance = 0.05;  // a slower tree fails below ratio 1 - tolerance
    bool allow_tree_slower = false;
    // (collective, size) where the tree runs MPICH's selection, as no tree does (the
    // plan's stock picks, set by tune before step 5 unless time_every_size): step 5 does
    // not time them
    std::set<std::pair<std::string, std::uint64_t>> same_as_no_tree;
    bool time_every_size = false;
    // step 5b: keep every pick, also where the tree was not measured faster than no tree
    bool keep_unproven = false;
    // further job shapes inside the allocation, each measured in jobs of its own (every
    // tuned collective the measured way: hier's measured_configs against MPICH's
    // selection, at the measured sizes), its picks keyed in the same tree, verified and
    // timed against no tree at that shape; their launch: shape_launcher's words for
    // the shape (launcher_for_shape; with --nodes: the shape's emulated nodes)
    std::vector<JobShape> shapes;
    std::vector<std::string> shape_launcher;
    // job shapes larger than the allocation, one rank per node: their picks predicted by
    // the analytic models fitted in step 0b (lib/tune/predicted_shape), keyed in the
    // same tree, neither verified nor timed (no job of theirs can run)
    std::vector<JobShape> predicted_shapes;
    // the inter-node links' alpha / beta (MPIR_CVAR_HIER_LATENCY_BYTES): set by step 0, from
    // the environment's CVAR or else the calibration; every later job runs with it, and
    // --install records it with the tree (0: not known yet, the plugin's default)
    std::int64_t latency_bytes = 0;
    std::string install_prefix;  // tune --install: the verified tree becomes this MPICH prefix's site tree
    double budget_s = 0;         // tune --budget, seconds (0: none): what the sweep may use (tune_budget.hpp)
};

// The collectives of a tune or a tree timing that share their message sizes:
// one bench job times each group.
struct TimedGroup {
    std::vector<std::string> collectives;
    std::vector<std::uint64_t> sizes;
};
// The sizes a model collective of options.collectives is tuned at: its own
// (collective_sizes), else options.sizes.
const std::vector<std::uint64_t>& sizes_of(const TuneOptions& options, const std::string& collective);
// Every size some model collective is tuned at, ascending, each once; empty without
// model collectives (options.collectives).
std::vector<std::uint64_t> model_sizes(const TuneOptions& options);

// options.collectives at sizes_of, the measured ones at measured_sizes (or
// sizes) and barrier at 0, groups with the same sizes merged, empty ones left out.
std::vector<TimedGroup> timed_groups(const TuneOptions& options);
// The groups step 5 times: timed_groups without options.same_as_no_tree, regrouped
// by sizes, empty ones left out.
std::vector<TimedGroup> tree_timed_groups(const TuneOptions& options);

// Moves the collectives of options.collectives that have no task model into
// options.measured (in their order), so that -C may name any of them.
void split_measured(TuneOptions& options);

// The plugin configurations measured for a collective without a task model:
// its hier algorithm with each value of inter_algo (its own list; by_size, which runs
// one of the others by size, left out), the other
// parameters at their defaults; a non-blocking form's schedule, which a tree gives
// no parameters (it reads its blocking form's CVARs), once with none.
std::vector<Params> measured_configs(const std::string& collective);

// Throws UsageError for: ranks < 2, nodes < 2 or > ranks, no or zero sizes,
// shapes given twice, or without a way to launch them (shape_launcher, or
// --nodes), a shape launcher without shapes or ending in "--" without a
// placeholder (the shape is appended after it), predicted shapes given twice or
// also in shapes, of more than one rank per node, without a collective the models
// predict or without a way to fit them (--fit-launcher, or --nodes),
// no or zero segment sizes, a collective the task model does not cover
// (model_collectives) or given twice, an invalid configuration spec (as tasks
// --config), seg_* inter-node configurations without a way to fit the analytic
// models that cost them (--fit-launcher, or --nodes), a collective no
// configuration applies to (bcast with only tsp_allreduce_ring), empty paths, a
// launcher together with nodes, mpiexec or mpiexec arguments.
void check_tune_options(const TuneOptions& options);

// What `hiertune tree-timing` needs of the options (tune checks it too):
// throws UsageError for ranks < 2, nodes < 2 or > ranks, no or zero sizes,
// no collectives, one not bcast/reduce/allreduce or given twice, no tree
// path, rounds < 2, a tolerance not in [0, 1), a launcher together with
// nodes, mpiexec or mpiexec arguments.
void check_tree_timing_options(const TuneOptions& options);

// The error of tune asked to time emulated cliques (--nodes, or
// MPIR_CVAR_NUM_CLIQUES > 1 in tune's environment `num_cliques`) without
// --allow-cliques; nullopt when it may go on.
std::optional<std::string> tune_cliques_refusal(const TuneOptions& options, const char* num_cliques);

// --launcher TEXT: its words as a POSIX shell splits them, without expansions:
// blanks separate words; '...' is literal; in "..." a backslash escapes
// only " \ $ ` and newline; elsewhere a backslash escapes the next
// character (backslash-newline vanishes).  Throws UsageError for an
// unterminated quote, a trailing backslash, no words or an empty first word.
std::vector<std::string> launcher_words(const std::string& text);

// One MPI job: argv[0] is mpiexec (or the launcher's first word); env entries
// are added to the launch environment.
struct Launch {
    std::string step;  // "tasks", "verify", "bench"
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env;
};

// Shell-style one-line rendering of a launch (env assignments first), for
// messages.
std::string describe(const Launch& launch);

// Step 0: `hiertune calibrate --db --if-missing --json` (the stored
// calibration is kept; its JSON lines name the job), with bench's stopping
// rule, --machine when known and --allow-cliques when given.
Launch calibrate_launch(const TuneOptions& options, const std::string& hiertune);

// The configurations grouped by what they need at launch (task_bench
// launch_cvars of every tuned collective): one group per distinct set, in
// first-seen order.
std::vector<std::pair<std::vector<std::pair<std::string, std::string>>, std::vector<Params>>>
launch_groups(const TuneOptions& options);

// "inter_algo=tsp_kary,inter_k=2": one configuration as a tasks --config spec.
std::string config_spec(const Params& config);

// The configurations of the search space with a seg_* inter-node submodule:
// `hiertune tasks` cannot time them (no public-API stand-in); the analytic
// models fitted by step (0b) cost their inter-node stages (analytic_han.hpp).
std::vector<Params> seg_inter_configs(const TuneOptions& options);

// The tuned collectives the analytic models predict at shapes larger than the
// allocation (analytic::modelled_algorithms: bcast, reduce); none without
// predicted shapes.
std::vector<std::string> predicted_collectives(const TuneOptions& options);

// Step (0b), when the space has seg_* inter-node configurations or predicted
// shapes: `hiertune fit` on one rank per node (--fit-launcher's words, or mpiexec
// -n <nodes> with MPIR_CVAR_NUM_CLIQUES=<nodes> on emulated cliques) of the
// MPI_Bcast (and, for allreduce, MPI_Reduce) trees the space uses, experiments
// over the segment sizes, gamma at the sizes the trees move (inter_chunk; for 0
// the segment sizes), bench's stopping rule; with predicted shapes also every
// modelled algorithm of predicted_collectives, experiments up to the largest size;
// nullopt without either.
std::optional<Launch> fit_launch(const TuneOptions& options, const std::string& hiertune);

// The segment sizes step (a) benchmarks the tasks at: the search space's, and
// every message size below the smallest of them.  A message shorter than a
// segment sends one segment of its own length (han_model.hpp segment_costs):
// its tasks are measured where the search space has no segment that short, and
// interpolated between the measured sizes elsewhere.
std::vector<std::uint64_t> task_segsizes(const TuneOptions& options);

// Step (a)'s done-test: every task key it stores (the configurations of each
// collective, seg_* ones excepted, at every task_segsizes; allgather's sg at
// every message size).
std::vector<TaskKey> planned_tasks(const TuneOptions& options);

// Step (a): one `hiertune tasks` job with the --config given when all
// configurations share their launch variables (and none is seg_*), else one per
// configuration that is not seg_*; none without model collectives.
std::vector<Launch> tasks_launches(const TuneOptions& options, const std::string& hiertune);

// The `bench -a` spec of a configuration and the segment sizes:
// "hier:bcast_hier_segsize=4096/32768,bcast_hier_inter_algorithm=tsp_kary,...".
std::string bench_algorithm_spec(const std::string& collective, const Params& config,
                                 const std::vector<std::uint64_t>& segsizes);

// One `hiertune bench --db` job (also `hiertune learn`'s): one collective
// x the -a specs over options.sizes with the bench effort of
// the options, accounted under `step` (--account), --machine when known,
// --allow-cliques when given; launch_env is added to the launch environment.
Launch bench_launch(const TuneOptions& options, const std::string& hiertune, const std::string& step,
                    const std::string& collective, const std::vector<std::string>& algorithms,
                    const std::vector<std::pair<std::string, std::string>>& launch_env);

// The same over a group's collectives and sizes.
Launch bench_launch(const TuneOptions& options, const std::string& hiertune, const std::string& step,
                    const TimedGroup& group, const std::vector<std::string>& algorithms,
                    const std::vector<std::pair<std::string, std::string>>& launch_env);

// Step (e), the exhaustive sweep: one `hiertune bench --db` job per collective and
// launch group (of the configurations that apply to the collective).
struct SweepJob {
    std::string collective;
    std::size_t configurations = 0;  // its -a specs
    Launch launch;
};
std::vector<SweepJob> sweep_jobs(const TuneOptions& options, const std::string& hiertune);

// A sweep job in a line, e.g. "bcast, 4 configurations, MPIR_CVAR_X=y" (its collective,
// its algorithm count and the launch group's variables).
std::string sweep_job_name(const SweepJob& job);

// Step 2b: `hiertune bench --db` jobs timing hier candidates (candidate_params: each
// with its segment size) of one collective at sizes, one job per launch group of the
// candidates' configurations (the collective's share of them, configs_for; each timed
// in the first group that has it) (step "close").
std::vector<Launch> candidate_launches(const TuneOptions& options, const std::string& hiertune,
                                       const std::string& collective, const std::vector<Params>& candidates,
                                       const std::vector<std::uint64_t>& sizes);

// Step (a), second half: the stock selection (`bench -a default`) of every
// collective and size, one job per timed group (step "stock").  The model's pick is hier
// only where it predicts less than this measured time, so that a tuned tree
// never trades a measured stock time for a worse predicted one.
std::vector<Launch> stock_launches(const TuneOptions& options, const std::string& hiertune);

// Step (a), the measured collectives: their measured_configs at their sizes,
// one job per timed group (step "measured"); empty without measured collectives.
std::vector<Launch> measured_launches(const TuneOptions& options, const std::string& hiertune);

// The measured collectives' (collective, size, configuration) points not stored
// yet, as "gather 1024 B inter_algo=linear".
std::vector<std::string> missing_measured_points(const TuneOptions& options, const std::vector<StoredPoint>& points);

// Which stock reference a stored point is: 0 for MPICH's selection, n for CH4
// composition n forced (MPIR_CVAR_<COLL>_COMPOSITION=n); nullopt for any other point.
std::optional<int> stock_reference(const PointKey& key);

// The stock step's time per point it measured, stock_step_s over its points (MPICH's
// selection, its algorithms forced and the compositions: every stored point not of a
// hier algorithm); 0 without such points.
double stock_seconds_per_run(const std::vector<StoredPoint>& points, double stock_step_s);

// The (collective, size) pairs of the options without a stored stock point,
// as "bcast 1024 B".
std::vector<std::string> missing_stock_points(const TuneOptions& options, const std::vector<StoredPoint>& points);

// What step (d) expects of one collective call under the tree.
struct VerifyCase {
    std::string collective;  // one of grammar::collectives()
    std::uint64_t msg_bytes = 0;
    bool hier = false;       // true: hier must run, with `segments` segments (allgather: on its leaders,
                             // the pieces each receives; 0: not checked, as where hier counts none:
                             // gather, scatter, barrier, gatherv, scatterv, or a pick by measurement);
                             // false: any algorithm
    std::uint64_t segments = 0;
    // one of MPICH's algorithms the tree marks whole_comm=1: the device must hand the
    // call to the MPIR level (pvar coll_hier_mpir_routed: once on every rank)
    bool whole_comm = false;
};
constexpr const char* kWholeCommCase = "whole_comm";
bool operator==(const VerifyCase& a, const VerifyCase& b);
// "bcast:16384:hier/4", "allreduce:4096:whole_comm" or "allreduce:8:any".
std::string to_string(const VerifyCase& c);
// Inverse of to_string.  Throws UsageError.
VerifyCase parse_verify_case(const std::string& text);

// The environment of a job with the tree (absolute) or without it: the MPIR tree in
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, the CH4 tree beside it (site_tree.hpp
// ch4_tree_path), where there is one, in MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE;
// "" for what is not given: MPICH's built-in tree, whatever the caller's environment holds.
std::vector<std::pair<std::string, std::string>> tree_env(const std::string& tree, bool with_tree);

// Step (d): the `hiertune verify` job, with the tree in the environment
// (tree_env; the tree must be absolute).  Under a CH4 tree the plugin routes
// nothing (the CH4 tree's compositions bring MPICH's algorithms to the whole comm),
// so a whole_comm case is checked as any (its data still is).
Launch verify_launch(const TuneOptions& options, const std::string& hiertune, const std::string& tree,
                     const std::vector<VerifyCase>& cases);

// Step (e): one job of the tree timing, `hiertune bench -a default --json`
// over the collectives and sizes with the bench effort of the options, the
// launch environment tree_env(tree, with_tree) (the tree absolute).  Step name
// "tree" or "no-tree".
Launch tree_timing_launch(const TuneOptions& options, const std::string& hiertune, const std::string& tree,
                          bool with_tree, const TimedGroup& group);

// The output of a tree timing job: its points as timings of `round` and
// `variant`, and the layout the job ran in (ranks, nodes, ppn, placement).
struct TreeTimingOutput {
    std::vector<TreeTiming> timings;
    JobDescription layout;
};
// Reads the JSON lines of a tree_timing_launch job.  Throws std::runtime_error
// for a line that is not a bench point of the default selection, points of
// several layouts, a (collective, size) of the group missing or twice, or
// one not asked for.
TreeTimingOutput parse_tree_timing_output(std::istream& lines, const TimedGroup& group, int round,
                                          const std::string& variant);

// Whether two jobs ran in the same layout: ranks, nodes, ppn, placement.
bool same_layout(const JobDescription& a, const JobDescription& b);

// Whether `timings` hold every (collective, size) of the group for this round
// and variant (a resumed step skips that job).
bool tree_round_stored(const TimedGroup& group, const std::vector<TreeTiming>& timings, int round,
                       const std::string& variant);

// Rounds 1 .. options.tree_rounds of both variants per collective and size of
// tree_timed_groups, in the options' order, for evaluate_tree_timings.  Throws
// std::runtime_error naming the first (collective, size, round, variant)
// missing.
std::vector<TreeTimingCase> tree_timing_cases(const TuneOptions& options, const std::vector<TreeTiming>& timings);

// Whether a task-benchmarked candidate is in the search space (one of the
// configurations at one of the segment sizes).
bool in_search_space(const TuneOptions& options, const han::Candidate& candidate);

// `jobs` launched at a shape: ranks = nodes x ppn; with launcher words, those words
// for the shape (launcher_for_shape), else mpiexec -n RANKS on that many emulated
// nodes (MPIR_CVAR_NUM_CLIQUES, also 1, over whatever the caller's environment says).
TuneOptions at_shape(TuneOptions jobs, const std::vector<std::string>& launcher, const JobShape& shape);

// The options of the jobs at a further shape: its ranks and launch (shape_launcher's
// words for the shape, launcher_for_shape; with --nodes, that many emulated nodes), every tuned collective measured (options.collectives too) at the measured
// sizes (else the sizes), no further shapes.
TuneOptions shape_options(const TuneOptions& options, const JobShape& shape);

// A further shape's reference: MPICH's selection alone (bench -a default), one job
// per timed group (step "stock").
std::vector<Launch> shape_stock_launches(const TuneOptions& shape, const std::string& hiertune);

// Whether a job ran the shape: its ranks, nodes and ppn.
bool has_shape(const Job& job, const JobShape& shape);
// The newest job (highest id) of the machine with the shape's ranks, nodes and
// ppn (any placement or MPICH build); nullopt if none.
std::optional<Job> find_shape_job(const std::vector<Job>& jobs, const std::string& machine, const JobShape& shape);

// The job tune's runs are filed under: machine and ranks match, nodes too when
// given; of several (another MPICH build), the newest.  nullopt if none.
std::optional<Job> find_tune_job(const std::vector<Job>& jobs, const TuneOptions& options);

// Label of a hier configuration with its segment size (JSON names): segsize
// first, then the others by name, space-separated: "segsize=4096 inter_algo=tsp_kary";
// kDefaultsLabel for none.
std::string config_label(const Params& params);
constexpr const char* kDefaultsLabel = "defaults";
constexpr const char* kStockLabel = "stock";

}  // namespace hiertune
