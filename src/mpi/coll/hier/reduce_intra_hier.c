/*
 * mpich-hier: HAN pipelined hierarchical reduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL REDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

static MPI_Aint seg_count(const MPII_Hier_prepared * p, int64_t t)
{
    return MPII_Hier_seg_len(&p->plan, t) / p->type_size;
}

static char *seg_at(const MPII_Hier_prepared * p, const void *buf, int64_t t)
{
    return (char *) buf + MPII_Hier_seg_offset(&p->plan, t) / p->type_size * p->extent;
}

/* segment t up step st: in place at the roots of the steps above the finest; the finest
 * takes the contributions from sendbuf */
static int reduce_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                       int64_t t, MPII_Hier_task_out * out)
{
    const MPII_Hier_prepared *p = ctx;
    MPII_Hier_params scratch;
    int step_root = st->comm->rank == st->root;
    void *result = step_root ? seg_at(p, p->buf, t) : NULL;
    const void *contribution;

    if (!task->blocking)
        contribution = step_root ? MPI_IN_PLACE : seg_at(p, p->buf, t);
    else
        contribution = p->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : seg_at(p, p->sendbuf, t);
    return MPII_Hier_step_reduce(contribution, result, seg_count(p, t), p->datatype, p->op, st,
                                 MPII_Hier_step_params(p->prm, st, st->comm->local_size,
                                                       MPII_HIER_SIZED_REDUCE, &p->plan,
                                                       &scratch),
                                 task->blocking && !st->inter, out);
}

/* The hier reduce of call a on hier's steps, with prm, prepared for either form.  A rank
 * forms its groups' results in recvbuf at the root, in the call's temporary (count
 * elements) at the other leaders, in sendbuf at a rank that only sends upwards; a leader
 * alone in its finest group first copies its contribution there.  One rank per node:
 * the inter-node step pipelined inside by its chunks. */
static int reduce_prepare(const MPII_Hier_call * a, MPII_Hier_comm * hier,
                          MPII_Hier_params * prm, MPII_Hier_prepared * prep)
{
    const MPII_Hier_steps *steps = &prep->steps;
    int nlevels = MPII_Hier_nlevels(hier);
    MPI_Aint true_extent;

    if (nlevels == 0 && prm->inter_chunk == 0)
        prm->inter_chunk = prm->segsize;
    int mpi_errno = MPII_Hier_prepare_begin(a, hier, a->root, prm, reduce_task, prep);
    if (mpi_errno)
        return mpi_errno;
    MPII_Hier_seg_plan_init(&prep->plan, a->count * prep->type_size,
                            nlevels == 0 ? 0 : prm->segsize, prep->type_size);
    MPII_HIER_PVAR_ADD(REDUCE_HIER_SEGMENTS, prep->plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, prep->plan.raised);
    prep->ntasks = MPII_Hier_pipeline_reduce(steps->nsteps, prep->tasks);

    int first = MPII_Hier_steps_first(steps), finest = steps->nsteps - 1;
    int leads = 0;              /* the root of some step */
    for (int k = first; k <= finest; k++)
        leads |= steps->step[k].comm && steps->step[k].comm->rank == steps->step[k].root;
    int root = a->comm->rank == a->root;
    if (!root)
        prep->buf = first < finest && !leads ? (char *) a->sendbuf : NULL;
    if (!root && leads) {
        MPIR_Type_get_true_extent_impl(a->datatype, &prep->temp_lb, &true_extent);
        prep->temp_bytes = a->count * MPL_MAX(prep->extent, true_extent);
    }
    if ((root || leads) && !steps->step[finest].comm && a->sendbuf != MPI_IN_PLACE)
        prep->in = (MPII_Hier_copy) { a->sendbuf, NULL, a->count, a->count, a->datatype,
            a->datatype
        };
    return MPI_SUCCESS;
}

static int reduce_flat(const MPII_Hier_call * a, int coll_attr)
{
    return MPIR_Reduce_intra_binomial(a->sendbuf, a->buf, a->count, a->datatype, a->op, a->root,
                                      a->comm, coll_attr);
}

static int reduce_flat_sched(const MPII_Hier_call * a, const MPII_Hier_comm * hier,
                             MPIR_TSP_sched_t sched)
{
    MPII_Hier_sched flat;
    int vtx;
    int mpi_errno = MPII_Hier_build_flat_ireduce(a->sendbuf, a->buf, a->count, a->datatype, a->op,
                                                 a->root, a->comm, &flat);
    return mpi_errno ? mpi_errno : MPII_Hier_sched_add_step(&flat, a->comm, 0, NULL, sched, &vtx);
}

static const MPII_Hier_pipelined reduce_ops = { reduce_prepare, reduce_flat, NULL,
    reduce_flat_sched, NULL
};

/* Algorithm: the hier reduce as one schedule (MPI_Ireduce, MPI_Reduce_init)
 *
 * The same steps, segments, tasks and buffers as MPIR_Reduce_intra_hier, with the hier
 * reduce's parameters (its CVARs; the call's under MPIR_CVAR_HIER_SCHEDULE_BLOCKING),
 * each task of each segment a vertex (MPII_Hier_prepared_sched); a leader's partial
 * results live in a temporary of the schedule.  Differences, as a schedule has no
 * blocking step: intra-node shm runs binomial; where the blocking form runs flat (one
 * node, an order no hierarchy keeps), and while the plugin's sub-communicators are
 * created or its schedule is being built, the binomial reduce on comm (rank order).
 */
static int reduce_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    return MPII_Hier_pipelined_sched(a, &cvars, 1, &reduce_ops, sched);
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
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .root = root, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(reduce, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, reduce_sched,
        MPII_HIER_SCHED_FROM_REDUCE, 1, 1 };
    return MPII_Hier_pipelined_run(&call, &coll, &reduce_ops, coll_attr);
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
