/*
 * mpich-hier: per-communicator levels and their sub-communicators.
 */

#include "hier_impl.h"

static int build_levels(MPIR_Comm * comm, MPII_Hier_comm * hier)
{
    int mpi_errno = MPI_SUCCESS;
    int size = comm->local_size;
    int *node_id;
    MPIR_CHKLMEM_DECL();

    MPIR_CHKLMEM_MALLOC(node_id, sizeof(int) * size);

    /* MPID_Get_node_id honours MPIR_CVAR_NUM_CLIQUES, like MPICH's own node split */
    for (int r = 0; r < size; r++) {
        mpi_errno = MPID_Get_node_id(comm, r, &node_id[r]);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIR_ERR_CHKANDJUMP(MPII_Hier_levels_build(&hier->levels, size, node_id) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    hier->my_node = hier->levels.node_of[comm->rank];
    hier->my_local = hier->levels.local_of[comm->rank];

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Reuse MPICH's node_comm, and its node_roots_comm as the leaders of column 0, when
 * their ranks are ours in the same order; else split.  Reuse matters beyond saving
 * communicators: the first allreduce on a comm may be its own context-id allocation,
 * where a split (a nested allocation) cannot run.  MPIR_Comm_commit makes both (light
 * subcomms, MPIR_Subcomm_create) before any collective can run on the comm, on every
 * parent comm: NULL there means this rank has no such comm. */
static int build_node_comms(MPIR_Comm * comm, MPII_Hier_comm * hier)
{
    int mpi_errno = MPI_SUCCESS;
    int node_size = MPII_Hier_levels_node_size(&hier->levels, hier->my_node);
    int is_parent = MPIR_Comm_is_parent_comm(comm);
    MPIR_Comm *mpich_node_comm = is_parent ? comm->node_comm : NULL;
    MPIR_Comm *mpich_roots_comm = is_parent ? comm->node_roots_comm : NULL;
    int mine_ok[2], all_ok[2];

    if (node_size == 1)
        mine_ok[0] = mpich_node_comm == NULL;
    else
        mine_ok[0] = mpich_node_comm && mpich_node_comm->local_size == node_size &&
            mpich_node_comm->rank == hier->my_local;
    mine_ok[1] = hier->my_local != 0 || (mpich_roots_comm &&
                                         mpich_roots_comm->local_size == hier->levels.nnodes &&
                                         mpich_roots_comm->rank == hier->my_node);
    /* every rank must take the same branch: agree on it */
    mpi_errno = MPIR_Allreduce_impl(mine_ok, all_ok, 2, MPIR_INT_INTERNAL, MPI_LAND, comm,
                                    MPIR_COLL_ATTR_SYNC);
    MPIR_ERR_CHECK(mpi_errno);

    if (all_ok[0]) {
        hier->node_comm = mpich_node_comm;
        hier->own_node_comm = 0;
    } else {
        mpi_errno = MPIR_Comm_split_impl(comm, hier->my_node, comm->rank, &hier->node_comm);
        MPIR_ERR_CHECK(mpi_errno);
        hier->own_node_comm = 1;
        if (hier->node_comm && hier->node_comm->local_size == 1) {
            MPIR_Comm_free_impl(hier->node_comm);
            hier->node_comm = NULL;
        }
    }
    if (all_ok[1]) {
        hier->column_comm[0] = hier->my_local == 0 ? mpich_roots_comm : NULL;
        hier->column_ready[0] = 1;
        hier->own_column0 = 0;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_get(MPIR_Comm * comm, MPII_Hier_comm ** hier_p)
{
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_comm *hier = comm->coll.hier;

    if (hier) {
        *hier_p = hier->building ? NULL : hier;
        return MPI_SUCCESS;
    }

    hier = MPL_calloc(1, sizeof(MPII_Hier_comm), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!hier, mpi_errno, MPI_ERR_OTHER, "**nomem");
    comm->coll.hier = hier;
    hier->building = 1;

    mpi_errno = build_levels(comm, hier);
    MPIR_ERR_CHECK(mpi_errno);
    hier->column_comm = MPL_calloc(hier->levels.max_ppn, sizeof(MPIR_Comm *), MPL_MEM_COLL);
    hier->column_ready = MPL_calloc(hier->levels.max_ppn, 1, MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!hier->column_comm || !hier->column_ready, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    hier->own_column0 = 1;
    if (MPII_Hier_levels_is_multilevel(&hier->levels)) {
        mpi_errno = build_node_comms(comm, hier);
        MPIR_ERR_CHECK(mpi_errno);
    }

    hier->building = 0;
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

int MPII_Hier_column_comm(MPIR_Comm * comm, MPII_Hier_comm * hier, int column,
                          MPIR_Comm ** column_comm)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_Assert(column >= 0 && column < hier->levels.max_ppn);
    if (!hier->column_ready[column]) {
        int leader = MPII_Hier_levels_column_leader(&hier->levels, hier->my_node, column);
        /* key = node index, so a leader's rank in the column comm is its node's index */
        hier->building = 1;
        mpi_errno = MPIR_Comm_split_impl(comm, leader == comm->rank ? 0 : MPI_UNDEFINED,
                                         hier->my_node, &hier->column_comm[column]);
        hier->building = 0;
        MPIR_ERR_CHECK(mpi_errno);
        hier->column_ready[column] = 1;
    }
    *column_comm = hier->column_comm[column];

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_comm_cleanup(MPIR_Comm * comm)
{
    MPII_Hier_comm *hier = comm->coll.hier;

    MPL_free(comm->coll.hlevel);        /* hier_mpix.c */
    comm->coll.hlevel = NULL;
    if (!hier)
        return MPI_SUCCESS;
    comm->coll.hier = NULL;
    if (hier->column_comm) {
        for (int j = hier->own_column0 ? 0 : 1; j < hier->levels.max_ppn; j++)
            if (hier->column_comm[j])
                MPIR_Comm_free_impl(hier->column_comm[j]);
    }
    MPII_Hier_steps_free(hier);
    if (hier->own_node_comm && hier->node_comm)
        MPIR_Comm_free_impl(hier->node_comm);
    MPL_free(hier->column_comm);
    MPL_free(hier->column_ready);
    MPII_Hier_levels_free(&hier->levels);
    MPII_Hier_hierarchy_free(&hier->hierarchy);
    MPL_free(hier->keys);
    MPL_free(hier);
    return MPI_SUCCESS;
}
