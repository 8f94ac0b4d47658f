/*
 * mpich-hier: the hier allgather, gather, scatter and barrier as schedules: MPI_Iallgather,
 * MPI_Igather, MPI_Iscatter, MPI_Ibarrier and their _init forms, run with
 * MPIR_CVAR_I{ALLGATHER,GATHER,SCATTER,BARRIER}_INTRA_ALGORITHM=tsp_hier on emulated nodes.
 *
 *   outstanding  on each of three overlapping comms (world, a dup, a split by parity with
 *                reversed keys) a gather and a scatter per root and allgathers, all started
 *                before any completes, completed in a shuffled order (MPI_Waitany over the
 *                shuffled array, or an MPI_Testall loop), every result checked
 *   kinds        counts 0, 1, 7 and 300 ints (the allgather's ring in pieces of 44 bytes:
 *                several per block, not a multiple of it); a vector with holes at the root
 *                (gather's receive, scatter's send) where the others send plain ints;
 *                MPI_IN_PLACE at the root and in the allgather
 *   persistent   initialised once, started ROUNDS times with new data in the same buffers
 *                (MPI_Startall, MPI_Waitall), freed; one freed without ever being started
 *   barrier      before each barrier every rank adds 1 to a counter on rank 0 (passive
 *                target, flushed); after it every rank reads the counter: it must hold a
 *                count from every rank (a barrier that let one rank out early fails it);
 *                outstanding barriers on the three comms, and a persistent one started
 *                ROUNDS times
 *
 * -expect-hier: the counters coll_hier_i<coll>_tsp_hier_count must count every call and
 * init that has data on a comm of several ranks (barriers: of several ranks), once; with
 * -tree (the schedules picked by a JSON tree for parent comms) at least those on world
 * and its dup.
 */

#include "hier_util.h"

#define ROUNDS 4
#define MAXOPS 512

static int errors, expect_hier, by_tree, wrank;

typedef enum { K_GATHER, K_GATHER_INPLACE, K_GATHER_VECTOR, K_SCATTER, K_SCATTER_INPLACE,
    K_SCATTER_VECTOR, K_ALLGATHER, K_ALLGATHER_INPLACE, NKINDS
} kind;

static const char *kind_name[NKINDS] = {
    "igather", "igather in place", "igather vector", "iscatter", "iscatter in place",
    "iscatter vector", "iallgather", "iallgather in place"
};

static const char *const pvar_names[4] = {
    "coll_hier_igather_tsp_hier_count", "coll_hier_iscatter_tsp_hier_count",
    "coll_hier_iallgather_tsp_hier_count", "coll_hier_ibarrier_tsp_hier_count"
};

typedef struct {
    kind k;
    MPI_Comm comm;
    const char *comm_name;
    int root, count, round, rank, size;
    int *mine, *all;            /* a rank's block; the root's (allgather: every rank's) blocks */
    MPI_Datatype vec;           /* count ints, one hole after each */
} op;

static op ops[MAXOPS];
static int nops;

static int value(int rank, int i, int round)
{
    return rank * 1000003 + i * 31 + round * 7 + 1;
}

static int is_gather(kind k)
{
    return k == K_GATHER || k == K_GATHER_INPLACE || k == K_GATHER_VECTOR;
}

static int is_scatter(kind k)
{
    return k == K_SCATTER || k == K_SCATTER_INPLACE || k == K_SCATTER_VECTOR;
}

static int pvar_of(kind k)
{
    return is_gather(k) ? 0 : is_scatter(k) ? 1 : 2;
}

/* the root's buffer: size blocks of count ints, or of the vector (2 * count ints) */
static int stride(const op * o)
{
    return (o->k == K_GATHER_VECTOR || o->k == K_SCATTER_VECTOR) ? 2 * o->count : o->count;
}

static void op_init(op * o, kind k, MPI_Comm comm, const char *name, int root, int count)
{
    memset(o, 0, sizeof(*o));
    o->k = k;
    o->comm = comm;
    o->comm_name = name;
    o->root = root;
    o->count = count;
    MPI_Comm_rank(comm, &o->rank);
    MPI_Comm_size(comm, &o->size);
    o->mine = malloc(sizeof(int) * (count + 1));
    o->all = malloc(sizeof(int) * ((size_t) o->size * 2 * count + 1));
    MPI_Datatype v;
    MPI_Type_vector(count > 0 ? count : 1, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint) sizeof(int) * 2 * (count > 0 ? count : 1), &o->vec);
    MPI_Type_free(&v);
    MPI_Type_commit(&o->vec);
}

static void op_free(op * o)
{
    free(o->mine);
    free(o->all);
    MPI_Type_free(&o->vec);
}

