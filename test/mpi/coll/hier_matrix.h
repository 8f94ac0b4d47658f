/*
 * mpich-hier: the matrix the tests of the scan, reduce-scatter and allgatherv families
 * share (hier_scan, hier_reduce_scatter, hier_allgatherv): their options, the comms they
 * run on, the counters they check, the completion orders of outstanding requests and the
 * heap check of persistent ones.  Each test supplies its collective's forms (blocking
 * first, then the schedules) and its three runs to hier_matrix_main.
 *
 *   -expect-hier     the counters count every call (and init) with data on a comm of
 *                    several ranks, once, and coll_hier_flat_fallbacks those on a comm
 *                    whose groups of some level are not blocks of consecutive ranks
 *   -tree-blocking   (-tree-sched) a JSON tree picks the hier algorithms (schedules) for
 *                    parent comms: their counters count at least the calls on world and
 *                    its dup and at most all
 *   -starts N        persistent starts (1000); -big N the large count (70000); -full the
 *                    whole matrix
 */

#ifndef HIER_MATRIX_H_INCLUDED
#define HIER_MATRIX_H_INCLUDED

#include "hier_util.h"
#include <malloc.h>

#define SENTINEL (-77777)       /* recvbuf's holes and whatever must stay untouched */
#define SEND_HOLE (-5)          /* sendbuf's holes */
#define NB 8                    /* operations outstanding at once */
#define HIER_MATRIX_MAX_FORMS 4

static int errors, expect_hier, tree_blocking, tree_sched, wrank;
static int starts = 1000, big = 70000, full;

/* ---- the comms ---- */
enum { W_WORLD, W_REVERSED, W_ODD, W_DUP, NCOMMS };

typedef struct {
    MPI_Comm comm;              /* MPI_COMM_NULL: this rank is not in it */
    const char *name;
    int rank, size;
    int sure;                   /* a JSON tree for parent comms takes it (world, its dup) */
    int flat;                   /* some level's groups are not blocks of consecutive ranks:
                                 * the hier algorithm runs flat there (counted) */
} test_comm;

static test_comm comms[NCOMMS];

static inline void describe(test_comm * tc, MPI_Comm comm, const char *name, int sure)
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
static inline void make_comms(void)
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

static inline void free_comms(void)
{
    for (int w = W_REVERSED; w < NCOMMS; w++)
        if (comms[w].comm != MPI_COMM_NULL)
            MPI_Comm_free(&comms[w].comm);
}

/* ---- the counters ---- */
static inline unsigned long long pvar_now(const char *name)
{
    hier_pvar pv;
    hier_pvar_open(&pv, name);
    unsigned long long v = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return v;
}

/* the forms of the collective (blocking ones first, the schedules from first_sched), what
 * each must count, and the counters before the runs */
typedef struct {
    int nforms, first_sched;
    const char *const *names;
    unsigned long long calls[HIER_MATRIX_MAX_FORMS], sure[HIER_MATRIX_MAX_FORMS];
    unsigned long long before[HIER_MATRIX_MAX_FORMS], fallbacks, fallbacks0;
} hier_counters;

static hier_counters counters;

/* one call (or init) of form f with data on tc */
static inline void count_call_on(int f, const test_comm * tc)
{
    if (tc->size > 1) {
        counters.calls[f]++;
        counters.sure[f] += tc->sure;
        counters.fallbacks += tc->flat;
    }
}

/* the counters moved as expected since the runs began */
static inline void check_counters(void)
{
    for (int f = 0; f < counters.nforms; f++) {
        int tree = f < counters.first_sched ? tree_blocking : tree_sched;
        unsigned long long got = pvar_now(counters.names[f]) - counters.before[f];
        unsigned long long calls = counters.calls[f], sure = counters.sure[f];
        if (tree ? got >= sure && got <= calls : !expect_hier || got == calls)
            continue;
        errors++;
        fprintf(stderr, "rank %d: %s moved by %llu for %llu calls and inits (%s%llu)\n",
                wrank, counters.names[f], got, calls, tree ? "at least " : "expected ",
                tree ? sure : calls);
    }
    if (expect_hier && !tree_blocking && !tree_sched) {
        unsigned long long got = pvar_now("coll_hier_flat_fallbacks") - counters.fallbacks0;
        if (got != counters.fallbacks) {
            errors++;
            fprintf(stderr, "rank %d: coll_hier_flat_fallbacks moved by %llu, expected %llu "
                    "(calls on comms whose groups are not blocks of consecutive ranks)\n",
                    wrank, got, counters.fallbacks);
        }
    }
}

/* ---- slots of int or double buffers (as a double: every int is one exactly, and a double
 * slot is compared whole) ---- */
static inline double slot_of(int is_double, const void *buf, long long s)
{
    return is_double ? ((const double *) buf)[s] : ((const int *) buf)[s];
}

static inline void slot_put(int is_double, void *buf, long long s, long long v)
{
    if (is_double)
        ((double *) buf)[s] = (double) v;
    else
        ((int *) buf)[s] = (int) v;
}

/* ---- outstanding and persistent requests ---- */
/* a shuffled order of 0 .. n - 1 from seed */
static inline void shuffle(int *idx, int n, unsigned seed)
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
static inline void test_loop(MPI_Request * reqs, const int *idx, int n)
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

/* complete reqs[0 .. n - 1] in an order shuffled from batch (not the same on two ranks):
 * MPI_Waitall on the shuffled array, or (use_test) MPI_Test loops in that order */
