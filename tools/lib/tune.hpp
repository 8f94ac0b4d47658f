// `hiertune tune`: the site admin's one command (no MPI here; the runner that
// launches the jobs is tools/src/tune_run.cpp).
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
//   (e) bench     the exhaustive sweep of the same space into the database
//   (f) report    lib/validation
//
// Every step is resumable through the database (calibrate, tasks and bench
// measure only what is missing; the others are cheap and recomputed).  This file holds the
// MPI-free parts: the options, the command lines of the jobs, the verify cases
// and the validation cases from the database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "han_model.hpp"
#include "measure_db.hpp"
#include "validation.hpp"

namespace hiertune {

struct TuneOptions {
    int ranks = 0;                                             // -n (> 1)
    std::optional<int> nodes;                                  // --nodes: MPIR_CVAR_NUM_CLIQUES (emulated)
    std::vector<std::string> collectives{"bcast", "allreduce"};
    std::vector<std::uint64_t> sizes;                          // > 0
    std::string configs;                                       // as tasks --config
    std::vector<std::uint64_t> segsizes;                       // > 0
    std::string db_path;
    std::string tree_path;
    std::string stock_path;
    std::string report_dir;
    std::string mpiexec;                                       // resolved by the runner
    std::vector<std::string> mpiexec_args;                     // e.g. -f hostfile
    std::vector<std::string> launcher;                         // --launcher words: replace mpiexec [args] -n N
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
    double rate_tolerance_percent = 10;  // step 0: calibrate --tolerance
    bool stock = true;  // measure the stock selection in step (a)
    han::ModelOptions model;
};

// Throws UsageError for: ranks < 2, nodes < 2 or > ranks, no or zero sizes,
// no or zero segment sizes, a collective other than bcast/allreduce (the task
// model covers those) or given twice, an invalid configuration spec (as tasks
// --config, seg_* refused: no stand-in), empty paths, a launcher together
// with nodes, mpiexec or mpiexec arguments.
void check_tune_options(const TuneOptions& options);

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

// Step (a): one `hiertune tasks` job with the --config given when all
// configurations share their launch variables, else one per configuration.
std::vector<Launch> tasks_launches(const TuneOptions& options, const std::string& hiertune);

// The `bench -a` spec of a configuration and the segment sizes:
// "hier:bcast_hier_segsize=4096/32768,bcast_hier_inter_algorithm=tsp_kary,...".
std::string bench_algorithm_spec(const std::string& collective, const Params& config,
                                 const std::vector<std::uint64_t>& segsizes);

// Step (e): one `hiertune bench --db` job per collective and launch group.
std::vector<Launch> bench_launches(const TuneOptions& options, const std::string& hiertune);

// Step (a), second half: the stock selection (`bench -a default`) of every
// collective and size, in one job (step "stock").  The model's pick is hier
// only where it predicts less than this measured time, so that a tuned tree
// never trades a measured stock time for a worse predicted one.
Launch stock_launch(const TuneOptions& options, const std::string& hiertune);

// The (collective, size) pairs of the options without a stored stock point,
// as "bcast 1024 B".
std::vector<std::string> missing_stock_points(const TuneOptions& options, const std::vector<StoredPoint>& points);

// What step (d) expects of one collective call under the tree.
struct VerifyCase {
    std::string collective;  // bcast, allreduce
    std::uint64_t msg_bytes = 0;
    bool hier = false;       // true: hier must run, with `segments` segments; false: any algorithm
    std::uint64_t segments = 0;
};
bool operator==(const VerifyCase& a, const VerifyCase& b);
// "bcast:16384:hier/4" or "allreduce:8:any".
std::string to_string(const VerifyCase& c);
// Inverse of to_string.  Throws UsageError.
VerifyCase parse_verify_case(const std::string& text);

// Step (d): the `hiertune verify` job, with the tree in the environment
// (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE = tree, which must be absolute).
Launch verify_launch(const TuneOptions& options, const std::string& hiertune, const std::string& tree,
                     const std::vector<VerifyCase>& cases);

// Whether a task-benchmarked candidate is in the search space (one of the
// configurations at one of the segment sizes).
bool in_search_space(const TuneOptions& options, const han::Candidate& candidate);

// The job tune's runs are filed under: machine and ranks match, nodes too when
// given; of several (another MPICH build), the newest.  nullopt if none.
std::optional<Job> find_tune_job(const std::vector<Job>& jobs, const TuneOptions& options);

// Label of a hier configuration with its segment size (JSON names): segsize
// first, then the others by name, space-separated: "segsize=4096 inter_algo=tsp_kary".
std::string config_label(const Params& params);
constexpr const char* kStockLabel = "stock";

// Steps (b) and (f) per collective: for every size, the model's pick (as
// generate --from model makes it, against the measured stock point if the
// database has one), the prediction of every candidate and the measured
// median of every configuration of the search space (hier points of the
// database with these parameters; "stock" added where the stock point of
// that size is measured).  The candidates come from the job's tasks table.
// A size where the model predicts nothing and no stock point exists is left
// out and named in `unpredicted`.
struct TuneCases {
    std::vector<SizeCase> cases;
    std::vector<VerifyCase> verify;
    std::vector<std::string> unpredicted;
};
TuneCases tune_cases(const TuneOptions& options, const std::vector<StoredTask>& tasks,
                     const std::vector<StoredPoint>& points, int nodes);

}  // namespace hiertune
