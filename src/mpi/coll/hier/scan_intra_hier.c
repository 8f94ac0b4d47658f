/*
 * mpich-hier: hierarchical scan and exscan, one schedule for their blocking,
 * non-blocking and persistent forms.
 */

#include "hier_impl.h"

/* What every vertex of one scan's schedule shares */
typedef struct {
    MPI_Aint count;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Aint span, lb;          /* a temporary's bytes, the type's true lower bound */
    MPIR_TSP_sched_t sched;
} scan_ctx;

/* One step of the scan, coarsest first: its comm (NULL: this rank takes no part), the tag
 * its messages carry, and whether the ranks before its group contribute (every member
 * knows: the group that holds rank 0 is group 0 of its level) */
typedef struct {
    MPIR_Comm *comm;
    int tag;
    int after_others;
    MPI_Aint chain;             /* elements per segment of the pipelined chain; 0: recursive
                                 * doubling */
} scan_step;

/* Vertices to wait for, grown as needed */
typedef struct {
    int n, cap;
    int *v;
} deps_list;

static int deps_list_add(deps_list * d, int vtx)
{
    if (d->n == d->cap) {
        int *v = MPL_realloc(d->v, (d->cap * 2 + 8) * sizeof(int), MPL_MEM_COLL);
        if (!v)
            return MPI_ERR_NO_MEM;
        d->v = v;
        d->cap = d->cap * 2 + 8;
    }
    d->v[d->n++] = vtx;
    return MPI_SUCCESS;
}

/* A temporary of one vector, freed with the schedule; NULL when out of memory */
static void *scan_tmp(const scan_ctx * c)
{
    char *p = MPIR_TSP_sched_malloc(c->span, c->sched);
    return p ? p - c->lb : NULL;
}

/* One round's combination: from a lower partner, its partial goes first into this
 * member's exclusive prefix (*x, NULL until the first) and partial; from a higher one,
 * after the partial, which then lives in *tmp's buffer (the two swap). */
static int scan_combine(const scan_ctx * c, int lower, void **part, void **tmp, void **x,
                        int *in, int *front)
{
    int v[2], n = 0, mpi_errno;
    if (!lower) {
        mpi_errno = MPIR_TSP_sched_reduce_local(*part, *tmp, c->count, c->type, c->op,
                                                c->sched, 2, in, front);
        void *t = *part;
        *part = *tmp;
        *tmp = t;
        return mpi_errno;
    }
    if (*x) {
        mpi_errno = MPIR_TSP_sched_reduce_local(*tmp, *x, c->count, c->type, c->op, c->sched,
                                                2, in, &v[n++]);
    } else {
        *x = scan_tmp(c);
        mpi_errno = *x ? MPIR_TSP_sched_localcopy(*tmp, c->count, c->type, *x, c->count,
                                                  c->type, c->sched, 2, in, &v[n++]) :
            MPI_ERR_NO_MEM;
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_reduce_local(*tmp, *part, c->count, c->type, c->op,
                                                c->sched, 2, in, &v[n++]);
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(c->sched, n, v, front);
    return mpi_errno;
}

/* Up one step: recursive doubling of the members' partials (*part, a temporary this rank
 * owns, ready after *front) among st's members (MPII_Hier_scan_partners).  Then *x is this
 * member's exclusive prefix in the group (NULL at member 0) and, at member 0, *part the
 * group's total; *front the vertex after which both are. */
static int scan_up(const scan_ctx * c, const scan_step * st, void **part, void **x,
                   int *front)
{
    int partner[31], mpi_errno = MPI_SUCCESS;
    int rounds = MPII_Hier_scan_partners(st->comm->local_size, st->comm->rank, partner);
    void *tmp = scan_tmp(c);

    *x = NULL;
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < rounds && !mpi_errno; i++) {
        int in[2], after = *front;
        if (partner[i] < 0)
            continue;
        mpi_errno = MPIR_TSP_sched_isend(*part, c->count, c->type, partner[i], st->tag,
                                         st->comm, c->sched, 1, &after, &in[0]);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_irecv(tmp, c->count, c->type, partner[i], st->tag,
                                             st->comm, c->sched, 1, &after, &in[1]);
        if (!mpi_errno)
            mpi_errno = scan_combine(c, partner[i] < st->comm->rank, part, &tmp, x, in, front);
    }
    return mpi_errno;
}

