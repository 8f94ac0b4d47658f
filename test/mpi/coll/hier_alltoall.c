/*
 * mpich-hier: MPI_Alltoall (MPIR_Alltoall_intra_hier) in its three forms: blocking,
 * non-blocking (MPI_Ialltoall) and persistent (MPI_Alltoall_init), run with
 * MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=hier and MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM=tsp_hier
 * (or a Csel JSON tree) on emulated nodes.
 *
 *   comms        world, a split of all ranks with reversed keys (on round-robin cliques
 *                the groups are no blocks of consecutive ranks), the odd ranks, a dup
 *   types        MPI_INT both sides; MPI_DOUBLE; ints sent as MPI_INT and received as
 *                pairs (MPI_Type_contiguous(2, MPI_INT): different but matching
 *                signatures); a vector with holes both sides (MPI_Type_vector(3, 2, 3,
 *                MPI_INT))
 *   counts       per block 0, 1, 17, 1000 and a large one (-big N ints per rank over the
 *                comm's blocks, 70000); MPI_IN_PLACE on alternate calls (count 1: both);
 *                on the odd ranks and the dup counts 1 and 1000; -full: every count both
 *                ways on every comm, the large one for every type
 *   reference    every data value of every block checked; the holes and recvbuf past the
 *                last block must keep their sentinel
 *   outstanding  batches of 8 MPI_Ialltoall on different buffers over the comms, completed
 *                by MPI_Waitall on a shuffled array or by MPI_Test loops in a shuffled order
 *   persistent   MPI_Alltoall_init on the comms, started -starts N times (1000), results
 *                checked every 97th start and at the last; from 200 starts, the heap in use
 *                (mallinfo2) may not grow by more than 32 KiB
 *                in both halves from start 100 (hier_matrix.h); one more initialised
 *                and freed unstarted
 *
 * -expect-hier: the counters coll_hier_alltoall_hier_count and
 * coll_hier_ialltoall_tsp_hier_count must count every call (and init) that has data on a
 * comm of several ranks, once, and coll_hier_flat_fallbacks those on a comm whose groups of
 * some level are not blocks of consecutive ranks, unless MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM
 * is direct (a choice, no fallback; with by_size the choice depends on the block: give the
 * CVAR with -expect-hier).  -tree-blocking / -tree-sched: as hier_matrix.h says.
 */

#include "hier_matrix.h"
#include "hier_type_cases.h"

#define NPERS 5                 /* persistent operations */

/* ---- the types (hier_type_cases.h) ---- */
static int direct_forced;       /* MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM=direct */

static void make_types(void)
{
    const char *inter = getenv("MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM");
    direct_forced = inter && !strcmp(inter, "direct");
    make_type_cases();
}

/* data value k of the block from rank `from` to rank `to` in round `seed` */
static long long input(int from, int to, long long k, int seed)
{
    return (from * 7919LL + to * 104729LL + k * 13 + seed * 31LL) % 100003 - 500;
}

/* ---- the counters ---- */
enum { F_A2A, F_IA2A, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_alltoall_hier_count", "coll_hier_ialltoall_tsp_hier_count"
};

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int type, in_place, seed;
    test_comm *tc;
    long long count;            /* receive elements per block */
    long long slots;            /* slots of each buffer */
    void *send, *recv;
} a2a_op;

static void op_init(a2a_op * o, int type, test_comm * tc, long long count, int in_place)
{
    const type_case *t = &types[type];
    size_t slot = t->is_double ? sizeof(double) : sizeof(int);
    *o = (a2a_op) { type, in_place, 0, tc, count, 0, NULL, NULL };
    if (tc->comm == MPI_COMM_NULL)
        return;
    o->slots = (count * tc->size + 1) * t->ext;
    o->send = malloc((size_t) o->slots * slot);
    o->recv = malloc((size_t) o->slots * slot);
}

static void op_free(a2a_op * o)
{
    free(o->send);
    free(o->recv);
}

/* slot of data value k of block b (in receive elements' layout) */
static long long data_slot(const a2a_op * o, int b, long long k)
{
    const type_case *t = &types[o->type];
    return (b * o->count + k / t->ndata) * t->ext + t->off[k % t->ndata];
}

