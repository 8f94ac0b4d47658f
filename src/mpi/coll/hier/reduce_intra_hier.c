/*
 * mpich-hier: HAN pipelined hierarchical reduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL REDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/* the buffers and the plan of one call */
typedef struct {
    const void *sendbuf;
    char *partial;              /* where this leader's groups' results are formed */
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Aint type_size, extent;
    const MPII_Hier_seg_plan *plan;
    const MPII_Hier_params *prm;
} reduce_pipeline;

static MPI_Aint seg_count(const reduce_pipeline * p, int64_t t)
{
    return MPII_Hier_seg_len(p->plan, t) / p->type_size;
}

static char *seg_at(const reduce_pipeline * p, const void *buf, int64_t t)
{
    return (char *) buf + MPII_Hier_seg_offset(p->plan, t) / p->type_size * p->extent;
}

/* segment t up step st: in place at the roots of the steps above the finest; the finest
 * takes the contributions from sendbuf */
static int reduce_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                       int64_t t, MPII_Hier_task_out * out)
{
    const reduce_pipeline *p = ctx;
    MPII_Hier_params scratch;
    int step_root = st->comm->rank == st->root;
    void *result = step_root ? seg_at(p, p->partial, t) : NULL;
    const void *contribution;

    if (!task->blocking)
        contribution = step_root ? MPI_IN_PLACE : seg_at(p, p->partial, t);
    else
        contribution = p->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : seg_at(p, p->sendbuf, t);
    return MPII_Hier_step_reduce(contribution, result, seg_count(p, t), p->datatype, p->op, st,
                                 MPII_Hier_step_params(p->prm, st, st->comm->local_size,
                                                       MPII_HIER_SIZED_REDUCE, p->plan,
                                                       &scratch),
                                 task->blocking && !st->inter, out);
}

/* Where a rank forms its groups' partial results */
typedef enum { PARTIAL_NONE, PARTIAL_RECVBUF, PARTIAL_TEMP, PARTIAL_SENDBUF } partial_kind;

/* The plan and steps of a hier reduce of count elements to root, and where this rank
 * forms its groups' results: recvbuf at the root, a temporary (count elements, *temp_lb
 * below its start) at the other leaders, sendbuf at a rank that only sends upwards.
 * *copy_in: a rank alone in its finest group first copies its contribution there. */
static int reduce_prepare(MPIR_Comm * comm_ptr, MPII_Hier_comm * hier, MPII_Hier_params * prm,
                          int root, const void *sendbuf, MPI_Aint count, MPI_Datatype datatype,
                          MPII_Hier_seg_plan * plan, MPII_Hier_steps * steps,
                          partial_kind * kind, MPI_Aint * temp_bytes, MPI_Aint * temp_lb,
                          int *copy_in)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint type_size, extent, true_extent;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    int nlevels = MPII_Hier_nlevels(hier);
    if (nlevels == 0 && prm->inter_chunk == 0)
        prm->inter_chunk = prm->segsize;        /* one rank per node: pipelined inside the step */
    MPII_Hier_seg_plan_init(plan, count * type_size, nlevels == 0 ? 0 : prm->segsize, type_size);
    MPII_HIER_PVAR_ADD(REDUCE_HIER_SEGMENTS, plan->nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan->raised);
    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, root, steps);
    MPIR_ERR_CHECK(mpi_errno);

    int first = MPII_Hier_steps_first(steps), finest = steps->nsteps - 1;
    int leads = 0;              /* the root of some step */
    for (int k = first; k <= finest; k++)
        leads |= steps->step[k].comm && steps->step[k].comm->rank == steps->step[k].root;
    *kind = comm_ptr->rank == root ? PARTIAL_RECVBUF : leads ? PARTIAL_TEMP :
        first < finest ? PARTIAL_SENDBUF : PARTIAL_NONE;
    MPIR_Type_get_true_extent_impl(datatype, temp_lb, &true_extent);
    *temp_bytes = count * MPL_MAX(extent, true_extent);
    *copy_in = (*kind == PARTIAL_RECVBUF || *kind == PARTIAL_TEMP) && !steps->step[finest].comm &&
        sendbuf != MPI_IN_PLACE;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: the hier reduce as one schedule (MPI_Ireduce, MPI_Reduce_init)
 *
 * The same steps, segments, tasks and buffers as MPIR_Reduce_intra_hier, with the hier
 * reduce's parameters (its CVARs; the call's under MPIR_CVAR_HIER_SCHEDULE_BLOCKING),
 * each task of each segment a vertex (MPII_Hier_pipeline_sched); a leader's partial
 * results live in a temporary of the schedule.  Differences, as a schedule has no
 * blocking step: intra-node shm runs binomial; where the blocking form runs flat (one
 * node, an order no hierarchy keeps), and while the plugin's sub-communicators are
 * created or its schedule is being built, the binomial reduce on comm (rank order).
 */
