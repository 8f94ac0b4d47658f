/*
 * mpich-hier: the by_size crossovers a job runs with.  One Allreduce of 8 KiB on
 * MPI_COMM_WORLD, result checked; prints how many inter-node steps by_size sent to the
 * latency and to the bandwidth algorithm on rank 0 (pvars coll_hier_by_size_latency and
 * coll_hier_by_size_bandwidth).
 */

#include <mpi.h>
#include <stdio.h>
#include "../coll/hier_util.h"

#define COUNT 2048

static unsigned long long read_counter(const char *name)
{
    hier_pvar pv;
    hier_pvar_open(&pv, name);
    unsigned long long value = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return value;
}

int main(int argc, char **argv)
{
    int rank, size, provided, errors = 0;
    int buf[COUNT], out[COUNT];

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < COUNT; i++)
        buf[i] = rank + i;
    MPI_Allreduce(buf, out, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++)
        errors += out[i] != size * (size - 1) / 2 + size * i;
    unsigned long long latency = read_counter("coll_hier_by_size_latency");
    unsigned long long bandwidth = read_counter("coll_hier_by_size_bandwidth");
    MPI_T_finalize();
    if (errors)
        printf("rank %d: %d wrong elements\n", rank, errors);
    else if (rank == 0)
        printf("ok, by_size latency steps: %llu, bandwidth steps: %llu\n", latency, bandwidth);
    MPI_Finalize();
    return 0;
}
