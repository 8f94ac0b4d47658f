/* MPI_Init, one bcast checked, MPI_Finalize: the job the invalid CVAR values must stop
 * in MPI_Init (prints "cvar_smoke: ran" when it gets through). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    value = rank == 0 ? 42 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (value != 42)
        fprintf(stderr, "cvar_smoke: rank %d got %d\n", rank, value);
    if (rank == 0)
        printf("cvar_smoke: ran\n");
    MPI_Finalize();
    return value == 42 ? 0 : 1;
}
