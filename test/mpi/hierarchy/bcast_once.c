/* One MPI_Bcast on MPI_COMM_WORLD: with a plugin algorithm forced and
 * MPIR_CVAR_HIER_DUMP=1 the plugin builds, and prints, the communicator's hierarchy. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int value = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        value = 42;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (value != 42) {
        fprintf(stderr, "rank %d: got %d\n", rank, value);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
