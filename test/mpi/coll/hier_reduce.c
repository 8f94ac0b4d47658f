/*
 * mpich-hier: MPI_Reduce and MPI_Allreduce correctness matrix.
 *
 * Communicators: world, a dup, a parity split with reversed keys (nodes no longer
 * blocks of consecutive ranks), halves.  Segment sizes 0, 64 B and 1 KiB (through
 * MPI_T).  Counts 0, 1, 17, an exact multiple of the segment and one that is not.
 * Every builtin op on types it is defined for (MINLOC/MAXLOC on pair types), a
 * commutative user sum on a vector with holes (MPICH rejects builtin ops on
 * derived types), a commutative user op on a struct with gaps and a non-commutative
 * user op (composition of affine maps mod a prime).  MPI_IN_PLACE on alternate calls.
 * Reduce at every root for the 1 KiB segment's non-multiple count and the
 * non-commutative op, at the first and last root otherwise.
 *
 * The reference is computed locally with MPI_Reduce_local over every rank's
 * contribution in rank order; every rank checks every data byte of its result and that
 * no hole was written.  With -algo NAME (a segmented tree, e.g. seg_binomial) the reduce
 * is MPIR_Reduce_intra_NAME: segment sizes go to MPIR_CVAR_REDUCE_SEG_SEGSIZE and
 * -expect-hier checks its pvar and the in-order substitutions for non-commutative ops.
 * With -expect-hier the plugin's pvars must show hier ran every
 * call, and ran flat exactly when the op is non-commutative and the groups of some level
 * (emulated switches, nodes, emulated packages: hier_comm_keys) are not blocks of
 * consecutive ranks.
 *
 * Run with MPIR_CVAR_REDUCE_INTRA_ALGORITHM=hier MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=hier
 * and MPIR_CVAR_NUM_CLIQUES / MPIR_CVAR_CLIQUES_BY_BLOCK for emulated nodes.
 */

#include "hier_util.h"
#include <stdint.h>

#define GAP 0xA5
#define PRIME 1000003

enum { DATA = 1, HOLE = 2 };    /* byte roles in an element; 0: not checked (padding) */

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int commutative;
    MPI_Aint extent;
    MPI_Aint size;              /* bytes of data per element */
    char role[32];
    void (*gen) (int rank, long long i, unsigned char *elem);
} op_case;

typedef struct {
    char c;
    double d;
    int k;
} gapped;                       /* placed at offsets 0, 8, 20 of a 32-byte extent */

static int errors;

static void gen_int_sum(int r, long long i, unsigned char *e)
{
    int v = (int) ((r * 7 + i * 3) % 101) - 50;
    memcpy(e, &v, 4);
}

static void gen_int_prod(int r, long long i, unsigned char *e)
{
    int v = (r + i) % 3 == 0 ? -1 : 1;
    memcpy(e, &v, 4);
}

static void gen_float_max(int r, long long i, unsigned char *e)
{
    float v = (float) ((r * 13 + i * 7) % 97) - 40.0f;
    memcpy(e, &v, 4);
}

static void gen_double_min(int r, long long i, unsigned char *e)
{
    double v = (double) ((r * 11 + i * 5) % 89) * 0.5;
    memcpy(e, &v, 8);
}

static void gen_int_logic(int r, long long i, unsigned char *e)
{
    int v = (r * i + 1) % 5 != 0;
    memcpy(e, &v, 4);
}

static void gen_unsigned_bits(int r, long long i, unsigned char *e)
{
    unsigned v = (unsigned) (r + 1) * 2654435761u + (unsigned) i * 40503u;
    memcpy(e, &v, 4);
}

static void gen_long_bits(int r, long long i, unsigned char *e)
{
    long v = ~(1L << ((r + i) % 40)) ^ (long) i;
    memcpy(e, &v, sizeof(long));
}

static void gen_2int_loc(int r, long long i, unsigned char *e)
{
    int v[2] = { (int) ((r * 5 + i) % 7), r };
    memcpy(e, v, 8);
}

static void gen_double_int_loc(int r, long long i, unsigned char *e)
{
    struct {
        double v;
        int loc;
    } x = { (double) ((r * 3 + i) % 5), r * 10 + 1 };
    memcpy(e, &x.v, 8);
    memcpy(e + 8, &x.loc, 4);
}

static void gen_vector(int r, long long i, unsigned char *e)
{
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 2; j++) {
            int v = (int) ((r + 1) * (i + 2 * b + j + 1) % 1000);
            memcpy(e + 12 * b + 4 * j, &v, 4);
        }
}

