/*
 * mpich-hier: HAN pipelined hierarchical allreduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL ALLREDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 16384
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier allreduce (rounded down to whole
        datatype elements, at least one). 0 reduces the whole message as one segment.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_allreduce_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking inter-node reduce and bcast of the hier allreduce (the same for both,
        so they overlap in opposite directions), run on the node leaders.
        Non-commutative ops use sched_binomial, or seg_in_order_binary for the seg_*
        items (rank order). The seg_* trees cut each hier segment into
        MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE pieces (0: one).
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops)

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node steps of the hier allreduce.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node steps of one hier
        allreduce segment. 0 does not split a segment further.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node reduce and bcast of the hier allreduce
        auto     - MPIR_Reduce/Bcast_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Reduce/Bcast_intra_binomial
        shm      - the device's shared-memory reduce and bcast (CH4 POSIX
                   release_gather), MPIR where the device cannot (e.g. non-commutative ops)

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: HAN pipelined hierarchical allreduce (HAN paper, section III-B)
 *
 * The message is cut into u segments of whole elements.  Per segment t: sr(t) reduces
 * onto each node's leader (local rank 0), ir(t) reduces the leaders' partial results
 * onto the first node's leader, ib(t) broadcasts the result back to the leaders, sb(t)
 * to the node.  Leaders run step s = 0 .. u+2 as
 *     start ib(s-2); start ir(s-1); sb(s-3); sr(s); wait for ib and ir
 * i.e. the paper's sr(0), irsr(1), ibirsr(2), sbibirsr(3..u-1), sbibir, sbib, sb: the
 * non-blocking inter-node reduce and bcast move in opposite directions while the node
 * works on two other segments.  Other ranks run the same intra-node steps in the same
 * order (sbsr).  ir(s) waits for sr(s), ib(s) for ir(s), sb(s) for ib(s): each was
 * completed one step earlier.
 *
 * With the one-step inter-node submodule (tsp_allreduce_ring) ia(t), an allreduce among
 * the leaders, replaces ir(t) and ib(t): leaders run s = 0 .. u+1 as
 *     start ia(s-1); sb(s-2); sr(s); wait for ia
 *
 * Non-commutative ops combine in rank order: intra-node and inter-node binomial trees
 * when every node is one block of consecutive ranks; otherwise no hierarchical order
 * equals rank order and the flat recursive doubling runs instead.
 */
int MPIR_Allreduce_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                              MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                              int segsize, int inter_algo, int inter_k, int inter_chunk,
                              int intra_algo, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPIR_Comm *up_comm = NULL, *node_comm;
    MPIR_Request *ireduce_req = NULL, *ibcast_req = NULL, *iallreduce_req = NULL;
    MPI_Aint type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    if (count == 0 || type_size == 0 || comm_ptr->local_size == 1) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        if (!mpi_errno && count > 0 && type_size > 0 && sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_INTER_COUNT, MPII_HIER_PVAR_CALLS(allreduce, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, op)) {
        /* one node (also the re-entry of a tree that picks hier for the node comm), our
         * own comm creation, or an order no hierarchy keeps: flat and rank-ordered */
        mpi_errno = MPIR_Allreduce_intra_recursive_doubling(sendbuf, recvbuf, count, datatype,
                                                            op, comm_ptr, errflag);
        goto fn_exit;
    }
    const MPII_Hier_levels *lv = &hier->levels;

    int multilevel = MPII_Hier_levels_is_multilevel(lv);
    /* the ring allreduce alone (one rank per node) runs once on the whole message */
    int whole = !multilevel && prm.inter_algo == MPII_HIER_INTER_TSP_ALLREDUCE_RING &&
        MPIR_Op_is_commutative(op);
    /* segments of whole elements (the op works on elements) */
    MPII_Hier_seg_plan_init(&plan, count * type_size, whole ? 0 : prm.segsize, type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, plan.nsegs);

    int is_leader = hier->my_local == 0;
    node_comm = multilevel ? hier->node_comm : NULL;
    if (multilevel) {
        mpi_errno = MPII_Hier_column_comm(comm_ptr, hier, 0, &up_comm);
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        up_comm = comm_ptr;     /* one rank per node */
    }
    MPIR_Assert(!is_leader || up_comm);

    /* a leader alone on its node holds its contribution in recvbuf from the start */
    if (!node_comm && sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* the ring combines in ring order; a non-commutative op keeps rank order by ir + ib */
    int one_inter_step = prm.inter_algo == MPII_HIER_INTER_TSP_ALLREDUCE_RING;
    if (one_inter_step && !MPIR_Op_is_commutative(op)) {
        one_inter_step = 0;
        prm.inter_algo = MPII_HIER_INTER_SCHED_BINOMIAL;
    }
    /* steps from sr(t) to sb(t) */
    const int64_t sb_lag = one_inter_step ? 2 : 3;

#define SEG_COUNT(t_) (MPII_Hier_seg_len(&plan, (t_)) / type_size)
#define SEG_AT(buf_, t_) ((char *) (buf_) + MPII_Hier_seg_offset(&plan, (t_)) / type_size * extent)
    for (int64_t s = 0; s < plan.nsegs + sb_lag; s++) {
        int64_t ia = s - 1, ib = s - 2, ir = s - 1, sb = s - sb_lag, sr = s;
        if (one_inter_step && is_leader && ia >= 0 && ia < plan.nsegs) {
            mpi_errno = MPII_Hier_start_iallreduce(SEG_AT(recvbuf, ia), SEG_COUNT(ia), datatype,
                                                   op, up_comm, &iallreduce_req);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (!one_inter_step && is_leader && ib >= 0 && ib < plan.nsegs) {
            mpi_errno = MPII_Hier_start_ibcast(SEG_AT(recvbuf, ib), SEG_COUNT(ib), datatype, 0,
                                               up_comm, &prm, &ibcast_req);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (!one_inter_step && is_leader && ir >= 0 && ir < plan.nsegs) {
            int up_root = up_comm->rank == 0;
            mpi_errno = MPII_Hier_start_ireduce(up_root ? MPI_IN_PLACE : SEG_AT(recvbuf, ir),
                                                up_root ? SEG_AT(recvbuf, ir) : NULL,
                                                SEG_COUNT(ir), datatype, op, 0, up_comm, &prm,
                                                &ireduce_req);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (node_comm && sb >= 0 && sb < plan.nsegs) {
            mpi_errno = MPII_Hier_intra_bcast(SEG_AT(recvbuf, sb), SEG_COUNT(sb), datatype, 0,
                                              node_comm, prm.intra_algo, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (node_comm && sr < plan.nsegs) {
            const void *contribution = sendbuf == MPI_IN_PLACE ? SEG_AT(recvbuf, sr) :
                SEG_AT(sendbuf, sr);
            if (is_leader && sendbuf == MPI_IN_PLACE)
                contribution = MPI_IN_PLACE;
            mpi_errno = MPII_Hier_intra_reduce(contribution, is_leader ? SEG_AT(recvbuf, sr) :
                                               NULL, SEG_COUNT(sr), datatype, op, 0, node_comm,
                                               prm.intra_algo, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        mpi_errno = MPII_Hier_wait(&ibcast_req, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        mpi_errno = MPII_Hier_wait(&ireduce_req, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        mpi_errno = MPII_Hier_wait(&iallreduce_req, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
#undef SEG_COUNT
#undef SEG_AT

  fn_exit:
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
