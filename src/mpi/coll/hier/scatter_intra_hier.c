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
        Inter-node scatter of the hier scatter, run on the leaders: each receives the
        blocks of its subtree's nodes in one message
        linear   - the root sends to every leader
        binomial - a binomial tree of the nodes

    - name        : MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Intra-node scatter of the hier scatter
        auto     - MPIR_Scatter_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Scatter_intra_binomial
        shm      - as binomial (the device has no shared-memory scatter)

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: hierarchical scatter (the hier gather run backwards)
 *
 * Leaders and block order as in the hier gather (MPII_Hier_rooted):
 *     1. the root copies each rank's block from sendbuf into that order;
 *     2. each leader receives its subtree's piece from its parent and sends each child
 *        the child's subtree piece, in turn, the largest first;
 *     3. intra-node scatter of the node's blocks from its leader.
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
    MPII_Hier_rooted rt = { 0 };
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = rank == root && recvbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, send_extent = 0;

    MPIR_FUNC_ENTER;

    /* the root's send signature is every rank's: b bytes each */
    if (rank == root) {
        MPIR_Datatype_get_size_macro(sendtype, type_size);
        MPIR_Datatype_get_extent_macro(sendtype, send_extent);
        block = sendcount * type_size;
    } else {
        MPIR_Datatype_get_size_macro(recvtype, type_size);
        block = recvcount * type_size;
    }
    if (size == 1 || block == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_SCATTER_INTER_COUNT);
        if (!mpi_errno && block > 0 && !in_place)
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
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
    mpi_errno = MPII_Hier_rooted_start(comm_ptr, hier, root, block,
                                       prm.inter_algo == MPII_HIER_SCATTER_INTER_LINEAR ?
                                       MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL,
                                       &prm.intra_algo, &rt);
    MPIR_ERR_CHECK(mpi_errno);

    /* 1. every block from its place at the root into node order */
    for (int r = 0; rank == root && r < size; r++) {
        mpi_errno = MPIR_Localcopy((const char *) sendbuf + r * sendcount * send_extent,
                                   sendcount, sendtype,
                                   rt.stage + MPII_Hier_rooted_block_at(hier, &rt, r), block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

    /* 2. the subtrees' pieces down the tree of nodes */
    if (rt.up_comm) {
        if (rt.tree.parent >= 0) {
            mpi_errno = MPIC_Recv(rt.stage, rt.stage_bytes, MPIR_BYTE_INTERNAL, rt.tree.parent,
                                  MPIR_SCATTER_TAG, rt.up_comm, MPI_STATUS_IGNORE);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        /* one after the other, the largest subtree first: the sends share this leader's
         * link anyway, and so the first child forwards while the later ones still come */
        for (int c = 0; c < rt.tree.nchildren; c++) {
            MPI_Aint at, len;
            MPII_Hier_rooted_child_piece(&rt, c, &at, &len);
            mpi_errno = MPIC_Send(rt.stage + at, len, MPIR_BYTE_INTERNAL, rt.tree.children[c],
                                  MPIR_SCATTER_TAG, rt.up_comm, coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    }

    /* 3. the node's blocks from its leader */
    if (rt.node_comm) {
        mpi_errno = MPII_Hier_intra_scatter(rt.stage, block, in_place ? MPI_IN_PLACE : recvbuf,
                                            recvcount, recvtype, rt.intra_root, rt.node_comm,
                                            prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    } else if (!in_place) {
        /* a leader alone on its node: its block is the first of its stage */
        mpi_errno = MPIR_Localcopy(rt.stage, block, MPIR_BYTE_INTERNAL, recvbuf, recvcount,
                                   recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

  fn_exit:
    if (hier)
        MPII_Hier_rooted_finish(hier, &rt);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
