/*
 * mpich-hier: per-communicator hierarchies and the one cache of their steps' comms.
 *
 * Two hierarchies (hier_hierarchy.h) per communicator: `nodes`, of the node key alone
 * (HAN's two levels), built on first use; `hierarchy`, of every key (switches, node, the
 * levels below it; hier_hierarchy_comm.c).  The steps of a collective run on one of them
 * (MPII_Hier_used) and their comms, split on first use, are kept in one list.
 */

#include "hier_impl.h"

/* A step's comm, for step `level` < nlevels of hierarchy h and the columns below it
 * (col[level + 1 .. nlevels]), which decide its members. */
struct MPII_Hier_step_comm {
    const MPII_Hier_hierarchy *h;
    int level;
    int *col;                   /* [nlevels - level] */
    MPIR_Comm *comm;            /* NULL when this rank is not a member */
    int own;                    /* split by us, not MPICH's node_roots_comm */
    struct MPII_Hier_step_comm *next;
};

static int add_step_comm(MPII_Hier_comm * hier, const MPII_Hier_hierarchy * h, int level,
                         const int *col, MPIR_Comm * step_comm, int own)
{
    int n = h->nlevels - level;
    struct MPII_Hier_step_comm *c = MPL_calloc(1, sizeof(*c), MPL_MEM_COLL);
    int *key = MPL_malloc(sizeof(int) * n, MPL_MEM_COLL);
    if (!c || !key) {
        MPL_free(c);
        MPL_free(key);
        return MPI_ERR_NO_MEM;
    }
    memcpy(key, col + level + 1, sizeof(int) * n);
    *c = (struct MPII_Hier_step_comm) { h, level, key, step_comm, own, hier->step_comms };
    hier->step_comms = c;
    return MPI_SUCCESS;
}

static int split_step(MPIR_Comm * comm, MPII_Hier_comm * hier, const MPII_Hier_step_place * p,
                      MPIR_Comm ** newcomm)
{
    /* key = position, so a member's rank in the step's comm is its position */
    MPII_Hier_guard_enter();
    int mpi_errno = MPIR_Comm_split_impl(comm, p->in ? p->instance : MPI_UNDEFINED, p->pos,
                                         newcomm);
    MPII_Hier_guard_leave();
    return mpi_errno;
}

