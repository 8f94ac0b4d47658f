/*
 * mpich-hier: MPI_Reduce_scatter and MPI_Reduce_scatter_block (MPIR_Reduce_scatter_intra_hier,
 * MPIR_Reduce_scatter_block_intra_hier) in their three forms: blocking, non-blocking
 * (MPI_Ireduce_scatter, MPI_Ireduce_scatter_block) and persistent (MPI_Reduce_scatter_init,
 * MPI_Reduce_scatter_block_init), run with MPIR_CVAR_REDUCE_SCATTER{,_BLOCK}_INTRA_ALGORITHM=hier
 * and MPIR_CVAR_IREDUCE_SCATTER{,_BLOCK}_INTRA_ALGORITHM=tsp_hier (or a Csel JSON tree) on
 * emulated nodes.
 *
 *   comms        world, a split of all ranks with reversed keys (on round-robin cliques
 *                the groups are no blocks of consecutive ranks), the odd ranks, a dup
 *   cases        MPI_SUM on int and on integer-valued double, MPI_MAX on int, a
 *                non-commutative user op (composition of affine maps x -> a x + b mod a
 *                prime, a pair of ints as MPI_Type_contiguous(2, MPI_INT): the result
 *                is f_0 o f_1 o ... in rank order) and a commutative user sum on a vector
 *                with holes (MPI_Type_vector(3, 2, 3, MPI_INT)); per-rank counts 0, 1, 17,
 *                1000 and a large one (-big N ints over the comm, 70000: int sum and the
 *                non-commutative op); reduce_scatter's counts uneven, every third rank's 0
 *                (rank r: n + r % 2, 0 where r % 3 == 1); MPI_IN_PLACE on alternate calls
 *                (count 1: both); on the odd ranks and the dup counts 1 and 1000; -full:
 *                every count both ways on every comm, the large one for every case
 *   reference    computed locally over every rank's input in rank order; every data
 *                value of the rank's block checked, every hole must keep its sentinel, and
 *                (not in place) recvbuf past the block must not be touched
 *   outstanding  batches of 8 non-blocking calls on different buffers over the comms,
 *                completed by MPI_Waitall on a shuffled array or by MPI_Test loops in a
 *                shuffled order
 *   persistent   initialised on the comms, started -starts N times (1000), results checked
 *                every 97th start and at the last; from 200 starts, the heap in use
 *                (mallinfo2) may not grow by more than 32 KiB
 *                in both halves from start 100 (hier_matrix.h); one more initialised
 *                and freed unstarted
 *
 * -expect-hier: the counters coll_hier_reduce_scatter{,_block}_hier_count and
 * coll_hier_ireduce_scatter{,_block}_tsp_hier_count must count every call (and init) that
 * has data on a comm of several ranks, once, and coll_hier_flat_fallbacks those on a comm
 * whose groups of some level are not blocks of consecutive ranks (hier_comm_keys).  With
 * -tree-blocking / -tree-sched (the hier algorithms picked by a JSON tree for parent
 * comms): the blocking / the schedule counters must count at least the calls on world and
 * its dup and at most all.
 */

#include "hier_matrix.h"
#include "hier_op_cases.h"

#define NPERS 5                 /* persistent operations */

/* ---- the counters ---- */
enum { F_RS, F_RSB, F_IRS, F_IRSB, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_reduce_scatter_hier_count", "coll_hier_reduce_scatter_block_hier_count",
    "coll_hier_ireduce_scatter_tsp_hier_count", "coll_hier_ireduce_scatter_block_tsp_hier_count"
};

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int kind, block, in_place, seed;
    test_comm *tc;
    long long count;            /* per rank (reduce_scatter: the base of the uneven counts) */
    int *counts;                /* every rank's block (elements) */
    long long at, total;        /* where this rank's block starts in the vector, its length */
    void *send, *recv;
} rs_op;

static double slot_get(const rs_op * o, const void *buf, long long s)
{
    return slot_of(cases[o->kind].is_double, buf, s);
}

static void slot_set(const rs_op * o, void *buf, long long s, long long v)
{
    slot_put(cases[o->kind].is_double, buf, s, v);
}

