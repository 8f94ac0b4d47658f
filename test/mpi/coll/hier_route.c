/*
 * mpich-hier: the device hands a call to the MPIR level only when a plugin algorithm is
 * selected there, or one of MPICH's the user's tree marks whole_comm=1, so a tuning file
 * changes exactly what it names and stock CVAR values keep their stock meaning
 * (maint/patches/04, MPII_Hier_wants_mpir_level).
 *
 * Runs R calls of each kind on MPI_COMM_WORLD and on a dup of it:
 *   bcast_small (100 B), bcast_large (100 KiB), reduce (100 KiB, root 1), allreduce (8 B),
 *   and of the collectives CH4's tree composes with one netmod-only composition:
 *   reduce_scatter, reduce_scatter_block, allgatherv, alltoall, alltoallv, gatherv and
 *   scatterv (a few ints a rank, uneven where the call allows it; roots 1)
 * and reads the coll_hier_mpir_routed pvar around each kind.
 *   -routed K1,K2  these kinds must be routed on every call (world spans several nodes
 *                  with several ranks on one: a CH4 "parent" comm), and each routed call
 *                  must have run a plugin algorithm;
 *   -whole K1,K2   these kinds must be routed on every call and none may run the plugin's
 *                  algorithm (the tree's whole_comm=1 leaves: MPICH's own algorithm);
 *   every other kind must not be routed.
 * Results are checked for every call.
 */

#include "hier_util.h"

enum { BCAST_SMALL, BCAST_LARGE, REDUCE, ALLREDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK,
    ALLGATHERV, ALLTOALL, ALLTOALLV, GATHERV, SCATTERV, NKINDS
};
static const char *kind_names[NKINDS] = { "bcast_small", "bcast_large", "reduce", "allreduce",
    "reduce_scatter", "reduce_scatter_block", "allgatherv", "alltoall", "alltoallv", "gatherv",
    "scatterv"
};

enum { NOT_ROUTED, ROUTED_TO_PLUGIN, ROUTED_WHOLE };

#define REPS 3
#define MAX_RANKS 64
static int errors;

static void expect(int kind, int index, int got, int want)
{
    if (got != want && errors++ < 10)
        fprintf(stderr, "%s: element %d is %d, want %d\n", kind_names[kind], index, got, want);
}

/* bcast, reduce, allreduce: n ints */
static void run_classic(int kind, MPI_Comm comm, int rank, int size)
{
    int n = kind == BCAST_SMALL ? 25 : kind == ALLREDUCE ? 2 : 25600;
    int *buf = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        buf[i] = kind == BCAST_SMALL || kind == BCAST_LARGE ? (rank == 0 ? i * 7 + 1 : -1) :
            rank + i;
    if (kind == BCAST_SMALL || kind == BCAST_LARGE) {
        MPI_Bcast(buf, n, MPI_INT, 0, comm);
        for (int i = 0; i < n; i++)
            expect(kind, i, buf[i], i * 7 + 1);
    } else {
        if (kind == REDUCE)
            MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, 1 % size, comm);
        else
            MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, comm);
        if (kind == ALLREDUCE || rank == 1 % size)
            for (int i = 0; i < n; i++)
                expect(kind, i, out[i], size * (size - 1) / 2 + size * i);
    }
    free(buf);
    free(out);
}

/* reduce_scatter (rank i gets 1 + i % 2 ints), reduce_scatter_block (2 each): element x
 * of the whole vector is the sum over ranks of rank + x */
static void run_reduce_scatter(int kind, MPI_Comm comm, int rank, int size)
{
    int counts[MAX_RANKS], total = 0, first = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = kind == REDUCE_SCATTER ? 1 + i % 2 : 2;
        first += i < rank ? counts[i] : 0;
        total += counts[i];
    }
    int in[3 * MAX_RANKS], out[3];
    for (int x = 0; x < total; x++)
        in[x] = rank + x;
    if (kind == REDUCE_SCATTER)
        MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm);
    else
        MPI_Reduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, comm);
    for (int e = 0; e < counts[rank]; e++)
        expect(kind, e, out[e], size * (size - 1) / 2 + size * (first + e));
}

/* allgatherv, gatherv, scatterv: rank i's block is 1 + i % 3 ints, element e i * 100 + e;
 * roots 1 */
static void run_v(int kind, MPI_Comm comm, int rank, int size)
{
    int counts[MAX_RANKS], displs[MAX_RANKS], total = 0, all[3 * MAX_RANKS], mine[3];
    int root = 1 % size;
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + i % 3;
        displs[i] = total;
        total += counts[i];
        for (int e = 0; e < counts[i]; e++)
            all[displs[i] + e] = kind == SCATTERV && rank == root ? i * 100 + e : -1;
    }
    for (int e = 0; e < counts[rank]; e++)
        mine[e] = kind == SCATTERV ? -1 : rank * 100 + e;
    if (kind == ALLGATHERV)
        MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm);
    else if (kind == GATHERV)
        MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm);
    else
        MPI_Scatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT, root, comm);
    if (kind == SCATTERV)
        for (int e = 0; e < counts[rank]; e++)
            expect(kind, e, mine[e], rank * 100 + e);
    else if (kind == ALLGATHERV || rank == root)
        for (int i = 0; i < size; i++)
            for (int e = 0; e < counts[i]; e++)
                expect(kind, displs[i] + e, all[displs[i] + e], i * 100 + e);
}

