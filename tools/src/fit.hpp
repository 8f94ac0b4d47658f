// `hiertune fit`: measures what the analytic models need (Nuriyev et al.,
// section 4; lib/analytic_catalog.hpp) and stores it with the job:
//   gamma:       a non-blocking linear fan-out of one segment from rank 0 to the
//                next q-1 ranks, q = 2 .. all, at each gamma segment size
//                (section 4.1; the time of the slowest rank, after a barrier);
//   experiments: every modelled algorithm at log-spaced sizes, each run followed
//                by a linear gather without synchronisation of (i + 1) * gather
//                bytes per rank at the i-th size, timed at the root (section
//                4.2, Fig. 4; analytic_catalog.hpp);
//   eager:       MPI_Send from rank 0 to rank 1 of 1 KiB, 2 KiB, ... up to the largest
//                gamma segment size: its return over half the round trip
//                (StoredEagerPoint), which says up to which size the link model
//                costs the seg_* bcasts (analytic::eager_limit);
// then solves alpha and beta per algorithm (Huber) into the database and prints
// them.  A rerun measures only what is missing and refits.  Runs on every rank
// of MPI_COMM_WORLD (MPI initialised); rank 0 prints and touches the database.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/common/stats.hpp"
#include "hiertune/models/analytic_catalog.hpp"

namespace hiertune {

struct FitOptions {
    std::vector<std::string> collectives = analytic::modelled_collectives();
    std::vector<std::string> algorithms;  // items; empty: every modelled one
    std::vector<std::uint64_t> sizes;     // experiment message sizes
    std::vector<std::uint64_t> gamma_segsizes;
    std::uint64_t segsize = 65536;  // seg_* experiments
    int chain_fanout = 2;           // seg_chain experiments
    std::uint64_t gather_bytes = 1024;  // base of the gathers
    StoppingRule rule;
    double max_time = 5;  // seconds per measurement
    std::string db_path;  // required
    std::string machine;
};

// The exit status, the same on every rank.
int run_fit(const FitOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hiertune
