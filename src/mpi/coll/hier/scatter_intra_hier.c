/*
 * mpich-hier: hierarchical scatter through the root's column leaders.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : binomial
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Scatter among the leaders of the hier scatter, at each level above the finest
        (the nodes' with two levels): each receives the blocks of its subtree's groups
        in one message
        linear   - the step's root sends to every leader
        binomial - a binomial tree of the groups

    - name        : MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Scatter in the finest groups (the nodes, with two levels) of the hier scatter
        auto     - MPIR_Scatter_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Scatter_intra_binomial
        shm      - as binomial (the device has no shared-memory scatter)
        by_size  - as auto

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: hierarchical scatter (the hier gather run backwards)
 *
 * Leaders and layout as in the hier gather (hier_hierarchy.h's gathered layout):
 *     1. the root copies each rank's block from sendbuf into the layout;
 *     2. coarsest step first, each member receives its subtree's piece from its parent and
 *        sends each child the child's subtree piece, in turn, the largest first;
 *     3. the finest step: MPICH's scatter of the group's blocks from its leader.
 * One node that nothing splits: the intra-node submodule on comm itself.
 */
int MPIR_Scatter_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                            MPIR_Comm * comm_ptr, int inter_algo, int intra_algo, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM);
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = rank == root && recvbuf == MPI_IN_PLACE;
    MPI_Aint block, send_extent;

    MPIR_FUNC_ENTER;

    block = MPII_Hier_rooted_block(rank, root, sendcount, sendtype, recvcount, recvtype, 0,
                                   &send_extent);
    if (size == 1 || block == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_SCATTER_INTER_COUNT);
        if (!mpi_errno && block > 0 && !in_place)
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        goto fn_exit;
    }
    if (MPII_Hier_blocking_scheduled(&given, &cvars, block, MPII_HIER_SCHED_FROM_SCATTER)) {
        const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
            .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
            .root = root, .comm = comm_ptr, .given = &given,
            .calls_pvar = MPII_HIER_PVAR_CALLS(scatter, hier) };
        mpi_errno = MPII_Hier_sched_wait(MPII_Hier_scatter_sched, &call);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_SCATTER_INTER_COUNT,
                                MPII_HIER_PVAR_CALLS(scatter, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Scatter_intra_binomial(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, root, comm_ptr, coll_attr);
        goto fn_exit;
    }
    if (MPII_Hier_one_node(hier)) {
        /* a tree that picks hier for this comm again lands here re-entered: binomial */
        hier->reentered++;
        mpi_errno = MPII_Hier_intra_scatter(sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype, root, comm_ptr,
                                            hier->reentered > 1 ? MPII_HIER_INTRA_BINOMIAL :
                                            prm.intra_algo, coll_attr);
        hier->reentered--;
        goto fn_exit;
    }

    MPII_Hier_tree_kind kind = prm.inter_algo == MPII_HIER_SCATTER_INTER_LINEAR ?
        MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL;
    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, root, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    long long nblocks = MPII_Hier_rooted_stage_blocks(&steps, kind);
    MPIR_ERR_CHKANDJUMP(nblocks < 0, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (nblocks > 0) {
        stage = MPL_malloc(nblocks * block, MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!stage, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }

    /* 1. every block from its place at the root into the layout */
    for (int r = 0; rank == root && r < size; r++) {
        mpi_errno = MPIR_Localcopy((const char *) sendbuf + r * sendcount * send_extent,
                                   sendcount, sendtype,
                                   stage + MPII_Hier_hierarchy_block_at(steps.h, steps.col, r) *
                                   block, block, MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

    /* 2., 3. down the steps */
    mpi_errno = MPII_Hier_rooted_scatter(&steps, kind, stage, block,
                                         in_place ? MPI_IN_PLACE : recvbuf, recvcount, recvtype,
                                         prm.intra_algo, coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

  fn_exit:
    MPL_free(stage);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
