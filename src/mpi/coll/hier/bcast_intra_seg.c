/*
 * mpich-hier: segmented tree broadcasts (linear, chain, pipeline, binary, split-binary,
 * binomial): one engine driven by the tree shape of hier_trees.c, and the thin entry
 * points MPICH's generated dispatch calls.  doc/segmented-trees.md has the table of what
 * each rank sends per segment.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_BCAST_SEG_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 65536
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Segment size, in bytes, of the segmented tree bcasts (seg_linear, seg_chain,
        seg_pipeline, seg_binary, seg_split_binary, seg_binomial), rounded down to whole
        elements of the type signature (at least one). 0 sends the message as one segment.

    - name        : MPIR_CVAR_BCAST_SEG_FANOUT
      category    : COLLECTIVE
      type        : int
      default     : 4
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Number of chains the root of the seg_chain bcast feeds (at least 1).

    - name        : MPIR_CVAR_BCAST_SEG_WINDOW
      category    : COLLECTIVE
      type        : int
      default     : 4
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Segments the segmented tree bcasts post ahead: at most this many receives
        outstanding, and this many sends per child (at least 1). Also used by the
        seg_* inter-node submodules of the hier algorithms.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* A part of the payload and its segments. */
typedef struct {
    MPI_Aint off;
    MPII_Hier_seg_plan plan;
} seg_range;

/* segments by bytes of the payload (see MPII_Hier_payload) */
static void range_init(seg_range * rg, MPI_Aint off, MPI_Aint nbytes, int segsize)
{
    rg->off = off;
    MPII_Hier_seg_plan_init(&rg->plan, nbytes, segsize, 1);
}

#define SEG_PTR(bytes_, rg_, t_) ((bytes_) + (rg_)->off + MPII_Hier_seg_offset(&(rg_)->plan, (t_)))
#define SEG_LEN(rg_, t_) MPII_Hier_seg_len(&(rg_)->plan, (t_))

/* Wait for a request, if any, and release it. */
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

/* The tree phase: receive my range from the parent segment by segment (up to window
 * receives posted ahead) and forward each segment, once it is in, to every child c
 * (its range child_rg[c]; at most window sends per child in flight). */
