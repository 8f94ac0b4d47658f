// Measurement database of `hiertune bench` (SQLite, one file).
//
// The exhaustive sweep over (collective, size, algorithm, parameters) for one
// job writes each measured point as soon as it is known, so a run killed at
// any moment and restarted resumes with pending() and loses no point.
//
// Schema, version 6 (PRAGMA user_version = 6, PRAGMA application_id =
// kApplicationId, journal_mode = WAL, synchronous = FULL):
//
//   jobs    id          INTEGER PRIMARY KEY
//           machine     TEXT    NOT NULL   -- cluster/host name, free form
//           ranks       INTEGER NOT NULL   -- > 0
//           nodes       INTEGER NOT NULL   -- > 0
//           ppn         INTEGER NOT NULL   -- > 0, processes per node
//           placement   TEXT    NOT NULL   -- e.g. "block", "cyclic"
//           mpich_build TEXT    NOT NULL   -- version + configure options/commit
//           created_at  TEXT    NOT NULL   -- UTC ISO 8601, first run of the job
//           UNIQUE (machine, ranks, nodes, ppn, placement, mpich_build)
//
//   points  job_id      INTEGER NOT NULL REFERENCES jobs(id)
//           collective  TEXT    NOT NULL   -- e.g. "bcast"
//           msg_bytes   INTEGER NOT NULL   -- >= 0
//           algorithm   TEXT    NOT NULL
//           params      TEXT    NOT NULL   -- canonical_params(): "k=v;k=v", keys sorted, "" if none
//           n           INTEGER NOT NULL   -- > 0 repetitions
//           median, ci_lo, ci_hi, min, max, mean  REAL NOT NULL  -- seconds,
//                                          -- min <= ci_lo <= median <= ci_hi <= max
//           converged   INTEGER NOT NULL   -- 0/1
//           measured_at TEXT    NOT NULL   -- UTC ISO 8601
//           PRIMARY KEY (job_id, collective, msg_bytes, algorithm, params)
//
//   tasks   job_id      INTEGER NOT NULL REFERENCES jobs(id)      (version 2)
//           collective  TEXT    NOT NULL   -- "bcast", "allreduce"
//           task        TEXT    NOT NULL   -- HAN task: "ib", "sbib", "sb", "irsr", ...
//           config      TEXT    NOT NULL   -- canonical_params() of the configuration
//                                          -- without the segment size, "" if none
//           seg_bytes   INTEGER NOT NULL   -- > 0, segment size fs
//           leader      INTEGER NOT NULL   -- >= 0: node leader (0 = root's node);
//                                          -- -1 (kMaxOverLeaders): max over leaders
//           n, median, ci_lo, ci_hi, min, max, mean, converged, measured_at  as in points
//           PRIMARY KEY (job_id, collective, task, config, seg_bytes, leader)
//
//   step_times job_id   INTEGER NOT NULL REFERENCES jobs(id)      (version 3)
//           step        TEXT    NOT NULL   -- a step of `hiertune tune`: "tasks", "bench", ...
//           seconds     REAL    NOT NULL   -- >= 0, wall time of one run of the step
//           recorded_at TEXT    NOT NULL   -- UTC ISO 8601
//           (no key: a resumed step adds a row; its total is the sum)
//
//   calibration job_id  INTEGER NOT NULL REFERENCES jobs(id)      (version 4)
//           link        TEXT    NOT NULL   -- "0-1", "0-2", ...: node 0's leader to node k's; "intra"
//           latency     REAL    NOT NULL   -- >= 0 seconds, one way (median round trip / 2)
//           bandwidth   REAL    NOT NULL   -- > 0 bytes/s
//           n_latency, n_bandwidth INTEGER NOT NULL  -- > 0 repetitions
//           cluster     TEXT    NOT NULL   -- HIERTUNE_CLUSTER of the run, "" if unset
//           measured_at TEXT    NOT NULL   -- UTC ISO 8601
//           PRIMARY KEY (job_id, link); a rerun replaces the job's rows
//
//   tree_timings job_id INTEGER NOT NULL REFERENCES jobs(id)      (version 5)
//           tree        TEXT    NOT NULL   -- tree_digest() of the tree file timed
//           round       INTEGER NOT NULL   -- >= 1
//           variant     TEXT    NOT NULL   -- "tree" (the tree loaded) or "no-tree"
//           collective  TEXT    NOT NULL
//           msg_bytes   INTEGER NOT NULL   -- >= 0
//           n, median, ci_lo, ci_hi, min, max, mean, converged, measured_at  as in points
//           PRIMARY KEY (job_id, tree, round, variant, collective, msg_bytes);
//           a rerun of a round's job replaces its rows
//
//   fit_points job_id   INTEGER NOT NULL REFERENCES jobs(id)      (version 6)
//           kind        TEXT    NOT NULL   -- "gamma" or "experiment" (`hiertune fit`)
//           collective, algorithm, params  TEXT NOT NULL  -- "" for gamma
//           procs       INTEGER NOT NULL   -- > 1, processes taking part
//           msg_bytes   INTEGER NOT NULL   -- >= 0: the message (gamma: the segment)
//           gather_bytes INTEGER NOT NULL  -- >= 0: the linear gather after it (0: none)
//           n, median, ci_lo, ci_hi, min, max, mean, converged, measured_at  as in points
//           PRIMARY KEY (job_id, kind, collective, algorithm, params, procs, msg_bytes, gather_bytes)
//
//   fit_models job_id   INTEGER NOT NULL REFERENCES jobs(id)      (version 6)
//           collective, algorithm, params  TEXT NOT NULL  -- as fitted (params: the experiments')
//           procs       INTEGER NOT NULL   -- > 1, of the experiments
//           alpha, beta REAL    NOT NULL   -- seconds, seconds per byte
//           equations   INTEGER NOT NULL   -- > 1, experiments behind them
//           fitted_at   TEXT    NOT NULL   -- UTC ISO 8601
//           PRIMARY KEY (job_id, collective, algorithm); a refit replaces the row
//
//   shared_cores job_id INTEGER NOT NULL REFERENCES jobs(id)      (version 8)
//           hosts       TEXT    NOT NULL   -- a kernel's processor names, "mhe-n0, mhe-n1"
//           ranks       INTEGER NOT NULL   -- > cores: the job's ranks there
//           cores       INTEGER NOT NULL   -- > 0, its online cores
//           PRIMARY KEY (job_id, hosts); a later run of the job replaces its rows
//
// An older file gets the missing tables when opened (and becomes the current version).
//
// Each point is one INSERT in its own transaction: after a crash or SIGKILL a
// point is either entirely present or absent, never half-written.
//
// Not thread-safe; one MeasureDb per thread/process (never carried across
// fork()).  Several processes may share the file (busy timeout 10 s).
//
// SQLite through SQLiteCpp (libsqlitecpp-dev); its exceptions leave MeasureDb
// as DbError.  The code by concern: measure_db.cpp (schema, opening, upgrades),
// measure_db_points.cpp (jobs, points, best per size, resume),
// measure_db_tasks.cpp (task benchmarks), measure_db_tune.cpp (step times,
// calibration, tree timings), measure_db_rows.hpp/.cpp (what they share:
// summary columns, checks, error translation); the parameters' text form is
// params_codec.hpp's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hiertune/common/params_codec.hpp"
#include "hiertune/common/stats.hpp"
#include "hiertune/common/topology.hpp"

