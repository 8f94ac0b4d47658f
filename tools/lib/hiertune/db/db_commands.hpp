// `hiertune db ...`: queries of a measurement database (no MPI needed).
//
//   db list    jobs with their description and point counts
//   db best    per job, collective and size, the configuration with the lowest median
//   db points  every stored point
//   db check   SQLite integrity check
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

// Opens a database that must exist (a query never creates one).  Throws
// UsageError for a missing path, a directory or an empty file, DbError for an
// unreadable or foreign file.
MeasureDb open_existing_db(const std::string& path);

struct DbQuery {
    std::optional<JobId> job;              // all jobs when unset
    std::vector<std::string> collectives;  // all stored ones when empty
    OutputFormat format = OutputFormat::osu;
    bool full = false;
};

void print_jobs(const MeasureDb& db, OutputFormat format, std::ostream& out);
void print_best(const MeasureDb& db, const DbQuery& query, std::ostream& out);
void print_points(const MeasureDb& db, const DbQuery& query, std::ostream& out);
// Prints the integrity check; true when it is "ok".
bool print_check(const MeasureDb& db, std::ostream& out);

}  // namespace hiertune
