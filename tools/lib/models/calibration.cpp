#include "hiertune/models/calibration.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <map>
#include <ostream>
#include <stdexcept>

#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

double us(double seconds) { return seconds * 1e6; }
double megabytes(double bytes_per_second) { return bytes_per_second / 1e6; }

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

// 12500000 as it is; 0.5 with decimals.
std::string rate_text(double bytes_per_second) {
    return format(bytes_per_second == std::floor(bytes_per_second) ? "%.0f" : "%.3f", bytes_per_second) + " B/s";
}

std::string lower(std::string_view text) {
    std::string result(text);
    for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return result;
}

const char* source_name(const CalibrationRun& run) { return run.from_db ? "db" : "measured"; }

}  // namespace

bool operator==(const LinkPair& a, const LinkPair& b) {
    return a.link == b.link && a.first == b.first && a.second == b.second;
}

std::vector<LinkPair> calibration_pairs(const std::vector<int>& node_of_rank) {
    if (node_of_rank.empty()) throw std::invalid_argument("calibration_pairs: no ranks");
    // nodes in order of their lowest world rank; each node's leader is that rank
    std::map<int, int> index_of;
    std::vector<int> leaders;
    for (int rank = 0; rank < static_cast<int>(node_of_rank.size()); ++rank)
        if (index_of.emplace(node_of_rank[static_cast<std::size_t>(rank)], static_cast<int>(leaders.size())).second)
            leaders.push_back(rank);
    std::vector<LinkPair> pairs;
    for (std::size_t k = 1; k < leaders.size(); ++k) pairs.push_back(LinkPair{"0-" + std::to_string(k), 0, leaders[k]});
    for (int rank = 1; rank < static_cast<int>(node_of_rank.size()); ++rank)
        if (node_of_rank[static_cast<std::size_t>(rank)] == node_of_rank[0]) {
            pairs.push_back(LinkPair{kIntraLink, 0, rank});
            break;
        }
    return pairs;
}

double parse_rate(std::string_view text, const std::string& what) {
    const auto bad = [&](const std::string& why) {
        return UsageError(what + " '" + std::string(text) + "': " + why +
                          " (bytes/s such as 12500000, 12.5M or 100mbit)");
    };
    const std::string copy(text);
    if (copy.empty() || !(std::isdigit(static_cast<unsigned char>(copy[0])) || copy[0] == '.'))
        throw bad("expected a positive number");
    char* end = nullptr;
    const double number = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str()) throw bad("expected a positive number");
    static const std::map<std::string, double> factors{{"", 1},          {"k", 1e3},         {"m", 1e6},
                                                       {"g", 1e9},        {"kbit", 1e3 / 8}, {"mbit", 1e6 / 8},
                                                       {"gbit", 1e9 / 8}};
    const auto factor = factors.find(lower(end));
    if (factor == factors.end()) throw bad("unknown suffix '" + std::string(end) + "' (K, M, G, kbit, mbit, gbit)");
    const double rate = number * factor->second;
    if (!(rate > 0) || !std::isfinite(rate)) throw bad("must be > 0");
    return rate;
}

std::vector<RateVerdict> check_rates(const std::vector<LinkCalibration>& links, double expected,
                                     double tolerance_percent) {
    if (!(expected > 0) || !std::isfinite(expected)) throw std::invalid_argument("expected rate must be > 0");
    if (!(tolerance_percent >= 0)) throw std::invalid_argument("tolerance must be >= 0");
    std::vector<RateVerdict> verdicts;
    for (const LinkCalibration& link : links) {
        if (link.link == kIntraLink) continue;
        RateVerdict verdict{link.link, link.bandwidth, expected, (link.bandwidth - expected) / expected * 100,
                            tolerance_percent, false};
        verdict.holds = std::fabs(verdict.off_percent) <= tolerance_percent;
        verdicts.push_back(verdict);
    }
    return verdicts;
}

bool all_hold(const std::vector<RateVerdict>& verdicts) {
    return std::all_of(verdicts.begin(), verdicts.end(), [](const RateVerdict& v) { return v.holds; });
}

std::string verdict_line(const RateVerdict& v) {
    const std::string measured = format("%.2f", megabytes(v.bandwidth)) + " MB/s measured, " +
                                 rate_text(v.expected) + " expected";
    const std::string tolerance = "tolerance " + format("%g", v.tolerance_percent) + " %";
    if (v.holds) return v.link + ": rate holds (" + measured + ": " + format("%+.1f", v.off_percent) + " %, " +
                        tolerance + ")";
    return v.link + ": rate off by " + format("%+.1f", v.off_percent) + " % (" + measured + ", " + tolerance + ")";
}

std::string cluster_line(const std::string& cluster) {
    return "cluster: " + (cluster.empty() ? std::string("unknown") : cluster);
}

