// `hiertune overlap`: how much non-blocking pt2pt and collective operations
// overlap with computation, over message size x computation time (Denis and
// Trahay, ICPP 2016; the MPI-free core is lib/hiertune/models/overlap.hpp).  Runs on
// every rank of MPI_COMM_WORLD (MPI already initialised, >= 2 ranks): ranks 0
// and 1 do the pt2pt operations, every rank the collectives; only rank 0 prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

struct OverlapOptions {
    std::vector<std::string> operations;    // overlap_operations() (overlap.hpp)
    std::vector<AlgorithmSpec> algorithms;  // collectives only; empty: MPICH's default selection
    std::vector<ParamSpec> params;          // for every operation
    std::uint64_t min_size = 1024;
    std::uint64_t max_size = 1024 * 1024;
    double min_comp_us = 10;
    double max_comp_us = 10000;
    unsigned comp_points = 4;
    std::size_t reps = 10;  // per cell, after one warm-up; the median is reported
    unsigned threads = 1;   // computation threads per rank (ComputeTeam)
    OutputFormat format = OutputFormat::osu;  // osu: a plain table
};

// Returns the process exit status (0, or 1 after a reported error); every
// rank returns the same.
int run_overlap(const OverlapOptions& options, std::ostream& out, std::ostream& err);

// `hiertune overlap-report` (no MPI): the runs of `overlap --json` in `paths`
// side by side (overlap_report.hpp), and with png_dir one heat map per
// configuration there (a .gp script beside each PNG).  Returns 0; throws
// UsageError for an unreadable file, std::runtime_error for one that is not
// overlap output, TuneError when gnuplot fails.
int run_overlap_report(const std::vector<std::string>& paths, const std::string& png_dir, std::ostream& out);

}  // namespace hiertune
