/*
 * mpich-hier: hierarchical allgather, the leaders' ring pipelined with the node bcasts.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_ALLGATHER_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size, in bytes, of the hier allgather's ring: each node's block
        (its ranks' packed contributions) moves between leaders and is broadcast in its
        node in pieces of this size. 0 moves each node's block as one piece.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Inter-node step of the hier allgather, run on the node leaders
        auto - MPIR_Allgatherv_allcomm_auto (MPICH's selection) of the nodes' blocks,
               then one intra-node bcast of everything
        ring - a ring of the leaders that forwards each piece as it arrives, each piece
               broadcast in the node while the next ones travel

    - name        : MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Intra-node gather and bcast of the hier allgather
        auto     - MPICH's selection on the node communicator (MPIR Csel tree)
        binomial - MPIR_Gather_intra_binomial and MPIR_Bcast_intra_binomial
        shm      - binomial gather, the device's shared-memory bcast (CH4 POSIX
                   release_gather; binomial where the device cannot)

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* One piece of the ring: bytes [first, first + len) of the stage. */
typedef struct {
    MPI_Aint first, len;
} piece;

/* The pieces of the ring in the order every rank of node `my_node` handles them: its own
 * node's block, then the blocks of nodes my_node - 1, my_node - 2, ..., my_node + 1 (what
 * its leader receives from the left, in turn), each cut into pieces of segsize (0: one
 * piece; at most MPII_HIER_SEG_MAX per block).  *own and *last: the pieces of the first
 * and of the last block. */
static piece *ring_pieces(const long long *offset, int nnodes, int my_node, int segsize,
                          int *npieces, int *own, int *last)
{
    int n = 0;
    piece *p = NULL;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0; k < nnodes; k++) {
            int node = (my_node - k + nnodes) % nnodes, before = n;
            MPI_Aint first = offset[node], len = offset[node + 1] - offset[node];
            int raised;
            MPI_Aint seg = MPII_Hier_seg_size(len, segsize, 1, &raised);
            if (pass == 0)
                MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, raised);
            for (MPI_Aint at = 0; at < len; at += seg, n++)
                if (pass == 1) {
                    p[n].first = first + at;
                    p[n].len = MPL_MIN(seg, len - at);
                }
            if (k == 0)
                *own = n;
            if (k == nnodes - 1)
                *last = n - before;
        }
        if (pass == 0) {
            p = MPL_malloc(sizeof(piece) * MPL_MAX(n, 1), MPL_MEM_COLL);
            if (!p)
                return NULL;
        }
    }
    *npieces = n;
    return p;
}

/* Algorithm: hierarchical allgather
 *
 * Every rank's block is its packed contribution, b bytes; the stage holds all of them,
 * node after node, each node's in its members' order.
 *     1. intra-node gather of the node's blocks onto its leader (local rank 0);
 *     2. ring, in steps j = 0, 1, ...: each leader receives the next piece from the
 *        previous node's leader, sends piece j of its list (its own node's pieces, then
 *        those it received, up to the next node's own block) to the next node's leader,
 *        and broadcasts piece j in its node while both travel; one receive and one send
 *        in flight, so that no leader waits on a peer that has not posted its side;
 *        auto: MPICH's allgatherv of the nodes' blocks among the leaders, then one
 *        intra-node bcast of the whole stage;
 *     3. each rank copies every block from the stage to its place in recvbuf.
 * Nodes of any size and any placement of ranks on nodes take this path.
 */
