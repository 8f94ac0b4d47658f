/* peerbench: the neutral benchmark of bench/peers.sh, plain MPI, built against each MPI
 * it compares (MPICH with the plugin, Open MPI).  It times MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Allgather, MPI_Gather, MPI_Scatter, MPI_Barrier, MPI_Scan,
 * MPI_Exscan, MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Allgatherv (equal
 * counts, blocks in rank order), MPI_Alltoall, MPI_Alltoallv (alltoall's blocks as
 * equal counts in rank order), MPI_Gatherv and MPI_Scatterv (uneven blocks in rank order:
 * hiertune bench's, each pair of ranks half a block more and less, see uneven_block) on
 * MPI_COMM_WORLD, root 0, and prints one CSV line per collective and size (rank 0):
 *
 *   mpi,collective,bytes,ranks,reps,iters,median_us,samples_us
 *
 * bytes: the message for bcast, reduce, allreduce, scan and exscan (MPI_INT, MPI_SUM); the whole
 * gathered or scattered buffer for allgather, gather, scatter, allgatherv, gatherv and
 * scatterv (a rank's block, its mean for gatherv and scatterv, is bytes / ranks), the whole
 * reduced vector for reduce_scatter_block and reduce_scatter, one rank's whole send buffer
 * for alltoall(v) (each rank's block, alltoall's block for one peer, is bytes / ranks); 0 for
 * barrier.  A sample is one repetition: a barrier, then `iters`
 * calls, their time per call on each rank, the maximum over ranks.  The first call of every
 * size is timed alike and its data checked (a wrong byte aborts the job); iters is chosen
 * from its time so that a repetition lasts about 5 ms; then the warm-up calls, then the
 * repetitions, which reuse the buffers.  samples_us lists every repetition's sample, so that runs of the
 * same configuration taken in turns with others can be pooled.
 *
 *   peerbench [-C coll,coll,...] [-s bytes,bytes,...] [-r reps] [-x warmup]
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 64, MAX_REPS = 1000 };
static const double REP_SECONDS = 5e-3;
static const int MAX_ITERS = 1000;

static const char *const COLLECTIVES[] = {"bcast", "reduce", "allreduce", "allgather",
                                          "gather", "scatter", "barrier", "scan", "exscan",
                                          "reduce_scatter_block", "reduce_scatter", "allgatherv",
                                          "alltoall", "alltoallv", "gatherv", "scatterv"};
enum { NCOLL = sizeof COLLECTIVES / sizeof *COLLECTIVES };

static int rank, nranks;

/* a usage or size error: every rank meets it alike (same arguments), rank 0 says it and
 * all leave together, which an MPI_Abort racing rank 0's message would not let it say */
