/*
 * mpich-hier: segmented tree reduces (linear, chain, pipeline, binary, binomial,
 * in-order binary): one engine driven by the tree shape of hier_trees.c, and the thin
 * entry points MPICH's generated dispatch calls.  doc/segmented-trees.md has the table
 * of what each rank sends per segment.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_REDUCE_SEG_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 65536
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Segment size, in bytes, of the segmented tree reduces (seg_linear, seg_chain,
        seg_pipeline, seg_binary, seg_binomial, seg_in_order_binary), rounded down to whole
        datatype elements (at least one). 0 reduces the message as one segment.

    - name        : MPIR_CVAR_REDUCE_SEG_FANOUT
      category    : COLLECTIVE
      type        : int
      default     : 4
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Number of chains that feed the root of the seg_chain reduce (at least 1).

    - name        : MPIR_CVAR_REDUCE_SEG_WINDOW
      category    : COLLECTIVE
      type        : int
      default     : 4
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Segments the segmented tree reduces post ahead: at most this many receives per
        child outstanding (each with its own temporary segment buffer) and this many
        sends in flight (at least 1). Also used by the seg_* inter-node submodules of
        the hier algorithms.

    - name        : MPIR_CVAR_REDUCE_SEG_TMP_MAX
      category    : COLLECTIVE
      type        : int
      default     : 8388608
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bound, in bytes of the type signature, on the segment buffers a segmented tree
        reduce (blocking or inter-node submodule) holds at once: window segments per child
        of the tree's widest node. Wide trees (seg_linear or seg_chain with many children)
        get a smaller segment than MPIR_CVAR_REDUCE_SEG_SEGSIZE to stay within it; 0 = no
        bound.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

MPII_Hier_tree_kind MPII_Hier_seg_reduce_kind(MPII_Hier_tree_kind kind, MPI_Op op)
{
    if (kind != MPII_HIER_TREE_IN_ORDER_BINARY && !MPIR_Op_is_commutative(op)) {
        /* only the in-order tree combines in rank order */
        MPII_HIER_PVAR_ADD(REDUCE_SEG_IN_ORDER_SUBST, 1);
        return MPII_HIER_TREE_IN_ORDER_BINARY;
    }
    return kind;
}

static int wait_free(MPIR_Request ** req, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    if (*req) {
        mpi_errno = MPIC_Wait(*req, errflag);
        MPIR_Request_free(*req);
        *req = NULL;
    }
    return mpi_errno;
}

/* Algorithm: segmented tree reduce
 *
 * The message is cut into segments of whole datatype elements.  Per segment t, every
 * rank receives segment t of its children's partial results (up to `window` segments
 * posted ahead per child, each into its own temporary buffer), combines them into its
 * own contribution, last child first (child op ... op own: for IN_ORDER_BINARY, whose
 * children are the tops of the lower and the upper part of the ranks below it, this is
 * the rank-order result), and sends segment t to its parent (`window` sends in flight).
 * The top of the tree is the root, except for IN_ORDER_BINARY: its top, rank size-1,
 * sends the result segment by segment to the root.  Non-commutative ops run
 * IN_ORDER_BINARY whatever tree was asked for (coll_hier_seg_reduce_in_order_subst).
 */
