/*
 * mpich-hier: a Csel JSON tree naming MPIR_Bcast_intra_hier with parameters is used.
 *
 * Run with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=hier_tree.json (make_hier_tree.py:
 * hier bcast and reduce with segsize=4096, hier allreduce with segsize=8192 on parent
 * comms, MPICH's own choices elsewhere) on emulated nodes, and no algorithm CVAR.
 * Checks through the plugin's pvars that:
 *   - a bcast, a reduce and an allreduce on a multi-node comm ran hier, with the tree's
 *     segment sizes (which win over the MPIR_CVAR_<COLL>_HIER_SEGSIZE CVARs);
 *   - a bcast on a flat comm (one rank per node: MPICH gives it no node hierarchy) did
 *     not run hier (the tree's other branch);
 *   - the data arrived.
 */

#include "hier_util.h"

static int errors;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "failed: %s\n", what);
        errors++;
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, node_size, node_rank, flat_size;
    const int n = 65536 / sizeof(int);  /* 64 KiB: 16 segments of 4096 B */
    int *buf = malloc(n * sizeof(int));
    hier_pvar calls, segs;
    unsigned long long calls0, segs0;
    MPI_Comm node, flat;
    int *sum = malloc(n * sizeof(int));
    hier_pvar red_calls, red_segs, allred_calls, allred_segs;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hier_pvar_open(&calls, "coll_hier_bcast_hier_count");
    hier_pvar_open(&segs, "coll_hier_bcast_hier_segments");
    hier_pvar_open(&red_calls, "coll_hier_reduce_hier_count");
    hier_pvar_open(&red_segs, "coll_hier_reduce_hier_segments");
    hier_pvar_open(&allred_calls, "coll_hier_allreduce_hier_count");
    hier_pvar_open(&allred_segs, "coll_hier_allreduce_hier_segments");
    hier_cvar_write_int("MPIR_CVAR_BCAST_HIER_SEGSIZE", 1024);
    hier_cvar_write_int("MPIR_CVAR_REDUCE_HIER_SEGSIZE", 1024);
    hier_cvar_write_int("MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", 1024);

    /* the first bcast from this root splits the steps' communicators where levels lie
     * inside the node (packages); their set-up broadcasts on them, through the same tree
     * (counted too): the measured call is the second */
    MPI_Bcast(buf, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        buf[i] = rank == size - 1 ? i * 3 + 1 : -1;
    calls0 = hier_pvar_read(&calls);
    segs0 = hier_pvar_read(&segs);
    MPI_Bcast(buf, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    expect(hier_pvar_read(&calls) - calls0 == 1, "hier ran once on MPI_COMM_WORLD");
    expect(hier_pvar_read(&segs) - segs0 == 16, "the tree's segsize=4096 gave 16 segments");
    for (int i = 0; i < n; i++)
        if (buf[i] != i * 3 + 1) {
            expect(0, "broadcast data");
            break;
        }

    /* reduce at a root that is not rank 0, then allreduce */
    for (int i = 0; i < n; i++)
        buf[i] = rank + i;
    calls0 = hier_pvar_read(&red_calls);
    segs0 = hier_pvar_read(&red_segs);
    MPI_Reduce(buf, sum, n, MPI_INT, MPI_SUM, size / 2, MPI_COMM_WORLD);
    expect(hier_pvar_read(&red_calls) - calls0 == 1, "hier reduce ran once");
    expect(hier_pvar_read(&red_segs) - segs0 == 16, "the tree's segsize=4096 gave 16 segments");
    if (rank == size / 2)
        for (int i = 0; i < n; i++)
            if (sum[i] != size * i + size * (size - 1) / 2) {
                expect(0, "reduce data");
                break;
            }
    calls0 = hier_pvar_read(&allred_calls);
    segs0 = hier_pvar_read(&allred_segs);
    MPI_Allreduce(buf, sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(hier_pvar_read(&allred_calls) - calls0 == 1, "hier allreduce ran once");
    expect(hier_pvar_read(&allred_segs) - segs0 == 8, "the tree's segsize=8192 gave 8 segments");
    for (int i = 0; i < n; i++)
        if (sum[i] != size * i + size * (size - 1) / 2) {
            expect(0, "allreduce data");
            break;
        }

    /* the same local rank on every node: one rank per node, a flat comm for MPICH
     * (a one-node comm is a parent comm too), so the stock branch applies */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_rank(node, &node_rank);
    expect(node_size < size, "emulated nodes are set up (MPIR_CVAR_NUM_CLIQUES)");
    MPI_Comm_split(MPI_COMM_WORLD, node_rank, rank, &flat);
    MPI_Comm_size(flat, &flat_size);
    calls0 = hier_pvar_read(&calls);
    for (int i = 0; i < n; i++)
        buf[i] = node_rank == 0 && rank == 0 ? i - 5 : -1;
    MPI_Bcast(buf, n, MPI_INT, 0, flat);
    expect(hier_pvar_read(&calls) == calls0, "hier did not run on a flat comm");
    if (flat_size > 1 && node_rank == 0)
        for (int i = 0; i < n; i++)
            if (buf[i] != i - 5) {
                expect(0, "broadcast data on the flat comm");
                break;
            }
    MPI_Comm_free(&flat);
    MPI_Comm_free(&node);

    hier_pvar_close(&calls);
    hier_pvar_close(&segs);
    hier_pvar_close(&red_calls);
    hier_pvar_close(&red_segs);
    hier_pvar_close(&allred_calls);
    hier_pvar_close(&allred_segs);
    free(buf);
    free(sum);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