static void gen_gapped(int r, long long i, unsigned char *e)
{
    char c = (char) (r * 3 + i);
    double d = (double) ((r + 2) * (i % 13));
    int k = (int) (r * 100 + i % 17);
    memcpy(e, &c, 1);
    memcpy(e + 8, &d, 8);
    memcpy(e + 20, &k, 4);
}

static void gen_affine(int r, long long i, unsigned char *e)
{
    int map[2] = { (int) (1 + (r * 31 + i * 17) % (PRIME - 1)), (int) ((r * 7 + i) % PRIME) };
    memcpy(e, map, 8);
}

/* c ^= c', d += d', k += k' on the struct with gaps: commutative */
static void gapped_op(void *in, void *inout, int *len, MPI_Datatype * type)
{
    unsigned char *a = in, *b = inout;
    for (int n = 0; n < *len; n++, a += 32, b += 32) {
        gapped x, y;
        memcpy(&x.c, a, 1);
        memcpy(&x.d, a + 8, 8);
        memcpy(&x.k, a + 20, 4);
        memcpy(&y.c, b, 1);
        memcpy(&y.d, b + 8, 8);
        memcpy(&y.k, b + 20, 4);
        y.c ^= x.c;
        y.d += x.d;
        y.k += x.k;
        memcpy(b, &y.c, 1);
        memcpy(b + 8, &y.d, 8);
        memcpy(b + 20, &y.k, 4);
    }
}

/* sum of the 6 ints of the vector type (MPICH rejects builtin ops on derived types):
 * commutative, and it must leave the holes alone */
static void vector_sum_op(void *in, void *inout, int *len, MPI_Datatype * type)
{
    int *a = in, *b = inout;
    for (int n = 0; n < *len; n++, a += 8, b += 8)
        for (int blk = 0; blk < 3; blk++)
            for (int j = 0; j < 2; j++)
                b[3 * blk + j] += a[3 * blk + j];
}

/* inout = in o inout for affine maps x -> m x + c mod PRIME: not commutative */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype * type)
{
    int *a = in, *b = inout;
    for (int n = 0; n < *len; n++, a += 2, b += 2) {
        long long m = (long long) a[0] * b[0] % PRIME;
        long long c = ((long long) a[0] * b[1] + a[1]) % PRIME;
        b[0] = (int) m;
        b[1] = (int) c;
    }
}

#define NCASES 16
static op_case cases[NCASES];
static int ncases;

static op_case *add_case(const char *name, MPI_Datatype type, MPI_Op op, int commutative,
                         MPI_Aint extent, void (*gen) (int, long long, unsigned char *))
{
    op_case *c = &cases[ncases++];
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->type = type;
    c->op = op;
    c->commutative = commutative;
    c->extent = extent;
    c->gen = gen;
    return c;
}

static void set_roles(op_case * c, int off, int len, char role)
{
    memset(c->role + off, role, len);
    if (role == DATA)
        c->size += len;
}

