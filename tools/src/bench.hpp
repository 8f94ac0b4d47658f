// `hiertune bench`: times MPI_Bcast / MPI_Reduce / MPI_Allreduce /
// MPI_Allgather / MPI_Gather / MPI_Scatter / MPI_Barrier over message sizes
// (barrier: size 0 only) for any algorithm and parameter set, switched at run
// time by MPI_T control-variable writes.  The configurations of one
// (collective, size) are timed in turns, repetition by repetition, each with
// its own samples and stopping rule, and compared with the first
// (compare.hpp).  Runs on every rank of MPI_COMM_WORLD (MPI already
// initialised); only rank 0 prints and touches the database.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/common/stats.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

struct BenchOptions {
    std::vector<std::string> collectives{to_string(grammar::Collective::bcast)};  // supported_collectives() (sweep.hpp)
    std::vector<AlgorithmSpec> algorithms;  // empty: MPICH's default selection
    std::vector<ParamSpec> params;          // for every algorithm
    std::vector<std::uint64_t> sizes;
    StoppingRule rule;
    double max_time = 5;  // wall-clock seconds per point (its own turns), synchronisation included; 0: none
    std::size_t reps = 0;  // --reps: rule and max_time give exactly this many repetitions; 0: not fixed
    OutputFormat format = OutputFormat::osu;
    bool full = false;      // -f: Min/Max/Iterations columns
    bool validate = false;  // -c: check the data on every rank, every repetition
    bool same_runs_once = false;  // time one of the configurations that are the same run (sweep.hpp: same_run)
    ProgressMode progress = ProgressMode::automatic;  // the bar on stderr (draw_progress)
    std::string db_path;    // record every point and resume; empty: no database
    std::string machine;    // job identity; empty: rank 0's processor name
    std::string account_step;  // add each measured point's time to this step_times entry (a size's time
                               // shared among its points in proportion to their own turns)
    std::optional<double> link_rate;  // HIERTUNE_LINK_RATE, bytes/s: the link bound (compare.hpp)
    std::string cluster;              // HIERTUNE_CLUSTER, named with the rate
};

// Returns the process exit status (0, or 1 after a reported error or a
// failed data check); every rank returns the same.
int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hiertune
