/*
 * mpich-hier: the hier allgather, gather, scatter and barrier as one schedule each
 * (MPI_Iallgather, MPI_Igather, MPI_Iscatter, MPI_Ibarrier and their _init forms; the
 * blocking forms under MPIR_CVAR_HIER_SCHEDULE_BLOCKING).
 *
 * The steps of the blocking algorithms (MPII_Hier_steps_get), written as gentran vertices:
 * sends and receives on the steps' comms, each step's messages tagged from the source of
 * tags that comm's other users draw from (step_tags), so that they never meet theirs.
 * What the schedule cannot run: MPICH's and the device's intra-node algorithms (the finest step gathers and
 * scatters linearly onto and from its leader, the bcasts and fans go down binomial trees)
 * and the allgather's and barrier's auto submodules (ring and dissemination).
 */

#include "hier_impl.h"

/* Vertices a later one waits for. */
typedef struct {
    int n, max;
    int *v;
} deps;

static int deps_add(deps * d, int vtx)
{
    if (d->n == d->max) {
        int max = d->max ? 2 * d->max : 16;
        int *v = MPL_realloc(d->v, sizeof(int) * max, MPL_MEM_COLL);
        if (!v)
            return MPI_ERR_NO_MEM;
        d->v = v;
        d->max = max;
    }
    d->v[d->n++] = vtx;
    return MPI_SUCCESS;
}

/* A tag of every step comm this rank is in (the finest included): from the parent comm
 * (one, taken by every rank) on MPICH's comms, where MPICH's own compositions tag their
 * messages so; from the step's comm on the plugin's own (every member builds the same
 * collectives in the same order). */
static int step_tags(MPIR_Comm * comm, const MPII_Hier_steps * steps, int *tag)
{
    int parent_tag;
    int mpi_errno = MPIR_Sched_next_tag(comm, &parent_tag);
    for (int k = 0; k < steps->nsteps && !mpi_errno; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        if (st->comm && st->mpich_comm)
            tag[k] = parent_tag;
        else if (st->comm)
            mpi_errno = MPIR_Sched_next_tag(st->comm, &tag[k]);
    }
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
        mpi_errno = step_tags(comm, steps, tag);
    return mpi_errno;
}

/* Up the steps from the finest to `last` (MPII_Hier_rooted_gather as vertices): the finest
 * step's members send (sendbuf, sendcount, sendtype) to its leader, after `in`; each
 * coarser step's tree as in the blocking form.  *written: the vertices that write into
 * this rank's stage (receives), to which a send of the stage was added; *sent the send
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
                mpi_errno = MPIR_TSP_sched_irecv(stage + p * block, block, MPIR_BYTE_INTERNAL, p,
                                                 tag[n], fin->comm, sched, 0, NULL, &vtx);
                MPIR_ERR_CHECK(mpi_errno);
                MPIR_ERR_CHKANDJUMP(deps_add(written, vtx), mpi_errno, MPI_ERR_OTHER, "**nomem");
            }
        } else {
            mpi_errno = MPIR_TSP_sched_isend(sendbuf, sendcount, sendtype, fin->root, tag[n],
                                             fin->comm, sched, written->n, written->v, sent);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    for (int k = n - 1; k >= last; k--) {
        MPII_Hier_rooted_step rs;
        long long at, len;
        if (!steps->step[k].comm)
            continue;
        MPIR_Comm *comm = steps->step[k].comm;
        if (MPII_Hier_rooted_step_init(steps, k, kind, &rs) != MPI_SUCCESS)
            mpi_errno = MPI_ERR_NO_MEM;
        for (int c = 0; c < rs.tree.nchildren && !mpi_errno; c++) {
            MPII_Hier_rooted_step_piece(&rs, c, &at, &len);
            mpi_errno = MPIR_TSP_sched_irecv(stage + at * block, len * block, MPIR_BYTE_INTERNAL,
                                             rs.tree.children[c], tag[k], comm, sched, 0, NULL,
                                             &vtx);
            if (!mpi_errno && deps_add(written, vtx))
                mpi_errno = MPI_ERR_NO_MEM;
        }
        if (!mpi_errno && rs.tree.parent >= 0) {
            MPII_Hier_rooted_step_piece(&rs, -1, &at, &len);
            mpi_errno = MPIR_TSP_sched_isend(stage, len * block, MPIR_BYTE_INTERNAL,
                                             rs.tree.parent, tag[k], comm, sched, written->n,
                                             written->v, sent);
        }
        MPII_Hier_rooted_step_free(&rs);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: the hier gather as one schedule
 *
 * The blocking form's steps and layout (MPIR_Gather_intra_hier) as vertices: the leader's
 * own block copied into its stage; the finest step's members send their blocks to its
 * leader; each coarser step receives the children's subtree pieces and sends the whole
 * after every receive into the stage; the root copies the blocks into recvbuf after all.
 * Tree of the steps: the call's inter_algo (MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM).
 */
