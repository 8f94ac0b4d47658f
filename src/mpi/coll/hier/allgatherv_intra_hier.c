/*
 * mpich-hier: hierarchical allgatherv, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* What every vertex of one allgatherv's schedule shares: every rank's block, packed in
 * rank order (the bytes of the receive type's signature), at[r] where rank r's starts */
typedef MPII_Hier_run_vector agv_ctx;

/* The top step: each member sends its groups' run to every other member (each starting
 * with the next one) and receives theirs into their places */
static int agv_top(const agv_ctx * c, const MPII_Hier_run_step * st, int *front)
{
    int size = st->comm->local_size, me = st->comm->rank, after = *front, n_in = 0, vtx;
    int *in = MPL_malloc(sizeof(int) * size, MPL_MEM_COLL), mpi_errno = MPI_SUCCESS;
    MPII_Hier_run_piece mine = MPII_Hier_run_members(c, st, me, 1);

    if (!in)
        return MPI_ERR_NO_MEM;
    in[n_in++] = *front;
    for (int i = 1; i < size && !mpi_errno; i++) {
        int peer = (me + i) % size;
        MPII_Hier_run_piece theirs = MPII_Hier_run_members(c, st, peer, 1);
        if (mine.n > 0)
            mpi_errno = MPIR_TSP_sched_isend(mine.buf, mine.n, MPIR_BYTE_INTERNAL, peer, st->tag,
                                             st->comm, c->sched, 1, &after, &vtx);
        if (!mpi_errno && theirs.n > 0)
            mpi_errno = MPIR_TSP_sched_irecv(theirs.buf, theirs.n, MPIR_BYTE_INTERNAL, peer,
                                             st->tag, st->comm, c->sched, 0, NULL, &in[n_in++]);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(c->sched, n_in, in, front);
    MPL_free(in);
    return mpi_errno;
}

/* Down one step: member 0 holds every block; a binomial bcast of all of them (a member's
 * own subtree's run comes back unchanged over what it holds) */
static int agv_down(const agv_ctx * c, const MPII_Hier_run_step * st, MPI_Aint total,
                    int *front)
{
    MPII_Hier_tree_node tree;
    int mpi_errno = MPI_SUCCESS;

    if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0, 1,
                                 st->comm->rank))
        return MPI_ERR_NO_MEM;
    if (tree.parent >= 0) {
        int after = *front;
        mpi_errno = MPIR_TSP_sched_irecv(c->packed, total, MPIR_BYTE_INTERNAL, tree.parent, st->tag,
                                         st->comm, c->sched, 1, &after, front);
    }
    for (int i = 0; i < tree.nchildren && !mpi_errno; i++) {
        int after = *front, vtx;
        mpi_errno = MPIR_TSP_sched_isend(c->packed, total, MPIR_BYTE_INTERNAL, tree.children[i],
                                         st->tag, st->comm, c->sched, 1, &after, &vtx);
    }
    MPII_Hier_tree_node_free(&tree);
    return mpi_errno;
}

/* This rank's block into its place in packed, the steps, then every block from packed to
 * its place in recvbuf (this rank's too unless it is there already: in place) */
static int agv_steps(const agv_ctx * c, const MPII_Hier_call * a, const MPII_Hier_run_step * steps,
                     int n)
{
    int me = a->comm->rank, size = a->comm->local_size, front, mpi_errno, in_place;
    MPI_Aint extent, mine = c->at[me + 1] - c->at[me], total = c->at[size];

    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    in_place = a->sendbuf == MPI_IN_PLACE;
    if (in_place)
        mpi_errno = MPIR_TSP_sched_localcopy((char *) a->buf + a->displs[me] * extent,
                                             a->counts[me], a->datatype, c->packed + c->at[me],
                                             mine, MPIR_BYTE_INTERNAL, c->sched, 0, NULL, &front);
    else
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype,
                                             c->packed + c->at[me], mine, MPIR_BYTE_INTERNAL,
                                             c->sched, 0, NULL, &front);
    for (int k = n - 1; k > 0 && !mpi_errno; k--)
        if (steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(c, &steps[k], &front);
    if (!mpi_errno && steps[0].comm)
        mpi_errno = agv_top(c, &steps[0], &front);
    for (int k = 1; k < n && !mpi_errno; k++)
        if (steps[k].comm)
            mpi_errno = agv_down(c, &steps[k], total, &front);
    for (int r = 0; r < size && !mpi_errno; r++) {
        int vtx;
        if (a->counts[r] > 0 && !(in_place && r == me))
            mpi_errno = MPIR_TSP_sched_localcopy(c->packed + c->at[r], c->at[r + 1] - c->at[r],
                                                 MPIR_BYTE_INTERNAL,
                                                 (char *) a->buf + a->displs[r] * extent,
                                                 a->counts[r], a->datatype, c->sched, 1, &front,
                                                 &vtx);
    }
    return mpi_errno;
}

