/*
 * mpich-hier: MPI_Alltoallv (MPIR_Alltoallv_intra_hier) in its three forms: blocking,
 * non-blocking (MPI_Ialltoallv) and persistent (MPI_Alltoallv_init), run with
 * MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=hier and MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM=tsp_hier
 * (or a Csel JSON tree) on emulated nodes.
 *
 *   comms        world, a split of all ranks with reversed keys, the odd ranks, a dup
 *   types        MPI_INT both sides; MPI_DOUBLE; ints sent as MPI_INT and received as
 *                pairs (different but matching signatures); a vector with holes both sides
 *   counts       every pair of ranks its own count around a base (0, 1, 17, 1000 and a
 *                large one, -big N ints per rank over the comm's blocks): 0 for some pairs
 *                and for everything rank 1 sends; in place (on alternate calls) the counts
 *                are symmetric, as MPI wants there
 *   displs       send blocks in rank order, receive blocks in reversed rank order, each
 *                followed by a hole of one element
 *   reference    every data value of every block checked; the holes and recvbuf past the
 *                last block must keep their sentinel
 *   outstanding  batches of 8 MPI_Ialltoallv over the comms, completed shuffled
 *   persistent   MPI_Alltoallv_init on the comms, started -starts N times (1000), the heap
 *                checked (hier_matrix.h); one more initialised and freed unstarted
 *
 * -expect-hier: the counters coll_hier_alltoallv_hier_count and
 * coll_hier_ialltoallv_tsp_hier_count must count every call (and init) on a comm of
 * several ranks, once; with MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM=linear (through the
 * leaders) coll_hier_flat_fallbacks those on a comm whose groups of some level are not
 * blocks of consecutive ranks, else none (the direct exchange needs no leaders).
 * -tree-blocking / -tree-sched: as hier_matrix.h says.
 */

#include "hier_matrix.h"
#include "hier_type_cases.h"

#define NPERS 5                 /* persistent operations */

/* data value k of the block from rank `from` to rank `to` in round `seed` */
static long long input(int from, int to, long long k, int seed)
{
    return (from * 7919LL + to * 104729LL + k * 13 + seed * 31LL) % 100003 - 500;
}

/* MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM=linear: the exchange through the leaders */
static int leaders;

static void make_types(void)
{
    const char *inter = getenv("MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM");
    leaders = inter && !strcmp(inter, "linear");
    make_type_cases();
}

/* ---- the counters ---- */
enum { F_A2AV, F_IA2AV, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_alltoallv_hier_count", "coll_hier_ialltoallv_tsp_hier_count"
};

/* ---- one operation: its counts and displacements, its buffers ---- */
typedef struct {
    int type, in_place, seed;
    test_comm *tc;
    long long base;             /* the counts' base (receive elements) */
    int *scount, *sdispl, *rcount, *rdispl;     /* send ones in send elements */
    long long *sat, *rat;       /* each block's first element (receive elements) */
    long long slots;            /* slots of each buffer */
    void *send, *recv;
} a2av_op;

/* the receive elements of the block from rank a to rank b: 0 for some pairs and for all
 * rank 1 sends (not in place: there a rank sends and receives the same counts) */
static long long pair_count(const a2av_op * o, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (!o->in_place && a == 1)
        return 0;
    if ((lo + 2 * hi) % 5 == 3)
        return 0;
    return o->base + (lo * 3 + hi) % 4 * (o->base / 3 + 1) * (o->base > 0);
}

static void op_init(a2av_op * o, int type, test_comm * tc, long long base, int in_place)
{
    const type_case *t = &types[type];
    size_t slot = t->is_double ? sizeof(double) : sizeof(int);
    int n = tc->size, me = tc->rank;
    long long s_end = 0, r_end = 0;
    *o = (a2av_op) { type, in_place, 0, tc, base };
    if (tc->comm == MPI_COMM_NULL)
        return;
    o->scount = malloc(sizeof(int) * 4 * n);
    o->sdispl = o->scount + n, o->rcount = o->scount + 2 * n, o->rdispl = o->scount + 3 * n;
    o->sat = malloc(sizeof(long long) * 2 * n);
    o->rat = o->sat + n;
    for (int d = 0; d < n; d++) {
        long long c = pair_count(o, me, d);
        o->sat[d] = s_end;
        o->scount[d] = (int) (c * t->send_per_recv);
        o->sdispl[d] = (int) (s_end * t->send_per_recv);
        s_end += c + 1;
    }
    for (int s = n - 1; s >= 0; s--) {
        long long c = pair_count(o, s, me);
        o->rat[s] = r_end;
        o->rcount[s] = (int) c;
        o->rdispl[s] = (int) r_end;
        r_end += c + 1;
    }
    o->slots = ((s_end > r_end ? s_end : r_end) + 1) * t->ext;
    o->send = malloc((size_t) o->slots * slot);
    o->recv = malloc((size_t) o->slots * slot);
}

