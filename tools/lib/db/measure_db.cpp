// The measurement database's schema, its opening and the upgrade of older
// files; the queries are in measure_db_points.cpp, measure_db_tasks.cpp and
// measure_db_tune.cpp.
#include "hiertune/db/measure_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <sstream>
#include <utility>
#include <vector>

#include "hiertune/db/measure_db_rows.hpp"

namespace hiertune {

namespace {

// ---------------------------------------------------------------- schema

constexpr const char* kCreateJobs = R"sql(
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
)sql";

// A table of measured summaries (points, tasks, tree_timings): "CREATE ..." of
// the table, its key columns (each line ending in ",\n"), then the summary's
// columns (stats.hpp's Summary) and measured_at, the primary key and the
// summary's order.
std::string summary_table(const std::string& create, const std::string& key_columns,
                          const std::string& primary_key) {
    return "\n" + create + " (" + key_columns +
           "    n           INTEGER NOT NULL CHECK (n > 0),\n"
           "    median      REAL    NOT NULL,\n"
           "    ci_lo       REAL    NOT NULL,\n"
           "    ci_hi       REAL    NOT NULL,\n"
           "    min         REAL    NOT NULL,\n"
           "    max         REAL    NOT NULL,\n"
           "    mean        REAL    NOT NULL,\n"
           "    converged   INTEGER NOT NULL CHECK (converged IN (0, 1)),\n"
           "    measured_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),\n"
           "    PRIMARY KEY (" + primary_key + "),\n"
           "    CHECK (min <= ci_lo AND ci_lo <= median AND median <= ci_hi AND ci_hi <= max)\n"
           ");\n";
}

const std::string kCreatePoints = summary_table("CREATE TABLE points", R"sql(
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    collective  TEXT    NOT NULL,
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
    algorithm   TEXT    NOT NULL,
    params      TEXT    NOT NULL,
)sql", "job_id, collective, msg_bytes, algorithm, params");

// Version 2: task benchmarks of the HAN cost model.
const std::string kCreateTasks = summary_table("CREATE TABLE tasks", R"sql(
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    collective  TEXT    NOT NULL,
    task        TEXT    NOT NULL,
    config      TEXT    NOT NULL,
    seg_bytes   INTEGER NOT NULL CHECK (seg_bytes > 0),
    leader      INTEGER NOT NULL CHECK (leader >= -1),
)sql", "job_id, collective, task, config, seg_bytes, leader");

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
const std::string kCreateTreeTimings = summary_table("CREATE TABLE IF NOT EXISTS tree_timings", R"sql(
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    tree        TEXT    NOT NULL CHECK (tree <> ''),
    round       INTEGER NOT NULL CHECK (round >= 1),
    variant     TEXT    NOT NULL CHECK (variant IN ('tree', 'no-tree')),
    collective  TEXT    NOT NULL CHECK (collective <> ''),
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
)sql", "job_id, tree, round, variant, collective, msg_bytes");

// Version 6: the measurements and fitted models of `hiertune fit`.
const std::string kCreateFitPoints = summary_table("CREATE TABLE IF NOT EXISTS fit_points", R"sql(
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    kind        TEXT    NOT NULL CHECK (kind IN ('gamma', 'experiment')),
    collective  TEXT    NOT NULL,
    algorithm   TEXT    NOT NULL,
    params      TEXT    NOT NULL,
    procs       INTEGER NOT NULL CHECK (procs > 1),
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes >= 0),
    gather_bytes INTEGER NOT NULL CHECK (gather_bytes >= 0),
)sql", "job_id, kind, collective, algorithm, params, procs, msg_bytes, gather_bytes") + R"sql(
CREATE TABLE IF NOT EXISTS fit_models (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    collective  TEXT    NOT NULL CHECK (collective <> ''),
    algorithm   TEXT    NOT NULL CHECK (algorithm <> ''),
    params      TEXT    NOT NULL,
    procs       INTEGER NOT NULL CHECK (procs > 1),
    alpha       REAL    NOT NULL,
    beta        REAL    NOT NULL,
    equations   INTEGER NOT NULL CHECK (equations > 1),
    fitted_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (job_id, collective, algorithm)
);
)sql";

// Version 7: `hiertune fit`'s eager measurement per message size.
const std::string kCreateFitEager = summary_table("CREATE TABLE IF NOT EXISTS fit_eager", R"sql(
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    msg_bytes   INTEGER NOT NULL CHECK (msg_bytes > 0),
)sql", "job_id, msg_bytes");

// Version 8: the hosts of a job whose ranks outnumber their cores.
constexpr const char* kCreateSharedCores = R"sql(
CREATE TABLE IF NOT EXISTS shared_cores (
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    hosts       TEXT    NOT NULL CHECK (hosts <> ''),
    ranks       INTEGER NOT NULL CHECK (ranks > cores),
    cores       INTEGER NOT NULL CHECK (cores > 0),
    PRIMARY KEY (job_id, hosts)
);
)sql";

// The tables added after version 1 (jobs and points), by the version that
// added them: a file of version V gets those of the versions above V.
struct AddedTable {
    int version;
    const char* name;
    std::string create;
};
const std::vector<AddedTable> kAddedTables{
    {2, "tasks", kCreateTasks},
    {3, "step_times", kCreateStepTimes},
    {4, "calibration", kCreateCalibration},
    {5, "tree_timings", kCreateTreeTimings},
    {6, "fit_points and fit_models", kCreateFitPoints},
    {7, "fit_eager", kCreateFitEager},
    {8, "shared_cores", kCreateSharedCores},
};

