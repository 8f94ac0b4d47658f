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
 *                (mallinfo2) may not grow between start 100 and the last by more than 64
 *                KiB; one more initialised and freed unstarted
 *
 * -expect-hier: the counters coll_hier_reduce_scatter{,_block}_hier_count and
 * coll_hier_ireduce_scatter{,_block}_tsp_hier_count must count every call (and init) that
 * has data on a comm of several ranks, once, and coll_hier_flat_fallbacks those on a comm
 * whose groups of some level are not blocks of consecutive ranks (hier_comm_keys).  With
 * -tree-blocking / -tree-sched (the hier algorithms picked by a JSON tree for parent
 * comms): the blocking / the schedule counters must count at least the calls on world and
 * its dup and at most all.
 */

#include "hier_util.h"
#include <malloc.h>

#define P 1000003LL             /* the affine maps' modulus */
#define SENTINEL (-77777)       /* recvbuf's holes and whatever must stay untouched */
#define SEND_HOLE (-5)          /* sendbuf's holes */
#define NB 8                    /* operations outstanding at once */
#define NPERS 5                 /* persistent operations */

static int errors, expect_hier, tree_blocking, tree_sched, wrank;
static int starts = 1000, big = 70000, full;

/* ---- the cases ---- */
enum { C_SUM_INT, C_SUM_DOUBLE, C_MAX_INT, C_COMPOSE, C_VECTOR, NCASES };

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int is_double;              /* slots are doubles, else ints */
    int ext;                    /* slots per element */
    int ndata;                  /* data slots per element */
    int off[6];                 /* their slots in the element */
} op_case;

static op_case cases[NCASES];

/* inout = in o inout for affine maps (a, b): x -> a x + b mod P, not commutative */
static void compose(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *x = in, *y = inout;
    (void) dt;
    for (int i = 0; i < *len; i++) {
        long long a = (long long) x[2 * i] * y[2 * i] % P;
        long long b = ((long long) x[2 * i] * y[2 * i + 1] + x[2 * i + 1]) % P;
        y[2 * i] = (int) a;
        y[2 * i + 1] = (int) b;
    }
}

/* the sum of the 6 ints of the vector type; the holes are left alone */
static void vector_sum(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *x = in, *y = inout;
    (void) dt;
    for (int n = 0; n < *len; n++, x += 8, y += 8)
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 2; j++)
                y[3 * b + j] += x[3 * b + j];
}

static void make_cases(void)
{
    MPI_Datatype pair, vec;
    MPI_Op op_compose, op_vector;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(compose, 0, &op_compose);
    MPI_Op_create(vector_sum, 1, &op_vector);
    cases[C_SUM_INT] = (op_case) { "int SUM", MPI_INT, MPI_SUM, 0, 1, 1, {0} };
    cases[C_SUM_DOUBLE] = (op_case) { "double SUM", MPI_DOUBLE, MPI_SUM, 1, 1, 1, {0} };
    cases[C_MAX_INT] = (op_case) { "int MAX", MPI_INT, MPI_MAX, 0, 1, 1, {0} };
    cases[C_COMPOSE] = (op_case) { "affine compose (non-commutative)", pair, op_compose, 0,
        2, 2, {0, 1} };
    cases[C_VECTOR] = (op_case) { "vector user-sum", vec, op_vector, 0, 8, 6,
        {0, 1, 3, 4, 6, 7} };
}

static void free_cases(void)
{
    MPI_Type_free(&cases[C_COMPOSE].type);
    MPI_Op_free(&cases[C_COMPOSE].op);
    MPI_Type_free(&cases[C_VECTOR].type);
    MPI_Op_free(&cases[C_VECTOR].op);
}

/* data value k (k-th data slot of the buffer) of rank's input in round `seed` */
static long long input(int kind, int rank, long long k, int seed)
{
    switch (kind) {
        case C_MAX_INT:
            return (rank * 7919LL + k * 104729LL + seed * 31LL) % 2001 - 1000;
        case C_COMPOSE:
            return k % 2 == 0 ? (rank * 7 + k / 2 * 3 + seed) % 97 + 2 :
                (rank * 13 + k / 2 + seed * 5) % 89;
        default:
            return (rank * 7 + k * 13 + seed) % 1000 - 300;
    }
}

/* data value k of the combination of ranks 0 .. last, in rank order */
static long long prefix(int kind, int last, long long k, int seed)
{
    long long acc = input(kind, 0, k, seed), a = 1, b = 0;
    switch (kind) {
        case C_MAX_INT:
            for (int r = 1; r <= last; r++) {
                long long v = input(kind, r, k, seed);
                acc = v > acc ? v : acc;
            }
            return acc;
        case C_COMPOSE:    /* f_0 o f_1 o ... o f_last, innermost last */
            for (int r = last; r >= 0; r--) {
                long long ar = input(kind, r, k - k % 2, seed);
                long long br = input(kind, r, k - k % 2 + 1, seed);
                b = (ar * b + br) % P;
                a = ar * a % P;
            }
            return k % 2 == 0 ? a : b;
        default:
            for (int r = 1; r <= last; r++)
                acc += input(kind, r, k, seed);
            return acc;
    }
}