/* Up the top step as a chain in rank order, in segments of st->chain elements: member m
 * receives each segment of its exclusive prefix *x from m - 1, puts it before its partial
 * and passes that on to m + 1 while the next segments travel.  No member needs the
 * group's total (nothing is above). */
static int scan_up_chain(const scan_ctx * c, const scan_step * st, void **part, void **x,
                         int *front)
{
    int me = st->comm->rank, last = st->comm->local_size - 1, mpi_errno = MPI_SUCCESS;
    int last_send = -1;
    deps_list done = { 0 };
    MPI_Aint extent;

    MPIR_Datatype_get_extent_macro(c->type, extent);
    *x = me > 0 ? scan_tmp(c) : NULL;
    if (me > 0 && !*x)
        return MPI_ERR_NO_MEM;
    for (MPI_Aint at = 0; at < c->count && !mpi_errno; at += st->chain) {
        MPI_Aint n = MPL_MIN(st->chain, c->count - at);
        char *xs = *x ? (char *) *x + at * extent : NULL, *ps = (char *) *part + at * extent;
        /* each vertex after the one before (a new vertex may not be its own input) */
        int prev = *front, vtx = *front;
        if (me > 0)
            mpi_errno = MPIR_TSP_sched_irecv(xs, n, c->type, me - 1, st->tag, st->comm,
                                             c->sched, 1, &prev, &vtx);
        prev = vtx;
        if (!mpi_errno && me > 0 && me < last)
            mpi_errno = MPIR_TSP_sched_reduce_local(xs, ps, n, c->type, c->op, c->sched, 1,
                                                    &prev, &vtx);
        /* the sends leave in segment order (one tag: the next member's receives, posted
         * in order, match them in the order they were started) */
        int before[2] = { vtx, last_send }, nbefore = last_send < 0 ? 1 : 2;
        if (!mpi_errno && me < last) {
            mpi_errno = MPIR_TSP_sched_isend(ps, n, c->type, me + 1, st->tag, st->comm,
                                             c->sched, nbefore, before, &vtx);
            last_send = vtx;
        }
        if (!mpi_errno)
            mpi_errno = deps_list_add(&done, vtx);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(c->sched, done.n, done.v, front);
    MPL_free(done.v);
    return mpi_errno;
}

/* Down one step: the group's leader (member 0) passes the prefix of the ranks before the
 * group (*e) down a binomial tree of the members, each of which puts it before its own
 * exclusive prefix x in the group.  *e becomes this member's prefix of the ranks before
 * its subgroup (NULL: none, rank 0's). */
static int scan_down(const scan_ctx * c, const scan_step * st, void *x, void **e, int *front)
{
    MPII_Hier_tree_node tree;
    int mpi_errno = MPI_SUCCESS, after = *front;

    if (st->after_others) {
        if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0,
                                     1, st->comm->rank))
            return MPI_ERR_NO_MEM;
        if (tree.parent >= 0) {
            *e = scan_tmp(c);
            mpi_errno = !*e ? MPI_ERR_NO_MEM :
                MPIR_TSP_sched_irecv(*e, c->count, c->type, tree.parent, st->tag, st->comm,
                                     c->sched, 1, &after, front);
            after = *front;
        }
        for (int i = 0; i < tree.nchildren && !mpi_errno; i++) {
            int vtx;
            mpi_errno = MPIR_TSP_sched_isend(*e, c->count, c->type, tree.children[i],
                                             st->tag, st->comm, c->sched, 1, &after, &vtx);
        }
        MPII_Hier_tree_node_free(&tree);
    }
    if (mpi_errno || !x)
        return mpi_errno;
    if (*e)
        mpi_errno = MPIR_TSP_sched_reduce_local(*e, x, c->count, c->type, c->op, c->sched, 1,
                                                &after, front);
    *e = x;
    return mpi_errno;
}

/* The result into recvbuf after *front: the prefix e of the ranks before this one, with
 * this rank's contribution after it for the scan (rank 0: the contribution alone); the
 * exscan leaves rank 0's recvbuf as it is. */