// ---------------------------------------------------------------- opening

struct FileState {
    std::int64_t application_id = 0;
    std::int64_t user_version = 0;
    std::int64_t schema_objects = 0;
    bool blank() const { return application_id == 0 && user_version == 0 && schema_objects == 0; }
};

FileState read_file_state(SQLite::Database& db) {
    FileState state;
    state.application_id = db.execAndGet("PRAGMA application_id").getInt64();
    state.user_version = db.execAndGet("PRAGMA user_version").getInt64();
    state.schema_objects = db.execAndGet("SELECT count(*) FROM sqlite_master").getInt64();
    return state;
}

void set_wal_mode(SQLite::Database& db, const std::string& path) {
    const std::string mode = db.execAndGet("PRAGMA journal_mode=WAL").getString();
    if (mode != "wal")
        throw DbError(describe_db(path) + ": cannot switch to WAL journal mode (got '" + mode + "')");
}

void initialise_if_blank(SQLite::Database& db, const std::string& path) {
    set_wal_mode(db, path);  // must happen outside a transaction
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    // Re-check under the write lock: another process may have won the race.
    if (!read_file_state(db).blank()) return;
    try {
        db.exec(kCreateJobs);
        db.exec(kCreatePoints);
        for (const AddedTable& table : kAddedTables) db.exec(table.create);
    } catch (const SQLite::Exception& error) {
        throw db_error(path, error, "cannot create schema");
    }
    db.exec("PRAGMA application_id=" + std::to_string(MeasureDb::kApplicationId));
    db.exec("PRAGMA user_version=" + std::to_string(MeasureDb::kSchemaVersion));
    transaction.commit();
}

// Adds the tables of the versions above the file's; points and jobs are untouched.
void upgrade_if_old(SQLite::Database& db, const std::string& path) {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    // Re-check under the write lock: another process may have upgraded it.
    const std::int64_t version = read_file_state(db).user_version;
    if (version >= MeasureDb::kSchemaVersion) return;
    for (const AddedTable& table : kAddedTables) {
        if (version >= table.version) continue;
        try {
            db.exec(table.create);
        } catch (const SQLite::Exception& error) {
            throw db_error(path, error,
                           std::string("cannot add the ") + table.name + " table (schema version " +
                               std::to_string(version) + " -> " + std::to_string(table.version) + ")");
        }
    }
    db.exec("PRAGMA user_version=" + std::to_string(MeasureDb::kSchemaVersion));
    transaction.commit();
}

void check_ours(const FileState& state, const std::string& path) {
    if (state.application_id != MeasureDb::kApplicationId) {
        std::ostringstream message;
        message << describe_db(path) << ": not a hiertune measurement database (SQLite application_id 0x"
                << std::hex << state.application_id << ", expected 0x" << MeasureDb::kApplicationId << ")";
        throw DbError(message.str());
    }
    if (state.user_version > MeasureDb::kSchemaVersion)
        throw DbError(describe_db(path) + ": written by a newer hiertune (schema version " +
                      std::to_string(state.user_version) + ", this program supports up to " +
                      std::to_string(MeasureDb::kSchemaVersion) + ")");
    if (state.user_version < 1)
        throw DbError(describe_db(path) + ": invalid schema version " + std::to_string(state.user_version));
}

}  // namespace

// ---------------------------------------------------------------- MeasureDb

MeasureDb::MeasureDb(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}
MeasureDb::MeasureDb(MeasureDb&&) noexcept = default;
MeasureDb& MeasureDb::operator=(MeasureDb&&) noexcept = default;
MeasureDb::~MeasureDb() = default;

MeasureDb MeasureDb::open(const std::string& path) try {
    std::unique_ptr<SQLite::Database> db;
    try {
        db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 10000);
    } catch (const SQLite::Exception& error) {
        throw db_error(path, error, "cannot open");
    }

    // Look before touching: a foreign file must not be converted to WAL or get our tables.
    FileState state;
    try {
        state = read_file_state(*db);
    } catch (const SQLite::Exception& error) {
        throw db_error(path, error, "cannot read (corrupt or not an SQLite file?)");
    }
    if (state.blank()) {
        initialise_if_blank(*db, path);
        state = read_file_state(*db);
    }
    check_ours(state, path);

    set_wal_mode(*db, path);
    if (state.user_version < kSchemaVersion) upgrade_if_old(*db, path);
    // FULL: a committed point survives power loss too, at one fsync per point,
    // which is negligible next to measuring it.
    db->exec("PRAGMA synchronous=FULL");
    db->exec("PRAGMA foreign_keys=ON");
    return MeasureDb(path, std::move(db));
} catch (const SQLite::Exception& error) { throw db_error(path, error); }

std::string MeasureDb::integrity_check() const try {
    SQLite::Statement check(*db_, "PRAGMA integrity_check");
    std::string result;
    while (check.executeStep()) {
        if (!result.empty()) result += '\n';
        result += check.getColumn(0).getString();
    }
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

}  // namespace hiertune