static void op_init(rs_op * o, int kind, test_comm * tc, long long count, int block,
                    int in_place)
{
    const op_case *c = &cases[kind];
    *o = (rs_op) { kind, block, in_place, 0, tc, count, NULL, 0, 0, NULL, NULL };
    if (tc->comm == MPI_COMM_NULL)
        return;
    o->counts = malloc(sizeof(int) * tc->size);
    for (int r = 0; r < tc->size; r++) {
        o->counts[r] = block ? (int) count : r % 3 == 1 ? 0 : (int) count + r % 2;
        o->at += r < tc->rank ? o->counts[r] : 0;
        o->total += o->counts[r];
    }
    size_t bytes = (size_t) (o->total * c->ext + 1) * (c->is_double ? sizeof(double) : sizeof(int));
    o->send = malloc(bytes);
    o->recv = malloc(bytes);
}

static void op_free(rs_op * o)
{
    free(o->counts);
    free(o->send);
    free(o->recv);
}

/* sendbuf: the whole vector of this rank's input, SEND_HOLE in the holes; recvbuf:
 * SENTINEL (in place: the input where the data goes) */
static void op_fill(rs_op * o)
{
    const op_case *c = &cases[o->kind];
    long long slots = o->total * c->ext;
    for (long long s = 0; s < slots; s++) {
        slot_set(o, o->send, s, SEND_HOLE);
        slot_set(o, o->recv, s, SENTINEL);
    }
    for (long long k = 0; k < o->total * c->ndata; k++) {
        long long s = k / c->ndata * c->ext + c->off[k % c->ndata];
        slot_set(o, o->in_place ? o->recv : o->send, s, input(o->kind, o->tc->rank, k,
                                                               o->seed));
    }
}

/* what slot s of recvbuf must hold after the operation (-1 - SENTINEL: anything) */
static long long op_want(const rs_op * o, long long s)
{
    const op_case *c = &cases[o->kind];
    long long mine = o->counts[o->tc->rank] * (long long) c->ext;
    int d = -1;
    if (s >= mine)              /* past the block: untouched, anything in place */
        return o->in_place ? -1 - SENTINEL : SENTINEL;
    for (int i = 0; i < c->ndata; i++)
        if (c->off[i] == s % c->ext)
            d = i;
    if (d < 0)
        return SENTINEL;        /* a hole */
    long long k = (o->at + s / c->ext) * c->ndata + d;
    return prefix(o->kind, o->tc->size - 1, k, o->seed);
}

static void op_check(const rs_op * o, const char *form)
{
    const op_case *c = &cases[o->kind];
    long long slots = o->total * c->ext, bad = 0, first = -1, want = 0;
    double got = 0;
    for (long long s = 0; s < slots; s++) {
        long long w = op_want(o, s);
        double g = slot_get(o, o->recv, s);
        if (w != -1 - SENTINEL && g != (double) w && bad++ == 0) {
            first = s;
            got = g;
            want = w;
        }
    }
    if (!bad)
        return;
    if (errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %sreduce_scatter%s%s on %s (size %d), %s, count "
                "%lld (block of %d at %lld), round %d: %lld wrong slots, first slot %lld "
                "(element %lld) is %.17g, expected %lld%s\n", o->tc->rank, wrank, form,
                o->block ? "_block" : "", o->in_place ? " in place" : "", o->tc->name,
                o->tc->size, c->name, o->count, o->counts[o->tc->rank], o->at, o->seed, bad,
                first, first / c->ext, got, want, want == SENTINEL ? " (the sentinel)" : "");
}

/* the counters' expectations for a call or init of o in form f (blocking or schedule) */
static void count_call(const rs_op * o, int schedule)
{
    if (o->total > 0)
        count_call_on((schedule ? F_IRS : F_RS) + o->block, o->tc);
}

static const void *op_sendbuf(const rs_op * o)
{
    return o->in_place ? MPI_IN_PLACE : o->send;
}