static int scan_result(const scan_ctx * c, const MPII_Hier_call * a, int exclusive, void *e,
                       int *front)
{
    int vtx, after = *front, mpi_errno = MPI_SUCCESS;
    if (exclusive)
        return e ? MPIR_TSP_sched_localcopy(e, c->count, c->type, a->buf, c->count, c->type,
                                            c->sched, 1, &after, &vtx) : MPI_SUCCESS;
    if (a->sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, c->count, c->type, a->buf, c->count,
                                             c->type, c->sched, 1, &after, front);
        after = *front;
    }
    if (!mpi_errno && e)
        mpi_errno = MPIR_TSP_sched_reduce_local(e, a->buf, c->count, c->type, c->op, c->sched,
                                                1, &after, &vtx);
    return mpi_errno;
}

/* Up the steps finest first, then down them coarsest first; steps[0 .. n - 1] */
static int scan_steps(const scan_ctx * c, const MPII_Hier_call * a, int exclusive,
                      const scan_step * steps, int n)
{
    void *part = scan_tmp(c), *x[MPII_HIER_MAX_STEPS], *e = NULL;
    int front, mpi_errno;

    if (!part)
        return MPI_ERR_NO_MEM;
    /* this rank's contribution into its partial (in place: it is in recvbuf) */
    mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf == MPI_IN_PLACE ? a->buf : a->sendbuf,
                                         c->count, c->type, part, c->count, c->type, c->sched,
                                         0, NULL, &front);
    for (int k = n - 1; k >= 0 && !mpi_errno; k--) {
        x[k] = NULL;
        if (steps[k].comm)
            mpi_errno = steps[k].chain ? scan_up_chain(c, &steps[k], &part, &x[k], &front) :
                scan_up(c, &steps[k], &part, &x[k], &front);
    }
    for (int k = 0; k < n && !mpi_errno; k++)
        if (steps[k].comm)
            mpi_errno = scan_down(c, &steps[k], x[k], &e, &front);
    return mpi_errno ? mpi_errno : scan_result(c, a, exclusive, e, &front);
}

/* Whether the top step among n leaders runs the chain: inter_algo linear, or by_size for a
 * message whose rounds of recursive doubling cost more (every leader decides alike) */
static int scan_chained(const MPII_Hier_call * a, const MPII_Hier_params * prm, int n)
{
    _Static_assert(MPII_HIER_SCAN_INTER_LINEAR == MPII_HIER_EXSCAN_INTER_LINEAR &&
                   MPII_HIER_SCAN_INTER_BY_SIZE == MPII_HIER_EXSCAN_INTER_BY_SIZE, "one list");
    if (prm->inter_algo == MPII_HIER_SCAN_INTER_LINEAR)
        return 1;
    return prm->inter_algo == MPII_HIER_SCAN_INTER_BY_SIZE &&
        !MPII_Hier_by_size_scan_latency(n, MPII_Hier_payload_bytes(a->count, a->datatype));
}

/* The chain's segment: MPII_HIER_SEGSIZE_DEFAULT bytes in whole elements, at least one */
static MPI_Aint scan_chain_count(const MPII_Hier_call * a)
{
    MPI_Aint type_size;
    MPIR_Datatype_get_size_macro(a->datatype, type_size);
    return MPL_MAX(1, MPII_HIER_SEGSIZE_DEFAULT / MPL_MAX(type_size, 1));
}

/* The steps of comm's hierarchy for the scan (root 0: each group's leader is its first
 * rank), or the whole comm as one step: while the plugin creates its comms, on one node
 * that nothing splits, and where some group is not a block of consecutive ranks (a
 * prefix of ranks is no combination of groups there: a flat fallback, counted). */
