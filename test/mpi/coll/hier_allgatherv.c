/*
 * mpich-hier: MPI_Allgatherv (MPIR_Allgatherv_intra_hier) in its three forms: blocking,
 * non-blocking (MPI_Iallgatherv) and persistent (MPI_Allgatherv_init), run with
 * MPIR_CVAR_ALLGATHERV_INTRA_ALGORITHM=hier and MPIR_CVAR_IALLGATHERV_INTRA_ALGORITHM=tsp_hier
 * (or a Csel JSON tree) on emulated nodes.
 *
 *   comms        world, a split of all ranks with reversed keys (on round-robin cliques
 *                the groups are no blocks of consecutive ranks), the odd ranks, a dup
 *   types        MPI_INT both sides; MPI_DOUBLE; ints sent as MPI_INT and received as
 *                pairs (MPI_Type_contiguous(2, MPI_INT): different but matching
 *                signatures); a vector with holes both sides (MPI_Type_vector(3, 2, 3,
 *                MPI_INT))
 *   counts       per-rank bases 0, 1, 17, 1000 and a large one (-big N ints over the comm,
 *                70000): rank r sends base + r % 2 elements, none where r % 3 == 1;
 *                displacements in reversed rank order with a gap of one element before
 *                each block; MPI_IN_PLACE on alternate calls (base 1: both); on the odd
 *                ranks and the dup bases 1 and 1000; -full: every base both ways on every
 *                comm, the large one for every type
 *   reference    every data value of every block checked at its displacement; the gaps,
 *                the holes and recvbuf past the last block must keep their sentinel
 *   outstanding  batches of 8 MPI_Iallgatherv on different buffers over the comms,
 *                completed by MPI_Waitall on a shuffled array or by MPI_Test loops in a
 *                shuffled order
 *   persistent   MPI_Allgatherv_init on the comms, started -starts N times (1000), results
 *                checked every 97th start and at the last; from 200 starts, the heap in use
 *                (mallinfo2) may not grow by more than 32 KiB
 *                in both halves from start 100 (hier_matrix.h); one more initialised
 *                and freed unstarted
 *
 * -expect-hier: the counters coll_hier_allgatherv_hier_count and
 * coll_hier_iallgatherv_tsp_hier_count must count every call (and init) that has data on a
 * comm of several ranks, once, and coll_hier_flat_fallbacks those on a comm whose groups of
 * some level are not blocks of consecutive ranks (hier_comm_keys).  With -tree-blocking /
 * -tree-sched (the hier algorithms picked by a JSON tree for parent comms): the blocking /
 * the schedule counter must count at least the calls on world and its dup and at most all.
 */

#include "hier_matrix.h"
#include "hier_type_cases.h"

#define NPERS 5                 /* persistent operations */

/* data value k of rank's block in round `seed` */
static long long input(int rank, long long k, int seed)
{
    return (rank * 7919LL + k * 13 + seed * 31LL) % 100003 - 500;
}

/* ---- the counters ---- */
enum { F_AGV, F_IAGV, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_allgatherv_hier_count", "coll_hier_iallgatherv_tsp_hier_count"
};

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int type, in_place, seed;
    test_comm *tc;
    long long base;             /* the counts' base */
    int *counts, *displs;       /* in receive elements */
    long long total, slots;     /* receive elements incl. gaps; recvbuf's slots */
    void *send, *recv;
} agv_op;

static double slot_get(const agv_op * o, const void *buf, long long s)
{
    return slot_of(types[o->type].is_double, buf, s);
}

static void slot_set(const agv_op * o, void *buf, long long s, long long v)
{
    slot_put(types[o->type].is_double, buf, s, v);
}

static void op_init(agv_op * o, int type, test_comm * tc, long long base, int in_place)
{
    const type_case *t = &types[type];
    *o = (agv_op) { type, in_place, 0, tc, base, NULL, NULL, 0, 0, NULL, NULL };
    if (tc->comm == MPI_COMM_NULL)
        return;
    o->counts = malloc(sizeof(int) * tc->size);
    o->displs = malloc(sizeof(int) * tc->size);
    for (int r = tc->size - 1; r >= 0; r--) {     /* reversed rank order, a gap before each */
        o->counts[r] = r % 3 == 1 ? 0 : (int) base + r % 2;
        o->displs[r] = (int) o->total + 1;
        o->total += o->counts[r] + 1;
    }
    o->slots = (o->total + 1) * t->ext;
    size_t slot = t->is_double ? sizeof(double) : sizeof(int);
    o->send = malloc((size_t) (o->counts[tc->rank] * t->ext + 1) * slot);
    o->recv = malloc((size_t) o->slots * slot);
}

static void op_free(agv_op * o)
{
    free(o->counts);
    free(o->displs);
    free(o->send);
    free(o->recv);
}

