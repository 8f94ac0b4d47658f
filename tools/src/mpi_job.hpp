// MPI helpers shared by the MPI runners (`hiertune bench`, `tasks`, `calibrate`, `verify`).
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/topology.hpp"

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

// A communicator this rank made (a dup or a split): freed when the owner goes.
class OwnedComm {
public:
    OwnedComm() = default;
    explicit OwnedComm(MPI_Comm comm) : comm_(comm) {}
    // A duplicate of `comm`, so that the measured calls have a communicator of their own.
    static OwnedComm dup(MPI_Comm comm) {
        MPI_Comm copy = MPI_COMM_NULL;
        MPI_Comm_dup(comm, &copy);
        return OwnedComm(copy);
    }
    ~OwnedComm() { free(); }
    OwnedComm(OwnedComm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
    OwnedComm& operator=(OwnedComm&& other) noexcept {
        if (this != &other) {
            free();
            comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
        }
        return *this;
    }
    OwnedComm(const OwnedComm&) = delete;
    OwnedComm& operator=(const OwnedComm&) = delete;

    MPI_Comm get() const { return comm_; }

private:
    void free() {
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }
    MPI_Comm comm_ = MPI_COMM_NULL;
};

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
