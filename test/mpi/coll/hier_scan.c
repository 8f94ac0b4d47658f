/*
 * mpich-hier: MPI_Scan and MPI_Exscan (MPIR_Scan_intra_hier, MPIR_Exscan_intra_hier) in
 * their three forms: blocking, non-blocking (MPI_Iscan, MPI_Iexscan) and persistent
 * (MPI_Scan_init, MPI_Exscan_init), run with MPIR_CVAR_{SCAN,EXSCAN}_INTRA_ALGORITHM=hier
 * and MPIR_CVAR_I{SCAN,EXSCAN}_INTRA_ALGORITHM=tsp_hier (or a Csel JSON tree) on emulated
 * nodes.
 *
 *   comms        world, a split of all ranks with reversed keys (on round-robin cliques
 *                the groups are no blocks of consecutive ranks), the odd ranks, a dup
 *   cases        MPI_SUM on int and on integer-valued double, MPI_MAX on int, a
 *                non-commutative user op (composition of affine maps x -> a x + b mod a
 *                prime, a pair of ints as MPI_Type_contiguous(2, MPI_INT): the result
 *                is f_0 o f_1 o ... in rank order) and a commutative user sum on a vector
 *                with holes (MPI_Type_vector(3, 2, 3, MPI_INT): MPICH takes no builtin op
 *                on derived types); counts 0, 1, 17, 1000 and a large one (-big N ints,
 *                70000: int sum and the non-commutative op); MPI_IN_PLACE on alternate
 *                calls (count 1: both); on the odd ranks and the dup counts 1 and 1000;
 *                -full: every count both ways on every comm, the large one for every case
 *   reference    computed locally over every rank's input in rank order; every data
 *                value of recvbuf checked, every hole must keep its sentinel; the
 *                exscan's recvbuf on rank 0 must not be touched (in place: it keeps the
 *                input)
 *   outstanding  batches of 8 MPI_Iscan/MPI_Iexscan on different buffers over the comms,
 *                completed by MPI_Waitall on a shuffled array or by MPI_Test loops in a
 *                shuffled order
 *   persistent   MPI_Scan_init/MPI_Exscan_init on the comms, started -starts N times
 *                (1000), results checked every 97th start and at the last; from 200
 *                starts, the heap in use (mallinfo2) may not grow by more than 32 KiB
 *                in both halves from start 100 (hier_matrix.h); one more initialised
 *                and freed unstarted
 *
 * -expect-hier: the plugin's counters coll_hier_{scan,exscan}_hier_count and
 * coll_hier_{iscan,iexscan}_tsp_hier_count must count every call (and init) that has data
 * on a comm of several ranks, once, and coll_hier_flat_fallbacks those on a comm whose
 * groups of some level are not blocks of consecutive ranks (hier_comm_keys).  With
 * -tree-blocking / -tree-sched (the hier algorithms picked by a JSON tree for parent
 * comms): the blocking / the schedule counters must count at least the calls on world
 * and its dup and at most all.
 */

#include "hier_matrix.h"
#include "hier_op_cases.h"

#define NPERS 5                 /* persistent operations */

/* ---- the counters ---- */
enum { F_SCAN, F_EXSCAN, F_ISCAN, F_IEXSCAN, NFORMS };
static const char *const form_names[NFORMS] = {
    "coll_hier_scan_hier_count", "coll_hier_exscan_hier_count",
    "coll_hier_iscan_tsp_hier_count", "coll_hier_iexscan_tsp_hier_count"
};

/* ---- one operation: its buffers, how to fill and check them ---- */
typedef struct {
    int kind, exscan, in_place, seed;
    test_comm *tc;
    long long count;            /* elements */
    void *send, *recv;
} scan_op;

static double slot_get(const scan_op * o, const void *buf, long long s)
{
    return slot_of(cases[o->kind].is_double, buf, s);
}

static void slot_set(const scan_op * o, void *buf, long long s, long long v)
{
    slot_put(cases[o->kind].is_double, buf, s, v);
}

static void op_init(scan_op * o, int kind, test_comm * tc, long long count, int exscan,
                    int in_place)
{
    const op_case *c = &cases[kind];
    size_t bytes = (size_t) (count * c->ext + 1) * (c->is_double ? sizeof(double) : sizeof(int));
    *o = (scan_op) { kind, exscan, in_place, 0, tc, count, malloc(bytes), malloc(bytes) };
}

static void op_free(scan_op * o)
{
    free(o->send);
    free(o->recv);
}

/* sendbuf: the input, SEND_HOLE in the holes; recvbuf: SENTINEL (in place: the input
 * where the data goes) */
static void op_fill(scan_op * o)
{
    const op_case *c = &cases[o->kind];
    long long slots = o->count * c->ext;
    for (long long s = 0; s < slots; s++) {
        slot_set(o, o->send, s, SEND_HOLE);
        slot_set(o, o->recv, s, SENTINEL);
    }
    for (long long k = 0; k < o->count * c->ndata; k++) {
        long long s = k / c->ndata * c->ext + c->off[k % c->ndata];
        slot_set(o, o->in_place ? o->recv : o->send, s, input(o->kind, o->tc->rank, k,
                                                               o->seed));
    }
}

/* what slot s of recvbuf must hold after the operation */
static long long op_want(const scan_op * o, long long s)
{
    const op_case *c = &cases[o->kind];
    int d = -1, rank = o->tc->rank;
    for (int i = 0; i < c->ndata; i++)
        if (c->off[i] == s % c->ext)
            d = i;
    if (d < 0)
        return SENTINEL;        /* a hole */
    long long k = s / c->ext * c->ndata + d;
    if (o->exscan && rank == 0)
        return o->in_place ? input(o->kind, 0, k, o->seed) : SENTINEL;
    return prefix(o->kind, o->exscan ? rank - 1 : rank, k, o->seed);
}