int MPIR_Allgather_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                              MPIR_Comm * comm_ptr, int segsize, int inter_algo, int intra_algo,
                              int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_DATA(segsize, inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_DATA(MPIR_CVAR_ALLGATHER_HIER_SEGSIZE,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM,
                                                         MPIR_CVAR_ALLGATHER_HIER_INTRA_ALGORITHM);
    MPII_Hier_comm *hier = NULL;
    MPIR_Comm *up_comm, *node_comm;
    piece *pieces = NULL;
    long long *offset = NULL;
    MPI_Aint *counts = NULL, *displs = NULL;
    char *stage = NULL;
    int rank = comm_ptr->rank, size = comm_ptr->local_size;
    int in_place = sendbuf == MPI_IN_PLACE;
    MPI_Aint block, type_size, extent;
    MPIR_CHKLMEM_DECL();

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(recvtype, type_size);
    MPIR_Datatype_get_extent_macro(recvtype, extent);
    block = recvcount * type_size;
    if (size == 1 || block == 0) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT);
        if (!mpi_errno && block > 0 && !in_place)
            mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_ALLGATHER_INTER_COUNT,
                                MPII_HIER_PVAR_CALLS(allgather, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Allgather_intra_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm_ptr, coll_attr);
        goto fn_exit;
    }

    const MPII_Hier_levels *lv = &hier->levels;
    int nnodes = lv->nnodes, my_node = hier->my_node, is_leader = hier->my_local == 0;
    mpi_errno = MPII_Hier_two_level_comms(comm_ptr, hier, 0, &up_comm, &node_comm);
    MPIR_ERR_CHECK(mpi_errno);

    MPIR_CHKLMEM_MALLOC(offset, sizeof(long long) * (nnodes + 1));
    MPII_Hier_levels_node_offsets(lv, 0, block, offset);
    MPIR_CHKLMEM_MALLOC(stage, offset[nnodes]);
    char *mine = stage + offset[my_node] + (MPI_Aint) hier->my_local * block;
    if (in_place)
        mpi_errno = MPIR_Localcopy((char *) recvbuf + rank * recvcount * extent, recvcount,
                                   recvtype, mine, block, MPIR_BYTE_INTERNAL);
    else
        mpi_errno = MPIR_Localcopy(sendbuf, sendcount, sendtype, mine, block, MPIR_BYTE_INTERNAL);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

    /* 1. the node's blocks onto its leader */
    if (node_comm) {
        mpi_errno = MPII_Hier_intra_gather(is_leader ? MPI_IN_PLACE : mine, block,
                                           MPIR_BYTE_INTERNAL, stage + offset[my_node], block, 0,
                                           node_comm, prm.intra_algo, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

    /* 2. between the nodes, and through each node */
    if (prm.inter_algo == MPII_HIER_ALLGATHER_INTER_AUTO || nnodes == 1) {
        if (up_comm) {
            MPIR_CHKLMEM_MALLOC(counts, sizeof(MPI_Aint) * nnodes);
            MPIR_CHKLMEM_MALLOC(displs, sizeof(MPI_Aint) * nnodes);
            for (int n = 0; n < nnodes; n++) {
                counts[n] = offset[n + 1] - offset[n];
                displs[n] = offset[n];
            }
            mpi_errno = MPIR_Allgatherv_allcomm_auto(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage,
                                                     counts, displs, MPIR_BYTE_INTERNAL, up_comm,
                                                     coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        if (node_comm) {
            mpi_errno = MPII_Hier_intra_bcast(stage, offset[nnodes], MPIR_BYTE_INTERNAL, 0,
                                              node_comm, prm.intra_algo, coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    } else {
        int nunits, own = 0, last = 0, right = (my_node + 1) % nnodes, left = (my_node - 1 + nnodes) % nnodes;
        pieces = ring_pieces(offset, nnodes, my_node, prm.segsize, &nunits, &own, &last);
        MPIR_ERR_CHKANDJUMP(!pieces, mpi_errno, MPI_ERR_OTHER, "**nomem");
        /* the units are the node's own pieces, then what arrives from the left; what goes
         * to the right is the same list without the last block to come round (the right
         * neighbour's own) */
        int nrecv = up_comm ? nunits - own : 0;
        int nsend = up_comm ? nunits - last : 0;
        MPII_HIER_PVAR_ADD(ALLGATHER_HIER_SEGMENTS, nrecv);
        for (int j = 0; j < nunits; j++) {
            MPIR_Request *reqs[2] = { NULL, NULL };
            int n = 0;
            /* step j: receive unit own + j, send unit j (held: own, or received at step
             * j - own), and broadcast unit j in the node meanwhile */
            if (j < nrecv) {
                mpi_errno = MPIC_Irecv(stage + pieces[own + j].first, pieces[own + j].len,
                                       MPIR_BYTE_INTERNAL, left, MPIR_ALLGATHER_TAG, up_comm,
                                       &reqs[n++]);
                MPIR_ERR_CHECK(mpi_errno);
            }
            if (j < nsend) {
                mpi_errno = MPIC_Isend(stage + pieces[j].first, pieces[j].len, MPIR_BYTE_INTERNAL,
                                       right, MPIR_ALLGATHER_TAG, up_comm, &reqs[n++],
                                       coll_attr | errflag);
                MPIR_ERR_CHECK(mpi_errno);
            }
            if (node_comm) {
                mpi_errno = MPII_Hier_intra_bcast(stage + pieces[j].first, pieces[j].len,
                                                  MPIR_BYTE_INTERNAL, 0, node_comm, prm.intra_algo,
                                                  coll_attr | errflag);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
            if (n) {
                mpi_errno = MPIC_Waitall(n, reqs, MPI_STATUSES_IGNORE);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
        }
    }

    /* 3. every block to its place */
    for (int r = 0; r < size; r++) {
        if (r == rank && in_place)
            continue;
        mpi_errno = MPIR_Localcopy(stage + offset[lv->node_of[r]] + (MPI_Aint) lv->local_of[r] *
                                   block, block, MPIR_BYTE_INTERNAL,
                                   (char *) recvbuf + r * recvcount * extent, recvcount, recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }

  fn_exit:
    MPL_free(pieces);
    MPIR_CHKLMEM_FREEALL();
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
