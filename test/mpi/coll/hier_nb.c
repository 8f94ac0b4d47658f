/*
 * mpich-hier: the hier bcast, reduce and allreduce as schedules: MPI_Ibcast,
 * MPI_Ireduce, MPI_Iallreduce and MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init,
 * run with MPIR_CVAR_I{BCAST,REDUCE,ALLREDUCE}_INTRA_ALGORITHM=tsp_hier and emulated
 * nodes (several segments: the hier segment sizes are set small through MPI_T).
 *
 *   outstanding  on each of three overlapping comms (world, a dup, a split by parity with
 *                reversed keys) a bcast, reduce and allreduce per root, all started before
 *                any completes, completed in a shuffled order (MPI_Waitany over the
 *                shuffled array, or an MPI_Testall loop), every result checked
 *   kinds        counts 0, 1, not a multiple of the segment and of several segments; a
 *                vector with holes at the bcast root received as plain ints elsewhere;
 *                MPI_IN_PLACE at the reduce root and in allreduce; a non-commutative user
 *                op (composition of affine maps, in rank order)
 *   persistent   initialised once, started ROUNDS times with new data in the same buffers,
 *                freed after the last wait; one freed without ever being started; the
 *                schedule counters count inits, not starts
 *   -leak N      a persistent allreduce started N times: the heap in use (mallinfo2) may
 *                not grow between start 100 and start N by more than 64 KiB
 *
 * -expect-hier: the plugin's counters coll_hier_i<coll>_tsp_hier_count must count every
 * call and init that has data on a comm of several ranks, once; with -tree (the schedules
 * picked by a JSON tree for parent comms) at least those on world and its dup.
 */

#include "hier_util.h"
#include <malloc.h>
#include <stdint.h>

#define P 1000003LL             /* the affine maps' modulus */
#define ROUNDS 5

static int errors, expect_hier, by_tree;
static int wrank;

/* ---- the non-commutative op: (a, b) is x -> a x + b, combined as f_lower o f_higher ---- */
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

static MPI_Op op_compose;

static int affine_a(int rank, int i, int round)
{
    return (rank * 7 + i * 3 + round) % 97 + 2;
}

static int affine_b(int rank, int i, int round)
{
    return (rank * 13 + i + round * 5) % 89;
}

/* ---- one operation in flight: its buffers and how to check it ---- */
typedef enum { K_BCAST, K_BCAST_VECTOR, K_REDUCE, K_REDUCE_INPLACE, K_ALLREDUCE,
    K_ALLREDUCE_INPLACE, K_REDUCE_COMPOSE, K_ALLREDUCE_COMPOSE, NKINDS
} kind;

typedef struct {
    kind k;
    MPI_Comm comm;
    const char *comm_name;
    int root, count, round;
    int *buf, *out;             /* buf: bcast data / reduce input; out: result */
    MPI_Datatype vec;
} op;

static const char *kind_name[NKINDS] = {
    "ibcast", "ibcast vector", "ireduce", "ireduce in place", "iallreduce",
    "iallreduce in place", "ireduce compose", "iallreduce compose"
};

static int value(int rank, int i, int round)
{
    return (rank + 1) * 31 + i * 7 + round;
}

/* fill the buffers of o for its round (before a start) */
static void op_fill(op * o)
{
    int rank, size;
    MPI_Comm_rank(o->comm, &rank);
    MPI_Comm_size(o->comm, &size);
    int n = o->count;
    switch (o->k) {
        case K_BCAST:
            for (int i = 0; i < n; i++)
                o->buf[i] = rank == o->root ? value(o->root, i, o->round) : -1;
            break;
        case K_BCAST_VECTOR:
            /* the root's vector: every other int of 2n; the holes must stay untouched */
            for (int i = 0; i < 2 * n; i++)
                o->buf[i] = rank == o->root ? (i % 2 ? -7 : value(o->root, i / 2, o->round)) : -1;
            break;
        case K_REDUCE:
        case K_ALLREDUCE:
            for (int i = 0; i < n; i++) {
                o->buf[i] = value(rank, i, o->round);
                o->out[i] = -1;
            }
            break;
        case K_REDUCE_INPLACE:
        case K_ALLREDUCE_INPLACE:
            for (int i = 0; i < n; i++)
                o->out[i] = value(rank, i, o->round);
            break;
        case K_REDUCE_COMPOSE:
        case K_ALLREDUCE_COMPOSE:
            for (int i = 0; i < n; i++) {
                o->buf[2 * i] = affine_a(rank, i, o->round);
                o->buf[2 * i + 1] = affine_b(rank, i, o->round);
                o->out[2 * i] = o->out[2 * i + 1] = -1;
            }
            break;
        default:
            break;
    }
}

