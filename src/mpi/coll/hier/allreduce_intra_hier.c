/*
 * mpich-hier: HAN pipelined hierarchical allreduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL ALLREDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/* segment t down, up or all (the ring) on step st */
static int allreduce_task(void *ctx, const MPII_Hier_task * task, const MPII_Hier_step * st,
                          int64_t t, MPII_Hier_task_out * out)
{
    const MPII_Hier_prepared *p = ctx;
    const MPII_Hier_params *prm = &p->step_prm[task->step];
    MPI_Aint count = MPII_Hier_seg_len(&p->plan, t) / p->type_size;
    MPI_Aint at = MPII_Hier_seg_offset(&p->plan, t) / p->type_size * p->extent;
    char *result = p->buf + at;
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

/* The hier allreduce of call a on hier's steps, with prm, prepared for either form.
 * Segments of whole elements (the op works on elements); the one-step allreduce alone
 * (one rank per node) runs once on the whole message; a rank alone in its finest group
 * holds its contribution in recvbuf from the start. */
static int allreduce_prepare(const MPII_Hier_call * a, MPII_Hier_comm * hier,
                             MPII_Hier_params * prm, MPII_Hier_prepared * prep)
{
    const MPII_Hier_steps *steps = &prep->steps;
    int mpi_errno = MPII_Hier_prepare_begin(a, hier, 0, prm, allreduce_task, prep);
    if (mpi_errno)
        return mpi_errno;
    MPI_Aint bytes = a->count * prep->type_size;
    MPII_Hier_seg_plan_init(&prep->plan, bytes, prm->segsize, prep->type_size);
    int one_top_step = step_params(prm, steps, a->op, &prep->plan, prep->step_prm);
    if (MPII_Hier_nlevels(hier) == 0 && one_top_step)
        MPII_Hier_seg_plan_init(&prep->plan, bytes, 0, prep->type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, prep->plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, prep->plan.raised);
    prep->ntasks = MPII_Hier_pipeline_allreduce(steps->nsteps, one_top_step, prep->tasks);
    if (!steps->step[steps->nsteps - 1].comm && a->sendbuf != MPI_IN_PLACE)
        prep->in = (MPII_Hier_copy) { a->sendbuf, a->buf, a->count, a->count, a->datatype,
            a->datatype
        };
    return MPI_SUCCESS;
}

static int allreduce_flat(const MPII_Hier_call * a, int coll_attr)
{
    return MPIR_Allreduce_intra_recursive_doubling(a->sendbuf, a->buf, a->count, a->datatype,
                                                   a->op, a->comm, coll_attr);
}

static int allreduce_flat_sched(const MPII_Hier_call * a, const MPII_Hier_comm * hier,
                                MPIR_TSP_sched_t sched)
{
    MPII_Hier_sched flat;
    int vtx;
    int mpi_errno = MPII_Hier_sched_new(&flat, MPIR_SCHED_NORMAL, a->comm, true);
    if (mpi_errno)
        return mpi_errno;
    mpi_errno = MPIR_Iallreduce_intra_sched_recursive_doubling(a->sendbuf, a->buf, a->count,
                                                               a->datatype, a->op, a->comm,
                                                               flat.sched);
    if (mpi_errno) {
        MPII_Hier_sched_discard(&flat);
        return mpi_errno;
    }
    return MPII_Hier_sched_add_step(&flat, a->comm, 0, NULL, sched, &vtx);
}

/* by_size's latency regime on nodes alone, where MPICH's flat recursive doubling crosses
 * nodes fewer times than recursive doubling among the node leaders
 * (MPII_Hier_sized_allreduce_flat, decided with the comm) */
static int allreduce_plans_flat(const MPII_Hier_call * a, const MPII_Hier_comm * hier,
                                const MPII_Hier_params * prm)
{
    MPII_Hier_seg_plan plan;
    MPI_Aint type_size;

    if (!hier->flat_allreduce || prm->inter_algo != MPII_HIER_INTER_BY_SIZE ||
        MPII_Hier_used(hier) != &hier->nodes)
        return 0;
    MPIR_Datatype_get_size_macro(a->datatype, type_size);
    MPII_Hier_seg_plan_init(&plan, a->count * type_size, prm->segsize, type_size);
    if (!MPII_Hier_by_size_latency(MPII_HIER_SIZED_ALLREDUCE, &plan, hier->nnodes,
                                   prm->inter_chunk))
        return 0;
    MPII_Hier_pvars[MPII_HIER_PVAR_BY_SIZE_LATENCY]++;
    return 1;
}

static const MPII_Hier_pipelined allreduce_ops = { allreduce_prepare, allreduce_flat, NULL,
    allreduce_flat_sched, allreduce_plans_flat
};

/* Algorithm: the hier allreduce as one schedule (MPI_Iallreduce, MPI_Allreduce_init)
 *
 * The same steps, segments and tasks as MPIR_Allreduce_intra_hier, with the hier
 * allreduce's parameters (its CVARs; the call's under MPIR_CVAR_HIER_SCHEDULE_BLOCKING),
 * each task of each segment a vertex (MPII_Hier_prepared_sched).  Differences, as a
 * schedule has no blocking step: intra-node shm runs binomial; where the blocking form
 * runs flat (one node, an order no hierarchy keeps), and while the plugin's sub-
 * communicators are created or its schedule is being built, MPICH's recursive doubling
 * on comm.
 */
static int allreduce_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_OF_CVARS;
    return MPII_Hier_pipelined_sched(a, &cvars, 1, &allreduce_ops, sched);
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
 * (MPII_Hier_prepared_run; allreduce_task is one step of one segment).  With nodes
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
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(allreduce, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_INTER_COUNT, allreduce_sched,
        MPII_HIER_SCHED_FROM_ALLREDUCE, 1, 1 };
    return MPII_Hier_pipelined_run(&call, &coll, &allreduce_ops, coll_attr);
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
