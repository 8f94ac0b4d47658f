// The measurement database's task benchmarks (schema version 2): a task's
// timings per leader, recorded all or none, listed, and the plan's tasks still
// to measure (resume).
#include "hiertune/db/measure_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "hiertune/db/measure_db_rows.hpp"

namespace hiertune {

namespace {

auto fields(const TaskKey& key) { return std::tie(key.collective, key.task, key.config, key.seg_bytes); }

void check_task_key(const TaskKey& key) {
    if (key.collective.empty()) throw std::invalid_argument("task benchmark without a collective name");
    if (key.task.empty()) throw std::invalid_argument("task benchmark without a task name");
    if (key.seg_bytes == 0) throw std::invalid_argument("task benchmark with segment size 0");
    to_db_bytes(key.seg_bytes);
}

// A task's key as keys_not_stored() compares it with the stored ones.
std::vector<std::string> stored_task_key(const TaskKey& key) {
    check_task_key(key);
    return {key.collective, key.task, canonical_params(key.config), std::to_string(to_db_bytes(key.seg_bytes))};
}

// Binds collective, task, config, seg_bytes at indexes first..first+3.
void bind_task_key(SQLite::Statement& statement, int first, const TaskKey& key) {
    statement.bind(first, key.collective);
    statement.bind(first + 1, key.task);
    statement.bind(first + 2, canonical_params(key.config));
    statement.bind(first + 3, to_db_bytes(key.seg_bytes));
}

constexpr const char* kSelectTask =
    "SELECT 1 FROM tasks WHERE job_id = ?1 AND collective = ?2 AND task = ?3 AND config = ?4 AND seg_bytes = ?5";

}  // namespace

bool operator==(const TaskKey& a, const TaskKey& b) { return fields(a) == fields(b); }
bool operator<(const TaskKey& a, const TaskKey& b) { return fields(a) < fields(b); }

bool MeasureDb::record_task(JobId job, const TaskKey& key, const std::vector<TaskTiming>& timings) try {
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
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    {
        SQLite::Statement exists(*db_, kSelectTask);
        exists.bind(1, job);
        bind_task_key(exists, 2, key);
        if (exists.executeStep()) return false;  // rolled back: nothing written
    }
    SQLite::Statement insert(
        *db_, summary_insert("INSERT INTO tasks", "job_id, collective, task, config, seg_bytes, leader"));
    for (const TaskTiming& timing : timings) {
        insert.reset();
        insert.bind(1, job);
        bind_task_key(insert, 2, key);
        insert.bind(6, timing.leader);
        bind_summary(insert, 7, timing.summary);
        insert.exec();
    }
    transaction.commit();
    return true;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

bool MeasureDb::has_task(JobId job, const TaskKey& key) const try {
    check_task_key(key);
    SQLite::Statement select(*db_, kSelectTask);
    select.bind(1, job);
    bind_task_key(select, 2, key);
    return select.executeStep();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<TaskKey> MeasureDb::pending_tasks(JobId job, const std::vector<TaskKey>& plan) const try {
    return keys_not_stored(*db_, "SELECT DISTINCT collective, task, config, seg_bytes FROM tasks WHERE job_id = ?1",
                           job, plan, stored_task_key);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<StoredTask> MeasureDb::tasks(JobId job) const try {
    SQLite::Statement select(*db_, std::string("SELECT collective, task, config, seg_bytes, leader, ") +
                                       kSummaryColumns +
                                       ", measured_at FROM tasks WHERE job_id = ?1"
                                       " ORDER BY collective, task, config, seg_bytes, leader");
    select.bind(1, job);
    std::vector<StoredTask> result;
    while (select.executeStep()) {
        TaskKey key;
        key.collective = select.getColumn(0).getString();
        key.task = select.getColumn(1).getString();
        key.config = parse_params(select.getColumn(2).getString());
        key.seg_bytes = static_cast<std::uint64_t>(select.getColumn(3).getInt64());
        const TaskTiming timing{select.getColumn(4).getInt(), read_summary(select, 5)};
        if (result.empty() || !(result.back().key == key))
            result.push_back(StoredTask{std::move(key), {}, select.getColumn(13).getString()});
        result.back().timings.push_back(timing);
    }
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::size_t MeasureDb::count_tasks(JobId job) const try {
    return count_rows(*db_,
                      "SELECT count(*) FROM (SELECT DISTINCT collective, task, config, seg_bytes"
                      " FROM tasks WHERE job_id = ?1)",
                      job);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

}  // namespace hiertune
