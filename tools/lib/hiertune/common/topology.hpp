// The job a benchmark runs in, from facts the MPI side gathers on rank 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hiertune {

struct Layout {
    int nodes = 0;
    int ppn = 0;            // ranks per node; the largest node's count when uneven
    std::string placement;  // "block", "round-robin" or "irregular"
};

// node_of_rank[r] identifies rank r's node (any id, e.g. the world rank of its
// MPI_COMM_TYPE_SHARED leader).  One node, or one rank per node, is "block".
// Throws std::invalid_argument if empty.
Layout describe_layout(const std::vector<int>& node_of_rank);

struct HostLoad {
    std::string host;
    int ranks = 0;
    int cores = 0;
};

// Hosts with more ranks than online cores, by processor name (emulated
// nodes share a real host, so MPI_COMM_TYPE_SHARED cannot tell).  cores_of_rank[r]
// is what rank r saw; a host's smallest report counts.
std::vector<HostLoad> oversubscribed_hosts(const std::vector<std::string>& host_of_rank,
                                           const std::vector<int>& cores_of_rank);

// MPI_Get_library_version text on one line: "key: value; key: value", blank
// fields dropped, whitespace runs collapsed.
std::string condense_library_version(std::string_view text);

}  // namespace hiertune
