/*
 * mpich-hier: HAN pipelined hierarchical allreduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL ALLREDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/* the buffers and the plan of one call; the results are formed in recvbuf */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Aint type_size, extent;
    const MPII_Hier_seg_plan *plan;
    const MPII_Hier_params *step_prm;   /* [nsteps] */
} allreduce_pipeline;

/* segment t down, up or all (the ring) on step st */
static int allreduce_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                          int64_t t, MPII_Hier_task_out * out)
{
    const allreduce_pipeline *p = ctx;
    const MPII_Hier_params *prm = &p->step_prm[task->step];
    MPI_Aint count = MPII_Hier_seg_len(p->plan, t) / p->type_size;
    MPI_Aint at = MPII_Hier_seg_offset(p->plan, t) / p->type_size * p->extent;
    char *result = (char *) p->recvbuf + at;
    int step_root = st->comm->rank == st->root;
    bool intra = task->blocking && !st->inter;

    switch (task->dir) {
        case MPII_HIER_TASK_ALL:
            return MPII_Hier_step_allreduce(result, count, p->datatype, p->op, st, prm, out);
        case MPII_HIER_TASK_DOWN:
            return MPII_Hier_step_bcast(result, count, p->datatype, st, prm, intra, out);
        default:       /* MPII_HIER_TASK_UP */
            if (!task->blocking)
                return MPII_Hier_step_reduce(step_root ? MPI_IN_PLACE : result,
                                             step_root ? result : NULL, count, p->datatype,
                                             p->op, st, prm, false, out);
            /* the finest step: contributions from sendbuf (recvbuf when in place) */
            const void *contribution = p->sendbuf == MPI_IN_PLACE ? result :
                (const char *) p->sendbuf + at;
            if (step_root && p->sendbuf == MPI_IN_PLACE)
                contribution = MPI_IN_PLACE;
            return MPII_Hier_step_reduce(contribution, step_root ? result : NULL, count,
                                         p->datatype, p->op, st, prm, intra, out);
    }
}

/* Each step's parameters (up_inter_* among switch groups, down_inter_* among package
 * leaders inside a node, by_size resolved for the segments of plan), in
 * step_prm[nsteps]; returns whether the top step is one allreduce (the ring, or by_size's
 * recursive doubling).  The one-step allreduce is a submodule of the top step only; a step
 * below it that asks for the ring runs the ring's chain (tsp_ring).  The ring combines in
 * ring order: with a non-commutative op the top step keeps rank order by reduce + bcast
 * on binomial trees.  Every rank takes the top step's decision with its member count (the
 * level-0 groups), a rank outside it too: the task table depends on it. */
static int step_params(const MPII_Hier_params * prm, const MPII_Hier_steps * steps, MPI_Op op,
                       const MPII_Hier_seg_plan * plan, MPII_Hier_params * step_prm)
{
    int one_top_step = 0;
    const MPII_Hier_hierarchy *h = steps->h;
    int top_members = h->nlevels ? h->level[0].ngroups : steps->comm->local_size;
    for (int k = 0; k < steps->nsteps; k++) {
        MPII_Hier_params scratch;
        const MPII_Hier_step *st = &steps->step[k];
        int members = k == 0 ? top_members : st->comm ? st->comm->local_size : 1;
        step_prm[k] = *MPII_Hier_step_params(prm, st, members, k == 0 ?
                                             MPII_HIER_SIZED_ALLREDUCE : MPII_HIER_SIZED_BCAST,
                                             plan, &scratch);
        int algo = step_prm[k].inter_algo;
        if (algo == MPII_HIER_INTER_RECURSIVE_DOUBLING)
            one_top_step = 1;
        if (algo != MPII_HIER_INTER_TSP_ALLREDUCE_RING)
            continue;
        if (k > 0)
            step_prm[k].inter_algo = MPII_HIER_INTER_TSP_RING;
        else if (MPIR_Op_is_commutative(op))
            one_top_step = 1;
        else
            step_prm[k].inter_algo = MPII_HIER_INTER_SCHED_BINOMIAL;
    }
    return one_top_step;
}

/* Algorithm: the hier allreduce as one schedule (MPI_Iallreduce, MPI_Allreduce_init)
 *
 * The same steps, segments and tasks as MPIR_Allreduce_intra_hier, with the hier
 * allreduce's parameters (its CVARs; the call's under MPIR_CVAR_HIER_SCHEDULE_BLOCKING),
 * each task of each segment a vertex (MPII_Hier_pipeline_sched).  Differences, as a
 * schedule has no blocking step: intra-node shm runs binomial; where the blocking form
 * runs flat (one node, an order no hierarchy keeps), and while the plugin's sub-
 * communicators are created or its schedule is being built, MPICH's recursive doubling
 * on comm.
 */
