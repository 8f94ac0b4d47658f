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
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier bcast: bytes of the packed
        message, so that ranks with different but matching datatypes cut it alike (a
        segment may end inside an element). 0 sends the whole message as one segment.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
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
        by_size        - by the message (hier_by_size.h): sched_binomial for a message of one
                         piece, tsp_ring for one the step pipelines
        seg_split_binary - segmented split-binary tree (halves, then exchange)

    - name        : MPIR_CVAR_BCAST_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node bcast of the hier bcast.

    - name        : MPIR_CVAR_BCAST_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node bcast of one hier
        segment. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_BCAST_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node bcast of the hier bcast
        auto     - MPIR_Bcast_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Bcast_intra_binomial
        shm      - the device's shared-memory bcast (CH4 POSIX release_gather),
                   binomial where the device cannot
        by_size  - shm for a message that fits one release_gather cell, auto otherwise

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
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
        by_size        - by the message (hier_by_size.h): sched_binomial for a message of one
                         piece, tsp_ring for one the step pipelines
        seg_split_binary - segmented split-binary tree (halves, then exchange)

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier bcast among switch groups.

    - name        : MPIR_CVAR_BCAST_HIER_UP_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier bcast among switch
        groups. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_BCAST_HIER_DOWN_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
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
        by_size        - by the message (hier_by_size.h): sched_binomial for a message of one
                         piece, tsp_ring for one the step pipelines
        seg_split_binary - segmented split-binary tree (halves, then exchange)

    - name        : MPIR_CVAR_BCAST_HIER_DOWN_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
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
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier bcast among package, NUMA
        or L3 leaders. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* the payload and its plan, and the call's parameters */
typedef struct {
    char *bytes;
    const MPII_Hier_seg_plan *plan;
    const MPII_Hier_params *prm;
} bcast_pipeline;

/* segment t down step st: among leaders, or inside a finest group (an inter-node step
 * when that group spans nodes) */
static int bcast_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                      int64_t t, MPII_Hier_task_out * out)
{
    const bcast_pipeline *p = ctx;
    MPII_Hier_params scratch;

    return MPII_Hier_step_bcast(p->bytes + MPII_Hier_seg_offset(p->plan, t),
                                MPII_Hier_seg_len(p->plan, t), MPIR_BYTE_INTERNAL, st,
                                MPII_Hier_step_params(p->prm, st, st->comm->local_size,
                                                      MPII_HIER_SIZED_BCAST, p->plan,
                                                      &scratch),
                                task->blocking && !st->inter, out);
}

/* Algorithm: the hier bcast as one schedule (MPI_Ibcast, MPI_Bcast_init)
 *
 * The same steps, segments and tasks as MPIR_Bcast_intra_hier, with the hier bcast's
 * parameters (its CVARs, MPIR_CVAR_BCAST_HIER_*; the call's under
 * MPIR_CVAR_HIER_SCHEDULE_BLOCKING): each task of each segment is a vertex
 * (MPII_Hier_pipeline_sched) after the same task's previous segment and after the step
 * that brought this rank the segment.  A derived datatype is packed at the root and
 * unpacked elsewhere by vertices before and after them.  Differences, as a schedule has
 * no blocking step: the intra-node submodule shm runs binomial (the device's
 * release_gather has no schedule); on one node, and while the plugin's sub-communicators
 * are created or its schedule is being built (MPICH's pick for one of its steps came
 * back here), a binomial tree on comm.
 */
