/*
 * mpich-hier: MPI_Scatterv (MPIR_Scatterv_intra_hier) in its three forms: blocking,
 * non-blocking (MPI_Iscatterv) and persistent (MPI_Scatterv_init), run with
 * MPIR_CVAR_SCATTERV_INTRA_ALGORITHM=hier and MPIR_CVAR_ISCATTERV_INTRA_ALGORITHM=tsp_hier
 * (or a Csel JSON tree) on emulated nodes.
 *
 *   comms        world, a split of all ranks with reversed keys (on round-robin cliques
 *                the groups are no blocks of consecutive ranks), the odd ranks, a dup
 *   roots        rank 0, the last rank and a middle one ((size - 1) / 2: on 4 x 2 by
 *                block neither a node's leader nor its last rank), in turn on each comm's
 *                calls; -full: every blocking call at each of the three
 *   types        MPI_INT both sides; MPI_DOUBLE; ints sent as pairs and received as
 *                MPI_INT (different but matching signatures); a vector with holes both
 *                sides (hier_type_cases.h: the root's side is the cases' receive type)
 *   counts       per-rank bases 0, 1, 17, 1000 and a large one (-big N ints over the comm,
 *                70000): rank r receives base + r % 2 elements, none where r % 3 == 1 (the
 *                root too), none at all for base 0; the root's displacements in reversed
 *                rank order with a gap of one element before each block; sendbuf,
 *                sendcounts and displs NULL on the other ranks; MPI_IN_PLACE as the root's
 *                recvbuf on alternate calls (base 1: both)
 *   reference    every data value of every rank's block checked in its recvbuf; the holes
 *                and recvbuf past the block must keep their sentinel; the root's sendbuf
 *                (its own block in place included) must stay as it was
 *   outstanding  batches of 8 MPI_Iscatterv on different buffers and roots over the comms,
 *                completed by MPI_Waitall on a shuffled array or by MPI_Test loops in a
 *                shuffled order
 *   persistent   MPI_Scatterv_init on the comms, started -starts N times (1000), the heap
 *                checked (hier_matrix.h); one more initialised and freed unstarted
 *
 * -expect-hier: the counters coll_hier_scatterv_hier_count and
 * coll_hier_iscatterv_tsp_hier_count must count every call (and init) on a comm of
 * several ranks, once (only the root knows the counts: a call without data is counted
 * too), and coll_hier_flat_fallbacks those on a comm whose groups of some level are not
 * blocks of consecutive ranks (hier_comm_keys).  -tree-blocking / -tree-sched: as
 * hier_matrix.h says.
 */

#include "hier_matrix.h"
#include "hier_type_cases.h"
#include "hier_rooted_v.h"

#define NPERS 5                 /* persistent operations */

/* ---- the counters ---- */
enum { F_SV, F_ISV, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_scatterv_hier_count", "coll_hier_iscatterv_tsp_hier_count"
};

/* the root's sendbuf: every rank's block at its displacement, SEND_HOLE elsewhere;
 * recvbuf: SENTINEL */
static void op_fill(rv_op * o)
{
    const type_case *t = &types[o->type];
    for (long long s = 0; s < o->slots; s++)
        slot_set(o, o->all, s, SEND_HOLE);
    for (long long s = 0; s < o->own_slots; s++)
        slot_set(o, o->own, s, SENTINEL);
    for (int r = 0; o->all && r < o->tc->size; r++)
        for (long long k = 0; k < (long long) o->counts[r] * t->ndata; k++)
            slot_set(o, o->all, data_slot(o, r, k), input(r, k, o->seed));
}

static void report(const rv_op * o, const char *form, const char *what, long long bad,
                   long long first, double got, long long want)
{
    if (bad && errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %sscatterv%s at root %d on %s (size %d), %s, "
                "base %lld, round %d: %s: %lld wrong slots, first slot %lld is %.17g, "
                "expected %lld%s\n", o->tc->rank, wrank, form,
                o->in_place ? " in place" : "", o->root, o->tc->name, o->tc->size,
                types[o->type].name, o->base, o->seed, what, bad, first, got, want,
                want == SENTINEL ? " (the sentinel: a hole or past the end)" : "");
}