static inline void complete_shuffled(MPI_Request * reqs, int n, int batch, int use_test)
{
    int idx[NB];
    MPI_Request shuffled[NB];
    shuffle(idx, n, 2654435761u * (unsigned) (wrank + 1) + (unsigned) batch);
    if (use_test) {
        test_loop(reqs, idx, n);
        return;
    }
    for (int i = 0; i < n; i++)
        shuffled[i] = reqs[idx[i]];
    MPI_Waitall(n, shuffled, MPI_STATUSES_IGNORE);
}

/* The heap in use (mallinfo2) over `starts` >= 200 starts of n persistent requests, at
 * start 100 (at[0]), half way between it and the last (at[1]) and after the last: a leak
 * grows it in both halves, by more than 32 KiB each (64 KiB in all, at least 73 bytes a
 * start over 1000 starts); a pool that MPICH grows once to its high-water mark, in one. */
static inline void check_heap(const size_t at[2], int n, const char *what)
{
    size_t now = mallinfo2().uordblks;
    size_t first = at[1] > at[0] ? at[1] - at[0] : 0, second = now > at[1] ? now - at[1] : 0;
    if (starts >= 200 && first > 32 * 1024 && second > 32 * 1024) {
        errors++;
        fprintf(stderr, "rank %d: the heap grew by %zu and %zu bytes over the two halves of "
                "%d starts of %d persistent %s\n", wrank, first, second, starts - 101, n, what);
    }
}

/* The outstanding and persistent drivers every matrix test shares, for its operation type
 * op_t (fields tc and seed; op_fill, op_start, op_check and op_free written before):
 *   matrix_outstanding(ops, batch, use_test): the NB ops, initialised, filled with their
 *     batch's seeds and started on the comms that have this rank, completed shuffled
 *     (complete_shuffled), checked, freed;
 *   matrix_persistent(ops, n, never, what): the n ops, initialised, each made persistent
 *     once and started `starts` times with new data in the same buffers (checked every
 *     97th start and at the last), the heap checked (check_heap), freed; never made
 *     persistent and freed without a start. */
#define HIER_MATRIX_DRIVERS(op_t)                                                           \
static void matrix_outstanding(op_t * ops, int batch, int use_test)                         \
{                                                                                           \
    MPI_Request reqs[NB];                                                                   \
    for (int i = 0; i < NB; i++) {                                                          \
        ops[i].seed = 100 + NB * batch + i;                                                 \
        reqs[i] = MPI_REQUEST_NULL;                                                         \
        if (ops[i].tc->comm == MPI_COMM_NULL)                                               \
            continue;                                                                       \
        op_fill(&ops[i]);                                                                   \
        op_start(&ops[i], 0, &reqs[i]);                                                     \
    }                                                                                       \
    complete_shuffled(reqs, NB, batch, use_test);                                           \
    for (int i = 0; i < NB; i++) {                                                          \
        if (ops[i].tc->comm != MPI_COMM_NULL)                                               \
            op_check(&ops[i], use_test ? "non-blocking (MPI_Test) " : "non-blocking ");     \
        op_free(&ops[i]);                                                                   \
    }                                                                                       \
}                                                                                           \
                                                                                            \
static void matrix_persistent(op_t * ops, int n, op_t * never, const char *what)            \
{                                                                                           \
    MPI_Request reqs[NB], never_req;                                                        \
    size_t at[2] = { 0, 0 };                                                                \
    for (int i = 0; i < n; i++)                                                             \
        op_start(&ops[i], 1, &reqs[i]);                                                     \
    for (int s = 0; s < starts; s++) {                                                      \
        for (int i = 0; i < n; i++) {                                                       \
            ops[i].seed = s % 50;                                                           \
            op_fill(&ops[i]);                                                               \
        }                                                                                   \
        MPI_Startall(n, reqs);                                                              \
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);                                          \
        for (int i = 0; (s % 97 == 0 || s == starts - 1) && i < n; i++)                     \
            op_check(&ops[i], "persistent ");                                               \
        if (s == 100 || s == 100 + (starts - 100) / 2)                                      \
            at[s != 100] = mallinfo2().uordblks;                                            \
    }                                                                                       \
    check_heap(at, n, what);                                                                \
    for (int i = 0; i < n; i++) {                                                           \
        MPI_Request_free(&reqs[i]);                                                         \
        op_free(&ops[i]);                                                                   \
    }                                                                                       \
    op_start(never, 1, &never_req);                                                         \
    MPI_Request_free(&never_req);                                                           \
    op_free(never);                                                                         \
}

/* ---- main ---- */
static inline void parse_args(int argc, char **argv)
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

/* The test: MPI and MPI_T up, setup (types, ops), the comms, then run_blocking on each comm
 * (light on the odd ranks and the dup), 4 batches of outstanding requests (odd batches
 * completed by MPI_Test loops), the persistent ones, and the counters checked */
static inline int hier_matrix_main(int argc, char **argv, void (*setup) (void),
                                   void (*teardown) (void),
                                   void (*run_blocking) (test_comm *, int),
                                   void (*run_outstanding) (int, int),
                                   void (*run_persistent) (void))
{
    int provided, counted;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    parse_args(argc, argv);
    counted = expect_hier || tree_blocking || tree_sched;
    setup();
    make_comms();
    for (int f = 0; counted && f < counters.nforms; f++)
        counters.before[f] = pvar_now(counters.names[f]);
    if (expect_hier)
        counters.fallbacks0 = pvar_now("coll_hier_flat_fallbacks");

    for (int w = 0; w < NCOMMS; w++)
        run_blocking(&comms[w], w == W_ODD || w == W_DUP);
    for (int batch = 0; batch < 4; batch++)
        run_outstanding(batch, batch % 2);
    run_persistent();
    if (counted)
        check_counters();

    free_comms();
    teardown();
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}

#endif /* HIER_MATRIX_H_INCLUDED */
