#include "hiertune/db/db_commands.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "hiertune/models/calibration.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

std::vector<Job> selected_jobs(const MeasureDb& db, const DbQuery& query) {
    std::vector<Job> jobs = db.jobs();
    if (!query.job) return jobs;
    for (const Job& job : jobs)
        if (job.id == *query.job) return {job};
    throw UsageError("no job " + std::to_string(*query.job) + " in " + db.path() +
                     " ('hiertune db list' shows the jobs)");
}

std::vector<std::string> stored_collectives(const std::vector<StoredPoint>& points) {
    std::vector<std::string> names;
    for (const StoredPoint& point : points)
        if (std::find(names.begin(), names.end(), point.key.collective) == names.end())
            names.push_back(point.key.collective);
    return names;
}

PointResult as_result(JobId job, const StoredPoint& point) {
    PointResult result;
    result.job = job;
    result.key = point.key;
    result.summary = point.summary;
    result.from_db = true;
    return result;
}

std::string best_header() {
    char buffer[200];
    std::snprintf(buffer, sizeof buffer, "# %-8s%18s%16s%16s%12s%11s  %s", "Size", "Avg Latency(us)",
                  "CI95 lo(us)", "CI95 hi(us)", "Iterations", "Converged", "Configuration");
    return buffer;
}

std::string best_row(const StoredPoint& point) {
    char buffer[160];
    const Summary& s = point.summary;
    std::snprintf(buffer, sizeof buffer, "%-10llu%18.2f%16.2f%16.2f%12zu%11s  ",
                  static_cast<unsigned long long>(point.key.msg_bytes), s.median * 1e6, s.ci_lo * 1e6,
                  s.ci_hi * 1e6, s.n, s.converged ? "yes" : "no");
    return buffer + describe_configuration(point.key);
}

// {"cluster": ..., "measured_at": ..., "links": [one calibrate --json object per link]}, null if none.
nlohmann::ordered_json calibration_object(const StoredCalibration& calibration) {
    if (calibration.links.empty()) return nullptr;
    const CalibrationRun run{{}, calibration.cluster, true, calibration.measured_at, std::nullopt, nullptr, {}};
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    for (const LinkCalibration& link : calibration.links) {
        nlohmann::ordered_json object = calibration_json(link, run);
        object.erase("source");
        object.erase("cluster");
        links.push_back(object);
    }
    return {{"cluster", calibration.cluster}, {"measured_at", calibration.measured_at}, {"links", links}};
}

}  // namespace

MeasureDb open_existing_db(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) throw UsageError("measurement database '" + path + "' does not exist");
    if (fs::is_directory(status)) throw UsageError("measurement database '" + path + "' is a directory");
    // SQLite takes an empty file for an empty database, which opening would make ours:
    // a query must not turn any empty file into a database
    if (fs::is_regular_file(status) && fs::file_size(path, error) == 0 && !error)
        throw UsageError("measurement database '" + path + "' is an empty file, not a database");
    return MeasureDb::open(path);
}

void print_jobs(const MeasureDb& db, OutputFormat format, std::ostream& out) {
    const std::vector<Job> jobs = db.jobs();
    if (format == OutputFormat::json) {
        for (const Job& job : jobs) {
            const JobDescription& d = job.description;
            out << nlohmann::ordered_json{{"job", job.id},           {"machine", d.machine},
                                  {"ranks", d.ranks},        {"nodes", d.nodes},
                                  {"ppn", d.ppn},            {"placement", d.placement},
                                  {"mpich_build", d.mpich_build}, {"created_at", job.created_at},
                                  {"points", db.count_points(job.id)},
                                  {"calibration", calibration_object(db.calibration(job.id))}}
                       .dump()
                << '\n';
        }
        return;
    }
    if (format == OutputFormat::csv) {
        out << "job,machine,ranks,nodes,ppn,placement,points,created_at,mpich_build,calibration\n";
        for (const Job& job : jobs) {
            const JobDescription& d = job.description;
            out << job.id << ',' << csv_field(d.machine) << ',' << d.ranks << ',' << d.nodes << ','
                << d.ppn << ',' << csv_field(d.placement) << ',' << db.count_points(job.id) << ','
                << job.created_at << ',' << csv_field(d.mpich_build) << ','
                << csv_field(calibration_summary(db.calibration(job.id))) << '\n';
        }
        return;
    }
    out << "# " << db.path() << ": " << jobs.size() << (jobs.size() == 1 ? " job" : " jobs") << '\n';
    for (const Job& job : jobs)
        out << "job " << job.id << ": " << describe_job(job.description) << ", "
            << db.count_points(job.id) << " points, since " << job.created_at << "\n    "
            << job.description.mpich_build << "\n    " << calibration_summary(db.calibration(job.id)) << '\n';
}

void print_best(const MeasureDb& db, const DbQuery& query, std::ostream& out) {
    Reporter reporter(out, query.format, query.full, nullptr, true);
    bool first_block = true;
    for (const Job& job : selected_jobs(db, query)) {
        const std::vector<std::string> collectives =
            query.collectives.empty() ? stored_collectives(db.points(job.id)) : query.collectives;
        for (const std::string& collective : collectives) {
            const std::vector<StoredPoint> best = db.best_per_size(job.id, collective);
            if (query.format != OutputFormat::osu) {
                for (const StoredPoint& point : best) reporter.point(as_result(job.id, point));
                continue;
            }
            if (!first_block) out << '\n';
            first_block = false;
            out << "# job " << job.id << ": " << describe_job(job.description) << '\n'
                << "# " << mpi_function_name(collective) << ": best configuration per size (lowest median)\n"
                << best_header() << '\n';
            if (best.empty()) out << "# (no points)\n";
            for (const StoredPoint& point : best) out << best_row(point) << '\n';
        }
    }
}

void print_points(const MeasureDb& db, const DbQuery& query, std::ostream& out) {
    // CSV/JSON: one stream of rows; OSU: header blocks start afresh per job.
    std::optional<Reporter> shared;
    if (query.format != OutputFormat::osu) shared.emplace(out, query.format, query.full, nullptr, true);
    for (const Job& job : selected_jobs(db, query)) {
        std::optional<Reporter> own;
        if (!shared) {
            out << "# job " << job.id << ": " << describe_job(job.description) << '\n';
            own.emplace(out, query.format, query.full, nullptr, true);
        }
        Reporter& reporter = shared ? *shared : *own;
        for (const StoredPoint& point : db.points(job.id)) {
            const bool wanted = query.collectives.empty() ||
                                std::find(query.collectives.begin(), query.collectives.end(),
                                          point.key.collective) != query.collectives.end();
            if (wanted) reporter.point(as_result(job.id, point));
        }
    }
}

bool print_check(const MeasureDb& db, std::ostream& out) {
    const std::string result = db.integrity_check();
    out << db.path() << ": " << result << '\n';
    return result == "ok";
}

}  // namespace hiertune
