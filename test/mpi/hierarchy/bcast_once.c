/* One MPI_Bcast on MPI_COMM_WORLD: with a plugin algorithm forced and
 * MPIR_CVAR_HIER_DUMP=1 the plugin builds, and prints, the communicator's hierarchy.  An
 * error is printed here, before exiting, rather than by the abort of a fatal error handler
 * (whose output mpiexec may drop when every rank aborts at once). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int value = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        value = 42;
    int rc = MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "rank %d: MPI_Bcast failed: %s\n", rank, text);
        fflush(stderr);
        exit(1);
    }
    if (value != 42) {
        fprintf(stderr, "rank %d: got %d\n", rank, value);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
