// The measurement database's jobs and points: a job found by its identity,
// the points recorded one per transaction, listed, the best per size, and the
// sweep points still to measure (resume).
#include "hiertune/db/measure_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <stdexcept>
#include <tuple>
#include <utility>

#include "hiertune/db/measure_db_rows.hpp"

namespace hiertune {

namespace {

// ---------------------------------------------------------------- jobs

void check_job_description(const JobDescription& job) {
    if (job.ranks <= 0 || job.nodes <= 0 || job.ppn <= 0)
        throw std::invalid_argument("job ranks, nodes and ppn must be positive");
}

// Binds the identity columns of a job at indexes first..first+5.
void bind_job(SQLite::Statement& statement, int first, const JobDescription& job) {
    statement.bind(first, job.machine);
    statement.bind(first + 1, job.ranks);
    statement.bind(first + 2, job.nodes);
    statement.bind(first + 3, job.ppn);
    statement.bind(first + 4, job.placement);
    statement.bind(first + 5, job.mpich_build);
}

constexpr const char* kJobColumns =
    "SELECT id, machine, ranks, nodes, ppn, placement, mpich_build, created_at FROM jobs";

Job read_job(const SQLite::Statement& row) {
    Job job;
    job.id = row.getColumn(0).getInt64();
    job.description.machine = row.getColumn(1).getString();
    job.description.ranks = row.getColumn(2).getInt();
    job.description.nodes = row.getColumn(3).getInt();
    job.description.ppn = row.getColumn(4).getInt();
    job.description.placement = row.getColumn(5).getString();
    job.description.mpich_build = row.getColumn(6).getString();
    job.created_at = row.getColumn(7).getString();
    return job;
}

// ---------------------------------------------------------------- points

auto fields(const PointKey& key) { return std::tie(key.collective, key.msg_bytes, key.algorithm, key.params); }

void check_key(const PointKey& key) {
    if (key.collective.empty()) throw std::invalid_argument("point without a collective name");
    if (key.algorithm.empty()) throw std::invalid_argument("point without an algorithm name");
    to_db_bytes(key.msg_bytes);
}

// SELECT of the points' columns as read_point() reads them.
std::string select_points(const std::string& where_order) {
    return std::string("SELECT collective, msg_bytes, algorithm, params, ") + kSummaryColumns +
           ", measured_at FROM points " + where_order;
}

StoredPoint read_point(const SQLite::Statement& row) {
    StoredPoint point;
    point.key.collective = row.getColumn(0).getString();
    point.key.msg_bytes = static_cast<std::uint64_t>(row.getColumn(1).getInt64());
    point.key.algorithm = row.getColumn(2).getString();
    point.key.params = parse_params(row.getColumn(3).getString());
    point.summary = read_summary(row, 4);
    point.measured_at = row.getColumn(12).getString();
    return point;
}

// A point's key as keys_not_stored() compares it with the stored ones.
std::vector<std::string> stored_point_key(const PointKey& key) {
    check_key(key);
    return {key.collective, std::to_string(to_db_bytes(key.msg_bytes)), key.algorithm, canonical_params(key.params)};
}

// Binds a point's key (collective, msg_bytes, algorithm, canonical params) at first..first+3.
void bind_point_key(SQLite::Statement& statement, int first, const PointKey& key) {
    statement.bind(first, key.collective);
    statement.bind(first + 1, to_db_bytes(key.msg_bytes));
    statement.bind(first + 2, key.algorithm);
    statement.bind(first + 3, canonical_params(key.params));
}

}  // namespace

bool operator==(const PointKey& a, const PointKey& b) { return fields(a) == fields(b); }
bool operator!=(const PointKey& a, const PointKey& b) { return !(a == b); }
bool operator<(const PointKey& a, const PointKey& b) { return fields(a) < fields(b); }

JobId MeasureDb::find_or_create_job(const JobDescription& job) try {
    check_job_description(job);
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    {
        SQLite::Statement insert(*db_,
                                 "INSERT INTO jobs (machine, ranks, nodes, ppn, placement, mpich_build) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING");
        bind_job(insert, 1, job);
        insert.exec();
    }
    const std::optional<Job> found = find_job(job);
    if (!found) throw DbError(describe_db(path_) + ": job vanished right after insertion");
    transaction.commit();
    return found->id;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::optional<Job> MeasureDb::find_job(const JobDescription& job) const try {
    SQLite::Statement select(*db_, std::string(kJobColumns) +
                                       " WHERE machine = ?1 AND ranks = ?2 AND nodes = ?3 AND ppn = ?4"
                                       " AND placement = ?5 AND mpich_build = ?6");
    bind_job(select, 1, job);
    if (!select.executeStep()) return std::nullopt;
    return read_job(select);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<Job> MeasureDb::jobs() const try {
    SQLite::Statement select(*db_, std::string(kJobColumns) + " ORDER BY id");
    std::vector<Job> result;
    while (select.executeStep()) result.push_back(read_job(select));
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

bool MeasureDb::has_point(JobId job, const PointKey& key) const try {
    check_key(key);
    SQLite::Statement select(*db_,
                             "SELECT 1 FROM points WHERE job_id = ?1 AND collective = ?2 AND msg_bytes = ?3"
                             " AND algorithm = ?4 AND params = ?5");
    select.bind(1, job);
    bind_point_key(select, 2, key);
    return select.executeStep();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

bool MeasureDb::record_point(JobId job, const PointKey& key, const Summary& summary) try {
    check_key(key);
    check_summary(summary);
    canonical_params(key.params);  // invalid parameters throw before the transaction

    // One transaction per point: the row is atomic and durable at commit.
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_, summary_insert("INSERT INTO points",
                                                  "job_id, collective, msg_bytes, algorithm, params") +
                                       " ON CONFLICT DO NOTHING");
    insert.bind(1, job);
    bind_point_key(insert, 2, key);
    bind_summary(insert, 6, summary);
    const bool inserted = insert.exec() == 1;
    transaction.commit();
    return inserted;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<StoredPoint> MeasureDb::points(JobId job) const try {
    SQLite::Statement select(*db_,
                             select_points("WHERE job_id = ?1 ORDER BY collective, msg_bytes, algorithm, params"));
    select.bind(1, job);
    std::vector<StoredPoint> result;
    while (select.executeStep()) result.push_back(read_point(select));
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::size_t MeasureDb::count_points(JobId job) const try {
    return count_rows(*db_, "SELECT count(*) FROM points WHERE job_id = ?1", job);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<StoredPoint> MeasureDb::best_per_size(JobId job, const std::string& collective) const try {
    SQLite::Statement select(*db_, select_points("WHERE job_id = ?1 AND collective = ?2 ORDER BY msg_bytes"));
    select.bind(1, job);
    select.bind(2, collective);

    const auto better = [](const StoredPoint& a, const StoredPoint& b) {
        if (a.summary.median != b.summary.median) return a.summary.median < b.summary.median;
        if (a.key.params.size() != b.key.params.size()) return a.key.params.size() < b.key.params.size();
        if (a.key.algorithm != b.key.algorithm) return a.key.algorithm < b.key.algorithm;
        return canonical_params(a.key.params) < canonical_params(b.key.params);
    };
    std::vector<StoredPoint> best;
    while (select.executeStep()) {
        StoredPoint point = read_point(select);
        if (best.empty() || best.back().key.msg_bytes != point.key.msg_bytes)
            best.push_back(std::move(point));
        else if (better(point, best.back()))
            best.back() = std::move(point);
    }
    return best;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<PointKey> MeasureDb::pending(JobId job, const std::vector<PointKey>& sweep) const try {
    return keys_not_stored(*db_, "SELECT collective, msg_bytes, algorithm, params FROM points WHERE job_id = ?1",
                           job, sweep, stored_point_key);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

}  // namespace hiertune