/* sendbuf: block d holds what this rank sends rank d, SEND_HOLE in the holes; recvbuf:
 * SENTINEL, and in place the send blocks */
static void op_fill(a2a_op * o)
{
    const type_case *t = &types[o->type];
    int me = o->tc->rank;
    int is_double = t->is_double;
    for (long long s = 0; s < o->slots; s++) {
        slot_put(is_double, o->send, s, SEND_HOLE);
        slot_put(is_double, o->recv, s, SENTINEL);
    }
    for (int d = 0; d < o->tc->size; d++)
        for (long long k = 0; k < o->count * t->ndata; k++)
            slot_put(is_double, o->in_place ? o->recv : o->send, data_slot(o, d, k),
                     input(me, d, k, o->seed));
}

static void op_check(const a2a_op * o, const char *form)
{
    const type_case *t = &types[o->type];
    long long bad = 0, first = -1, want = 0;
    double got = 0;
    char *is_data = calloc((size_t) o->slots, 1);
    for (int s = 0; s < o->tc->size; s++)
        for (long long k = 0; k < o->count * t->ndata; k++) {
            long long at = data_slot(o, s, k), w = input(s, o->tc->rank, k, o->seed);
            double g = slot_of(t->is_double, o->recv, at);
            is_data[at] = 1;
            if (g != (double) w && bad++ == 0) {
                first = at;
                got = g;
                want = w;
            }
        }
    for (long long at = 0; at < o->slots; at++) {
        double g = slot_of(t->is_double, o->recv, at);
        if (!is_data[at] && g != (double) SENTINEL && bad++ == 0) {
            first = at;
            got = g;
            want = SENTINEL;
        }
    }
    free(is_data);
    if (!bad)
        return;
    if (errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %salltoall%s on %s (size %d), %s, count %lld, "
                "round %d: %lld wrong slots, first slot %lld is %.17g, expected %lld%s\n",
                o->tc->rank, wrank, form, o->in_place ? " in place" : "", o->tc->name,
                o->tc->size, t->name, o->count, o->seed, bad, first, got, want,
                want == SENTINEL ? " (the sentinel: a hole or past the end)" : "");
}

static void count_call(const a2a_op * o, int schedule)
{
    test_comm tc = *o->tc;
    tc.flat = tc.flat && !direct_forced;
    if (o->count > 0)
        count_call_on(schedule ? F_IA2A : F_A2A, &tc);
}

static void op_blocking(a2a_op * o)
{
    const type_case *t = &types[o->type];
    op_fill(o);
    MPI_Alltoall(o->in_place ? MPI_IN_PLACE : o->send, (int) (o->count * t->send_per_recv),
                 t->send, o->recv, (int) o->count, t->recv, o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(a2a_op * o, int persistent, MPI_Request * req)
{
    const type_case *t = &types[o->type];
    const void *sb = o->in_place ? MPI_IN_PLACE : o->send;
    int sc = (int) (o->count * t->send_per_recv);
    if (persistent)
        MPI_Alltoall_init(sb, sc, t->send, o->recv, (int) o->count, t->recv, o->tc->comm,
                          MPI_INFO_NULL, req);
    else
        MPI_Ialltoall(sb, sc, t->send, o->recv, (int) o->count, t->recv, o->tc->comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(a2a_op)

/* ---- the runs (hier_type_cases.h) ---- */
static const int pers_spec[NPERS][4] = {   /* type, comm, count, in place */
    {T_INT, W_WORLD, 100, 0}, {T_PAIR, W_WORLD, 17, 0},
    {T_INT, W_REVERSED, 1, 1}, {T_VECTOR, W_DUP, 17, 1},
    {T_DOUBLE, W_ODD, 100, 0}
};

static long long large_count(int type, const test_comm * tc)
{
    return big / types[type].ndata / tc->size;
}

static long long nb_large_count(int type)
{
    return big / types[type].ndata / 64;
}

HIER_TYPED_MATRIX_RUNS(a2a_op, "alltoalls")

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_IA2A, form_names };
    return hier_matrix_main(argc, argv, make_types, free_type_cases, run_blocking, run_outstanding,
                            run_persistent);
}
