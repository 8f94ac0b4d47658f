/*
 * mpich-hier: HAN pipelined hierarchical broadcast.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL BCAST        /* MPII_HIER_PARAMS_OF_CVARS */

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_BCAST_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 16384
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier bcast: bytes of the packed
        message, so that ranks with different but matching datatypes cut it alike (a
        segment may end inside an element). 0 sends the whole message as one segment.

    - name        : MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking inter-node bcast of the hier bcast, run on the node leaders.
        The seg_* trees (mpich-hier transport schedules) cut each hier segment into
        MPIR_CVAR_BCAST_HIER_INTER_CHUNK_SIZE pieces (0: one).
        auto           - MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ibcast_intra_sched_binomial
        tsp_kary       - MPIR_TSP_Ibcast_sched_intra_tree, k-ary tree
        tsp_knomial    - MPIR_TSP_Ibcast_sched_intra_tree, k-nomial tree
        tsp_ring       - MPIR_TSP_Ibcast_sched_intra_tree, chain
        seg_linear     - segmented linear tree (root sends to every leader)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        seg_split_binary - segmented split-binary tree (halves, then exchange)

    - name        : MPIR_CVAR_BCAST_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node bcast of the hier bcast.

    - name        : MPIR_CVAR_BCAST_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node bcast of one hier
        segment. 0 does not split a segment further.

    - name        : MPIR_CVAR_BCAST_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node bcast of the hier bcast
        auto     - MPIR_Bcast_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Bcast_intra_binomial
        shm      - the device's shared-memory bcast (CH4 POSIX release_gather),
                   binomial where the device cannot

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: HAN pipelined hierarchical bcast (HAN paper, section III-A)
 *
 * The payload is cut into u segments.  The leader of each node (for a root at local
 * rank j, the node's member j mod ppn: the root leads its own node) runs
 *     ib(0); sbib(1) .. sbib(u-1); sb(u-1)
 * where sbib(t) starts the non-blocking inter-node bcast of segment t among the
 * leaders, runs the blocking intra-node bcast of segment t-1, and waits for the
 * former.  Other ranks run sb(0) .. sb(u-1).
 *
 * Single-level communicators run one step of one level, the whole payload at once: the
 * intra-node step when there is one node, the inter-node step when every node has one
 * rank (pipelined inside by its chunks, the segment size when no chunk is set).  With
 * nothing to overlap, segments run one after another would only add latency.
 */
int MPIR_Bcast_intra_hier(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                          MPIR_Comm * comm_ptr, int segsize, int inter_algo, int inter_k,
                          int inter_chunk, int intra_algo, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_payload payload = { 0 };
    MPII_Hier_seg_plan plan;
    MPIR_Comm *up_comm = NULL;
    MPIR_Request *req = NULL;
    int payload_started = 0;

    MPIR_FUNC_ENTER;

    if (comm_ptr->local_size == 1 || count == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_INTER_COUNT, MPII_HIER_PVAR_CALLS(bcast, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Bcast_intra_binomial(buffer, count, datatype, root, comm_ptr, errflag);
        goto fn_exit;
    }

    mpi_errno = MPII_Hier_payload_start(&payload, buffer, count, datatype,
                                        comm_ptr->rank == root);
    MPIR_ERR_CHECK(mpi_errno);
    payload_started = 1;
    const MPII_Hier_levels *lv = &hier->levels;
    int one_level = !MPII_Hier_levels_is_multilevel(lv);
    if (one_level && lv->nnodes > 1 && prm.inter_chunk == 0)
        prm.inter_chunk = prm.segsize;
    MPII_Hier_seg_plan_init(&plan, payload.nbytes, one_level ? 0 : prm.segsize, 1);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, plan.nsegs);

    int root_node = lv->node_of[root];
    int column = lv->local_of[root];
    int intra_root = MPII_Hier_levels_column_local(lv, hier->my_node, column);
    int is_leader = intra_root == hier->my_local;
    MPIR_Comm *node_comm = hier->node_comm;

    if (lv->nnodes == 1) {
        /* one node: the intra module on comm itself.  A tree that picks hier for this
         * comm again lands here re-entered: stop that loop with binomial.  Never the
         * device shm path here: the device's own release_gather set-up on a node comm
         * broadcasts on that comm (MPIR_Bcast_impl), and a forced hier would enter
         * release_gather again on the half-initialised comm. */
        if (hier->reentered)
            prm.intra_algo = MPII_HIER_INTRA_BINOMIAL;
        else if (prm.intra_algo == MPII_HIER_INTRA_SHM)
            prm.intra_algo = MPII_HIER_INTRA_AUTO;
        hier->reentered++;
        mpi_errno = MPII_Hier_intra_bcast(payload.bytes, payload.nbytes, MPI_BYTE, root,
                                          comm_ptr, prm.intra_algo, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        hier->reentered--;
        goto fn_exit;
    } else if (one_level) {
        node_comm = NULL;       /* one rank per node: the inter level only */
    }

    if (lv->nnodes > 1) {
        if (MPII_Hier_levels_is_multilevel(lv)) {
            mpi_errno = MPII_Hier_column_comm(comm_ptr, hier, column, &up_comm);
            MPIR_ERR_CHECK(mpi_errno);
        } else {
            up_comm = comm_ptr;
            root_node = root;   /* nodes are ranks here */
        }
        MPIR_Assert(!is_leader || up_comm);
    }

    for (int64_t t = 0; t <= plan.nsegs; t++) {
        /* ib(t) on the leaders, overlapped with sb(t-1) below */
        if (is_leader && t < plan.nsegs) {
            mpi_errno = MPII_Hier_start_ibcast(payload.bytes + MPII_Hier_seg_offset(&plan, t),
                                               MPII_Hier_seg_len(&plan, t), MPI_BYTE, root_node,
                                               up_comm, &prm, &req);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        /* sb(t-1) */
        if (node_comm && t > 0) {
            mpi_errno = MPII_Hier_intra_bcast(payload.bytes + MPII_Hier_seg_offset(&plan, t - 1),
                                              MPII_Hier_seg_len(&plan, t - 1), MPI_BYTE,
                                              intra_root, node_comm, prm.intra_algo, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        mpi_errno = MPII_Hier_wait(&req, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

  fn_exit:
    if (payload_started) {
        int finish_errno = MPII_Hier_payload_finish(&payload, buffer, count, datatype,
                                                    comm_ptr->rank != root);
        if (!mpi_errno)
            mpi_errno = finish_errno;
    }
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
