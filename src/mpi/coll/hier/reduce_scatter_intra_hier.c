/*
 * mpich-hier: hierarchical reduce-scatter and reduce-scatter-block, one schedule for
 * their blocking, non-blocking and persistent forms.
 */

#include "hier_impl.h"

/* What every vertex of one reduce-scatter's schedule shares */
typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    MPI_Aint extent, span, lb;  /* an element's extent and room (with its true extent), the
                                 * type's true lower bound */
    const MPI_Aint *at;         /* [size + 1] where each rank's block starts in the vector
                                 * (elements) */
    MPI_Aint total;             /* the vector's length, at[size] */
    MPIR_TSP_sched_t sched;
} rs_ctx;

/* Elements [lo, lo + n) of the vector, held at buf */
typedef struct {
    char *buf;
    MPI_Aint lo, n;
} rs_run;

/* A temporary of n elements, freed with the schedule; NULL when out of memory */
static char *rs_tmp(const rs_ctx * c, MPI_Aint n)
{
    char *p = MPIR_TSP_sched_malloc(MPL_MAX(n, 1) * c->span, c->sched);
    return p ? p - c->lb : NULL;
}

/* Where element i of the vector lies in run r (r holds it) */
static char *rs_at(const rs_ctx * c, const rs_run * r, MPI_Aint i)
{
    return r->buf + (i - r->lo) * c->extent;
}

/* The run of the vector that members m .. m + len - 1 of step st hold between them */
static rs_run rs_members_run(const rs_ctx * c, const MPII_Hier_run_step * st, int m,
                             int len)
{
    rs_run r = { NULL, 0, 0 };
    r.n = MPII_Hier_run_span(st, c->at, m, len, &r.lo);
    return r;
}

/* Up one step: a binomial reduce of the whole vector (*part, ready after *front) to the
 * step's member 0.  A child's subtree holds the members right after those this member has
 * combined so far (nearest child first), so its partial goes after them: rank order. */
static int rs_up(const rs_ctx * c, const MPII_Hier_run_step * st, char **part,
                 int *front)
{
    MPII_Hier_tree_node tree;
    MPI_Aint total = c->total;
    int mpi_errno = MPI_SUCCESS;

    if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0, 1,
                                 st->comm->rank))
        return MPI_ERR_NO_MEM;
    for (int i = tree.nchildren - 1; i >= 0 && !mpi_errno; i--) {
        char *in = rs_tmp(c, total);
        int v[2] = { -1, *front };
        mpi_errno = !in ? MPI_ERR_NO_MEM :
            MPIR_TSP_sched_irecv(in, total, c->type, tree.children[i], st->tag, st->comm,
                                 c->sched, 0, NULL, &v[0]);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_reduce_local(*part, in, total, c->type, c->op,
                                                    c->sched, 2, v, front);
        *part = in;
    }
    if (!mpi_errno && tree.parent >= 0) {
        int after = *front;
        mpi_errno = MPIR_TSP_sched_isend(*part, total, c->type, tree.parent, st->tag,
                                         st->comm, c->sched, 1, &after, front);
    }
    MPII_Hier_tree_node_free(&tree);
    return mpi_errno;
}

/* The top step: member j receives piece j (its groups' run) of every other member's
 * partial while it sends theirs, and combines the pieces in member order, member 0's
 * first: rank order.  *have: its groups' run, ready after *front. */
