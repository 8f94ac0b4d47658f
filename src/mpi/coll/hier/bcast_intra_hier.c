/*
 * mpich-hier: HAN pipelined hierarchical broadcast.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL BCAST        /* MPII_HIER_PARAMS_OF_CVARS */

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
    if (a->comm->local_size == 1 || !MPII_Hier_payload_bytes(a->count, a->datatype))
        goto fn_exit;
    mpi_errno = MPII_Hier_sched_begin(a, &cvars, &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier || MPII_Hier_one_node(hier)) {
        if (hier)
            MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1); /* the whole payload, in one step */
        mpi_errno = MPIR_TSP_Ibcast_sched_intra_tree(a->buf, a->count, a->datatype, a->root,
                                                     a->comm, MPIR_TREE_TYPE_KNOMIAL_1, 2, 0,
                                                     sched);
        goto fn_exit;
    }

    /* the payload as bytes: the buffer itself, or packed (vertices before and after) */
    if (!MPII_Hier_payload_contig(a->buf, a->count, a->datatype, &bytes, &nbytes)) {
        packed = 1;
        bytes = MPIR_TSP_sched_malloc(nbytes, sched);
        MPIR_ERR_CHKANDJUMP(!bytes, mpi_errno, MPI_ERR_OTHER, "**nomem");
        if (a->comm->rank == a->root) {
            mpi_errno = MPIR_TSP_sched_localcopy(a->buf, a->count, a->datatype, bytes, nbytes,
                                                 MPIR_BYTE_INTERNAL, sched, 0, NULL, &first);
            MPIR_ERR_CHECK(mpi_errno);
            n_first = 1;
        }
    }

    int nlevels = MPII_Hier_nlevels(hier);
    if (nlevels == 0 && prm.inter_chunk == 0)
        prm.inter_chunk = prm.segsize;  /* one rank per node: pipelined inside the step */
    mpi_errno = MPII_Hier_steps_get(a->comm, hier, a->root, &steps);
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

    if (packed && a->comm->rank != a->root) {
        int sink;
        mpi_errno = MPIR_TSP_sched_sink(sched, &sink);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_TSP_sched_localcopy(bytes, nbytes, MPIR_BYTE_INTERNAL, a->buf, a->count,
                                             a->datatype, sched, 1, &sink, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* One node that nothing splits: the intra-node submodule on comm itself, never the
 * device's shm path there: the device's own release_gather set-up on a node comm
 * broadcasts on that comm (MPIR_Bcast_impl), and a forced hier would enter release_gather
 * again on the half-initialised comm. */
static int bcast_one_node(MPII_Hier_comm * hier, const MPII_Hier_payload * payload, int root,
                          MPIR_Comm * comm, int intra_algo, int coll_attr)
{
    int mpi_errno;

    if (intra_algo == MPII_HIER_INTRA_SHM || intra_algo == MPII_HIER_INTRA_BY_SIZE)
        intra_algo = MPII_HIER_INTRA_AUTO;
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1); /* the whole payload */
    mpi_errno = MPII_Hier_intra_bcast(payload->bytes, payload->nbytes, MPIR_BYTE_INTERNAL, root,
                                      comm, MPII_Hier_one_node_enter(hier, intra_algo),
                                      coll_attr);
    MPII_Hier_one_node_leave(hier);
    return mpi_errno;
}

/* The pipeline of the bcast's tasks over the steps of the hierarchy */
static int bcast_steps(MPII_Hier_comm * hier, const MPII_Hier_payload * payload, int root,
                       MPIR_Comm * comm, MPII_Hier_params * prm, int coll_attr, int *errflag)
{
    int mpi_errno, nlevels = MPII_Hier_nlevels(hier);
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];

    if (nlevels == 0 && prm->inter_chunk == 0)
        prm->inter_chunk = prm->segsize;        /* one rank per node: pipelined inside the step */
    mpi_errno = MPII_Hier_steps_get(comm, hier, root, &steps);
    if (mpi_errno)
        return mpi_errno;
    MPII_Hier_seg_plan_init(&plan, payload->nbytes, nlevels == 0 ? 0 : prm->segsize, 1);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    int ntasks = MPII_Hier_pipeline_bcast(steps.nsteps, tasks);
    bcast_pipeline pipeline = { payload->bytes, &plan, prm };
    return MPII_Hier_pipeline_run(&steps, tasks, ntasks, plan.nsegs, bcast_task, &pipeline,
                                  coll_attr, errflag);
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
    const MPII_Hier_call call = { .buf = buffer, .count = count, .datatype = datatype,
        .root = root, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(bcast, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, bcast_sched,
        MPII_HIER_SCHED_FROM_BCAST, 1, 0 };
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_run run;
    MPII_Hier_payload payload = { 0 };
    int payload_started = 0;

    MPIR_FUNC_ENTER;

    /* nothing to move: no byte (a count of 0, or of a type of size 0: the signature is
     * empty on every rank, whatever their counts say) */
    mpi_errno = MPII_Hier_enter(&call, &coll, MPII_Hier_payload_bytes(count, datatype), &prm,
                                &hier, &run);
    MPIR_ERR_CHECK(mpi_errno);
    if (run == MPII_HIER_RUN_FLAT)
        mpi_errno = MPIR_Bcast_intra_binomial(buffer, count, datatype, root, comm_ptr, coll_attr);
    if (run != MPII_HIER_RUN_ONE_NODE && run != MPII_HIER_RUN_STEPS)
        goto fn_exit;

    mpi_errno = MPII_Hier_payload_start(&payload, buffer, count, datatype,
                                        comm_ptr->rank == root);
    MPIR_ERR_CHECK(mpi_errno);
    payload_started = 1;
    if (run == MPII_HIER_RUN_ONE_NODE)
        mpi_errno = bcast_one_node(hier, &payload, root, comm_ptr, prm.intra_algo, coll_attr);
    else
        mpi_errno = bcast_steps(hier, &payload, root, comm_ptr, &prm, coll_attr, &errflag);
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
