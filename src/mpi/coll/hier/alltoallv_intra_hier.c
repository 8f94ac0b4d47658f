/*
 * mpich-hier: hierarchical alltoallv, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* Every rank runs the direct exchange: its counts are its own, which no leader knows
 * before they travel */
static int a2av_direct(const MPII_Hier_call * a, const MPII_Hier_params * prm)
{
    return 1;
}

/* This rank's mean block, the larger of what it sends and what it receives over the comm's
 * ranks: what decides whether its rounds run one after the other */
static MPI_Aint a2av_mean_block(const MPII_Hier_call * a)
{
    int size = a->comm->local_size;
    MPI_Aint sent = 0, received = 0;

    for (int i = 0; i < size; i++) {
        if (a->sendbuf != MPI_IN_PLACE)
            sent += MPII_Hier_payload_bytes(a->sendcounts[i], a->sendtype);
        received += MPII_Hier_payload_bytes(a->counts[i], a->datatype);
    }
    return MPL_MAX(sent, received) / size;
}

/* Algorithm: hierarchical alltoallv, node-aware
 *
 *     every block straight from sendbuf to its place in recvbuf of its rank, posted in node
 *     rounds: in round j this rank's node sends to the j-th node after it and receives from
 *     the j-th before it; from a mean block by_size takes it for (hier_by_size.h) each
 *     round after the one before, so each node's link carries one node pair's flows at a
 *     time.
 * The leaders of the alltoall's aggregation would need every rank's counts first: the
 * counts of an alltoallv are each rank's own.  Blocks of no elements move no message.  On
 * one rank the block to itself only (uncounted, as the alltoall's).
 */
static int a2av_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM,
                                                          0);
    const MPII_Hier_blocks send = { a->sendbuf, a->sendcounts, a->sdispls, 0, a->sendtype };
    const MPII_Hier_blocks recv = { a->buf, a->counts, a->displs, 0, a->datatype };
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    int n = 0, inter_algo, mpi_errno;

    if (a->comm->local_size == 1)       /* the block to itself: no message, no tag */
        return MPII_Hier_direct_exchange(a->comm, 0, a->sendbuf == MPI_IN_PLACE ? NULL : &send,
                                         &recv, 0, sched);
    mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_ALLTOALLV_INTER_COUNT, a2av_direct,
                                         steps, &n, &inter_algo);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_direct_exchange(a->comm, steps[0].tag,
                                              a->sendbuf == MPI_IN_PLACE ? NULL : &send, &recv,
                                              MPII_Hier_by_size_alltoall_node_rounds
                                              (a2av_mean_block(a)), sched);
    MPII_Hier_run_steps_free(steps, n);
    return mpi_errno;
}

static int a2av_entry(const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Aint recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIR_Comm * comm,
                      int inter_algo, int calls_pvar, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcounts = sendcounts,
        .sdispls = sdispls, .sendtype = sendtype, .buf = recvbuf, .counts = recvcounts,
        .displs = rdispls, .datatype = recvtype, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    if (sched)
        return a2av_sched(&call, sched);
    return MPII_Hier_sched_wait(a2av_sched, &call);
}

int MPIR_Alltoallv_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPIR_Comm * comm_ptr, int inter_algo,
                              int coll_attr)
{
    return a2av_entry(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm_ptr, inter_algo, MPII_HIER_PVAR_CALLS(alltoallv, hier), NULL);
}

int MPIR_TSP_Ialltoallv_sched_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void *recvbuf, const MPI_Aint recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    return a2av_entry(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm_ptr, -1, MPII_HIER_PVAR_CALLS(ialltoallv, tsp_hier), sched);
}
