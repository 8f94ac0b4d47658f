/* Prints, on rank 0, the node layout MPICH detected: one line per node
 * ("node: 0 1 2", the world ranks of one MPI_COMM_TYPE_SHARED comm), then
 * broadcasts BYTES (argv[1], default 0) from rank 0 so that a test can see the
 * bytes cross the node links.  Exit status 1 if the broadcast data is wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, node_rank, node_size, leader, errors = 0;
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);

    int *leaders = malloc(size * sizeof(int));
    MPI_Gather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int l = 0; l < size; l++) {
            if (leaders[l] != l)
                continue;
            printf("node:");
            for (int r = 0; r < size; r++)
                if (leaders[r] == l)
                    printf(" %d", r);
            printf("\n");
        }
    }

    long bytes = argc > 1 ? atol(argv[1]) : 0;
    if (bytes > 0) {
        unsigned char *buf = malloc(bytes);
        for (long i = 0; i < bytes; i++)
            buf[i] = rank == 0 ? (unsigned char) (i * 7 + 1) : 0;
        MPI_Bcast(buf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (long i = 0; i < bytes; i++)
            if (buf[i] != (unsigned char) (i * 7 + 1)) {
                errors = 1;
                break;
            }
        free(buf);
    }
    int all_errors;
    MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && all_errors)
        printf("broadcast data wrong\n");
    free(leaders);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return rank == 0 && all_errors;
}
