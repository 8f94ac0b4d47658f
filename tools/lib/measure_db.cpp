#include "hiertune/measure_db.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

namespace hiertune {

bool operator==(const PointKey& a, const PointKey& b) {
    return std::tie(a.collective, a.msg_bytes, a.algorithm, a.params) ==
           std::tie(b.collective, b.msg_bytes, b.algorithm, b.params);
}
bool operator!=(const PointKey& a, const PointKey& b) { return !(a == b); }
bool operator<(const PointKey& a, const PointKey& b) {
    return std::tie(a.collective, a.msg_bytes, a.algorithm, a.params) <
           std::tie(b.collective, b.msg_bytes, b.algorithm, b.params);
}

bool operator==(const TaskKey& a, const TaskKey& b) {
    return std::tie(a.collective, a.task, a.config, a.seg_bytes) ==
           std::tie(b.collective, b.task, b.config, b.seg_bytes);
}
bool operator<(const TaskKey& a, const TaskKey& b) {
    return std::tie(a.collective, a.task, a.config, a.seg_bytes) <
           std::tie(b.collective, b.task, b.config, b.seg_bytes);
}

// ---------------------------------------------------------------- SQLite RAII

namespace {

std::string describe(const std::string& path) { return "measurement database '" + path + "'"; }

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& what) {
    throw DbError(describe(path) + ": " + what + ": " + sqlite3_errmsg(db));
}

class Statement {
public:
    Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
            sqlite3_finalize(stmt_);
            fail(db, path, "cannot prepare query");
        }
    }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(stmt_); }

    Statement& bind(int index, std::int64_t value) {
        check_bind(sqlite3_bind_int64(stmt_, index, value));
        return *this;
    }
    Statement& bind(int index, double value) {
        check_bind(sqlite3_bind_double(stmt_, index, value));
        return *this;
    }
    Statement& bind(int index, const std::string& value) {
        check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                     SQLITE_TRANSIENT));
        return *this;
    }

    // True while a result row is available.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, path_, std::string("query failed (") + sqlite3_sql(stmt_) + ")");
    }

    std::int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
    double real(int column) const { return sqlite3_column_double(stmt_, column); }
    std::string text(int column) const {
        const auto* data = sqlite3_column_text(stmt_, column);
        return data ? std::string(reinterpret_cast<const char*>(data),
                                  static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
                    : std::string();
    }

private:
    void check_bind(int rc) {
        if (rc != SQLITE_OK) fail(db_, path_, "cannot bind query parameter");
    }

    sqlite3* db_;
    const std::string& path_;
    sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const char* sql) {
    Statement statement(db, path, sql);
    while (statement.step()) {
    }
}

// BEGIN IMMEDIATE takes the write lock up front, so a read-then-write
// transaction cannot fail half-way on a lock upgrade.  Rolled back unless
// committed.
class Transaction {
public:
    Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
        exec(db_, path_, "BEGIN IMMEDIATE");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction() {
        if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
        exec(db_, path_, "COMMIT");
        open_ = false;
    }

private:
    sqlite3* db_;
    const std::string& path_;
    bool open_ = true;
};

// ---------------------------------------------------------------- schema

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE jobs (
    id          INTEGER PRIMARY KEY,
    machine     TEXT    NOT NULL,
    ranks       INTEGER NOT NULL CHECK (ranks > 0),
    nodes       INTEGER NOT NULL CHECK (nodes > 0),
    ppn         INTEGER NOT NULL CHECK (ppn > 0),
    placement   TEXT    NOT NULL,
    mpich_build TEXT    NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (machine, ranks, nodes, ppn, placement, mpich_build)
);
CREATE TABLE points (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    collective  TEXT    NOT NULL,
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
    algorithm   TEXT    NOT NULL,
    params      TEXT    NOT NULL,
    n           INTEGER NOT NULL CHECK (n > 0),
    median      REAL    NOT NULL,
    ci_lo       REAL    NOT NULL,
    ci_hi       REAL    NOT NULL,
    min         REAL    NOT NULL,
    max         REAL    NOT NULL,
    mean        REAL    NOT NULL,
    converged   INTEGER NOT NULL CHECK (converged IN (0, 1)),
    measured_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (job_id, collective, msg_bytes, algorithm, params),
    CHECK (min <= ci_lo AND ci_lo <= median AND median <= ci_hi AND ci_hi <= max)
);
)sql";

