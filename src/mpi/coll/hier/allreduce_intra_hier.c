/*
 * mpich-hier: HAN pipelined hierarchical allreduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL ALLREDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 16384
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier allreduce (rounded down to whole
        datatype elements, at least one). 0 reduces the whole message as one segment.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking inter-node reduce and bcast of the hier allreduce (the same for both,
        so they overlap in opposite directions), run on the node leaders.
        Non-commutative ops use sched_binomial, or seg_in_order_binary for the seg_*
        items (rank order). The seg_* trees cut each hier segment into
        MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE pieces (0: one).
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        by_size        - by the message (hier_by_size.h): MPICH's recursive doubling among the
                         members (one step) for a message of one piece where the
                         alpha-beta model (MPIR_CVAR_HIER_LATENCY_BYTES) rates it below
                         tsp_allreduce_ring, which runs otherwise
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node steps of the hier allreduce.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node steps of one hier
        allreduce segment. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node reduce and bcast of the hier allreduce
        auto     - MPIR_Reduce/Bcast_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Reduce/Bcast_intra_binomial
        shm      - the device's shared-memory reduce and bcast (CH4 POSIX
                   release_gather), MPIR where the device cannot (e.g. non-commutative ops)
        by_size  - shm for a message that fits one release_gather cell, auto otherwise

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier allreduce among the leaders of switch groups (the levels
        above the node, doc/multilevel.md), as MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM:
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        by_size        - by the message (hier_by_size.h): MPICH's recursive doubling among the
                         members (one step) for a message of one piece where the
                         alpha-beta model (MPIR_CVAR_HIER_LATENCY_BYTES) rates it below
                         tsp_allreduce_ring, which runs otherwise
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier allreduce among switch groups.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier allreduce among switch
        groups. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : by_size
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier allreduce among the leaders of packages, NUMA nodes
        or L3 caches inside a node (the levels below the node but the finest,
        doc/multilevel.md), as MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM:
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        by_size        - by the message (hier_by_size.h): MPICH's recursive doubling among the
                         members (one step) for a message of one piece where the
                         alpha-beta model (MPIR_CVAR_HIER_LATENCY_BYTES) rates it below
                         tsp_allreduce_ring, which runs otherwise
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier allreduce among package, NUMA or L3
        leaders.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier allreduce among package, NUMA
        or L3 leaders. 0 does not split a segment further.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


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
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->buf;
    MPI_Aint count = a->count;
    MPI_Datatype datatype = a->datatype;
    MPI_Op op = a->op;
    MPIR_Comm *comm_ptr = a->comm;
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

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    int trivial;
    mpi_errno = MPII_Hier_sched_trivial_reduction(a, sched, &trivial);
    if (mpi_errno || trivial)
        goto fn_exit;
    mpi_errno = MPII_Hier_sched_begin(a, &cvars, &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, op)) {
        MPII_Hier_sched flat;
        mpi_errno = MPII_Hier_sched_new(&flat, MPIR_SCHED_NORMAL, comm_ptr, true);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_Iallreduce_intra_sched_recursive_doubling(sendbuf, recvbuf, count,
                                                                   datatype, op, comm_ptr,
                                                                   flat.sched);
        if (mpi_errno) {
            MPII_Hier_sched_discard(&flat);
            goto fn_fail;
        }
        mpi_errno = MPII_Hier_sched_add_step(&flat, comm_ptr, 0, NULL, sched, &vtx);
        goto fn_exit;
    }
    int nlevels = MPII_Hier_nlevels(hier);
    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    MPII_Hier_seg_plan_init(&plan, count * type_size, prm.segsize, type_size);
    int one_top_step = step_params(&prm, &steps, op, &plan, step_prm);
    if (nlevels == 0 && one_top_step)   /* the one-step allreduce alone: the whole message */
        MPII_Hier_seg_plan_init(&plan, count * type_size, 0, type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, plan.nsegs);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);

    /* a rank alone in its finest group holds its contribution in recvbuf from the start */
    if (!steps.step[steps.nsteps - 1].comm && sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_TSP_sched_localcopy(sendbuf, count, datatype, recvbuf, count, datatype,
                                             sched, 0, NULL, &first);
        MPIR_ERR_CHECK(mpi_errno);
        n_first = 1;
    }

    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks = MPII_Hier_pipeline_allreduce(steps.nsteps, one_top_step, tasks);
    allreduce_pipeline pipeline = { sendbuf, recvbuf, datatype, op, type_size, extent, &plan,
        step_prm
    };
    mpi_errno = MPII_Hier_pipeline_sched(&steps, tasks, ntasks, plan.nsegs, allreduce_task,
                                         &pipeline, n_first, &first, sched);
    MPIR_ERR_CHECK(mpi_errno);

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
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_params step_prm[MPII_HIER_MAX_STEPS];
    MPI_Aint type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    if (count == 0 || type_size == 0 || comm_ptr->local_size == 1) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        if (!mpi_errno && count > 0 && type_size > 0 && sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        goto fn_exit;
    }
    if (MPII_Hier_blocking_scheduled(&given, &cvars, count * type_size,
                                     MPII_HIER_SCHED_FROM_ALLREDUCE)) {
        const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
                .datatype = datatype, .op = op, .comm = comm_ptr, .given = &given,
                .calls_pvar = MPII_HIER_PVAR_CALLS(allreduce, hier) };
        mpi_errno = MPII_Hier_sched_wait(allreduce_sched, &call);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_INTER_COUNT, MPII_HIER_PVAR_CALLS(allreduce, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, op)) {
        /* one node (also the re-entry of a tree that picks hier for the node comm), our
         * own comm creation, or an order no hierarchy keeps: flat and rank-ordered */
        mpi_errno = MPIR_Allreduce_intra_recursive_doubling(sendbuf, recvbuf, count, datatype,
                                                            op, comm_ptr, coll_attr);
        goto fn_exit;
    }
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
