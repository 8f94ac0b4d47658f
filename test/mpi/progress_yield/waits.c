/*
 * Two ranks: rank 1 waits in MPI_Recv (argument "recv") or in MPI_Bcast ("bcast") while
 * rank 0 computes for 0.3 s (a busy loop: no system call of its own).  Run under strace
 * by progress_yield.sh, which counts the sleeps of the waiting rank's progress loop.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void compute(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
}

int main(int argc, char **argv)
{
    int rank, value = 0, errors = 0;
    int bcast = argc > 1 && !strcmp(argv[1], "bcast");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        compute(0.3);
        value = 42;
    }
    if (bcast) {
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    errors = rank <= 1 && value != 42;
    if (errors)
        printf("rank %d: wrong value %d\n", rank, value);
    MPI_Finalize();
    return errors != 0;
}
