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

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier bcast among the leaders of switch groups (the levels
        above the node, doc/multilevel.md), as MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM:
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

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier bcast among switch groups.

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier bcast among switch
        groups. 0 does not split a segment further.

    - name        : MPIR_CVAR_BCAST_HIER_DOWN_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier bcast among the leaders of packages, NUMA nodes
        or L3 caches inside a node (the levels below the node but the finest,
        doc/multilevel.md), as MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM:
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

    - name        : MPIR_CVAR_BCAST_HIER_DOWN_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier bcast among package, NUMA or L3
        leaders.

    - name        : MPIR_CVAR_BCAST_HIER_DOWN_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier bcast among package, NUMA
        or L3 leaders. 0 does not split a segment further.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: HAN pipelined hierarchical bcast over N levels (HAN paper, section III-A;
 * the N-level generalisation in doc/multilevel.md)
 *
 * The payload is cut into u segments.  The hierarchy's N levels (switch groups, nodes,
 * packages, ...) give N + 1 steps (hier_hierarchy.h): step k < N a bcast among the
 * leaders of the level-k groups inside one level-(k-1) group, step N inside a finest
 * group; a root at position j of its group makes every group's member j mod size its
 * leader, so the root leads every group it is in.  Segment t takes step k in slot t + k.
 * In slot s a rank starts, non-blocking, the steps k < N it leads in for segment s - k,
 * runs the finest step (blocking) for segment s - N, and waits for the former.  With
 * nodes only (N = 1) this is HAN's ib(0); sbib(1) .. sbib(u-1); sb(u-1) on the leaders
 * and sb(0) .. sb(u-1) elsewhere.  The non-blocking steps take the inter-node submodule
 * (up_inter_* among switch groups, down_inter_* among package, NUMA or L3 leaders
 * inside a node); the finest step the intra-node one, or the
 * inter-node one (started and waited for) when its group spans nodes (a switch group of
 * single-rank nodes).
 *
 * Single-level communicators run one step of one level, the whole payload at once: the
 * intra-node step when there is one node and nothing splits it, the inter-node step when
 * every node has one rank and nothing groups the nodes (pipelined inside by its chunks,
 * the segment size when no chunk is set).  With nothing to overlap, segments run one
 * after another would only add latency.
 */
int MPIR_Bcast_intra_hier(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                          MPIR_Comm * comm_ptr, int segsize, int inter_algo, int inter_k,
                          int inter_chunk, int intra_algo, int up_inter_algo, int up_inter_k,
                          int up_inter_chunk, int down_inter_algo, int down_inter_k,
                          int down_inter_chunk, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_payload payload = { 0 };
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_params up_prm;
    MPIR_Request *req[MPII_HIER_MAX_STEPS] = { NULL };
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
        mpi_errno = MPIR_Bcast_intra_binomial(buffer, count, datatype, root, comm_ptr, coll_attr);
        goto fn_exit;
    }

    mpi_errno = MPII_Hier_payload_start(&payload, buffer, count, datatype,
                                        comm_ptr->rank == root);
    MPIR_ERR_CHECK(mpi_errno);
    payload_started = 1;
    int nlevels = MPII_Hier_nlevels(hier);

    if (nlevels == 0 && hier->levels.nnodes == 1) {
        /* one node: the intra module on comm itself.  A tree that picks hier for this
         * comm again lands here re-entered: stop that loop with binomial.  Never the
         * device shm path here: the device's own release_gather set-up on a node comm
         * broadcasts on that comm (MPIR_Bcast_impl), and a forced hier would enter
         * release_gather again on the half-initialised comm. */
        if (hier->reentered)
            prm.intra_algo = MPII_HIER_INTRA_BINOMIAL;
        else if (prm.intra_algo == MPII_HIER_INTRA_SHM)
            prm.intra_algo = MPII_HIER_INTRA_AUTO;
        MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1);     /* the whole payload */
        hier->reentered++;
        mpi_errno = MPII_Hier_intra_bcast(payload.bytes, payload.nbytes, MPIR_BYTE_INTERNAL,
                                          root, comm_ptr, prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        hier->reentered--;
        goto fn_exit;
    }
    if (nlevels == 0 && prm.inter_chunk == 0)
        prm.inter_chunk = prm.segsize;  /* one rank per node: pipelined inside the step */

    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, root, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    MPII_Hier_seg_plan_init(&plan, payload.nbytes, nlevels == 0 ? 0 : prm.segsize, 1);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, plan.nsegs);
    int first = MPII_Hier_steps_first(&steps), finest = steps.nsteps - 1;
    const MPII_Hier_step *fs = &steps.step[finest];

#define SEG_AT(t_) (payload.bytes + MPII_Hier_seg_offset(&plan, (t_)))
#define SEG_LEN(t_) MPII_Hier_seg_len(&plan, (t_))
    for (int64_t s = 0; s < plan.nsegs + finest; s++) {
        /* the steps this rank leads in, segment s - k, overlapped with the finest below */
        for (int k = first; k < finest; k++) {
            int64_t t = s - k;
            if (steps.step[k].comm && t >= 0 && t < plan.nsegs) {
                mpi_errno = MPII_Hier_start_ibcast(SEG_AT(t), SEG_LEN(t), MPIR_BYTE_INTERNAL,
                                                   steps.step[k].root, steps.step[k].comm,
                                                   MPII_Hier_step_params(&prm, &steps.step[k],
                                                                         &up_prm), &req[k]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
        }
        /* the finest step, segment s - N */
        int64_t t = s - finest;
        if (fs->comm && t >= 0 && t < plan.nsegs) {
            if (fs->inter) {
                mpi_errno = MPII_Hier_start_ibcast(SEG_AT(t), SEG_LEN(t), MPIR_BYTE_INTERNAL,
                                                   fs->root, fs->comm,
                                                   MPII_Hier_step_params(&prm, fs, &up_prm),
                                                   &req[finest]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            } else {
                mpi_errno = MPII_Hier_intra_bcast(SEG_AT(t), SEG_LEN(t), MPIR_BYTE_INTERNAL,
                                                  fs->root, fs->comm, prm.intra_algo,
                                                  coll_attr | errflag);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
        }
        for (int k = first; k <= finest; k++) {
            mpi_errno = MPII_Hier_wait(&req[k]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    }
#undef SEG_AT
#undef SEG_LEN

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