static int rs_top(const rs_ctx * c, const MPII_Hier_run_step * st, char *part,
                  rs_run * have, int *front)
{
    int size = st->comm->local_size, me = st->comm->rank, mpi_errno = MPI_SUCCESS;
    int after = *front, acc_vtx = *front;
    rs_run full = { part, 0, c->total }, mine = rs_members_run(c, st, me, 1);
    char *acc = NULL;

    /* each member starts with the next one's piece: no two send to one member at once */
    for (int i = 1; i < size && !mpi_errno; i++) {
        int to = (me + i) % size, vtx;
        rs_run piece = rs_members_run(c, st, to, 1);
        if (piece.n > 0)
            mpi_errno = MPIR_TSP_sched_isend(rs_at(c, &full, piece.lo), piece.n, c->type, to,
                                             st->tag, st->comm, c->sched, 1, &after, &vtx);
    }
    for (int i = 0; i < size && mine.n > 0 && !mpi_errno; i++) {
        char *piece = i == me ? rs_at(c, &full, mine.lo) : rs_tmp(c, mine.n);
        int v[2] = { acc_vtx, *front };
        if (!piece)
            return MPI_ERR_NO_MEM;
        if (i != me)
            mpi_errno = MPIR_TSP_sched_irecv(piece, mine.n, c->type, i, st->tag, st->comm,
                                             c->sched, 0, NULL, &v[1]);
        if (!mpi_errno && acc)
            mpi_errno = MPIR_TSP_sched_reduce_local(acc, piece, mine.n, c->type, c->op,
                                                    c->sched, 2, v, &acc_vtx);
        else
            acc_vtx = v[1];
        acc = piece;
    }
    *have = (rs_run) { acc ? acc : part, mine.lo, mine.n };
    *front = acc_vtx;
    return mpi_errno;
}

/* Down one step: member 0 holds its groups' run (*have); a binomial scatter gives each
 * member the run of its subtree's members, which *have becomes (ready after *front). */
static int rs_down(const rs_ctx * c, const MPII_Hier_run_step * st, rs_run * have,
                   int *front)
{
    MPII_Hier_tree_node tree;
    int size = st->comm->local_size, me = st->comm->rank, mpi_errno = MPI_SUCCESS;

    if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, size, 0, 1, me))
        return MPI_ERR_NO_MEM;
    if (tree.parent >= 0) {
        rs_run sub = rs_members_run(c, st, me, MPII_Hier_run_subtree(st, me));
        int after = *front;
        sub.buf = rs_tmp(c, sub.n);
        mpi_errno = !sub.buf ? MPI_ERR_NO_MEM : sub.n == 0 ? MPI_SUCCESS :
            MPIR_TSP_sched_irecv(sub.buf, sub.n, c->type, tree.parent, st->tag, st->comm,
                                 c->sched, 1, &after, front);
        *have = sub;
    }
    for (int i = 0; i < tree.nchildren && !mpi_errno; i++) {
        int child = tree.children[i], vtx, after = *front;
        rs_run sub = rs_members_run(c, st, child, MPII_Hier_run_subtree(st, child));
        if (sub.n > 0)
            mpi_errno = MPIR_TSP_sched_isend(rs_at(c, have, sub.lo), sub.n, c->type, child,
                                             st->tag, st->comm, c->sched, 1, &after, &vtx);
    }
    MPII_Hier_tree_node_free(&tree);
    return mpi_errno;
}

/* Up the steps below the top one finest first, the top step, down the others coarsest
 * first; then this rank's block into recvbuf */
static int rs_steps(const rs_ctx * c, const MPII_Hier_call * a, const MPII_Hier_run_step * steps,
                    int n)
{
    char *part = rs_tmp(c, c->total);
    rs_run have;
    int front, vtx, me = a->comm->rank, mpi_errno;

    if (!part)
        return MPI_ERR_NO_MEM;
    /* this rank's contribution (in place: the whole vector is in recvbuf) */
    mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf == MPI_IN_PLACE ? a->buf : a->sendbuf,
                                         c->total, c->type, part, c->total, c->type, c->sched,
                                         0, NULL, &front);
    for (int k = n - 1; k > 0 && !mpi_errno; k--)
        if (steps[k].comm)
            mpi_errno = rs_up(c, &steps[k], &part, &front);
    have = (rs_run) { part, 0, c->total };
    if (!mpi_errno && steps[0].comm)
        mpi_errno = rs_top(c, &steps[0], part, &have, &front);
    for (int k = 1; k < n && !mpi_errno; k++)
        if (steps[k].comm)
            mpi_errno = rs_down(c, &steps[k], &have, &front);
    MPI_Aint len = c->at[me + 1] - c->at[me];
    if (mpi_errno || len == 0)
        return mpi_errno;
    return MPIR_TSP_sched_localcopy(rs_at(c, &have, c->at[me]), len, c->type, a->buf, len,
                                    c->type, c->sched, 1, &front, &vtx);
}

