/*
 * mpich-hier: MPI_Bcast correctness matrix.
 *
 * Several communicators (world, a dup, a parity split with reversed keys, halves):
 * every root with 1020 B segments, the first, middle and last root otherwise; counts 0, 1, 17, an exact multiple of the segment and one that is
 * not, segment sizes 0, 1020 B and 64 KiB (set through MPI_T), and datatypes: int,
 * a vector with holes, a struct with gaps, a vector at the root received as plain
 * ints elsewhere, and MPI_2INT at the root received as twice as many MPI_INT (element
 * sizes 8 and 4 under a segment size that 8 does not divide).  Every rank checks every data byte and that no hole was
 * written.  With -big, 4 MiB + 28 B broadcasts too.  With -expect-hier, the
 * plugin's pvar must show that hier ran for every call (exactly once per call that moves
 * data with hier itself; at least once with a seg tree), and on a single-level comm
 * (one node, or one rank per node) in one step: one segment per call.
 *
 * With -algo NAME (a segmented tree, e.g. seg_binary) the segment sizes go to
 * MPIR_CVAR_BCAST_SEG_SEGSIZE and -expect-hier checks the pvar of MPIR_Bcast_intra_NAME.
 *
 * Run with MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier (or a tuning file naming hier) and
 * MPIR_CVAR_NUM_CLIQUES / MPIR_CVAR_CLIQUES_BY_BLOCK for emulated nodes.
 */

#include "hier_util.h"
#include "hier_layouts.h"
#include <stdint.h>

static int errors;
static long long hier_calls;
static const char *algo = "hier";       /* -algo: the algorithm the pvar check expects */
static const char *segsize_cvar = "MPIR_CVAR_BCAST_HIER_SEGSIZE";
static int check_one_step;              /* -expect-hier with hier: count each call */
static hier_pvar seg_pv, pv;

/* the payload of a bcast from root in round iter */
static int seed_of(int root, int iter)
{
    return root * 7 + iter * 13 + 1;
}

static void bcast_case(MPI_Comm comm, const char *comm_name, int t, long long count, int root,
                       int segsize, int iter, int one_level)
{
    int rank, size;
    char what[256];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* T_MIXED, T_PAIR: the others receive the root's signature as ints */
    long long factor;
    const layout *l = layout_of(t, rank == root, &factor);
    long long my_count = count * factor;

    unsigned char *buf = malloc(l->extent * (my_count ? my_count : 1));
    layout_fill(buf, l, my_count, rank == root, seed_of(root, iter));
    unsigned long long segs0 = check_one_step ? hier_pvar_read(&seg_pv) : 0;
    unsigned long long ran0 = check_one_step ? hier_pvar_read(&pv) : 0;
    MPI_Bcast(buf, (int) my_count, l->type, root, comm);
    /* hier counts the calls that move data: exactly this one, or none */
    unsigned long long want = size > 1 && count > 0;
    if (check_one_step && hier_pvar_read(&pv) - ran0 != want) {
        fprintf(stderr, "comm %s (size %d): a bcast of %lld ran hier %llu times\n", comm_name,
                size, count, hier_pvar_read(&pv) - ran0);
        errors++;
    }
    if (check_one_step && one_level && size > 1 && count > 0 &&
        hier_pvar_read(&seg_pv) - segs0 != 1) {
        fprintf(stderr, "comm %s (size %d): a single-level bcast of %lld took %llu segments\n",
                comm_name, size, count, hier_pvar_read(&seg_pv) - segs0);
        errors++;
    }
    if (size > 1 && count > 0)
        hier_calls++;
    snprintf(what, sizeof(what), "comm %s (size %d) root %d type %s count %lld segsize %d",
             comm_name, size, root, type_names[t], count, segsize);
    long long bad = layout_check(buf, l, my_count, seed_of(root, iter));
    if (bad) {
        if (errors < 10)
            fprintf(stderr, "mismatch: %s, %lld wrong bytes\n", what, bad);
        errors++;
    }
    free(buf);
}

static void run_comm(MPI_Comm comm, const char *name, int big)
{
    static const int segsizes[] = { 0, 1020, 65536 };
    int size, iter = 0;
    MPI_Comm_size(comm, &size);
    int one_level = hier_comm_is_one_level(comm);

    for (int s = 0; s < 3; s++) {
        hier_cvar_write_int(segsize_cvar, segsizes[s]);
        for (int t = 0; t < NTYPES; t++) {
            long long factor;
            int data_bytes = layout_of(t, 1, &factor)->ndata;
            long long exact = segsizes[s] ? 3LL * segsizes[s] / data_bytes : 1000;
            long long counts[] = { 0, 1, 17, exact, exact + 3 };
            /* every root where segments pipeline (1020 B); the ends and the middle else */
            for (int c = 0; c < 5; c++)
                for (int root = 0; root < size; root++)
                    if (s == 1 || root == 0 || root == size / 2 || root == size - 1)
                        bcast_case(comm, name, t, counts[c], root, segsizes[s], iter++, one_level);
        }
    }
    if (big) {
        hier_cvar_write_int(segsize_cvar, 65536);
        bcast_case(comm, name, T_INT, (4LL << 20) / 4 + 7, 0, 65536, iter++, one_level);
        bcast_case(comm, name, T_INT, (4LL << 20) / 4 + 7, size - 1, 65536, iter++, one_level);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, big = 0, expect_hier = 0;
    char pvar_name[128];
    MPI_Comm dup, parity, half;
    unsigned long long before;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-big"))
            big = 1;
        else if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-algo") && i + 1 < argc)
            algo = argv[++i];
    }

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_layouts();
    if (strcmp(algo, "hier"))
        segsize_cvar = "MPIR_CVAR_BCAST_SEG_SEGSIZE";
    snprintf(pvar_name, sizeof(pvar_name), "coll_hier_bcast_%s_count", algo);
    hier_pvar_open(&pv, pvar_name);
    before = hier_pvar_read(&pv);
    check_one_step = expect_hier && !strcmp(algo, "hier");
    if (check_one_step)
        hier_pvar_open(&seg_pv, "coll_hier_bcast_hier_segments");

    /* created while hier may be forced by CVAR */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);

    run_comm(MPI_COMM_WORLD, "world", big);
    run_comm(dup, "dup", 0);
    run_comm(parity, "parity-reversed", big);
    run_comm(half, "half", 0);

    if (expect_hier) {
        unsigned long long ran = hier_pvar_read(&pv) - before;
        if (ran < (unsigned long long) hier_calls) {
            fprintf(stderr, "rank %d: %s ran %llu times for %lld broadcasts\n", rank, algo, ran,
                    hier_calls);
            errors++;
        }
    }
    hier_pvar_close(&pv);
    if (check_one_step)
        hier_pvar_close(&seg_pv);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&half);
    free_layouts();

    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
