/*
 * A tool's MPI_T_init_thread ... MPI_T_finalize pair while MPI is initialized leaves the
 * library's CVARs in place (maint/patches/07-mpit-finalize-keeps-cvars.patch): the
 * shared-memory collectives that a communicator sets up only after its first few calls,
 * on communicators used before and created after the pair, still read their tree type
 * CVARs (stock 5.0.1 freed them and crashed in strcmp), and a second pair reads a CVAR
 * back.  Run on ranks that share nodes (cliques), so that the node communicators have
 * more than one rank.
 */
#include <mpi.h>
#include <stdio.h>
#include "hier_util.h"

/* Enough calls on comm to pass MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD, checked */
static int collectives(MPI_Comm comm)
{
    int errors = 0, rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 20; i++) {
        int value = rank == 0 ? 1000 + i : -1, sum = 0;
        MPI_Barrier(comm);
        MPI_Bcast(&value, 1, MPI_INT, 0, comm);
        errors += value != 1000 + i;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
        errors += sum != size * (size - 1) / 2;
        MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, comm);
        errors += rank == 0 && sum != size * (size - 1) / 2;
        int all[64];
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, comm);
        for (int r = 0; r < size && r < 64; r++)
            errors += all[r] != r;
    }
    return errors;
}

static void mpit_pair(void)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    (void) hier_cvar_read_int("MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD");
    MPI_T_finalize();
}

int main(int argc, char **argv)
{
    int errors = 0, provided, size;
    MPI_Comm before, after;

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        HIER_FAIL("at most 64 ranks");
    MPI_Comm_dup(MPI_COMM_WORLD, &before);
    MPI_Barrier(before);        /* used, but below the shared-memory threshold */
    MPI_T_finalize();
    mpit_pair();                /* a pair of its own while MPI is initialized */

    errors += collectives(before);
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &after);
    errors += collectives(after);
    errors += collectives(MPI_COMM_WORLD);

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (hier_cvar_read_int("MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD") < 0)
        errors++;
    MPI_T_finalize();

    MPI_Comm_free(&before);
    MPI_Comm_free(&after);
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