static int bcast_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    void *buffer = a->buf;
    MPI_Aint count = a->count;
    MPI_Datatype datatype = a->datatype;
    int root = a->root;
    MPIR_Comm *comm_ptr = a->comm;
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    char *bytes;
    MPI_Aint nbytes;
    int n_first = 0, first, vtx, packed = 0;

    MPIR_FUNC_ENTER;

    /* nothing to move: no byte (a count of 0, or of a type of size 0: the signature is
     * empty on every rank, whatever their counts say) */
    if (comm_ptr->local_size == 1 || !MPII_Hier_payload_bytes(count, datatype))
        goto fn_exit;
    mpi_errno = MPII_Hier_sched_begin(a, &cvars, &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier || MPII_Hier_one_node(hier)) {
        if (hier)
            MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1); /* the whole payload, in one step */
        mpi_errno = MPIR_TSP_Ibcast_sched_intra_tree(buffer, count, datatype, root, comm_ptr,
                                                     MPIR_TREE_TYPE_KNOMIAL_1, 2, 0, sched);
        goto fn_exit;
    }

    /* the payload as bytes: the buffer itself, or packed (vertices before and after) */
    if (!MPII_Hier_payload_contig(buffer, count, datatype, &bytes, &nbytes)) {
        packed = 1;
        bytes = MPIR_TSP_sched_malloc(nbytes, sched);
        MPIR_ERR_CHKANDJUMP(!bytes, mpi_errno, MPI_ERR_OTHER, "**nomem");
        if (comm_ptr->rank == root) {
            mpi_errno = MPIR_TSP_sched_localcopy(buffer, count, datatype, bytes, nbytes,
                                                 MPIR_BYTE_INTERNAL, sched, 0, NULL, &first);
            MPIR_ERR_CHECK(mpi_errno);
            n_first = 1;
        }
    }

    int nlevels = MPII_Hier_nlevels(hier);
    if (nlevels == 0 && prm.inter_chunk == 0)
        prm.inter_chunk = prm.segsize;  /* one rank per node: pipelined inside the step */
    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, root, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    MPII_Hier_seg_plan_init(&plan, nbytes, nlevels == 0 ? 0 : prm.segsize, 1);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_bcast(steps.nsteps, tasks);
    bcast_pipeline pipeline = { bytes, &plan, &prm };
    mpi_errno = MPII_Hier_pipeline_sched(&steps, tasks, ntasks, plan.nsegs, bcast_task,
                                         &pipeline, n_first, &first, sched);
    MPIR_ERR_CHECK(mpi_errno);

    if (packed && comm_ptr->rank != root) {
        int sink;
        mpi_errno = MPIR_TSP_sched_sink(sched, &sink);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_TSP_sched_localcopy(bytes, nbytes, MPIR_BYTE_INTERNAL, buffer, count,
                                             datatype, sched, 1, &sink, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: HAN pipelined hierarchical bcast over N levels (HAN paper, section III-A;
 * the N-level generalisation in doc/multilevel.md)
 *
 * The payload is cut into u segments.  The hierarchy's N levels (switch groups, nodes,
 * packages, ...) give N + 1 steps (hier_hierarchy.h): step k < N a bcast among the
 * leaders of the level-k groups inside one level-(k-1) group, step N inside a finest
 * group; a root at position j of its group makes every group's member j mod size its
 * leader, so the root leads every group it is in.  Segment t takes step k in slot t + k
 * (MPII_Hier_pipeline_bcast, hier_pipeline.h): in slot s a rank starts, non-blocking,
 * the steps k < N it leads in for segment s - k, runs the finest step (blocking) for
 * segment s - N, and waits for the former (MPII_Hier_pipeline_run; bcast_task is one
 * step of one segment).  With nodes only (N = 1) this is HAN's ib(0); sbib(1) ..
 * sbib(u-1); sb(u-1) on the leaders and sb(0) .. sb(u-1) elsewhere.  The non-blocking steps take the inter-node submodule
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
    int payload_started = 0;

    MPIR_FUNC_ENTER;

    /* nothing to move: no byte (a count of 0, or of a type of size 0: the signature is
     * empty on every rank, whatever their counts say) */
    if (comm_ptr->local_size == 1 || !MPII_Hier_payload_bytes(count, datatype)) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        goto fn_exit;
    }
    if (MPII_Hier_blocking_scheduled(&given, &cvars, MPII_Hier_payload_bytes(count, datatype),
                                     MPII_HIER_SCHED_FROM_BCAST)) {
        const MPII_Hier_call call = { .buf = buffer, .count = count, .datatype = datatype,
                .root = root, .comm = comm_ptr, .given = &given,
                .calls_pvar = MPII_HIER_PVAR_CALLS(bcast, hier) };
        mpi_errno = MPII_Hier_sched_wait(bcast_sched, &call);
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

    if (MPII_Hier_one_node(hier)) {
        /* one node: the intra module on comm itself.  A tree that picks hier for this
         * comm again lands here re-entered: stop that loop with binomial.  Never the
         * device shm path here: the device's own release_gather set-up on a node comm
         * broadcasts on that comm (MPIR_Bcast_impl), and a forced hier would enter
         * release_gather again on the half-initialised comm. */
        if (hier->reentered)
            prm.intra_algo = MPII_HIER_INTRA_BINOMIAL;
        else if (prm.intra_algo == MPII_HIER_INTRA_SHM ||
                 prm.intra_algo == MPII_HIER_INTRA_BY_SIZE)
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
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_bcast(steps.nsteps, tasks);
    bcast_pipeline pipeline = { payload.bytes, &plan, &prm };
    mpi_errno = MPII_Hier_pipeline_run(&steps, tasks, ntasks, plan.nsegs, bcast_task, &pipeline,
                                       coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

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

int MPIR_TSP_Ibcast_sched_intra_hier(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                     int root, MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .buf = buffer, .count = count, .datatype = datatype,
            .root = root, .comm = comm_ptr, .given = &cvars,
            .calls_pvar = MPII_HIER_PVAR_CALLS(ibcast, tsp_hier) };
    return bcast_sched(&call, sched);
}