/* alltoall (2 ints a block), alltoallv (1 + (i + j) % 2 ints between ranks i and j):
 * element e of the block from i to j is i * 1000 + j * 10 + e */
static void run_alltoall(int kind, MPI_Comm comm, int rank, int size)
{
    int sc[MAX_RANKS], sd[MAX_RANKS], rc[MAX_RANKS], rd[MAX_RANKS], in[2 * MAX_RANKS],
        out[2 * MAX_RANKS], at = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = rc[j] = kind == ALLTOALL ? 2 : 1 + (rank + j) % 2;
        sd[j] = rd[j] = at;
        at += sc[j];
        for (int e = 0; e < sc[j]; e++) {
            in[sd[j] + e] = rank * 1000 + j * 10 + e;
            out[sd[j] + e] = -1;
        }
    }
    if (kind == ALLTOALL)
        MPI_Alltoall(in, 2, MPI_INT, out, 2, MPI_INT, comm);
    else
        MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, comm);
    for (int i = 0; i < size; i++)
        for (int e = 0; e < rc[i]; e++)
            expect(kind, rd[i] + e, out[rd[i] + e], i * 1000 + rank * 10 + e);
}

static void run_kind(int kind, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (kind <= ALLREDUCE)
        run_classic(kind, comm, rank, size);
    else if (kind <= REDUCE_SCATTER_BLOCK)
        run_reduce_scatter(kind, comm, rank, size);
    else if (kind == ALLTOALL || kind == ALLTOALLV)
        run_alltoall(kind, comm, rank, size);
    else
        run_v(kind, comm, rank, size);
}

static void mark_kinds(const char *arg, int *expected, int how)
{
    char *list = strdup(arg);
    for (char *k = strtok(list, ","); k; k = strtok(NULL, ","))
        for (int j = 0; j < NKINDS; j++)
            if (!strcmp(k, kind_names[j]))
                expected[j] = how;
    free(list);
}

/* the plugin algorithm's counter of the kind's collective */
static void open_ran(hier_pvar * ran, int kind)
{
    char name[96];
    const char *coll = kind == BCAST_SMALL || kind == BCAST_LARGE ? "bcast" : kind_names[kind];
    snprintf(name, sizeof(name), "coll_hier_%s_hier_count", coll);
    hier_pvar_open(ran, name);
}

static void check_kind(int kind, int expected, MPI_Comm dup, hier_pvar * routed, int rank)
{
    static const char *want[] = { "none", "all, to the plugin", "all, to MPICH's algorithm" };
    hier_pvar ran;
    open_ran(&ran, kind);
    unsigned long long routed0 = hier_pvar_read(routed), ran0 = hier_pvar_read(&ran);
    for (int r = 0; r < REPS; r++) {
        run_kind(kind, MPI_COMM_WORLD);
        run_kind(kind, dup);
    }
    unsigned long long nrouted = hier_pvar_read(routed) - routed0;
    unsigned long long nran = hier_pvar_read(&ran) - ran0;
    int ok = expected == NOT_ROUTED ? nrouted == 0 :
        expected == ROUTED_TO_PLUGIN ? nrouted == 2 * REPS && nran >= nrouted :
        nrouted == 2 * REPS && nran == 0;
    if (!ok) {
        errors++;
        fprintf(stderr, "rank %d: %s: %llu of %d calls routed to MPIR (want %s), %llu ran "
                "the plugin's algorithm\n", rank, kind_names[kind], nrouted, 2 * REPS,
                want[expected], nran);
    }
    hier_pvar_close(&ran);
}

int main(int argc, char **argv)
{
    int provided, rank, size, expected[NKINDS] = { NOT_ROUTED };
    MPI_Comm dup;
    hier_pvar routed;

    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-routed"))
            mark_kinds(argv[++i], expected, ROUTED_TO_PLUGIN);
        else if (!strcmp(argv[i], "-whole"))
            mark_kinds(argv[++i], expected, ROUTED_WHOLE);

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAX_RANKS)
        HIER_FAIL("hier_route: at most %d ranks", MAX_RANKS);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    hier_pvar_open(&routed, "coll_hier_mpir_routed");
    for (int kind = 0; kind < NKINDS; kind++)
        check_kind(kind, expected[kind], dup, &routed, rank);
    hier_pvar_close(&routed);
    MPI_Comm_free(&dup);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