static int scan_plan(const MPII_Hier_call * a, int exclusive, scan_step * st, int *n)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(exclusive ?
                                                          MPIR_CVAR_EXSCAN_HIER_INTER_ALGORITHM :
                                                          MPIR_CVAR_SCAN_HIER_INTER_ALGORITHM, 0);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];
    _Static_assert(MPII_HIER_SCAN_INTER_COUNT == MPII_HIER_EXSCAN_INTER_COUNT, "one list");
    int mpi_errno = MPII_Hier_begin(a->comm, a->given, &cvars, MPII_HIER_SCAN_INTER_COUNT,
                                    a->calls_pvar, &prm, &hier);

    *n = 1;
    st[0] = (scan_step) { a->comm, 0, 0, 0 };
    if (mpi_errno)
        return mpi_errno;
    if (hier && !MPII_Hier_one_node(hier) &&
        !MPII_Hier_hierarchy_is_rank_ordered(MPII_Hier_used(hier))) {
        MPII_HIER_PVAR_ADD(FLAT_FALLBACKS, 1);
        hier = NULL;
    }
    if (!hier || MPII_Hier_one_node(hier))
        return MPII_Hier_tags_draw(a->comm, 1, 1, &st[0].tag);
    mpi_errno = MPII_Hier_steps_get(a->comm, hier, 0, &steps);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_step_tags(&steps, tag);
    *n = steps.nsteps;
    for (int k = 0; k < steps.nsteps; k++)
        st[k] = (scan_step) { steps.step[k].comm, tag[k], steps.step[k].instance != 0, 0 };
    if (st[0].comm && scan_chained(a, &prm, st[0].comm->local_size))
        st[0].chain = scan_chain_count(a);
    return mpi_errno;
}

/* Algorithm: hierarchical scan (exclusive: exscan) over the N levels, as one schedule
 *
 *     up the steps, finest first: recursive doubling of the partials among each step's
 *         members, which leaves each member the exclusive prefix of its group's ranks
 *         before it and the group's leader (its first rank) the group's total, its partial
 *         for the next step up; the top step (inter_algo; by_size: by the message) either
 *         so or as a chain in rank order that pipelines segments, where no total is needed;
 *     down the steps, coarsest first: each leader passes the prefix of the ranks before
 *         its group down a binomial tree of the step's members, which put it before their
 *         exclusive prefix in the group;
 *     the result: that prefix, then (scan) this rank's contribution.
 * Every combination keeps rank order (a prefix goes before what follows it), so
 * non-commutative ops combine as MPI says.  One node, or groups that are not blocks of
 * consecutive ranks: the recursive doubling on comm alone.
 */
int MPII_Hier_scan_sched(const MPII_Hier_call * a, int exclusive, MPIR_TSP_sched_t sched)
{
    scan_ctx c = { a->count, a->datatype, a->op, 0, 0, sched };
    scan_step steps[MPII_HIER_MAX_STEPS];
    MPI_Aint extent, true_extent;
    int n, vtx;

    if (a->count == 0 || MPII_Hier_payload_bytes(a->count, a->datatype) == 0)
        return MPI_SUCCESS;
    if (a->comm->local_size == 1)
        return exclusive || a->sendbuf == MPI_IN_PLACE ? MPI_SUCCESS :
            MPIR_TSP_sched_localcopy(a->sendbuf, a->count, a->datatype, a->buf, a->count,
                                     a->datatype, sched, 0, NULL, &vtx);
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    MPIR_Type_get_true_extent_impl(a->datatype, &c.lb, &true_extent);
    c.span = a->count * MPL_MAX(extent, true_extent);
    int mpi_errno = scan_plan(a, exclusive, steps, &n);
    return mpi_errno ? mpi_errno : scan_steps(&c, a, exclusive, steps, n);
}

static int scan_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    return MPII_Hier_scan_sched(a, 0, sched);
}

static int exscan_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    return MPII_Hier_scan_sched(a, 1, sched);
}

int MPII_Hier_scan_entry(int exclusive, const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm, int inter_algo,
                         int calls_pvar, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    if (sched)
        return MPII_Hier_scan_sched(&call, exclusive, sched);
    return MPII_Hier_sched_wait(exclusive ? exscan_sched : scan_sched, &call);
}

int MPIR_Scan_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr, int inter_algo,
                         int coll_attr)
{
    return MPII_Hier_scan_entry(0, sendbuf, recvbuf, count, datatype, op, comm_ptr, inter_algo,
                                MPII_HIER_PVAR_CALLS(scan, hier), NULL);
}

int MPIR_TSP_Iscan_sched_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                    MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                                    MPIR_TSP_sched_t sched)
{
    return MPII_Hier_scan_entry(0, sendbuf, recvbuf, count, datatype, op, comm_ptr, -1,
                                MPII_HIER_PVAR_CALLS(iscan, tsp_hier), sched);
}
