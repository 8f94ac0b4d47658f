#include "hiertune/db/measure_db_rows.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hiertune {

std::string describe_db(const std::string& path) { return "measurement database '" + path + "'"; }

DbError db_error(const std::string& path, const SQLite::Exception& error, const std::string& what) {
    return DbError(describe_db(path) + ": " + (what.empty() ? "" : what + ": ") + error.what());
}

std::int64_t to_db_bytes(std::uint64_t bytes) {
    if (bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument("message size too large: " + std::to_string(bytes));
    return static_cast<std::int64_t>(bytes);
}

void check_summary(const Summary& s) {
    if (s.n == 0) throw std::invalid_argument("summary with no samples");
    for (double value : {s.median, s.ci_lo, s.ci_hi, s.min, s.max, s.mean})
        if (!std::isfinite(value)) throw std::invalid_argument("summary with a non-finite value");
    if (!(s.min <= s.ci_lo && s.ci_lo <= s.median && s.median <= s.ci_hi && s.ci_hi <= s.max))
        throw std::invalid_argument("summary values not ordered min <= ci_lo <= median <= ci_hi <= max");
}

std::size_t count_rows(const SQLite::Database& db, const char* select_count, JobId job) {
    SQLite::Statement select(db, select_count);
    select.bind(1, job);
    select.executeStep();
    return static_cast<std::size_t>(select.getColumn(0).getInt64());
}

void require_job(const SQLite::Database& db, JobId job) {
    SQLite::Statement exists(db, "SELECT 1 FROM jobs WHERE id = ?1");
    exists.bind(1, job);
    if (!exists.executeStep()) throw std::invalid_argument("unknown job id " + std::to_string(job));
}

void clear_job_rows(SQLite::Database& db, const std::string& table, JobId job) {
    require_job(db, job);
    SQLite::Statement remove(db, "DELETE FROM " + table + " WHERE job_id = ?1");
    remove.bind(1, job);
    remove.exec();
}

std::string summary_insert(const std::string& insert_into, const std::string& key_columns) {
    int count = 1;  // key columns: one more than their commas
    for (char c : key_columns) count += c == ',';
    count += 8;
    std::string placeholders;
    for (int index = 1; index <= count; ++index)
        placeholders += (index > 1 ? ", ?" : "?") + std::to_string(index);
    return insert_into + " (" + key_columns + ", " + kSummaryColumns + ") VALUES (" + placeholders + ")";
}

void bind_summary(SQLite::Statement& statement, int first, const Summary& s) {
    statement.bind(first, static_cast<std::int64_t>(s.n));
    statement.bind(first + 1, s.median);
    statement.bind(first + 2, s.ci_lo);
    statement.bind(first + 3, s.ci_hi);
    statement.bind(first + 4, s.min);
    statement.bind(first + 5, s.max);
    statement.bind(first + 6, s.mean);
    statement.bind(first + 7, static_cast<std::int64_t>(s.converged ? 1 : 0));
}

Summary read_summary(const SQLite::Statement& row, int first) {
    Summary s;
    s.n = static_cast<std::size_t>(row.getColumn(first).getInt64());
    s.median = row.getColumn(first + 1).getDouble();
    s.ci_lo = row.getColumn(first + 2).getDouble();
    s.ci_hi = row.getColumn(first + 3).getDouble();
    s.min = row.getColumn(first + 4).getDouble();
    s.max = row.getColumn(first + 5).getDouble();
    s.mean = row.getColumn(first + 6).getDouble();
    s.converged = row.getColumn(first + 7).getInt64() != 0;
    return s;
}

}  // namespace hiertune
