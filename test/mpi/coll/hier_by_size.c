/*
 * mpich-hier: the by_size submodules, the hier algorithms' defaults, take the latency
 * algorithm for a small message and the bandwidth one for a large message
 * (hier_by_size.h), and the results are right either way.
 *
 * Per collective (bcast, reduce, allreduce, allgather: hier forced by their CVARs in the
 * testlist, every submodule left at its default), one call of a small and one of a large
 * message: the pvars coll_hier_by_size_latency / _bandwidth must move on some rank for
 * the one expected and on none for the other, and the data must be right.  Then
 * MPIR_CVAR_HIER_LATENCY_BYTES=1 (links whose start-up is worth one byte): an 8 KiB
 * allreduce that the default model sends to recursive doubling on 4 or 8 nodes takes the
 * ring.
 *
 * Run with MPIR_CVAR_NUM_CLIQUES (several emulated nodes) and -nodes=N, their number.
 */

#include "hier_util.h"

static int errors;
static int rank, size;
static hier_pvar latency_pv, bandwidth_pv;

typedef struct {
    unsigned long long latency, bandwidth;
} counts;

static counts now(void)
{
    counts c = { hier_pvar_read(&latency_pv), hier_pvar_read(&bandwidth_pv) };
    return c;
}

/* which counters moved since c0, on any rank (read before the allreduce that tells) */
static void expect_moved(const char *what, counts c0, int want_latency)
{
    counts c1 = now();
    int moved[2] = { c1.latency != c0.latency, c1.bandwidth != c0.bandwidth }, any[2];
    MPI_Allreduce(moved, any, 2, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any[0] != want_latency || any[1] != !want_latency) {
        errors++;
        if (rank == 0)
            fprintf(stderr, "%s: latency steps %s, bandwidth steps %s; wanted the %s one\n",
                    what, any[0] ? "counted" : "none", any[1] ? "counted" : "none",
                    want_latency ? "latency" : "bandwidth");
    }
}

static void check_ints(const char *what, const int *buf, int n, int (*want)(int))
{
    for (int i = 0; i < n; i++)
        if (buf[i] != want(i)) {
            errors++;
            fprintf(stderr, "%s: rank %d element %d is %d, want %d\n", what, rank, i, buf[i],
                    want(i));
            return;
        }
}

static int sum_of_ranks_plus(int i)
{
    return size * (size - 1) / 2 + size * i;
}

static int bcast_value(int i)
{
    return 7 * i + 3;
}

static void bcast_and_reduce(int n, int want_latency)
{
    char what[64];
    int *buf = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);

    for (int i = 0; i < n; i++)
        buf[i] = rank == 0 ? bcast_value(i) : -1;
    counts c0 = now();
    MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "bcast of %d ints", n);
    expect_moved(what, c0, want_latency);
    check_ints(what, buf, n, bcast_value);

    for (int i = 0; i < n; i++)
        buf[i] = rank + i;
    c0 = now();
    MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "reduce of %d ints", n);
    expect_moved(what, c0, want_latency);
    if (rank == 0)
        check_ints(what, out, n, sum_of_ranks_plus);

    c0 = now();
    MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "allreduce of %d ints", n);
    expect_moved(what, c0, want_latency);
    check_ints(what, out, n, sum_of_ranks_plus);
    free(buf);
    free(out);
}

static void allgather(int n, int want_latency)
{
    char what[64];
    int *mine = malloc(sizeof(int) * n), *all = malloc(sizeof(int) * n * size);

    for (int i = 0; i < n; i++)
        mine[i] = rank * n + i;
    counts c0 = now();
    MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "allgather of %d ints", n);
    expect_moved(what, c0, want_latency);
    for (int i = 0; i < n * size; i++)
        if (all[i] != i) {
            errors++;
            fprintf(stderr, "%s: rank %d element %d is %d\n", what, rank, i, all[i]);
            break;
        }
    free(mine);
    free(all);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hier_pvar_open(&latency_pv, "coll_hier_by_size_latency");
    hier_pvar_open(&bandwidth_pv, "coll_hier_by_size_bandwidth");

    bcast_and_reduce(2, 1);     /* 8 B: one piece */
    bcast_and_reduce(1 << 18, 0);       /* 1 MiB: 64 segments */
    allgather(2, 1);
    allgather(8192, 0);         /* 32 KiB per rank: a node's block is longer than a start-up */

    int nodes = 0;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-nodes=", 7))
            nodes = atoi(argv[i] + 7);
    if (nodes == 4 || nodes == 8) {
        int n = 2048;           /* 8 KiB */
        int *buf = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++)
            buf[i] = rank + i;
        counts c0 = now();
        MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        expect_moved("allreduce of 8 KiB, default latency", c0, 1);
        hier_cvar_write_int("MPIR_CVAR_HIER_LATENCY_BYTES", 1);
        c0 = now();
        MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        hier_cvar_write_int("MPIR_CVAR_HIER_LATENCY_BYTES", 0);
        expect_moved("allreduce of 8 KiB, HIER_LATENCY_BYTES=1", c0, 0);
        check_ints("allreduce of 8 KiB", out, n, sum_of_ranks_plus);
        free(buf);
        free(out);
    }

    hier_pvar_close(&latency_pv);
    hier_pvar_close(&bandwidth_pv);
    MPI_T_finalize();
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
