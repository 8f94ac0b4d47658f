/*
 * mpich-hier: hierarchical gather through the root's column leaders.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : binomial
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Inter-node gather of the hier gather, run on the leaders: each sends the blocks
        of its subtree's nodes in one message
        linear   - every leader sends to the root
        binomial - a binomial tree of the nodes

    - name        : MPIR_CVAR_GATHER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Intra-node gather of the hier gather
        auto     - MPIR_Gather_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Gather_intra_binomial
        shm      - as binomial (the device has no shared-memory gather)

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: hierarchical gather (two steps through the root's column leaders)
 *
 * For a root at local rank j, node n is led by its member j mod size_n (the root leads
 * its own node).  Every rank's block is its packed contribution, b bytes.  Blocks are
 * kept node after node from the root's node on (relative node order), each node's in
 * its members' order, so that the nodes of any subtree of the inter-node tree (linear
 * or binomial: runs of consecutive relative nodes) hold one contiguous piece
 * (MPII_Hier_rooted):
 *     1. intra-node gather of the node's blocks onto its leader;
 *     2. each leader receives its children's subtree pieces next to its own node's
 *        and sends the whole to its parent;
 *     3. the root copies each rank's block from that order to its place in recvbuf.
 * Any placement of ranks on nodes and any number of ranks per node take this path;
 * nothing runs flat but the calls issued while the plugin builds its communicators.
 */
int MPIR_Gather_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                           MPIR_Comm * comm_ptr, int inter_algo, int intra_algo, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_GATHER_HIER_INTRA_ALGORITHM);
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_rooted rt = { 0 };
    MPIR_Request **reqs = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = rank == root && sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, recv_extent = 0;

    MPIR_FUNC_ENTER;

    /* the root's receive signature is every rank's: b bytes each */
    if (rank == root) {
        MPIR_Datatype_get_size_macro(recvtype, type_size);
        MPIR_Datatype_get_extent_macro(recvtype, recv_extent);
        block = recvcount * type_size;
    } else {
        MPIR_Datatype_get_size_macro(sendtype, type_size);
        block = sendcount * type_size;
    }
    if (size == 1 || block == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_GATHER_INTER_COUNT);
        if (!mpi_errno && block > 0 && !in_place)
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_GATHER_INTER_COUNT,
                                MPII_HIER_PVAR_CALLS(gather, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Gather_intra_binomial(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                               recvtype, root, comm_ptr, coll_attr);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_rooted_start(comm_ptr, hier, root, block,
                                       prm.inter_algo == MPII_HIER_GATHER_INTER_LINEAR ?
                                       MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL,
                                       &prm.intra_algo, &rt);
    MPIR_ERR_CHECK(mpi_errno);
    if (rt.is_leader) {
        const void *mine = in_place ? (char *) recvbuf + root * recvcount * recv_extent : sendbuf;
        mpi_errno = MPIR_Localcopy(mine, in_place ? recvcount : sendcount,
                                   in_place ? recvtype : sendtype,
                                   rt.stage + (MPI_Aint) hier->my_local * block, block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

    /* 1. the node's blocks onto its leader */
    if (rt.node_comm) {
        mpi_errno = MPII_Hier_intra_gather(rt.is_leader ? MPI_IN_PLACE : sendbuf, sendcount,
                                           sendtype, rt.stage, block, rt.intra_root, rt.node_comm,
                                           prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

    /* 2. the subtrees' pieces up the tree of nodes */
    if (rt.up_comm) {
        reqs = MPL_malloc(sizeof(MPIR_Request *) * MPL_MAX(1, rt.tree.nchildren), MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!reqs, mpi_errno, MPI_ERR_OTHER, "**nomem");
        for (int c = 0; c < rt.tree.nchildren; c++) {
            MPI_Aint at, len;
            MPII_Hier_rooted_child_piece(&rt, c, &at, &len);
            mpi_errno = MPIC_Irecv(rt.stage + at, len, MPIR_BYTE_INTERNAL, rt.tree.children[c],
                                   MPIR_GATHER_TAG, rt.up_comm, &reqs[c]);
            MPIR_ERR_CHECK(mpi_errno);
        }
        mpi_errno = MPIC_Waitall(rt.tree.nchildren, reqs, MPI_STATUSES_IGNORE);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        if (rt.tree.parent >= 0) {
            mpi_errno = MPIC_Send(rt.stage, rt.stage_bytes, MPIR_BYTE_INTERNAL, rt.tree.parent,
                                  MPIR_GATHER_TAG, rt.up_comm, coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    }

    /* 3. every block to its place at the root */
    for (int r = 0; rank == root && r < size; r++) {
        if (r == root && in_place)
            continue;
        mpi_errno = MPIR_Localcopy(rt.stage + MPII_Hier_rooted_block_at(hier, &rt, r), block,
                                   MPIR_BYTE_INTERNAL,
                                   (char *) recvbuf + r * recvcount * recv_extent, recvcount,
                                   recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

  fn_exit:
    if (hier)
        MPII_Hier_rooted_finish(hier, &rt);
    MPL_free(reqs);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
