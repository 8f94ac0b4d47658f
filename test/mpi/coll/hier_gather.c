/*
 * mpich-hier: MPI_Allgather, MPI_Gather, MPI_Scatter and MPI_Barrier correctness matrix.
 *
 * Communicators world, a dup, a parity split with reversed keys and halves; every root;
 * counts 0, 1, 17, an exact multiple of the allgather segment (1000 B, set through MPI_T)
 * and one that is not; datatypes int, a vector with holes, a struct with gaps, a vector
 * on one side received as plain ints on the other, and MPI_2INT against twice as many
 * MPI_INT; MPI_IN_PLACE (gather and allgather: sendbuf, scatter: the root's recvbuf).
 * Every receiving rank checks every data byte of every block and that no hole was
 * written.  The barrier: each rank adds 1 to a counter on rank 0 (RMA, flushed) before
 * it, and every rank reads at least size times the round after it.  With -big, blocks of
 * 4 MiB / size + 28 B (over 4 MiB in all).  With -expect-hier, the plugin's pvar must
 * count exactly the calls that move data (every barrier on more than one rank).
 *
 * Run with MPIR_CVAR_<COLL>_INTRA_ALGORITHM=hier for the collectives to test (-coll
 * NAME restricts it to one), and MPIR_CVAR_NUM_CLIQUES / MPIR_CVAR_CLIQUES_BY_BLOCK for
 * emulated nodes.  With -json instead, under a tuning file that names hier for parent
 * comms only (make_hier_tree.py): -expect-hier then expects hier exactly on the comms
 * with two levels, and never on the others (MPICH gives those no hierarchy).
 */

#include "hier_util.h"
#include "hier_layouts.h"
#include <stdint.h>

enum { C_ALLGATHER, C_GATHER, C_SCATTER, C_BARRIER, NCOLLS };
static const char *coll_names[NCOLLS] = { "allgather", "gather", "scatter", "barrier" };

#define SEGSIZE 1000

static int errors, expect_hier, big, json, two_level;
static hier_pvar pvars[NCOLLS];

/* the payload of rank owner's block in round iter */
static int seed_of(int owner, int iter)
{
    return owner * 29 + iter * 13 + 1;
}

static void report(long long bad, const char *what, int owner)
{
    if (!bad)
        return;
    if (errors < 10)
        fprintf(stderr, "mismatch: %s, block of rank %d: %lld wrong bytes\n", what, owner, bad);
    errors++;
}

/* One call of collective c; count: elements of the wide side per rank. */
static void data_case(int c, MPI_Comm comm, const char *comm_name, int t, long long count,
                      int root, int in_place, int iter)
{
    int rank, size;
    char what[256];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long long factor;
    const layout *wide = layout_of(t, 1, &factor);
    const layout *narrow = layout_of(t, 0, &factor);
    long long ncount = count * factor;
    snprintf(what, sizeof(what), "%s comm %s (size %d) root %d type %s count %lld%s",
             coll_names[c], comm_name, size, root, type_names[t], count,
             in_place ? " in place" : "");

    /* gather, allgather: narrow send, wide receive of size blocks (gather: the root
     * sends wide too); scatter the other way round */
    int all_wide = c == C_ALLGATHER || rank == root;
    /* the root's own block has its side's signature */
    const layout *mine = c != C_ALLGATHER && rank == root ? wide : narrow;
    long long my_count = mine == wide ? count : ncount;
    unsigned char *one = malloc(mine->extent * (my_count ? my_count : 1));
    unsigned char *all = NULL;
    if (all_wide)
        all = malloc(wide->extent * (count ? count : 1) * size);
    unsigned long long calls0 = expect_hier ? hier_pvar_read(&pvars[c]) : 0;

    if (c == C_ALLGATHER || c == C_GATHER) {
        layout_fill(one, mine, my_count, 1, seed_of(rank, iter));
        int own_in_place = in_place && (c == C_ALLGATHER || rank == root);
        if (all) {
            for (int r = 0; r < size; r++)
                layout_fill(all + r * count * wide->extent, wide, count,
                            own_in_place && r == rank, seed_of(r, iter));
        }
        const void *sendbuf = own_in_place ? MPI_IN_PLACE : one;
        if (c == C_ALLGATHER)
            MPI_Allgather(sendbuf, (int) my_count, mine->type, all, (int) count, wide->type, comm);
        else
            MPI_Gather(sendbuf, (int) my_count, mine->type, all, (int) count, wide->type, root,
                       comm);
        if (all)
            for (int r = 0; r < size; r++)
                report(layout_check(all + r * count * wide->extent, wide, count,
                                    seed_of(r, iter)), what, r);
    } else {
        if (all)
            for (int r = 0; r < size; r++)
                layout_fill(all + r * count * wide->extent, wide, count, 1, seed_of(r, iter));
        layout_fill(one, mine, my_count, 0, 0);
        void *recvbuf = in_place && rank == root ? MPI_IN_PLACE : one;
        MPI_Scatter(all, (int) count, wide->type, recvbuf, (int) my_count, mine->type, root, comm);
        if (!(in_place && rank == root))
            report(layout_check(one, mine, my_count, seed_of(rank, iter)), what, rank);
        else            /* the root's own block stays where it was */
            report(layout_check(all + rank * count * wide->extent, wide, count,
                                seed_of(rank, iter)), what, rank);
    }

    unsigned long long want = size > 1 && count > 0 && (!json || two_level);
    if (expect_hier && hier_pvar_read(&pvars[c]) - calls0 != want) {
        fprintf(stderr, "%s: ran hier %llu times\n", what, hier_pvar_read(&pvars[c]) - calls0);
        errors++;
    }
    free(one);
    free(all);
}