namespace SQLite {
class Database;
}

namespace hiertune {

// Any database failure: unreadable, corrupt, foreign or too new file, I/O errors.
class DbError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using JobId = std::int64_t;

// Identity of a job: rerunning the same description finds the same job.
struct JobDescription {
    std::string machine;
    int ranks = 0;
    int nodes = 0;
    int ppn = 0;
    std::string placement;
    std::string mpich_build;
};

struct Job {
    JobId id = 0;
    JobDescription description;
    std::string created_at;
};

struct PointKey {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::string algorithm;
    Params params;
};
bool operator==(const PointKey& a, const PointKey& b);
bool operator!=(const PointKey& a, const PointKey& b);
bool operator<(const PointKey& a, const PointKey& b);  // lexicographic, for sets/maps

struct StoredPoint {
    PointKey key;
    Summary summary;
    std::string measured_at;
};

// One task benchmark: a task of a collective's hierarchical algorithm in one
// configuration at one segment size.
struct TaskKey {
    std::string collective;
    std::string task;
    Params config;
    std::uint64_t seg_bytes = 0;
};
bool operator==(const TaskKey& a, const TaskKey& b);
bool operator<(const TaskKey& a, const TaskKey& b);

constexpr int kMaxOverLeaders = -1;

// The time of a task on one node leader, or the max over leaders.
struct TaskTiming {
    int leader = kMaxOverLeaders;
    Summary summary;
};

struct StoredTask {
    TaskKey key;
    std::vector<TaskTiming> timings;  // by leader (kMaxOverLeaders first)
    std::string measured_at;
};

// Point-to-point latency and bandwidth of one link (`hiertune calibrate`).
struct LinkCalibration {
    std::string link;          // "0-1", "0-2", ... (node 0's leader to node k's) or "intra"
    double latency = 0;        // seconds, one way
    double bandwidth = 0;      // bytes/s
    std::size_t n_latency = 0;    // repetitions behind each
    std::size_t n_bandwidth = 0;
};
bool operator==(const LinkCalibration& a, const LinkCalibration& b);

// A job's calibration: its links in the order measured (empty: none stored).
struct StoredCalibration {
    std::vector<LinkCalibration> links;
    std::string cluster;      // HIERTUNE_CLUSTER of the run, "" if unset
    std::string measured_at;  // UTC ISO 8601
};

// One (collective, size) of one job of tune's tree timing: the default
// selection (`bench -a default`) in round `round`, with the tree loaded
// (variant "tree") or without it ("no-tree").
struct TreeTiming {
    int round = 0;  // >= 1
    std::string variant;
    std::string collective;
    std::uint64_t msg_bytes = 0;
    Summary summary;
};
constexpr const char* kTreeVariant = "tree";
constexpr const char* kNoTreeVariant = "no-tree";
// The key of a tree's timings: FNV-1a (64 bits) of the tree file's bytes as
// 16 hex digits, so that a rerun with the same tree resumes and another tree
// is timed anew.
std::string tree_digest(std::string_view content);

// One measurement of `hiertune fit` (the analytic models, analytic_fit.hpp): a
// non-blocking linear fan-out of a msg_bytes segment from one process to
// procs - 1 (kind "gamma", no collective), or an experiment timing an algorithm
// of a collective on procs processes followed by a linear gather of
// gather_bytes from each to the root (kind "experiment").
struct FitKey {
    std::string kind;
    std::string collective;
    std::string algorithm;
    Params params;
    int procs = 0;
    std::uint64_t msg_bytes = 0;
    std::uint64_t gather_bytes = 0;
};
constexpr const char* kFitGamma = "gamma";
constexpr const char* kFitExperiment = "experiment";
bool operator==(const FitKey& a, const FitKey& b);
bool operator<(const FitKey& a, const FitKey& b);

struct StoredFitPoint {
    FitKey key;
    Summary summary;
};

// `hiertune fit`'s eager measurement of a message size: the time MPI_Send of msg_bytes
// took to return at the sender over half the round trip of the message there and back
// (about 1 where the send waits for the receiver, less where it does not:
// analytic::eager_limit; the median is stored).
struct StoredEagerPoint {
    std::uint64_t msg_bytes = 0;
    Summary summary;
};

// An algorithm's alpha and beta as `hiertune fit` solved them.
struct FittedModel {
    std::string collective;
    std::string algorithm;
    Params params;  // of its experiments
    int procs = 0;
    double alpha = 0;  // seconds
    double beta = 0;   // seconds per byte
    std::size_t equations = 0;
};

class MeasureDb {
public:
    static constexpr int kSchemaVersion = 8;
    static constexpr std::int32_t kApplicationId = 0x48547562;  // "HTub"

