/*
 * mpich-hier: the device hands a call to the MPIR level only when a plugin algorithm is
 * selected there, so a tuning file changes exactly what it names and stock CVAR values
 * keep their stock meaning (maint/patches/04, MPII_Hier_wants_mpir_level).
 *
 * Runs R calls of each kind on MPI_COMM_WORLD and on a dup of it:
 *   bcast_small (100 B), bcast_large (100 KiB), reduce (100 KiB, root 1), allreduce (8 B)
 * and reads the coll_hier_mpir_routed pvar around each kind.
 *   -routed K1,K2  these kinds must be routed on every call (world spans several nodes
 *                  with several ranks on one: a CH4 "parent" comm), and each routed call
 *                  must have run a plugin algorithm; every other kind must not be routed.
 * Results are checked for every call.
 */

#include "hier_util.h"

enum { BCAST_SMALL, BCAST_LARGE, REDUCE, ALLREDUCE, NKINDS };
static const char *kind_names[NKINDS] = { "bcast_small", "bcast_large", "reduce", "allreduce" };
static const char *kind_pvars[NKINDS] = { "coll_hier_bcast_hier_count",
    "coll_hier_bcast_hier_count", "coll_hier_reduce_hier_count", "coll_hier_allreduce_hier_count"
};

#define REPS 3
static int errors;

static void run_kind(int kind, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = kind == BCAST_SMALL ? 25 : kind == ALLREDUCE ? 2 : 25600;
    int *buf = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        buf[i] = kind == BCAST_SMALL || kind == BCAST_LARGE ? (rank == 0 ? i * 7 + 1 : -1) :
            rank + i;
    switch (kind) {
        case BCAST_SMALL:
        case BCAST_LARGE:
            MPI_Bcast(buf, n, MPI_INT, 0, comm);
            for (int i = 0; i < n; i++)
                if (buf[i] != i * 7 + 1) {
                    errors++;
                    fprintf(stderr, "%s: element %d is %d\n", kind_names[kind], i, buf[i]);
                    break;
                }
            break;
        case REDUCE:
        case ALLREDUCE:
            if (kind == REDUCE)
                MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, 1 % size, comm);
            else
                MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, comm);
            if (kind == ALLREDUCE || rank == 1 % size)
                for (int i = 0; i < n; i++)
                    if (out[i] != size * (size - 1) / 2 + size * i) {
                        errors++;
                        fprintf(stderr, "%s: element %d is %d\n", kind_names[kind], i, out[i]);
                        break;
                    }
            break;
    }
    free(buf);
    free(out);
}

int main(int argc, char **argv)
{
    int provided, rank, must_route[NKINDS] = { 0 };
    MPI_Comm dup;
    hier_pvar routed, ran;

    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-routed") && i + 1 < argc) {
            char *list = strdup(argv[++i]);
            for (char *k = strtok(list, ","); k; k = strtok(NULL, ","))
                for (int j = 0; j < NKINDS; j++)
                    if (!strcmp(k, kind_names[j]))
                        must_route[j] = 1;
            free(list);
        }

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    hier_pvar_open(&routed, "coll_hier_mpir_routed");

    for (int kind = 0; kind < NKINDS; kind++) {
        hier_pvar_open(&ran, kind_pvars[kind]);
        unsigned long long routed0 = hier_pvar_read(&routed), ran0 = hier_pvar_read(&ran);
        for (int r = 0; r < REPS; r++) {
            run_kind(kind, MPI_COMM_WORLD);
            run_kind(kind, dup);
        }
        unsigned long long nrouted = hier_pvar_read(&routed) - routed0;
        unsigned long long nran = hier_pvar_read(&ran) - ran0;
        if (must_route[kind] ? nrouted != 2 * REPS || nran < nrouted : nrouted != 0) {
            errors++;
            fprintf(stderr, "rank %d: %s: %llu of %d calls routed to MPIR (want %s), %llu ran "
                    "the plugin's algorithm\n", rank, kind_names[kind], nrouted, 2 * REPS,
                    must_route[kind] ? "all" : "none", nran);
        }
        hier_pvar_close(&ran);
    }

    hier_pvar_close(&routed);
    MPI_Comm_free(&dup);
    hier_report_errors(errors);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
