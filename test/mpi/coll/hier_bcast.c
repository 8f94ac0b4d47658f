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
#include <stdint.h>

enum { T_INT, T_VECTOR, T_STRUCT, T_MIXED, T_PAIR, NTYPES };
static const char *type_names[NTYPES] = { "int", "vector", "struct", "vector-vs-int",
    "2int-vs-int"
};

#define GAP 0xA5
#define GARBAGE 0x5A

typedef struct {
    MPI_Datatype type;
    MPI_Aint extent;
    int ndata;                  /* data bytes per element */
    int offsets[32];            /* byte offset of each data byte in an element */
} layout;

static layout layouts[3];       /* int, vector, struct */
static layout pair_layout;      /* MPI_2INT */
static int errors;
static long long hier_calls;
static const char *algo = "hier";       /* -algo: the algorithm the pvar check expects */
static const char *segsize_cvar = "MPIR_CVAR_BCAST_HIER_SEGSIZE";
static int check_one_step;              /* -expect-hier with hier: count each call */
static hier_pvar seg_pv, pv;

static void add_run(layout * l, int off, int len)
{
    for (int i = 0; i < len; i++)
        l->offsets[l->ndata++] = off + i;
}

static void make_layouts(void)
{
    MPI_Datatype vec, st, st_raw;
    int blens[3] = { 1, 1, 1 };
    MPI_Aint displs[3] = { 0, 8, 20 };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };

    layouts[T_INT].type = MPI_INT;
    layouts[T_INT].extent = 4;
    add_run(&layouts[T_INT], 0, 4);

    /* 3 blocks of 2 ints, stride 3: ints 0,1,3,4,6,7 of an 8-int extent */
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    layouts[T_VECTOR].type = vec;
    layouts[T_VECTOR].extent = 32;
    for (int b = 0; b < 3; b++)
        add_run(&layouts[T_VECTOR], 12 * b, 8);

    /* char at 0, double at 8, int at 20, extent 32: mixed, with gaps */
    MPI_Type_create_struct(3, blens, displs, types, &st_raw);
    MPI_Type_create_resized(st_raw, 0, 32, &st);
    MPI_Type_commit(&st);
    MPI_Type_free(&st_raw);
    layouts[T_STRUCT].type = st;
    layouts[T_STRUCT].extent = 32;
    add_run(&layouts[T_STRUCT], 0, 1);
    add_run(&layouts[T_STRUCT], 8, 8);
    add_run(&layouts[T_STRUCT], 20, 4);

    pair_layout.type = MPI_2INT;
    pair_layout.extent = 8;
    add_run(&pair_layout, 0, 8);
}

/* The layout of type case t at the root, and elsewhere with the count factor */
static const layout *layout_of(int t, int at_root, long long *factor)
{
    *factor = 1;
    if (t == T_MIXED && !at_root)
        *factor = 6;
    if (t == T_PAIR && !at_root)
        *factor = 2;
    if (t == T_MIXED)
        return &layouts[at_root ? T_VECTOR : T_INT];
    if (t == T_PAIR)
        return at_root ? &pair_layout : &layouts[T_INT];
    return &layouts[t];
}

static unsigned char expected_byte(long long k, int root, int iter)
{
    return (unsigned char) (k * 131 + root * 7 + iter * 13 + 1);
}

static void fill(unsigned char *buf, const layout * l, long long count, int is_root, int root,
                 int iter)
{
    long long k = 0;
    memset(buf, GAP, l->extent * count);
    for (long long e = 0; e < count; e++)
        for (int i = 0; i < l->ndata; i++, k++)
            buf[e * l->extent + l->offsets[i]] = is_root ? expected_byte(k, root, iter) : GARBAGE;
}

static void check(const unsigned char *buf, const layout * l, long long count, int root,
                  int iter, const char *what)
{
    long long k = 0, bad = 0;
    char *is_data = calloc(l->extent, 1);
    for (int i = 0; i < l->ndata; i++)
        is_data[l->offsets[i]] = 1;
    for (long long e = 0; e < count; e++) {
        for (int i = 0; i < l->ndata; i++, k++)
            if (buf[e * l->extent + l->offsets[i]] != expected_byte(k, root, iter))
                bad++;
        for (int b = 0; b < l->extent; b++)
            if (!is_data[b] && buf[e * l->extent + b] != GAP)
                bad++;
    }
    free(is_data);
    if (bad) {
        if (errors < 10)
            fprintf(stderr, "mismatch: %s, %lld wrong bytes\n", what, bad);
        errors++;
    }
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
    fill(buf, l, my_count, rank == root, root, iter);
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
    check(buf, l, my_count, root, iter, what);
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
    MPI_Type_free(&layouts[T_VECTOR].type);
    MPI_Type_free(&layouts[T_STRUCT].type);

    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
