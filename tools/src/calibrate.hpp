// `hiertune calibrate`: point-to-point latency and bandwidth between node 0's
// leader and every other node leader, and of one intra-node pair (lib/calibration).
// Runs on every rank of MPI_COMM_WORLD (MPI already initialised); only rank 0
// prints and touches the database.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/common/stats.hpp"
#include "hiertune/models/calibration.hpp"

namespace hiertune {

struct CalibrateOptions {
    StoppingRule rule;                       // warm-up, repetitions, precision of each measurement
    double max_time = 5;                     // wall-clock cap per measurement (a link's latency or bandwidth); 0: none
    std::uint64_t bw_size = 1 << 20;         // bytes per message of the bandwidth stream
    std::uint64_t bw_window = 8;             // messages in flight before the ack
    OutputFormat format = OutputFormat::osu;
    std::string db_path;                     // store the calibration of the job; empty: none
    std::string machine;                     // job identity; empty: rank 0's processor name
    bool if_missing = false;                 // with db: keep a stored calibration (that holds the rate)
    std::optional<double> expect_rate;       // bytes/s every inter-node link should carry
    double tolerance_percent = kDefaultRateTolerancePercent;
    std::string cluster;                     // HIERTUNE_CLUSTER
};

// Returns the exit status, the same on every rank: 0, or 1 after an error or
// when an inter-node link is off the expected rate.
int run_calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hiertune