static void op_fail(op * o, int i, int got, int want)
{
    errors++;
    if (errors < 10)
        fprintf(stderr, "rank %d: %s on %s (root %d, count %d, round %d): element %d is %d, not %d\n",
                wrank, kind_name[o->k], o->comm_name, o->root, o->count, o->round, i, got, want);
}

static void op_check(op * o)
{
    int rank, size;
    MPI_Comm_rank(o->comm, &rank);
    MPI_Comm_size(o->comm, &size);
    int n = o->count;
    int has_result = !(o->k == K_REDUCE || o->k == K_REDUCE_INPLACE ||
                       o->k == K_REDUCE_COMPOSE) || rank == o->root;
    switch (o->k) {
        case K_BCAST:
            for (int i = 0; i < n; i++)
                if (o->buf[i] != value(o->root, i, o->round))
                    { op_fail(o, i, o->buf[i], value(o->root, i, o->round)); return; }
            break;
        case K_BCAST_VECTOR:
            for (int i = 0; i < 2 * n; i++) {
                int want = rank == o->root ? (i % 2 ? -7 : value(o->root, i / 2, o->round)) :
                    i < n ? value(o->root, i, o->round) : -1;
                if (o->buf[i] != want)
                    { op_fail(o, i, o->buf[i], want); return; }
            }
            break;
        case K_REDUCE:
        case K_ALLREDUCE:
        case K_REDUCE_INPLACE:
        case K_ALLREDUCE_INPLACE:
            for (int i = 0; has_result && i < n; i++) {
                int want = 0;
                for (int r = 0; r < size; r++)
                    want += value(r, i, o->round);
                if (o->out[i] != want)
                    { op_fail(o, i, o->out[i], want); return; }
            }
            break;
        case K_REDUCE_COMPOSE:
        case K_ALLREDUCE_COMPOSE:
            for (int i = 0; has_result && i < n; i++) {
                long long a = 1, b = 0;         /* f_0 o f_1 o ... o f_{size-1} */
                for (int r = size - 1; r >= 0; r--) {
                    long long ar = affine_a(r, i, o->round), br = affine_b(r, i, o->round);
                    b = (ar * b + br) % P;
                    a = ar * a % P;
                }
                if (o->out[2 * i] != a || o->out[2 * i + 1] != b)
                    { op_fail(o, i, o->out[2 * i + 1], (int) b); return; }
            }
            break;
        default:
            break;
    }
}

static void op_init(op * o, kind k, MPI_Comm comm, const char *comm_name, int root, int count)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    o->k = k;
    o->comm = comm;
    o->comm_name = comm_name;
    o->root = root;
    o->count = count;
    o->round = 0;
    o->buf = calloc(2 * count + 2, sizeof(int));
    o->out = calloc(2 * count + 2, sizeof(int));
    MPI_Type_vector(count, 1, 2, MPI_INT, &o->vec);
    MPI_Type_commit(&o->vec);
}

static void op_free(op * o)
{
    free(o->buf);
    free(o->out);
    MPI_Type_free(&o->vec);
}