__attribute__((format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("peerbench: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    MPI_Finalize();
    exit(2);
}

static int coll_index(const char *name)
{
    for (int c = 0; c < NCOLL; c++)
        if (strcmp(name, COLLECTIVES[c]) == 0)
            return c;
    return -1;
}

/* the buffers of one collective and size: send and receive as the call needs them */
struct call {
    int coll;
    size_t bytes;      /* as printed */
    size_t block;      /* per rank (gather-like), else the message */
    int *counts;       /* reduce_scatter: every rank's block in ints; allgatherv, alltoallv,
                        * gatherv, scatterv: in bytes */
    int *displs;       /* allgatherv, alltoallv, gatherv, scatterv: every rank's block in order */
    unsigned char *send, *recv;
};

static unsigned char pattern(int r, size_t i)
{
    return (unsigned char) ((size_t) r * 31 + i * 7 + 1);
}

/* alltoall: byte i of the block rank `from` sends rank `to` (distinct pairs start their
 * blocks differently up to 256 pairs: 31 is odd) */
static unsigned char pair_pattern(int from, int to, size_t i)
{
    return pattern(from * nranks + to, i);
}

/* gatherv, scatterv: rank r's block for a mean of `block` bytes, as hiertune bench gives
 * it (tools/lib/common/sizes.cpp uneven_block): the ranks of each pair hold block + block / 2
 * and block - block / 2, an odd count's last rank `block`, so that the blocks add up to
 * the whole buffer */
static size_t uneven_block(int r, size_t block)
{
    if (r % 2 == 0 && r == nranks - 1)
        return block;
    return r % 2 == 0 ? block + block / 2 : block - block / 2;
}

static int int_value(int r, size_t i)
{
    return r + (int) (i % 13);
}

static void fill(struct call *c)
{
    int *ints = (int *) c->send;
    size_t nint = c->bytes / sizeof(int);
    switch (c->coll) {
    case 0:     /* bcast: the root's message, zeros elsewhere */
        for (size_t i = 0; i < c->bytes; i++)
            c->send[i] = rank == 0 ? pattern(0, i) : 0;
        break;
    case 1:
    case 2:
    case 7:
    case 8:
    case 9:
    case 10:
        for (size_t i = 0; i < nint; i++)
            ints[i] = int_value(rank, i);
        memset(c->recv, 0, c->bytes);
        break;
    case 3:
    case 4:
    case 11:
        for (size_t i = 0; i < c->block; i++)
            c->send[i] = pattern(rank, i);
        memset(c->recv, 0, c->bytes);
        break;
    case 5:     /* scatter: block r of the root's buffer for rank r */
        if (rank == 0)
            for (int r = 0; r < nranks; r++)
                for (size_t i = 0; i < c->block; i++)
                    c->send[(size_t) r * c->block + i] = pattern(r, i);
        memset(c->recv, 0, c->block);
        break;
    case 12:    /* alltoall(v): block d for rank d */
    case 13:
        for (int d = 0; d < nranks; d++)
            for (size_t i = 0; i < c->block; i++)
                c->send[(size_t) d * c->block + i] = pair_pattern(rank, d, i);
        memset(c->recv, 0, c->bytes);
        break;
    case 14:    /* gatherv: this rank's uneven block */
        for (int i = 0; i < c->counts[rank]; i++)
            c->send[i] = pattern(rank, (size_t) i);
        memset(c->recv, 0, c->bytes);
        break;
    case 15:    /* scatterv: rank r's uneven block at its displacement in the root's buffer */
        if (rank == 0)
            for (int r = 0; r < nranks; r++)
                for (int i = 0; i < c->counts[r]; i++)
                    c->send[c->displs[r] + i] = pattern(r, (size_t) i);
        memset(c->recv, 0, (size_t) c->counts[rank]);
        break;
    }
}

static void run_call(struct call *c)
{
    int n = (int) c->block;
    switch (c->coll) {
    case 0: MPI_Bcast(c->send, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 1: MPI_Reduce(c->send, c->recv, n / (int) sizeof(int), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case 2: MPI_Allreduce(c->send, c->recv, n / (int) sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case 3: MPI_Allgather(c->send, n, MPI_BYTE, c->recv, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case 4: MPI_Gather(c->send, n, MPI_BYTE, c->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 5: MPI_Scatter(c->send, n, MPI_BYTE, c->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 6: MPI_Barrier(MPI_COMM_WORLD); break;
    case 7: MPI_Scan(c->send, c->recv, n / (int) sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case 8: MPI_Exscan(c->send, c->recv, n / (int) sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case 9: MPI_Reduce_scatter_block(c->send, c->recv, n / (int) sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case 10: MPI_Reduce_scatter(c->send, c->recv, c->counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case 11: MPI_Allgatherv(c->send, n, MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE, MPI_COMM_WORLD); break;
    case 12: MPI_Alltoall(c->send, n, MPI_BYTE, c->recv, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case 13: MPI_Alltoallv(c->send, c->counts, c->displs, MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE, MPI_COMM_WORLD); break;
    case 14: MPI_Gatherv(c->send, c->counts[rank], MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 15: MPI_Scatterv(c->send, c->counts, c->displs, MPI_BYTE, c->recv, c->counts[rank], MPI_BYTE, 0, MPI_COMM_WORLD); break;
    }
}

/* scan, exscan: the first int that is not the sum of ranks 0 .. last's values (none to
 * check for last < 0: exscan's rank 0), or -1 */
static long first_wrong_prefix(const struct call *c, int last)
{
    const int *ints = (const int *) c->recv;
    long ranks_sum = (long) last * (last + 1) / 2;
    for (size_t i = 0; last >= 0 && i < c->bytes / sizeof(int); i++)
        if (ints[i] != ranks_sum + (long) (last + 1) * (long) (i % 13))
            return (long) i;
    return -1;
}

/* the first byte or int that differs from what the call must give, or -1 */
static long first_wrong(const struct call *c)
{
    const int *ints = (const int *) c->recv;
    size_t nint = c->bytes / sizeof(int);
    long sum_ranks = (long) nranks * (nranks - 1) / 2;
    switch (c->coll) {
    case 0:
        for (size_t i = 0; i < c->bytes; i++)
            if (c->send[i] != pattern(0, i))
                return (long) i;
        break;
    case 1:
    case 2:
        if (c->coll == 1 && rank != 0)
            break;
        for (size_t i = 0; i < nint; i++)
            if (ints[i] != sum_ranks + (long) nranks * (long) (i % 13))
                return (long) i;
        break;
    case 3:
    case 4:
    case 11:
        if (c->coll == 4 && rank != 0)
            break;
        for (int r = 0; r < nranks; r++)
            for (size_t i = 0; i < c->block; i++)
                if (c->recv[(size_t) r * c->block + i] != pattern(r, i))
                    return (long) ((size_t) r * c->block + i);
        break;
    case 5:
        for (size_t i = 0; i < c->block; i++)
            if (c->recv[i] != pattern(rank, i))
                return (long) i;
        break;
    case 7:
    case 8:
        return first_wrong_prefix(c, c->coll == 8 ? rank - 1 : rank);
    case 9:
    case 10:    /* this rank's block of the sums */
        for (size_t i = 0, at = (size_t) rank * c->block / sizeof(int); i < c->block / sizeof(int); i++)
            if (ints[i] != sum_ranks + (long) nranks * (long) ((at + i) % 13))
                return (long) i;
        break;
    case 12:    /* block s: what rank s put for this one */
    case 13:
        for (int s = 0; s < nranks; s++)
            for (size_t i = 0; i < c->block; i++)
                if (c->recv[(size_t) s * c->block + i] != pair_pattern(s, rank, i))
                    return (long) ((size_t) s * c->block + i);
        break;
    case 14:    /* every rank's block at its displacement, at the root */
        for (int r = 0; rank == 0 && r < nranks; r++)
            for (int i = 0; i < c->counts[r]; i++)
                if (c->recv[c->displs[r] + i] != pattern(r, (size_t) i))
                    return (long) c->displs[r] + i;
        break;
    case 15:
        for (int i = 0; i < c->counts[rank]; i++)
            if (c->recv[i] != pattern(rank, (size_t) i))
                return i;
        break;
    }
    return -1;
}

/* one repetition: the time per call, maximum over ranks */
static double sample(struct call *c, int iters)
{
    double mine, worst;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int k = 0; k < iters; k++)
        run_call(c);
    mine = (MPI_Wtime() - start) / iters;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void parse_list(char *text, long *values, int *count, const char *what)
{
    *count = 0;
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end || v < 0 || *count == MAX_SIZES)
            fail("%s: %d values at most, each a non-negative number", what, MAX_SIZES);
        values[(*count)++] = v;
    }
}

int main(int argc, char **argv)
{
    int colls[NCOLL], ncolls = NCOLL, nsizes = 0, reps = 5, warmup = 1;
    long sizes[MAX_SIZES];
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int c = 0; c < NCOLL; c++)
        colls[c] = c;
    sizes[nsizes++] = 1 << 20;

    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a];
        if (a + 1 == argc)
            fail("%s: needs a value (peerbench [-C colls] [-s sizes] [-r reps] [-x warmup])", opt);
        char *value = argv[++a];
        if (strcmp(opt, "-C") == 0) {
            ncolls = 0;
            for (char *tok = strtok(value, ","); tok; tok = strtok(NULL, ",")) {
                int c = coll_index(tok);
                if (c < 0 || ncolls == NCOLL)
                    fail("-C: '%s' is none of bcast reduce allreduce allgather gather scatter barrier scan exscan reduce_scatter_block reduce_scatter allgatherv alltoall alltoallv gatherv scatterv", tok);
                colls[ncolls++] = c;
            }
        } else if (strcmp(opt, "-s") == 0) {
            parse_list(value, sizes, &nsizes, "-s");
        } else if (strcmp(opt, "-r") == 0 || strcmp(opt, "-x") == 0) {
            char *end;
            long v = strtol(value, &end, 10);
            if (*end || v < (opt[1] == 'r') || v > MAX_REPS)
                fail("%s %s: out of range (repetitions 1 to %d, warm-up 0 to %d)", opt, value, MAX_REPS, MAX_REPS);
            *(opt[1] == 'r' ? &reps : &warmup) = (int) v;
        } else {
            fail("unknown option '%s'", opt);
        }
    }

    MPI_Get_library_version(library, &len);
    library[strcspn(library, "\n,")] = '\0';     /* its first line, one CSV field */
    for (char *from = library, *to = library;; from++) {
        if (*from == ' ' && to > library && to[-1] == ' ')
            continue;
        if (!(*to++ = *from))
            break;
    }
    if (rank == 0)
        printf("mpi,collective,bytes,ranks,reps,iters,median_us,samples_us\n");

    double *samples = malloc(sizeof(double) * (size_t) reps);
    for (int k = 0; k < ncolls; k++) {
        for (int s = 0; s < nsizes; s++) {
            struct call c = {.coll = colls[k], .bytes = (size_t) sizes[s]};
            const char *name = COLLECTIVES[c.coll];
            if (c.coll == 6) {
                if (s > 0)
                    break;      /* barrier has one size */
                c.bytes = 0;
            }
            if ((c.coll == 1 || c.coll == 2) && c.bytes % sizeof(int))
                fail("%s of %zu bytes: MPI_INT elements need a multiple of 4", name, c.bytes);
            int per_rank = (c.coll >= 3 && c.coll <= 5) || c.coll >= 9;
            size_t unit = c.coll == 9 || c.coll == 10 ? sizeof(int) : 1;
            if (per_rank && c.bytes % ((size_t) nranks * unit))
                fail("%s of %zu bytes: the buffer is one block per rank, and %d ranks do not divide it%s",
                     name, c.bytes, nranks, unit > 1 ? " in MPI_INT elements" : "");
            c.block = per_rank ? c.bytes / (size_t) nranks : c.bytes;
            c.counts = malloc(sizeof(int) * (size_t) nranks);
            c.displs = malloc(sizeof(int) * (size_t) nranks);
            for (int r = 0; r < nranks; r++) {
                int uneven = c.coll == 14 || c.coll == 15;
                c.counts[r] = (int) (uneven ? uneven_block(r, c.block)
                                     : c.coll == 11 || c.coll == 13 ? c.block : c.block / sizeof(int));
                /* in bytes, blocks in rank order */
                c.displs[r] = r == 0 ? 0 : c.displs[r - 1] + (uneven ? c.counts[r - 1] : (int) c.block);
            }
            if (c.block > (size_t) 1 << 30)
                fail("%s of %zu bytes: more than 1 GiB per block", name, c.bytes);
            c.send = malloc(c.bytes + 1);
            c.recv = malloc(c.bytes + 1);

            fill(&c);
            double once = sample(&c, 1);
            long wrong = first_wrong(&c);
            if (wrong >= 0) {
                fprintf(stderr, "peerbench: %s of %ld bytes: rank %d received wrong data at %ld\n",
                        name, (long) c.bytes, rank, wrong);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (int w = 0; w < warmup; w++)
                run_call(&c);
            int iters = once > 0 ? (int) (REP_SECONDS / once) : MAX_ITERS;
            iters = iters < 1 ? 1 : iters > MAX_ITERS ? MAX_ITERS : iters;
            for (int r = 0; r < reps; r++)
                samples[r] = sample(&c, iters);
            if (rank == 0) {
                printf("%s,%s,%ld,%d,%d,%d,", library, name, (long) c.bytes, nranks, reps, iters);
                double *sorted = malloc(sizeof(double) * (size_t) reps);
                memcpy(sorted, samples, sizeof(double) * (size_t) reps);
                qsort(sorted, (size_t) reps, sizeof(double), by_value);
                double median = reps % 2 ? sorted[reps / 2] : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
                printf("%.3f,", median * 1e6);
                for (int r = 0; r < reps; r++)
                    printf("%s%.3f", r ? " " : "", samples[r] * 1e6);
                printf("\n");
                fflush(stdout);
                free(sorted);
            }
            free(c.send);
            free(c.recv);
            free(c.counts);
            free(c.displs);
        }
    }
    free(samples);
    MPI_Finalize();
    return 0;
}
