/*
 * mpich-hier: HAN pipelined hierarchical broadcast.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL BCAST        /* MPII_HIER_PARAMS_OF_CVARS */

/* segment t down step st: among leaders, or inside a finest group (an inter-node step
 * when that group spans nodes) */
static int bcast_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                      int64_t t, MPII_Hier_task_out * out)
{
    const MPII_Hier_prepared *p = ctx;
    MPII_Hier_params scratch;

    return MPII_Hier_step_bcast(p->buf + MPII_Hier_seg_offset(&p->plan, t),
                                MPII_Hier_seg_len(&p->plan, t), MPIR_BYTE_INTERNAL, st,
                                MPII_Hier_step_params(p->prm, st, st->comm->local_size,
                                                      MPII_HIER_SIZED_BCAST, &p->plan,
                                                      &scratch),
                                task->blocking && !st->inter, out);
}

/* The hier bcast of call a on hier's steps, with prm, prepared for either form: the
 * payload as bytes, the buffer itself or the call's temporary (packed at the root before
 * the first task, unpacked elsewhere after the last).  One rank per node: the inter-node
 * step pipelined inside by its chunks. */
static int bcast_prepare(const MPII_Hier_call * a, MPII_Hier_comm * hier, MPII_Hier_params * prm,
                         MPII_Hier_prepared * prep)
{
    MPI_Aint nbytes;
    int nlevels = MPII_Hier_nlevels(hier);
    int root = a->comm->rank == a->root;

    if (nlevels == 0 && prm->inter_chunk == 0)
        prm->inter_chunk = prm->segsize;
    int mpi_errno = MPII_Hier_prepare_begin(a, hier, a->root, prm, bcast_task, prep);
    if (mpi_errno)
        return mpi_errno;
    if (!MPII_Hier_payload_contig(a->buf, a->count, a->datatype, &prep->buf, &nbytes)) {
        MPII_Hier_copy packing = { a->buf, NULL, a->count, nbytes, a->datatype,
            MPIR_BYTE_INTERNAL
        }, unpacking = { NULL, a->buf, nbytes, a->count, MPIR_BYTE_INTERNAL, a->datatype };
        prep->temp_bytes = nbytes;
        *(root ? &prep->in : &prep->out) = root ? packing : unpacking;
    }
    MPII_Hier_seg_plan_init(&prep->plan, nbytes, nlevels == 0 ? 0 : prm->segsize, 1);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, prep->plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, prep->plan.raised);
    prep->ntasks = MPII_Hier_pipeline_bcast(prep->steps.nsteps, prep->tasks);
    return MPI_SUCCESS;
}

static int bcast_flat(const MPII_Hier_call * a, int coll_attr)
{
    return MPIR_Bcast_intra_binomial(a->buf, a->count, a->datatype, a->root, a->comm, coll_attr);
}

/* one node, or while the plugin's comms are created: a binomial tree on comm */
static int bcast_flat_sched(const MPII_Hier_call * a, const MPII_Hier_comm * hier,
                            MPIR_TSP_sched_t sched)
{
    if (hier)
        MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1);     /* the whole payload, in one step */
    return MPIR_TSP_Ibcast_sched_intra_tree(a->buf, a->count, a->datatype, a->root, a->comm,
                                            MPIR_TREE_TYPE_KNOMIAL_1, 2, 0, sched);
}

/* One node that nothing splits: the intra-node submodule on comm itself, never the
 * device's shm path there (MPII_Hier_intra_off_device). */
static int bcast_one_node(MPII_Hier_comm * hier, const MPII_Hier_call * a, int intra_algo,
                          int coll_attr)
{
    MPII_Hier_payload payload;
    int root = a->comm->rank == a->root;

    intra_algo = MPII_Hier_intra_off_device(intra_algo);
    MPII_HIER_PVAR_ADD(BCAST_HIER_SEGMENTS, 1); /* the whole payload */
    int mpi_errno = MPII_Hier_payload_start(&payload, a->buf, a->count, a->datatype, root);
    if (mpi_errno)
        return mpi_errno;
    mpi_errno = MPII_Hier_intra_bcast(payload.bytes, payload.nbytes, MPIR_BYTE_INTERNAL, a->root,
                                      a->comm, intra_algo, coll_attr);
    int finish_errno = MPII_Hier_payload_finish(&payload, a->buf, a->count, a->datatype, !root);
    return mpi_errno ? mpi_errno : finish_errno;
}

static const MPII_Hier_pipelined bcast_ops = { bcast_prepare, bcast_flat, bcast_one_node,
    bcast_flat_sched, NULL
};

/* Algorithm: the hier bcast as one schedule (MPI_Ibcast, MPI_Bcast_init)
 *
 * The same steps, segments and tasks as MPIR_Bcast_intra_hier, with the hier bcast's
 * parameters (its CVARs, MPIR_CVAR_BCAST_HIER_*; the call's under
 * MPIR_CVAR_HIER_SCHEDULE_BLOCKING): each task of each segment is a vertex
 * (MPII_Hier_prepared_sched) after the same task's previous segment and after the step
 * that brought this rank the segment.  A derived datatype is packed at the root and
 * unpacked elsewhere by vertices before and after them.  Differences, as a schedule has
 * no blocking step: the intra-node submodule shm runs binomial (the device's
 * release_gather has no schedule); on one node, and while the plugin's sub-communicators
 * are created or its schedule is being built (MPICH's pick for one of its steps came
 * back here), a binomial tree on comm.
 */
static int bcast_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    return MPII_Hier_pipelined_sched(a, &cvars, 0, &bcast_ops, sched);
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
 * segment s - N, and waits for the former (MPII_Hier_prepared_run; bcast_task is one
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
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .buf = buffer, .count = count, .datatype = datatype,
        .root = root, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(bcast, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, bcast_sched,
        MPII_HIER_SCHED_FROM_BCAST, 1, 0 };
    return MPII_Hier_pipelined_run(&call, &coll, &bcast_ops, coll_attr);
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
