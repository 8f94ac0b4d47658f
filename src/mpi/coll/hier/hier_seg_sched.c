/*
 * mpich-hier: the segmented trees (hier_trees.c shapes), written once as schedules of
 * MPICH's transport (gentran).  Two uses: the blocking algorithms
 * MPIR_Bcast_intra_seg_* / MPIR_Reduce_intra_seg_* start a schedule and wait for it
 * (bcast_intra_seg.c, reduce_intra_seg.c), and the hier algorithms start one per
 * segment of their inter-node step (inter_algo=seg_*, hier_submodules.c).
 * doc/segmented-trees.md has the table of what each rank sends per segment.
 *
 * Each segment's receive, combine and send are vertices whose dependencies let segment
 * t+1 move while segment t is still in flight.  Segments are whole elements of the
 * call's datatype (a segment is a count of elements at its extent offset, as in MPICH's
 * tsp tree algorithms).  `window` bounds the operations in flight: the receive of
 * segment t waits for that of t-window (and, in a reduce, for the combine that frees
 * its buffer), a send of t for the send of t-window to the same peer.
 *
 * Segment t travels on tag tags[t % window], one tag per window slot.  Gentran issues a
 * vertex as soon as its dependencies complete, even in the middle of the start loop
 * that issues the independent vertices in order, so the send of t+window can leave
 * before the send of t+1: with one tag, a receive would match the wrong segment.
 * Within a slot the window dependencies keep segments in order.
 */

#include "hier_impl.h"

/* Elements [first, first+n) of a message cut into segments of seg elements. */
typedef struct {
    MPI_Aint first, n, seg;
    int64_t nsegs;
} elem_range;

static void erange_init(elem_range * rg, MPI_Aint first, MPI_Aint n, MPI_Aint seg)
{
    rg->first = first;
    rg->n = n;
    rg->seg = seg;
    rg->nsegs = n > 0 ? (n + seg - 1) / seg : 0;
}

static MPI_Aint erange_count(const elem_range * rg, int64_t t)
{
    MPI_Aint left = rg->n - t * rg->seg;
    return left < rg->seg ? left : rg->seg;
}

static MPI_Aint erange_start(const elem_range * rg, int64_t t)
{
    return rg->first + t * rg->seg;
}

/* segment size in bytes -> whole elements, at least one; 0: everything in one */
static MPI_Aint seg_elems(int64_t segsize, MPI_Aint count, MPI_Aint type_size)
{
    MPII_Hier_seg_plan plan;
    MPII_Hier_seg_plan_init(&plan, count * type_size, segsize, type_size);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, plan.raised);
    return plan.nsegs ? plan.seg_bytes / type_size : 1;
}

/* dependency list helpers: up to 2 vertices, -1 entries dropped */
static int deps2(int *v, int a, int b)
{
    int n = 0;
    if (a >= 0)
        v[n++] = a;
    if (b >= 0)
        v[n++] = b;
    return n;
}

/* Windowed pipelined receive of range rg from src: vertex ids into ids[t]. */
static int sched_recv_range(char *buf, MPI_Aint extent, const elem_range * rg,
                            MPI_Datatype datatype, int src, const int *tags, MPIR_Comm * comm,
                            int window, int *ids, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, v[2];
    for (int64_t t = 0; t < rg->nsegs && !mpi_errno; t++) {
        int n = deps2(v, t >= window ? ids[t - window] : -1, -1);
        mpi_errno = MPIR_TSP_sched_irecv(buf + erange_start(rg, t) * extent, erange_count(rg, t),
                                         datatype, src, tags[t % window], comm, sched, n, v,
                                         &ids[t]);
    }
    return mpi_errno;
}

/* Windowed pipelined send of range rg to dest, segment t after ready[t] (NULL: no
 * dependency).  sent[] (nsegs ints) is scratch for the vertex ids. */