static void make_cases(void)
{
    MPI_Datatype vec, st, st_raw;
    MPI_Op gop, aop, vop;
    int blens[3] = { 1, 1, 1 };
    MPI_Aint displs[3] = { 0, 8, 20 };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
    op_case *c;

    set_roles(add_case("int SUM", MPI_INT, MPI_SUM, 1, 4, gen_int_sum), 0, 4, DATA);
    set_roles(add_case("int PROD", MPI_INT, MPI_PROD, 1, 4, gen_int_prod), 0, 4, DATA);
    set_roles(add_case("float MAX", MPI_FLOAT, MPI_MAX, 1, 4, gen_float_max), 0, 4, DATA);
    set_roles(add_case("double MIN", MPI_DOUBLE, MPI_MIN, 1, 8, gen_double_min), 0, 8, DATA);
    set_roles(add_case("int LAND", MPI_INT, MPI_LAND, 1, 4, gen_int_logic), 0, 4, DATA);
    set_roles(add_case("int LOR", MPI_INT, MPI_LOR, 1, 4, gen_int_logic), 0, 4, DATA);
    set_roles(add_case("int LXOR", MPI_INT, MPI_LXOR, 1, 4, gen_int_logic), 0, 4, DATA);
    set_roles(add_case("unsigned BXOR", MPI_UNSIGNED, MPI_BXOR, 1, 4, gen_unsigned_bits),
              0, 4, DATA);
    set_roles(add_case("long BAND", MPI_LONG, MPI_BAND, 1, sizeof(long), gen_long_bits),
              0, sizeof(long), DATA);
    set_roles(add_case("long BOR", MPI_LONG, MPI_BOR, 1, sizeof(long), gen_long_bits),
              0, sizeof(long), DATA);
    set_roles(add_case("2int MAXLOC", MPI_2INT, MPI_MAXLOC, 1, 8, gen_2int_loc), 0, 8, DATA);
    /* MPI_DOUBLE_INT: padding after the int is neither data nor checked */
    set_roles(add_case("double_int MINLOC", MPI_DOUBLE_INT, MPI_MINLOC, 1, 16,
                       gen_double_int_loc), 0, 12, DATA);

    /* 3 blocks of 2 ints, stride 3 ints: holes at ints 2 and 5, extent 8 ints */
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(vector_sum_op, 1, &vop);
    c = add_case("vector user-sum", vec, vop, 1, 32, gen_vector);
    set_roles(c, 0, 32, HOLE);
    for (int b = 0; b < 3; b++)
        set_roles(c, 12 * b, 8, DATA);

    MPI_Type_create_struct(3, blens, displs, types, &st_raw);
    MPI_Type_create_resized(st_raw, 0, 32, &st);
    MPI_Type_commit(&st);
    MPI_Type_free(&st_raw);
    MPI_Op_create(gapped_op, 1, &gop);
    c = add_case("struct user-commutative", st, gop, 1, 32, gen_gapped);
    set_roles(c, 0, 32, HOLE);
    set_roles(c, 0, 1, DATA);
    set_roles(c, 8, 8, DATA);
    set_roles(c, 20, 4, DATA);

    MPI_Op_create(affine_op, 0, &aop);
    set_roles(add_case("2int user-noncommutative", MPI_2INT, aop, 0, 8, gen_affine),
              0, 8, DATA);
}

static void free_cases(void)
{
    for (int i = 0; i < ncases; i++) {
        if (cases[i].type == MPI_2INT && cases[i].op == MPI_MAXLOC)
            continue;
        if (!strncmp(cases[i].name, "vector", 6) || !strncmp(cases[i].name, "struct", 6))
            MPI_Type_free(&cases[i].type);
        if (!strncmp(cases[i].name, "vector", 6) || !strncmp(cases[i].name, "struct", 6) ||
            !cases[i].commutative)
            MPI_Op_free(&cases[i].op);
    }
}

static void fill(unsigned char *buf, const op_case * c, long long count, int rank)
{
    memset(buf, GAP, c->extent * count);
    for (long long i = 0; i < count; i++)
        c->gen(rank, i, buf + i * c->extent);
}

/* a0 op a1 op ... op a(n-1), as MPI_Reduce_local computes inout = in op inout */
static unsigned char *reference(const op_case * c, long long count, int size)
{
    unsigned char *acc = malloc(c->extent * count + 1), *in = malloc(c->extent * count + 1);
    fill(acc, c, count, size - 1);
    for (int r = size - 2; r >= 0; r--) {
        fill(in, c, count, r);
        if (count)
            MPI_Reduce_local(in, acc, (int) count, c->type, c->op);
    }
    free(in);
    return acc;
}

static void check(const unsigned char *got, const unsigned char *want, const op_case * c,
                  long long count, const char *what)
{
    long long bad = 0;
    for (long long i = 0; i < count; i++)
        for (int b = 0; b < c->extent; b++) {
            unsigned char g = got[i * c->extent + b];
            if ((c->role[b] == DATA && g != want[i * c->extent + b]) ||
                (c->role[b] == HOLE && g != GAP))
                bad++;
        }
    if (bad) {
        if (errors < 10)
            fprintf(stderr, "mismatch: %s, %lld wrong bytes\n", what, bad);
        errors++;
    }
}

typedef struct {
    MPI_Comm comm;
    const char *name;
    int rank, size;
    int rank_ordered;           /* every group of every level is a block of consecutive ranks */
    int multinode;              /* hier runs its levels: not one node that nothing splits */
} test_comm;

static void describe(test_comm * tc, MPI_Comm comm, const char *name)
{
    int first, last;
    tc->comm = comm;
    tc->name = name;
    MPI_Comm_rank(comm, &tc->rank);
    MPI_Comm_size(comm, &tc->size);
    int *keys = hier_comm_keys(comm, &first, &last);
    tc->rank_ordered = hier_groups_are_blocks(keys, tc->size, first, last);
    tc->multinode = hier_groups(keys, tc->size, 1, 1) > 1 ||
        hier_kept_levels(keys, tc->size, first, last) > 0;
    free(keys);
}