static int allreduce_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_params step_prm[MPII_HIER_MAX_STEPS];
    MPI_Aint type_size, extent;
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
        mpi_errno = MPII_Hier_sched_new(&flat, MPIR_SCHED_NORMAL, a->comm, true);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_Iallreduce_intra_sched_recursive_doubling(a->sendbuf, a->buf, a->count,
                                                                   a->datatype, a->op, a->comm,
                                                                   flat.sched);
        if (mpi_errno) {
            MPII_Hier_sched_discard(&flat);
            goto fn_fail;
        }
        mpi_errno = MPII_Hier_sched_add_step(&flat, a->comm, 0, NULL, sched, &vtx);
        goto fn_exit;
    }
    int nlevels = MPII_Hier_nlevels(hier);
    mpi_errno = MPII_Hier_steps_get(a->comm, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    MPII_Hier_seg_plan_init(&plan, a->count * type_size, prm.segsize, type_size);
    int one_top_step = step_params(&prm, &steps, a->op, &plan, step_prm);
    if (nlevels == 0 && one_top_step)   /* the one-step allreduce alone: the whole message */
        MPII_Hier_seg_plan_init(&plan, a->count * type_size, 0, type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);

    /* a rank alone in its finest group holds its contribution in a->buf from the start */
    if (!steps.step[steps.nsteps - 1].comm && a->sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, a->count, a->datatype, a->buf,
                                             a->count, a->datatype, sched, 0, NULL, &first);
        MPIR_ERR_CHECK(mpi_errno);
        n_first = 1;
    }

    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_allreduce(steps.nsteps, one_top_step, tasks);
    allreduce_pipeline pipeline = { a->sendbuf, a->buf, a->datatype, a->op, type_size, extent,
        &plan, step_prm
    };
    mpi_errno = MPII_Hier_pipeline_sched(&steps, tasks, ntasks, plan.nsegs, allreduce_task,
                                         &pipeline, n_first, &first, sched);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: HAN pipelined hierarchical allreduce over N levels (HAN paper, section
 * III-B; the N-level generalisation in doc/multilevel.md)
 *
 * The message is cut into u segments of whole elements.  Each segment runs the reduce of
 * reduce_intra_hier.c onto rank 0 (which leads every group it is in), then the bcast of
 * bcast_intra_hier.c from it, over the same steps: segment t takes the upward step k in
 * slot t + N - k and the downward step k in slot t + N + 1 + k
 * (MPII_Hier_pipeline_allreduce, hier_pipeline.h).  In slot s a rank starts,
 * non-blocking, the steps k < N it takes part in (downward, then upward), runs the
 * finest step downward then upward (blocking), and waits for the former
 * (MPII_Hier_pipeline_run; allreduce_task is one step of one segment).  With nodes
 * only (N = 1) the leaders run s = 0 .. u+2 as
 *     start ib(s-2); start ir(s-1); sb(s-3); sr(s); wait for ib and ir
 * i.e. the paper's sr(0), irsr(1), ibirsr(2), sbibirsr(3..u-1), sbibir, sbib, sb: the
 * non-blocking inter-node reduce and bcast move in opposite directions while the node
 * works on two other segments; other ranks run the same intra-node steps (sbsr).
 *
 * With the one-step submodule tsp_allreduce_ring as the top step's (up_inter_algo when
 * the top level is a switch level, down_inter_algo when it is inside one node, else
 * inter_algo) an allreduce among the top step's
 * members, ia(t) in slot t + N, replaces its reduce and bcast, and the downward steps
 * below it come one slot earlier.  With one rank per node and no switch
 * level that allreduce runs once on the whole message.
 *
 * Non-commutative ops combine in rank order: binomial trees when every group of every
 * level is one block of consecutive ranks; otherwise the flat recursive doubling runs
 * instead.
 */
int MPIR_Allreduce_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                              MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                              int segsize, int inter_algo, int inter_k, int inter_chunk,
                              int intra_algo, int up_inter_algo, int up_inter_k,
                              int up_inter_chunk, int down_inter_algo, int down_inter_k,
                              int down_inter_chunk, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(allreduce, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, allreduce_sched,
        MPII_HIER_SCHED_FROM_ALLREDUCE, 1, 1 };
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_run run;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_params step_prm[MPII_HIER_MAX_STEPS];
    MPI_Aint type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    mpi_errno = MPII_Hier_enter(&call, &coll, count * type_size, &prm, &hier, &run);
    MPIR_ERR_CHECK(mpi_errno);
    if (run == MPII_HIER_RUN_NOTHING && count * type_size > 0 && sendbuf != MPI_IN_PLACE)
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
    if (run == MPII_HIER_RUN_FLAT)  /* flat and rank-ordered */
        mpi_errno = MPIR_Allreduce_intra_recursive_doubling(sendbuf, recvbuf, count, datatype,
                                                            op, comm_ptr, coll_attr);
    if (run != MPII_HIER_RUN_STEPS)
        goto fn_exit;
    int nlevels = MPII_Hier_nlevels(hier);

    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    int finest = steps.nsteps - 1;
    const MPII_Hier_step *fs = &steps.step[finest];

    /* segments of whole elements (the op works on elements) */
    MPII_Hier_seg_plan_init(&plan, count * type_size, prm.segsize, type_size);
    int one_top_step = step_params(&prm, &steps, op, &plan, step_prm);
    /* the one-step allreduce alone (one rank per node) runs once on the whole message */
    if (nlevels == 0 && one_top_step)
        MPII_Hier_seg_plan_init(&plan, count * type_size, 0, type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);

    /* a rank alone in its finest group holds its contribution in recvbuf from the start */
    if (!fs->comm && sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_allreduce(steps.nsteps, one_top_step, tasks);
    allreduce_pipeline pipeline = { sendbuf, recvbuf, datatype, op, type_size, extent, &plan,
        step_prm
    };
    mpi_errno = MPII_Hier_pipeline_run(&steps, tasks, ntasks, plan.nsegs, allreduce_task,
                                       &pipeline, coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

  fn_exit:
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}

int MPIR_TSP_Iallreduce_sched_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                                         MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
            .datatype = datatype, .op = op, .comm = comm_ptr, .given = &cvars,
            .calls_pvar = MPII_HIER_PVAR_CALLS(iallreduce, tsp_hier) };
    return allreduce_sched(&call, sched);
}