int MPII_Hier_gather_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const void *sendbuf = a->sendbuf;
    MPI_Aint sendcount = a->sendcount;
    MPI_Datatype sendtype = a->sendtype;
    void *recvbuf = a->buf;
    MPI_Aint recvcount = a->count;
    MPI_Datatype recvtype = a->datatype;
    MPIR_Comm *comm_ptr = a->comm;
    int root = a->root;
    int mpi_errno = MPI_SUCCESS, vtx, sent;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_GATHER_HIER_INTRA_ALGORITHM);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];
    deps written = { 0 };
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = rank == root && sendbuf == MPI_IN_PLACE;
    MPI_Aint block, recv_extent;

    MPIR_FUNC_ENTER;

    block = MPII_Hier_rooted_block(rank, root, sendcount, sendtype, recvcount, recvtype, 1,
                                   &recv_extent);
    if (size == 1 || block == 0) {
        if (block > 0 && !in_place)
            mpi_errno = MPIR_TSP_sched_localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, sched, 0, NULL, &vtx);
        goto fn_exit;
    }
    mpi_errno = sched_begin(a, &cvars, MPII_HIER_GATHER_INTER_COUNT, root, &prm, &hier, &steps,
                            tag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        mpi_errno = MPIR_TSP_Igather_sched_intra_tree(sendbuf, sendcount, sendtype, recvbuf,
                                                      recvcount, recvtype, root, comm_ptr, 2,
                                                      sched);
        goto fn_exit;
    }

    MPII_Hier_tree_kind kind = prm.inter_algo == MPII_HIER_GATHER_INTER_LINEAR ?
        MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL;
    long long nblocks = MPII_Hier_rooted_stage_blocks(&steps, kind);
    MPIR_ERR_CHKANDJUMP(nblocks < 0, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (nblocks > 0) {
        const void *mine = in_place ? (char *) recvbuf + root * recvcount * recv_extent : sendbuf;
        stage = MPIR_TSP_sched_malloc(nblocks * block, sched);
        MPIR_ERR_CHKANDJUMP(!stage, mpi_errno, MPI_ERR_OTHER, "**nomem");
        mpi_errno = MPIR_TSP_sched_localcopy(mine, in_place ? recvcount : sendcount,
                                             in_place ? recvtype : sendtype,
                                             stage + MPII_Hier_hierarchy_finest_pos(steps.h,
                                                                                    rank) * block,
                                             block, MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_ERR_CHKANDJUMP(deps_add(&written, vtx), mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    mpi_errno = sched_gather_up(&steps, tag, 0, kind, sendbuf, sendcount, sendtype, stage, block,
                                &written, sched, &sent);
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; rank == root && r < size; r++) {
        if (r == root && in_place)
            continue;
        mpi_errno = MPIR_TSP_sched_localcopy(stage + MPII_Hier_hierarchy_block_at(steps.h,
                                                                                  steps.col,
                                                                                  r) * block,
                                             block, MPIR_BYTE_INTERNAL,
                                             (char *) recvbuf + r * recvcount * recv_extent,
                                             recvcount, recvtype, sched, written.n, written.v,
                                             &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(written.v);
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: the hier scatter as one schedule
 *
 * The hier gather's schedule backwards: the root copies every block into the layout; each
 * step's member receives its subtree's piece from its parent and then sends each child its
 * piece, in turn; the finest step's leader sends each member its block, which the
 * members receive into recvbuf.
 */
int MPII_Hier_scatter_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const void *sendbuf = a->sendbuf;
    MPI_Aint sendcount = a->sendcount;
    MPI_Datatype sendtype = a->sendtype;
    void *recvbuf = a->buf;
    MPI_Aint recvcount = a->count;
    MPI_Datatype recvtype = a->datatype;
    MPIR_Comm *comm_ptr = a->comm;
    int root = a->root;
    int mpi_errno = MPI_SUCCESS, vtx;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];
    deps ready = { 0 };         /* the vertices after which this rank's stage holds its piece */
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = rank == root && recvbuf == MPI_IN_PLACE;
    MPI_Aint block, send_extent;

    MPIR_FUNC_ENTER;

    block = MPII_Hier_rooted_block(rank, root, sendcount, sendtype, recvcount, recvtype, 0,
                                   &send_extent);
    if (size == 1 || block == 0) {
        if (block > 0 && !in_place)
            mpi_errno = MPIR_TSP_sched_localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, sched, 0, NULL, &vtx);
        goto fn_exit;
    }
    mpi_errno = sched_begin(a, &cvars, MPII_HIER_SCATTER_INTER_COUNT, root, &prm, &hier, &steps,
                            tag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        mpi_errno = MPIR_TSP_Iscatter_sched_intra_tree(sendbuf, sendcount, sendtype, recvbuf,
                                                       recvcount, recvtype, root, comm_ptr, 2,
                                                       sched);
        goto fn_exit;
    }

    MPII_Hier_tree_kind kind = prm.inter_algo == MPII_HIER_SCATTER_INTER_LINEAR ?
        MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL;
    long long nblocks = MPII_Hier_rooted_stage_blocks(&steps, kind);
    MPIR_ERR_CHKANDJUMP(nblocks < 0, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (nblocks > 0) {
        stage = MPIR_TSP_sched_malloc(nblocks * block, sched);
        MPIR_ERR_CHKANDJUMP(!stage, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    for (int r = 0; rank == root && r < size; r++) {
        mpi_errno = MPIR_TSP_sched_localcopy((const char *) sendbuf + r * sendcount * send_extent,
                                             sendcount, sendtype,
                                             stage + MPII_Hier_hierarchy_block_at(steps.h,
                                                                                  steps.col,
                                                                                  r) * block,
                                             block, MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_ERR_CHKANDJUMP(deps_add(&ready, vtx), mpi_errno, MPI_ERR_OTHER, "**nomem");
    }

    int n = steps.nsteps - 1;
    for (int k = 0; k < n; k++) {
        MPII_Hier_rooted_step rs;
        long long at, len;
        if (!steps.step[k].comm)
            continue;
        MPIR_Comm *comm = steps.step[k].comm;
        if (MPII_Hier_rooted_step_init(&steps, k, kind, &rs) != MPI_SUCCESS)
            mpi_errno = MPI_ERR_NO_MEM;
        if (!mpi_errno && rs.tree.parent >= 0) {
            MPII_Hier_rooted_step_piece(&rs, -1, &at, &len);
            mpi_errno = MPIR_TSP_sched_irecv(stage, len * block, MPIR_BYTE_INTERNAL,
                                             rs.tree.parent, tag[k], comm, sched, 0, NULL, &vtx);
            ready.n = 0;
            if (!mpi_errno && deps_add(&ready, vtx))
                mpi_errno = MPI_ERR_NO_MEM;
        }
        /* one after the other, the largest subtree first (the tree's order): sent at once
         * they would share this member's link, and the largest, which goes on furthest,
         * would arrive last (1.3x the blocking form's time on 4 nodes) */
        for (int c = 0, prev = -1; c < rs.tree.nchildren && !mpi_errno; c++) {
            MPII_Hier_rooted_step_piece(&rs, c, &at, &len);
            mpi_errno = MPIR_TSP_sched_isend(stage + at * block, len * block, MPIR_BYTE_INTERNAL,
                                             rs.tree.children[c], tag[k], comm, sched,
                                             prev < 0 ? ready.n : 1, prev < 0 ? ready.v : &prev,
                                             &vtx);
            prev = vtx;
        }
        MPII_Hier_rooted_step_free(&rs);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* the finest step: from its leader, which keeps its own block */
    const MPII_Hier_step *fin = &steps.step[n];
    int leads = !fin->comm || fin->comm->rank == fin->root;
    if (fin->comm && !leads) {
        mpi_errno = MPIR_TSP_sched_irecv(recvbuf, recvcount, recvtype, fin->root, tag[n],
                                         fin->comm, sched, 0, NULL, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (int p = 0; fin->comm && leads && p < fin->comm->local_size; p++) {
        if (p == fin->root)
            continue;
        mpi_errno = MPIR_TSP_sched_isend(stage + p * block, block, MPIR_BYTE_INTERNAL, p, tag[n],
                                         fin->comm, sched, ready.n, ready.v, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (leads && !in_place) {
        mpi_errno = MPIR_TSP_sched_localcopy(stage + MPII_Hier_hierarchy_finest_pos(steps.h,
                                                                                   rank) * block,
                                             block, MPIR_BYTE_INTERNAL, recvbuf, recvcount,
                                             recvtype, sched, ready.n, ready.v, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(ready.v);
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* One piece of a level-0 group's blocks down the steps below the top, after `avail` (this
 * rank has it then, if it is a level-0 leader): each step's member receives it from its
 * parent in the step's binomial tree (after `after`: nothing else writes or reads there
 * any more) and sends it on to its children, each send after the one before it to the
 * same child (last[k][c]) so that the pieces arrive in order.  *have: the vertex after
 * which this rank holds the piece. */
static int sched_bcast_down(const MPII_Hier_steps * steps, const int *tag,
                            MPII_Hier_tree_node * trees, int **last, char *at, MPI_Aint len,
                            int avail, const deps * after, MPIR_TSP_sched_t sched, int *have)
{
    int mpi_errno = MPI_SUCCESS, n = steps->nsteps - 1;
    *have = avail;
    for (int k = 1; k <= n; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        MPII_Hier_tree_node *tree = &trees[k];
        if (!st->comm)
            continue;
        if (tree->parent >= 0) {
            mpi_errno = MPIR_TSP_sched_irecv(at, len, MPIR_BYTE_INTERNAL, tree->parent, tag[k],
                                             st->comm, sched, after->n, after->v, have);
            MPIR_ERR_CHECK(mpi_errno);
        }
        for (int c = 0; c < tree->nchildren; c++) {
            int in[2] = { *have, last[k][c] };
            mpi_errno = MPIR_TSP_sched_isend(at, len, MPIR_BYTE_INTERNAL, tree->children[c],
                                             tag[k], st->comm, sched, last[k][c] < 0 ? 1 : 2,
                                             in, &last[k][c]);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
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
    const void *sendbuf = a->sendbuf;
    MPI_Aint sendcount = a->sendcount;
    MPI_Datatype sendtype = a->sendtype;
    void *recvbuf = a->buf;
    MPI_Aint recvcount = a->count;
    MPI_Datatype recvtype = a->datatype;
    MPIR_Comm *comm_ptr = a->comm;
    int mpi_errno = MPI_SUCCESS, vtx, sent;
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_DATA(MPIR_CVAR_ALLGATHER_HIER_SEGSIZE,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS];
    MPII_Hier_tree_node trees[MPII_HIER_MAX_STEPS];
    int *last[MPII_HIER_MAX_STEPS] = { NULL };
    deps written = { 0 }, after = { 0 };
    long long *offset = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, extent;

    MPIR_FUNC_ENTER;

    memset(trees, 0, sizeof(trees));
    MPIR_Datatype_get_size_macro(recvtype, type_size);
    MPIR_Datatype_get_extent_macro(recvtype, extent);
    block = recvcount * type_size;
    if (size == 1 || block == 0) {
        if (block > 0 && !in_place)
            mpi_errno = MPIR_TSP_sched_localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, sched, 0, NULL, &vtx);
        goto fn_exit;
    }
    mpi_errno = sched_begin(a, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT, 0, &prm, &hier, &steps,
                            tag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        mpi_errno = MPIR_TSP_Iallgather_sched_intra_ring(sendbuf, sendcount, sendtype, recvbuf,
                                                         recvcount, recvtype, comm_ptr, sched);
        goto fn_exit;
    }

    const MPII_Hier_hierarchy *h = steps.h;
    int n = steps.nsteps - 1;
    MPIR_Comm *top_comm = steps.step[0].comm;
    int ntop = h->nlevels == 0 ? size : h->level[0].ngroups;
    int my_top = h->nlevels == 0 ? rank : h->level[0].group_of[rank];
    char *stage = MPIR_TSP_sched_malloc(size * block, sched);
    offset = MPL_malloc(sizeof(long long) * (ntop + 1), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!stage || !offset, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPII_Hier_hierarchy_step_offsets(h, 0, 0, 0, offset);

    /* my block, then my group's blocks onto its leader */
    long long my_at = MPII_Hier_hierarchy_block_at(h, steps.col, rank);
    char *mine = stage + my_at * block;
    mpi_errno = MPIR_TSP_sched_localcopy(in_place ? (char *) recvbuf + rank * recvcount * extent :
                                         sendbuf, in_place ? recvcount : sendcount,
                                         in_place ? recvtype : sendtype, mine, block,
                                         MPIR_BYTE_INTERNAL, sched, 0, NULL, &vtx);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP(deps_add(&written, vtx), mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = sched_gather_up(&steps, tag, 1, MPII_HIER_TREE_BINOMIAL, mine, block,
                                MPIR_BYTE_INTERNAL, stage + (my_at -
                                                             MPII_Hier_hierarchy_finest_pos(h, rank))
                                * block, block, &written, sched, &sent);
    MPIR_ERR_CHECK(mpi_errno);
    /* what comes down overwrites nothing still being gathered or sent */
    for (int i = 0; i < written.n; i++)
        MPIR_ERR_CHKANDJUMP(deps_add(&after, written.v[i]), mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (sent >= 0)
        MPIR_ERR_CHKANDJUMP(deps_add(&after, sent), mpi_errno, MPI_ERR_OTHER, "**nomem");
    int gathered;
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, after.n, after.v, &gathered);
    MPIR_ERR_CHECK(mpi_errno);

    /* the trees down each step (binomial, rooted where the step is) */
    for (int k = 1; k <= n; k++) {
        const MPII_Hier_step *st = &steps.step[k];
        if (!st->comm)
            continue;
        MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&trees[k], MPII_HIER_TREE_BINOMIAL,
                                                     st->comm->local_size, st->root, 1,
                                                     st->comm->rank) != 0, mpi_errno,
                            MPI_ERR_OTHER, "**nomem");
        last[k] = MPL_malloc(sizeof(int) * MPL_MAX(1, trees[k].nchildren), MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!last[k], mpi_errno, MPI_ERR_OTHER, "**nomem");
        for (int c = 0; c < trees[k].nchildren; c++)
            last[k][c] = -1;
    }

    /* the ring of the level-0 leaders, each piece down the group as it arrives */
    int right = (my_top + 1) % ntop, left = (my_top - 1 + ntop) % ntop, sent_last = -1;
    int recv_last = -1;
    /* units: my group's pieces, then the blocks from the left in turn (as the blocking
     * form's ring_pieces) */
    for (int j = 0; j < ntop; j++) {
        int g = (my_top - j + ntop) % ntop, raised;
        MPI_Aint first = offset[g] * block, len = (offset[g + 1] - offset[g]) * block;
        MPI_Aint seg = MPII_Hier_seg_size(len, prm.segsize, 1, &raised);
        MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, raised);
        for (MPI_Aint at = 0; at < len; at += seg) {
            MPI_Aint plen = MPL_MIN(seg, len - at);
            int have = j == 0 ? gathered : -1, got;
            if (j > 0 && top_comm) {
                /* from the left, each after the one before it: with two posted at once
                 * (4 MiB on a ring of 4 over OFI's tcp provider) the second one's post
                 * answered EAGAIN for ever, inside the schedule's start, before this
                 * rank's first send to the right was issued: every leader hung there */
                mpi_errno = MPIR_TSP_sched_irecv(stage + first + at, plen, MPIR_BYTE_INTERNAL,
                                                 left, tag[0], top_comm, sched,
                                                 recv_last < 0 ? 0 : 1, &recv_last, &have);
                recv_last = have;
                MPIR_ERR_CHECK(mpi_errno);
                MPII_HIER_PVAR_ADD(ALLGATHER_HIER_SEGMENTS, 1);
            }
            /* on to the right, unless the right neighbour's own block came round; in order */
            if (top_comm && j < ntop - 1) {
                int in[2] = { have, sent_last };
                mpi_errno = MPIR_TSP_sched_isend(stage + first + at, plen, MPIR_BYTE_INTERNAL,
                                                 right, tag[0], top_comm, sched,
                                                 sent_last < 0 ? 1 : 2, in, &sent_last);
                MPIR_ERR_CHECK(mpi_errno);
            }
            mpi_errno = sched_bcast_down(&steps, tag, trees, last, stage + first + at, plen,
                                         have, &after, sched, &got);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

    /* every block to its place, after everything arrived and left */
    int done;
    mpi_errno = MPIR_TSP_sched_sink(sched, &done);
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; r < size; r++) {
        if (r == rank && in_place)
            continue;
        mpi_errno = MPIR_TSP_sched_localcopy(stage + MPII_Hier_hierarchy_block_at(h, steps.col, r)
                                             * block, block, MPIR_BYTE_INTERNAL,
                                             (char *) recvbuf + r * recvcount * extent, recvcount,
                                             recvtype, sched, 1, &done, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    for (int k = 0; k < MPII_HIER_MAX_STEPS; k++) {
        MPII_Hier_tree_node_free(&trees[k]);
        MPL_free(last[k]);
    }
    MPL_free(offset);
    MPL_free(written.v);
    MPL_free(after.v);
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
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(got.v);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
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

    int n = steps.nsteps - 1, front;
    /* a vertex to start from */
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, &front);
    MPIR_ERR_CHECK(mpi_errno);
    for (int k = n; k >= 1; k--)
        if (steps.step[k].comm) {
            mpi_errno = sched_fan(&steps.step[k], tag[k], 1, sched, &front);
            MPIR_ERR_CHECK(mpi_errno);
        }
    MPIR_Comm *top = steps.step[0].comm;
    for (int dist = 1; top && dist < top->local_size; dist *= 2) {
        int sz = top->local_size, me = top->rank, in[2], vtx;
        mpi_errno = MPIR_TSP_sched_isend(NULL, 0, MPIR_BYTE_INTERNAL, (me + dist) % sz, tag[0],
                                         top, sched, 1, &front, &in[0]);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_TSP_sched_irecv(NULL, 0, MPIR_BYTE_INTERNAL, (me - dist + sz) % sz,
                                         tag[0], top, sched, 1, &front, &in[1]);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, 2, in, &vtx);
        MPIR_ERR_CHECK(mpi_errno);
        front = vtx;
    }
    for (int k = 1; k <= n; k++)
        if (steps.step[k].comm) {
            mpi_errno = sched_fan(&steps.step[k], tag[k], 0, sched, &front);
            MPIR_ERR_CHECK(mpi_errno);
        }

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