std::string calibration_table(const std::vector<LinkCalibration>& links) {
    char line[160];
    std::snprintf(line, sizeof line, "%-8s%15s%18s%14s\n", "link", "latency(us)", "bandwidth(MB/s)", "reps");
    std::string table = line;
    for (const LinkCalibration& link : links) {
        const std::string reps = std::to_string(link.n_latency) + "/" + std::to_string(link.n_bandwidth);
        std::snprintf(line, sizeof line, "%-8s%15.2f%18.2f%14s\n", link.link.c_str(), us(link.latency),
                      megabytes(link.bandwidth), reps.c_str());
        table += line;
    }
    return table;
}

nlohmann::ordered_json calibration_json(const LinkCalibration& link, const CalibrationRun& run) {
    nlohmann::ordered_json object = {
        {"link", link.link},
        {"latency_us", us(link.latency)},
        {"bandwidth_MBps", megabytes(link.bandwidth)},
        {"n_latency", link.n_latency},
        {"n_bandwidth", link.n_bandwidth},
        {"source", source_name(run)},
        {"cluster", run.cluster},
    };
    if (run.job) object["job"] = *run.job;
    if (const JobDescription* job = run.job_description) {
        object["machine"] = job->machine;
        object["ranks"] = job->ranks;
        object["nodes"] = job->nodes;
        object["ppn"] = job->ppn;
        object["placement"] = job->placement;
    }
    if (!run.shared_cores.empty()) object["shared_cores"] = run.shared_cores;
    return object;
}

std::string calibration_csv_header() { return "link,latency_us,bandwidth_MBps,n_latency,n_bandwidth,source"; }

std::string calibration_csv_row(const LinkCalibration& link, const CalibrationRun& run) {
    return csv_field(link.link) + "," + format("%.3f", us(link.latency)) + "," +
           format("%.3f", megabytes(link.bandwidth)) + "," + std::to_string(link.n_latency) + "," +
           std::to_string(link.n_bandwidth) + "," + source_name(run);
}

std::int64_t latency_bytes(const std::vector<LinkCalibration>& links) {
    std::vector<double> products;
    for (const LinkCalibration& link : links)
        if (link.link != kIntraLink) products.push_back(link.latency * link.bandwidth);
    if (products.empty()) return 0;
    std::sort(products.begin(), products.end());
    const std::size_t half = products.size() / 2;
    const double median =
        products.size() % 2 ? products[half] : (products[half - 1] + products[half]) / 2;
    return std::max<std::int64_t>(1, std::llround(median));
}

std::string latency_bytes_line(const std::vector<LinkCalibration>& links) {
    const std::int64_t bytes = latency_bytes(links);
    if (bytes == 0) return "";
    return std::string("by_size crossovers: ") + kLatencyBytesCvar + "=" + std::to_string(bytes) +
           " (alpha/beta of the inter-node links)";
}

void write_calibration(const CalibrationRun& run, OutputFormat format, std::ostream& out) {
    switch (format) {
        case OutputFormat::osu:
            if (run.job_description) out << "# hiertune calibrate: " << describe_job(*run.job_description) << '\n';
            out << "# " << cluster_line(run.cluster) << '\n';
            if (run.from_db)
                out << "# stored in the database" << (run.job ? " (job " + std::to_string(*run.job) + ")" : "")
                    << ", measured " << run.measured_at << '\n';
            out << calibration_table(run.links);
            if (const std::string line = latency_bytes_line(run.links); !line.empty()) out << "# " << line << '\n';
            break;
        case OutputFormat::json:
            for (const LinkCalibration& link : run.links) out << calibration_json(link, run).dump() << '\n';
            break;
        case OutputFormat::csv:
            out << calibration_csv_header() << '\n';
            for (const LinkCalibration& link : run.links) out << calibration_csv_row(link, run) << '\n';
            break;
    }
    out << std::flush;
}

std::string calibration_summary(const StoredCalibration& calibration) {
    if (calibration.links.empty()) return "calibration: none";
    std::string text = "calibration:";
    for (const LinkCalibration& link : calibration.links)
        text += std::string(&link == &calibration.links.front() ? " " : ", ") + link.link + " " +
                format("%.2f", us(link.latency)) + " us " + format("%.2f", megabytes(link.bandwidth)) + " MB/s";
    return text + "; " + cluster_line(calibration.cluster) + "; measured " + calibration.measured_at;
}

std::string calibration_report(const StoredCalibration& calibration) {
    if (calibration.links.empty()) return cluster_line(calibration.cluster) + "\ncalibration: none\n";
    return cluster_line(calibration.cluster) + "\n" + calibration_table(calibration.links);
}

std::optional<CalibratedJob> calibrated_job(std::istream& json_lines) {
    std::optional<CalibratedJob> found;
    for (std::string line; std::getline(json_lines, line);) {
        const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
        if (!object.is_object() || !object.contains("job") || !object.contains("machine") ||
            !object["job"].is_number_integer() || !object["machine"].is_string())
            continue;
        if (!found) found = CalibratedJob{object["job"].get<JobId>(), object["machine"].get<std::string>(), false};
        if (object.value("source", "") == "measured") found->measured = true;
    }
    return found;
}

}  // namespace hiertune
