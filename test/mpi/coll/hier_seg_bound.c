/*
 * mpich-hier: segment plans are bounded (at most 1024 pieces per payload).
 *
 * The case that ran for more than 15 minutes before the bound: a hier bcast of
 * 100003 x MPI_2INT (800 KB; received as twice as many MPI_INT off the root) in 12-byte
 * segments, 66,669 pipeline steps per call.  Now every plan of it cuts at most 1024
 * segments, and the raise is counted in coll_hier_segsize_raised.  Per collective (set
 * through MPI_T): bcast with hier (segment size and the inter-node chunk), reduce and
 * allreduce with hier; with -seg, bcast and reduce with seg_binomial;
 * each with a tiny size (the data must be right, the pvar of segments must not pass 1024
 * per call and the raise must be counted) and with a size the bound leaves alone (not
 * counted).
 *
 * Run with MPIR_CVAR_NUM_CLIQUES (several emulated nodes) and the algorithms forced by
 * their CVARs, as main says.
 */

#include "hier_util.h"

#define BOUND 1024

static int errors;
static int rank, size;
static hier_pvar raised_pv;

static unsigned long long pvar_now(const char *name)
{
    hier_pvar pv;
    hier_pvar_open(&pv, name);
    unsigned long long v = hier_pvar_read(&pv);
    hier_pvar_close(&pv);
    return v;
}

/* raised must have moved (want_raised) or not; a segment plan on every rank alike (every
 * rank makes the same), a chunk plan (leaders_only) on the ranks of the inter-node steps */
static void check_raised(const char *what, unsigned long long raised0, int want_raised,
                         int leaders_only)
{
    int moved = hier_pvar_read(&raised_pv) != raised0, all, any;
    MPI_Allreduce(&moved, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&moved, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (leaders_only)
        all = any;
    if (all != any) {
        errors++;
        if (rank == 0)
            fprintf(stderr, "%s: coll_hier_segsize_raised moved on some ranks only\n", what);
    } else if (all != want_raised) {
        errors++;
        if (rank == 0)
            fprintf(stderr, "%s: coll_hier_segsize_raised %s\n", what,
                    want_raised ? "did not count the raise" : "counted a plan left alone");
    }
}

static void bcast_case(const char *algo, const char *size_cvar, int segsize, int want_raised)
{
    const int n = 100003;
    int *buf = malloc(sizeof(int) * 2 * n);
    char segs_name[64], what[160];
    for (int i = 0; i < 2 * n; i++)
        buf[i] = rank == 1 ? i * 3 + 7 : -1;
    hier_cvar_write_int(size_cvar, segsize);
    snprintf(segs_name, sizeof(segs_name), "coll_hier_bcast_%s_segments",
             strcmp(algo, "hier") ? "seg" : "hier");
    snprintf(what, sizeof(what), "bcast %s, %s=%d", algo, size_cvar, segsize);
    unsigned long long segs0 = pvar_now(segs_name), raised0 = hier_pvar_read(&raised_pv);
    if (rank == 1) {
        MPI_Bcast(buf, n, MPI_2INT, 1, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(buf, 2 * n, MPI_INT, 1, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 2 * n; i++)
        if (buf[i] != i * 3 + 7) {
            errors++;
            fprintf(stderr, "%s: rank %d int %d is %d, not %d\n", what, rank, i, buf[i],
                    i * 3 + 7);
            break;
        }
    unsigned long long segs = pvar_now(segs_name) - segs0;
    if (segs > BOUND) {
        errors++;
        fprintf(stderr, "%s: rank %d moved %llu segments in one call\n", what, rank, segs);
    }
    check_raised(what, raised0, want_raised, strstr(size_cvar, "CHUNK") != NULL);
    free(buf);
}

static void reduce_case(const char *coll, const char *size_cvar, int segsize, int want_raised)
{
    const int n = 300007;       /* 1.2 MB of ints */
    int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    char what[160];
    for (int i = 0; i < n; i++) {
        in[i] = i % 1000 + rank;
        out[i] = -1;
    }
    hier_cvar_write_int(size_cvar, segsize);
    snprintf(what, sizeof(what), "%s, %s=%d", coll, size_cvar, segsize);
    unsigned long long raised0 = hier_pvar_read(&raised_pv);
    int root = size - 1, has_result = 1;
    if (!strcmp(coll, "allreduce")) {
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        has_result = rank == root;
    }
    for (int i = 0; has_result && i < n; i++) {
        int want = (i % 1000) * size + size * (size - 1) / 2;
        if (out[i] != want) {
            errors++;
            fprintf(stderr, "%s: rank %d element %d is %d, not %d\n", what, rank, i, out[i],
                    want);
            break;
        }
    }
    check_raised(what, raised0, want_raised, 0);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hier_pvar_open(&raised_pv, "coll_hier_segsize_raised");

    if (argc > 1 && !strcmp(argv[1], "-seg")) {
        /* MPIR_CVAR_{BCAST,REDUCE}_INTRA_ALGORITHM=seg_binomial */
        bcast_case("seg_binomial", "MPIR_CVAR_BCAST_SEG_SEGSIZE", 12, 1);
        bcast_case("seg_binomial", "MPIR_CVAR_BCAST_SEG_SEGSIZE", 65536, 0);
        reduce_case("reduce seg_binomial", "MPIR_CVAR_REDUCE_SEG_SEGSIZE", 4, 1);
        reduce_case("reduce seg_binomial", "MPIR_CVAR_REDUCE_SEG_SEGSIZE", 65536, 0);
    } else {
        /* MPIR_CVAR_{BCAST,REDUCE,ALLREDUCE}_INTRA_ALGORITHM=hier */
        bcast_case("hier", "MPIR_CVAR_BCAST_HIER_SEGSIZE", 12, 1);
        bcast_case("hier", "MPIR_CVAR_BCAST_HIER_SEGSIZE", 16384, 0);
        /* one hier segment, the inter-node tsp ring chunked in 12 bytes */
        hier_cvar_write_int("MPIR_CVAR_BCAST_HIER_SEGSIZE", 0);
        bcast_case("hier", "MPIR_CVAR_BCAST_HIER_INTER_CHUNK_SIZE", 12, 1);
        reduce_case("reduce", "MPIR_CVAR_REDUCE_HIER_SEGSIZE", 4, 1);
        reduce_case("reduce", "MPIR_CVAR_REDUCE_HIER_SEGSIZE", 65536, 0);
        reduce_case("allreduce", "MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", 4, 1);
        reduce_case("allreduce", "MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", 65536, 0);
    }

    hier_pvar_close(&raised_pv);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
