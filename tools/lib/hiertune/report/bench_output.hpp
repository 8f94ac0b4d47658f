// Output of `hiertune bench` and `hiertune db`.
//
//   osu   OSU-compatible text: "# ..." comment lines, then "Size  Avg Latency(us)"
//         rows (-f adds Min/Max Latency(us) and Iterations, as OSU's -f).
//         Avg Latency is the *median* over repetitions of the max-over-ranks
//         time; one header block per collective and configuration.
//   json  JSON Lines: one object per point (fields as the CSV columns,
//         params as an object, plus the job's ranks/nodes/ppn/placement).
//   csv   a header line, then one row per point.
// Times are in microseconds everywhere.
//
// bench compares the configurations of a point (compare.hpp): with
// ReportColumns it adds "Ratio to first" (median / the first configuration's
// median at that size) and "Link bound(us)" with "Ratio to bound" (median /
// link bound) as OSU columns and CSV columns (ratio_to_first, link_bound_us,
// ratio_to_bound) after the usual ones; JSON has those fields whenever a
// point has them.  A value a point lacks is "-" (OSU) or empty (CSV).
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/stats.hpp"

namespace hiertune {

enum class OutputFormat { osu, json, csv };

struct PointResult {
    std::optional<JobId> job;      // shown by `hiertune db` only
    PointKey key;
    Summary summary;               // seconds
    bool from_db = false;          // resumed from the database, not measured now
    std::optional<bool> data_ok;   // -c: received data/result checked on every rank
    std::optional<double> ratio_to_first;  // median / the point's first configuration's median
    std::optional<double> link_bound;      // seconds (compare.hpp)
};

// The comparison columns of OSU and CSV output (JSON: fields as present).
struct ReportColumns {
    bool ratio_to_first = false;
    bool link_bound = false;  // and the ratio to it
};

// "MPI_Bcast", "MPI_Reduce", ... "MPI_Barrier" for bench's collectives (else
// the name as given).
std::string mpi_function_name(const std::string& collective);
// "# OSU MPI Broadcast Latency Test (hiertune bench)" for bcast, etc. (OSU's
// test names: Broadcast, Reduce, Allreduce, Allgather, Gather, Scatter, Barrier).
std::string osu_title(const std::string& collective);
// "vm, 8 ranks, 4 nodes x 2 ppn, round-robin"
std::string describe_job(const JobDescription& job);
// "default", or "hier MPIR_CVAR_BCAST_HIER_SEGSIZE=65536 ..."
std::string describe_configuration(const PointKey& key);

std::string osu_column_header(bool full, ReportColumns columns = {});
std::string osu_row(const PointResult& point, bool full, ReportColumns columns = {});
nlohmann::ordered_json point_json(const PointResult& point, const JobDescription* job);
std::string csv_header(bool with_job, ReportColumns columns = {});
std::string csv_row(const PointResult& point, bool with_job, ReportColumns columns = {});
// RFC 4180 quoting when the field needs it.
std::string csv_field(std::string_view text);

// Writes points as they come, one header block per configuration in OSU format.
class Reporter {
public:
    // job may be null; with_job adds the job id column (CSV) / field (JSON).
    Reporter(std::ostream& out, OutputFormat format, bool full, const JobDescription* job,
             bool with_job = false, ReportColumns columns = {});
    // OSU: "# <ranks> ranks, ..." preamble line(s); nothing for JSON/CSV.
    void preamble(const std::string& text);
    void point(const PointResult& point);

private:
    std::ostream& out_;
    OutputFormat format_;
    bool full_;
    const JobDescription* job_;
    bool with_job_;
    ReportColumns columns_;
    bool header_done_ = false;  // CSV
    std::optional<PointKey> block_;  // OSU: configuration of the open header block
};

// "[#######.............]  12/40  bcast hier 65536 B" (no newline).
std::string progress_line(std::size_t done, std::size_t total, std::string_view label,
                          std::size_t bar_width = 24);

// Whether bench draws its progress bar: --progress (always), --no-progress
// (never), or neither (automatic): only when stderr is a terminal and stdout is
// not (rows on a terminal show the progress themselves, and a launcher forwards
// the two streams in no guaranteed order, so a bar redrawn between rows could
// garble them).  Under mpiexec a rank's streams are pipes: no bar unless asked.
enum class ProgressMode { automatic, always, never };
bool draw_progress(ProgressMode mode, bool stderr_is_terminal, bool stdout_is_terminal);

}  // namespace hiertune
