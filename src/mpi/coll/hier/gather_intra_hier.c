/*
 * mpich-hier: hierarchical gather through the root's column leaders.
 */

#include "hier_impl.h"

/* Algorithm: hierarchical gather over the N levels (the root's leaders)
 *
 * Every rank's block is its packed contribution, b bytes.  The steps of the hierarchy for
 * the root (MPII_Hier_steps_get: the root leads every group it is in) run finest first;
 * each leader's stage holds its group's blocks in the gathered layout (hier_hierarchy.h:
 * its own group first, then its tree children's subtrees, so that a subtree is one piece):
 *     1. the finest step: MPICH's gather of the group's blocks onto its leader;
 *     2. each coarser step: each member receives its children's subtree pieces (LINEAR or
 *        BINOMIAL tree of the step's members) next to its own and sends the whole to its
 *        parent;
 *     3. the root copies each rank's block from that layout to its place in recvbuf.
 * One node that nothing splits: the intra-node submodule on comm itself.
 */
int MPII_Hier_gather_steps(const MPII_Hier_call * a, const MPII_Hier_rooted_plan * p,
                           int coll_attr, int *errflag)
{
    int rank = a->comm->rank, mpi_errno, mpi_errno_ret = MPI_SUCCESS;

    if (p->stage) {
        /* a leader: its own block at its place in its finest group */
        MPII_Hier_own_copy own = MPII_Hier_gather_own_copy(a, p);
        mpi_errno = MPIR_Localcopy(own.buf, own.count, own.type, own.at, p->block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    /* 1., 2. up the steps */
    mpi_errno = MPII_Hier_rooted_gather(&p->steps, 0, p->kind, a->sendbuf, a->sendcount,
                                        a->sendtype, p->stage, p->block, p->prm.intra_algo,
                                        coll_attr, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    /* 3. every block to its place at the root */
    if (rank == a->root)
        mpi_errno = MPII_Hier_rooted_unstage(p->stage, p->block, p->steps.h, p->steps.col, a->buf,
                                             a->count, a->datatype, a->comm->local_size,
                                             p->in_place ? a->root : -1, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    return mpi_errno_ret;
}