static int tree_phase(char *bytes, MPIR_Comm * comm, const MPII_Hier_tree_node * node,
                      const seg_range * my_rg, const seg_range * child_rg, int window,
                      MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int nch = node->nchildren;
    int64_t nsteps = node->parent >= 0 ? my_rg->plan.nsegs : 0, posted = 0;
    MPIR_Request **recv_req, **send_req;
    MPIR_CHKLMEM_DECL(2);

    for (int c = 0; c < nch; c++)
        nsteps = MPL_MAX(nsteps, child_rg[c].plan.nsegs);
    MPIR_CHKLMEM_MALLOC(recv_req, MPIR_Request **, sizeof(MPIR_Request *) * window, mpi_errno,
                        "seg bcast receives", MPL_MEM_COLL);
    MPIR_CHKLMEM_MALLOC(send_req, MPIR_Request **,
                        sizeof(MPIR_Request *) * window * MPL_MAX(nch, 1), mpi_errno,
                        "seg bcast sends", MPL_MEM_COLL);
    for (int i = 0; i < window; i++)
        recv_req[i] = NULL;
    for (int i = 0; i < window * nch; i++)
        send_req[i] = NULL;

    for (int64_t t = 0; t < nsteps; t++) {
        int slot = (int) (t % window);
        if (node->parent >= 0) {
            for (; posted < my_rg->plan.nsegs && posted < t + window; posted++) {
                mpi_errno = MPIC_Irecv(SEG_PTR(bytes, my_rg, posted), SEG_LEN(my_rg, posted),
                                       MPI_BYTE, node->parent, MPIR_BCAST_TAG, comm,
                                       &recv_req[posted % window]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            }
            if (t < my_rg->plan.nsegs) {
                mpi_errno = wait_free(&recv_req[slot], errflag);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            }
        }
        for (int c = 0; c < nch; c++) {
            MPIR_Request **req = &send_req[slot * nch + c];
            mpi_errno = wait_free(req, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            if (t < child_rg[c].plan.nsegs) {
                mpi_errno = MPIC_Isend(SEG_PTR(bytes, &child_rg[c], t), SEG_LEN(&child_rg[c], t),
                                       MPI_BYTE, node->children[c], MPIR_BCAST_TAG, comm, req,
                                       errflag);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            }
        }
    }
    for (int i = 0; i < window * nch; i++) {
        mpi_errno = wait_free(&send_req[i], errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }
    for (int i = 0; i < window; i++) {
        mpi_errno = wait_free(&recv_req[i], errflag);   /* none left unless posting failed */
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    return mpi_errno_ret ? mpi_errno_ret : mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Pipelined exchange with one peer: send send_rg (may be NULL) to dest and receive
 * recv_rg (may be NULL) from src, window segments of each in flight. */
static int exchange(char *bytes, MPIR_Comm * comm, const seg_range * send_rg, int dest,
                    const seg_range * recv_rg, int src, int window, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int64_t ns = send_rg ? send_rg->plan.nsegs : 0, nr = recv_rg ? recv_rg->plan.nsegs : 0;
    MPIR_Request **req;         /* [2 * window]: receive, send */
    MPIR_CHKLMEM_DECL(1);

    MPIR_CHKLMEM_MALLOC(req, MPIR_Request **, sizeof(MPIR_Request *) * 2 * window, mpi_errno,
                        "seg bcast exchange", MPL_MEM_COLL);
    for (int i = 0; i < 2 * window; i++)
        req[i] = NULL;
    for (int64_t t = 0; t < MPL_MAX(ns, nr); t++) {
        int slot = (int) (t % window);
        for (int i = 0; i < 2; i++) {
            mpi_errno = wait_free(&req[2 * slot + i], errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (t < nr) {
            mpi_errno = MPIC_Irecv(SEG_PTR(bytes, recv_rg, t), SEG_LEN(recv_rg, t), MPI_BYTE,
                                   src, MPIR_BCAST_TAG, comm, &req[2 * slot]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
        if (t < ns) {
            mpi_errno = MPIC_Isend(SEG_PTR(bytes, send_rg, t), SEG_LEN(send_rg, t), MPI_BYTE,
                                   dest, MPIR_BCAST_TAG, comm, &req[2 * slot + 1], errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
    }
    for (int i = 0; i < 2 * window; i++) {
        mpi_errno = wait_free(&req[i], errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
    }

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    return mpi_errno_ret ? mpi_errno_ret : mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Algorithm: segmented tree bcast
 *
 * The payload (packed once when the type is not contiguous) is cut into segments of
 * whole basic elements.  Every rank but the root receives its segments from its parent
 * in the tree `kind` and forwards each one to its children as soon as it is in; up to
 * `window` receives are posted ahead and `window` sends per child are in flight.
 * SPLIT_BINARY sends the first half of the payload down the subtree of relative rank 1
 * and the second half down that of relative rank 2, then every rank swaps halves with
 * its mirror rank in the other subtree (ranks without a mirror get the second half
 * from the root).  The two phases run one after the other, so messages between the
 * same two ranks (the root and relative rank 1 when size is 2) match in order.
 */
int MPII_Hier_seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                        MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize, int fanout,
                        int window, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int rank = comm->rank, size = comm->local_size;
    MPII_Hier_payload payload = { 0 };
    MPII_Hier_tree_node node = { -1, 0, NULL };
    seg_range whole, half[2], *child_rg = NULL;
    const seg_range *my_rg;
    int payload_started = 0;
    int *unmatched;
    MPIR_CHKLMEM_DECL(2);

    MPIR_FUNC_ENTER;

    MPIR_ERR_CHKANDJUMP2(segsize < 0, mpi_errno, MPI_ERR_ARG, "**argneg", "**argneg %s %d",
                         "seg bcast segment size", segsize);
    MPIR_ERR_CHKANDJUMP1(fanout < 1 || window < 1, mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                         "seg bcast fanout and window must be >= 1");
    if (size == 1 || count == 0)
        goto fn_exit;

    mpi_errno = MPII_Hier_payload_start(&payload, buffer, count, datatype, rank == root);
    MPIR_ERR_CHECK(mpi_errno);
    payload_started = 1;
    if (payload.nbytes == 0)
        goto fn_exit;

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&node, kind, size, root, fanout, rank) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIR_CHKLMEM_MALLOC(child_rg, seg_range *, sizeof(seg_range) * MPL_MAX(node.nchildren, 1),
                        mpi_errno, "seg bcast child ranges", MPL_MEM_COLL);

    range_init(&whole, 0, payload.nbytes, segsize);
    my_rg = &whole;
    if (kind == MPII_HIER_TREE_SPLIT_BINARY) {
        MPI_Aint first = MPII_Hier_split_first_half(payload.nbytes);
        range_init(&half[0], 0, first, segsize);
        range_init(&half[1], first, payload.nbytes - first, segsize);
        if (rank != root)
            my_rg = &half[MPII_Hier_tree_split_binary_half(size, root, rank)];
    }
    for (int c = 0; c < node.nchildren; c++)
        child_rg[c] = kind == MPII_HIER_TREE_SPLIT_BINARY && rank == root ? half[c] : *my_rg;
    MPII_HIER_PVAR_ADD(BCAST_SEG_SEGMENTS, my_rg->plan.nsegs);

    mpi_errno = tree_phase(payload.bytes, comm, &node, my_rg, child_rg, window, errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);

    if (kind == MPII_HIER_TREE_SPLIT_BINARY) {
        if (rank == root) {
            int n = MPII_Hier_tree_split_binary_unmatched(size, root, NULL);
            MPIR_CHKLMEM_MALLOC(unmatched, int *, sizeof(int) * MPL_MAX(n, 1), mpi_errno,
                                "seg bcast unmatched ranks", MPL_MEM_COLL);
            MPII_Hier_tree_split_binary_unmatched(size, root, unmatched);
            for (int i = 0; i < n; i++) {
                mpi_errno = exchange(payload.bytes, comm, &half[1], unmatched[i], NULL, -1,
                                     window, errflag);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
            }
        } else {
            int side = MPII_Hier_tree_split_binary_half(size, root, rank);
            int partner = MPII_Hier_tree_split_binary_partner(size, root, rank);
            mpi_errno = exchange(payload.bytes, comm, partner == root ? NULL : &half[side],
                                 partner, &half[1 - side], partner, window, errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag);
        }
    }

  fn_exit:
    if (payload_started) {
        int finish_errno = MPII_Hier_payload_finish(&payload, buffer, count, datatype,
                                                    rank != root);
        if (!mpi_errno)
            mpi_errno = finish_errno;
    }
    MPIR_CHKLMEM_FREEALL();
    MPII_Hier_tree_node_free(&node);
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}

/* ---- entry points (signatures from coll_algorithms.txt via gen_coll.py); a negative
 * parameter (a Csel JSON tree that does not set it) takes its CVAR ---- */

static int seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                     MPIR_Comm * comm_ptr, MPII_Hier_tree_kind kind, int segsize, int fanout,
                     MPIR_Errflag_t * errflag)
{
    return MPII_Hier_seg_bcast(buffer, count, datatype, root, comm_ptr, kind,
                               segsize >= 0 ? segsize : MPIR_CVAR_BCAST_SEG_SEGSIZE,
                               fanout >= 0 ? fanout : MPIR_CVAR_BCAST_SEG_FANOUT,
                               MPIR_CVAR_BCAST_SEG_WINDOW, errflag);
}

int MPIR_Bcast_intra_seg_linear(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                MPIR_Comm * comm_ptr, int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_LINEAR, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_LINEAR, segsize, 1,
                     errflag);
}

int MPIR_Bcast_intra_seg_chain(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                               MPIR_Comm * comm_ptr, int segsize, int fanout,
                               MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_CHAIN, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_CHAIN, segsize,
                     fanout, errflag);
}

int MPIR_Bcast_intra_seg_pipeline(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                  MPIR_Comm * comm_ptr, int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_PIPELINE, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_PIPELINE, segsize,
                     1, errflag);
}

int MPIR_Bcast_intra_seg_binary(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                MPIR_Comm * comm_ptr, int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_BINARY, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_BINARY, segsize, 1,
                     errflag);
}

int MPIR_Bcast_intra_seg_split_binary(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                      int root, MPIR_Comm * comm_ptr, int segsize,
                                      MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_SPLIT_BINARY, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_SPLIT_BINARY,
                     segsize, 1, errflag);
}

int MPIR_Bcast_intra_seg_binomial(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                  MPIR_Comm * comm_ptr, int segsize, MPIR_Errflag_t * errflag)
{
    MPII_HIER_PVAR_ADD(BCAST_SEG_BINOMIAL, 1);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_BINOMIAL, segsize,
                     1, errflag);
}
