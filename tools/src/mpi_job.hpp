// MPI helpers shared by the MPI runners (`hiertune bench`, `tasks`, `calibrate`, `verify`).
#pragma once

#include <string>
#include <vector>

#include "hiertune/measure_db.hpp"
#include "hiertune/topology.hpp"

namespace hiertune {

// MPI_T_init_thread .. MPI_T_finalize.
class MpiToolsSession {
public:
    MpiToolsSession();
    ~MpiToolsSession();
    MpiToolsSession(const MpiToolsSession&) = delete;
    MpiToolsSession& operator=(const MpiToolsSession&) = delete;
};

int world_rank();

// True on every rank iff `ok` on every rank: decisions taken together.
bool all_ok(bool ok);

// The node of every world rank, on every rank (collective): a node is an
// MPI_COMM_TYPE_SHARED group (emulated cliques included), named by the world
// rank of its first member, its leader.
std::vector<int> node_of_each_rank();

// Everything rank 0 needs to describe the job, gathered from all ranks
// (collective; filled on rank 0 only).
struct JobFacts {
    JobDescription job;
    std::vector<HostLoad> oversubscribed;
};
JobFacts gather_job_facts(const std::string& machine);

}  // namespace hiertune
