/*
 * mpich-hier: the hier allgather, gather, scatter and barrier as one schedule each
 * (MPI_Iallgather, MPI_Igather, MPI_Iscatter, MPI_Ibarrier and their _init forms; the
 * blocking forms under MPIR_CVAR_HIER_SCHEDULE_BLOCKING).
 *
 * The steps of the blocking algorithms (MPII_Hier_steps_get), written as gentran vertices:
 * sends and receives on the steps' comms, each step's messages tagged from the source of
 * tags that comm's other users draw from (MPII_Hier_step_tags), so that they never meet
 * theirs.  What the schedule cannot run: MPICH's and the device's intra-node algorithms
 * (the finest step gathers and scatters linearly onto and from its leader, the bcasts and
 * fans go down binomial trees) and the allgather's and barrier's auto submodules (ring
 * and dissemination).
 */

#include "hier_impl.h"

/* Vertices a later one waits for; with each, the stage bytes it writes (receives; NULL
 * for the others), so that a piece can wait for only the receives that bring it. */
typedef struct {
    int n, max;
    int *v;
    char **at;
    MPI_Aint *len;
} deps;

static int deps_add_range(deps * d, int vtx, char *at, MPI_Aint len)
{
    if (d->n == d->max) {
        int max = d->max ? 2 * d->max : 16;
        int *v = MPL_realloc(d->v, sizeof(int) * max, MPL_MEM_COLL);
        if (v)
            d->v = v;
        char **a = MPL_realloc(d->at, sizeof(char *) * max, MPL_MEM_COLL);
        if (a)
            d->at = a;
        MPI_Aint *l = MPL_realloc(d->len, sizeof(MPI_Aint) * max, MPL_MEM_COLL);
        if (l)
            d->len = l;
        if (!v || !a || !l)
            return MPI_ERR_NO_MEM;
        d->max = max;
    }
    d->at[d->n] = at;
    d->len[d->n] = len;
    d->v[d->n++] = vtx;
    return MPI_SUCCESS;
}

static int deps_add(deps * d, int vtx)
{
    return deps_add_range(d, vtx, NULL, 0);
}

static void deps_free(deps * d)
{
    MPL_free(d->v);
    MPL_free(d->at);
    MPL_free(d->len);
}

/* A vertex after those of d that may touch bytes [at, at + len): every one without a
 * range, and the receives into an overlapping one. */
static int deps_sink_over(const deps * d, const char *at, MPI_Aint len, MPIR_TSP_sched_t sched,
                          int *vtx)
{
    deps over = { 0 };
    int mpi_errno = MPI_SUCCESS;
    for (int i = 0; i < d->n && !mpi_errno; i++)
        if (!d->at[i] || (d->at[i] < at + len && at < d->at[i] + d->len[i]))
            mpi_errno = deps_add(&over, d->v[i]);
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, over.n, over.v, vtx);
    deps_free(&over);
    return mpi_errno;
}

/* The start every builder shares: the call's parameters (the blocking algorithm's CVARs
 * for those it leaves negative) and comm's steps for root; *hier NULL (the caller builds
 * MPICH's tree on comm) while the plugin creates its comms or when comm is one node that
 * nothing splits. */
static int sched_begin(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                       int n_inter_algos, int root, MPII_Hier_params * prm,
                       MPII_Hier_comm ** hier, MPII_Hier_steps * steps, int *tag)
{
    MPIR_Comm *comm = call->comm;
    int mpi_errno = MPII_Hier_begin(comm, call->given, cvars, n_inter_algos, call->calls_pvar,
                                    prm, hier);
    if (mpi_errno || !*hier)
        return mpi_errno;
    if (MPII_Hier_one_node(*hier)) {
        *hier = NULL;
        return MPI_SUCCESS;
    }
    mpi_errno = MPII_Hier_steps_get(comm, *hier, root, steps);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_step_tags(steps, tag);
    return mpi_errno;
}

/* Where rank's finest group begins in a stage that holds the whole layout */
static char *finest_group_stage(const MPII_Hier_steps * steps, char *stage, MPI_Aint block,
                                int rank)
{
    return stage + MPII_Hier_hierarchy_finest_start(steps->h, steps->col, rank) * block;
}

/* Tree step k's pieces (MPII_Hier_rooted_pieces) as vertices: each receive into the
 * stage joins *written; the first send goes after *written, each later one after the send
 * before it.  *sent: the last send (unchanged when there is none). */
