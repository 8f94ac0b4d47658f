/*
 * mpich-hier: hierarchical scatter through the root's column leaders.
 */

#include "hier_impl.h"

/* Algorithm: hierarchical scatter (the hier gather run backwards)
 *
 * Leaders and layout as in the hier gather (hier_hierarchy.h's gathered layout):
 *     1. the root copies each rank's block from sendbuf into the layout;
 *     2. coarsest step first, each member receives its subtree's piece from its parent and
 *        sends each child the child's subtree piece, in turn, the largest first;
 *     3. the finest step: MPICH's scatter of the group's blocks from its leader.
 * One node that nothing splits: the intra-node submodule on comm itself.
 */
int MPII_Hier_scatter_steps(const MPII_Hier_call * a, const MPII_Hier_rooted_plan * p,
                            int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;

    /* 1. every block from its place at the root into the layout */
    for (int r = 0; a->comm->rank == a->root && r < a->comm->local_size; r++) {
        long long at = MPII_Hier_hierarchy_block_at(p->steps.h, p->steps.col, r);
        mpi_errno = MPIR_Localcopy((const char *) a->sendbuf + r * a->sendcount * p->extent,
                                   a->sendcount, a->sendtype, p->stage + at * p->block, p->block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    /* 2., 3. down the steps */
    mpi_errno = MPII_Hier_rooted_scatter(&p->steps, p->kind, p->stage, p->block,
                                         p->in_place ? MPI_IN_PLACE : a->buf, a->count,
                                         a->datatype, p->prm.intra_algo, coll_attr, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    return mpi_errno_ret;
}