/* ---- the comms ---- */
enum { W_WORLD, W_REVERSED, W_ODD, W_DUP, NCOMMS };

typedef struct {
    MPI_Comm comm;              /* MPI_COMM_NULL: this rank is not in it */
    const char *name;
    int rank, size;
    int sure;                   /* a JSON tree for parent comms takes it (world, its dup) */
    int flat;                   /* some level's groups are not blocks of consecutive ranks:
                                 * the hier reduce-scatter runs flat there (counted) */
} test_comm;

static test_comm comms[NCOMMS];

static void describe(test_comm * tc, MPI_Comm comm, const char *name, int sure)
{
    tc->comm = comm;
    tc->name = name;
    tc->sure = sure;
    tc->flat = 0;
    if (comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &tc->rank);
    MPI_Comm_size(comm, &tc->size);
    if (expect_hier) {          /* reads the plugin's CVARs */
        int first, last;
        int *keys = hier_comm_keys(comm, &first, &last);
        int multinode = hier_groups(keys, tc->size, 1, 1) > 1 ||
            hier_kept_levels(keys, tc->size, first, last) > 0;
        tc->flat = multinode && !hier_groups_are_blocks(keys, tc->size, first, last);
        free(keys);
    }
}

/* describe() is collective over world (hier_comm_keys): the even ranks describe their
 * parity comm too, then leave it */
static void make_comms(void)
{
    MPI_Comm rev, parity, dup;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &parity);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    describe(&comms[W_WORLD], MPI_COMM_WORLD, "world", 1);
    describe(&comms[W_REVERSED], rev, "reversed", 0);
    describe(&comms[W_ODD], parity, "odd", 0);
    describe(&comms[W_DUP], dup, "dup", 1);
    if (wrank % 2 == 0) {
        MPI_Comm_free(&parity);
        comms[W_ODD].comm = MPI_COMM_NULL;
    }
}

static void free_comms(void)
{
    for (int w = W_REVERSED; w < NCOMMS; w++)
        if (comms[w].comm != MPI_COMM_NULL)
            MPI_Comm_free(&comms[w].comm);
}

/* ---- the counters ---- */
enum { F_RS, F_RSB, F_IRS, F_IRSB, NFORMS };
static const char *const pvar_names[NFORMS] = {
    "coll_hier_reduce_scatter_hier_count", "coll_hier_reduce_scatter_block_hier_count",
    "coll_hier_ireduce_scatter_tsp_hier_count", "coll_hier_ireduce_scatter_block_tsp_hier_count"
};

static unsigned long long calls[NFORMS], sure[NFORMS], fallbacks;

static unsigned long long pvar_now(const char *name)
{
    hier_pvar pv;
    hier_pvar_open(&pv, name);
    unsigned long long v = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return v;
}

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int kind, block, in_place, seed;
    test_comm *tc;
    long long count;            /* per rank (reduce_scatter: the base of the uneven counts) */
    int *counts;                /* every rank's block (elements) */
    long long at, total;        /* where this rank's block starts in the vector, its length */
    void *send, *recv;
} rs_op;

/* (as a double: every int is one exactly, and a double slot is compared whole) */
static double slot_get(const rs_op * o, const void *buf, long long s)
{
    return cases[o->kind].is_double ? ((const double *) buf)[s] : ((const int *) buf)[s];
}

