#include "hiertune/report/bench_output.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/tree/collective.hpp"

#include <cstdio>
#include <sstream>
#include <vector>

namespace hiertune {

namespace {

constexpr int kSizeWidth = 10;   // OSU's "%-10d"
constexpr int kFieldWidth = 18;  // OSU's FIELD_WIDTH
constexpr int kPrecision = 2;    // OSU's FLOAT_PRECISION

double us(double seconds) { return seconds * 1e6; }

const char* source_name(const PointResult& point) { return point.from_db ? "db" : "measured"; }

std::string data_check_name(const PointResult& point) {
    if (!point.data_ok) return "";
    return *point.data_ok ? "passed" : "failed";
}

constexpr int kRatioPrecision = 3;

// median / link bound, if the point has a bound.
std::optional<double> ratio_to_bound(const PointResult& point) {
    if (!point.link_bound || !(*point.link_bound > 0)) return std::nullopt;
    return point.summary.median / *point.link_bound;
}

// The comparison columns of `point` (value, OSU decimals) in column order; a
// value the point lacks is nullopt.
struct ColumnValue {
    std::optional<double> value;
    int precision;
};
std::vector<ColumnValue> comparison_values(const PointResult& point, ReportColumns columns) {
    std::vector<ColumnValue> values;
    if (columns.ratio_to_first) values.push_back({point.ratio_to_first, kRatioPrecision});
    if (columns.link_bound) {
        values.push_back({point.link_bound ? std::optional<double>(us(*point.link_bound)) : std::nullopt, kPrecision});
        values.push_back({ratio_to_bound(point), kRatioPrecision});
    }
    return values;
}

// OSU's own columns.
std::string osu_basic_row(const PointResult& point, bool full) {
    char buffer[160];
    const Summary& s = point.summary;
    if (full)
        std::snprintf(buffer, sizeof buffer, "%-*llu%*.*f%*.*f%*.*f%*zu", kSizeWidth,
                      static_cast<unsigned long long>(point.key.msg_bytes), kFieldWidth, kPrecision,
                      us(s.median), kFieldWidth, kPrecision, us(s.min), kFieldWidth, kPrecision,
                      us(s.max), 12, s.n);
    else
        std::snprintf(buffer, sizeof buffer, "%-*llu%*.*f", kSizeWidth,
                      static_cast<unsigned long long>(point.key.msg_bytes), kFieldWidth, kPrecision,
                      us(s.median));
    return buffer;
}

bool same_configuration(const PointKey& a, const PointKey& b) {
    return a.collective == b.collective && a.algorithm == b.algorithm && a.params == b.params;
}

// The test's name in OSU's titles ("Broadcast" for osu_bcast), by kind.
std::string osu_test(grammar::Collective collective) {
    std::string test;
    switch (collective.kind()) {
        case grammar::Collective::bcast: test = "Broadcast"; break;
        case grammar::Collective::reduce: test = "Reduce"; break;
        case grammar::Collective::allreduce: test = "Allreduce"; break;
        case grammar::Collective::allgather: test = "Allgather"; break;
        case grammar::Collective::allgatherv: test = "Allgatherv"; break;
        case grammar::Collective::gather: test = "Gather"; break;
        case grammar::Collective::scatter: test = "Scatter"; break;
        case grammar::Collective::barrier: test = "Barrier"; break;
        case grammar::Collective::scan: test = "Scan"; break;
        case grammar::Collective::exscan: test = "Exscan"; break;
        case grammar::Collective::reduce_scatter: test = "Reduce_scatter"; break;
        case grammar::Collective::reduce_scatter_block: test = "Reduce_scatter_block"; break;
        case grammar::Collective::alltoall: test = "Alltoall"; break;
        case grammar::Collective::alltoallv: test = "Alltoallv"; break;
        case grammar::Collective::gatherv: test = "Gatherv"; break;
        case grammar::Collective::scatterv: test = "Scatterv"; break;
    }
    return collective.nonblocking() ? "Non-blocking " + test : test;
}

}  // namespace

std::string mpi_function_name(const std::string& collective) {
    const std::optional<grammar::Collective> found = grammar::Collective::find(collective);
    return found ? found->mpi_function() : collective;
}

std::string osu_title(const std::string& collective) {
    const std::optional<grammar::Collective> found = grammar::Collective::find(collective);
    return "# OSU MPI " + (found ? osu_test(*found) : collective) + " Latency Test (hiertune bench)";
}

std::string describe_job(const JobDescription& job) {
    return job.machine + ", " + std::to_string(job.ranks) + " ranks, " + std::to_string(job.nodes) +
           " nodes x " + std::to_string(job.ppn) + " ppn, " + job.placement;
}

std::string describe_configuration(const PointKey& key) {
    std::string text = key.algorithm;
    for (const auto& [name, value] : key.params) text += " " + name + "=" + value;
    return text;
}

std::string osu_column_header(bool full, ReportColumns columns) {
    char buffer[160];
    if (full)
        std::snprintf(buffer, sizeof buffer, "# %-*s%*s%*s%*s%*s", kSizeWidth - 2, "Size", kFieldWidth,
                      "Avg Latency(us)", kFieldWidth, "Min Latency(us)", kFieldWidth,
                      "Max Latency(us)", 12, "Iterations");
    else
        std::snprintf(buffer, sizeof buffer, "# %-*s%*s", kSizeWidth - 2, "Size", kFieldWidth,
                      "Avg Latency(us)");
    std::string header = buffer;
    const auto add = [&](const char* name) {
        std::snprintf(buffer, sizeof buffer, "%*s", kFieldWidth, name);
        header += buffer;
    };
    if (columns.ratio_to_first) add("Ratio to first");
    if (columns.link_bound) {
        add("Link bound(us)");
        add("Ratio to bound");
    }
    return header;
}

std::string osu_row(const PointResult& point, bool full, ReportColumns columns) {
    std::string row = osu_basic_row(point, full);
    char buffer[64];
    for (const ColumnValue& column : comparison_values(point, columns)) {
        if (column.value)
            std::snprintf(buffer, sizeof buffer, "%*.*f", kFieldWidth, column.precision, *column.value);
        else
            std::snprintf(buffer, sizeof buffer, "%*s", kFieldWidth, "-");
        row += buffer;
    }
    return row;
}

nlohmann::ordered_json point_json(const PointResult& point, const JobDescription* job) {
    const Summary& s = point.summary;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [name, value] : point.key.params) params[name] = value;
    nlohmann::ordered_json object = {
        {"collective", point.key.collective},
        {"size", point.key.msg_bytes},
        {"algorithm", point.key.algorithm},
        {"params", params},
        {"median_us", us(s.median)},
        {"ci_lo_us", us(s.ci_lo)},
        {"ci_hi_us", us(s.ci_hi)},
        {"min_us", us(s.min)},
        {"max_us", us(s.max)},
        {"mean_us", us(s.mean)},
        {"n", s.n},
        {"converged", s.converged},
        {"source", source_name(point)},
    };
    if (point.data_ok) object["data_check"] = data_check_name(point);
    if (point.ratio_to_first) object["ratio_to_first"] = *point.ratio_to_first;
    if (point.link_bound) {
        object["link_bound_us"] = us(*point.link_bound);
        if (const auto ratio = ratio_to_bound(point)) object["ratio_to_bound"] = *ratio;
    }
    if (point.job) object["job"] = *point.job;
    if (job) {
        object["ranks"] = job->ranks;
        object["nodes"] = job->nodes;
        object["ppn"] = job->ppn;
        object["placement"] = job->placement;
    }
    return object;
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

std::string csv_header(bool with_job, ReportColumns columns) {
    return std::string(with_job ? "job," : "") +
           "collective,size,algorithm,params,median_us,ci_lo_us,ci_hi_us,min_us,max_us,mean_us,n,"
           "converged,source,data_check" +
           (columns.ratio_to_first ? ",ratio_to_first" : "") + (columns.link_bound ? ",link_bound_us,ratio_to_bound" : "");
}

std::string csv_row(const PointResult& point, bool with_job, ReportColumns columns) {
    const Summary& s = point.summary;
    std::ostringstream row;
    if (with_job) row << (point.job ? std::to_string(*point.job) : "") << ',';
    row << csv_field(point.key.collective) << ',' << point.key.msg_bytes << ','
        << csv_field(point.key.algorithm) << ',' << csv_field(canonical_params(point.key.params));
    for (double value : {s.median, s.ci_lo, s.ci_hi, s.min, s.max, s.mean}) row << ',' << fixed(us(value), 3);
    row << ',' << s.n << ',' << (s.converged ? 1 : 0) << ',' << source_name(point) << ','
        << data_check_name(point);
    for (const ColumnValue& column : comparison_values(point, columns)) {
        row << ',';
        if (column.value) row << fixed(*column.value, 3);  // as the times
    }
    return row.str();
}

Reporter::Reporter(std::ostream& out, OutputFormat format, bool full, const JobDescription* job,
                   bool with_job, ReportColumns columns)
    : out_(out), format_(format), full_(full), job_(job), with_job_(with_job), columns_(columns) {}

void Reporter::preamble(const std::string& text) {
    if (format_ == OutputFormat::osu) out_ << "# " << text << '\n' << std::flush;
}

void Reporter::point(const PointResult& point) {
    switch (format_) {
        case OutputFormat::osu:
            if (!block_ || !same_configuration(*block_, point.key)) {
                if (block_) out_ << '\n';
                out_ << osu_title(point.key.collective) << '\n'
                     << "# " << mpi_function_name(point.key.collective)
                     << ", algorithm: " << describe_configuration(point.key) << '\n'
                     << osu_column_header(full_, columns_) << '\n';
                block_ = point.key;
            }
            out_ << osu_row(point, full_, columns_) << '\n';
            break;
        case OutputFormat::json:
            out_ << point_json(point, job_).dump() << '\n';
            break;
        case OutputFormat::csv:
            if (!header_done_) out_ << csv_header(with_job_, columns_) << '\n';
            header_done_ = true;
            out_ << csv_row(point, with_job_, columns_) << '\n';
            break;
    }
    out_ << std::flush;  // a long sweep shows (and a killed one keeps) its rows
}

std::string progress_line(std::size_t done, std::size_t total, std::string_view label,
                          std::size_t bar_width) {
    const std::size_t filled = total == 0 ? bar_width : bar_width * std::min(done, total) / total;
    std::string line = "[" + std::string(filled, '#') + std::string(bar_width - filled, '.') + "] ";
    line += std::to_string(done) + "/" + std::to_string(total);
    if (!label.empty()) line += "  " + std::string(label);
    return line;
}

bool draw_progress(ProgressMode mode, bool stderr_is_terminal, bool stdout_is_terminal) {
    switch (mode) {
        case ProgressMode::always:
            return true;
        case ProgressMode::never:
            return false;
        case ProgressMode::automatic:
            break;
    }
    return stderr_is_terminal && !stdout_is_terminal;
}

}  // namespace hiertune