static int step_comm(MPIR_Comm * comm, MPII_Hier_comm * hier, const MPII_Hier_hierarchy * h,
                     int level, const int *col, const MPII_Hier_step_place * p,
                     MPIR_Comm ** newcomm, int *mpich_comm)
{
    int mpi_errno = MPI_SUCCESS;
    int n = h->nlevels - level;

    for (struct MPII_Hier_step_comm * c = hier->step_comms; c; c = c->next)
        if (c->h == h && c->level == level && memcmp(c->col, col + level + 1, sizeof(int) * n) == 0) {
            *newcomm = c->comm;
            *mpich_comm = !c->own;
            return MPI_SUCCESS;
        }
    *mpich_comm = 0;
    mpi_errno = split_step(comm, hier, p, newcomm);
    MPIR_ERR_CHECK(mpi_errno);
    if (add_step_comm(hier, h, level, col, *newcomm, 1) != MPI_SUCCESS) {
        if (*newcomm)
            MPIR_Comm_free_impl(*newcomm);
        MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**nomem");
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Reuse MPICH's node_comm, and its node_roots_comm as the step among the nodes' rank 0
 * (column 0), when their ranks are ours in the same order; else split.  Reuse matters
 * beyond saving communicators: the first allreduce on a comm may be its own context-id
 * allocation, where a split (a nested allocation) cannot run.  MPIR_Comm_commit makes
 * both (light subcomms, MPIR_Subcomm_create) before any collective can run on the comm,
 * on every parent comm: NULL there means this rank has no such comm. */
static int build_node_comms(MPIR_Comm * comm, MPII_Hier_comm * hier)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_level *nodes = &hier->nodes.level[0];
    int my_node = nodes->group_of[comm->rank], my_local = nodes->local_of[comm->rank];
    int node_size = MPII_Hier_hierarchy_group_size(&hier->nodes, 0, my_node);
    int is_parent = MPIR_Comm_is_parent_comm(comm);
    MPIR_Comm *mpich_node_comm = is_parent ? comm->node_comm : NULL;
    MPIR_Comm *mpich_roots_comm = is_parent ? comm->node_roots_comm : NULL;
    int mine_ok[2], all_ok[2];

    if (node_size == 1)
        mine_ok[0] = mpich_node_comm == NULL;
    else
        mine_ok[0] = mpich_node_comm && mpich_node_comm->local_size == node_size &&
            mpich_node_comm->rank == my_local;
    mine_ok[1] = my_local != 0 || (mpich_roots_comm &&
                                   mpich_roots_comm->local_size == nodes->ngroups &&
                                   mpich_roots_comm->rank == my_node);
    /* every rank must take the same branch: agree on it */
    mpi_errno = MPIR_Allreduce_impl(mine_ok, all_ok, 2, MPIR_INT_INTERNAL, MPI_LAND, comm,
                                    MPIR_COLL_ATTR_SYNC);
    MPIR_ERR_CHECK(mpi_errno);

    if (all_ok[0]) {
        hier->node_comm = mpich_node_comm;
        hier->own_node_comm = 0;
    } else {
        mpi_errno = MPIR_Comm_split_impl(comm, my_node, comm->rank, &hier->node_comm);
        MPIR_ERR_CHECK(mpi_errno);
        hier->own_node_comm = 1;
        if (hier->node_comm && hier->node_comm->local_size == 1) {
            MPIR_Comm_free_impl(hier->node_comm);
            hier->node_comm = NULL;
        }
    }
    hier->roots_adopted = all_ok[1];
    if (all_ok[1]) {
        const int column0[2] = { 0, 0 };        /* col[1] = 0: the nodes' rank 0 lead */
        MPIR_ERR_CHKANDJUMP(add_step_comm(hier, &hier->nodes, 0, column0,
                                          my_local == 0 ? mpich_roots_comm : NULL, 0) != 0,
                            mpi_errno, MPI_ERR_OTHER, "**nomem");
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The hierarchy of the node key alone, and how many nodes comm spans. */
static int build_nodes(MPIR_Comm * comm, MPII_Hier_comm * hier)
{
    int mpi_errno = MPI_SUCCESS;
    int size = comm->local_size;
    long *node_key;
    MPIR_CHKLMEM_DECL();

    MPIR_CHKLMEM_MALLOC(node_key, sizeof(long) * size);
    /* MPID_Get_node_id honours MPIR_CVAR_NUM_CLIQUES, like MPICH's own node split */
    for (int r = 0; r < size; r++) {
        int id;
        mpi_errno = MPID_Get_node_id(comm, r, &id);
        MPIR_ERR_CHECK(mpi_errno);
        node_key[r] = id;
    }
    MPIR_ERR_CHKANDJUMP(MPII_Hier_hierarchy_build(&hier->nodes, size, 1, node_key) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* without a level the node key splits nothing (one node) or every rank alone */
    if (hier->nodes.nlevels == 1)
        hier->nnodes = hier->nodes.level[0].ngroups;
    else
        hier->nnodes = size > 1 && node_key[1] != node_key[0] ? size : 1;

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_get(MPIR_Comm * comm, MPII_Hier_comm ** hier_p)
{
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_comm *hier = comm->coll.hier;

    *hier_p = NULL;
    if (MPII_Hier_guard_held())
        return MPI_SUCCESS;
    if (hier) {
        *hier_p = hier;
        return MPI_SUCCESS;
    }

    hier = MPL_calloc(1, sizeof(MPII_Hier_comm), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!hier, mpi_errno, MPI_ERR_OTHER, "**nomem");
    comm->coll.hier = hier;

    MPII_Hier_guard_enter();
    mpi_errno = build_nodes(comm, hier);
    if (!mpi_errno && hier->nodes.nlevels == 1) {
        mpi_errno = build_node_comms(comm, hier);
        hier->flat_allreduce = MPII_Hier_sized_allreduce_flat(hier->nodes.level[0].group_of,
                                                              comm->local_size,
                                                              hier->nodes.level[0].ngroups);
    }
    MPII_Hier_guard_leave();
    MPIR_ERR_CHECK(mpi_errno);
    const MPII_Hier_hierarchy *hierarchy;
    mpi_errno = MPII_Hier_hierarchy_get(comm, hier, &hierarchy);
    MPIR_ERR_CHECK(mpi_errno);
    *hier_p = hier;

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPII_Hier_comm_cleanup(comm);
    goto fn_exit;
}

const MPII_Hier_hierarchy *MPII_Hier_used(const MPII_Hier_comm * hier)
{
    const MPII_Hier_hierarchy *h = &hier->hierarchy;
    /* Inside MPI_Init (a tuning file picking hier for the device's set-up collectives on
     * MPI_COMM_WORLD) the steps' comms cannot be split yet: MPI_COMM_WORLD's collectives
     * have no selection until its commit ends.  HAN's two levels need none there (MPICH's
     * node comms).  A hierarchy of nodes only is the same as `nodes`. */
    if (MPIR_CVAR_HIER_LEVELS == MPIR_CVAR_HIER_LEVELS_nodes ||
        MPL_atomic_load_int(&MPIR_Process.mpich_state) != MPICH_MPI_STATE__INITIALIZED ||
        h->nlevels == 0 || (h->nlevels == 1 && h->level[0].source == hier->switch_levels))
        return &hier->nodes;
    return h;
}

int MPII_Hier_nlevels(const MPII_Hier_comm * hier)
{
    return MPII_Hier_used(hier)->nlevels;
}

int MPII_Hier_steps_get(MPIR_Comm * comm, MPII_Hier_comm * hier, int root,
                        MPII_Hier_steps * steps)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_hierarchy *h = MPII_Hier_used(hier);
    int n = h->nlevels;
    MPII_Hier_step_place place[MPII_HIER_MAX_STEPS];
    int source_of_node = h == &hier->nodes ? 0 : hier->switch_levels;

    MPIR_Assert(hier->hierarchy_ready && n < MPII_HIER_MAX_STEPS);
    steps->comm = comm;
    steps->h = h;
    /* the same on every rank: what was agreed on when the node comms were made */
    if (n == 0)
        steps->mpich_comms = 1;
    else if (h == &hier->nodes)
        steps->mpich_comms = !hier->own_node_comm || hier->roots_adopted;
    else
        steps->mpich_comms = h->level[n - 1].source == source_of_node && !hier->own_node_comm;
    MPII_Hier_hierarchy_columns(h, root, steps->col);
    if (n == 0) {
        /* one rank per node (no level splits anything, and there is more than one node):
         * the nodes are the ranks, the finest groups single ranks */
        MPIR_Assert(hier->nnodes > 1);
        steps->nsteps = 2;
        steps->step[0] = (MPII_Hier_step) { comm, root, 1, 0, 0, 0, 1 };
        steps->step[1] = (MPII_Hier_step) { NULL, 0, 1, 0, 0, 0, 0 };
        return MPI_SUCCESS;
    }
    MPII_Hier_hierarchy_steps(h, steps->col, comm->rank, place);
    steps->nsteps = n + 1;

    for (int k = 0; k < n; k++) {
        MPII_Hier_step *st = &steps->step[k];
        st->root = place[k].root;
        st->instance = place[k].instance;
        /* level-k groups are switches or nodes: different nodes */
        st->inter = h->level[k].source <= source_of_node;
        st->up = h->level[k].source < source_of_node;
        st->down = h->level[k].source > source_of_node;
        mpi_errno = step_comm(comm, hier, h, k, steps->col, &place[k], &st->comm,
                              &st->mpich_comm);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_Assert(!st->comm == !place[k].in);
    }

    /* the finest groups, whatever the root */
    MPII_Hier_step *st = &steps->step[n];
    st->root = place[n].root;
    st->instance = place[n].instance;
    st->inter = st->up = h->level[n - 1].source < source_of_node;
    st->down = 0;               /* the finest step runs the intra-node submodule */
    st->mpich_comm = 0;
    if (h->level[n - 1].source == source_of_node) {
        st->comm = hier->node_comm;
        st->mpich_comm = !hier->own_node_comm;
    } else {
        if (!hier->finest_ready) {
            mpi_errno = split_step(comm, hier, &place[n], &hier->finest_comm);
            MPIR_ERR_CHECK(mpi_errno);
            hier->finest_ready = 1;
        }
        st->comm = hier->finest_comm;
    }
    MPIR_Assert(!st->comm == !place[n].in);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_steps_first(const MPII_Hier_steps * steps)
{
    int k = 0;
    while (k < steps->nsteps && !steps->step[k].comm)
        k++;
    return k;
}

int MPII_Hier_comm_cleanup(MPIR_Comm * comm)
{
    MPII_Hier_comm *hier = comm->coll.hier;

    MPL_free(comm->coll.hlevel);        /* hier_mpix.c */
    comm->coll.hlevel = NULL;
    if (!hier)
        return MPI_SUCCESS;
    comm->coll.hier = NULL;
    while (hier->step_comms) {
        struct MPII_Hier_step_comm *c = hier->step_comms;
        hier->step_comms = c->next;
        if (c->own && c->comm)
            MPIR_Comm_free_impl(c->comm);
        MPL_free(c->col);
        MPL_free(c);
    }
    if (hier->finest_comm)
        MPIR_Comm_free_impl(hier->finest_comm);
    if (hier->own_node_comm && hier->node_comm)
        MPIR_Comm_free_impl(hier->node_comm);
    MPII_Hier_hierarchy_free(&hier->nodes);
    MPII_Hier_hierarchy_free(&hier->hierarchy);
    MPL_free(hier->keys);
    MPL_free(hier);
    return MPI_SUCCESS;
}
