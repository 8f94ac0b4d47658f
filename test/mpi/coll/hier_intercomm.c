/*
 * mpich-hier: the plugin's algorithms on an intercommunicator, which only a tuning file
 * can send them (MPIR_CVAR_<COLL>_INTRA_ALGORITHM is the intracommunicators' variable):
 * where the file names one of them without comm_type=intra on its path, the call returns
 * an error of class MPI_ERR_COMM (it would otherwise run an intracommunicator's pattern on
 * the intercomm: wrong data, or a hang); the gatherv's and scatterv's run MPICH's linear
 * algorithm there instead (right data).
 *
 * An intercomm of the even and the odd ranks of MPI_COMM_WORLD (MPI_ERRORS_RETURN); on
 * it MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Alltoall, MPI_Ibcast and MPI_Gatherv, the
 * even group's first rank the root where there is one.
 *   -expect-error K1,K2  these kinds must return MPI_ERR_COMM on every rank; every other
 *                        kind must succeed with the right data.
 */

#include "hier_util.h"

enum { BCAST, REDUCE, ALLREDUCE, ALLTOALL, IBCAST, GATHERV, NKINDS };
static const char *kind_names[NKINDS] = { "bcast", "reduce", "allreduce", "alltoall", "ibcast",
    "gatherv"
};

#define N 4
static int errors;

/* the rooted kinds' root argument: MPI_ROOT at the even group's first rank, MPI_PROC_NULL
 * at the other even ranks, 0 (the remote group's first rank) at the odd ones */
static int root_arg(int even, int local_rank)
{
    return even ? (local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
}

/* runs kind on ic; 1 when it was right (data checked where this rank receives), else 0 */
static int run_kind(int kind, MPI_Comm ic, int even, int local_rank, int remote_size)
{
    int buf[N * 64], out[N * 64], counts[64], displs[64], root = root_arg(even, local_rank);
    int rc, right = 1;
    MPI_Request req;

    for (int i = 0; i < N * 64; i++)
        buf[i] = even * 1000 + i, out[i] = -1;
    for (int r = 0; r < remote_size; r++)
        counts[r] = N, displs[r] = r * N;
    switch (kind) {
        case BCAST:
            rc = MPI_Bcast(buf, N, MPI_INT, root, ic);
            right = even || buf[N - 1] == 1000 + N - 1;
            break;
        case REDUCE:
            rc = MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, root, ic);
            right = root != MPI_ROOT || out[0] == 0;    /* the odd ranks' zeros summed */
            break;
        case ALLREDUCE:
            rc = MPI_Allreduce(buf, out, N, MPI_INT, MPI_SUM, ic);
            right = out[0] == (even ? 0 : 1000 * remote_size);
            break;
        case ALLTOALL:
            rc = MPI_Alltoall(buf, N, MPI_INT, out, N, MPI_INT, ic);
            right = out[0] == (even ? 0 : 1000) + local_rank * N;   /* remote rank 0's block */
            break;
        case IBCAST:
            rc = MPI_Ibcast(buf, N, MPI_INT, root, ic, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            right = even || buf[N - 1] == 1000 + N - 1;
            break;
        default:       /* GATHERV: the odd ranks' blocks to the even group's first rank */
            rc = MPI_Gatherv(buf, even ? 0 : N, MPI_INT, out, counts, displs, MPI_INT, root, ic);
            right = root != MPI_ROOT || out[remote_size * N - 1] == N - 1;
            break;
    }
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        return cls == MPI_ERR_COMM ? -1 : 0;    /* -1: refused as an intercomm */
    }
    return right;
}

int main(int argc, char **argv)
{
    int rank, size, expect_error[NKINDS] = { 0 };
    MPI_Comm half, ic;

    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-expect-error")) {
            char *list = strdup(argv[++i]);
            for (char *k = strtok(list, ","); k; k = strtok(NULL, ","))
                for (int j = 0; j < NKINDS; j++)
                    expect_error[j] |= !strcmp(k, kind_names[j]);
            free(list);
        }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > 128)
        HIER_FAIL("hier_intercomm: 2 to 128 ranks");
    int even = rank % 2 == 0, local_rank, remote_size;
    MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &ic);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_rank(half, &local_rank);
    MPI_Comm_remote_size(ic, &remote_size);
    for (int kind = 0; kind < NKINDS; kind++) {
        int got = run_kind(kind, ic, even, local_rank, remote_size);
        if (got != (expect_error[kind] ? -1 : 1)) {
            errors++;
            fprintf(stderr, "rank %d: %s on the intercomm %s\n", rank, kind_names[kind],
                    got < 0 ? "refused (MPI_ERR_COMM)" : got ? "ran, where it must be refused" :
                    "gave wrong data or another error");
        }
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    hier_report_errors(errors);
    MPI_Finalize();
    return 0;
}
