/* How concurrent point-to-point transfers share the emulated links (issue 17): per
 * pattern and size, each rank's time from a common start (two barriers) to the end of
 * its own transfers, median of 9, printed by rank 0.  The emulated nodes share one host
 * clock, so the times of different ranks compare.  Run on 3 nodes, 1 rank each:
 *   one     1 -> 2
 *   swap    1 <-> 2 at once
 *   fanout  0 -> 1 and 0 -> 2, posted in that order
 *   fanin   1 -> 0 and 2 -> 0
 *   relay   0 -> 1 and 1 -> 2 at once
 *   ring    r -> r+1 mod 3 on every rank */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 9

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Post rank's part of the pattern: its requests into req, their number returned. */
static int post(const char *pattern, int rank, char *out, char *in0, char *in1, int n,
                MPI_Request * req)
{
    int k = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    if (!strcmp(pattern, "one")) {
        if (rank == 1)
            MPI_Isend(out, n, MPI_BYTE, 2, 0, w, &req[k++]);
        if (rank == 2)
            MPI_Irecv(in0, n, MPI_BYTE, 1, 0, w, &req[k++]);
    } else if (!strcmp(pattern, "swap")) {
        if (rank == 1 || rank == 2) {
            MPI_Irecv(in0, n, MPI_BYTE, 3 - rank, 0, w, &req[k++]);
            MPI_Isend(out, n, MPI_BYTE, 3 - rank, 0, w, &req[k++]);
        }
    } else if (!strcmp(pattern, "fanout")) {
        if (rank == 0) {
            MPI_Isend(out, n, MPI_BYTE, 1, 0, w, &req[k++]);
            MPI_Isend(out, n, MPI_BYTE, 2, 0, w, &req[k++]);
        } else if (rank <= 2)
            MPI_Irecv(in0, n, MPI_BYTE, 0, 0, w, &req[k++]);
    } else if (!strcmp(pattern, "fanin")) {
        if (rank == 0) {
            MPI_Irecv(in0, n, MPI_BYTE, 1, 0, w, &req[k++]);
            MPI_Irecv(in1, n, MPI_BYTE, 2, 0, w, &req[k++]);
        } else if (rank <= 2)
            MPI_Isend(out, n, MPI_BYTE, 0, 0, w, &req[k++]);
    } else if (!strcmp(pattern, "relay")) {
        if (rank == 0 || rank == 1)
            MPI_Isend(out, n, MPI_BYTE, rank + 1, 0, w, &req[k++]);
        if (rank == 1 || rank == 2)
            MPI_Irecv(in0, n, MPI_BYTE, rank - 1, 0, w, &req[k++]);
    } else if (!strcmp(pattern, "ring")) {
        if (rank < 3) {
            MPI_Irecv(in0, n, MPI_BYTE, (rank + 2) % 3, 0, w, &req[k++]);
            MPI_Isend(out, n, MPI_BYTE, (rank + 1) % 3, 0, w, &req[k++]);
        }
    } else
        return -1;
    return k;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size < 3 || atoi(argv[2]) < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: link-probe one|swap|fanout|fanin|relay|ring BYTES (3 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    int n = atoi(argv[2]);
    char *out = malloc(n), *in0 = malloc(n), *in1 = malloc(n);
    double *mine = malloc(sizeof(double) * REPS), *all = malloc(sizeof(double) * REPS * size);
    memset(out, 1, n);
    for (int r = 0; r < REPS; r++) {
        MPI_Request req[2];
        MPI_Status status[2];
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = now_us();
        int k = post(pattern, rank, out, in0, in1, n, req);
        if (k < 0) {
            if (rank == 0)
                fprintf(stderr, "link-probe: unknown pattern %s\n", pattern);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Waitall(k, req, status);
        mine[r] = now_us() - start;
    }
    MPI_Gather(mine, REPS, MPI_DOUBLE, all, REPS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%-7s %8d", pattern, n);
        for (int i = 0; i < 3; i++) {
            qsort(all + i * REPS, REPS, sizeof(double), cmp_double);
            printf("  r%d %8.0f", i, all[i * REPS + REPS / 2]);
        }
        printf("  us\n");
    }
    free(out), free(in0), free(in1), free(mine), free(all);
    MPI_Finalize();
    return 0;
}