static int reduce_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPI_Aint type_size, extent, temp_bytes, temp_lb;
    partial_kind kind;
    int copy_in;
    char *partial = NULL;
    int n_first = 0, first, vtx;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(a->datatype, type_size);
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    int trivial;
    mpi_errno = MPII_Hier_sched_trivial_reduction(a, sched, &trivial);
    if (mpi_errno || trivial)
        goto fn_exit;
    mpi_errno = MPII_Hier_sched_begin(a, &cvars, &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, a->op)) {
        MPII_Hier_sched flat;
        mpi_errno = MPII_Hier_build_flat_ireduce(a->sendbuf, a->buf, a->count, a->datatype,
                                                 a->op, a->root, a->comm, &flat);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPII_Hier_sched_add_step(&flat, a->comm, 0, NULL, sched, &vtx);
        goto fn_exit;
    }
    mpi_errno = reduce_prepare(a->comm, hier, &prm, a->root, a->sendbuf, a->count, a->datatype,
                               &plan, &steps, &kind, &temp_bytes, &temp_lb, &copy_in);
    MPIR_ERR_CHECK(mpi_errno);
    if (kind == PARTIAL_TEMP) {
        partial = MPIR_TSP_sched_malloc(temp_bytes, sched);
        MPIR_ERR_CHKANDJUMP(!partial, mpi_errno, MPI_ERR_OTHER, "**nomem");
        partial -= temp_lb;
    } else {
        partial = kind == PARTIAL_RECVBUF ? a->buf : kind == PARTIAL_SENDBUF ?
            (char *) a->sendbuf : NULL;
    }
    if (copy_in) {
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, a->count, a->datatype, partial,
                                             a->count, a->datatype, sched, 0, NULL, &first);
        MPIR_ERR_CHECK(mpi_errno);
        n_first = 1;
    }

    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_reduce(steps.nsteps, tasks);
    reduce_pipeline pipeline = { a->sendbuf, partial, a->datatype, a->op, type_size, extent,
        &plan, &prm
    };
    mpi_errno = MPII_Hier_pipeline_sched(&steps, tasks, ntasks, plan.nsegs, reduce_task,
                                         &pipeline, n_first, &first, sched);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: HAN pipelined hierarchical reduce over N levels, any root (HAN paper,
 * section III-B; the N-level generalisation in doc/multilevel.md)
 *
 * The message is cut into u segments of whole elements.  The steps are the bcast's
 * (bcast_intra_hier.c) run upwards: segment t takes step k in slot t + N - k, so the
 * finest groups reduce onto their leaders first (sr), then the leaders of each level's
 * groups onto the leader of the group above, up to the root (ir).  A leader forms its
 * groups' results in place, in one buffer: it is the root of every step below its
 * highest (the root's own: recvbuf).  In slot s a rank starts, non-blocking, the steps
 * k < N it takes part in for segment s - (N - k), runs the finest step (blocking) for
 * segment s, and waits for the former (MPII_Hier_pipeline_reduce and _run,
 * hier_pipeline.h; reduce_task is one step of one segment); steps among switch groups take up_inter_*, steps
 * among package (NUMA, L3) leaders inside a node down_inter_*.  With nodes only (N = 1)
 * and a root at local rank j (node leaders: member j mod ppn) this is HAN's sr(0);
 * irsr(1) .. irsr(u-1); ir(u-1).
 *
 * With one rank per node and no switch level the inter-node reduce runs once on the
 * whole message, pipelined inside by its chunks (the segment size when no chunk is
 * set): there is no intra-node step to overlap.
 *
 * Non-commutative ops combine in rank order: binomial trees when every group of every
 * level is one block of consecutive ranks; otherwise the flat binomial reduce runs
 * instead.
 */
int MPIR_Reduce_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                           int segsize, int inter_algo, int inter_k, int inter_chunk,
                           int intra_algo, int up_inter_algo, int up_inter_k, int up_inter_chunk,
                           int down_inter_algo, int down_inter_k, int down_inter_chunk,
                           int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .root = root, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(reduce, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, reduce_sched,
        MPII_HIER_SCHED_FROM_REDUCE, 1, 1 };
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_run run;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPI_Aint type_size, extent, temp_bytes, temp_lb;
    partial_kind kind;
    int copy_in;
    void *partial_alloc = NULL;
    MPIR_CHKLMEM_DECL();
    char *partial;              /* where this leader's groups' results are formed */

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    mpi_errno = MPII_Hier_enter(&call, &coll, count * type_size, &prm, &hier, &run);
    MPIR_ERR_CHECK(mpi_errno);
    if (run == MPII_HIER_RUN_NOTHING && count * type_size > 0 && sendbuf != MPI_IN_PLACE)
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
    if (run == MPII_HIER_RUN_FLAT)  /* flat and rank-ordered */
        mpi_errno = MPIR_Reduce_intra_binomial(sendbuf, recvbuf, count, datatype, op, root,
                                               comm_ptr, coll_attr);
    if (run != MPII_HIER_RUN_STEPS)
        goto fn_exit;
    mpi_errno = reduce_prepare(comm_ptr, hier, &prm, root, sendbuf, count, datatype, &plan,
                               &steps, &kind, &temp_bytes, &temp_lb, &copy_in);
    MPIR_ERR_CHECK(mpi_errno);
    if (kind == PARTIAL_TEMP) {
        MPIR_CHKLMEM_MALLOC(partial_alloc, temp_bytes);
        partial = (char *) partial_alloc - temp_lb;
    } else {
        partial = kind == PARTIAL_RECVBUF ? recvbuf : kind == PARTIAL_SENDBUF ?
            (char *) sendbuf : NULL;
    }
    if (copy_in) {
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, partial, count, datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_reduce(steps.nsteps, tasks);
    reduce_pipeline pipeline = { sendbuf, partial, datatype, op, type_size, extent, &plan, &prm };
    mpi_errno = MPII_Hier_pipeline_run(&steps, tasks, ntasks, plan.nsegs, reduce_task, &pipeline,
                                       coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}

int MPIR_TSP_Ireduce_sched_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                      MPI_Datatype datatype, MPI_Op op, int root,
                                      MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
            .datatype = datatype, .op = op, .root = root, .comm = comm_ptr, .given = &cvars,
            .calls_pvar = MPII_HIER_PVAR_CALLS(ireduce, tsp_hier) };
    return reduce_sched(&call, sched);
}