static void op_free(a2av_op * o)
{
    free(o->scount);
    free(o->sat);
    free(o->send);
    free(o->recv);
}

/* slot of data value k of the block that starts at element at */
static long long data_slot(const a2av_op * o, long long at, long long k)
{
    const type_case *t = &types[o->type];
    return (at + k / t->ndata) * t->ext + t->off[k % t->ndata];
}

/* sendbuf: block d what this rank sends rank d, SEND_HOLE elsewhere; recvbuf: SENTINEL,
 * and in place the send blocks at the receive displacements */
static void op_fill(a2av_op * o)
{
    const type_case *t = &types[o->type];
    int me = o->tc->rank, is_double = t->is_double;
    for (long long s = 0; s < o->slots; s++) {
        slot_put(is_double, o->send, s, SEND_HOLE);
        slot_put(is_double, o->recv, s, SENTINEL);
    }
    for (int d = 0; d < o->tc->size; d++)
        for (long long k = 0; k < pair_count(o, me, d) * t->ndata; k++)
            slot_put(is_double, o->in_place ? o->recv : o->send,
                     data_slot(o, o->in_place ? o->rat[d] : o->sat[d], k),
                     input(me, d, k, o->seed));
}

static void op_check(const a2av_op * o, const char *form)
{
    const type_case *t = &types[o->type];
    long long bad = 0, first = -1, want = 0;
    double got = 0;
    char *is_data = calloc((size_t) o->slots, 1);
    for (int s = 0; s < o->tc->size; s++)
        for (long long k = 0; k < o->rcount[s] * (long long) t->ndata; k++) {
            long long at = data_slot(o, o->rat[s], k), w = input(s, o->tc->rank, k, o->seed);
            double g = slot_of(t->is_double, o->recv, at);
            is_data[at] = 1;
            if (g != (double) w && bad++ == 0)
                first = at, got = g, want = w;
        }
    for (long long at = 0; at < o->slots; at++) {
        double g = slot_of(t->is_double, o->recv, at);
        if (!is_data[at] && g != (double) SENTINEL && bad++ == 0)
            first = at, got = g, want = SENTINEL;
    }
    free(is_data);
    if (bad && errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %salltoallv%s on %s (size %d), %s, base %lld, "
                "round %d: %lld wrong slots, first slot %lld is %.17g, expected %lld%s\n",
                o->tc->rank, wrank, form, o->in_place ? " in place" : "", o->tc->name,
                o->tc->size, t->name, o->base, o->seed, bad, first, got, want,
                want == SENTINEL ? " (the sentinel: a hole or past the end)" : "");
}

static void count_call(const a2av_op * o, int schedule)
{
    test_comm tc = *o->tc;
    tc.flat = tc.flat && leaders;
    count_call_on(schedule ? F_IA2AV : F_A2AV, &tc);
}

static void op_blocking(a2av_op * o)
{
    const type_case *t = &types[o->type];
    op_fill(o);
    MPI_Alltoallv(o->in_place ? MPI_IN_PLACE : o->send, o->scount, o->sdispl, t->send, o->recv,
                  o->rcount, o->rdispl, t->recv, o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(a2av_op * o, int persistent, MPI_Request * req)
{
    const type_case *t = &types[o->type];
    const void *sb = o->in_place ? MPI_IN_PLACE : o->send;
    if (persistent)
        MPI_Alltoallv_init(sb, o->scount, o->sdispl, t->send, o->recv, o->rcount, o->rdispl,
                           t->recv, o->tc->comm, MPI_INFO_NULL, req);
    else
        MPI_Ialltoallv(sb, o->scount, o->sdispl, t->send, o->recv, o->rcount, o->rdispl,
                       t->recv, o->tc->comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(a2av_op)

/* ---- the runs (hier_type_cases.h) ---- */
static const int pers_spec[NPERS][4] = {   /* type, comm, count, in place */
    {T_INT, W_WORLD, 100, 0}, {T_PAIR, W_WORLD, 17, 0},
    {T_INT, W_REVERSED, 1, 1}, {T_VECTOR, W_DUP, 17, 1},
    {T_DOUBLE, W_ODD, 100, 0}
};

static long long large_count(int type, const test_comm * tc)
{
    return big / types[type].ndata / tc->size / 2;
}

static long long nb_large_count(int type)
{
    return big / types[type].ndata / 128;
}

HIER_TYPED_MATRIX_RUNS(a2av_op, "alltoallvs")

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_IA2AV, form_names };
    return hier_matrix_main(argc, argv, make_types, free_type_cases, run_blocking,
                            run_outstanding, run_persistent);
}