static int sched_send_range(char *buf, MPI_Aint extent, const elem_range * rg,
                            MPI_Datatype datatype, int dest, const int *tags, MPIR_Comm * comm,
                            int window, const int *ready, int *sent, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, v[2];
    for (int64_t t = 0; t < rg->nsegs && !mpi_errno; t++) {
        int n = deps2(v, ready ? ready[t] : -1, t >= window ? sent[t - window] : -1);
        mpi_errno = MPIR_TSP_sched_isend(buf + erange_start(rg, t) * extent, erange_count(rg, t),
                                         datatype, dest, tags[t % window], comm, sched, n, v,
                                         &sent[t]);
    }
    return mpi_errno;
}

/* The start both seg trees share: their fanout and window checked, *nsegs 0 until
 * known, and the window's tags drawn into *tags (to free), the same on every rank,
 * whatever it has to do */
static int seg_sched_start(MPIR_Comm * comm, int fanout, int window, int64_t * nsegs,
                           int **tags)
{
    int mpi_errno = MPI_SUCCESS;

    *tags = NULL;
    if (nsegs)
        *nsegs = 0;
    MPIR_ERR_CHKANDJUMP1(fanout < 1 || window < 1, mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                         "seg tree fanout and window must be >= 1");
    *tags = MPL_malloc(sizeof(int) * window, MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!*tags, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = MPII_Hier_tags_draw(comm, window, 1, *tags);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The split-binary bcast's exchange: every rank swaps halves with its mirror rank in the
 * other subtree; the root sends the second half to the ranks without a mirror.  recv_ids:
 * the tree phase's receives of my half (a send of it follows each segment's). */
static int sched_split_exchange(char *buffer, MPI_Aint extent, const elem_range * half,
                                MPI_Datatype datatype, int root, MPIR_Comm * comm,
                                const int *xtags, int window, const int *recv_ids,
                                int *xrecv_ids, int *scratch, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, rank = comm->rank, size = comm->local_size;

    if (rank == root) {
        int n = MPII_Hier_tree_split_binary_unmatched(size, root, NULL);
        int *unmatched = MPL_malloc(sizeof(int) * MPL_MAX(n, 1), MPL_MEM_COLL);
        if (!unmatched)
            return MPI_ERR_NO_MEM;
        MPII_Hier_tree_split_binary_unmatched(size, root, unmatched);
        for (int i = 0; i < n && !mpi_errno; i++)
            mpi_errno = sched_send_range(buffer, extent, &half[1], datatype, unmatched[i], xtags,
                                         comm, window, NULL, scratch, sched);
        MPL_free(unmatched);
        return mpi_errno;
    }
    int side = MPII_Hier_tree_split_binary_half(size, root, rank);
    int partner = MPII_Hier_tree_split_binary_partner(size, root, rank);
    mpi_errno = sched_recv_range(buffer, extent, &half[1 - side], datatype, partner, xtags, comm,
                                 window, xrecv_ids, sched);
    if (!mpi_errno && partner != root)
        mpi_errno = sched_send_range(buffer, extent, &half[side], datatype, partner, xtags, comm,
                                     window, recv_ids, scratch, sched);
    return mpi_errno;
}

/* Algorithm: segmented tree bcast
 *
 * Every rank but the root receives its segments from its parent in the tree `kind` and
 * forwards each one to its children as soon as it is in.  SPLIT_BINARY sends the first
 * half of the message down the subtree of relative rank 1 and the second half down
 * that of relative rank 2, and every rank swaps halves with its mirror rank in the
 * other subtree (ranks without a mirror get the second half from the root); the swap
 * runs on its own tags, so it may overlap the tree phase.
 */
int MPII_Hier_seg_ibcast_sched(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                               MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize,
                               int fanout, int window, int64_t * nsegs, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    int rank = comm->rank, size = comm->local_size, *tags = NULL, *xtags = NULL;
    MPI_Aint type_size, extent, true_lb, true_extent, seg;
    MPII_Hier_tree_node node = { -1, 0, NULL };
    elem_range whole, half[2];
    const elem_range *my_rg;
    int *recv_ids = NULL, *scratch = NULL, *xrecv_ids = NULL;
    int split = kind == MPII_HIER_TREE_SPLIT_BINARY;
    MPIR_CHKLMEM_DECL();

    mpi_errno = seg_sched_start(comm, fanout, window, nsegs, &tags);
    MPIR_ERR_CHECK(mpi_errno);
    if (split) {        /* the exchange phase */
        MPIR_CHKLMEM_MALLOC(xtags, sizeof(int) * window);
        mpi_errno = MPII_Hier_tags_draw(comm, window, 1, xtags);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPIR_Datatype_get_size_macro(datatype, type_size);
    if (size == 1 || count == 0 || type_size == 0)
        goto fn_exit;
    MPIR_Datatype_get_extent_macro(datatype, extent);
    MPIR_Type_get_true_extent_impl(datatype, &true_lb, &true_extent);
    seg = seg_elems(segsize, count, type_size);

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&node, kind, size, root, fanout, rank) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    erange_init(&whole, 0, count, seg);
    my_rg = &whole;
    if (split) {
        MPI_Aint first = MPII_Hier_tree_split_binary_first(count);
        erange_init(&half[0], 0, first, seg);
        erange_init(&half[1], first, count - first, seg);
        if (rank != root)
            my_rg = &half[MPII_Hier_tree_split_binary_half(size, root, rank)];
    }
    if (nsegs)
        *nsegs = my_rg->nsegs;

    /* room for the vertex ids of the longest range */
    MPIR_CHKLMEM_MALLOC(recv_ids, sizeof(int) * (whole.nsegs + 1));
    MPIR_CHKLMEM_MALLOC(scratch, sizeof(int) * (whole.nsegs + 1));
    MPIR_CHKLMEM_MALLOC(xrecv_ids, sizeof(int) * (whole.nsegs + 1));

    /* tree phase: receive my range, forward each segment once it is in */
    if (node.parent >= 0) {
        mpi_errno = sched_recv_range(buffer, extent, my_rg, datatype, node.parent, tags, comm,
                                     window, recv_ids, sched);
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (int c = 0; c < node.nchildren; c++) {
        const elem_range *rg = split && rank == root ? &half[c] : my_rg;
        mpi_errno = sched_send_range(buffer, extent, rg, datatype, node.children[c], tags,
                                     comm, window, node.parent >= 0 ? recv_ids : NULL, scratch, sched);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* split-binary exchange phase, on its own tag: may overlap the tree phase */
    if (split)
        mpi_errno = sched_split_exchange(buffer, extent, half, datatype, root, comm, xtags,
                                         window, recv_ids, xrecv_ids, scratch, sched);

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    MPL_free(tags);
    MPII_Hier_tree_node_free(&node);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The tree a reduce with op runs, counting a substitution in the pvar. */
static MPII_Hier_tree_kind seg_reduce_kind(MPII_Hier_tree_kind kind, MPI_Op op)
{
    if (kind != MPII_HIER_TREE_IN_ORDER_BINARY && !MPIR_Op_is_commutative(op)) {
        /* only the in-order tree combines in rank order */
        MPII_HIER_PVAR_ADD(REDUCE_SEG_IN_ORDER_SUBST, 1);
        return MPII_HIER_TREE_IN_ORDER_BINARY;
    }
    return kind;
}

/* Per segment t: receive segment t of each child's partial result into its slot (free
 * once the combine of segment t-window from that child is done), then child op ... op own
 * into acc, last child first, one combine after the other (the first after copy_id);
 * ready[t]: the last combine of segment t. */
static int sched_reduce_segments(char *acc, MPI_Aint slot_bytes, MPI_Aint true_lb,
                                 MPI_Aint extent, const elem_range * whole,
                                 MPI_Datatype datatype, MPI_Op op,
                                 const MPII_Hier_tree_node * node, const int *tags, int window,
                                 int copy_id, MPIR_Comm * comm, int *ready,
                                 MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS, nch = node->nchildren;
    char *tmp = nch ? (char *) MPIR_TSP_sched_malloc(slot_bytes * window * nch, sched) - true_lb
        : NULL;
    int *recv_ids = MPL_malloc(sizeof(int) * MPL_MAX(nch, 1), MPL_MEM_COLL);
    int *red_ids = MPL_malloc(sizeof(int) * whole->nsegs * MPL_MAX(nch, 1), MPL_MEM_COLL);

    if (!recv_ids || !red_ids)
        mpi_errno = MPI_ERR_NO_MEM;
    for (int64_t t = 0; t < whole->nsegs && !mpi_errno; t++) {
        MPI_Aint n = erange_count(whole, t);
        char *acc_t = acc + erange_start(whole, t) * extent;
        int last = copy_id, v[2], nv;
        for (int c = 0; c < nch && !mpi_errno; c++) {
            char *slot = tmp + ((t % window) * nch + c) * slot_bytes;
            nv = deps2(v, t >= window ? red_ids[(t - window) * nch + c] : -1, -1);
            mpi_errno = MPIR_TSP_sched_irecv(slot, n, datatype, node->children[c],
                                             tags[t % window], comm, sched, nv, v, &recv_ids[c]);
        }
        for (int c = nch - 1; c >= 0 && !mpi_errno; c--) {
            char *slot = tmp + ((t % window) * nch + c) * slot_bytes;
            nv = deps2(v, recv_ids[c], last);
            mpi_errno = MPIR_TSP_sched_reduce_local(slot, acc_t, n, datatype, op, sched, nv, v,
                                                    &red_ids[t * nch + c]);
            last = red_ids[t * nch + c];
        }
        ready[t] = last;
    }
    MPL_free(recv_ids);
    MPL_free(red_ids);
    return mpi_errno;
}

/* acc: where this rank combines segment t before sending it up (the root's result when
 * the root is the top).  A leaf sends its data as it is, except the root, whose recvbuf
 * receives the result from the top meanwhile.  A copy into acc is one vertex
 * (*copy_id) that every segment waits for. */
static int sched_reduce_acc(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, int is_root, int final_recv, int leaf,
                            MPI_Aint elem_bytes, MPI_Aint true_lb, MPIR_TSP_sched_t sched,
                            char **acc, int *copy_id)
{
    if (is_root && !final_recv) {
        *acc = recvbuf;
        if (sendbuf == MPI_IN_PLACE)
            return MPI_SUCCESS;
        return MPIR_TSP_sched_localcopy(sendbuf, count, datatype, recvbuf, count, datatype,
                                        sched, 0, NULL, copy_id);
    }
    if (leaf && !is_root) {
        *acc = (char *) sendbuf;
        return MPI_SUCCESS;
    }
    *acc = (char *) MPIR_TSP_sched_malloc(count * elem_bytes, sched) - true_lb;
    return MPIR_TSP_sched_localcopy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype,
                                    *acc, count, datatype, sched, 0, NULL, copy_id);
}

/* The root's result from the top of an in-order tree, segment by segment into recvbuf:
 * after my contribution left it (copy_id), windowed; ids: nsegs ints of scratch. */
static int sched_recv_result(void *recvbuf, MPI_Aint extent, const elem_range * whole,
                             MPI_Datatype datatype, int top, const int *tags, MPIR_Comm * comm,
                             int window, int copy_id, int *ids, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    for (int64_t t = 0; t < whole->nsegs && !mpi_errno; t++) {
        int v[2], nv = deps2(v, copy_id, t >= window ? ids[t - window] : -1);
        mpi_errno = MPIR_TSP_sched_irecv((char *) recvbuf + erange_start(whole, t) * extent,
                                         erange_count(whole, t), datatype, top, tags[t % window],
                                         comm, sched, nv, v, &ids[t]);
    }
    return mpi_errno;
}

/* Algorithm: segmented tree reduce
 *
 * Per segment t, every rank receives segment t of its children's partial results (each
 * into its own temporary slot), combines them into its own contribution, last child
 * first (child op ... op own: for IN_ORDER_BINARY, whose children are the tops of the
 * lower and the upper part of the ranks below it, this is the rank-order result), and
 * sends segment t to its parent.  The top of the tree is the root, except for
 * IN_ORDER_BINARY: its top, rank size-1, sends the result segment by segment to the
 * root.  Non-commutative ops run IN_ORDER_BINARY whatever tree was asked for
 * (coll_hier_reduce_seg_in_order_subst).
 */
int MPII_Hier_seg_ireduce_sched(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                                MPII_Hier_tree_kind kind, int segsize, int fanout, int window,
                                int64_t * nsegs, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    int rank = comm->rank, size = comm->local_size, *tags = NULL;
    MPI_Aint type_size, extent, true_lb, true_extent, elem_bytes, seg;
    MPII_Hier_tree_node node = { -1, 0, NULL };
    elem_range whole;
    int top, up, final_recv, nch, copy_id = -1;
    char *acc;
    int *ready = NULL, *scratch = NULL;
    MPIR_CHKLMEM_DECL();

    mpi_errno = seg_sched_start(comm, fanout, window, nsegs, &tags);
    MPIR_ERR_CHECK(mpi_errno);

    MPIR_Datatype_get_size_macro(datatype, type_size);
    if (count == 0 || type_size == 0)
        goto fn_exit;
    if (size == 1) {    /* the root alone: its contribution is the result */
        mpi_errno = sched_reduce_acc(sendbuf, recvbuf, count, datatype, 1, 0, 1, 0, 0, sched,
                                     &acc, &copy_id);
        goto fn_exit;
    }
    MPIR_Datatype_get_extent_macro(datatype, extent);
    MPIR_Type_get_true_extent_impl(datatype, &true_lb, &true_extent);
    elem_bytes = MPL_MAX(extent, true_extent);  /* room per element in temporaries */
    kind = seg_reduce_kind(kind, op);
    /* window segments per child: wide trees get smaller segments, alike on every rank */
    seg = seg_elems(MPII_Hier_seg_bounded(segsize, count * type_size, type_size,
                                          (int64_t) window *
                                          MPII_Hier_tree_max_children(kind, size, fanout),
                                          MPIR_CVAR_REDUCE_SEG_TMP_MAX), count, type_size);
    erange_init(&whole, 0, count, seg);
    if (nsegs)
        *nsegs = whole.nsegs;

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&node, kind, size, root, fanout, rank) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    nch = node.nchildren;
    top = MPII_Hier_tree_top(kind, size, root);
    up = node.parent >= 0 ? node.parent : (top != root ? root : -1);
    final_recv = rank == root && top != root;

    mpi_errno = sched_reduce_acc(sendbuf, recvbuf, count, datatype, rank == root, final_recv,
                                 nch == 0, elem_bytes, true_lb, sched, &acc, &copy_id);
    MPIR_ERR_CHECK(mpi_errno);

    MPIR_CHKLMEM_MALLOC(ready, sizeof(int) * whole.nsegs);
    MPIR_CHKLMEM_MALLOC(scratch, sizeof(int) * whole.nsegs);
    mpi_errno = sched_reduce_segments(acc, seg * elem_bytes, true_lb, extent, &whole, datatype,
                                      op, &node, tags, window, copy_id, comm, ready, sched);
    MPIR_ERR_CHECK(mpi_errno);
    if (up >= 0) {
        mpi_errno = sched_send_range(acc, extent, &whole, datatype, up, tags, comm, window,
                                     ready, scratch, sched);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (final_recv)
        mpi_errno = sched_recv_result(recvbuf, extent, &whole, datatype, top, tags, comm, window,
                                      copy_id, scratch, sched);

  fn_exit:
    MPIR_CHKLMEM_FREEALL();
    MPL_free(tags);
    MPII_Hier_tree_node_free(&node);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
