/*
 * mpich-hier: the rooted v-operations of the tests hier_gatherv and hier_scatterv: each
 * rank's block of a gatherv or scatterv, its counts and displacements, its buffers and
 * where each data value lies in them.  The root's buffer ("all": a gatherv's recvbuf, a
 * scatterv's sendbuf) holds every rank's block at its displacement, in reversed rank
 * order with a gap of one element before each; each rank's own buffer ("own": a
 * gatherv's sendbuf, a scatterv's recvbuf) its block.  Counts and displacements are in
 * the root's elements (the type case's receive type).  Include after hier_matrix.h and
 * hier_type_cases.h.
 */

#ifndef HIER_ROOTED_V_H_INCLUDED
#define HIER_ROOTED_V_H_INCLUDED

/* data value k of rank r's block in round `seed` */
static long long input(int rank, long long k, int seed)
{
    return (rank * 7919LL + k * 13 + seed * 31LL) % 100003 - 500;
}

/* ---- the roots: 0, the last rank, a middle one, in turn per comm (every rank of a comm
 * initialises the same operations on it in the same order); fixed_root >= 0: that one ---- */
static int root_turn[NCOMMS], fixed_root = -1;

static int next_root(const test_comm * tc)
{
    int pick = fixed_root >= 0 ? fixed_root : root_turn[tc - comms]++ % 3;
    return pick == 0 ? 0 : pick == 1 ? tc->size - 1 : (tc->size - 1) / 2;
}

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int type, in_place, seed, root;
    test_comm *tc;
    long long base;             /* the counts' base */
    int *counts, *displs;       /* every rank knows them; only the root passes them */
    long long total, slots;     /* the root's elements incl. gaps; its buffer's slots */
    long long own_slots;        /* this rank's buffer's slots */
    void *own, *all;            /* all: the root's only */
} rv_op;

static double slot_get(const rv_op * o, const void *buf, long long s)
{
    return slot_of(types[o->type].is_double, buf, s);
}

static void slot_set(const rv_op * o, void *buf, long long s, long long v)
{
    slot_put(types[o->type].is_double, buf, s, v);
}

static void op_init(rv_op * o, int type, test_comm * tc, long long base, int in_place)
{
    const type_case *t = &types[type];
    size_t slot = t->is_double ? sizeof(double) : sizeof(int);
    *o = (rv_op) { type, in_place, 0, 0, tc, base, NULL, NULL, 0, 0, 0, NULL, NULL };
    if (tc->comm == MPI_COMM_NULL)
        return;
    o->root = next_root(tc);
    o->counts = malloc(sizeof(int) * tc->size);
    o->displs = malloc(sizeof(int) * tc->size);
    for (int r = tc->size - 1; r >= 0; r--) {     /* reversed rank order, a gap before each */
        o->counts[r] = base == 0 || r % 3 == 1 ? 0 : (int) base + r % 2;
        o->displs[r] = (int) o->total + 1;
        o->total += o->counts[r] + 1;
    }
    o->own_slots = (long long) o->counts[tc->rank] * t->ext + 1;
    o->own = malloc((size_t) o->own_slots * slot);
    if (tc->rank == o->root) {
        o->slots = (o->total + 1) * t->ext;
        o->all = malloc((size_t) o->slots * slot);
    }
}

static void op_free(rv_op * o)
{
    free(o->counts);
    free(o->displs);
    free(o->own);
    free(o->all);
}

/* slot of data value k of rank r's block in the root's buffer */
static long long data_slot(const rv_op * o, int r, long long k)
{
    const type_case *t = &types[o->type];
    return (o->displs[r] + k / t->ndata) * t->ext + t->off[k % t->ndata];
}

/* slot of data value k in this rank's buffer (the type cases' layouts of both sides are
 * alike) */
static long long own_slot(const rv_op * o, long long k)
{
    const type_case *t = &types[o->type];
    return k / t->ndata * t->ext + t->off[k % t->ndata];
}

#endif /* HIER_ROOTED_V_H_INCLUDED */
