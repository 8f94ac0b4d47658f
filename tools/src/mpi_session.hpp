// MPI_Init .. MPI_Finalize for `hiertune bench` (no <mpi.h> here, so the
// command-line layer does not recompile when MPICH is reinstalled).
#pragma once

namespace hiertune {

class MpiSession {
public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    // MPI_Abort on MPI_COMM_WORLD: the way out when ranks cannot agree to stop.
    [[noreturn]] void abort(int status);

private:
    int rank_ = 0;
    int size_ = 1;
};

}  // namespace hiertune
