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

// Hosts with more ranks than online cores.  A host is a kernel: the ranks whose
// kernel_of_rank (its boot id) is the same share its cores whatever their processor
// names (emulated nodes in network namespaces of one machine; MPI_COMM_TYPE_SHARED
// cannot tell either); a rank without one ("") is a host of its processor name alone.
// cores_of_rank[r] is what rank r saw; a host's smallest report counts.  HostLoad::host:
// the processor names of its ranks, in rank order ("mhe-n0, mhe-n1").
// "mhe-n0, mhe-n1: 8 ranks on 2 cores"
std::string to_string(const HostLoad& load);

std::vector<HostLoad> oversubscribed_hosts(const std::vector<std::string>& host_of_rank,
                                           const std::vector<std::string>& kernel_of_rank,
                                           const std::vector<int>& cores_of_rank);

// MPI_Get_library_version text on one line: "key: value; key: value", blank
// fields dropped, whitespace runs collapsed.
std::string condense_library_version(std::string_view text);

}  // namespace hiertune
