/*
 * Side-by-side MPI_Bcast latency: MPICH's default selection vs MPIR_Bcast_intra_hier.
 *
 * The algorithm is switched at run time through the MPI_T cvar
 * MPIR_CVAR_BCAST_INTRA_ALGORITHM; repetitions of the two alternate so both see the
 * same machine state.  One repetition's time is the max over ranks (barrier before
 * each); the table shows medians.
 *
 *   mpiexec -n 8 bcast_compare [-reps N] [-max BYTES]
 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int enum_value(const char *cvar, const char *item, int *index_out)
{
    int index, verb, bind, scope, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    char name[256], desc[1024];
    int nlen = sizeof(name), dlen = sizeof(desc);

    if (MPI_T_cvar_get_index(cvar, &index) != MPI_SUCCESS)
        return -1;
    MPI_T_cvar_get_info(index, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope);
    *index_out = index;
    MPI_T_enum_get_info(en, &count, name, &(int) {sizeof(name)});
    for (int i = 0; i < count; i++) {
        int value;
        char iname[256];
        int ilen = sizeof(iname);
        MPI_T_enum_get_item(en, i, &value, iname, &ilen);
        if (!strcmp(iname, item))
            return value;
    }
    return -1;
}

static void set_cvar(int index, int value)
{
    MPI_T_cvar_handle h;
    int count;
    MPI_T_cvar_handle_alloc(index, NULL, &h, &count);
    MPI_T_cvar_write(h, &value);
    MPI_T_cvar_handle_free(&h);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double timed_bcast(char *buf, long bytes)
{
    double t, tmax;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    MPI_Bcast(buf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int provided, rank, size, reps = 31, cvar, v_auto, v_hier;
    long max_bytes = 4L << 20;
    char *buf;

    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-reps"))
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-max"))
            max_bytes = atol(argv[++i]);
    }
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v_auto = enum_value("MPIR_CVAR_BCAST_INTRA_ALGORITHM", "auto", &cvar);
    v_hier = enum_value("MPIR_CVAR_BCAST_INTRA_ALGORITHM", "hier", &cvar);
    if (v_auto < 0 || v_hier < 0) {
        if (rank == 0)
            fprintf(stderr, "bcast_compare: this MPICH has no hier bcast algorithm\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    buf = malloc(max_bytes);
    memset(buf, rank, max_bytes);

    if (rank == 0) {
        printf("# MPI_Bcast, %d ranks, median of %d repetitions, max over ranks\n", size, reps);
        printf("# %-10s %16s %16s %12s\n", "Size", "default(us)", "hier(us)", "default/hier");
    }
    for (long bytes = 8; bytes <= max_bytes; bytes *= 8) {
        double *t_def = malloc(sizeof(double) * reps), *t_hier = malloc(sizeof(double) * reps);
        int r = bytes >= (1L << 20) ? (reps + 1) / 2 : reps;
        for (int w = 0; w < 3; w++) {   /* warm-up, builds hier's sub-communicators too */
            set_cvar(cvar, v_auto);
            timed_bcast(buf, bytes);
            set_cvar(cvar, v_hier);
            timed_bcast(buf, bytes);
        }
        for (int i = 0; i < r; i++) {
            set_cvar(cvar, v_auto);
            t_def[i] = timed_bcast(buf, bytes);
            set_cvar(cvar, v_hier);
            t_hier[i] = timed_bcast(buf, bytes);
        }
        if (rank == 0) {
            double d = median(t_def, r) * 1e6, h = median(t_hier, r) * 1e6;
            printf("  %-10ld %16.1f %16.1f %12.2f\n", bytes, d, h, d / h);
            fflush(stdout);
        }
        free(t_def);
        free(t_hier);
        if (bytes < max_bytes && bytes * 8 > max_bytes)
            bytes = max_bytes / 8;      /* always end on max_bytes */
    }
    set_cvar(cvar, v_auto);
    free(buf);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