    // Opens the file, creating and initialising it if missing or empty.
    // Throws DbError (message names the path) if it cannot be opened, is not
    // an SQLite file, is an SQLite file of another application, or was
    // written by a newer schema version.
    static MeasureDb open(const std::string& path);

    MeasureDb(MeasureDb&&) noexcept;
    MeasureDb& operator=(MeasureDb&&) noexcept;
    ~MeasureDb();

    const std::string& path() const { return path_; }

    JobId find_or_create_job(const JobDescription& job);
    std::optional<Job> find_job(const JobDescription& job) const;
    std::vector<Job> jobs() const;  // by id

    bool has_point(JobId job, const PointKey& key) const;

    // Inserts the point; returns false (and keeps the stored one) if the key
    // is already recorded.  Throws std::invalid_argument for an inconsistent
    // summary (n == 0, non-finite or unordered values) or unknown job.
    bool record_point(JobId job, const PointKey& key, const Summary& summary);

    // All points of the job ordered by collective, msg_bytes, algorithm, params.
    std::vector<StoredPoint> points(JobId job) const;
    std::size_t count_points(JobId job) const;

    // Per message size (ascending), the point of `collective` with the lowest
    // median; ties go to fewer parameters, then algorithm name, then
    // canonical params (deterministic).  Converged or not: check the flag.
    std::vector<StoredPoint> best_per_size(JobId job, const std::string& collective) const;

