// `hiertune overlap-report`: runs of `hiertune overlap --json` read back and
// shown side by side, e.g. the same grid without and with
// MPIR_CVAR_ASYNC_PROGRESS (MPICH reads it only in MPI_Init, so each setting
// is a launch of its own), as ratio tables, verdicts and gnuplot heat maps.
//
// The JSON of one run, one object per line:
//   {"settings": {...}}                      first: OverlapSettings
//   {"operation": ..., "size": ..., ...}     one per cell (OverlapCell)
//   {"verdict": ..., "operation": ...}       after each configuration's cells
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "hiertune/models/overlap.hpp"
#include "hiertune/common/params_codec.hpp"

namespace hiertune {

// What the run measured under: what decides how much overlaps, beyond the
// operation.
struct OverlapSettings {
    int ranks = 0;
    int ranks_per_node = 0;           // the most on one node
    unsigned threads = 1;             // computation threads per rank
    std::string async_progress;       // MPIR_CVAR_ASYNC_PROGRESS as MPI_T reads it; "" if not there
    std::string thread_level;         // MPI_Query_thread: single, funneled, serialized, multiple
    std::size_t reps = 0;
};

// One configuration's cells: operation, algorithm ("default" or an item of
// MPIR_CVAR_<OP>_INTRA_ALGORITHM) and run-time parameters.
struct OverlapSeries {
    std::string operation;
    std::string algorithm;
    Params params;
    std::vector<OverlapCell> cells;
};

struct OverlapRun {
    std::string source;  // the file, for messages
    OverlapSettings settings;
    std::vector<OverlapSeries> series;  // in the run's order
};

// The settings object (the first line of the JSON output).
std::string overlap_settings_json(const OverlapSettings& settings);

// "ASYNC_PROGRESS=1, 4 threads, 2 ranks (1 per node)".
std::string settings_label(const OverlapSettings& settings);

// "iallreduce (default)", "ibcast (tsp_tree MPIR_CVAR_IBCAST_TREE_KVAL=4)".
std::string series_label(const OverlapSeries& series);

// Reads one run.  Verdict lines are skipped (recomputed from the cells).
// Throws std::runtime_error naming source and line for a line that is not
// JSON, a missing settings object, a cell without its fields, or no cell.
OverlapRun read_overlap_run(std::istream& in, const std::string& source);

// The report as text: per configuration (in first-seen order), one ratio
// table per run (rows sizes, columns computation times; a cell that is not
// significant in parentheses) and one verdict line per run.
std::string overlap_report_text(const std::vector<OverlapRun>& runs);

// One heat map per configuration: a gnuplot script (self-contained, the
// data inline) writing png_path, one panel per run (the same configuration;
// a run without it gets no panel), cells coloured by ratio (0 black, 1 red,
// as the paper), each labelled with its value (grey: not significant).
// Throws std::invalid_argument when no run has the configuration.
std::string overlap_heatmap_script(const std::vector<OverlapRun>& runs, const OverlapSeries& series,
                                   const std::string& png_path);

// The configurations of all runs, each once, in first-seen order (the cells
// those of the first run that has it).
std::vector<OverlapSeries> overlap_series_union(const std::vector<OverlapRun>& runs);

// A file name for a configuration's heat map: "overlap-iallreduce-default.png";
// parameters add "-NAME-VALUE" (lower case, MPIR_CVAR_ dropped), any other
// character than [a-z0-9_.-] becomes '_'.
std::string heatmap_file_name(const OverlapSeries& series);

}  // namespace hiertune