static void op_check(const rv_op * o, const char *form)
{
    const type_case *t = &types[o->type];
    int me = o->tc->rank;
    long long bad = 0, first = -1, want = 0;
    double got = 0;

    /* recvbuf: this rank's block (not the root's in place: recvbuf is not passed) */
    if (!(o->in_place && me == o->root)) {
        char *is_data = calloc((size_t) o->own_slots, 1);
        for (long long k = 0; k < (long long) o->counts[me] * t->ndata; k++) {
            long long s = own_slot(o, k), w = input(me, k, o->seed);
            double g = slot_get(o, o->own, s);
            is_data[s] = 1;
            if (g != (double) w && bad++ == 0)
                first = s, got = g, want = w;
        }
        for (long long s = 0; s < o->own_slots; s++) {
            double g = slot_get(o, o->own, s);
            if (!is_data[s] && g != (double) SENTINEL && bad++ == 0)
                first = s, got = g, want = SENTINEL;
        }
        free(is_data);
        report(o, form, "recvbuf", bad, first, got, want);
    }
    if (me != o->root)
        return;
    /* the root's sendbuf as it was */
    bad = 0;
    char *is_data = calloc((size_t) o->slots, 1);
    for (int r = 0; r < o->tc->size; r++)
        for (long long k = 0; k < (long long) o->counts[r] * t->ndata; k++) {
            long long s = data_slot(o, r, k), w = input(r, k, o->seed);
            double g = slot_get(o, o->all, s);
            is_data[s] = 1;
            if (g != (double) w && bad++ == 0)
                first = s, got = g, want = w;
        }
    for (long long s = 0; s < o->slots; s++) {
        double g = slot_get(o, o->all, s);
        if (!is_data[s] && g != (double) SEND_HOLE && bad++ == 0)
            first = s, got = g, want = SEND_HOLE;
    }
    free(is_data);
    report(o, form, "the root's sendbuf changed", bad, first, got, want);
}

/* every call on a comm of several ranks: only the root knows whether there are data */
static void count_call(const rv_op * o, int schedule)
{
    count_call_on(schedule ? F_ISV : F_SV, o->tc);
}

/* the arguments: sendbuf, sendcounts and displs NULL but at the root; the root's recvbuf
 * MPI_IN_PLACE in place */
static void op_args(const rv_op * o, const int **sc, const int **sd, void **rb, int *rc)
{
    int at_root = o->tc->rank == o->root;
    *sc = at_root ? o->counts : NULL;
    *sd = at_root ? o->displs : NULL;
    *rb = o->in_place && at_root ? MPI_IN_PLACE : o->own;
    *rc = o->counts[o->tc->rank] * types[o->type].send_per_recv;
}

static void op_blocking(rv_op * o)
{
    const int *sc, *sd;
    void *rb;
    int rc;
    op_fill(o);
    op_args(o, &sc, &sd, &rb, &rc);
    MPI_Scatterv(o->all, sc, sd, types[o->type].recv, rb, rc, types[o->type].send, o->root,
                 o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(rv_op * o, int persistent, MPI_Request * req)
{
    const type_case *t = &types[o->type];
    const int *sc, *sd;
    void *rb;
    int rc;
    op_args(o, &sc, &sd, &rb, &rc);
    if (persistent)
        MPI_Scatterv_init(o->all, sc, sd, t->recv, rb, rc, t->send, o->root, o->tc->comm,
                          MPI_INFO_NULL, req);
    else
        MPI_Iscatterv(o->all, sc, sd, t->recv, rb, rc, t->send, o->root, o->tc->comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(rv_op)

/* ---- the runs (hier_type_cases.h) ---- */
static const int pers_spec[NPERS][4] = {   /* type, comm, count, in place */
    {T_INT, W_WORLD, 1000, 0}, {T_PAIR, W_WORLD, 17, 1},
    {T_INT, W_REVERSED, 1, 1}, {T_VECTOR, W_DUP, 17, 1},
    {T_DOUBLE, W_ODD, 1000, 0}
};

static long long large_count(int type, const test_comm * tc)
{
    return big / types[type].ndata / tc->size;
}

static long long nb_large_count(int type)
{
    return big / types[type].ndata / 8;
}

HIER_TYPED_MATRIX_RUNS(rv_op, "scattervs")

/* the blocking matrix; -full: all of it at each root */
static void run_blocking_roots(test_comm * tc, int light)
{
    if (!full) {
        run_blocking(tc, light);
        return;
    }
    for (fixed_root = 0; fixed_root < 3; fixed_root++)
        run_blocking(tc, light);
    fixed_root = -1;
}

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_ISV, form_names };
    return hier_matrix_main(argc, argv, make_type_cases, free_type_cases, run_blocking_roots,
                            run_outstanding, run_persistent);
}