static int sched_rooted_step(const MPII_Hier_steps * steps, int k, int tag,
                             MPII_Hier_tree_kind kind, int gathering, char *stage,
                             MPI_Aint block, deps * written, MPIR_TSP_sched_t sched, int *sent)
{
    MPIR_Comm *comm = steps->step[k].comm;
    MPII_Hier_piece *pc;
    int n, prev = -1, vtx;
    int mpi_errno = MPII_Hier_rooted_pieces(steps, k, kind, gathering, &pc, &n);

    for (int i = 0; i < n && !mpi_errno; i++) {
        char *at = stage + pc[i].at * block;
        MPI_Aint bytes = pc[i].len * block;
        if (!pc[i].sends) {
            mpi_errno = MPIR_TSP_sched_irecv(at, bytes, MPIR_BYTE_INTERNAL, pc[i].peer, tag, comm,
                                             sched, 0, NULL, &vtx);
            if (!mpi_errno && deps_add_range(written, vtx, at, bytes))
                mpi_errno = MPI_ERR_NO_MEM;
            continue;
        }
        mpi_errno = MPIR_TSP_sched_isend(at, bytes, MPIR_BYTE_INTERNAL, pc[i].peer, tag, comm,
                                         sched, prev < 0 ? written->n : 1,
                                         prev < 0 ? written->v : &prev, &vtx);
        prev = *sent = vtx;
    }
    MPL_free(pc);
    return mpi_errno;
}

/* Up the steps from the finest to `last` (MPII_Hier_rooted_gather as vertices): the finest
 * step's members send (sendbuf, sendcount, sendtype) to its leader, after *written; each
 * coarser step's pieces as in the blocking form.  *written: the vertices that write into
 * this rank's stage (receives), which a send of the stage follows; *sent the last send
 * (-1: none). */