/* slot of data value k of rank r's block in recvbuf (in receive elements' layout) */
static long long data_slot(const agv_op * o, int r, long long k)
{
    const type_case *t = &types[o->type];
    return (o->displs[r] + k / t->ndata) * t->ext + t->off[k % t->ndata];
}

/* sendbuf: this rank's block (the receive layout: the send types' layouts equal it),
 * SEND_HOLE in the holes; recvbuf: SENTINEL, and in place this rank's block at its place */
static void op_fill(agv_op * o)
{
    const type_case *t = &types[o->type];
    int me = o->tc->rank;
    long long mine = (long long) o->counts[me] * t->ndata;
    for (long long s = 0; s < o->counts[me] * t->ext; s++)
        slot_set(o, o->send, s, SEND_HOLE);
    for (long long s = 0; s < o->slots; s++)
        slot_set(o, o->recv, s, SENTINEL);
    for (long long k = 0; k < mine; k++) {
        long long s = k / t->ndata * t->ext + t->off[k % t->ndata];
        if (o->in_place)
            slot_set(o, o->recv, data_slot(o, me, k), input(me, k, o->seed));
        else
            slot_set(o, o->send, s, input(me, k, o->seed));
    }
}

static void op_check(const agv_op * o, const char *form)
{
    const type_case *t = &types[o->type];
    long long bad = 0, first = -1, want = 0;
    double got = 0;
    char *is_data = calloc((size_t) o->slots, 1);
    for (int r = 0; r < o->tc->size; r++)
        for (long long k = 0; k < (long long) o->counts[r] * t->ndata; k++)
            is_data[data_slot(o, r, k)] = 1 + (char) (r % 100);
    for (int r = 0; r < o->tc->size; r++)
        for (long long k = 0; k < (long long) o->counts[r] * t->ndata; k++) {
            long long s = data_slot(o, r, k), w = input(r, k, o->seed);
            double g = slot_get(o, o->recv, s);
            if (g != (double) w && bad++ == 0) {
                first = s;
                got = g;
                want = w;
            }
        }
    for (long long s = 0; s < o->slots; s++) {
        double g = slot_get(o, o->recv, s);
        if (!is_data[s] && g != (double) SENTINEL && bad++ == 0) {
            first = s;
            got = g;
            want = SENTINEL;
        }
    }
    free(is_data);
    if (!bad)
        return;
    if (errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %sallgatherv%s on %s (size %d), %s, base %lld, "
                "round %d: %lld wrong slots, first slot %lld is %.17g, expected %lld%s\n",
                o->tc->rank, wrank, form, o->in_place ? " in place" : "", o->tc->name,
                o->tc->size, t->name, o->base, o->seed, bad, first, got, want,
                want == SENTINEL ? " (the sentinel: a gap, hole or past the end)" : "");
}

static void count_call(const agv_op * o, int schedule)
{
    long long any = 0;
    for (int r = 0; r < o->tc->size; r++)
        any += o->counts[r];
    if (any > 0)
        count_call_on(schedule ? F_IAGV : F_AGV, o->tc);
}

static void op_args(const agv_op * o, const void **sb, int *sc, MPI_Datatype * st)
{
    const type_case *t = &types[o->type];
    *sb = o->in_place ? MPI_IN_PLACE : o->send;
    *sc = o->counts[o->tc->rank] * t->send_per_recv;
    *st = t->send;
}

static void op_blocking(agv_op * o)
{
    const void *sb;
    int sc;
    MPI_Datatype st;
    op_fill(o);
    op_args(o, &sb, &sc, &st);
    MPI_Allgatherv(sb, sc, st, o->recv, o->counts, o->displs, types[o->type].recv, o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(agv_op * o, int persistent, MPI_Request * req)
{
    const void *sb;
    int sc;
    MPI_Datatype st;
    op_args(o, &sb, &sc, &st);
    if (persistent)
        MPI_Allgatherv_init(sb, sc, st, o->recv, o->counts, o->displs, types[o->type].recv,
                            o->tc->comm, MPI_INFO_NULL, req);
    else
        MPI_Iallgatherv(sb, sc, st, o->recv, o->counts, o->displs, types[o->type].recv,
                        o->tc->comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(agv_op)

/* ---- the runs (hier_type_cases.h) ---- */
static const int pers_spec[NPERS][4] = {   /* type, comm, count, in place */
    {T_INT, W_WORLD, 1000, 0}, {T_PAIR, W_WORLD, 17, 0},
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

HIER_TYPED_MATRIX_RUNS(agv_op, "allgathervs")

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_IAGV, form_names };
    return hier_matrix_main(argc, argv, make_type_cases, free_type_cases, run_blocking,
                            run_outstanding, run_persistent);
}