/* Algorithm: hierarchical reduce-scatter over the N levels, as one schedule (the block
 * variant: every count the same)
 *
 *     up the steps below the top one, finest first: each group reduces the whole vector
 *         onto its leader (its first rank) along a binomial tree, in rank order;
 *     the top step (inter_algo linear): each top leader sends every other one that one's
 *         piece, the run of the vector its groups' ranks receive, and combines the pieces
 *         it gets in rank order;
 *     down the steps, coarsest first: each leader scatters its run along a binomial tree,
 *         each member getting the run of the ranks that reach the step through its subtree;
 *     this rank's block into recvbuf.
 * Every node link carries the vector's pieces for the other nodes once (MPICH's flat
 * algorithms send one copy per rank of the node).  Groups that are not blocks of
 * consecutive ranks (their pieces would not be runs), one node, and calls while the
 * plugin makes its comms: the top step's exchange among all ranks of comm.
 */
static int rs_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    int block = !a->counts, size = a->comm->local_size, n = 0;
    const MPII_Hier_params cvars =
        MPII_HIER_PARAMS_STEPS(block ? MPIR_CVAR_REDUCE_SCATTER_BLOCK_HIER_INTER_ALGORITHM :
                               MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM, 0);
    rs_ctx c = { a->datatype, a->op, 0, 0, 0, NULL, 0, sched };
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    _Static_assert((int) MPII_HIER_REDUCE_SCATTER_INTER_COUNT ==
                   (int) MPII_HIER_REDUCE_SCATTER_BLOCK_INTER_COUNT, "one list");
    MPI_Aint true_extent, *at = MPL_malloc(sizeof(MPI_Aint) * (size + 1), MPL_MEM_COLL);
    int mpi_errno = at ? MPI_SUCCESS : MPI_ERR_NO_MEM;

    if (at) {
        at[0] = 0;
        for (int r = 0; r < size; r++)
            at[r + 1] = at[r] + (block ? a->count : a->counts[r]);
        c.at = at;
        c.total = at[size];
    }
    MPIR_Datatype_get_extent_macro(a->datatype, c.extent);
    MPIR_Type_get_true_extent_impl(a->datatype, &c.lb, &true_extent);
    c.span = MPL_MAX(c.extent, true_extent);
    if (!mpi_errno && size == 1 && a->sendbuf != MPI_IN_PLACE && c.total > 0) {
        int vtx;
        mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, c.total, c.type, a->buf, c.total,
                                             c.type, sched, 0, NULL, &vtx);
    } else if (!mpi_errno && size > 1 && c.total > 0 &&
               MPII_Hier_payload_bytes(c.total, a->datatype) > 0) {
        int inter_algo;         /* linear, the one item */
        mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_REDUCE_SCATTER_INTER_COUNT,
                                             NULL, steps, &n, &inter_algo);
        if (!mpi_errno)
            mpi_errno = rs_steps(&c, a, steps, n);
    }
    MPII_Hier_run_steps_free(steps, n);
    MPL_free(at);
    return mpi_errno;
}

int MPII_Hier_reduce_scatter_entry(const void *sendbuf, void *recvbuf,
                                   const MPI_Aint * recvcounts, MPI_Aint recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm,
                                   int inter_algo, int calls_pvar, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = recvcount,
        .counts = recvcounts, .datatype = datatype, .op = op, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    if (sched)
        return rs_sched(&call, sched);
    return MPII_Hier_sched_wait(rs_sched, &call);
}

int MPIR_Reduce_scatter_intra_hier(const void *sendbuf, void *recvbuf,
                                   const MPI_Aint recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPIR_Comm * comm_ptr, int inter_algo,
                                   int coll_attr)
{
    return MPII_Hier_reduce_scatter_entry(sendbuf, recvbuf, recvcounts, 0, datatype, op,
                                          comm_ptr, inter_algo,
                                          MPII_HIER_PVAR_CALLS(reduce_scatter, hier), NULL);
}

int MPIR_TSP_Ireduce_scatter_sched_intra_hier(const void *sendbuf, void *recvbuf,
                                              const MPI_Aint recvcounts[],
                                              MPI_Datatype datatype, MPI_Op op,
                                              MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    return MPII_Hier_reduce_scatter_entry(sendbuf, recvbuf, recvcounts, 0, datatype, op,
                                          comm_ptr, -1,
                                          MPII_HIER_PVAR_CALLS(ireduce_scatter, tsp_hier),
                                          sched);
}