/* fresh inputs, and the outputs scribbled over */
static void op_fill(op * o)
{
    int n = o->count, st = stride(o);
    for (int i = 0; i < n; i++)
        o->mine[i] = is_scatter(o->k) ? -1 : value(o->rank, i, o->round);
    for (int r = 0; r < o->size; r++)
        for (int i = 0; i < st; i++)
            o->all[(size_t) r * st + i] = is_scatter(o->k) && (st == n || i % 2 == 0) ?
                value(r, st == n ? i : i / 2, o->round) : -1;
    if (o->k == K_GATHER_INPLACE && o->rank == o->root)
        for (int i = 0; i < n; i++)
            o->all[(size_t) o->root * n + i] = value(o->root, i, o->round);
    if (o->k == K_ALLGATHER_INPLACE)
        for (int i = 0; i < n; i++)
            o->all[(size_t) o->rank * n + i] = value(o->rank, i, o->round);
}

static void op_start(op * o, int persistent, MPI_Request * req)
{
    int n = o->count, at_root = o->rank == o->root;
    MPI_Datatype rt = o->k == K_GATHER_VECTOR || o->k == K_SCATTER_VECTOR ? o->vec : MPI_INT;
    MPI_Info info = MPI_INFO_NULL;
    switch (o->k) {
        case K_GATHER:
        case K_GATHER_VECTOR:
        case K_GATHER_INPLACE:{
                const void *sb = o->k == K_GATHER_INPLACE && at_root ? MPI_IN_PLACE : o->mine;
                int rc = o->k == K_GATHER_VECTOR ? 1 : n;
                if (o->k == K_GATHER_VECTOR && n == 0)
                    rc = 0;
                if (persistent)
                    MPI_Gather_init(sb, n, MPI_INT, o->all, rc, rt, o->root, o->comm, info, req);
                else
                    MPI_Igather(sb, n, MPI_INT, o->all, rc, rt, o->root, o->comm, req);
                break;
            }
        case K_SCATTER:
        case K_SCATTER_VECTOR:
        case K_SCATTER_INPLACE:{
                void *rb = o->k == K_SCATTER_INPLACE && at_root ? MPI_IN_PLACE : o->mine;
                int sc = o->k == K_SCATTER_VECTOR ? (n > 0) : n;
                if (persistent)
                    MPI_Scatter_init(o->all, sc, rt, rb, n, MPI_INT, o->root, o->comm, info, req);
                else
                    MPI_Iscatter(o->all, sc, rt, rb, n, MPI_INT, o->root, o->comm, req);
                break;
            }
        case K_ALLGATHER:
        case K_ALLGATHER_INPLACE:{
                const void *sb = o->k == K_ALLGATHER_INPLACE ? MPI_IN_PLACE : o->mine;
                if (persistent)
                    MPI_Allgather_init(sb, n, MPI_INT, o->all, n, MPI_INT, o->comm, info, req);
                else
                    MPI_Iallgather(sb, n, MPI_INT, o->all, n, MPI_INT, o->comm, req);
                break;
            }
        default:
            break;
    }
}

static void op_check(const op * o)
{
    int n = o->count, st = stride(o), bad = 0;
    if (is_scatter(o->k)) {
        if (o->k == K_SCATTER_INPLACE && o->rank == o->root)
            return;
        for (int i = 0; i < n && !bad; i++)
            bad = o->mine[i] != value(o->rank, i, o->round);
    } else if (is_gather(o->k) && o->rank != o->root) {
        return;
    } else {
        for (int r = 0; r < o->size && !bad; r++)
            for (int i = 0; i < st && !bad; i++) {
                int want = st == n ? value(r, i, o->round) :
                    i % 2 == 0 ? value(r, i / 2, o->round) : -1;
                bad = o->all[(size_t) r * st + i] != want;
            }
    }
    if (bad) {
        errors++;
        fprintf(stderr, "rank %d: %s on %s, root %d, count %d, round %d: wrong data\n", wrank,
                kind_name[o->k], o->comm_name, o->root, n, o->round);
    }
}

/* calls counted by the schedule counters: data on a comm of several ranks; sure[]: those
 * on world and its dup */
static unsigned long long sure[4];

static void count_call(const op * o, unsigned long long *calls)
{
    if (o->size > 1 && o->count > 0) {
        calls[pvar_of(o->k)]++;
        sure[pvar_of(o->k)] += strcmp(o->comm_name, "split") != 0;
    }
}

static unsigned long long counts_now(int which)
{
    hier_pvar pv;
    hier_pvar_open(&pv, pvar_names[which]);
    unsigned long long v = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return v;
}

static void add_ops(MPI_Comm comm, const char *name)
{
    static const int counts[4] = { 0, 1, 7, 300 };
    int size;
    MPI_Comm_size(comm, &size);
    for (int root = 0; root < size; root++)
        for (int k = 0; k < NKINDS; k++) {
            if ((k == K_ALLGATHER || k == K_ALLGATHER_INPLACE) && root > 0)
                continue;
            for (int c = 0; c < 4; c++) {
                if (nops == MAXOPS || (c == 3 && root != size - 1 && k < K_ALLGATHER))
                    continue;   /* the big count on one root per kind */
                op_init(&ops[nops++], (kind) k, comm, name, root, counts[c]);
            }
        }
}