static void op_check(const scan_op * o, const char *form)
{
    const op_case *c = &cases[o->kind];
    long long slots = o->count * c->ext, bad = 0, first = -1, want = 0;
    double got = 0;
    for (long long s = 0; s < slots; s++) {
        long long w = op_want(o, s);
        double g = slot_get(o, o->recv, s);
        if (g != (double) w && bad++ == 0) {
            first = s;
            got = g;
            want = w;
        }
    }
    if (!bad)
        return;
    if (errors++ < 10)
        fprintf(stderr, "rank %d (world %d): %s%s%s on %s (size %d), %s, count %lld, "
                "round %d: %lld wrong slots, first slot %lld (element %lld, %s) is %.17g, "
                "expected %lld%s\n", o->tc->rank, wrank, form, o->exscan ? "exscan" : "scan",
                o->in_place ? " in place" : "", o->tc->name, o->tc->size, c->name, o->count,
                o->seed, bad, first, first / c->ext, want == SENTINEL ? "hole or untouched" :
                "data", got, want, want == SENTINEL ? " (the sentinel)" : "");
}

/* the counters' expectations for a call or init of o in form f (blocking or schedule) */
static void count_call(const scan_op * o, int schedule)
{
    if (o->count > 0)
        count_call_on((schedule ? F_ISCAN : F_SCAN) + o->exscan, o->tc);
}

static const void *op_sendbuf(const scan_op * o)
{
    return o->in_place ? MPI_IN_PLACE : o->send;
}

static void op_blocking(scan_op * o)
{
    const op_case *c = &cases[o->kind];
    op_fill(o);
    if (o->exscan)
        MPI_Exscan(op_sendbuf(o), o->recv, (int) o->count, c->type, c->op, o->tc->comm);
    else
        MPI_Scan(op_sendbuf(o), o->recv, (int) o->count, c->type, c->op, o->tc->comm);
    count_call(o, 0);
    op_check(o, "");
}

/* start o non-blocking, or (persistent) init it */
static void op_start(scan_op * o, int persistent, MPI_Request * req)
{
    const op_case *c = &cases[o->kind];
    const void *sb = op_sendbuf(o);
    int n = (int) o->count;
    MPI_Comm comm = o->tc->comm;
    if (persistent && o->exscan)
        MPI_Exscan_init(sb, o->recv, n, c->type, c->op, comm, MPI_INFO_NULL, req);
    else if (persistent)
        MPI_Scan_init(sb, o->recv, n, c->type, c->op, comm, MPI_INFO_NULL, req);
    else if (o->exscan)
        MPI_Iexscan(sb, o->recv, n, c->type, c->op, comm, req);
    else
        MPI_Iscan(sb, o->recv, n, c->type, c->op, comm, req);
    count_call(o, 1);
}

HIER_MATRIX_DRIVERS(scan_op)

/* ---- the blocking matrix ---- */
/* every case: counts 0, 1, 17, 1000 and the large one (int sum and the non-commutative op
 * only, unless -full), scan and exscan, in place on alternate calls (count 1: both);
 * light (the odd ranks, the dup): counts 1 and 1000 only.  -full: every count both ways,
 * on every comm. */
static void run_blocking(test_comm * tc, int light)
{
    int iter = 0;
    if (tc->comm == MPI_COMM_NULL)
        return;
    light = light && !full;
    for (int kind = 0; kind < NCASES; kind++) {
        const int per = cases[kind].ndata;
        const long long counts[5] = { 0, 1, 17, 1000, big / per };
        for (int n = 0; n < 5; n++) {
            if ((n == 4 && !full && kind != C_SUM_INT && kind != C_COMPOSE) ||
                (light && n != 1 && n != 3))
                continue;
            for (int exscan = 0; exscan < 2; exscan++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    int both = full || (n == 1 && !light);
                    if (!both && in_place != (n + kind + exscan) % 2)
                        continue;
                    scan_op o;
                    op_init(&o, kind, tc, counts[n], exscan, in_place);
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
    scan_op ops[NB];
    for (int i = 0; i < NB; i++) {
        int kind = (i + batch) % NCASES, per = cases[kind].ndata;
        const long long counts[4] = { 1, 17, 1000, big / per };
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
    static const int spec[NPERS][5] = {   /* kind, comm, count, exscan, in place */
        {C_SUM_INT, W_WORLD, 1000, 0, 0}, {C_COMPOSE, W_WORLD, 17, 1, 0},
        {C_MAX_INT, W_REVERSED, 1, 0, 1}, {C_VECTOR, W_DUP, 17, 1, 1},
        {C_SUM_DOUBLE, W_ODD, 1000, 1, 0}
    };
    scan_op ops[NPERS], never;
    int n = 0;
    for (int i = 0; i < NPERS; i++)
        if (comms[spec[i][1]].comm != MPI_COMM_NULL)
            op_init(&ops[n++], spec[i][0], &comms[spec[i][1]], spec[i][2], spec[i][3],
                    spec[i][4]);
    op_init(&never, C_SUM_INT, &comms[W_WORLD], 17, 1, 0);
    matrix_persistent(ops, n, &never, "scans and exscans");
}

/* ---- main ---- */
int main(int argc, char **argv)
{
    counters = (hier_counters) { NFORMS, F_ISCAN, form_names };
    return hier_matrix_main(argc, argv, make_cases, free_cases, run_blocking, run_outstanding,
                            run_persistent);
}