static hier_pvar reduce_pv, allreduce_pv, fallback_pv, subst_pv;
static long long reduce_calls, allreduce_calls, fallbacks_expected, substs_expected;
static const char *algo = "hier";       /* -algo: the reduce algorithm the pvars expect */
static int seg_mode;                    /* algo is a segmented tree (seg_*) */

static void one_case(test_comm * tc, const op_case * c, long long count, int root,
                     int in_place, int segsize)
{
    char what[256];
    unsigned char *want = reference(c, count, tc->size);
    unsigned char *sendbuf = malloc(c->extent * count + 1);
    unsigned char *recvbuf = malloc(c->extent * count + 1);
    int counted = tc->size > 1 && count > 0;

    fill(sendbuf, c, count, tc->rank);
    memset(recvbuf, GAP, c->extent * count);
    if (counted && tc->multinode && !c->commutative && !tc->rank_ordered)
        fallbacks_expected++;

    if (root < 0) {
        if (in_place)
            memcpy(recvbuf, sendbuf, c->extent * count);
        MPI_Allreduce(in_place ? MPI_IN_PLACE : sendbuf, recvbuf, (int) count, c->type, c->op,
                      tc->comm);
        allreduce_calls += counted;
        snprintf(what, sizeof(what), "allreduce comm %s (size %d) %s count %lld segsize %d%s",
                 tc->name, tc->size, c->name, count, segsize, in_place ? " in-place" : "");
        check(recvbuf, want, c, count, what);
    } else {
        int is_root = tc->rank == root;
        if (in_place && is_root)
            memcpy(recvbuf, sendbuf, c->extent * count);
        MPI_Reduce(in_place && is_root ? MPI_IN_PLACE : sendbuf, is_root ? recvbuf : NULL,
                   (int) count, c->type, c->op, root, tc->comm);
        reduce_calls += counted;
        if (counted && !c->commutative && strcmp(algo, "seg_in_order_binary"))
            substs_expected++;  /* a seg reduce runs the in-order tree for it */
        snprintf(what, sizeof(what), "reduce comm %s (size %d) root %d %s count %lld "
                 "segsize %d%s", tc->name, tc->size, root, c->name, count, segsize,
                 in_place ? " in-place" : "");
        if (is_root)
            check(recvbuf, want, c, count, what);
    }
    free(want);
    free(sendbuf);
    free(recvbuf);
}

static void run_comm(test_comm * tc)
{
    static const int segsizes[] = { 0, 64, 1024 };
    int iter = 0;

    for (int s = 0; s < 3; s++) {
        if (seg_mode) {
            hier_cvar_write_int("MPIR_CVAR_REDUCE_SEG_SEGSIZE", segsizes[s]);
        } else {
            hier_cvar_write_int("MPIR_CVAR_REDUCE_HIER_SEGSIZE", segsizes[s]);
            hier_cvar_write_int("MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", segsizes[s]);
        }
        for (int k = 0; k < ncases; k++) {
            const op_case *c = &cases[k];
            long long exact = segsizes[s] ? 3LL * segsizes[s] / c->size : 100;
            long long counts[] = { 0, 1, 17, exact, exact + 3 };
            for (int n = 0; n < 5; n++) {
                one_case(tc, c, counts[n], -1, iter++ % 2, segsizes[s]);
                /* every root for the multi-segment count that is not a multiple of
                 * the segment (1 KiB) and for the non-commutative op; else the ends */
                int all_roots = s == 2 && (n == 4 || !c->commutative);
                for (int root = 0; root < tc->size; root++)
                    if (all_roots || root == 0 || root == tc->size - 1)
                        one_case(tc, c, counts[n], root, iter++ % 2, segsizes[s]);
            }
        }
    }
}

static void expect_count(hier_pvar * pv, unsigned long long before, long long want,
                         const char *what, int exact)
{
    unsigned long long ran = hier_pvar_read(pv) - before;
    if (exact ? ran != (unsigned long long) want : ran < (unsigned long long) want) {
        fprintf(stderr, "%s: pvar counted %llu, expected %s%lld\n", what, ran,
                exact ? "" : "at least ", want);
        errors++;
    }
}

