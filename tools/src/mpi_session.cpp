#include "mpi_session.hpp"

#include <cstdlib>

#include <mpi.h>

namespace hiertune {

MpiSession::MpiSession(int& argc, char**& argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; this tells the compiler so
}

}  // namespace hiertune