/* a shuffled order, the same on every rank (shared seed) */
static void shuffle(int *order, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int) ((seed >> 8) % (unsigned) (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void run_outstanding(int testall, unsigned long long *calls)
{
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * nops);
    int *order = malloc(sizeof(int) * nops);
    for (int i = 0; i < nops; i++) {
        ops[i].round = testall + 1;
        op_fill(&ops[i]);
        op_start(&ops[i], 0, &reqs[i]);
        count_call(&ops[i], calls);
    }
    shuffle(order, nops, 99u + testall);
    if (testall) {
        int flag = 0;
        while (!flag)
            MPI_Testall(nops, reqs, &flag, MPI_STATUSES_IGNORE);
    } else {
        MPI_Request *shuffled = malloc(sizeof(MPI_Request) * nops);
        for (int i = 0; i < nops; i++)
            shuffled[i] = reqs[order[i]];
        for (int left = nops; left > 0; left--) {
            int idx;
            MPI_Waitany(nops, shuffled, &idx, MPI_STATUS_IGNORE);
        }
        free(shuffled);
    }
    for (int i = 0; i < nops; i++)
        op_check(&ops[i]);
    free(order);
    free(reqs);
}

static void run_persistent(unsigned long long *calls)
{
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * nops), never;
    for (int i = 0; i < nops; i++) {
        op_start(&ops[i], 1, &reqs[i]);
        count_call(&ops[i], calls);
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < nops; i++) {
            ops[i].round = 10 + round;
            op_fill(&ops[i]);
        }
        MPI_Startall(nops, reqs);
        MPI_Waitall(nops, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < nops; i++)
            op_check(&ops[i]);
    }
    for (int i = 0; i < nops; i++)
        MPI_Request_free(&reqs[i]);
    op_start(&ops[0], 1, &never);
    count_call(&ops[0], calls);
    MPI_Request_free(&never);
    free(reqs);
}

/* every rank adds 1 to rank 0's counter before a barrier (and reads it after it) */
static void arrive(MPI_Win win, long long *expect)
{
    long long one = 1;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, MPI_SUM, win);
    MPI_Win_flush(0, win);
    *expect += size;
}

static void check_counter(MPI_Win win, long long expect, const char *what)
{
    long long seen = -1;
    MPI_Get(&seen, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
    if (seen < expect) {
        errors++;
        fprintf(stderr, "rank %d: %s: left with %lld arrivals of %lld\n", wrank, what, seen,
                expect);
    }
}

static void run_barriers(MPI_Comm dup, MPI_Comm split, unsigned long long *calls)
{
    long long *counter, expect = 0;
    MPI_Win win;
    MPI_Request reqs[3], pers;
    MPI_Comm comms[3] = { MPI_COMM_WORLD, dup, split };
    int size;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < ROUNDS; round++) {
        /* outstanding on the three comms; the world one, completed last, is the check */
        arrive(win, &expect);
        for (int c = 2; c >= 0; c--) {
            int csize;
            MPI_Comm_size(comms[c], &csize);
            MPI_Ibarrier(comms[c], &reqs[c]);
            calls[3] += csize > 1;
            sure[3] += c < 2 && csize > 1;
        }
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        MPI_Wait(&reqs[2], MPI_STATUS_IGNORE);
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        check_counter(win, expect, "ibarrier");
    }
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pers);
    calls[3] += size > 1;
    sure[3] += size > 1;
    for (int round = 0; round < ROUNDS; round++) {
        arrive(win, &expect);
        MPI_Start(&pers);
        MPI_Wait(&pers, MPI_STATUS_IGNORE);
        check_counter(win, expect, "persistent barrier");
    }
    MPI_Request_free(&pers);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Comm dup, split;
    unsigned long long before[4], calls[4] = { 0, 0, 0, 0 };

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-tree"))
            by_tree = 1;
    }
    /* the allgather's ring in pieces of 44 bytes: 11 ints, not a divisor of the blocks */
    hier_cvar_write_int("MPIR_CVAR_ALLGATHER_HIER_SEGSIZE", 44);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &split);
    for (int w = 0; w < 4; w++)
        before[w] = counts_now(w);
    add_ops(MPI_COMM_WORLD, "world");
    add_ops(dup, "dup");
    add_ops(split, "split");
    run_outstanding(0, calls);
    run_outstanding(1, calls);
    run_persistent(calls);
    run_barriers(dup, split, calls);
    for (int w = 0; expect_hier && w < 4; w++) {
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
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
