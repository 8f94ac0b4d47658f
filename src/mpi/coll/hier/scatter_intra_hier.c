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
 * Leaders and block order as in the hier gather: node after node from the root's node
 * on, each node's blocks in its members' order, so that every subtree of the
 * inter-node tree holds one contiguous piece:
 *     1. the root copies each rank's block from sendbuf into that order;
 *     2. each leader receives its subtree's piece from its parent and sends each child
 *        the child's subtree piece;
 *     3. intra-node scatter of the node's blocks from its leader.
 */
int MPIR_Scatter_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                            MPIR_Comm * comm_ptr, int inter_algo, int intra_algo,
                            MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_SCATTER_HIER_INTRA_ALGORITHM);
    MPII_Hier_comm *hier = NULL;
    MPIR_Comm *up_comm, *node_comm;
    MPII_Hier_tree_node tree = { -1, 0, NULL };
    MPIR_Request **reqs = NULL;
    long long *offset = NULL;
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size, reentered = 0;
    int in_place = rank == root && recvbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, send_extent = 0;
    MPIR_CHKLMEM_DECL(3);

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
                                                recvtype, root, comm_ptr, errflag);
        goto fn_exit;
    }

    const MPII_Hier_levels *lv = &hier->levels;
    int column = lv->local_of[root], root_node = lv->node_of[root];
    int intra_root = MPII_Hier_levels_column_local(lv, hier->my_node, column);
    int is_leader = hier->my_local == intra_root;
    int nnodes = lv->nnodes, my_rel = (hier->my_node - root_node + nnodes) % nnodes;
    MPII_Hier_tree_kind kind = prm.inter_algo == MPII_HIER_SCATTER_INTER_LINEAR ?
        MPII_HIER_TREE_LINEAR : MPII_HIER_TREE_BINOMIAL;

    mpi_errno = MPII_Hier_two_level_comms(comm_ptr, hier, column, &up_comm, &node_comm);
    MPIR_ERR_CHECK(mpi_errno);
    if (node_comm == comm_ptr) {
        /* one node: a tree that picks hier for this comm again lands here re-entered */
        if (hier->reentered)
            prm.intra_algo = MPII_HIER_INTRA_BINOMIAL;
        hier->reentered++;
        reentered = 1;
    }

    MPIR_CHKLMEM_MALLOC(offset, long long *, sizeof(long long) * (nnodes + 1), mpi_errno,
                        "hier node offsets", MPL_MEM_COLL);
    MPII_Hier_levels_node_offsets(lv, root_node, block, offset);
    /* a leader's stage: its subtree's nodes, from its own on */
    int span = is_leader ? MPII_Hier_tree_subtree_size(kind, nnodes, 0, my_rel) : 0;
    if (is_leader)
        MPIR_CHKLMEM_MALLOC(stage, char *, offset[my_rel + span] - offset[my_rel], mpi_errno,
                            "hier scatter stage", MPL_MEM_COLL);

    /* 1. every block from its place at the root into node order */
    if (rank == root) {
        for (int r = 0; r < size; r++) {
            int rel = (lv->node_of[r] - root_node + nnodes) % nnodes;
            mpi_errno = MPIR_Localcopy((const char *) sendbuf + r * sendcount * send_extent,
                                       sendcount, sendtype,
                                       stage + offset[rel] + (MPI_Aint) lv->local_of[r] * block,
                                       block, MPI_BYTE);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
    }

    /* 2. the subtrees' pieces down the tree of nodes (up comm rank = node index) */
    if (up_comm) {
        MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&tree, kind, nnodes, root_node, 1,
                                                     hier->my_node) != 0, mpi_errno,
                            MPI_ERR_OTHER, "**nomem");
        if (tree.parent >= 0) {
            mpi_errno = MPIC_Recv(stage, offset[my_rel + span] - offset[my_rel], MPI_BYTE,
                                  tree.parent, MPIR_SCATTER_TAG, up_comm, MPI_STATUS_IGNORE,
                                  errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        int nreqs = MPL_MAX(1, tree.nchildren);
        MPIR_CHKLMEM_MALLOC(reqs, MPIR_Request **, sizeof(MPIR_Request *) * nreqs, mpi_errno,
                            "hier scatter requests", MPL_MEM_COLL);
        for (int c = 0; c < tree.nchildren; c++) {
            int rel = (tree.children[c] - root_node + nnodes) % nnodes;
            int n = MPII_Hier_tree_subtree_size(kind, nnodes, 0, rel);
            mpi_errno = MPIC_Isend(stage + (offset[rel] - offset[my_rel]),
                                   offset[rel + n] - offset[rel], MPI_BYTE, tree.children[c],
                                   MPIR_SCATTER_TAG, up_comm, &reqs[c], errflag);
            MPIR_ERR_CHECK(mpi_errno);
        }
        mpi_errno = MPIC_Waitall(tree.nchildren, reqs, MPI_STATUSES_IGNORE, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

    /* 3. the node's blocks from its leader */
    if (node_comm) {
        mpi_errno = MPII_Hier_intra_scatter(stage, block, in_place ? MPI_IN_PLACE : recvbuf,
                                            recvcount, recvtype, intra_root, node_comm,
                                            prm.intra_algo, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    } else if (!in_place) {
        /* a leader alone on its node: its block is the first of its stage */
        mpi_errno = MPIR_Localcopy(stage, block, MPI_BYTE, recvbuf, recvcount, recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

  fn_exit:
    if (reentered)
        hier->reentered--;
    MPII_Hier_tree_node_free(&tree);
    MPIR_CHKLMEM_FREEALL();
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
