/*
 * mpich-hier: the gathered layout's steps (hier_hierarchy.h) over MPI: up the steps for
 * the hier gather and allgather, down them for the hier scatter.
 */

#include "hier_impl.h"

/* One tree step k < N of steps for this member: its tree (ranks of the step's comm) and,
 * in blocks from the start of its subtree, where the pieces lie. */
typedef struct {
    MPII_Hier_tree_node tree;
    long long *offset;          /* [size + 1]: MPII_Hier_hierarchy_step_offsets */
    int size, root, my_rel;
    MPII_Hier_tree_kind kind;
} rooted_step;

static void rooted_step_free(rooted_step * rs)
{
    MPII_Hier_tree_node_free(&rs->tree);
    MPL_free(rs->offset);
    rs->offset = NULL;
}

/* MPI_ERR_NO_MEM, with nothing left to free, when there is no room */
static int rooted_step_init(const MPII_Hier_steps * steps, int k, MPII_Hier_tree_kind kind,
                            rooted_step * rs)
{
    const MPII_Hier_step *st = &steps->step[k];
    memset(rs, 0, sizeof(*rs));
    rs->size = st->comm->local_size;
    rs->root = st->root;
    rs->my_rel = (st->comm->rank - st->root + rs->size) % rs->size;
    rs->kind = kind;
    rs->offset = MPL_malloc(sizeof(long long) * (rs->size + 1), MPL_MEM_COLL);
    if (rs->offset)
        MPII_Hier_hierarchy_step_offsets(steps->h, k, st->instance, st->root, rs->offset);
    if (!rs->offset ||
        MPII_Hier_tree_node_init(&rs->tree, kind, rs->size, st->root, 1, st->comm->rank) != 0) {
        rooted_step_free(rs);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

/* The piece of child c's subtree (c = -1: this member's own subtree) */
static MPII_Hier_piece rooted_step_piece(const rooted_step * rs, int c, int sends)
{
    int rel = c < 0 ? rs->my_rel : (rs->tree.children[c] - rs->root + rs->size) % rs->size;
    int span = MPII_Hier_tree_subtree_size(rs->kind, rs->size, 0, rel);
    MPII_Hier_piece p = { c < 0 ? rs->tree.parent : rs->tree.children[c], sends,
        rs->offset[rel] - rs->offset[rs->my_rel], rs->offset[rel + span] - rs->offset[rel]
    };
    return p;
}

int MPII_Hier_rooted_pieces(const MPII_Hier_steps * steps, int k, MPII_Hier_tree_kind kind,
                            int gathering, MPII_Hier_piece ** pieces, int *n)
{
    rooted_step rs;

    *n = 0;
    *pieces = NULL;
    if (rooted_step_init(steps, k, kind, &rs) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    *pieces = MPL_malloc(sizeof(MPII_Hier_piece) * (rs.tree.nchildren + 1), MPL_MEM_COLL);
    if (*pieces) {
        if (!gathering && rs.tree.parent >= 0)
            (*pieces)[(*n)++] = rooted_step_piece(&rs, -1, 0);
        for (int c = 0; c < rs.tree.nchildren; c++)
            (*pieces)[(*n)++] = rooted_step_piece(&rs, c, !gathering);
        if (gathering && rs.tree.parent >= 0)
            (*pieces)[(*n)++] = rooted_step_piece(&rs, -1, 1);
    }
    rooted_step_free(&rs);
    return *pieces ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* How many blocks this rank's stage holds (0: it leads nothing, -1: out of memory) */
static long long rooted_stage_blocks(const MPII_Hier_steps * steps, MPII_Hier_tree_kind kind)
{
    int n = steps->nsteps - 1, first = MPII_Hier_steps_first(steps);
    if (first == steps->nsteps)
        return 1;
    if (first == n) {
        const MPII_Hier_step *st = &steps->step[n];
        return st->comm->rank == st->root ? st->comm->local_size : 0;
    }
    rooted_step rs;
    long long len = -1;
    if (rooted_step_init(steps, first, kind, &rs) == MPI_SUCCESS)
        len = rooted_step_piece(&rs, -1, 0).len;
    rooted_step_free(&rs);
    return len;
}

void MPII_Hier_rooted_prepare(const MPII_Hier_call * a, int gathering,
                              MPII_Hier_rooted_plan * p)
{
    /* the root's signature is every rank's */
    int is_root = a->comm->rank == a->root;
    MPI_Aint type_size;
    int receives = is_root ? gathering : !gathering;
    MPI_Aint count = receives ? a->count : a->sendcount;
    MPI_Datatype type = receives ? a->datatype : a->sendtype;

    MPIR_Datatype_get_size_macro(type, type_size);
    p->block = count * type_size;
    p->extent = 0;
    if (is_root)
        MPIR_Datatype_get_extent_macro(type, p->extent);
    p->in_place = is_root && (gathering ? a->sendbuf : a->buf) == MPI_IN_PLACE;
    p->stage = NULL;
}

static MPII_Hier_tree_kind rooted_tree_kind(const MPII_Hier_rooted_plan * p,
                                            MPII_Hier_rooted_items items)
{
    if (p->prm.inter_algo == items.by_size && p->steps.h->nlevels > 0) {
        const MPII_Hier_hierarchy *h = p->steps.h;
        int groups = h->level[0].ngroups;
        int64_t group_bytes = (int64_t) p->block * h->nranks / groups;
        return MPII_Hier_by_size_rooted_latency(groups, group_bytes) ?
            MPII_HIER_TREE_BINOMIAL : MPII_HIER_TREE_LINEAR;
    }
    return p->prm.inter_algo == items.linear ? MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL;
}

long long MPII_Hier_rooted_plan_tree(MPII_Hier_rooted_plan * p, MPII_Hier_rooted_items items)
{
    p->kind = rooted_tree_kind(p, items);
    return rooted_stage_blocks(&p->steps, p->kind);
}

/* Tree step k's pieces, blocking: the receives posted, completed before the first send */
static int rooted_step_run(const MPII_Hier_steps * steps, int k, MPII_Hier_tree_kind kind,
                           int gathering, char *stage, MPI_Aint block, int coll_attr,
                           int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS, n, nreqs = 0;
    int tag = gathering ? MPIR_GATHER_TAG : MPIR_SCATTER_TAG;
    MPIR_Comm *comm = steps->step[k].comm;
    MPII_Hier_piece *pc;
    MPIR_Request **reqs = NULL;

    mpi_errno = MPII_Hier_rooted_pieces(steps, k, kind, gathering, &pc, &n);
    if (!mpi_errno && !(reqs = MPL_malloc(sizeof(MPIR_Request *) * MPL_MAX(1, n), MPL_MEM_COLL)))
        mpi_errno = MPI_ERR_NO_MEM;
    for (int i = 0; i < n && reqs; i++) {
        char *at = stage + pc[i].at * block;
        MPI_Aint bytes = pc[i].len * block;
        if (!pc[i].sends) {
            mpi_errno = MPIC_Irecv(at, bytes, MPIR_BYTE_INTERNAL, pc[i].peer, tag, comm,
                                   &reqs[nreqs]);
            if (!mpi_errno)
                nreqs++;
        } else {
            mpi_errno = MPIC_Waitall(nreqs, reqs, MPI_STATUSES_IGNORE);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
            nreqs = 0;
            mpi_errno = MPIC_Send(at, bytes, MPIR_BYTE_INTERNAL, pc[i].peer, tag, comm,
                                  coll_attr | *errflag);
        }
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    if (reqs)
        mpi_errno = MPIC_Waitall(nreqs, reqs, MPI_STATUSES_IGNORE);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    MPL_free(reqs);
    MPL_free(pc);
    return mpi_errno_ret;
}

int MPII_Hier_rooted_gather(const MPII_Hier_steps * steps, int last, MPII_Hier_tree_kind kind,
                            const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            char *stage, MPI_Aint block, int intra_algo, int coll_attr,
                            int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    int n = steps->nsteps - 1;

    /* the finest step: the group's blocks in rank order onto its leader */
    const MPII_Hier_step *fin = &steps->step[n];
    if (fin->comm && n >= last) {
        int leads = fin->comm->rank == fin->root;
        mpi_errno = MPII_Hier_intra_rooted(1, leads ? MPI_IN_PLACE : sendbuf, sendcount, sendtype,
                                           stage, block, MPIR_BYTE_INTERNAL, fin->root, fin->comm,
                                           fin->inter ? MPII_HIER_INTRA_BINOMIAL : intra_algo,
                                           coll_attr | *errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    /* the tree steps, finest first */
    for (int k = n - 1; k >= last; k--)
        if (steps->step[k].comm) {
            mpi_errno = rooted_step_run(steps, k, kind, 1, stage, block, coll_attr, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }
    return mpi_errno_ret;
}

int MPII_Hier_rooted_scatter(const MPII_Hier_steps * steps, MPII_Hier_tree_kind kind,
                             char *stage, MPI_Aint block, void *recvbuf, MPI_Aint recvcount,
                             MPI_Datatype recvtype, int intra_algo, int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    int n = steps->nsteps - 1;

    /* the tree steps, coarsest first */
    for (int k = 0; k < n; k++)
        if (steps->step[k].comm) {
            mpi_errno = rooted_step_run(steps, k, kind, 0, stage, block, coll_attr, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }

    /* the finest step: the group's blocks, in rank order, from its leader */
    const MPII_Hier_step *fin = &steps->step[n];
    if (fin->comm) {
        mpi_errno = MPII_Hier_intra_rooted(0, stage, block, MPIR_BYTE_INTERNAL, recvbuf,
                                           recvcount, recvtype, fin->root, fin->comm,
                                           fin->inter ? MPII_HIER_INTRA_BINOMIAL : intra_algo,
                                           coll_attr | *errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    } else if (recvbuf != MPI_IN_PLACE) {
        /* alone in its finest group: its block is the first of its stage */
        mpi_errno = MPIR_Localcopy(stage, block, MPIR_BYTE_INTERNAL, recvbuf, recvcount, recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* A gather rank's own block: from its place in recvbuf at a root in place, else from
 * sendbuf; to `at` */
static MPII_Hier_own_copy own_block(const MPII_Hier_call * a, const MPII_Hier_rooted_plan * p,
                                    char *at)
{
    if (p->in_place)
        return (MPII_Hier_own_copy) {
        (const char *) a->buf + a->root * a->count * p->extent, a->count, a->datatype, at};
    return (MPII_Hier_own_copy) {
    a->sendbuf, a->sendcount, a->sendtype, at};
}

MPII_Hier_own_copy MPII_Hier_gather_own_copy(const MPII_Hier_call * a,
                                             const MPII_Hier_rooted_plan * p)
{
    long long my_pos = MPII_Hier_hierarchy_finest_pos(p->steps.h, a->comm->rank);
    return own_block(a, p, MPII_Hier_finest_block(p->stage, my_pos, p->block));
}

int MPII_Hier_rooted_unstage(const char *stage, MPI_Aint block, const MPII_Hier_hierarchy * h,
                             const int *col, void *recvbuf, MPI_Aint recvcount,
                             MPI_Datatype recvtype, int size, int skip, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    MPI_Aint extent;

    MPIR_Datatype_get_extent_macro(recvtype, extent);
    for (int r = 0; r < size; r++) {
        if (r == skip)
            continue;
        long long at = h ? MPII_Hier_hierarchy_block_at(h, col, r) : r;
        mpi_errno = MPIR_Localcopy(stage + at * block, block, MPIR_BYTE_INTERNAL,
                                   (char *) recvbuf + r * recvcount * extent, recvcount,
                                   recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* What the gather and the scatter differ in, for the shared blocking form */
typedef int (*rooted_steps_fn) (const MPII_Hier_call * call, const MPII_Hier_rooted_plan * plan,
                                int coll_attr, int *errflag);
typedef struct {
    MPII_Hier_entry entry;
    int gathers;
    MPII_Hier_rooted_items items;
    rooted_steps_fn steps;
} rooted_coll;

/* comm as one group, intra_algo on comm itself, the root's side as the stage (every
 * block packed, in rank order): MPICH's algorithm then meets the call's datatype on one
 * side and bytes on the other, never the two user datatypes (5.0.1's binomial gather of a
 * struct with gaps against the same struct failed its signature check).  A root without
 * memory for the stage runs it on its own buffers. */
static int rooted_one_group(const MPII_Hier_call * a, int gathers,
                            const MPII_Hier_rooted_plan * p, int intra_algo, int coll_attr)
{
    int root = a->root, size = a->comm->local_size, is_root = a->comm->rank == root;
    int errflag = 0, mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    char *stage = is_root ? MPL_malloc(MPL_MAX(size * p->block, 1), MPL_MEM_COLL) : NULL;
    /* the root's side of the call: the stage, or its own buffers */
    const void *send = a->sendbuf;
    void *recv = a->buf;
    MPI_Aint scount = a->sendcount, rcount = a->count;
    MPI_Datatype stype = a->sendtype, rtype = a->datatype;

    if (stage && gathers) {     /* its own block at its place; MPICH's gather in place */
        MPII_Hier_own_copy own = own_block(a, p, stage + root * p->block);
        mpi_errno = MPIR_Localcopy(own.buf, own.count, own.type, own.at, p->block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        send = MPI_IN_PLACE, recv = stage, rcount = p->block, rtype = MPIR_BYTE_INTERNAL;
    }
    if (stage && !gathers) {    /* every block packed; MPICH's scatter in place */
        for (int r = 0; r < size; r++) {
            mpi_errno = MPIR_Localcopy((const char *) a->sendbuf + r * a->sendcount * p->extent,
                                       a->sendcount, a->sendtype, stage + r * p->block,
                                       p->block, MPIR_BYTE_INTERNAL);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        send = stage, scount = p->block, stype = MPIR_BYTE_INTERNAL, recv = MPI_IN_PLACE;
    }
    MPII_Hier_guard_enter();
    mpi_errno = MPII_Hier_intra_rooted(gathers, send, scount, stype, recv, rcount, rtype, root,
                                       a->comm, intra_algo, coll_attr | errflag);
    MPII_Hier_guard_leave();
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    if (stage && gathers)
        mpi_errno = MPII_Hier_rooted_unstage(stage, p->block, NULL, NULL, a->buf, a->count,
                                             a->datatype, size, p->in_place ? root : -1,
                                             &errflag);
    else if (stage && !p->in_place)
        mpi_errno = MPIR_Localcopy(stage + root * p->block, p->block, MPIR_BYTE_INTERNAL, a->buf,
                                   a->count, a->datatype);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    MPL_free(stage);
    return mpi_errno_ret;
}

/* What does not take the steps (*on_steps 0); else the plan's steps and tree */
static int rooted_enter(const MPII_Hier_call * a, const rooted_coll * rc,
                        int coll_attr, MPII_Hier_rooted_plan * p, int *on_steps)
{
    MPII_Hier_comm *hier;
    MPII_Hier_run run;
    int mpi_errno = MPII_Hier_enter(a, &rc->entry, p->block, &p->prm, &hier, &run);

    *on_steps = 0;
    if (mpi_errno)
        return mpi_errno;
    switch (run) {
        case MPII_HIER_RUN_NOTHING:
            if (p->block == 0 || p->in_place)
                return MPI_SUCCESS;
            return MPIR_Localcopy(a->sendbuf, a->sendcount, a->sendtype, a->buf, a->count,
                                  a->datatype);
        case MPII_HIER_RUN_FLAT:       /* MPICH's binomial tree */
            return rooted_one_group(a, rc->gathers, p, MPII_HIER_INTRA_BINOMIAL, coll_attr);
        case MPII_HIER_RUN_ONE_NODE:
            return rooted_one_group(a, rc->gathers, p,
                                    MPII_Hier_intra_off_device(p->prm.intra_algo), coll_attr);
        case MPII_HIER_RUN_STEPS:
            *on_steps = 1;
            return MPII_Hier_steps_get(a->comm, hier, a->root, &p->steps);
        default:
            return MPI_SUCCESS;
    }
}

int MPII_Hier_rooted_run(int gathers, const void *sendbuf, MPI_Aint sendcount,
                         MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                         MPI_Datatype recvtype, int root, MPIR_Comm * comm, int inter_algo,
                         int intra_algo, int coll_attr)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, intra_algo);
    const MPII_Hier_params cvars = gathers ?
        (MPII_Hier_params) MPII_HIER_PARAMS_STEPS(MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM,
                                                  MPIR_CVAR_GATHER_HIER_INTRA_ALGORITHM) :
        (MPII_Hier_params) MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM,
                                                  MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM);
    const rooted_coll gather = {
        {&cvars, MPII_HIER_GATHER_INTER_COUNT, MPII_Hier_gather_sched,
         MPII_HIER_SCHED_FROM_GATHER, 1, 0},
        1, {MPII_HIER_GATHER_INTER_LINEAR, MPII_HIER_GATHER_INTER_BY_SIZE},
        MPII_Hier_gather_steps
    }, scatter = {
        {&cvars, MPII_HIER_SCATTER_INTER_COUNT, MPII_Hier_scatter_sched,
         MPII_HIER_SCHED_FROM_SCATTER, 1, 0},
        0, {MPII_HIER_SCATTER_INTER_LINEAR, MPII_HIER_SCATTER_INTER_BY_SIZE},
        MPII_Hier_scatter_steps
    };
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
        .root = root, .comm = comm, .given = &given,
        .calls_pvar = gathers ? MPII_HIER_PVAR_CALLS(gather, hier) :
            MPII_HIER_PVAR_CALLS(scatter, hier) };
    const rooted_coll *rc = gathers ? &gather : &scatter;
    int errflag = 0, on_steps, mpi_errno;
    MPII_Hier_rooted_plan p;

    MPIR_FUNC_ENTER;
    MPII_Hier_rooted_prepare(&call, gathers, &p);
    mpi_errno = rooted_enter(&call, rc, coll_attr, &p, &on_steps);
    if (!mpi_errno && on_steps) {
        long long nblocks = MPII_Hier_rooted_plan_tree(&p, rc->items);
        if (nblocks > 0)
            p.stage = MPL_malloc(nblocks * p.block, MPL_MEM_COLL);
        if (nblocks < 0 || (nblocks > 0 && !p.stage))
            MPIR_ERR_SET(mpi_errno, MPI_ERR_OTHER, "**nomem");
        else
            mpi_errno = rc->steps(&call, &p, coll_attr, &errflag);
    }
    MPL_free(p.stage);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, MPI_SUCCESS, errflag);
}

/* the algorithms: gather_intra_hier.c, scatter_intra_hier.c */
int MPIR_Gather_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                           MPIR_Comm * comm_ptr, int inter_algo, int intra_algo, int coll_attr)
{
    return MPII_Hier_rooted_run(1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root, comm_ptr, inter_algo, intra_algo, coll_attr);
}

int MPIR_Scatter_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                            MPIR_Comm * comm_ptr, int inter_algo, int intra_algo, int coll_attr)
{
    return MPII_Hier_rooted_run(0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root, comm_ptr, inter_algo, intra_algo, coll_attr);
}