    // The sweep points not yet recorded, in sweep order (what resume runs).
    std::vector<PointKey> pending(JobId job, const std::vector<PointKey>& sweep) const;

    // Inserts all timings of a task benchmark in one transaction (all or none);
    // returns false (and keeps the stored ones) if the key is already recorded.
    // Throws std::invalid_argument for no timings, a leader given twice or
    // < -1, seg_bytes == 0, an empty collective or task name, an inconsistent
    // summary or an unknown job.
    bool record_task(JobId job, const TaskKey& key, const std::vector<TaskTiming>& timings);
    bool has_task(JobId job, const TaskKey& key) const;
    // All task benchmarks of the job ordered by collective, task, config, seg_bytes.
    std::vector<StoredTask> tasks(JobId job) const;
    std::size_t count_tasks(JobId job) const;
    // The task benchmarks not yet recorded, in the order given (what resume runs).
    std::vector<TaskKey> pending_tasks(JobId job, const std::vector<TaskKey>& plan) const;

    // Wall time of one run of a step of `hiertune tune` (seconds >= 0, finite;
    // throws std::invalid_argument otherwise or for an empty step name or an
    // unknown job).
    void add_step_time(JobId job, const std::string& step, double seconds);
    // Per step, the total wall time of its runs (steps never recorded are absent).
    std::map<std::string, double> step_times(JobId job) const;

    // Replaces the job's calibration by `links` (in this order) in one
    // transaction.  Throws std::invalid_argument for no links, an empty or
    // repeated link name, a latency not finite and >= 0, a bandwidth not
    // finite and > 0, a repetition count 0 or an unknown job.
    void record_calibration(JobId job, const std::vector<LinkCalibration>& links, const std::string& cluster);
    StoredCalibration calibration(JobId job) const;

    // Stores the timings of a tree (`tree`: its tree_digest()) in one
    // transaction, each replacing a stored row of the same key.  Throws
    // std::invalid_argument for an empty tree, a round < 1, a variant other
    // than "tree"/"no-tree", an empty collective, an inconsistent summary or
    // an unknown job.
    void record_tree_timings(JobId job, const std::string& tree, const std::vector<TreeTiming>& timings);
    // The tree's timings ordered by collective, msg_bytes, variant, round.
    std::vector<TreeTiming> tree_timings(JobId job, const std::string& tree) const;

    // The hosts where the job's last run had more ranks than cores (bench and
    // calibrate record them; none: every rank had a core), replacing what an
    // earlier run recorded.  Throws std::invalid_argument for an empty or repeated
    // host, ranks not above cores, cores < 1, or an unknown job.
    void record_shared_cores(JobId job, const std::vector<HostLoad>& hosts);
    std::vector<HostLoad> shared_cores(JobId job) const;  // in the order recorded

    // `hiertune fit`'s measurements: as record_point (false: already stored).
    // Throws std::invalid_argument for an unknown kind, a gamma point with a
    // collective, an experiment without one, procs < 2, an inconsistent summary
    // or an unknown job.
    bool record_fit_point(JobId job, const FitKey& key, const Summary& summary);
    std::vector<StoredFitPoint> fit_points(JobId job) const;  // ordered by key
    std::vector<FitKey> pending_fit_points(JobId job, const std::vector<FitKey>& plan) const;
    // The eager measurements (schema version 7), as record_point; msg_bytes > 0.
    bool record_eager_point(JobId job, std::uint64_t msg_bytes, const Summary& summary);
    std::vector<StoredEagerPoint> eager_points(JobId job) const;  // by msg_bytes
    // Stores a fitted model, replacing the job's model of the same (collective,
    // algorithm).  Throws std::invalid_argument for empty names, procs < 2, fewer
    // than 2 equations, non-finite alpha or beta, or an unknown job.
    void record_fit_model(JobId job, const FittedModel& model);
    std::vector<FittedModel> fit_models(JobId job) const;  // by collective, algorithm

    // PRAGMA integrity_check: "ok" or the problems found.
    std::string integrity_check() const;

private:
    MeasureDb(std::string path, std::unique_ptr<SQLite::Database> db);

    std::string path_;
    std::unique_ptr<SQLite::Database> db_;  // SQLiteCpp's connection
};

}  // namespace hiertune
