/* How concurrent point-to-point transfers share the emulated links (issue 17): per
 * pattern and size, each rank's time from a common start (two barriers) to the end of
 * its own transfers, median of 9, printed by rank 0.  The emulated nodes share one host
 * clock, so the times of different ranks compare.  Run on 3 nodes, 1 rank each:
 *   one     1 -> 2
 *   swap    1 <-> 2 at once
 *   fanout  0 -> 1 and 0 -> 2, posted in that order
 *   fanin   1 -> 0 and 2 -> 0
 *   relay   0 -> 1 and 1 -> 2 at once
 *   ring    r -> r+1 mod 3 on ranks 0-2
 *   ringall r -> r+1 mod size on every rank: every node link carries a stream in and one
 *           out at once, as in the leaders' ring of an allgather, with every rank busy
 * Printed: ranks 0-2's times and the largest of every rank's (the pattern's time).
 * Usage: link-probe PATTERN BYTES [PIECE]: with PIECE each transfer goes as pieces of PIECE
 * bytes posted at once (as the hier allgather's ring moves a block). */
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

static int piece;               /* each transfer goes as pieces of this many bytes, all posted at once */

/* One transfer of n bytes to (sends) or from peer, in pieces: their requests into req,
 * their number returned */
static int post_pieces(int sends, char *buf, int n, int peer, MPI_Request * req)
{
    int k = 0;
    for (int at = 0; at < n; at += piece, k++) {
        int len = n - at < piece ? n - at : piece;
        if (sends)
            MPI_Isend(buf + at, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[k]);
        else
            MPI_Irecv(buf + at, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[k]);
    }
    return k;
}

/* Post rank's part of the pattern: its requests into req, their number returned. */
static int post(const char *pattern, int rank, char *out, char *in0, char *in1, int n,
                MPI_Request * req)
{
    int k = 0;
    MPI_Comm w = MPI_COMM_WORLD;
    if (!strcmp(pattern, "one")) {
        if (rank == 1)
            k += post_pieces(1, out, n, 2, req + k);
        if (rank == 2)
            k += post_pieces(0, in0, n, 1, req + k);
    } else if (!strcmp(pattern, "swap")) {
        if (rank == 1 || rank == 2) {
            k += post_pieces(0, in0, n, 3 - rank, req + k);
            k += post_pieces(1, out, n, 3 - rank, req + k);
        }
    } else if (!strcmp(pattern, "fanout")) {
        if (rank == 0) {
            k += post_pieces(1, out, n, 1, req + k);
            k += post_pieces(1, out, n, 2, req + k);
        } else if (rank <= 2)
            k += post_pieces(0, in0, n, 0, req + k);
    } else if (!strcmp(pattern, "fanin")) {
        if (rank == 0) {
            k += post_pieces(0, in0, n, 1, req + k);
            k += post_pieces(0, in1, n, 2, req + k);
        } else if (rank <= 2)
            k += post_pieces(1, out, n, 0, req + k);
    } else if (!strcmp(pattern, "relay")) {
        if (rank == 0 || rank == 1)
            k += post_pieces(1, out, n, rank + 1, req + k);
        if (rank == 1 || rank == 2)
            k += post_pieces(0, in0, n, rank - 1, req + k);
    } else if (!strcmp(pattern, "ring")) {
        if (rank < 3) {
            k += post_pieces(0, in0, n, (rank + 2) % 3, req + k);
            k += post_pieces(1, out, n, (rank + 1) % 3, req + k);
        }
    } else if (!strcmp(pattern, "ringall")) {
        int size;
        MPI_Comm_size(w, &size);
        k += post_pieces(0, in0, n, (rank + size - 1) % size, req + k);
        k += post_pieces(1, out, n, (rank + 1) % size, req + k);
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
    piece = argc == 4 ? atoi(argv[3]) : argc == 3 ? atoi(argv[2]) : 0;
    if (argc < 3 || argc > 4 || size < 3 || atoi(argv[2]) < 1 || piece < 1) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: link-probe one|swap|fanout|fanin|relay|ring|ringall BYTES [PIECE] "
                    "(3 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    int n = atoi(argv[2]);
    char *out = malloc(n), *in0 = malloc(n), *in1 = malloc(n);
    double *mine = malloc(sizeof(double) * REPS), *all = malloc(sizeof(double) * REPS * size);
    memset(out, 1, n);
    int max_reqs = 2 * ((n + piece - 1) / piece);
    MPI_Request *req = malloc(sizeof(MPI_Request) * max_reqs);
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = now_us();
        int k = post(pattern, rank, out, in0, in1, n, req);
        if (k < 0) {
            if (rank == 0)
                fprintf(stderr, "link-probe: unknown pattern %s\n", pattern);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        mine[r] = now_us() - start;
    }
    MPI_Gather(mine, REPS, MPI_DOUBLE, all, REPS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double slowest = 0;
        printf("%-7s %8d", pattern, n);
        for (int i = 0; i < size; i++) {
            qsort(all + i * REPS, REPS, sizeof(double), cmp_double);
            if (i < 3)
                printf("  r%d %8.0f", i, all[i * REPS + REPS / 2]);
            if (all[i * REPS + REPS / 2] > slowest)
                slowest = all[i * REPS + REPS / 2];
        }
        printf("  max %8.0f  us\n", slowest);
    }
    free(out), free(in0), free(in1), free(mine), free(all), free(req);
    MPI_Finalize();
    return 0;
}