// Version 2: task benchmarks of the HAN cost model.
constexpr const char* kCreateTasks = R"sql(
CREATE TABLE tasks (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    collective  TEXT    NOT NULL,
    task        TEXT    NOT NULL,
    config      TEXT    NOT NULL,
    seg_bytes   INTEGER NOT NULL CHECK (seg_bytes > 0),
    leader      INTEGER NOT NULL CHECK (leader >= -1),
    n           INTEGER NOT NULL CHECK (n > 0),
    median      REAL    NOT NULL,
    ci_lo       REAL    NOT NULL,
    ci_hi       REAL    NOT NULL,
    min         REAL    NOT NULL,
    max         REAL    NOT NULL,
    mean        REAL    NOT NULL,
    converged   INTEGER NOT NULL CHECK (converged IN (0, 1)),
    measured_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (job_id, collective, task, config, seg_bytes, leader),
    CHECK (min <= ci_lo AND ci_lo <= median AND median <= ci_hi AND ci_hi <= max)
);
)sql";

// Version 3: wall time of each step of `hiertune tune`, one row per run of a
// step (a resumed step adds a row; the step's total is the sum).
constexpr const char* kCreateStepTimes = R"sql(
CREATE TABLE IF NOT EXISTS step_times (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    step        TEXT    NOT NULL CHECK (step <> ''),
    seconds     REAL    NOT NULL CHECK (seconds >= 0),
    recorded_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
)sql";

// Version 4: point-to-point latency and bandwidth per link (`hiertune calibrate`).
constexpr const char* kCreateCalibration = R"sql(
CREATE TABLE IF NOT EXISTS calibration (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    link        TEXT    NOT NULL CHECK (link <> ''),
    latency     REAL    NOT NULL CHECK (latency >= 0),
    bandwidth   REAL    NOT NULL CHECK (bandwidth > 0),
    n_latency   INTEGER NOT NULL CHECK (n_latency > 0),
    n_bandwidth INTEGER NOT NULL CHECK (n_bandwidth > 0),
    cluster     TEXT    NOT NULL,
    measured_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (job_id, link)
);
)sql";

// Version 5: tune's timing of its tree as loaded against no tree, per round.
constexpr const char* kCreateTreeTimings = R"sql(
CREATE TABLE IF NOT EXISTS tree_timings (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    tree        TEXT    NOT NULL CHECK (tree <> ''),
    round       INTEGER NOT NULL CHECK (round >= 1),
    variant     TEXT    NOT NULL CHECK (variant IN ('tree', 'no-tree')),
    collective  TEXT    NOT NULL CHECK (collective <> ''),
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
    n           INTEGER NOT NULL CHECK (n > 0),
    median      REAL    NOT NULL,
    ci_lo       REAL    NOT NULL,
    ci_hi       REAL    NOT NULL,
    min         REAL    NOT NULL,
    max         REAL    NOT NULL,
    mean        REAL    NOT NULL,
    converged   INTEGER NOT NULL CHECK (converged IN (0, 1)),
    measured_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (job_id, tree, round, variant, collective, msg_bytes),
    CHECK (min <= ci_lo AND ci_lo <= median AND median <= ci_hi AND ci_hi <= max)
);
)sql";

struct FileState {
    std::int64_t application_id = 0;
    std::int64_t user_version = 0;
    std::int64_t schema_objects = 0;
    bool blank() const { return application_id == 0 && user_version == 0 && schema_objects == 0; }
};

std::int64_t single_integer(sqlite3* db, const std::string& path, const char* sql) {
    Statement statement(db, path, sql);
    if (!statement.step()) throw DbError(describe(path) + ": no result for " + sql);
    return statement.int64(0);
}

FileState read_file_state(sqlite3* db, const std::string& path) {
    FileState state;
    state.application_id = single_integer(db, path, "PRAGMA application_id");
    state.user_version = single_integer(db, path, "PRAGMA user_version");
    state.schema_objects = single_integer(db, path, "SELECT count(*) FROM sqlite_master");
    return state;
}

void set_wal_mode(sqlite3* db, const std::string& path) {
    Statement statement(db, path, "PRAGMA journal_mode=WAL");
    const std::string mode = statement.step() ? statement.text(0) : std::string();
    if (mode != "wal")
        throw DbError(describe(path) + ": cannot switch to WAL journal mode (got '" + mode + "')");
}

