/*
 * mpich-hier: HAN pipelined hierarchical reduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL REDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_REDUCE_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 16384
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier reduce (rounded down to whole
        datatype elements, at least one). 0 reduces the whole message as one segment.

    - name        : MPIR_CVAR_REDUCE_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking inter-node reduce of the hier reduce, run on the node leaders.
        Non-commutative ops use sched_binomial, or seg_in_order_binary for the seg_*
        items (rank order). The seg_* trees cut each hier segment into
        MPIR_CVAR_REDUCE_HIER_INTER_CHUNK_SIZE pieces (0: one).
        auto           - MPIR_Ireduce (MPICH's own selection)
        sched_binomial - MPIR_Ireduce_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        seg_in_order_binary - segmented in-order binary tree (rank order)

    - name        : MPIR_CVAR_REDUCE_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node reduce of the hier reduce.

    - name        : MPIR_CVAR_REDUCE_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node reduce of one hier
        reduce segment. 0 does not split a segment further.

    - name        : MPIR_CVAR_REDUCE_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node reduce of the hier reduce
        auto     - MPIR_Reduce_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Reduce_intra_binomial
        shm      - the device's shared-memory reduce (CH4 POSIX
                   release_gather), MPIR where the device cannot (e.g. non-commutative ops)

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: HAN pipelined hierarchical reduce, any root (HAN paper, section III-B)
 *
 * The message is cut into u segments of whole elements.  For a root at local rank j,
 * the leader of each node is its member j mod ppn (the root leads its own node, so a
 * root that is not local rank 0 costs no extra hop).  sr(t) reduces segment t onto the
 * node's leader, ir(t) reduces the leaders' results onto the root.  Leaders run
 *     sr(0); irsr(1) .. irsr(u-1); ir(u-1)
 * where irsr(t) starts the non-blocking inter-node reduce of segment t-1, runs the
 * blocking intra-node reduce of segment t and waits for the former.  Other ranks run
 * sr(0) .. sr(u-1).
 *
 * With one rank per node the inter-node reduce runs once on the whole message,
 * pipelined inside by its chunks (the segment size when no chunk is set): there is no
 * intra-node step to overlap.
 *
 * Non-commutative ops combine in rank order: binomial trees when every node is one
 * block of consecutive ranks; otherwise the flat binomial reduce runs instead.
 */
int MPIR_Reduce_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
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
    MPIR_Request *ireduce_req = NULL;
    MPI_Aint type_size, extent, true_lb, true_extent;
    void *partial_alloc = NULL;
    MPIR_CHKLMEM_DECL(1);
    char *partial;              /* where this leader's node result is formed */
    int is_root = comm_ptr->rank == root;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    if (count == 0 || type_size == 0 || comm_ptr->local_size == 1) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        if (!mpi_errno && count > 0 && type_size > 0 && sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_INTER_COUNT, MPII_HIER_PVAR_CALLS(reduce, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, op)) {
        /* one node (also the re-entry of a tree that picks hier for the node comm), our
         * own comm creation, or an order no hierarchy keeps: flat and rank-ordered */
        mpi_errno = MPIR_Reduce_intra_binomial(sendbuf, recvbuf, count, datatype, op, root,
                                               comm_ptr, errflag);
        goto fn_exit;
    }
    const MPII_Hier_levels *lv = &hier->levels;

    int multilevel = MPII_Hier_levels_is_multilevel(lv);
    if (!multilevel && prm.inter_chunk == 0)
        prm.inter_chunk = prm.segsize;
    MPII_Hier_seg_plan_init(&plan, count * type_size, multilevel ? prm.segsize : 0, type_size);
    MPII_HIER_PVAR_ADD(REDUCE_HIER_SEGMENTS, plan.nsegs);

    int column = lv->local_of[root];
    int intra_root = MPII_Hier_levels_column_local(lv, hier->my_node, column);
    int is_leader = intra_root == hier->my_local;
    int up_root = lv->node_of[root];
    node_comm = multilevel ? hier->node_comm : NULL;
    if (multilevel) {
        mpi_errno = MPII_Hier_column_comm(comm_ptr, hier, column, &up_comm);
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        up_comm = comm_ptr;     /* one rank per node: nodes are ranks */
        up_root = root;
    }
    MPIR_Assert(!is_leader || up_comm);

    /* the root forms its node's result in recvbuf; a leader alone on its node already
     * has it in its send buffer; other leaders need room for it */
    partial = NULL;
    if (is_root) {
        partial = recvbuf;
        if (!node_comm && sendbuf != MPI_IN_PLACE) {
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
            MPIR_ERR_CHECK(mpi_errno);
        }
    } else if (is_leader && !node_comm) {
        partial = (char *) sendbuf;
    } else if (is_leader) {
        MPIR_Type_get_true_extent_impl(datatype, &true_lb, &true_extent);
        MPIR_CHKLMEM_MALLOC(partial_alloc, void *, count * MPL_MAX(extent, true_extent), mpi_errno,
                            "hier reduce partial result", MPL_MEM_COLL);
        partial = (char *) partial_alloc - true_lb;
    }

#define SEG_COUNT(t_) (MPII_Hier_seg_len(&plan, (t_)) / type_size)
#define SEG_AT(buf_, t_) ((char *) (buf_) + MPII_Hier_seg_offset(&plan, (t_)) / type_size * extent)
    for (int64_t s = 0; s < plan.nsegs + 1; s++) {
        int64_t ir = s - 1, sr = s;
        if (is_leader && ir >= 0) {
            mpi_errno = MPII_Hier_start_ireduce(is_root ? MPI_IN_PLACE : SEG_AT(partial, ir),
                                                is_root ? SEG_AT(recvbuf, ir) : NULL,
                                                SEG_COUNT(ir), datatype, op, up_root, up_comm,
                                                &prm, &ireduce_req);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (node_comm && sr < plan.nsegs) {
            const void *contribution = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE :
                SEG_AT(sendbuf, sr);
            mpi_errno = MPII_Hier_intra_reduce(contribution, is_leader ? SEG_AT(partial, sr) :
                                               NULL, SEG_COUNT(sr), datatype, op, intra_root,
                                               node_comm, prm.intra_algo, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        mpi_errno = MPII_Hier_wait(&ireduce_req, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
#undef SEG_COUNT
#undef SEG_AT

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
