/*
 * mpich-hier: the two-step gather and scatter through the root's column leaders
 * (gather_intra_hier.c, scatter_intra_hier.c): where a rank stands, and the blocks a
 * leader holds, node after node from the root's node on.
 */

#include "hier_impl.h"

int MPII_Hier_rooted_start(MPIR_Comm * comm, MPII_Hier_comm * hier, int root, MPI_Aint block,
                           MPII_Hier_tree_kind kind, int *intra_algo, MPII_Hier_rooted * rt)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_levels *lv = &hier->levels;
    int column = lv->local_of[root];

    rt->nnodes = lv->nnodes;
    rt->root_node = lv->node_of[root];
    rt->my_rel = (hier->my_node - rt->root_node + rt->nnodes) % rt->nnodes;
    rt->intra_root = MPII_Hier_levels_column_local(lv, hier->my_node, column);
    rt->is_leader = hier->my_local == rt->intra_root;
    rt->block = block;
    rt->kind = kind;

    mpi_errno = MPII_Hier_two_level_comms(comm, hier, column, &rt->up_comm, &rt->node_comm);
    MPIR_ERR_CHECK(mpi_errno);
    if (rt->node_comm == comm) {
        /* one node: a tree that picks hier for this comm again lands here re-entered */
        if (hier->reentered)
            *intra_algo = MPII_HIER_INTRA_BINOMIAL;
        hier->reentered++;
        rt->reentered = 1;
    }

    rt->offset = MPL_malloc(sizeof(long long) * (rt->nnodes + 1), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!rt->offset, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPII_Hier_levels_node_offsets(lv, rt->root_node, block, rt->offset);
    if (rt->is_leader) {
        int span = MPII_Hier_tree_subtree_size(kind, rt->nnodes, 0, rt->my_rel);
        rt->stage_bytes = rt->offset[rt->my_rel + span] - rt->offset[rt->my_rel];
        rt->stage = MPL_malloc(rt->stage_bytes, MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!rt->stage, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    if (rt->up_comm)
        MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&rt->tree, kind, rt->nnodes, rt->root_node,
                                                     1, hier->my_node) != 0, mpi_errno,
                            MPI_ERR_OTHER, "**nomem");

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void MPII_Hier_rooted_child_piece(const MPII_Hier_rooted * rt, int c, MPI_Aint * at,
                                  MPI_Aint * len)
{
    int rel = (rt->tree.children[c] - rt->root_node + rt->nnodes) % rt->nnodes;
    int span = MPII_Hier_tree_subtree_size(rt->kind, rt->nnodes, 0, rel);
    *at = rt->offset[rel] - rt->offset[rt->my_rel];
    *len = rt->offset[rel + span] - rt->offset[rel];
}

MPI_Aint MPII_Hier_rooted_block_at(const MPII_Hier_comm * hier, const MPII_Hier_rooted * rt,
                                   int rank)
{
    const MPII_Hier_levels *lv = &hier->levels;
    int rel = (lv->node_of[rank] - rt->root_node + rt->nnodes) % rt->nnodes;
    return rt->offset[rel] + (MPI_Aint) lv->local_of[rank] * rt->block;
}

void MPII_Hier_rooted_finish(MPII_Hier_comm * hier, MPII_Hier_rooted * rt)
{
    if (rt->reentered)
        hier->reentered--;
    MPII_Hier_tree_node_free(&rt->tree);
    MPL_free(rt->stage);
    MPL_free(rt->offset);
}
