/*
 * mpich-hier: a job under a tuning file.  Bcast, Reduce and Allreduce of 1000 ints on
 * MPI_COMM_WORLD, results checked; prints the number of MPI_Bcast calls hier ran.
 */

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, provided, errors = 0, index, count;
    int buf[1000], out[1000];
    unsigned long long ran = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_T_pvar_get_index("coll_hier_bcast_hier_count", MPI_T_PVAR_CLASS_COUNTER, &index);
    MPI_T_pvar_session_create(&session);
    MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count);

    for (int i = 0; i < 1000; i++)
        buf[i] = rank == 0 ? i : -1;
    MPI_Bcast(buf, 1000, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++)
        errors += buf[i] != i;
    for (int i = 0; i < 1000; i++)
        buf[i] = rank + i;
    MPI_Reduce(buf, out, 1000, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
    for (int i = 0; rank == size - 1 && i < 1000; i++)
        errors += out[i] != size * (size - 1) / 2 + size * i;
    MPI_Allreduce(buf, out, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++)
        errors += out[i] != size * (size - 1) / 2 + size * i;

    MPI_T_pvar_read(session, handle, &ran);
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    if (errors)
        printf("rank %d: %d wrong elements\n", rank, errors);
    else if (rank == 0)
        printf("ok, hier bcasts: %llu\n", ran);
    MPI_Finalize();
    return 0;
}
