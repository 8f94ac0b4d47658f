/*
 * mpich-hier: the up_inter_* parameters reach the steps among switch groups and only them,
 * the down_inter_* ones the steps among package leaders inside a node and only them.
 *
 * One MPI_Reduce of a non-commutative op (affine maps, rank order) on MPI_COMM_WORLD with
 * hier forced.  A seg_* tree other than seg_in_order_binary, given a non-commutative op,
 * runs the in-order tree instead and counts it in coll_hier_reduce_seg_in_order_subst:
 * with MPIR_CVAR_REDUCE_HIER_UP_INTER_ALGORITHM (or _DOWN_) = seg_binomial and every other
 * step's submodule a tsp tree, that counter moves only if a step of that level took those
 * parameters.  Usage: hier_level_params -expect-subst 1|0 (summed over ranks: some,
 * none).  The result is checked against the rank-order reference.
 */

#include "hier_util.h"

#define PRIME 1000003

/* inout = in o inout for affine maps x -> m x + c mod PRIME: not commutative */
static void affine(void *in, void *inout, int *len, MPI_Datatype * type)
{
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        long long m = a[2 * i] * b[2 * i] % PRIME;
        long long c = (a[2 * i] * b[2 * i + 1] + a[2 * i + 1]) % PRIME;
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
    (void) type;
}

int main(int argc, char **argv)
{
    int rank, size, provided, errors = 0, expect = -1;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-expect-subst") == 0)
            expect = atoi(argv[i + 1]);
    if (expect < 0)
        HIER_FAIL("usage: hier_level_params -expect-subst 1|0");

    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(affine, 0, &op);
    enum { COUNT = 4096 };
    long long *mine = malloc(sizeof(long long) * 2 * COUNT), *out = malloc(sizeof(long long) * 2 * COUNT);
    for (int i = 0; i < COUNT; i++) {
        mine[2 * i] = 2 + (rank * 7 + i) % 97;
        mine[2 * i + 1] = (rank * 13 + i * 3) % 101;
    }

    hier_pvar pv;
    hier_pvar_open(&pv, "coll_hier_reduce_seg_in_order_subst");
    unsigned long long before = hier_pvar_read(&pv);
    MPI_Reduce(mine, out, COUNT, pair, op, 0, MPI_COMM_WORLD);
    long long delta = (long long) (hier_pvar_read(&pv) - before), total;
    hier_pvar_close(&pv);
    MPI_Allreduce(&delta, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if ((total > 0) != expect) {
        if (rank == 0)
            fprintf(stderr, "in-order substitutions: %lld, expected %s\n", total, expect ? "some" : "none");
        errors++;
    }

    /* the reference: every rank's map composed in rank order, on rank 0 */
    long long *all = NULL;
    if (rank == 0)
        all = malloc(sizeof(long long) * 2 * COUNT * size);
    MPI_Gather(mine, 2 * COUNT, MPI_LONG_LONG, all, 2 * COUNT, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = size - 2; r >= 0; r--) {
            int len = COUNT;
            affine(all + 2 * COUNT * r, all + 2 * COUNT * (size - 1), &len, NULL);
        }
        /* all[size - 1] now holds r0 o r1 o ... in the op's order: compare */
        if (memcmp(all + 2 * COUNT * (size - 1), out, sizeof(long long) * 2 * COUNT) != 0) {
            fprintf(stderr, "the reduced maps differ from the rank-order reference\n");
            errors++;
        }
        free(all);
    }

    free(mine);
    free(out);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    MPI_T_finalize();
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