/* Algorithm: hierarchical allgatherv over the N levels, as one schedule
 *
 *     every rank's block packed in rank order (each group's blocks one run, its leader
 *         its first rank);
 *     up the steps below the top one, finest first: each group gathers its run onto its
 *         leader along a binomial tree;
 *     the top step (inter_algo linear): each top leader sends its groups' run to every
 *         other one and receives theirs;
 *     down the steps, coarsest first: each leader broadcasts every block along a
 *         binomial tree;
 *     every block from the packed vector to recvbuf at its displacement.
 * Only the top leaders cross the top level's links, each node's blocks once per other
 * group.  Groups that are not blocks of consecutive ranks, one node, and calls while the
 * plugin makes its comms: the top step's exchange among all ranks of comm.
 */
static int agv_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM,
                                                          0);
    int size = a->comm->local_size, n = 0, me = a->comm->rank, mpi_errno = MPI_SUCCESS;
    int inter_algo;             /* linear, the one item */
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    MPI_Aint type_size, extent, *at = MPL_malloc(sizeof(MPI_Aint) * (size + 1), MPL_MEM_COLL);
    agv_ctx c = { NULL, at, sched };

    if (!at)
        return MPI_ERR_NO_MEM;
    MPIR_Datatype_get_size_macro(a->datatype, type_size);
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    at[0] = 0;
    for (int r = 0; r < size; r++)
        at[r + 1] = at[r] + a->counts[r] * type_size;
    if (size == 1 && a->sendbuf != MPI_IN_PLACE && at[1] > 0) {
        int vtx;
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype,
                                             (char *) a->buf + a->displs[me] * extent,
                                             a->counts[me], a->datatype, sched, 0, NULL, &vtx);
    } else if (size > 1 && at[size] > 0) {
        c.packed = MPIR_TSP_sched_malloc(at[size], sched);
        mpi_errno = !c.packed ? MPI_ERR_NO_MEM :
            MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_ALLGATHERV_INTER_COUNT, NULL, steps, &n,
                                     &inter_algo);
        if (!mpi_errno)
            mpi_errno = agv_steps(&c, a, steps, n);
    }
    MPII_Hier_run_steps_free(steps, n);
    MPL_free(at);
    return mpi_errno;
}

static int agv_entry(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Aint * recvcounts, const MPI_Aint * displs,
                     MPI_Datatype recvtype, MPIR_Comm * comm, int inter_algo, int calls_pvar,
                     MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .counts = recvcounts, .displs = displs,
        .datatype = recvtype, .comm = comm, .given = &given, .calls_pvar = calls_pvar };
    if (sched)
        return agv_sched(&call, sched);
    return MPII_Hier_sched_wait(agv_sched, &call);
}

int MPIR_Allgatherv_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Aint recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPIR_Comm * comm_ptr, int inter_algo, int coll_attr)
{
    return agv_entry(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                     comm_ptr, inter_algo, MPII_HIER_PVAR_CALLS(allgatherv, hier), NULL);
}

int MPIR_TSP_Iallgatherv_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                          MPI_Datatype sendtype, void *recvbuf,
                                          const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPIR_Comm * comm_ptr,
                                          MPIR_TSP_sched_t sched)
{
    return agv_entry(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                     comm_ptr, -1, MPII_HIER_PVAR_CALLS(iallgatherv, tsp_hier), sched);
}
