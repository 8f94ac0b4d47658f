// hier's default plan against MPICH 5.0.1's algorithms, in messages on the critical path
// (src/mpi/coll/hier/hier_critical_path.h, linked in): the rows of `hiertune
// critical-path`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hiertune {

struct CriticalPathRow {
    std::string collective;
    int nodes = 0;
    int ppn = 0;
    std::string placement;  // "block" or "cyclic"
    std::uint64_t bytes = 0;  // allgather, gather, scatter: per rank; alltoall: per pair
    std::string hier_plan;    // its steps, "shm > recursive_doubling(4) > shm"
    int hier_inter = 0;       // sequential inter-node messages
    int hier_intra = 0;       // intra-node steps
    std::string mpich_best;   // the MPICH algorithm with the fewest inter-node messages
    int mpich_inter = 0;
    int mpich_intra = 0;
    // hier sends no more sequential inter-node messages than the best MPICH algorithm
    bool hier_no_worse() const { return hier_inter <= mpich_inter; }
};

struct CriticalPathQuery {
    std::vector<std::string> collectives;  // empty: all eight
    std::vector<int> nodes;
    std::vector<int> ppn;
    std::vector<std::string> placements;  // "block", "cyclic"
    std::vector<std::uint64_t> bytes;
    std::int64_t latency_bytes = 0;  // alpha / beta of the inter-node links; 0: the plugin's default
};

// The collectives, in the table's order: bcast, reduce, allreduce, allgather, gather,
// scatter, barrier, alltoall.
std::vector<std::string> critical_path_collectives();
// The most ranks a shape may have (nodes x ppn).
int critical_path_max_ranks();
// The plugin's default alpha / beta in bytes (MPII_HIER_LATENCY_BYTES_DEFAULT).
std::int64_t critical_path_default_latency_bytes();

// One row.  Throws std::invalid_argument on an unknown collective or placement, or a
// shape outside 1..critical_path_max_ranks() ranks.
CriticalPathRow critical_path_row(const std::string& collective, int nodes, int ppn, const std::string& placement,
                                  std::uint64_t bytes, std::int64_t latency_bytes = 0);
// Every row of the query: collectives, then nodes, ppn, placements and bytes, in their
// order.  Throws as critical_path_row.
std::vector<CriticalPathRow> critical_path_table(const CriticalPathQuery& query);
// The rows as a text table, one line each under a header line, columns aligned.
std::string format_critical_path_table(const std::vector<CriticalPathRow>& rows);

}  // namespace hiertune