static int sched_gather_up(const MPII_Hier_steps * steps, const int *tag, int last,
                           MPII_Hier_tree_kind kind, const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, char *stage, MPI_Aint block, deps * written,
                           MPIR_TSP_sched_t sched, int *sent)
{
    int mpi_errno = MPI_SUCCESS, vtx;
    int n = steps->nsteps - 1;

    *sent = -1;
    const MPII_Hier_step *fin = &steps->step[n];
    if (fin->comm && n >= last) {
        if (fin->comm->rank == fin->root) {
            for (int p = 0; p < fin->comm->local_size; p++) {
                if (p == fin->root)
                    continue;
                char *at = MPII_Hier_finest_block(stage, p, block);
                mpi_errno = MPIR_TSP_sched_irecv(at, block, MPIR_BYTE_INTERNAL, p, tag[n],
                                                 fin->comm, sched, 0, NULL, &vtx);
                MPIR_ERR_CHECK(mpi_errno);
                MPIR_ERR_CHKANDJUMP(deps_add_range(written, vtx, at, block),
                                    mpi_errno, MPI_ERR_OTHER, "**nomem");
            }
        } else {
            mpi_errno = MPIR_TSP_sched_isend(sendbuf, sendcount, sendtype, fin->root, tag[n],
                                             fin->comm, sched, written->n, written->v, sent);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    for (int k = n - 1; k >= last && !mpi_errno; k--)
        if (steps->step[k].comm)
            mpi_errno = sched_rooted_step(steps, k, tag[k], kind, 1, stage, block, written,
                                          sched, sent);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* One rank, or no byte to move: the call's own block to recvbuf where `copy` says */
static int sched_own_copy(const MPII_Hier_call * a, int copy, MPIR_TSP_sched_t sched)
{
    int vtx;
    if (!copy)
        return MPI_SUCCESS;
    return MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype, a->buf, a->count,
                                    a->datatype, sched, 0, NULL, &vtx);
}

/* Every rank's block from its place in the stage (the gathered layout) to recvbuf, after
 * the n_in vertices in; skip: a rank whose block is there already (-1: none). */
static int sched_unstage(const MPII_Hier_steps * steps, char *stage, MPI_Aint block,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int skip,
                         int n_in, int *in, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, vtx;
    MPI_Aint extent;

    MPIR_Datatype_get_extent_macro(recvtype, extent);
    for (int r = 0; r < steps->comm->local_size && !mpi_errno; r++) {
        if (r == skip)
            continue;
        long long at = MPII_Hier_hierarchy_block_at(steps->h, steps->col, r);
        mpi_errno = MPIR_TSP_sched_localcopy(stage + at * block, block, MPIR_BYTE_INTERNAL,
                                             (char *) recvbuf + r * recvcount * extent, recvcount,
                                             recvtype, sched, n_in, in, &vtx);
    }
    return mpi_errno;
}

/* What the gather's and scatter's schedules share before their steps */
typedef int (*rooted_tree_fn) (const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                               int root, MPIR_Comm * comm, int k, MPIR_TSP_sched_t sched);
typedef struct {
    MPII_Hier_params cvars;
    int n_inter_algos;
    MPII_Hier_rooted_items items;
    int gathers;                /* 1: gather, 0: scatter (MPII_Hier_rooted_prepare) */
    rooted_tree_fn flat;        /* MPICH's tree schedule, where the plugin has no steps */
} rooted_coll;
typedef struct {
    MPII_Hier_rooted_plan p;    /* as the blocking form's (hier_impl.h) */
    int tag[MPII_HIER_MAX_STEPS];
} rooted_state;

/* The own copy where nothing moves, MPICH's tree where the plugin has no steps (*on_steps
 * 0); else the steps for the root, their tree, and a leader's stage. */
static int sched_rooted_begin(const MPII_Hier_call * a, const rooted_coll * rc,
                              MPIR_TSP_sched_t sched, rooted_state * s, int *on_steps)
{
    MPII_Hier_comm *hier;
    int mpi_errno;

    *on_steps = 0;
    MPII_Hier_rooted_prepare(a, rc->gathers, &s->p);
    if (a->comm->local_size == 1 || s->p.block == 0)
        return sched_own_copy(a, s->p.block > 0 && !s->p.in_place, sched);
    mpi_errno = sched_begin(a, &rc->cvars, rc->n_inter_algos, a->root, &s->p.prm, &hier,
                            &s->p.steps, s->tag);
    if (mpi_errno || !hier)
        return mpi_errno ? mpi_errno : rc->flat(a->sendbuf, a->sendcount, a->sendtype, a->buf,
                                                a->count, a->datatype, a->root, a->comm, 2,
                                                sched);
    long long nblocks = MPII_Hier_rooted_plan_tree(&s->p, rc->items);
    if (nblocks > 0)
        s->p.stage = MPIR_TSP_sched_malloc(nblocks * s->p.block, sched);
    if (nblocks < 0 || (nblocks > 0 && !s->p.stage))
        return MPI_ERR_NO_MEM;
    *on_steps = 1;
    return MPI_SUCCESS;
}

/* Algorithm: the hier gather as one schedule
 *
 * The blocking form's steps and layout (MPIR_Gather_intra_hier) as vertices: the leader's
 * own block copied into its stage; the finest step's members send their blocks to its
 * leader; each coarser step receives the children's subtree pieces and sends the whole
 * after every receive into the stage; the root copies the blocks into recvbuf after all.
 * Tree of the steps: the call's inter_algo (MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM).
 */
static int sched_gather_steps(const MPII_Hier_call * a, const rooted_state * s,
                              deps * written, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, vtx, sent, rank = a->comm->rank;

    if (s->p.stage) {
        /* a leader: its own block at its place in its finest group */
        MPII_Hier_own_copy own = MPII_Hier_gather_own_copy(a, &s->p);
        mpi_errno = MPIR_TSP_sched_localcopy(own.buf, own.count, own.type, own.at, s->p.block,
                                             MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
        if (!mpi_errno && deps_add(written, vtx))
            mpi_errno = MPI_ERR_NO_MEM;
    }
    if (!mpi_errno)
        mpi_errno = sched_gather_up(&s->p.steps, s->tag, 0, s->p.kind, a->sendbuf,
                                    a->sendcount, a->sendtype, s->p.stage, s->p.block, written,
                                    sched, &sent);
    if (!mpi_errno && rank == a->root)
        mpi_errno = sched_unstage(&s->p.steps, s->p.stage, s->p.block, a->buf, a->count,
                                  a->datatype, s->p.in_place ? a->root : -1, written->n,
                                  written->v, sched);
    return mpi_errno;
}

/* The scatter's steps above the finest: each member receives its subtree's piece from its
 * parent and sends each child its piece; *ready: the vertices after which this rank's
 * stage holds its piece. */
static int sched_scatter_down(const MPII_Hier_steps * steps, const int *tag,
                              MPII_Hier_tree_kind kind, char *stage, MPI_Aint block,
                              deps * ready, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, sent;
    for (int k = 0; k < steps->nsteps - 1 && !mpi_errno; k++)
        if (steps->step[k].comm)
            mpi_errno = sched_rooted_step(steps, k, tag[k], kind, 0, stage, block, ready, sched,
                                          &sent);
    return mpi_errno;
}

/* The scatter's finest step: from its leader, which keeps its own block */
static int sched_scatter_finest(const MPII_Hier_steps * steps, const int *tag, char *stage,
                                MPI_Aint block, void *recvbuf, MPI_Aint recvcount,
                                MPI_Datatype recvtype, int in_place, const deps * ready,
                                MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, vtx, n = steps->nsteps - 1;
    const MPII_Hier_step *fin = &steps->step[n];
    int leads = !fin->comm || fin->comm->rank == fin->root;

    if (fin->comm && !leads)
        return MPIR_TSP_sched_irecv(recvbuf, recvcount, recvtype, fin->root, tag[n], fin->comm,
                                    sched, 0, NULL, &vtx);
    for (int p = 0; fin->comm && p < fin->comm->local_size && !mpi_errno; p++) {
        if (p != fin->root)
            mpi_errno = MPIR_TSP_sched_isend(MPII_Hier_finest_block(stage, p, block), block,
                                             MPIR_BYTE_INTERNAL, p, tag[n], fin->comm, sched,
                                             ready->n, ready->v, &vtx);
    }
    long long my_pos = MPII_Hier_hierarchy_finest_pos(steps->h, steps->comm->rank);
    if (!mpi_errno && !in_place)
        mpi_errno = MPIR_TSP_sched_localcopy(MPII_Hier_finest_block(stage, my_pos, block), block,
                                             MPIR_BYTE_INTERNAL, recvbuf, recvcount, recvtype,
                                             sched, ready->n, ready->v, &vtx);
    return mpi_errno;
}

/* Algorithm: the hier scatter as one schedule
 *
 * The hier gather's schedule backwards: the root copies every block into the layout; each
 * step's member receives its subtree's piece from its parent and then sends each child its
 * piece, in turn; the finest step's leader sends each member its block, which the
 * members receive into recvbuf.
 */
static int sched_scatter_steps(const MPII_Hier_call * a, const rooted_state * s,
                               deps * ready, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, vtx;

    for (int r = 0; a->comm->rank == a->root && r < a->comm->local_size && !mpi_errno; r++) {
        long long at = MPII_Hier_hierarchy_block_at(s->p.steps.h, s->p.steps.col, r);
        mpi_errno = MPIR_TSP_sched_localcopy((const char *) a->sendbuf + r * a->sendcount *
                                             s->p.extent, a->sendcount, a->sendtype,
                                             s->p.stage + at * s->p.block, s->p.block,
                                             MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
        if (!mpi_errno && deps_add(ready, vtx))
            mpi_errno = MPI_ERR_NO_MEM;
    }
    if (!mpi_errno)
        mpi_errno = sched_scatter_down(&s->p.steps, s->tag, s->p.kind, s->p.stage, s->p.block,
                                       ready, sched);
    if (!mpi_errno)
        mpi_errno = sched_scatter_finest(&s->p.steps, s->tag, s->p.stage, s->p.block, a->buf,
                                         a->count, a->datatype, s->p.in_place, ready, sched);
    return mpi_errno;
}

/* The gather's (gathers) or the scatter's schedule; deps: the vertices the steps add */
static int sched_rooted_run(int gathers, const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const rooted_coll gather = {
        MPII_HIER_PARAMS_STEPS(MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM,
                               MPIR_CVAR_GATHER_HIER_INTRA_ALGORITHM),
        MPII_HIER_GATHER_INTER_COUNT,
        {MPII_HIER_GATHER_INTER_LINEAR, MPII_HIER_GATHER_INTER_BY_SIZE}, 1,
        MPIR_TSP_Igather_sched_intra_tree
    }, scatter = {
        MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM,
                               MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM),
        MPII_HIER_SCATTER_INTER_COUNT,
        {MPII_HIER_SCATTER_INTER_LINEAR, MPII_HIER_SCATTER_INTER_BY_SIZE}, 0,
        MPIR_TSP_Iscatter_sched_intra_tree
    };
    rooted_state s;
    deps added = { 0 };
    int mpi_errno, on_steps;

    MPIR_FUNC_ENTER;
    mpi_errno = sched_rooted_begin(a, gathers ? &gather : &scatter, sched, &s, &on_steps);
    if (!mpi_errno && on_steps)
        mpi_errno = gathers ? sched_gather_steps(a, &s, &added, sched) :
            sched_scatter_steps(a, &s, &added, sched);
    deps_free(&added);
    MPIR_FUNC_EXIT;
    return mpi_errno;
}

int MPII_Hier_gather_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    return sched_rooted_run(1, a, sched);
}

int MPII_Hier_scatter_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    return sched_rooted_run(0, a, sched);
}

/* The steps below the top, down: each one's binomial tree (rooted where the step is), its
 * children's last sends (none yet: -1), and where each child's subtree (held[k][c]) and
 * this member's own (held[k][nchildren]) lie in the stage, from `base` (this rank's
 * subtree start) in blocks: what the way up brought there, which nobody sends again. */
typedef struct {
    MPII_Hier_tree_node tree[MPII_HIER_MAX_STEPS];
    int *last[MPII_HIER_MAX_STEPS];
    MPII_Hier_piece *held[MPII_HIER_MAX_STEPS];
    char *base;
    MPI_Aint block;
} down_trees;

static void down_trees_free(down_trees * d)
{
    for (int k = 0; k < MPII_HIER_MAX_STEPS; k++) {
        MPII_Hier_tree_node_free(&d->tree[k]);
        MPL_free(d->last[k]);
        MPL_free(d->held[k]);
    }
}

/* The finest step's gather is linear (sched_gather_up): each member holds its own block
 * only, at its rank in the step's comm from the start of the group */
static int down_held_linear(const MPII_Hier_tree_node * tree, int me, MPII_Hier_piece ** held)
{
    *held = MPL_malloc(sizeof(MPII_Hier_piece) * (tree->nchildren + 1), MPL_MEM_COLL);
    if (!*held)
        return MPI_ERR_NO_MEM;
    for (int c = 0; c < tree->nchildren; c++)
        (*held)[c] = (MPII_Hier_piece) { tree->children[c], 0, tree->children[c], 1 };
    (*held)[tree->nchildren] = (MPII_Hier_piece) { tree->parent, 1, me, 1 };
    return MPI_SUCCESS;
}

static int down_trees_init(const MPII_Hier_steps * steps, char *base, MPI_Aint block,
                           down_trees * d)
{
    memset(d, 0, sizeof(*d));
    d->base = base;
    d->block = block;
    for (int k = 1; k < steps->nsteps; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        int n;
        if (!st->comm)
            continue;
        if (MPII_Hier_tree_node_init(&d->tree[k], MPII_HIER_TREE_BINOMIAL, st->comm->local_size,
                                     st->root, 1, st->comm->rank) != 0)
            return MPI_ERR_NO_MEM;
        d->last[k] = MPL_malloc(sizeof(int) * MPL_MAX(1, d->tree[k].nchildren), MPL_MEM_COLL);
        if (!d->last[k] || (k < steps->nsteps - 1 ?
                            MPII_Hier_rooted_pieces(steps, k, MPII_HIER_TREE_BINOMIAL, 1,
                                                    &d->held[k], &n) :
                            down_held_linear(&d->tree[k], st->comm->rank, &d->held[k])))
            return MPI_ERR_NO_MEM;
        for (int c = 0; c < d->tree[k].nchildren; c++)
            d->last[k][c] = -1;
    }
    return MPI_SUCCESS;
}

/* Whether [at, at + len) lies inside held piece i of step k */
static int down_held(const down_trees * d, int k, int i, const char *at, MPI_Aint len)
{
    const char *first = d->base + d->held[k][i].at * d->block;
    return at >= first && at + len <= first + d->held[k][i].len * d->block;
}

/* One piece of a level-0 group's blocks down the steps below the top, after `avail` (this
 * rank has it then, if it is a level-0 leader): each step's member receives it from its
 * parent in the step's binomial tree (after `after`: nothing else writes or reads there
 * any more) and sends it on to its children, each send after the one before it to the
 * same child (last[k][c]) so that the pieces arrive in order.  No member is sent a piece
 * its own subtree brought up: it has it (after the receives of `after` that brought it)
 * and sends it on to those of its children that lack it.  *have: the vertex after which
 * this rank holds the piece. */
static int sched_bcast_down(const MPII_Hier_steps * steps, const int *tag, down_trees * d,
                            char *at, MPI_Aint len, int avail, const deps * after,
                            MPIR_TSP_sched_t sched, int *have)
{
    int mpi_errno = MPI_SUCCESS, n = steps->nsteps - 1;
    *have = avail;
    for (int k = 1; k <= n && !mpi_errno; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        MPII_Hier_tree_node *tree = &d->tree[k];
        if (!st->comm)
            continue;
        if (tree->parent >= 0 && down_held(d, k, tree->nchildren, at, len))
            mpi_errno = deps_sink_over(after, at, len, sched, have);
        else if (tree->parent >= 0)
            mpi_errno = MPIR_TSP_sched_irecv(at, len, MPIR_BYTE_INTERNAL, tree->parent, tag[k],
                                             st->comm, sched, after->n, after->v, have);
        for (int c = 0; c < tree->nchildren && !mpi_errno; c++) {
            int in[2] = { *have, d->last[k][c] };
            if (down_held(d, k, c, at, len))
                continue;
            mpi_errno = MPIR_TSP_sched_isend(at, len, MPIR_BYTE_INTERNAL, tree->children[c],
                                             tag[k], st->comm, sched, d->last[k][c] < 0 ? 1 : 2,
                                             in, &d->last[k][c]);
        }
    }
    return mpi_errno;
}

/* The ring of the level-0 leaders: my group's pieces, then the blocks from the left in
 * turn (MPII_Hier_ring_plan_init, as the blocking form), each piece down the group as it
 * arrives (sched_bcast_down, after `after`); my group's own after `gathered`, on the
 * leader after the receives of `after` that bring each. */
static int sched_leaders_ring(const MPII_Hier_steps * steps, const int *tag,
                              down_trees * down, const long long *offset,
                              int my_top, char *stage, MPI_Aint block, int segsize, int gathered,
                              const deps * after, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_hierarchy *h = steps->h;
    MPIR_Comm *top_comm = steps->step[0].comm;
    int ntop = h->nlevels == 0 ? steps->comm->local_size : h->level[0].ngroups;
    int right = (my_top + 1) % ntop, left = (my_top - 1 + ntop) % ntop;
    int mpi_errno = MPI_SUCCESS, sent_last = -1, recv_last = -1;
    MPII_Hier_ring_plan plan;
    MPII_Hier_ring_cursor next;

    MPII_Hier_ring_plan_init(&plan, offset, ntop, my_top, block, segsize);
    MPII_Hier_ring_cursor_init(&next, &plan, 0);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    for (int j = 0; j < plan.npieces && !mpi_errno; j++) {
        MPII_Hier_ring_piece pc = MPII_Hier_ring_next(&next);
        char *at = stage + pc.first;
        MPI_Aint len = pc.len;
        int have = j < plan.own ? gathered : -1, got;
        /* my group's own pieces: each as soon as the receives that bring it are in, so
         * that the ring starts while the group's farther blocks still come up */
        if (j < plan.own && top_comm)
            mpi_errno = deps_sink_over(after, at, len, sched, &have);
        if (j >= plan.own && top_comm && !mpi_errno) {
            /* from the left, each after the one before it: two posted at once can leave
             * the second one's post answering EAGAIN inside the schedule's start, before
             * this rank's first send to the right was issued */
            mpi_errno = MPIR_TSP_sched_irecv(at, len, MPIR_BYTE_INTERNAL, left, tag[0], top_comm,
                                             sched, recv_last < 0 ? 0 : 1, &recv_last, &have);
            recv_last = have;
            MPII_HIER_PVAR_ADD(ALLGATHER_HIER_SEGMENTS, 1);
        }
        /* on to the right, unless the right neighbour's own block came round; in order */
        if (top_comm && j < plan.npieces - plan.last && !mpi_errno) {
            int in[2] = { have, sent_last };
            mpi_errno = MPIR_TSP_sched_isend(at, len, MPIR_BYTE_INTERNAL, right, tag[0],
                                             top_comm, sched, sent_last < 0 ? 1 : 2, in,
                                             &sent_last);
        }
        if (!mpi_errno)
            mpi_errno = sched_bcast_down(steps, tag, down, at, len, have, after, sched, &got);
    }
    return mpi_errno;
}

/* The allgather's way up: my block (own, own_count, own_type) at its place in the stage,
 * then my group's blocks onto its leader (the hier gather's vertices, binomial trees).
 * *after: the vertices that what comes down must follow (it overwrites nothing still
 * being gathered or sent); *gathered: a vertex after all of them. */
static int sched_allgather_up(const MPII_Hier_steps * steps, const int *tag, const void *own,
                              MPI_Aint own_count, MPI_Datatype own_type, char *stage,
                              MPI_Aint block, deps * after, MPIR_TSP_sched_t sched, int *gathered)
{
    int rank = steps->comm->rank, mpi_errno, vtx, sent;
    long long my_at = MPII_Hier_hierarchy_block_at(steps->h, steps->col, rank);
    char *mine = stage + my_at * block;

    mpi_errno = MPIR_TSP_sched_localcopy(own, own_count, own_type, mine, block,
                                         MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
    if (mpi_errno)
        return mpi_errno;
    if (deps_add(after, vtx))
        return MPI_ERR_NO_MEM;
    mpi_errno = sched_gather_up(steps, tag, 1, MPII_HIER_TREE_BINOMIAL, mine, block,
                                MPIR_BYTE_INTERNAL, finest_group_stage(steps, stage, block, rank),
                                block, after, sched, &sent);
    if (mpi_errno)
        return mpi_errno;
    if (sent >= 0 && deps_add(after, sent))
        return MPI_ERR_NO_MEM;
    return MPIR_TSP_sched_selective_sink(sched, after->n, after->v, gathered);
}

/* Algorithm: the hier allgather as one schedule
 *
 * The blocking form's layout (MPIR_Allgather_intra_hier): each level-0 group's blocks
 * gathered onto its leader (the hier gather's vertices, binomial trees), the ring of the
 * level-0 leaders in pieces of MPIR_CVAR_ALLGATHER_HIER_SEGSIZE (each send after the one
 * before it and after the piece came in, each receive after the one before it), every
 * piece down its group's binomial trees as it arrives, and the blocks copied into recvbuf
 * after all.
 */
int MPII_Hier_allgather_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    void *recvbuf = a->buf;
    MPI_Aint recvcount = a->count;
    MPI_Datatype recvtype = a->datatype;
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_DATA(MPIR_CVAR_ALLGATHER_HIER_SEGSIZE,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];
    down_trees down = { 0 };
    deps after = { 0 };
    long long *offset = NULL;
    int rank = a->comm->rank, size = a->comm->local_size;
    int in_place = a->sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(recvtype, type_size);
    MPIR_Datatype_get_extent_macro(recvtype, extent);
    block = recvcount * type_size;
    if (size == 1 || block == 0) {
        mpi_errno = sched_own_copy(a, block > 0 && !in_place, sched);
        goto fn_exit;
    }
    mpi_errno = sched_begin(a, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT, 0, &prm, &hier, &steps,
                            tag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        mpi_errno = MPIR_TSP_Iallgather_sched_intra_ring(a->sendbuf, a->sendcount, a->sendtype,
                                                         recvbuf, recvcount, recvtype, a->comm,
                                                         sched);
        goto fn_exit;
    }

    const MPII_Hier_hierarchy *h = steps.h;
    int ntop = h->nlevels == 0 ? size : h->level[0].ngroups;
    int my_top = h->nlevels == 0 ? rank : h->level[0].group_of[rank];
    char *stage = MPIR_TSP_sched_malloc(size * block, sched);
    offset = MPL_malloc(sizeof(long long) * (ntop + 1), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!stage || !offset, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPII_Hier_hierarchy_step_offsets(h, 0, 0, 0, offset);

    int gathered;
    mpi_errno = sched_allgather_up(&steps, tag, in_place ? (char *) recvbuf + rank * recvcount *
                                   extent : a->sendbuf, in_place ? recvcount : a->sendcount,
                                   in_place ? recvtype : a->sendtype, stage, block, &after, sched,
                                   &gathered);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = down_trees_init(&steps, finest_group_stage(&steps, stage, block, rank), block,
                                &down);
    MPIR_ERR_CHECK(mpi_errno);
    /* the ring of the level-0 leaders, each piece down the group as it arrives */
    mpi_errno = sched_leaders_ring(&steps, tag, &down, offset, my_top, stage, block,
                                   prm.segsize, gathered, &after, sched);
    MPIR_ERR_CHECK(mpi_errno);

    /* every block to its place, after everything arrived and left */
    int done;
    mpi_errno = MPIR_TSP_sched_sink(sched, &done);
    if (!mpi_errno)
        mpi_errno = sched_unstage(&steps, stage, block, recvbuf, recvcount, recvtype,
                                  in_place ? rank : -1, 1, &done, sched);

  fn_exit:
    down_trees_free(&down);
    MPL_free(offset);
    deps_free(&after);
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Empty messages over the binomial tree of a step, rooted at its rank 0: up (fan_in: from
 * the children, then to the parent) or down, after *front; *front becomes the vertex this
 * rank's part ends with. */
static int sched_fan(const MPII_Hier_step * st, int tag, int fan_in, MPIR_TSP_sched_t sched,
                     int *front)
{
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_tree_node tree;
    deps got = { 0 };
    int after = *front;         /* a copy: gentran writes the new vertex before reading its
                                 * dependencies, so the out may not be one of them */

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL,
                                                 st->comm->local_size, 0, 1,
                                                 st->comm->rank) != 0, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    if (fan_in) {
        for (int c = 0; c < tree.nchildren && !mpi_errno; c++) {
            int vtx;
            mpi_errno = MPIR_TSP_sched_irecv(NULL, 0, MPIR_BYTE_INTERNAL, tree.children[c], tag,
                                             st->comm, sched, 1, front, &vtx);
            if (!mpi_errno && deps_add(&got, vtx))
                mpi_errno = MPI_ERR_NO_MEM;
        }
        if (!mpi_errno && deps_add(&got, *front))
            mpi_errno = MPI_ERR_NO_MEM;
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_selective_sink(sched, got.n, got.v, &after);
        *front = after;
        if (!mpi_errno && tree.parent >= 0)
            mpi_errno = MPIR_TSP_sched_isend(NULL, 0, MPIR_BYTE_INTERNAL, tree.parent, tag,
                                             st->comm, sched, 1, &after, front);
    } else {
        if (tree.parent >= 0)
            mpi_errno = MPIR_TSP_sched_irecv(NULL, 0, MPIR_BYTE_INTERNAL, tree.parent, tag,
                                             st->comm, sched, 1, &after, front);
        for (int c = 0; c < tree.nchildren && !mpi_errno; c++) {
            int vtx;
            mpi_errno = MPIR_TSP_sched_isend(NULL, 0, MPIR_BYTE_INTERNAL, tree.children[c], tag,
                                             st->comm, sched, 1, front, &vtx);
        }
    }
    MPII_Hier_tree_node_free(&tree);

  fn_exit:
    deps_free(&got);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A dissemination barrier among top's members after *front: rounds of empty messages to
 * rank + 2^i, from rank - 2^i, each round after the one before; *front: the last. */
static int sched_dissemination(MPIR_Comm * top, int tag, MPIR_TSP_sched_t sched, int *front)
{
    int mpi_errno = MPI_SUCCESS, sz = top->local_size, me = top->rank;
    for (int dist = 1; dist < sz && !mpi_errno; dist *= 2) {
        int in[2];
        mpi_errno = MPIR_TSP_sched_isend(NULL, 0, MPIR_BYTE_INTERNAL, (me + dist) % sz, tag, top,
                                         sched, 1, front, &in[0]);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_irecv(NULL, 0, MPIR_BYTE_INTERNAL, (me - dist + sz) % sz,
                                             tag, top, sched, 1, front, &in[1]);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_selective_sink(sched, 2, in, front);
    }
    return mpi_errno;
}

/* Algorithm: the hier barrier as one schedule
 *
 * The blocking form's steps (MPIR_Barrier_intra_hier): fan-in up the steps on binomial
 * trees, a dissemination barrier among the level-0 leaders (rounds of empty messages to
 * rank + 2^i, from rank - 2^i), fan-out down the steps; each vertex after the one before.
 */
int MPII_Hier_barrier_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    MPIR_Comm *comm_ptr = a->comm;
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_BARRIER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_BARRIER_HIER_INTRA_ALGORITHM);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];

    MPIR_FUNC_ENTER;

    if (comm_ptr->local_size == 1)
        goto fn_exit;
    mpi_errno = sched_begin(a, &cvars, MPII_HIER_BARRIER_INTER_COUNT, 0, &prm, &hier, &steps,
                            tag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        mpi_errno = MPIR_TSP_Ibarrier_sched_intra_k_dissemination(comm_ptr, 2, sched);
        goto fn_exit;
    }

    int front;
    /* a vertex to start from */
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, &front);
    MPIR_ERR_CHECK(mpi_errno);
    for (int i = 0; i < MPII_HIER_BARRIER_NPHASES(steps.nsteps) && !mpi_errno; i++) {
        int k;
        MPII_Hier_phase phase = MPII_Hier_barrier_phase(steps.nsteps, i, &k);
        if (!steps.step[k].comm)
            continue;
        mpi_errno = phase == MPII_HIER_PHASE_TOP ?
            sched_dissemination(steps.step[k].comm, tag[k], sched, &front) :
            sched_fan(&steps.step[k], tag[k], phase == MPII_HIER_PHASE_IN, sched, &front);
    }
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The MPI_I<coll> and MPI_<coll>_init entry points: the builders above, every parameter
 * the CVAR's (negative) */