/* MPIR_CVAR_REDUCE_SEG_TMP_MAX bounds a seg_linear root's segment buffers (window
 * segments per child, size-1 children): a 64 KiB reduce runs in the segments that fit,
 * with the right result */
static void check_tmp_bound(void)
{
    int rank, size, count = 16384;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tmp_max = hier_cvar_read_int("MPIR_CVAR_REDUCE_SEG_TMP_MAX");
    int window = hier_cvar_read_int("MPIR_CVAR_REDUCE_SEG_WINDOW");
    hier_cvar_write_int("MPIR_CVAR_REDUCE_SEG_SEGSIZE", 65536);
    long long cap = (long long) tmp_max / (window * (size - 1)) / 4 * 4;
    if (cap < 4)
        cap = 4;
    long long want_segs = (4LL * count + cap - 1) / cap;
    hier_pvar pv;
    hier_pvar_open(&pv, "coll_hier_reduce_seg_segments");
    unsigned long long before = hier_pvar_read(&pv);
    int *in = malloc(sizeof(int) * count), *out = malloc(sizeof(int) * count);
    for (int i = 0; i < count; i++)
        in[i] = rank + i;
    MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    unsigned long long segs = hier_pvar_read(&pv) - before;
    if (segs != (unsigned long long) want_segs) {
        fprintf(stderr, "rank %d: seg_linear under TMP_MAX %d: %llu segments, expected %lld\n",
                rank, tmp_max, segs, want_segs);
        errors++;
    }
    for (int i = 0; rank == 0 && i < count; i++)
        if (out[i] != size * (size - 1) / 2 + size * i) {
            fprintf(stderr, "seg_linear under TMP_MAX: out[%d] = %d\n", i, out[i]);
            errors++;
            break;
        }
    hier_pvar_close(&pv);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int provided, rank, size, expect_hier = 0, tmp_bound = 0;
    char pvar_name[128];
    MPI_Comm dup, parity, half;
    test_comm comms[4];
    unsigned long long reduce0, allreduce0, fallback0, subst0;

    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-expect-hier"))
            expect_hier = 1;
        else if (!strcmp(argv[i], "-algo") && i + 1 < argc)
            algo = argv[++i];
        else if (!strcmp(argv[i], "-tmp-bound"))
            tmp_bound = 1;
    seg_mode = strcmp(algo, "hier") != 0;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_cases();

    /* created while hier may be forced by CVAR */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    describe(&comms[0], MPI_COMM_WORLD, "world");
    describe(&comms[1], dup, "dup");
    describe(&comms[2], parity, "parity-reversed");
    describe(&comms[3], half, "half");

    snprintf(pvar_name, sizeof(pvar_name), "coll_hier_reduce_%s_count", algo);
    hier_pvar_open(&reduce_pv, pvar_name);
    hier_pvar_open(&subst_pv, "coll_hier_reduce_seg_in_order_subst");
    hier_pvar_open(&allreduce_pv, "coll_hier_allreduce_hier_count");
    hier_pvar_open(&fallback_pv, "coll_hier_flat_fallbacks");
    reduce0 = hier_pvar_read(&reduce_pv);
    allreduce0 = hier_pvar_read(&allreduce_pv);
    fallback0 = hier_pvar_read(&fallback_pv);
    subst0 = hier_pvar_read(&subst_pv);

    for (int i = 0; i < 4; i++)
        run_comm(&comms[i]);
    if (tmp_bound)
        check_tmp_bound();

    if (expect_hier && !seg_mode) {
        expect_count(&reduce_pv, reduce0, reduce_calls, "hier reduce", 1);
        expect_count(&allreduce_pv, allreduce0, allreduce_calls, "hier allreduce", 1);
        expect_count(&fallback_pv, fallback0, fallbacks_expected, "flat fallbacks", 1);
    } else if (expect_hier) {
        /* allreduce ran MPICH's own algorithm; every reduce ran the seg tree, and each
         * one with a non-commutative op ran the in-order tree instead (at least: MPICH
         * may reduce with the forced algorithm inside other collectives too) */
        expect_count(&reduce_pv, reduce0, reduce_calls, algo, 0);
        expect_count(&subst_pv, subst0, substs_expected, "seg in-order substitutions", 0);
    }
    hier_pvar_close(&reduce_pv);
    hier_pvar_close(&allreduce_pv);
    hier_pvar_close(&fallback_pv);
    hier_pvar_close(&subst_pv);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&half);
    free_cases();

    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