void initialise_if_blank(sqlite3* db, const std::string& path) {
    set_wal_mode(db, path);  // must happen outside a transaction
    Transaction transaction(db, path);
    // Re-check under the write lock: another process may have won the race.
    if (!read_file_state(db, path).blank()) return;
    if (sqlite3_exec(db, kCreateSchema, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_exec(db, kCreateTasks, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_exec(db, kCreateStepTimes, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_exec(db, kCreateCalibration, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_exec(db, kCreateTreeTimings, nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, path, "cannot create schema");
    exec(db, path, ("PRAGMA application_id=" + std::to_string(MeasureDb::kApplicationId)).c_str());
    exec(db, path, ("PRAGMA user_version=" + std::to_string(MeasureDb::kSchemaVersion)).c_str());
    transaction.commit();
}

// Version 1 -> 2: add the tasks table; 2 -> 3: the step_times table; 3 -> 4:
// the calibration table; 4 -> 5: the tree_timings table; points and jobs are
// untouched.
void upgrade_if_old(sqlite3* db, const std::string& path) {
    Transaction transaction(db, path);
    // Re-check under the write lock: another process may have upgraded it.
    const std::int64_t version = read_file_state(db, path).user_version;
    if (version >= MeasureDb::kSchemaVersion) return;
    if (version < 2 && sqlite3_exec(db, kCreateTasks, nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, path, "cannot add the tasks table (schema version 1 -> 2)");
    if (version < 3 && sqlite3_exec(db, kCreateStepTimes, nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, path, "cannot add the step_times table (schema version " + std::to_string(version) + " -> 3)");
    if (version < 4 && sqlite3_exec(db, kCreateCalibration, nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, path, "cannot add the calibration table (schema version " + std::to_string(version) + " -> 4)");
    if (version < 5 && sqlite3_exec(db, kCreateTreeTimings, nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, path, "cannot add the tree_timings table (schema version " + std::to_string(version) + " -> 5)");
    exec(db, path, ("PRAGMA user_version=" + std::to_string(MeasureDb::kSchemaVersion)).c_str());
    transaction.commit();
}

void check_ours(const FileState& state, const std::string& path) {
    if (state.application_id != MeasureDb::kApplicationId) {
        std::ostringstream message;
        message << describe(path) << ": not a hiertune measurement database (SQLite application_id 0x"
                << std::hex << state.application_id << ", expected 0x" << MeasureDb::kApplicationId << ")";
        throw DbError(message.str());
    }
    if (state.user_version > MeasureDb::kSchemaVersion)
        throw DbError(describe(path) + ": written by a newer hiertune (schema version " +
                      std::to_string(state.user_version) + ", this program supports up to " +
                      std::to_string(MeasureDb::kSchemaVersion) + ")");
    if (state.user_version < 1)
        throw DbError(describe(path) + ": invalid schema version " + std::to_string(state.user_version));
}

// ---------------------------------------------------------------- validation

std::int64_t to_db_bytes(std::uint64_t msg_bytes) {
    if (msg_bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument("message size too large: " + std::to_string(msg_bytes));
    return static_cast<std::int64_t>(msg_bytes);
}

void check_key(const PointKey& key) {
    if (key.collective.empty()) throw std::invalid_argument("point without a collective name");
    if (key.algorithm.empty()) throw std::invalid_argument("point without an algorithm name");
    to_db_bytes(key.msg_bytes);
}

void check_summary(const Summary& s) {
    if (s.n == 0) throw std::invalid_argument("summary with no samples");
    for (double value : {s.median, s.ci_lo, s.ci_hi, s.min, s.max, s.mean})
        if (!std::isfinite(value)) throw std::invalid_argument("summary with a non-finite value");
    if (!(s.min <= s.ci_lo && s.ci_lo <= s.median && s.median <= s.ci_hi && s.ci_hi <= s.max))
        throw std::invalid_argument("summary values not ordered min <= ci_lo <= median <= ci_hi <= max");
}

void check_job_description(const JobDescription& job) {
    if (job.ranks <= 0 || job.nodes <= 0 || job.ppn <= 0)
        throw std::invalid_argument("job ranks, nodes and ppn must be positive");
}

// Binds the identity columns of a job at indexes first..first+5.
void bind_job(Statement& statement, int first, const JobDescription& job) {
    statement.bind(first, job.machine)
        .bind(first + 1, static_cast<std::int64_t>(job.ranks))
        .bind(first + 2, static_cast<std::int64_t>(job.nodes))
        .bind(first + 3, static_cast<std::int64_t>(job.ppn))
        .bind(first + 4, job.placement)
        .bind(first + 5, job.mpich_build);
}

constexpr const char* kJobColumns =
    "SELECT id, machine, ranks, nodes, ppn, placement, mpich_build, created_at FROM jobs";

Job read_job(const Statement& row) {
    Job job;
    job.id = row.int64(0);
    job.description.machine = row.text(1);
    job.description.ranks = static_cast<int>(row.int64(2));
    job.description.nodes = static_cast<int>(row.int64(3));
    job.description.ppn = static_cast<int>(row.int64(4));
    job.description.placement = row.text(5);
    job.description.mpich_build = row.text(6);
    job.created_at = row.text(7);
    return job;
}

constexpr const char* kPointColumns =
    "SELECT collective, msg_bytes, algorithm, params, n, median, ci_lo, ci_hi, min, max, mean, "
    "converged, measured_at FROM points";

StoredPoint read_point(const Statement& row) {
    StoredPoint point;
    point.key.collective = row.text(0);
    point.key.msg_bytes = static_cast<std::uint64_t>(row.int64(1));
    point.key.algorithm = row.text(2);
    point.key.params = parse_params(row.text(3));
    point.summary.n = static_cast<std::size_t>(row.int64(4));
    point.summary.median = row.real(5);
    point.summary.ci_lo = row.real(6);
    point.summary.ci_hi = row.real(7);
    point.summary.min = row.real(8);
    point.summary.max = row.real(9);
    point.summary.mean = row.real(10);
    point.summary.converged = row.int64(11) != 0;
    point.measured_at = row.text(12);
    return point;
}

}  // namespace

// ---------------------------------------------------------------- MeasureDb

void MeasureDb::CloseConnection::operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }

MeasureDb::MeasureDb(std::string path, std::unique_ptr<sqlite3, CloseConnection> db)
    : path_(std::move(path)), db_(std::move(db)) {}
MeasureDb::MeasureDb(MeasureDb&&) noexcept = default;
MeasureDb& MeasureDb::operator=(MeasureDb&&) noexcept = default;
MeasureDb::~MeasureDb() = default;

MeasureDb MeasureDb::open(const std::string& path) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    std::unique_ptr<sqlite3, CloseConnection> db(raw);  // a handle is returned even on failure
    if (rc != SQLITE_OK)
        throw DbError(describe(path) + ": cannot open: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    sqlite3_busy_timeout(raw, 10000);

    // Look before touching: a foreign file must not be converted to WAL or get our tables.
    FileState state;
    try {
        state = read_file_state(raw, path);
    } catch (const DbError&) {
        throw DbError(describe(path) + ": cannot read (corrupt or not an SQLite file?): " +
                      sqlite3_errmsg(raw));
    }
    if (state.blank()) {
        initialise_if_blank(raw, path);
        state = read_file_state(raw, path);
    }
    check_ours(state, path);

    set_wal_mode(raw, path);
    if (state.user_version < kSchemaVersion) upgrade_if_old(raw, path);
    // FULL: a committed point survives power loss too, at one fsync per point,
    // which is negligible next to measuring it.
    exec(raw, path, "PRAGMA synchronous=FULL");
    exec(raw, path, "PRAGMA foreign_keys=ON");
    return MeasureDb(path, std::move(db));
}

JobId MeasureDb::find_or_create_job(const JobDescription& job) {
    check_job_description(job);
    Transaction transaction(db_.get(), path_);
    {
        Statement insert(db_.get(), path_,
                         "INSERT INTO jobs (machine, ranks, nodes, ppn, placement, mpich_build) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING");
        bind_job(insert, 1, job);
        insert.step();
    }
    const std::optional<Job> found = find_job(job);
    if (!found) throw DbError(describe(path_) + ": job vanished right after insertion");
    transaction.commit();
    return found->id;
}

std::optional<Job> MeasureDb::find_job(const JobDescription& job) const {
    Statement select(db_.get(), path_,
                     (std::string(kJobColumns) +
                      " WHERE machine = ?1 AND ranks = ?2 AND nodes = ?3 AND ppn = ?4"
                      " AND placement = ?5 AND mpich_build = ?6")
                         .c_str());
    bind_job(select, 1, job);
    if (!select.step()) return std::nullopt;
    return read_job(select);
}

std::vector<Job> MeasureDb::jobs() const {
    Statement select(db_.get(), path_, (std::string(kJobColumns) + " ORDER BY id").c_str());
    std::vector<Job> result;
    while (select.step()) result.push_back(read_job(select));
    return result;
}

bool MeasureDb::has_point(JobId job, const PointKey& key) const {
    check_key(key);
    Statement select(db_.get(), path_,
                     "SELECT 1 FROM points WHERE job_id = ?1 AND collective = ?2 AND msg_bytes = ?3"
                     " AND algorithm = ?4 AND params = ?5");
    select.bind(1, job)
        .bind(2, key.collective)
        .bind(3, to_db_bytes(key.msg_bytes))
        .bind(4, key.algorithm)
        .bind(5, canonical_params(key.params));
    return select.step();
}

bool MeasureDb::record_point(JobId job, const PointKey& key, const Summary& summary) {
    check_key(key);
    check_summary(summary);
    const std::string params = canonical_params(key.params);

    // One transaction per point: the row is atomic and durable at commit.
    Transaction transaction(db_.get(), path_);
    {
        Statement job_exists(db_.get(), path_, "SELECT 1 FROM jobs WHERE id = ?1");
        job_exists.bind(1, job);
        if (!job_exists.step()) throw std::invalid_argument("unknown job id " + std::to_string(job));
    }

    Statement insert(db_.get(), path_,
                     "INSERT INTO points (job_id, collective, msg_bytes, algorithm, params, n, median,"
                     " ci_lo, ci_hi, min, max, mean, converged)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                     " ON CONFLICT DO NOTHING");
    insert.bind(1, job)
        .bind(2, key.collective)
        .bind(3, to_db_bytes(key.msg_bytes))
        .bind(4, key.algorithm)
        .bind(5, params)
        .bind(6, static_cast<std::int64_t>(summary.n))
        .bind(7, summary.median)
        .bind(8, summary.ci_lo)
        .bind(9, summary.ci_hi)
        .bind(10, summary.min)
        .bind(11, summary.max)
        .bind(12, summary.mean)
        .bind(13, static_cast<std::int64_t>(summary.converged ? 1 : 0));
    insert.step();
    const bool inserted = sqlite3_changes(db_.get()) == 1;
    transaction.commit();
    return inserted;
}

std::vector<StoredPoint> MeasureDb::points(JobId job) const {
    Statement select(db_.get(), path_,
                     (std::string(kPointColumns) +
                      " WHERE job_id = ?1 ORDER BY collective, msg_bytes, algorithm, params")
                         .c_str());
    select.bind(1, job);
    std::vector<StoredPoint> result;
    while (select.step()) result.push_back(read_point(select));
    return result;
}

std::size_t MeasureDb::count_points(JobId job) const {
    Statement select(db_.get(), path_, "SELECT count(*) FROM points WHERE job_id = ?1");
    select.bind(1, job);
    select.step();
    return static_cast<std::size_t>(select.int64(0));
}

std::vector<StoredPoint> MeasureDb::best_per_size(JobId job, const std::string& collective) const {
    Statement select(db_.get(), path_,
                     (std::string(kPointColumns) +
                      " WHERE job_id = ?1 AND collective = ?2 ORDER BY msg_bytes")
                         .c_str());
    select.bind(1, job).bind(2, collective);

    const auto better = [](const StoredPoint& a, const StoredPoint& b) {
        if (a.summary.median != b.summary.median) return a.summary.median < b.summary.median;
        if (a.key.params.size() != b.key.params.size()) return a.key.params.size() < b.key.params.size();
        if (a.key.algorithm != b.key.algorithm) return a.key.algorithm < b.key.algorithm;
        return canonical_params(a.key.params) < canonical_params(b.key.params);
    };
    std::vector<StoredPoint> best;
    while (select.step()) {
        StoredPoint point = read_point(select);
        if (best.empty() || best.back().key.msg_bytes != point.key.msg_bytes)
            best.push_back(std::move(point));
        else if (better(point, best.back()))
            best.back() = std::move(point);
    }
    return best;
}

std::vector<PointKey> MeasureDb::pending(JobId job, const std::vector<PointKey>& sweep) const {
    using StoredKey = std::tuple<std::string, std::int64_t, std::string, std::string>;
    std::set<StoredKey> recorded;
    Statement select(db_.get(), path_,
                     "SELECT collective, msg_bytes, algorithm, params FROM points WHERE job_id = ?1");
    select.bind(1, job);
    while (select.step())
        recorded.emplace(select.text(0), select.int64(1), select.text(2), select.text(3));

    std::vector<PointKey> result;
    for (const PointKey& key : sweep) {
        check_key(key);
        const StoredKey stored{key.collective, to_db_bytes(key.msg_bytes), key.algorithm,
                               canonical_params(key.params)};
        if (recorded.count(stored) == 0) result.push_back(key);
    }
    return result;
}

namespace {

void check_task_key(const TaskKey& key) {
    if (key.collective.empty()) throw std::invalid_argument("task benchmark without a collective name");
    if (key.task.empty()) throw std::invalid_argument("task benchmark without a task name");
    if (key.seg_bytes == 0) throw std::invalid_argument("task benchmark with segment size 0");
    to_db_bytes(key.seg_bytes);
}

// Binds collective, task, config, seg_bytes at indexes first..first+3.
void bind_task_key(Statement& statement, int first, const TaskKey& key) {
    statement.bind(first, key.collective)
        .bind(first + 1, key.task)
        .bind(first + 2, canonical_params(key.config))
        .bind(first + 3, to_db_bytes(key.seg_bytes));
}

}  // namespace

bool MeasureDb::record_task(JobId job, const TaskKey& key, const std::vector<TaskTiming>& timings) {
    check_task_key(key);
    if (timings.empty()) throw std::invalid_argument("task benchmark without timings");
    std::set<int> leaders;
    for (const TaskTiming& timing : timings) {
        if (timing.leader < kMaxOverLeaders)
            throw std::invalid_argument("invalid leader index " + std::to_string(timing.leader));
        if (!leaders.insert(timing.leader).second)
            throw std::invalid_argument("leader " + std::to_string(timing.leader) + " given twice");
        check_summary(timing.summary);
    }

    // One transaction per task benchmark: all its leaders or none.
    Transaction transaction(db_.get(), path_);
    {
        Statement job_exists(db_.get(), path_, "SELECT 1 FROM jobs WHERE id = ?1");
        job_exists.bind(1, job);
        if (!job_exists.step()) throw std::invalid_argument("unknown job id " + std::to_string(job));
    }
    {
        Statement exists(db_.get(), path_,
                         "SELECT 1 FROM tasks WHERE job_id = ?1 AND collective = ?2 AND task = ?3"
                         " AND config = ?4 AND seg_bytes = ?5");
        exists.bind(1, job);
        bind_task_key(exists, 2, key);
        if (exists.step()) return false;  // rolled back: nothing written
    }
    for (const TaskTiming& timing : timings) {
        Statement insert(db_.get(), path_,
                         "INSERT INTO tasks (job_id, collective, task, config, seg_bytes, leader, n, median,"
                         " ci_lo, ci_hi, min, max, mean, converged)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
        insert.bind(1, job);
        bind_task_key(insert, 2, key);
        const Summary& s = timing.summary;
        insert.bind(6, static_cast<std::int64_t>(timing.leader))
            .bind(7, static_cast<std::int64_t>(s.n))
            .bind(8, s.median)
            .bind(9, s.ci_lo)
            .bind(10, s.ci_hi)
            .bind(11, s.min)
            .bind(12, s.max)
            .bind(13, s.mean)
            .bind(14, static_cast<std::int64_t>(s.converged ? 1 : 0));
        insert.step();
    }
    transaction.commit();
    return true;
}

bool MeasureDb::has_task(JobId job, const TaskKey& key) const {
    check_task_key(key);
    Statement select(db_.get(), path_,
                     "SELECT 1 FROM tasks WHERE job_id = ?1 AND collective = ?2 AND task = ?3"
                     " AND config = ?4 AND seg_bytes = ?5");
    select.bind(1, job);
    bind_task_key(select, 2, key);
    return select.step();
}

std::vector<StoredTask> MeasureDb::tasks(JobId job) const {
    Statement select(db_.get(), path_,
                     "SELECT collective, task, config, seg_bytes, leader, n, median, ci_lo, ci_hi, min, max,"
                     " mean, converged, measured_at FROM tasks WHERE job_id = ?1"
                     " ORDER BY collective, task, config, seg_bytes, leader");
    select.bind(1, job);
    std::vector<StoredTask> result;
    while (select.step()) {
        TaskKey key;
        key.collective = select.text(0);
        key.task = select.text(1);
        key.config = parse_params(select.text(2));
        key.seg_bytes = static_cast<std::uint64_t>(select.int64(3));
        TaskTiming timing;
        timing.leader = static_cast<int>(select.int64(4));
        timing.summary.n = static_cast<std::size_t>(select.int64(5));
        timing.summary.median = select.real(6);
        timing.summary.ci_lo = select.real(7);
        timing.summary.ci_hi = select.real(8);
        timing.summary.min = select.real(9);
        timing.summary.max = select.real(10);
        timing.summary.mean = select.real(11);
        timing.summary.converged = select.int64(12) != 0;
        if (result.empty() || !(result.back().key == key))
            result.push_back(StoredTask{std::move(key), {}, select.text(13)});
        result.back().timings.push_back(timing);
    }
    return result;
}

void MeasureDb::add_step_time(JobId job, const std::string& step, double seconds) {
    if (step.empty()) throw std::invalid_argument("step time without a step name");
    if (!std::isfinite(seconds) || seconds < 0)
        throw std::invalid_argument("step time must be finite and >= 0");
    Transaction transaction(db_.get(), path_);
    {
        Statement job_exists(db_.get(), path_, "SELECT 1 FROM jobs WHERE id = ?1");
        job_exists.bind(1, job);
        if (!job_exists.step()) throw std::invalid_argument("unknown job id " + std::to_string(job));
    }
    Statement insert(db_.get(), path_, "INSERT INTO step_times (job_id, step, seconds) VALUES (?1, ?2, ?3)");
    insert.bind(1, job).bind(2, step).bind(3, seconds);
    insert.step();
    transaction.commit();
}

std::map<std::string, double> MeasureDb::step_times(JobId job) const {
    Statement select(db_.get(), path_,
                     "SELECT step, sum(seconds) FROM step_times WHERE job_id = ?1 GROUP BY step ORDER BY step");
    select.bind(1, job);
    std::map<std::string, double> result;
    while (select.step()) result[select.text(0)] = select.real(1);
    return result;
}

std::size_t MeasureDb::count_tasks(JobId job) const {
    Statement select(db_.get(), path_,
                     "SELECT count(*) FROM (SELECT DISTINCT collective, task, config, seg_bytes"
                     " FROM tasks WHERE job_id = ?1)");
    select.bind(1, job);
    select.step();
    return static_cast<std::size_t>(select.int64(0));
}

std::vector<TaskKey> MeasureDb::pending_tasks(JobId job, const std::vector<TaskKey>& plan) const {
    using StoredKey = std::tuple<std::string, std::string, std::string, std::int64_t>;
    std::set<StoredKey> recorded;
    Statement select(db_.get(), path_,
                     "SELECT DISTINCT collective, task, config, seg_bytes FROM tasks WHERE job_id = ?1");
    select.bind(1, job);
    while (select.step()) recorded.emplace(select.text(0), select.text(1), select.text(2), select.int64(3));
    std::vector<TaskKey> result;
    for (const TaskKey& key : plan) {
        check_task_key(key);
        if (recorded.count(StoredKey{key.collective, key.task, canonical_params(key.config),
                                     to_db_bytes(key.seg_bytes)}) == 0)
            result.push_back(key);
    }
    return result;
}

bool operator==(const LinkCalibration& a, const LinkCalibration& b) {
    return std::tie(a.link, a.latency, a.bandwidth, a.n_latency, a.n_bandwidth) ==
           std::tie(b.link, b.latency, b.bandwidth, b.n_latency, b.n_bandwidth);
}

void MeasureDb::record_calibration(JobId job, const std::vector<LinkCalibration>& links,
                                   const std::string& cluster) {
    if (links.empty()) throw std::invalid_argument("calibration without links");
    std::set<std::string> names;
    for (const LinkCalibration& link : links) {
        if (link.link.empty()) throw std::invalid_argument("calibration of a link without a name");
        if (!names.insert(link.link).second) throw std::invalid_argument("link " + link.link + " given twice");
        if (!std::isfinite(link.latency) || link.latency < 0)
            throw std::invalid_argument("link " + link.link + ": latency must be finite and >= 0");
        if (!std::isfinite(link.bandwidth) || link.bandwidth <= 0)
            throw std::invalid_argument("link " + link.link + ": bandwidth must be finite and > 0");
        if (link.n_latency == 0 || link.n_bandwidth == 0)
            throw std::invalid_argument("link " + link.link + ": no repetitions");
    }
    // One transaction: the job's old calibration or the new one, never a mix.
    Transaction transaction(db_.get(), path_);
    {
        Statement job_exists(db_.get(), path_, "SELECT 1 FROM jobs WHERE id = ?1");
        job_exists.bind(1, job);
        if (!job_exists.step()) throw std::invalid_argument("unknown job id " + std::to_string(job));
    }
    {
        Statement remove(db_.get(), path_, "DELETE FROM calibration WHERE job_id = ?1");
        remove.bind(1, job);
        remove.step();
    }
    for (const LinkCalibration& link : links) {
        Statement insert(db_.get(), path_,
                         "INSERT INTO calibration (job_id, link, latency, bandwidth, n_latency, n_bandwidth, cluster)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        insert.bind(1, job)
            .bind(2, link.link)
            .bind(3, link.latency)
            .bind(4, link.bandwidth)
            .bind(5, static_cast<std::int64_t>(link.n_latency))
            .bind(6, static_cast<std::int64_t>(link.n_bandwidth))
            .bind(7, cluster);
        insert.step();
    }
    transaction.commit();
}

StoredCalibration MeasureDb::calibration(JobId job) const {
    // rowid: the order of insertion, which is the order measured
    Statement select(db_.get(), path_,
                     "SELECT link, latency, bandwidth, n_latency, n_bandwidth, cluster, measured_at"
                     " FROM calibration WHERE job_id = ?1 ORDER BY rowid");
    select.bind(1, job);
    StoredCalibration result;
    while (select.step()) {
        result.links.push_back(LinkCalibration{select.text(0), select.real(1), select.real(2),
                                               static_cast<std::size_t>(select.int64(3)),
                                               static_cast<std::size_t>(select.int64(4))});
        result.cluster = select.text(5);
        result.measured_at = select.text(6);
    }
    return result;
}

std::string tree_digest(std::string_view content) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : content) {
        hash ^= c;
        hash *= 0x100000001b3ull;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

void MeasureDb::record_tree_timings(JobId job, const std::string& tree, const std::vector<TreeTiming>& timings) {
    if (tree.empty()) throw std::invalid_argument("tree timings without a tree digest");
    for (const TreeTiming& timing : timings) {
        if (timing.round < 1) throw std::invalid_argument("tree timing round must be >= 1");
        if (timing.variant != kTreeVariant && timing.variant != kNoTreeVariant)
            throw std::invalid_argument("tree timing variant '" + timing.variant + "': must be tree or no-tree");
        if (timing.collective.empty()) throw std::invalid_argument("tree timing without a collective name");
        to_db_bytes(timing.msg_bytes);
        check_summary(timing.summary);
    }
    // One transaction per job's timings: a killed tune keeps whole jobs only.
    Transaction transaction(db_.get(), path_);
    {
        Statement job_exists(db_.get(), path_, "SELECT 1 FROM jobs WHERE id = ?1");
        job_exists.bind(1, job);
        if (!job_exists.step()) throw std::invalid_argument("unknown job id " + std::to_string(job));
    }
    for (const TreeTiming& timing : timings) {
        Statement insert(db_.get(), path_,
                         "INSERT OR REPLACE INTO tree_timings (job_id, tree, round, variant, collective, msg_bytes,"
                         " n, median, ci_lo, ci_hi, min, max, mean, converged)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
        const Summary& s = timing.summary;
        insert.bind(1, job)
            .bind(2, tree)
            .bind(3, static_cast<std::int64_t>(timing.round))
            .bind(4, timing.variant)
            .bind(5, timing.collective)
            .bind(6, to_db_bytes(timing.msg_bytes))
            .bind(7, static_cast<std::int64_t>(s.n))
            .bind(8, s.median)
            .bind(9, s.ci_lo)
            .bind(10, s.ci_hi)
            .bind(11, s.min)
            .bind(12, s.max)
            .bind(13, s.mean)
            .bind(14, static_cast<std::int64_t>(s.converged ? 1 : 0));
        insert.step();
    }
    transaction.commit();
}

std::vector<TreeTiming> MeasureDb::tree_timings(JobId job, const std::string& tree) const {
    Statement select(db_.get(), path_,
                     "SELECT round, variant, collective, msg_bytes, n, median, ci_lo, ci_hi, min, max, mean,"
                     " converged FROM tree_timings WHERE job_id = ?1 AND tree = ?2"
                     " ORDER BY collective, msg_bytes, variant, round");
    select.bind(1, job).bind(2, tree);
    std::vector<TreeTiming> result;
    while (select.step()) {
        TreeTiming timing;
        timing.round = static_cast<int>(select.int64(0));
        timing.variant = select.text(1);
        timing.collective = select.text(2);
        timing.msg_bytes = static_cast<std::uint64_t>(select.int64(3));
        timing.summary.n = static_cast<std::size_t>(select.int64(4));
        timing.summary.median = select.real(5);
        timing.summary.ci_lo = select.real(6);
        timing.summary.ci_hi = select.real(7);
        timing.summary.min = select.real(8);
        timing.summary.max = select.real(9);
        timing.summary.mean = select.real(10);
        timing.summary.converged = select.int64(11) != 0;
        result.push_back(std::move(timing));
    }
    return result;
}

std::string MeasureDb::integrity_check() const {
    Statement check(db_.get(), path_, "PRAGMA integrity_check");
    std::string result;
    while (check.step()) {
        if (!result.empty()) result += '\n';
        result += check.text(0);
    }
    return result;
}

}  // namespace hiertune