static void op_blocking(rs_op * o)
{
    const op_case *c = &cases[o->kind];
    op_fill(o);
    if (o->block)
        MPI_Reduce_scatter_block(op_sendbuf(o), o->recv, (int) o->count, c->type, c->op,
                                 o->tc->comm);
    else
        MPI_Reduce_scatter(op_sendbuf(o), o->recv, o->counts, c->type, c->op, o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(rs_op * o, int persistent, MPI_Request * req)
{
    const op_case *c = &cases[o->kind];
    const void *sb = op_sendbuf(o);
    int n = (int) o->count;
    MPI_Comm comm = o->tc->comm;
    if (persistent && o->block)
        MPI_Reduce_scatter_block_init(sb, o->recv, n, c->type, c->op, comm, MPI_INFO_NULL, req);
    else if (persistent)
        MPI_Reduce_scatter_init(sb, o->recv, o->counts, c->type, c->op, comm, MPI_INFO_NULL,
                                req);
    else if (o->block)
        MPI_Ireduce_scatter_block(sb, o->recv, n, c->type, c->op, comm, req);
    else
        MPI_Ireduce_scatter(sb, o->recv, o->counts, c->type, c->op, comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(rs_op)

/* ---- the blocking matrix ---- */
/* every case: counts 0, 1, 17, 1000 and the large one (int sum and the non-commutative op
 * only, unless -full), both variants, in place on alternate calls (count 1: both); light
 * (the odd ranks, the dup): counts 1 and 1000 only.  -full: every count both ways, on every
 * comm. */
static void run_blocking(test_comm * tc, int light)
{
    int iter = 0;
    if (tc->comm == MPI_COMM_NULL)
        return;
    light = light && !full;
    for (int kind = 0; kind < NCASES; kind++) {
        const int per = cases[kind].ndata;
        const long long counts[5] = { 0, 1, 17, 1000, big / per / tc->size };
        for (int n = 0; n < 5; n++) {
            if ((n == 4 && !full && kind != C_SUM_INT && kind != C_COMPOSE) ||
                (light && n != 1 && n != 3))
                continue;
            for (int block = 0; block < 2; block++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    int both = full || (n == 1 && !light);
                    if (!both && in_place != (n + kind + block) % 2)
                        continue;
                    rs_op o;
                    op_init(&o, kind, tc, counts[n], block, in_place);
                    o.seed = iter++;
                    op_blocking(&o);
                    op_free(&o);
                }
        }
    }
}

/* ---- outstanding operations ---- */
/* NB operations on different buffers over the comms, all started before any completes,
 * completed by MPI_Waitall on a shuffled array or (use_test) MPI_Test loops in a shuffled
 * order (not the same on two ranks) */
static void run_outstanding(int batch, int use_test)
{
    rs_op ops[NB];
    for (int i = 0; i < NB; i++) {
        int kind = (i + batch) % NCASES, per = cases[kind].ndata;
        const long long counts[4] = { 1, 17, 1000, big / per / 8 };
        op_init(&ops[i], kind, &comms[(i + batch / 2) % NCOMMS], counts[(i + batch) % 4],
                i % 2, (i / 2 + batch) % 2);
    }
    matrix_outstanding(ops, batch, use_test);
}

/* ---- persistent operations ---- */
/* initialised once, started `starts` times with new data in the same buffers; one more
 * initialised and freed without a start */
static void run_persistent(void)
{
    static const int spec[NPERS][5] = {   /* kind, comm, count, block, in place */
        {C_SUM_INT, W_WORLD, 1000, 0, 0}, {C_COMPOSE, W_WORLD, 17, 1, 0},
        {C_MAX_INT, W_REVERSED, 1, 0, 1}, {C_VECTOR, W_DUP, 17, 1, 1},
        {C_SUM_DOUBLE, W_ODD, 1000, 1, 0}
    };
    rs_op ops[NPERS], never;
    int n = 0;
    for (int i = 0; i < NPERS; i++)
        if (comms[spec[i][1]].comm != MPI_COMM_NULL)
            op_init(&ops[n++], spec[i][0], &comms[spec[i][1]], spec[i][2], spec[i][3],
                    spec[i][4]);
    op_init(&never, C_SUM_INT, &comms[W_WORLD], 17, 1, 0);
    matrix_persistent(ops, n, &never, "reduce-scatters");
}

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_IRS, form_names };
    return hier_matrix_main(argc, argv, make_cases, free_cases, run_blocking, run_outstanding,
                            run_persistent);
}
