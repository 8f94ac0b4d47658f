/*
 * mpich-hier leak check: a dup/free loop under the plugin (run by test/mpi/leak_check.sh
 * under valgrind).
 *
 *   hier_dup_free ITERATIONS [-expect PVAR]... [-selfcheck-leak]
 *
 * Each iteration dups MPI_COMM_WORLD (so the plugin builds its per-communicator state
 * lazily: levels, node comm, column comms) and, every other iteration, also splits it
 * into 2 colours: ranks 0..size-2 in reversed key order (nodes are then not blocks of
 * consecutive ranks and the plugin cannot reuse MPICH's node comm) and the last rank
 * alone.  On each new comm it runs
 *   - MPI_Bcast of a vector type with holes (the plugin packs it into a temporary),
 *     root moving with the iteration;
 *   - MPI_Reduce at the last rank (root not 0) of the same vector type with a
 *     commutative user sum (MPICH takes no builtin op on derived types);
 *   - MPI_Allreduce MPI_IN_PLACE of contiguous ints, MPI_SUM;
 * all of a few KiB, so that several segments run at the segment sizes the script sets,
 * checks every result (holes included) and frees the comm.  A wrong result prints a
 * message and exits non-zero (MPI_Abort).
 *
 * -expect PVAR: the plugin's MPI_T counter PVAR (e.g. coll_hier_bcast_hier_count) must
 * have counted at least ITERATIONS calls on every rank, so the check cannot pass with the
 * plugin silently out of the picture.
 *
 * -selfcheck-leak: leak 64 bytes per iteration from hier_selfcheck_leak() (a name the
 * script's plugin-frame pattern matches), so that the script can show that it sees a
 * leak that grows with ITERATIONS and a loss record in a plugin frame.
 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLOCKS 1024            /* vector: NBLOCKS ints, stride 2 (4 KiB of data) */
#define NINTS 1536              /* allreduce: 6 KiB of contiguous ints */
#define HOLE (-7)
#define MAX_EXPECT 8

static int world_rank;

#define FAIL(...) \
    do { \
        fprintf(stderr, "hier_dup_free: rank %d: ", world_rank); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
        MPI_Abort(MPI_COMM_WORLD, 1); \
        exit(1); \
    } while (0)

/* the planted leak of -selfcheck-leak: kept out of line so valgrind names it */
void *volatile selfcheck_sink;
__attribute__ ((noinline))
static void hier_selfcheck_leak(int iter)
{
    char *p = malloc(64);
    memset(p, iter, 64);
    selfcheck_sink = p;         /* the previous one is now unreachable */
}

/* commutative sum of the data ints of the vector type (holes untouched) */
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype * type)
{
    (void) type;
    int *a = in, *b = inout;
    for (int i = 0; i < *len * NBLOCKS; i++)
        b[2 * i] += a[2 * i];
}

static void run_collectives(MPI_Comm comm, MPI_Datatype vec, MPI_Op op, int iter)
{
    static int vbuf[2 * NBLOCKS], vout[2 * NBLOCKS], abuf[NINTS];
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* bcast of the vector type, root moving */
    int root = iter % size;
    for (int i = 0; i < NBLOCKS; i++) {
        vbuf[2 * i] = rank == root ? iter * 100000 + i : -1;
        vbuf[2 * i + 1] = HOLE;
    }
    MPI_Bcast(vbuf, 1, vec, root, comm);
    for (int i = 0; i < NBLOCKS; i++) {
        if (vbuf[2 * i] != iter * 100000 + i)
            FAIL("iteration %d: MPI_Bcast (root %d of %d): element %d is %d, expected %d",
                 iter, root, size, i, vbuf[2 * i], iter * 100000 + i);
        if (vbuf[2 * i + 1] != HOLE)
            FAIL("iteration %d: MPI_Bcast wrote hole %d", iter, i);
    }

    /* reduce of the vector type at the last rank */
    root = size - 1;
    for (int i = 0; i < NBLOCKS; i++) {
        vbuf[2 * i] = rank * 3 + i + iter;
        vbuf[2 * i + 1] = HOLE;
        vout[2 * i] = -1;
        vout[2 * i + 1] = HOLE;
    }
    MPI_Reduce(vbuf, vout, 1, vec, op, root, comm);
    for (int i = 0; rank == root && i < NBLOCKS; i++) {
        int want = 3 * size * (size - 1) / 2 + size * (i + iter);
        if (vout[2 * i] != want)
            FAIL("iteration %d: MPI_Reduce (root %d of %d): element %d is %d, expected %d",
                 iter, root, size, i, vout[2 * i], want);
        if (vout[2 * i + 1] != HOLE)
            FAIL("iteration %d: MPI_Reduce wrote hole %d", iter, i);
    }

    /* allreduce in place */
    for (int i = 0; i < NINTS; i++)
        abuf[i] = rank + i - iter;
    MPI_Allreduce(MPI_IN_PLACE, abuf, NINTS, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < NINTS; i++) {
        int want = size * (size - 1) / 2 + size * (i - iter);
        if (abuf[i] != want)
            FAIL("iteration %d: MPI_Allreduce (%d ranks): element %d is %d, expected %d",
                 iter, size, i, abuf[i], want);
    }
}

static unsigned long long pvar_read(const char *name)
{
    int index, count;
    unsigned long long value = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS)
        FAIL("no MPI_T pvar %s: is this MPICH built with mpich-hier?", name);
    MPI_T_pvar_session_create(&session);
    MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count);
    MPI_T_pvar_read(session, handle, &value);
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    return value;
}

int main(int argc, char **argv)
{
    int iterations = -1, leak = 0, nexpect = 0, provided, size;
    const char *expect[MAX_EXPECT];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-selfcheck-leak"))
            leak = 1;
        else if (!strcmp(argv[i], "-expect") && i + 1 < argc && nexpect < MAX_EXPECT)
            expect[nexpect++] = argv[++i];
        else if (iterations < 0 && atoi(argv[i]) > 0)
            iterations = atoi(argv[i]);
        else
            FAIL("usage: hier_dup_free ITERATIONS [-expect PVAR]... [-selfcheck-leak]");
    }
    if (iterations < 0)
        FAIL("usage: hier_dup_free ITERATIONS [-expect PVAR]... [-selfcheck-leak]");
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);

    MPI_Datatype vec;
    MPI_Op op;
    MPI_Type_vector(NBLOCKS, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(vec_sum, 1, &op);

    for (int iter = 0; iter < iterations; iter++) {
        MPI_Comm dup, split;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        run_collectives(dup, vec, op, iter);
        if (iter % 2 == 1) {
            int last = world_rank == size - 1;
            MPI_Comm_split(MPI_COMM_WORLD, last, last ? 0 : size - world_rank, &split);
            run_collectives(split, vec, op, iter);
            MPI_Comm_free(&split);
        }
        MPI_Comm_free(&dup);
        if (leak)
            hier_selfcheck_leak(iter);
    }

    char counts[512] = "";
    for (int i = 0; i < nexpect; i++) {
        unsigned long long n = pvar_read(expect[i]);
        if (n < (unsigned long long) iterations)
            FAIL("pvar %s counted %llu calls, expected at least %d: the plugin did not run",
                 expect[i], n, iterations);
        size_t len = strlen(counts);
        snprintf(counts + len, sizeof(counts) - len, " %s=%llu", expect[i], n);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&vec);
    MPI_T_finalize();
    if (world_rank == 0)
        printf("hier_dup_free: %d iterations on %d ranks, results correct;%s\n", iterations,
               size, nexpect ? counts : " no pvar checked");
    MPI_Finalize();
    return 0;
}
