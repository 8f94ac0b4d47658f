/*
 * mpich-hier: the device's own shared-memory collectives set themselves up while hier with
 * the shm intra-node submodule is forced.
 *
 * CH4's release_gather collectives (barrier, bcast, reduce on a node communicator) allocate
 * their shared segment lazily, after MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD calls, and that
 * set-up broadcasts on the node communicator through MPIR_Bcast_impl.  With
 * MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier and its intra submodule shm forced, that broadcast
 * used to re-enter release_gather on the half-initialised communicator and crash.
 *
 * Run with emulated nodes and hier + shm forced by the environment.  Barriers on world,
 * a split, a dup and a dup made later drive the device set-up on each; broadcasts,
 * reduces and allreduces in between check every rank's data.
 */

#include "hier_util.h"

static int errors;

static void check_bcast(MPI_Comm comm, int root, int n, int salt)
{
    int rank, *buf = malloc(n * sizeof(int));
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < n; i++)
        buf[i] = rank == root ? i * 7 + salt : -1;
    MPI_Bcast(buf, n, MPI_INT, root, comm);
    for (int i = 0; i < n; i++)
        if (buf[i] != i * 7 + salt) {
            fprintf(stderr, "bcast (root %d, %d ints): element %d is %d\n", root, n, i, buf[i]);
            errors++;
            break;
        }
    free(buf);
}

static void check_reductions(MPI_Comm comm, int n)
{
    int rank, size, *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < n; i++)
        in[i] = rank + i;
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        if (out[i] != size * (size - 1) / 2 + size * i) {
            fprintf(stderr, "allreduce (%d ints): element %d is %d\n", n, i, out[i]);
            errors++;
            break;
        }
    MPI_Reduce(in, out, n, MPI_INT, MPI_MAX, size - 1, comm);
    if (rank == size - 1)
        for (int i = 0; i < n; i++)
            if (out[i] != size - 1 + i) {
                fprintf(stderr, "reduce (%d ints): element %d is %d\n", n, i, out[i]);
                errors++;
                break;
            }
    free(in);
    free(out);
}

static void exercise(MPI_Comm comm, int salt)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int round = 0; round < 12; round++) {
        MPI_Barrier(comm);
        check_bcast(comm, round % size, round % 2 ? 1 : 5000, salt + round);
        check_reductions(comm, round % 3 ? 3 : 3000);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm dup, half, late;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

    exercise(MPI_COMM_WORLD, 1);
    exercise(half, 2);

    exercise(dup, 3);
    MPI_Comm_dup(MPI_COMM_WORLD, &late);        /* created after the others' set-up */
    exercise(late, 4);

    MPI_Comm_free(&late);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
