/*
 * mpich-hier: hier collectives under MPI_THREAD_MULTIPLE.  NTHREADS threads per rank,
 * each on its own dup of MPI_COMM_WORLD, run MPI_Bcast, MPI_Reduce, MPI_Allreduce,
 * MPI_Allgather, MPI_Gather, MPI_Scatter and MPI_Barrier (several segments, every root in
 * turn) at the same time and check every result; the plugin's per-communicator state and
 * the shm step's guard must not mix them up.  Run with
 * MPIR_CVAR_<COLL>_INTRA_ALGORITHM=hier for them and emulated nodes.  With -nb the bcast,
 * reduce and allreduce are MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce and MPI_Wait (their
 * schedules: MPIR_CVAR_I<COLL>_INTRA_ALGORITHM=tsp_hier).
 */

#include "hier_util.h"
#include <pthread.h>

#define NTHREADS 3
#define ITERS 6
#define COUNT 5000              /* ints: several 16 KiB segments */

static MPI_Comm comms[NTHREADS];
static int nb;                  /* -nb: the non-blocking forms, each waited for */

static void bcast(int *buf, int root, MPI_Comm comm)
{
    MPI_Request req;
    if (!nb) {
        bcast(buf, root, comm);
        return;
    }
    MPI_Ibcast(buf, COUNT, MPI_INT, root, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void reduce(const int *in, int *out, int root, MPI_Comm comm)
{
    MPI_Request req;
    if (!nb) {
        MPI_Reduce(in, out, COUNT, MPI_INT, MPI_SUM, root, comm);
        return;
    }
    MPI_Ireduce(in, out, COUNT, MPI_INT, MPI_SUM, root, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void allreduce(const int *in, int *out, MPI_Comm comm)
{
    MPI_Request req;
    if (!nb) {
        MPI_Allreduce(in, out, COUNT, MPI_INT, MPI_SUM, comm);
        return;
    }
    MPI_Iallreduce(in, out, COUNT, MPI_INT, MPI_SUM, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}
static int errors[NTHREADS];

static void *worker(void *arg)
{
    int t = (int) (long) arg, rank, size;
    MPI_Comm comm = comms[t];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *buf = malloc(sizeof(int) * COUNT), *out = malloc(sizeof(int) * COUNT);
    int *all = malloc(sizeof(int) * COUNT * size);

    for (int it = 0; it < ITERS; it++) {
        int root = (it + t) % size;
        for (int i = 0; i < COUNT; i++)
            buf[i] = rank == root ? i * 3 + t + it : -1;
        bcast(buf, root, comm);
        for (int i = 0; i < COUNT; i++)
            if (buf[i] != i * 3 + t + it) {
                errors[t]++;
                break;
            }
        for (int i = 0; i < COUNT; i++)
            buf[i] = rank + i + t;
        reduce(buf, out, root, comm);
        for (int i = 0; rank == root && i < COUNT; i++)
            if (out[i] != size * (size - 1) / 2 + size * (i + t)) {
                errors[t]++;
                break;
            }
        allreduce(buf, out, comm);
        for (int i = 0; i < COUNT; i++)
            if (out[i] != size * (size - 1) / 2 + size * (i + t)) {
                errors[t]++;
                break;
            }
        /* block of rank r, element i: r + i + t */
        MPI_Allgather(buf, COUNT, MPI_INT, all, COUNT, MPI_INT, comm);
        for (long i = 0; i < (long) COUNT * size; i++)
            if (all[i] != i / COUNT + i % COUNT + t) {
                errors[t]++;
                break;
            }
        for (long i = 0; i < (long) COUNT * size; i++)
            all[i] = -1;
        MPI_Gather(buf, COUNT, MPI_INT, all, COUNT, MPI_INT, root, comm);
        for (long i = 0; rank == root && i < (long) COUNT * size; i++)
            if (all[i] != i / COUNT + i % COUNT + t) {
                errors[t]++;
                break;
            }
        MPI_Scatter(all, COUNT, MPI_INT, out, COUNT, MPI_INT, root, comm);
        for (int i = 0; i < COUNT; i++)
            if (out[i] != rank + i + t) {
                errors[t]++;
                break;
            }
        MPI_Barrier(comm);
    }
    free(all);
    free(buf);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, total = 0;
    pthread_t threads[NTHREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    nb = argc > 1 && !strcmp(argv[1], "-nb");
    if (provided != MPI_THREAD_MULTIPLE)
        HIER_FAIL("MPI_THREAD_MULTIPLE not provided (%d)", provided);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void *) (long) t);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(threads[t], NULL);
        total += errors[t];
        if (errors[t])
            fprintf(stderr, "thread %d: %d wrong results\n", t, errors[t]);
        MPI_Comm_free(&comms[t]);
    }
    hier_report_errors(total);
    MPI_Finalize();
    return 0;
}
