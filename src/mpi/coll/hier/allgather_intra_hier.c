/*
 * mpich-hier: hierarchical allgather, the top leaders' ring pipelined with the bcasts down the levels.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_ALLGATHER_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size, in bytes, of the hier allgather's ring: each top-level
        group's block (its ranks' packed contributions; a node's with two levels) moves
        between leaders and is broadcast down the group in pieces of this size. 0 moves
        each group's block as one piece.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Step among the leaders of the top level of the hier allgather (the nodes' with
        two levels)
        auto - MPIR_Allgatherv_allcomm_auto (MPICH's selection) of the groups' blocks,
               then one bcast of everything down each group
        ring - a ring of the leaders that forwards each piece as it arrives, each piece
               broadcast down the group while the next ones travel
        by_size - by the message (hier_by_size.h): auto while a group's block is no
               longer than MPIR_CVAR_HIER_LATENCY_BYTES (the hops decide), ring beyond

    - name        : MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Gather and bcast in the finest groups inside a node of the hier allgather (the
        levels between: binomial)
        auto     - MPICH's selection on the node communicator (MPIR Csel tree)
        binomial - MPIR_Gather_intra_binomial and MPIR_Bcast_intra_binomial
        shm      - binomial gather, the device's shared-memory bcast (CH4 POSIX
                   release_gather; binomial where the device cannot)
        by_size  - as auto

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* One piece of the ring: bytes [first, first + len) of the stage. */
typedef struct {
    MPI_Aint first, len;
} piece;

/* The pieces of the ring in the order every rank of level-0 group `mine` handles them:
 * its own group's block, then the blocks of groups mine - 1, mine - 2, ..., mine + 1
 * (what its leader receives from the left, in turn), each cut into pieces of segsize (0: one
 * piece; at most MPII_HIER_SEG_MAX per block).  *own and *last: the pieces of the first
 * and of the last block. */
