// MPI helpers shared by the MPI runners (`hiertune bench`, `tasks`, `calibrate`, `verify`).
#pragma once

#include <ostream>
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

// The end of a run that met bad input before measuring (an option, the database, a
// value MPI_T or the library refuses, the job's shape), on every rank alike: rank 0
// prints one "hiertune: error:" line, `error` (this rank's; rank 0 may have none, then
// `elsewhere` says so), and every rank returns kBadInputStatus.
int bad_input_on_every_rank(const std::string& error, const std::string& elsewhere, std::ostream& err);

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