/* start o non-blocking (persistent: init only) */
static void op_start(op * o, int persistent, MPI_Request * req)
{
    int rank;
    MPI_Comm_rank(o->comm, &rank);
    int n = o->count, in_place_root = rank == o->root;
    MPI_Datatype pair = MPI_2INT;
    switch (o->k) {
        case K_BCAST:
            (persistent ? MPI_Bcast_init(o->buf, n, MPI_INT, o->root, o->comm, MPI_INFO_NULL, req)
             : MPI_Ibcast(o->buf, n, MPI_INT, o->root, o->comm, req));
            break;
        case K_BCAST_VECTOR:
            if (rank == o->root)
                (persistent ? MPI_Bcast_init(o->buf, 1, o->vec, o->root, o->comm, MPI_INFO_NULL, req)
                 : MPI_Ibcast(o->buf, 1, o->vec, o->root, o->comm, req));
            else
                (persistent ? MPI_Bcast_init(o->buf, n, MPI_INT, o->root, o->comm, MPI_INFO_NULL, req)
                 : MPI_Ibcast(o->buf, n, MPI_INT, o->root, o->comm, req));
            break;
        case K_REDUCE:
            (persistent ? MPI_Reduce_init(o->buf, o->out, n, MPI_INT, MPI_SUM, o->root, o->comm,
                                          MPI_INFO_NULL, req)
             : MPI_Ireduce(o->buf, o->out, n, MPI_INT, MPI_SUM, o->root, o->comm, req));
            break;
        case K_REDUCE_INPLACE:
            {
                const void *s = in_place_root ? MPI_IN_PLACE : o->out;
                (persistent ? MPI_Reduce_init(s, o->out, n, MPI_INT, MPI_SUM, o->root, o->comm,
                                              MPI_INFO_NULL, req)
                 : MPI_Ireduce(s, o->out, n, MPI_INT, MPI_SUM, o->root, o->comm, req));
            }
            break;
        case K_ALLREDUCE:
            (persistent ? MPI_Allreduce_init(o->buf, o->out, n, MPI_INT, MPI_SUM, o->comm,
                                             MPI_INFO_NULL, req)
             : MPI_Iallreduce(o->buf, o->out, n, MPI_INT, MPI_SUM, o->comm, req));
            break;
        case K_ALLREDUCE_INPLACE:
            (persistent ? MPI_Allreduce_init(MPI_IN_PLACE, o->out, n, MPI_INT, MPI_SUM, o->comm,
                                             MPI_INFO_NULL, req)
             : MPI_Iallreduce(MPI_IN_PLACE, o->out, n, MPI_INT, MPI_SUM, o->comm, req));
            break;
        case K_REDUCE_COMPOSE:
            (persistent ? MPI_Reduce_init(o->buf, o->out, n, pair, op_compose, o->root, o->comm,
                                          MPI_INFO_NULL, req)
             : MPI_Ireduce(o->buf, o->out, n, pair, op_compose, o->root, o->comm, req));
            break;
        case K_ALLREDUCE_COMPOSE:
            (persistent ? MPI_Allreduce_init(o->buf, o->out, n, pair, op_compose, o->comm,
                                             MPI_INFO_NULL, req)
             : MPI_Iallreduce(o->buf, o->out, n, pair, op_compose, o->comm, req));
            break;
        default:
            break;
    }
}

/* ---- counters ---- */
static const char *const pvar_names[3] = {
    "coll_hier_ibcast_tsp_hier_count", "coll_hier_ireduce_tsp_hier_count",
    "coll_hier_iallreduce_tsp_hier_count"
};

static int pvar_of(kind k)
{
    return k <= K_BCAST_VECTOR ? 0 : (k == K_REDUCE || k == K_REDUCE_INPLACE ||
                                      k == K_REDUCE_COMPOSE) ? 1 : 2;
}

static unsigned long long counts_now(int which)
{
    hier_pvar pv;
    hier_pvar_open(&pv, pvar_names[which]);
    unsigned long long v = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return v;
}

/* a deterministic shuffle, the same on no two ranks: completion order differs per rank */
static void shuffle(int *idx, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int) ((seed >> 8) % (unsigned) (i + 1));
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

#define MAXOPS 512

static op ops[MAXOPS];
static int nops;

static void add_ops(MPI_Comm comm, const char *name, int segment_ints)
{
    int size;
    MPI_Comm_size(comm, &size);
    const int counts[] = { 0, 1, 3 * segment_ints + 5, 4 * segment_ints };
    for (int root = 0; root < size; root++)
        for (int k = 0; k < NKINDS; k++) {
            int count = counts[(root + k) % 4];
            if (k >= K_REDUCE_COMPOSE)
                count = count / 2 + 1;
            if (nops < MAXOPS)
                op_init(&ops[nops++], (kind) k, comm, name, root, count);
        }
}

/* the calls the plugin's counter counts: on a comm of several ranks, with data; sure[]:
 * those a JSON tree that takes tsp_hier on parent comms sends there too (world and its
 * dup; the split may or may not be a parent comm, by where its ranks are) */
static unsigned long long sure[3];

static void count_call(const op * o, unsigned long long *calls)
{
    int size;
    MPI_Comm_size(o->comm, &size);
    if (size > 1 && o->count > 0) {
        calls[pvar_of(o->k)]++;
        if (strcmp(o->comm_name, "split"))
            sure[pvar_of(o->k)]++;
    }
}