int MPII_Hier_seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                         MPII_Hier_tree_kind kind, int segsize, int fanout, int window,
                         MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int rank = comm->rank, size = comm->local_size;
    MPII_Hier_tree_node node = { -1, 0, NULL };
    MPII_Hier_seg_plan plan;
    MPI_Aint type_size, extent, true_lb, true_extent, seg_max;
    int top, up, final_recv, nch;
    char *acc, *acc_alloc = NULL, *tmp = NULL, *tmp_alloc = NULL;
    MPIR_CHKLMEM_DECL(5);
    MPIR_Request **child_req = NULL, **send_req = NULL, **final_req = NULL;
    int64_t posted = 0, final_posted = 0;
    int final_window;

    MPIR_FUNC_ENTER;

    MPIR_ERR_CHKANDJUMP2(segsize < 0, mpi_errno, MPI_ERR_ARG, "**argneg", "**argneg %s %d",
                         "seg reduce segment size", segsize);
    MPIR_ERR_CHKANDJUMP1(fanout < 1 || window < 1, mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                         "seg reduce fanout and window must be >= 1");
    MPIR_Datatype_get_size_macro(datatype, type_size);
    if (count == 0 || type_size == 0)
        goto fn_exit;
    if (size == 1) {
        if (sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        goto fn_exit;
    }

    kind = MPII_Hier_seg_reduce_kind(kind, op);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    MPIR_Type_get_true_extent_impl(datatype, &true_lb, &true_extent);
    /* window segments per child: wide trees get smaller segments, alike on every rank */
    MPII_Hier_seg_plan_init(&plan, count * type_size,
                            MPII_Hier_seg_bounded(segsize, count * type_size, type_size,
                                                  (int64_t) window *
                                                  MPII_Hier_tree_max_children(kind, size, fanout),
                                                  MPIR_CVAR_REDUCE_SEG_TMP_MAX), type_size);
    MPII_HIER_PVAR_ADD(REDUCE_SEG_SEGMENTS, plan.nsegs);
    seg_max = plan.seg_bytes / type_size;

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&node, kind, size, root, fanout, rank) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    nch = node.nchildren;
    top = MPII_Hier_tree_top(kind, size, root);
    up = node.parent >= 0 ? node.parent : (top != root ? root : -1);
    final_recv = rank == root && top != root;
    /* the root's own contribution must never wait for results, or each segment costs a
     * whole trip through the tree: while it contributes, result receives are posted into
     * free slots only (the top's sends may arrive unexpected meanwhile), the rest after */
    final_window = 2 * window;

    /* acc: where this rank combines segment t before sending it up (the root's result
     * when the root is the top).  A leaf sends its data as it is, except the root,
     * whose recvbuf receives the result from the top meanwhile. */
    if (rank == root && !final_recv) {
        acc = recvbuf;
        if (sendbuf != MPI_IN_PLACE) {
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
            MPIR_ERR_CHECK(mpi_errno);
        }
    } else if (nch == 0 && rank != root) {
        acc = (char *) sendbuf;
    } else {
        MPIR_CHKLMEM_MALLOC(acc_alloc, char *, count * MPL_MAX(extent, true_extent), mpi_errno,
                            "seg reduce accumulator", MPL_MEM_COLL);
        acc = acc_alloc - true_lb;
        mpi_errno = MPIR_Localcopy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype,
                                   acc, count, datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (nch > 0) {
        /* window segment buffers per child */
        MPI_Aint slot_bytes = seg_max * MPL_MAX(extent, true_extent);
        MPIR_CHKLMEM_MALLOC(tmp_alloc, char *, slot_bytes * window * nch, mpi_errno,
                            "seg reduce segment buffers", MPL_MEM_COLL);
        tmp = tmp_alloc - true_lb;
    }
    MPIR_CHKLMEM_MALLOC(child_req, MPIR_Request **, sizeof(MPIR_Request *) * window * MPL_MAX(nch, 1),
                        mpi_errno, "seg reduce requests", MPL_MEM_COLL);
    MPIR_CHKLMEM_MALLOC(send_req, MPIR_Request **, sizeof(MPIR_Request *) * window, mpi_errno,
                        "seg reduce requests", MPL_MEM_COLL);
    MPIR_CHKLMEM_MALLOC(final_req, MPIR_Request **, sizeof(MPIR_Request *) * final_window,
                        mpi_errno, "seg reduce requests", MPL_MEM_COLL);
    memset(child_req, 0, sizeof(MPIR_Request *) * window * MPL_MAX(nch, 1));
    memset(send_req, 0, sizeof(MPIR_Request *) * window);
    memset(final_req, 0, sizeof(MPIR_Request *) * final_window);

#define SEG_COUNT(t_) (MPII_Hier_seg_len(&plan, (t_)) / type_size)
#define SEG_AT(buf_, t_) ((char *) (buf_) + MPII_Hier_seg_offset(&plan, (t_)) / type_size * extent)
#define TMP_AT(c_, t_) \
    (tmp + (((t_) % window) * nch + (c_)) * seg_max * MPL_MAX(extent, true_extent))
    for (int64_t t = 0; t < plan.nsegs; t++) {
        int slot = (int) (t % window);
        /* keep window segments posted per child, and of the result at a root not top */
        for (; posted < plan.nsegs && posted < t + window; posted++) {
            for (int c = 0; c < nch; c++) {
                mpi_errno = MPIC_Irecv(TMP_AT(c, posted), SEG_COUNT(posted), datatype,
                                       node.children[c], MPIR_REDUCE_TAG, comm,
                                       &child_req[(posted % window) * nch + c]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            }
        }
        /* results into free slots only: see final_window */
        for (; final_recv && final_posted < plan.nsegs && final_posted < t + window;
             final_posted++) {
            MPIR_Request **freq = &final_req[final_posted % final_window];
            if (*freq && !MPIR_Request_is_complete(*freq))
                break;
            mpi_errno = wait_free(freq, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            mpi_errno = MPIC_Irecv(SEG_AT(recvbuf, final_posted), SEG_COUNT(final_posted),
                                   datatype, top, MPIR_REDUCE_TAG, comm, freq);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        for (int c = 0; c < nch; c++) {
            mpi_errno = wait_free(&child_req[slot * nch + c], errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        /* child op ... op own, last child first */
        for (int c = nch - 1; c >= 0; c--) {
            mpi_errno = MPIR_Reduce_local(TMP_AT(c, t), SEG_AT(acc, t), SEG_COUNT(t), datatype,
                                          op);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (up >= 0) {
            mpi_errno = wait_free(&send_req[slot], errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            mpi_errno = MPIC_Isend(SEG_AT(acc, t), SEG_COUNT(t), datatype, up, MPIR_REDUCE_TAG,
                                   comm, &send_req[slot], errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
    }
    for (; final_recv && final_posted < plan.nsegs; final_posted++) {
        MPIR_Request **freq = &final_req[final_posted % final_window];
        mpi_errno = wait_free(freq, errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        mpi_errno = MPIC_Irecv(SEG_AT(recvbuf, final_posted), SEG_COUNT(final_posted),
                               datatype, top, MPIR_REDUCE_TAG, comm, freq);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
#undef SEG_COUNT
#undef SEG_AT
#undef TMP_AT
    for (int i = 0; i < window; i++) {
        mpi_errno = wait_free(&send_req[i], errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
    for (int i = 0; i < final_window; i++) {
        mpi_errno = wait_free(&final_req[i], errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
    for (int i = 0; i < window * nch; i++) {
        mpi_errno = wait_free(&child_req[i], errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    MPII_Hier_tree_node_free(&node);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}

/* ---- entry points (signatures from coll_algorithms.txt via gen_coll.py); a negative
 * parameter (a Csel JSON tree that does not set it) takes its CVAR ---- */

static int seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPIR_Comm * comm_ptr, MPII_Hier_tree_kind kind,
                      int segsize, int fanout, MPIR_Errflag_t * errflag)
{
    return MPII_Hier_seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr, kind,
                                segsize >= 0 ? segsize : MPIR_CVAR_REDUCE_SEG_SEGSIZE,
                                fanout >= 0 ? fanout : MPIR_CVAR_REDUCE_SEG_FANOUT,
                                MPIR_CVAR_REDUCE_SEG_WINDOW, errflag);
}

int MPIR_Reduce_intra_seg_linear(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                 int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_LINEAR, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_LINEAR, segsize, 1, errflag);
}

int MPIR_Reduce_intra_seg_pipeline(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                   int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_PIPELINE, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_PIPELINE, segsize, 1, errflag);
}

int MPIR_Reduce_intra_seg_binary(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                 int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_BINARY, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_BINARY, segsize, 1, errflag);
}

int MPIR_Reduce_intra_seg_binomial(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                   int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_BINOMIAL, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_BINOMIAL, segsize, 1, errflag);
}

int MPIR_Reduce_intra_seg_in_order_binary(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                          MPI_Datatype datatype, MPI_Op op, int root,
                                          MPIR_Comm * comm_ptr, int segsize,
                                          MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_IN_ORDER_BINARY, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_IN_ORDER_BINARY, segsize, 1, errflag);
}

int MPIR_Reduce_intra_seg_chain(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype datatype, MPI_Op op, int root,
                                MPIR_Comm * comm_ptr, int segsize, int fanout,
                                MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(REDUCE_SEG_CHAIN, 1);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_CHAIN, segsize, fanout, errflag);
}
