/*
 * mpich-hier: MPI_Reduce with MPI_IN_PLACE at every root on the default path (no CVAR,
 * no tuning file), on multi-node comms.  MPICH 4.0.2's CH4 reduce composition (alpha,
 * above 2 KiB for commutative ops) passed MPI_IN_PLACE to the intra-node reduce of a
 * root that is not its node's leader, where it read garbage or crashed (fixed upstream
 * in 4.2.0, mpich#6540; kept so the default path stays checked).  Sub-communicators put roots at every position: leader,
 * non-leader, on rank 0's node and elsewhere.  Counts cross the 2 KiB composition
 * switch; MPI_IN_PLACE and a separate send buffer alternate.
 */

#include "hier_util.h"

static int errors;

/* rank r's contribution at element i: distinct per rank and element, sums exactly */
static int contribution(int r, long i)
{
    return (int) ((r + 1) * 1000 + i % 997);
}

static void one_case(MPI_Comm comm, const char *name, int root, long count, int in_place)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sendbuf = malloc(sizeof(int) * (count + 1));
    int *recvbuf = malloc(sizeof(int) * (count + 1));
    for (long i = 0; i < count; i++) {
        sendbuf[i] = contribution(rank, i);
        recvbuf[i] = rank == root && in_place ? sendbuf[i] : -1;
    }
    MPI_Reduce(rank == root && in_place ? MPI_IN_PLACE : sendbuf, recvbuf, (int) count, MPI_INT,
               MPI_SUM, root, comm);
    if (rank == root) {
        long bad = 0, first = -1;
        for (long i = 0; i < count; i++) {
            int want = 0;
            for (int r = 0; r < size; r++)
                want += contribution(r, i);
            if (recvbuf[i] != want && bad++ == 0)
                first = i;
        }
        if (bad) {
            errors++;
            fprintf(stderr, "reduce comm %s (size %d) root %d count %ld%s: %ld wrong elements, "
                    "first at %ld\n", name, size, root, count, in_place ? " in-place" : "", bad,
                    first);
        }
    }
    free(sendbuf);
    free(recvbuf);
}

static void run_comm(MPI_Comm comm, const char *name)
{
    static const long counts[] = { 1, 100, 513, 1000, 100000 };
    int size;
    if (comm == MPI_COMM_NULL)
        return;
    MPI_Comm_size(comm, &size);
    for (int root = 0; root < size; root++)
        for (int c = 0; c < (int) (sizeof(counts) / sizeof(counts[0])); c++)
            for (int in_place = 0; in_place < 2; in_place++)
                one_case(comm, name, root, counts[c], in_place);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm first4, odd_even, reversed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_split(MPI_COMM_WORLD, rank < 4 ? 0 : MPI_UNDEFINED, rank, &first4);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd_even);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);

    run_comm(MPI_COMM_WORLD, "world");
    run_comm(first4, "first-4");
    run_comm(odd_even, "odd-even");
    run_comm(reversed, "reversed");

    if (first4 != MPI_COMM_NULL)
        MPI_Comm_free(&first4);
    MPI_Comm_free(&odd_even);
    MPI_Comm_free(&reversed);
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