static int sched_of_cvars(MPII_Hier_sched_fn build, const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                          MPI_Datatype recvtype, int root, MPIR_Comm * comm, int calls_pvar,
                          MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_DATA(-1, -1, -1);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
        .root = root, .comm = comm, .given = &given, .calls_pvar = calls_pvar };
    return build(&call, sched);
}

int MPIR_TSP_Iallgather_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                         MPI_Datatype recvtype, MPIR_Comm * comm_ptr,
                                         MPIR_TSP_sched_t sched)
{
    return sched_of_cvars(MPII_Hier_allgather_sched, sendbuf, sendcount, sendtype, recvbuf,
                          recvcount, recvtype, 0, comm_ptr,
                          MPII_HIER_PVAR_CALLS(iallgather, tsp_hier), sched);
}

int MPIR_TSP_Igather_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                      MPI_Datatype recvtype, int root, MPIR_Comm * comm_ptr,
                                      MPIR_TSP_sched_t sched)
{
    return sched_of_cvars(MPII_Hier_gather_sched, sendbuf, sendcount, sendtype, recvbuf,
                          recvcount, recvtype, root, comm_ptr,
                          MPII_HIER_PVAR_CALLS(igather, tsp_hier), sched);
}

int MPIR_TSP_Iscatter_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                       MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                       MPI_Datatype recvtype, int root, MPIR_Comm * comm_ptr,
                                       MPIR_TSP_sched_t sched)
{
    return sched_of_cvars(MPII_Hier_scatter_sched, sendbuf, sendcount, sendtype, recvbuf,
                          recvcount, recvtype, root, comm_ptr,
                          MPII_HIER_PVAR_CALLS(iscatter, tsp_hier), sched);
}

int MPIR_TSP_Ibarrier_sched_intra_hier(MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    return sched_of_cvars(MPII_Hier_barrier_sched, NULL, 0, MPI_DATATYPE_NULL, NULL, 0,
                          MPI_DATATYPE_NULL, 0, comm_ptr,
                          MPII_HIER_PVAR_CALLS(ibarrier, tsp_hier), sched);
}