static void slot_set(const rs_op * o, void *buf, long long s, long long v)
{
    if (cases[o->kind].is_double)
        ((double *) buf)[s] = (double) v;
    else
        ((int *) buf)[s] = (int) v;
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
    int f = (schedule ? F_IRS : F_RS) + o->block;
    if (o->tc->size > 1 && o->total > 0) {
        calls[f]++;
        sure[f] += o->tc->sure;
        fallbacks += o->tc->flat;
    }
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
/* a shuffled order of 0 .. n - 1 from seed */
static void shuffle(int *idx, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int) ((seed >> 8) % (unsigned) (i + 1)), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* complete reqs in the order idx: MPI_Test on each in turn until all are done */
static void test_loop(MPI_Request * reqs, const int *idx, int n)
{
    int left = 0;
    for (int i = 0; i < n; i++)
        left += reqs[i] != MPI_REQUEST_NULL;
    while (left > 0)
        for (int i = 0; i < n; i++) {
            int flag = 0;
            if (reqs[idx[i]] == MPI_REQUEST_NULL)
                continue;
            MPI_Test(&reqs[idx[i]], &flag, MPI_STATUS_IGNORE);
            left -= flag != 0;
        }
}

/* NB operations on different buffers over the comms, all started before any completes,
 * completed by MPI_Waitall on a shuffled array or (use_test) MPI_Test loops in a shuffled
 * order (not the same on two ranks) */
static void run_outstanding(int batch, int use_test)
{
    rs_op ops[NB];
    MPI_Request reqs[NB], shuffled[NB];
    int idx[NB];
    for (int i = 0; i < NB; i++) {
        int kind = (i + batch) % NCASES, per = cases[kind].ndata;
        test_comm *tc = &comms[(i + batch / 2) % NCOMMS];
        const long long counts[4] = { 1, 17, 1000, big / per / 8 };
        op_init(&ops[i], kind, tc, counts[(i + batch) % 4], i % 2, (i / 2 + batch) % 2);
        ops[i].seed = 100 + NB * batch + i;
        reqs[i] = MPI_REQUEST_NULL;
        if (tc->comm == MPI_COMM_NULL)
            continue;
        op_fill(&ops[i]);
        op_start(&ops[i], 0, &reqs[i]);
    }
    shuffle(idx, NB, 2654435761u * (unsigned) (wrank + 1) + (unsigned) batch);
    if (use_test) {
        test_loop(reqs, idx, NB);
    } else {
        for (int i = 0; i < NB; i++)
            shuffled[i] = reqs[idx[i]];
        MPI_Waitall(NB, shuffled, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < NB; i++) {
        if (ops[i].tc->comm != MPI_COMM_NULL)
            op_check(&ops[i], use_test ? "non-blocking (MPI_Test) " : "non-blocking ");
        op_free(&ops[i]);
    }
}

/* ---- persistent operations ---- */
static void pers_round(rs_op * ops, MPI_Request * reqs, int n, int s)
{
    for (int i = 0; i < n; i++) {
        ops[i].seed = s % 50;
        op_fill(&ops[i]);
    }
    MPI_Startall(n, reqs);
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; (s % 97 == 0 || s == starts - 1) && i < n; i++)
        op_check(&ops[i], "persistent ");
}

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
    MPI_Request reqs[NPERS], never_req;
    int n = 0;
    size_t at100 = 0;
    for (int i = 0; i < NPERS; i++) {
        if (comms[spec[i][1]].comm == MPI_COMM_NULL)
            continue;
        op_init(&ops[n], spec[i][0], &comms[spec[i][1]], spec[i][2], spec[i][3], spec[i][4]);
        op_start(&ops[n], 1, &reqs[n]);
        n++;
    }
    for (int s = 0; s < starts; s++) {
        pers_round(ops, reqs, n, s);
        if (s == 100)
            at100 = mallinfo2().uordblks;
    }
    size_t now = mallinfo2().uordblks, grown = now > at100 ? now - at100 : 0;
    if (starts >= 200 && grown > 64 * 1024) {
        errors++;
        fprintf(stderr, "rank %d: the heap grew by %zu bytes over %d starts of %d persistent "
                "reduce-scatters\n", wrank, grown, starts - 101, n);
    }
    for (int i = 0; i < n; i++) {
        MPI_Request_free(&reqs[i]);
        op_free(&ops[i]);
    }
    op_init(&never, C_SUM_INT, &comms[W_WORLD], 17, 1, 0);
    op_start(&never, 1, &never_req);
    MPI_Request_free(&never_req);
    op_free(&never);
}

/* ---- main ---- */
/* the counters moved as expected since before[] (fallbacks since fallbacks0) */
static void check_counters(const unsigned long long *before, unsigned long long fallbacks0)
{
    for (int f = 0; f < NFORMS; f++) {
        int tree = f < F_IRS ? tree_blocking : tree_sched;
        unsigned long long got = pvar_now(pvar_names[f]) - before[f];
        if (tree ? got >= sure[f] && got <= calls[f] : !expect_hier || got == calls[f])
            continue;
        errors++;
        fprintf(stderr, "rank %d: %s moved by %llu for %llu calls and inits (%s%llu)\n",
                wrank, pvar_names[f], got, calls[f], tree ? "at least " : "expected ",
                tree ? sure[f] : calls[f]);
    }
    if (expect_hier && !tree_blocking && !tree_sched) {
        unsigned long long got = pvar_now("coll_hier_flat_fallbacks") - fallbacks0;
        if (got != fallbacks) {
            errors++;
            fprintf(stderr, "rank %d: coll_hier_flat_fallbacks moved by %llu, expected %llu "
                    "(calls on comms whose groups are not blocks of consecutive ranks)\n",
                    wrank, got, fallbacks);
        }
    }
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-tree-blocking"))
            tree_blocking = 1;
        else if (!strcmp(argv[i], "-tree-sched"))
            tree_sched = 1;
        else if (!strcmp(argv[i], "-starts") && i + 1 < argc)
            starts = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-big") && i + 1 < argc)
            big = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-full"))
            full = 1;
    }
}

int main(int argc, char **argv)
{
    int provided, counted;
    unsigned long long before[NFORMS], fallbacks0 = 0;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    parse_args(argc, argv);
    counted = expect_hier || tree_blocking || tree_sched;
    make_cases();
    make_comms();
    for (int f = 0; counted && f < NFORMS; f++)
        before[f] = pvar_now(pvar_names[f]);
    if (expect_hier)
        fallbacks0 = pvar_now("coll_hier_flat_fallbacks");

    for (int w = 0; w < NCOMMS; w++)
        run_blocking(&comms[w], w == W_ODD || w == W_DUP);
    for (int batch = 0; batch < 4; batch++)
        run_outstanding(batch, batch % 2);
    run_persistent();
    if (counted)
        check_counters(before, fallbacks0);

    free_comms();
    free_cases();
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