static void barrier_cases(MPI_Comm comm, const char *comm_name)
{
    int rank, size, *counter;
    MPI_Win win;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &counter, &win);
    *counter = 0;
    MPI_Win_lock_all(0, win);
    MPI_Barrier(comm);          /* the counter is 0 everywhere before anyone adds */
    for (int round = 1; round <= 20; round++) {
        int one = 1, seen = 0;
        unsigned long long calls0 = expect_hier ? hier_pvar_read(&pvars[C_BARRIER]) : 0;
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Barrier(comm);
        MPI_Fetch_and_op(NULL, &seen, MPI_INT, 0, 0, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        if (seen < round * size) {
            if (errors < 10)
                fprintf(stderr, "barrier comm %s (size %d) round %d: rank %d left with %d of "
                        "%d arrivals\n", comm_name, size, round, rank, seen, round * size);
            errors++;
        }
        if (expect_hier &&
            hier_pvar_read(&pvars[C_BARRIER]) - calls0 != (size > 1 && (!json || two_level))) {
            fprintf(stderr, "barrier comm %s (size %d): ran hier %llu times\n", comm_name,
                    size, hier_pvar_read(&pvars[C_BARRIER]) - calls0);
            errors++;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

static void run_comm(MPI_Comm comm, const char *name, const int *enabled)
{
    int size, iter = 0;
    MPI_Comm_size(comm, &size);
    two_level = !hier_comm_is_one_level(comm);
    for (int c = 0; c < C_BARRIER; c++) {
        if (!enabled[c])
            continue;
        for (int t = 0; t < NTYPES; t++) {
            long long factor;
            int data_bytes = layout_of(t, 1, &factor)->ndata;
            long long exact = 3LL * SEGSIZE * 4 / data_bytes;   /* 12 segments */
            long long counts[] = { 0, 1, 17, exact, exact + 3 };
            for (int k = 0; k < 5; k++)
                for (int root = 0; root < (c == C_ALLGATHER ? 1 : size); root++)
                    for (int in_place = 0; in_place < 2; in_place++)
                        data_case(c, comm, name, t, counts[k], root, in_place, iter++);
        }
        if (big) {
            long long count = (4LL * 1024 * 1024 / size + 28) / 4;
            for (int root = 0; root < (c == C_ALLGATHER ? 1 : size); root += 1 + size / 3)
                data_case(c, comm, name, T_INT, count, root, root % 2, iter++);
        }
    }
    if (enabled[C_BARRIER])
        barrier_cases(comm, name);
}

int main(int argc, char **argv)
{
    int rank, size, provided, enabled[NCOLLS] = { 1, 1, 1, 1 };
    MPI_Comm dup, parity, half;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-big"))
            big = 1;
        else if (!strcmp(argv[i], "-json"))
            json = 1;
        else if (!strcmp(argv[i], "-coll") && i + 1 < argc) {
            i++;
            for (int c = 0; c < NCOLLS; c++)
                enabled[c] = !strcmp(argv[i], coll_names[c]);
        } else
            HIER_FAIL("usage: hier_gather [-coll NAME] [-expect-hier] [-json] [-big]");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_layouts();
    hier_cvar_write_int("MPIR_CVAR_ALLGATHER_HIER_SEGSIZE", SEGSIZE);
    for (int c = 0; c < NCOLLS; c++) {
        char name[64];
        snprintf(name, sizeof(name), "coll_hier_%s_hier_count", coll_names[c]);
        hier_pvar_open(&pvars[c], name);
    }

    run_comm(MPI_COMM_WORLD, "world", enabled);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run_comm(dup, "dup", enabled);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity);
    run_comm(parity, "parity-reversed", enabled);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    run_comm(half, "half", enabled);
    MPI_Comm_free(&half);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&dup);

    for (int c = 0; c < NCOLLS; c++)
        hier_pvar_close(&pvars[c]);
    free_layouts();
    MPI_T_finalize();
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