static void run_outstanding(int use_testall, unsigned long long *calls)
{
    MPI_Request reqs[MAXOPS];
    int idx[MAXOPS];
    for (int i = 0; i < nops; i++) {
        ops[i].round = use_testall + 1;
        op_fill(&ops[i]);
        op_start(&ops[i], 0, &reqs[i]);
        count_call(&ops[i], calls);
    }
    /* complete in a shuffled order */
    shuffle(idx, nops, 2654435761u * (unsigned) (wrank + 1) + (unsigned) use_testall);
    MPI_Request shuffled[MAXOPS];
    for (int i = 0; i < nops; i++)
        shuffled[i] = reqs[idx[i]];
    if (use_testall) {
        int flag = 0;
        while (!flag)
            MPI_Testall(nops, shuffled, &flag, MPI_STATUSES_IGNORE);
    } else {
        for (int done = 0; done < nops; done++) {
            int which;
            MPI_Waitany(nops, shuffled, &which, MPI_STATUS_IGNORE);
        }
    }
    for (int i = 0; i < nops; i++)
        op_check(&ops[i]);
}

static void run_persistent(unsigned long long *calls)
{
    MPI_Request reqs[MAXOPS], never;
    for (int i = 0; i < nops; i++) {
        op_start(&ops[i], 1, &reqs[i]);
        count_call(&ops[i], calls);
    }
    for (int round = 10; round < 10 + ROUNDS; round++) {
        for (int i = 0; i < nops; i++) {
            ops[i].round = round;
            op_fill(&ops[i]);
        }
        /* started in order, completed all at once */
        MPI_Startall(nops, reqs);
        MPI_Waitall(nops, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < nops; i++)
            op_check(&ops[i]);
    }
    for (int i = 0; i < nops; i++)
        MPI_Request_free(&reqs[i]);
    /* initialised, never started, freed */
    op_start(&ops[0], 1, &never);
    count_call(&ops[0], calls);
    MPI_Request_free(&never);
}

static void run_leak(int starts)
{
    op o;
    MPI_Request req;
    size_t at100 = 0;
    op_init(&o, K_ALLREDUCE, MPI_COMM_WORLD, "world", 0, 5000);
    op_start(&o, 1, &req);
    for (int s = 0; s < starts; s++) {
        o.round = s % 50;
        op_fill(&o);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (s % 97 == 0)
            op_check(&o);
        if (s == 100)
            at100 = mallinfo2().uordblks;
    }
    size_t grown = mallinfo2().uordblks > at100 ? mallinfo2().uordblks - at100 : 0;
    if (starts > 100 && grown > 64 * 1024) {
        errors++;
        fprintf(stderr, "rank %d: the heap grew by %zu bytes over %d starts of one persistent "
                "allreduce\n", wrank, grown, starts - 100);
    }
    MPI_Request_free(&req);
    op_free(&o);
}

int main(int argc, char **argv)
{
    int provided, leak = 0;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-tree"))
            by_tree = 1;
        else if (!strcmp(argv[i], "-leak") && i + 1 < argc)
            leak = atoi(argv[++i]);
    }
    MPI_Op_create(compose, 0, &op_compose);

    /* several segments per call: 1020 B (not a multiple of 8: segments of MPI_2INT
     * pairs end mid-run for the bcast, whole elements for the reductions) */
    hier_cvar_write_int("MPIR_CVAR_BCAST_HIER_SEGSIZE", 1020);
    hier_cvar_write_int("MPIR_CVAR_REDUCE_HIER_SEGSIZE", 1020);
    hier_cvar_write_int("MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", 1020);

    if (leak) {
        run_leak(leak);
    } else {
        MPI_Comm dup, split;
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &split);
        unsigned long long before[3], calls[3] = { 0, 0, 0 };
        for (int w = 0; w < 3; w++)
            before[w] = counts_now(w);
        add_ops(MPI_COMM_WORLD, "world", 255);
        add_ops(dup, "dup", 300);
        add_ops(split, "split", 255);
        run_outstanding(0, calls);
        run_outstanding(1, calls);
        run_persistent(calls);
        for (int w = 0; expect_hier && w < 3; w++) {
            unsigned long long got = counts_now(w) - before[w];
            if (by_tree ? got < sure[w] || got > calls[w] : got != calls[w]) {
                errors++;
                fprintf(stderr, "rank %d: %s moved by %llu for %llu calls and inits\n", wrank,
                        pvar_names[w], got, calls[w]);
            }
        }
        for (int i = 0; i < nops; i++)
            op_free(&ops[i]);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&split);
    }

    MPI_Op_free(&op_compose);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
