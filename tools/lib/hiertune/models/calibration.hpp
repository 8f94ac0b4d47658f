// `hiertune calibrate`: point-to-point latency and bandwidth per inter-node
// link (the MPI runner is tools/src/calibrate.cpp).  This file holds the
// MPI-free parts: which pairs of ranks are measured, link rates
// (--expect-rate, HIERTUNE_LINK_RATE) and their check, and the output.
//
// A link "0-k" joins node 0's leader (world rank 0) and node k's leader, a
// node being an MPI_COMM_TYPE_SHARED group and its leader its lowest world
// rank; "intra" joins rank 0 and the next rank of node 0, for reference.
// Latency is one way (median round trip / 2), bandwidth in bytes/s; the
// table shows microseconds and MB/s (10^6 bytes/s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

constexpr const char* kIntraLink = "intra";

// Two world ranks measured against each other; `first` leads (world rank 0).
struct LinkPair {
    std::string link;
    int first = 0;
    int second = 0;
};
bool operator==(const LinkPair& a, const LinkPair& b);

// The pairs of a job from the node of every world rank (any id per node,
// e.g. the world rank of its leader): "0-1" .. "0-(N-1)" with nodes numbered
// by their lowest world rank (node 0 holds rank 0), then "intra" if node 0
// has a second rank.  Throws std::invalid_argument if empty.
std::vector<LinkPair> calibration_pairs(const std::vector<int>& node_of_rank);

// A rate in bytes/s: a positive number with an optional suffix, K, M, G
// (powers of 1000 bytes) or kbit, mbit, gbit (bits: 100mbit = 12500000), in
// any case.  Throws UsageError naming `what` (e.g. "--expect-rate").
double parse_rate(std::string_view text, const std::string& what);

// Bandwidth of one inter-node link against the expected rate.
struct RateVerdict {
    std::string link;
    double bandwidth = 0;    // bytes/s measured
    double expected = 0;     // bytes/s
    double off_percent = 0;  // (bandwidth - expected) / expected * 100
    double tolerance_percent = 0;
    bool holds = false;      // |off_percent| <= tolerance_percent
};

// How far (percent) a link's measured stream bandwidth may be off its rate by default.
// The frames' headers take 4.4 % of a 1500-byte MTU link, and a shaped link loses more of
// its time when the shaper's timer fires late on a loaded host (doc/emucluster.md, --burst).
inline constexpr double kDefaultRateTolerancePercent = 15;

// A verdict per inter-node link, in order ("intra" is not rate-limited and
// gets none).  Throws std::invalid_argument unless expected > 0 and
// tolerance >= 0.
std::vector<RateVerdict> check_rates(const std::vector<LinkCalibration>& links, double expected,
                                     double tolerance_percent);
bool all_hold(const std::vector<RateVerdict>& verdicts);
// "0-1: rate holds (11.87 MB/s measured, 12500000 B/s expected: -5.0 %, tolerance 10 %)" or
// "0-1: rate off by -35.2 % (8.10 MB/s measured, 12500000 B/s expected, tolerance 10 %)".
std::string verdict_line(const RateVerdict& verdict);

// The CVAR the by_size crossovers take the inter-node links' alpha / beta from
// (hier_by_size.h; a site's installed tree carries it in its record).
constexpr const char* kLatencyBytesCvar = "MPIR_CVAR_HIER_LATENCY_BYTES";

// The inter-node links' alpha / beta in bytes: latency x bandwidth, the median over the
// links "0-k" ("intra" is none), rounded, at least 1; 0 without an inter-node link.
std::int64_t latency_bytes(const std::vector<LinkCalibration>& links);
// "by_size crossovers: MPIR_CVAR_HIER_LATENCY_BYTES=465 (alpha/beta of the inter-node
// links)"; empty without an inter-node link.
std::string latency_bytes_line(const std::vector<LinkCalibration>& links);

// What a calibration run shows: measured now or read from the database.
struct CalibrationRun {
    std::vector<LinkCalibration> links;
    std::string cluster;               // HIERTUNE_CLUSTER, "" if unset
    bool from_db = false;
    std::string measured_at;           // from_db: when it was measured
    std::optional<JobId> job;          // with --db
    const JobDescription* job_description = nullptr;
    // the hosts whose ranks outnumber their cores (topology.hpp to_string(HostLoad))
    std::vector<std::string> shared_cores;
};

// "cluster: <line>", "cluster: unknown" when empty.
std::string cluster_line(const std::string& cluster);
// The table: a header line (link, latency(us), bandwidth(MB/s), reps =
// latency/bandwidth repetitions), then a row per link.
std::string calibration_table(const std::vector<LinkCalibration>& links);
nlohmann::ordered_json calibration_json(const LinkCalibration& link, const CalibrationRun& run);
std::string calibration_csv_header();
std::string calibration_csv_row(const LinkCalibration& link, const CalibrationRun& run);
// Text: "# " comment lines (job, cluster, where the numbers come from), then
// the table; JSON Lines: one object per link; CSV: header and rows.
void write_calibration(const CalibrationRun& run, OutputFormat format, std::ostream& out);
// One line for `db list`: "calibration: 0-1 45.20 us 11.87 MB/s, intra ...; cluster: ...; measured ..."
// or "calibration: none".
std::string calibration_summary(const StoredCalibration& calibration);
// The cluster line and the table, for tune's report ("calibration: none" without links).
std::string calibration_report(const StoredCalibration& calibration);

// The job of `calibrate --db --json` output: the first JSON object line with
// a "job" and a "machine"; other lines (a launcher's own output) are
// skipped.  nullopt if there is none.
struct CalibratedJob {
    JobId job = 0;
    std::string machine;
    bool measured = false;  // some link measured now (else all from the database)
};
std::optional<CalibratedJob> calibrated_job(std::istream& json_lines);

}  // namespace hiertune
