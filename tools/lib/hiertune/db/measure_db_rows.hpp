// What the files of the measurement database (measure_db*.cpp) share: the
// translation of SQLiteCpp's exceptions into DbError, the checks of values
// before they are stored, the summary columns of points, tasks and
// tree_timings (bound and read in one place) and the resume's comparison of
// planned keys with stored ones.  Internal to libhiertune: the rest of
// hiertune uses measure_db.hpp.
//
// Every write is one transaction, SQLite::Transaction(db,
// SQLite::TransactionBehavior::IMMEDIATE): BEGIN IMMEDIATE takes the write
// lock up front, so a read-then-write transaction cannot fail half-way on a
// lock upgrade; it is rolled back unless committed.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/stats.hpp"

namespace hiertune {

// "measurement database 'PATH'", the start of every DbError message.
std::string describe_db(const std::string& path);

// DbError "measurement database 'PATH': WHAT: <SQLite's message>" ("WHAT: "
// left out if empty).  Every public MeasureDb function ends in
//     } catch (const SQLite::Exception& error) { throw db_error(path_, error); }
DbError db_error(const std::string& path, const SQLite::Exception& error, const std::string& what = "");

// The size as SQLite's INTEGER; std::invalid_argument beyond INT64_MAX.
std::int64_t to_db_bytes(std::uint64_t bytes);

// std::invalid_argument for n == 0, a non-finite value or values not ordered
// min <= ci_lo <= median <= ci_hi <= max (the tables' CHECK).
void check_summary(const Summary& summary);

// The count(*) that `select_count` returns with the job bound at ?1.
std::size_t count_rows(const SQLite::Database& db, const char* select_count, JobId job);

// std::invalid_argument "unknown job id N" unless the job exists.
void require_job(const SQLite::Database& db, JobId job);
// require_job, then deletes the job's rows of `table` (a table with a job_id column;
// the name is the caller's constant, never input): the first half of replacing them
// inside the caller's transaction.
void clear_job_rows(SQLite::Database& db, const std::string& table, JobId job);

// The summary columns, in Summary's order, as SELECT lists them.
constexpr const char* kSummaryColumns = "n, median, ci_lo, ci_hi, min, max, mean, converged";

// "INSERT_INTO (KEY_COLUMNS, <kSummaryColumns>) VALUES (?1, ..., ?K+8)": stores a
// summary under its K key columns (bound at ?1..?K, the summary at ?K+1..?K+8).
std::string summary_insert(const std::string& insert_into, const std::string& key_columns);

// Binds a summary's 8 values at indexes first..first+7.
void bind_summary(SQLite::Statement& statement, int first, const Summary& summary);
// Reads a summary from columns first..first+7 (kSummaryColumns selected).
Summary read_summary(const SQLite::Statement& row, int first);

// The keys, in the order given, that the query `select_keys` (the job bound
// at ?1, one column per part of a key) does not return: what a resume still
// measures.  key_row(key) checks the key and gives its parts as the text
// SQLite returns for them (an INTEGER as its decimal digits).
template <class Key, class KeyRow>
std::vector<Key> keys_not_stored(const SQLite::Database& db, const char* select_keys, JobId job,
                                 const std::vector<Key>& keys, KeyRow key_row) {
    std::set<std::vector<std::string>> stored;
    SQLite::Statement select(db, select_keys);
    select.bind(1, job);
    while (select.executeStep()) {
        std::vector<std::string> row;
        for (int column = 0; column < select.getColumnCount(); ++column)
            row.push_back(select.getColumn(column).getString());
        stored.insert(std::move(row));
    }
    std::vector<Key> result;
    for (const Key& key : keys)
        if (stored.count(key_row(key)) == 0) result.push_back(key);
    return result;
}

}  // namespace hiertune