static piece *ring_pieces(const long long *offset, int ngroups, int mine, int segsize,
                          int *npieces, int *own, int *last)
{
    int n = 0;
    piece *p = NULL;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0; k < ngroups; k++) {
            int group = (mine - k + ngroups) % ngroups, before = n;
            MPI_Aint first = offset[group], len = offset[group + 1] - offset[group];
            int raised;
            MPI_Aint seg = MPII_Hier_seg_size(len, segsize, 1, &raised);
            if (pass == 0)
                MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, raised);
            for (MPI_Aint at = 0; at < len; at += seg, n++)
                if (pass == 1) {
                    p[n].first = first + at;
                    p[n].len = MPL_MIN(seg, len - at);
                }
            if (k == 0)
                *own = n;
            if (k == ngroups - 1)
                *last = n - before;
        }
        if (pass == 0) {
            p = MPL_malloc(sizeof(piece) * MPL_MAX(n, 1), MPL_MEM_COLL);
            if (!p)
                return NULL;
        }
    }
    *npieces = n;
    return p;
}

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
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    piece *pieces = NULL;
    long long *offset = NULL;
    MPI_Aint *counts = NULL, *displs = NULL;
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, extent;
    MPIR_CHKLMEM_DECL();

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(recvtype, type_size);
    MPIR_Datatype_get_extent_macro(recvtype, extent);
    block = recvcount * type_size;
    if (size == 1 || block == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT);
        if (!mpi_errno && block > 0 && !in_place)
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        goto fn_exit;
    }
    if (MPII_Hier_blocking_scheduled(&given, &cvars, block, MPII_HIER_SCHED_FROM_ALLGATHER)) {
        const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
            .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
            .comm = comm_ptr, .given = &given,
            .calls_pvar = MPII_HIER_PVAR_CALLS(allgather, hier) };
        mpi_errno = MPII_Hier_sched_wait(MPII_Hier_allgather_sched, &call);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT,
                                MPII_HIER_PVAR_CALLS(allgather, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (prm.intra_algo == MPII_HIER_INTRA_BY_SIZE)
        prm.intra_algo = MPII_HIER_INTRA_AUTO;
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Allgather_intra_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm_ptr, coll_attr);
        goto fn_exit;
    }

    MPIR_CHKLMEM_MALLOC(stage, size * block);
    if (MPII_Hier_one_node(hier)) {
        /* the intra-node steps on comm itself, the stage in rank order */
        char *mine = stage + rank * block;
        if (in_place)
            mpi_errno = MPIR_Localcopy((char *) recvbuf + rank * recvcount * extent, recvcount,
                                       recvtype, mine, block, MPIR_BYTE_INTERNAL);
        else
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, mine, block,
                                       MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        mpi_errno = MPII_Hier_intra_gather(rank == 0 ? MPI_IN_PLACE : mine, block,
                                           MPIR_BYTE_INTERNAL, stage, block, MPIR_BYTE_INTERNAL, 0,
                                           comm_ptr, prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        mpi_errno = MPII_Hier_intra_bcast(stage, size * block, MPIR_BYTE_INTERNAL, 0, comm_ptr,
                                          prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        for (int r = 0; r < size; r++) {
            if (r == rank && in_place)
                continue;
            mpi_errno = MPIR_Localcopy(stage + r * block, block, MPIR_BYTE_INTERNAL,
                                       (char *) recvbuf + r * recvcount * extent, recvcount,
                                       recvtype);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        goto fn_exit;
    }

    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    const MPII_Hier_hierarchy *h = steps.h;
    MPIR_Comm *top_comm = steps.step[0].comm;
    int ntop = h->nlevels == 0 ? size : h->level[0].ngroups;
    int my_top = h->nlevels == 0 ? rank : h->level[0].group_of[rank];
    MPIR_CHKLMEM_MALLOC(offset, sizeof(long long) * (ntop + 1));
    MPII_Hier_hierarchy_step_offsets(h, 0, 0, 0, offset);
    for (int g = 0; g <= ntop; g++)
        offset[g] *= block;     /* bytes */

    long long my_at = MPII_Hier_hierarchy_block_at(h, steps.col, rank);
    char *mine = stage + my_at * block;
    if (in_place)
        mpi_errno = MPIR_Localcopy((char *) recvbuf + rank * recvcount * extent, recvcount,
                                   recvtype, mine, block, MPIR_BYTE_INTERNAL);
    else
        mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, mine, block, MPIR_BYTE_INTERNAL);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

    /* 1. the group's blocks onto its leader: a leader's subtree starts where its own group
     * does (it stands first at every step it leads, and its finest group in rank order) */
    mpi_errno = MPII_Hier_rooted_gather(&steps, 1, MPII_HIER_TREE_BINOMIAL, mine, block,
                                        MPIR_BYTE_INTERNAL, stage + (my_at -
                                                                     MPII_Hier_hierarchy_finest_pos
                                                                     (h, rank)) * block, block,
                                        prm.intra_algo, coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

    /* 2. among the level-0 leaders, and down each group */
    prm.inter_algo = MPII_Hier_allgather_inter_resolve(prm.inter_algo, size * block / ntop, ntop);
    if (prm.inter_algo == MPII_HIER_ALLGATHER_INTER_AUTO ||
        prm.inter_algo == MPII_HIER_ALLGATHER_INTER_BRUCKS) {
        if (top_comm) {
            MPIR_CHKLMEM_MALLOC(counts, sizeof(MPI_Aint) * ntop);
            MPIR_CHKLMEM_MALLOC(displs, sizeof(MPI_Aint) * ntop);
            for (int g = 0; g < ntop; g++) {
                counts[g] = offset[g + 1] - offset[g];
                displs[g] = offset[g];
            }
            if (prm.inter_algo == MPII_HIER_ALLGATHER_INTER_BRUCKS)
                mpi_errno = MPIR_Allgatherv_intra_brucks(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                                         stage, counts, displs,
                                                         MPIR_BYTE_INTERNAL, top_comm,
                                                         coll_attr | errflag);
            else
                mpi_errno = MPIR_Allgatherv_allcomm_auto(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                                         stage, counts, displs,
                                                         MPIR_BYTE_INTERNAL, top_comm,
                                                         coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        mpi_errno = bcast_down(&steps, stage, size * block, prm.intra_algo, coll_attr, &errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    } else {
        int nunits, own = 0, last = 0, right = (my_top + 1) % ntop, left = (my_top - 1 + ntop) % ntop;
        pieces = ring_pieces(offset, ntop, my_top, prm.segsize, &nunits, &own, &last);
        MPIR_ERR_CHKANDJUMP(!pieces, mpi_errno, MPI_ERR_OTHER, "**nomem");
        /* the units are the group's own pieces, then what arrives from the left; what goes
         * to the right is the same list without the last block to come round (the right
         * neighbour's own) */
        int nrecv = top_comm ? nunits - own : 0;
        int nsend = top_comm ? nunits - last : 0;
        MPII_HIER_PVAR_ADD(ALLGATHER_HIER_SEGMENTS, nrecv);
        for (int j = 0; j < nunits; j++) {
            MPIR_Request *reqs[2] = { NULL, NULL };
            int n = 0;
            /* step j: receive unit own + j, send unit j (held: own, or received at step
             * j - own), and broadcast unit j down the group meanwhile */
            if (j < nrecv) {
                mpi_errno = MPIC_Irecv(stage + pieces[own + j].first, pieces[own + j].len,
                                       MPIR_BYTE_INTERNAL, left, MPIR_ALLGATHER_TAG, top_comm,
                                       &reqs[n++]);
                MPIR_ERR_CHECK(mpi_errno);
            }
            if (j < nsend) {
                mpi_errno = MPIC_Isend(stage + pieces[j].first, pieces[j].len, MPIR_BYTE_INTERNAL,
                                       right, MPIR_ALLGATHER_TAG, top_comm, &reqs[n++],
                                       coll_attr | errflag);
                MPIR_ERR_CHECK(mpi_errno);
            }
            mpi_errno = bcast_down(&steps, stage + pieces[j].first, pieces[j].len,
                                   prm.intra_algo, coll_attr, &errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            if (n) {
                mpi_errno = MPIC_Waitall(n, reqs, MPI_STATUSES_IGNORE);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
        }
    }

    /* 3. every block to its place */
    for (int r = 0; r < size; r++) {
        if (r == rank && in_place)
            continue;
        mpi_errno = MPIR_Localcopy(stage + MPII_Hier_hierarchy_block_at(h, steps.col, r) * block,
                                   block, MPIR_BYTE_INTERNAL,
                                   (char *) recvbuf + r * recvcount * extent, recvcount, recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

  fn_exit:
    MPL_free(pieces);
    MPIR_CHKLMEM_FREEALL();
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
