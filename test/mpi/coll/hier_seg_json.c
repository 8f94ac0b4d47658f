/*
 * mpich-hier: a Csel JSON tree naming segmented trees with parameters is used.
 *
 * Run with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=hier_seg_tree.json
 * (make_hier_tree.py ... seg: on parent comms, bcast = MPIR_Bcast_intra_seg_chain with
 * segsize=4096 and fanout=3, reduce = MPIR_Reduce_intra_seg_binomial with segsize=2048)
 * on emulated nodes, and no algorithm CVAR.  Checks through the plugin's pvars that the
 * tree's algorithms ran with the tree's segment sizes (which win over the
 * MPIR_CVAR_<COLL>_SEG_SEGSIZE CVARs), and the data.
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
    int provided, rank, size;
    const int n = 65536 / sizeof(int);  /* 64 KiB */
    int *buf = malloc(n * sizeof(int)), *sum = malloc(n * sizeof(int));
    hier_pvar calls, segs, red_calls, red_segs;
    unsigned long long c0, s0;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hier_pvar_open(&calls, "coll_hier_bcast_seg_chain_count");
    hier_pvar_open(&segs, "coll_hier_bcast_seg_segments");
    hier_pvar_open(&red_calls, "coll_hier_reduce_seg_binomial_count");
    hier_pvar_open(&red_segs, "coll_hier_reduce_seg_segments");
    hier_cvar_write_int("MPIR_CVAR_BCAST_SEG_SEGSIZE", 1024);
    hier_cvar_write_int("MPIR_CVAR_REDUCE_SEG_SEGSIZE", 1024);

    for (int i = 0; i < n; i++)
        buf[i] = rank == size - 1 ? i * 3 + 1 : -1;
    c0 = hier_pvar_read(&calls);
    s0 = hier_pvar_read(&segs);
    MPI_Bcast(buf, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    expect(hier_pvar_read(&calls) - c0 == 1, "seg_chain bcast ran once on MPI_COMM_WORLD");
    expect(hier_pvar_read(&segs) - s0 == 16, "the tree's segsize=4096 gave 16 segments");
    for (int i = 0; i < n; i++)
        if (buf[i] != i * 3 + 1) {
            expect(0, "broadcast data");
            break;
        }

    for (int i = 0; i < n; i++)
        buf[i] = rank + i;
    c0 = hier_pvar_read(&red_calls);
    s0 = hier_pvar_read(&red_segs);
    MPI_Reduce(buf, sum, n, MPI_INT, MPI_SUM, size / 2, MPI_COMM_WORLD);
    expect(hier_pvar_read(&red_calls) - c0 == 1, "seg_binomial reduce ran once");
    expect(hier_pvar_read(&red_segs) - s0 == 32, "the tree's segsize=2048 gave 32 segments");
    if (rank == size / 2)
        for (int i = 0; i < n; i++)
            if (sum[i] != size * i + size * (size - 1) / 2) {
                expect(0, "reduce data");
                break;
            }

    hier_pvar_close(&calls);
    hier_pvar_close(&segs);
    hier_pvar_close(&red_calls);
    hier_pvar_close(&red_segs);
    free(buf);
    free(sum);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
