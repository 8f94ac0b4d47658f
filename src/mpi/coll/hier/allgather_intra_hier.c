/*
 * mpich-hier: hierarchical allgather, the top leaders' ring pipelined with the bcasts down the levels.
 */

#include "hier_impl.h"

/* One piece of a level-0 group's blocks, every rank of the group broadcasts it down the
 * steps below the top in turn (blocking; each step's root got it in the step before). */
static int bcast_down(const MPII_Hier_steps * steps, char *at, MPI_Aint len, int intra_algo,
                      int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS, n = steps->nsteps - 1;
    for (int k = 1; k <= n; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        if (!st->comm)
            continue;
        mpi_errno = MPII_Hier_intra_bcast(at, len, MPIR_BYTE_INTERNAL, st->root, st->comm,
                                          k == n && !st->inter ? intra_algo :
                                          MPII_HIER_INTRA_BINOMIAL, coll_attr | *errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* Algorithm: hierarchical allgather over the N levels
 *
 * Every rank's block is its packed contribution, b bytes; the stage holds all of them in
 * the gathered layout of the hier gather to rank 0 (hier_hierarchy.h): level-0 group after
 * level-0 group, each one's blocks where its leader gathers them.
 *     1. each level-0 group's blocks onto its leader, up the steps below the top (the hier
 *        gather's steps, binomial trees);
 *     2. ring, in steps j = 0, 1, ...: each level-0 leader receives the next piece from
 *        the previous group's leader, sends piece j of its list (its own group's pieces,
 *        then those it received, up to the next group's own) to the next group's leader,
 *        and broadcasts piece j down its group's steps while both travel; one receive and
 *        one send in flight, so that no leader waits on a peer that has not posted its
 *        side; auto: MPICH's allgatherv of the groups' blocks among the leaders, then one
 *        bcast of the whole stage down the steps;
 *     3. each rank copies every block from the stage to its place in recvbuf.
 * Two levels: the node's blocks gathered onto its rank 0, the ring of the nodes' rank 0,
 * the node bcasts.  One node that nothing splits: gather and bcast on comm itself.
 */
/* one node that nothing splits: gather and bcast of the stage (in rank order) on comm */
static int allgather_one_node(char *stage, MPI_Aint block, MPIR_Comm * comm, int intra_algo,
                              int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    int rank = comm->rank;

    mpi_errno = MPII_Hier_intra_rooted(1, rank == 0 ? MPI_IN_PLACE : stage + rank * block, block,
                                       MPIR_BYTE_INTERNAL, stage, block, MPIR_BYTE_INTERNAL, 0,
                                       comm, intra_algo, coll_attr | *errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    mpi_errno = MPII_Hier_intra_bcast(stage, comm->local_size * block, MPIR_BYTE_INTERNAL, 0,
                                      comm, intra_algo, coll_attr | *errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    return mpi_errno_ret;
}

/* 2. with MPICH's allgatherv (auto, or Bruck's for small blocks) among the top leaders,
 * then the whole stage down each group */
static int leaders_allgatherv(const MPII_Hier_steps * steps, const long long *offset, int ntop,
                              char *stage, MPI_Aint block, const MPII_Hier_params * prm,
                              int coll_attr, int *errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    MPIR_Comm *top_comm = steps->step[0].comm;
    MPI_Aint *counts = NULL, *displs = NULL;

    if (top_comm) {
        counts = MPL_malloc(sizeof(MPI_Aint) * ntop * 2, MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!counts, mpi_errno, MPI_ERR_OTHER, "**nomem");
        displs = counts + ntop;
        for (int g = 0; g < ntop; g++) {
            counts[g] = (offset[g + 1] - offset[g]) * block;
            displs[g] = offset[g] * block;
        }
        if (prm->inter_algo == MPII_HIER_ALLGATHER_INTER_BRUCKS)
            mpi_errno = MPIR_Allgatherv_intra_brucks(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage,
                                                     counts, displs, MPIR_BYTE_INTERNAL,
                                                     top_comm, coll_attr | *errflag);
        else
            mpi_errno = MPIR_Allgatherv_allcomm_auto(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage,
                                                     counts, displs, MPIR_BYTE_INTERNAL,
                                                     top_comm, coll_attr | *errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
  fn_fail:     /* no counts: the bcast down still runs, so that no peer hangs */
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    MPL_free(counts);
    mpi_errno = bcast_down(steps, stage, offset[ntop] * block, prm->intra_algo, coll_attr,
                           errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    return mpi_errno_ret;
}

/* 2. with the ring of the top leaders, each piece broadcast down the group as it arrives
 * (the pieces: MPII_Hier_ring_plan_init, as the schedule's) */
static int leaders_ring(const MPII_Hier_steps * steps, const long long *offset, int ntop,
                        int my_top, char *stage, MPI_Aint block, int segsize, int intra_algo,
                        int coll_attr, int *errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    MPIR_Comm *top_comm = steps->step[0].comm;
    int right = (my_top + 1) % ntop, left = (my_top - 1 + ntop) % ntop;
    MPII_Hier_ring_plan plan;
    MPII_Hier_ring_cursor sent, received;

    MPII_Hier_ring_plan_init(&plan, offset, ntop, my_top, block, segsize);
    MPII_Hier_ring_cursor_init(&sent, &plan, 0);
    MPII_Hier_ring_cursor_init(&received, &plan, plan.own);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    int nrecv = top_comm ? plan.npieces - plan.own : 0;
    int nsend = top_comm ? plan.npieces - plan.last : 0;
    MPII_HIER_PVAR_ADD(ALLGATHER_HIER_SEGMENTS, nrecv);
    for (int j = 0; j < plan.npieces; j++) {
        MPIR_Request *reqs[2] = { NULL, NULL };
        /* step j: receive piece own + j, send piece j (held: own, or received at step
         * j - own), and broadcast piece j down the group meanwhile */
        MPII_Hier_ring_piece pc = MPII_Hier_ring_next(&sent);
        if (j < nrecv) {
            MPII_Hier_ring_piece in = MPII_Hier_ring_next(&received);
            mpi_errno = MPIC_Irecv(stage + in.first, in.len, MPIR_BYTE_INTERNAL, left,
                                   MPIR_ALLGATHER_TAG, top_comm, &reqs[0]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }
        if (j < nsend) {
            mpi_errno = MPIC_Isend(stage + pc.first, pc.len, MPIR_BYTE_INTERNAL, right,
                                   MPIR_ALLGATHER_TAG, top_comm, &reqs[1], coll_attr | *errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }
        mpi_errno = bcast_down(steps, stage + pc.first, pc.len, intra_algo, coll_attr, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        /* a message that failed to start is recorded above and has no request */
        int n = (reqs[0] != NULL) + (reqs[1] != NULL);
        if (n) {
            mpi_errno = MPIC_Waitall(n, reqs[0] ? reqs : reqs + 1, MPI_STATUSES_IGNORE);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }
    }
    return mpi_errno_ret;
}

/* 1.-2. over the steps: this rank's block is at its place in the stage already */
static int allgather_steps(const MPII_Hier_steps * steps, char *stage, MPI_Aint block,
                           MPII_Hier_params * prm, int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    const MPII_Hier_hierarchy *h = steps->h;
    int rank = steps->comm->rank, size = steps->comm->local_size;
    int ntop = h->nlevels == 0 ? size : h->level[0].ngroups;
    int my_top = h->nlevels == 0 ? rank : h->level[0].group_of[rank];
    long long my_at = MPII_Hier_hierarchy_block_at(h, steps->col, rank);
    long long *offset = MPL_malloc(sizeof(long long) * (ntop + 1), MPL_MEM_COLL);

    if (!offset)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    MPII_Hier_hierarchy_step_offsets(h, 0, 0, 0, offset);       /* in blocks */

    /* 1. the group's blocks onto its leader: a leader's subtree starts where its own group
     * does (it stands first at every step it leads, and its finest group in rank order) */
    mpi_errno = MPII_Hier_rooted_gather(steps, 1, MPII_HIER_TREE_BINOMIAL, stage + my_at * block,
                                        block, MPIR_BYTE_INTERNAL,
                                        stage + MPII_Hier_hierarchy_finest_start(h, steps->col,
                                                                                 rank) * block,
                                        block, prm->intra_algo, coll_attr, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);

    /* 2. among the level-0 leaders, and down each group */
    prm->inter_algo = MPII_Hier_allgather_inter_resolve(prm->inter_algo, size * block / ntop,
                                                        ntop);
    if (prm->inter_algo == MPII_HIER_ALLGATHER_INTER_AUTO ||
        prm->inter_algo == MPII_HIER_ALLGATHER_INTER_BRUCKS)
        mpi_errno = leaders_allgatherv(steps, offset, ntop, stage, block, prm, coll_attr,
                                       errflag);
    else
        mpi_errno = leaders_ring(steps, offset, ntop, my_top, stage, block, prm->segsize,
                                 prm->intra_algo, coll_attr, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    MPL_free(offset);
    return mpi_errno_ret;
}

int MPIR_Allgather_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                              MPIR_Comm * comm_ptr, int segsize, int inter_algo, int intra_algo,
                              int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_DATA(segsize, inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_DATA(MPIR_CVAR_ALLGATHER_HIER_SEGSIZE,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
        .comm = comm_ptr, .given = &given, .calls_pvar = MPII_HIER_PVAR_CALLS(allgather, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_ALLGATHER_INTER_COUNT,
        MPII_Hier_allgather_sched, MPII_HIER_SCHED_FROM_ALLGATHER, 1, 0 };
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_run run;
    MPII_Hier_steps steps;
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(recvtype, type_size);
    MPIR_Datatype_get_extent_macro(recvtype, extent);
    block = recvcount * type_size;
    mpi_errno = MPII_Hier_enter(&call, &coll, block, &prm, &hier, &run);
    MPIR_ERR_CHECK(mpi_errno);
    if (run == MPII_HIER_RUN_NOTHING && block > 0 && !in_place)
        mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    if (run == MPII_HIER_RUN_FLAT)
        mpi_errno = MPIR_Allgather_intra_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm_ptr, coll_attr);
    if (run != MPII_HIER_RUN_ONE_NODE && run != MPII_HIER_RUN_STEPS)
        goto fn_exit;
    /* one node: never the device's shm on comm; by_size: auto unless all blocks fit a cell */
    if (run == MPII_HIER_RUN_ONE_NODE ||
        MPII_Hier_intra_resolve(prm.intra_algo, size * block, MPII_HIER_SIZED_BCAST) ==
        MPII_HIER_INTRA_AUTO)
        prm.intra_algo = MPII_Hier_intra_off_device(prm.intra_algo);
    if (run == MPII_HIER_RUN_STEPS) {
        mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* this rank's block at its place in the stage, the stage's blocks to their places */
    stage = MPL_malloc(size * block, MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!stage, mpi_errno, MPI_ERR_OTHER, "**nomem");
    long long my_at = run == MPII_HIER_RUN_STEPS ?
        MPII_Hier_hierarchy_block_at(steps.h, steps.col, rank) : rank;
    mpi_errno = MPIR_Localcopy(in_place ? (char *) recvbuf + rank * recvcount * extent : sendbuf,
                               in_place ? recvcount : sendcount, in_place ? recvtype : sendtype,
                               stage + my_at * block, block, MPIR_BYTE_INTERNAL);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    if (run == MPII_HIER_RUN_STEPS)
        mpi_errno = allgather_steps(&steps, stage, block, &prm, coll_attr, &errflag);
    else {
        MPII_Hier_guard_enter();
        mpi_errno = allgather_one_node(stage, block, comm_ptr, prm.intra_algo, coll_attr,
                                       &errflag);
        MPII_Hier_guard_leave();
    }
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    mpi_errno = MPII_Hier_rooted_unstage(stage, block, run == MPII_HIER_RUN_STEPS ? steps.h : NULL,
                        run == MPII_HIER_RUN_STEPS ? steps.col : NULL, recvbuf, recvcount, recvtype,
                        size, in_place ? rank : -1, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

  fn_exit:
    MPL_free(stage);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
