/*
 * mpich-hier: hierarchical alltoallv, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* What the deferred part of one alltoallv's schedule is built from: the call (its arrays
 * kept with the schedule), the steps, and this rank's window (ranks me .. end - 1, its
 * subtrees' runs) with their counts rows as the counts phase gathered them */
typedef struct {
    MPII_Hier_call a;
    MPII_Hier_run_step *steps;
    int n, end;
    MPI_Aint *rows;             /* [(end - me) * 2 * size] */
} a2av_ctx;

/* What the data phase's callbacks read: the window's send rows (up: rank r's blocks to
 * every rank, in rank order) and receive rows (down: every rank's block to r, in rank
 * order), and on a top leader its pieces for and from each member of the top step */
typedef struct {
    const a2av_ctx *c;
    MPII_Hier_run_vector up, down;
    const MPII_Hier_run_step *top;      /* NULL where this rank is no top leader */
    char *send, *recv;
    MPI_Aint *send_at, *recv_at;        /* [members + 1] */
} a2av_data;

/* Window rank r's counts row: the bytes it sends to each rank, then (from + size) those it
 * receives from each */
static const MPI_Aint *a2av_row(const a2av_ctx * c, int r)
{
    return c->rows + (MPI_Aint) (r - c->a.comm->rank) * 2 * c->a.comm->local_size;
}

/* The side of the call this rank's send row comes from: sendbuf, or recvbuf in place */
static MPII_Hier_blocks a2av_send_side(const MPII_Hier_call * a)
{
    if (a->sendbuf == MPI_IN_PLACE)
        return (MPII_Hier_blocks) { a->buf, a->counts, a->displs, 0, a->datatype };
    return (MPII_Hier_blocks) { (void *) a->sendbuf, a->sendcounts, a->sdispls, 0, a->sendtype };
}

/* pack: 1 copies the blocks of side into the row at row, 0 the row into them */
static int a2av_copy_row(const MPII_Hier_blocks * side, const MPI_Aint * bytes, char *row,
                         int size, int pack)
{
    MPI_Aint extent;
    int mpi_errno = MPI_SUCCESS;

    MPIR_Datatype_get_extent_macro(side->type, extent);
    for (int r = 0; r < size && !mpi_errno; row += bytes[r], r++) {
        char *user = (char *) side->buf + side->displs[r] * extent;
        if (bytes[r] > 0)
            mpi_errno = pack ? MPIR_Localcopy(user, side->counts[r], side->type, row, bytes[r],
                                              MPIR_BYTE_INTERNAL) :
                MPIR_Localcopy(row, bytes[r], MPIR_BYTE_INTERNAL, user, side->counts[r],
                               side->type);
    }
    return mpi_errno;
}

static int a2av_pack_own(MPIR_Comm * comm, int tag, void *data)
{
    const a2av_data *d = data;
    const MPII_Hier_blocks side = a2av_send_side(&d->c->a);
    int me = d->c->a.comm->rank;

    return a2av_copy_row(&side, a2av_row(d->c, me), d->up.packed + d->up.at[me],
                         d->c->a.comm->local_size, 1);
}

static int a2av_unpack_own(MPIR_Comm * comm, int tag, void *data)
{
    const a2av_data *d = data;
    const MPII_Hier_call *a = &d->c->a;
    const MPII_Hier_blocks side = { a->buf, a->counts, a->displs, 0, a->datatype };
    int me = a->comm->rank, size = a->comm->local_size;

    return a2av_copy_row(&side, a2av_row(d->c, me) + size, d->down.packed + d->down.at[me],
                         size, 0);
}

/* Each member's piece from the send rows: for every rank s of this leader's groups, in
 * order, its blocks to member h's ranks */
static int a2av_pack_top(MPIR_Comm * comm, int tag, void *data)
{
    const a2av_data *d = data;
    const MPII_Hier_run_step *top = d->top;
    int me = d->c->a.comm->rank, end = top->first[top->comm->rank + 1];
    MPI_Aint *at = MPL_malloc(sizeof(MPI_Aint) * top->members, MPL_MEM_COLL);

    if (!at)
        return MPI_ERR_NO_MEM;
    memcpy(at, d->send_at, sizeof(MPI_Aint) * top->members);
    for (int s = me; s < end; s++) {
        const MPI_Aint *bytes = a2av_row(d->c, s);
        const char *from = d->up.packed + d->up.at[s];
        for (int h = 0; h < top->members; h++) {
            MPI_Aint n = 0;
            for (int r = top->first[h]; r < top->first[h + 1]; r++)
                n += bytes[r];
            memcpy(d->send + at[h], from, n);
            from += n;
            at[h] += n;
        }
    }
    MPL_free(at);
    return MPI_SUCCESS;
}

/* The receive rows from the pieces (this leader's own from its send piece): member h's
 * holds, for each of its ranks s in order, its blocks to this leader's ranks t; each t's
 * row fills in rank order of s as h goes up */
static int a2av_unpack_top(MPIR_Comm * comm, int tag, void *data)
{
    const a2av_data *d = data;
    const MPII_Hier_run_step *top = d->top;
    int me = d->c->a.comm->rank, size = d->c->a.comm->local_size, m = top->comm->rank;
    int end = top->first[m + 1];
    MPI_Aint *at = MPL_malloc(sizeof(MPI_Aint) * (end - me), MPL_MEM_COLL);

    if (!at)
        return MPI_ERR_NO_MEM;
    for (int t = me; t < end; t++)
        at[t - me] = d->down.at[t];
    for (int h = 0; h < top->members; h++) {
        const char *piece = h == m ? d->send + d->send_at[m] : d->recv + d->recv_at[h];
        for (int s = top->first[h]; s < top->first[h + 1]; s++)
            for (int t = me; t < end; t++) {
                MPI_Aint n = a2av_row(d->c, t)[size + s];
                memcpy(d->down.packed + at[t - me], piece, n);
                piece += n;
                at[t - me] += n;
            }
    }
    MPL_free(at);
    return MPI_SUCCESS;
}
/* The pieces' offsets: for member h, what this leader's ranks send to h's (send_at) and
 * receive from them (recv_at), from the counts rows */
static int a2av_piece_offsets(a2av_data * d, MPIR_TSP_sched_t sub)
{
    const MPII_Hier_run_step *top = d->top;
    int me = d->c->a.comm->rank, size = d->c->a.comm->local_size;
    int end = top->first[top->comm->rank + 1];

    d->send_at = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (top->members + 1), sub);
    d->recv_at = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (top->members + 1), sub);
    if (!d->send_at || !d->recv_at)
        return MPI_ERR_NO_MEM;
    d->send_at[0] = d->recv_at[0] = 0;
    for (int h = 0; h < top->members; h++) {
        MPI_Aint sent = 0, received = 0;
        for (int t = me; t < end; t++)
            for (int r = top->first[h]; r < top->first[h + 1]; r++) {
                sent += a2av_row(d->c, t)[r];
                received += a2av_row(d->c, t)[size + r];
            }
        d->send_at[h + 1] = d->send_at[h] + sent;
        d->recv_at[h + 1] = d->recv_at[h] + received;
    }
    d->send = MPIR_TSP_sched_malloc(MPL_MAX(d->send_at[top->members], 1), sub);
    d->recv = MPIR_TSP_sched_malloc(MPL_MAX(d->recv_at[top->members], 1), sub);
    return !d->send || !d->recv ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* The top step: the send rows cut into one piece per member, every other member sent its
 * piece and received its own at once (linear), the receive rows laid out from them */
static int a2av_top_step(a2av_data * d, MPIR_TSP_sched_t sub, int *front)
{
    const MPII_Hier_run_step *top = d->top;
    int m = top->comm->rank, n_in = 0, packed, after = *front, vtx, mpi_errno;
    int *in = MPIR_TSP_sched_malloc(sizeof(int) * top->members, sub);

    if (!in)
        return MPI_ERR_NO_MEM;
    mpi_errno = a2av_piece_offsets(d, sub);
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_cb(a2av_pack_top, d, sub, 1, &after, &packed);
    if (!mpi_errno)
        in[n_in++] = packed;
    for (int i = 1; i < top->members && !mpi_errno; i++) {
        int h = (m + i) % top->members;
        MPI_Aint out = d->send_at[h + 1] - d->send_at[h], back = d->recv_at[h + 1] - d->recv_at[h];
        if (out > 0)
            mpi_errno = MPIR_TSP_sched_isend(d->send + d->send_at[h], out, MPIR_BYTE_INTERNAL, h,
                                             top->tag, top->comm, sub, 1, &packed, &vtx);
        if (!mpi_errno && back > 0)
            mpi_errno = MPIR_TSP_sched_irecv(d->recv + d->recv_at[h], back, MPIR_BYTE_INTERNAL,
                                             h, top->tag, top->comm, sub, 0, NULL, &in[n_in++]);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_cb(a2av_unpack_top, d, sub, n_in, in, front);
    return mpi_errno;
}

/* The offsets of the window's rows, sent (received 0) or received (1) bytes per rank */
static MPI_Aint *a2av_row_offsets(const a2av_ctx * c, int received, MPIR_TSP_sched_t sub)
{
    int me = c->a.comm->rank, size = c->a.comm->local_size;
    MPI_Aint *bytes = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (c->end - me), sub);

    if (!bytes)
        return NULL;
    for (int t = me; t < c->end; t++) {
        const MPI_Aint *row = a2av_row(c, t) + received * size;
        bytes[t - me] = 0;
        for (int r = 0; r < size; r++)
            bytes[t - me] += row[r];
    }
    return MPII_Hier_run_offsets(bytes, me, c->end, me, sub);
}

/* The data phase, built once the counts are in: own send row, up the steps below the top
 * one, the top leaders' exchange, down the steps, own receive row to recvbuf */
static int a2av_build(void *ctx, MPIR_TSP_sched_t sub)
{
    const a2av_ctx *c = ctx;
    int front, after, vtx, mpi_errno;
    a2av_data *d = MPIR_TSP_sched_malloc(sizeof(a2av_data), sub);

    if (!d)
        return MPI_ERR_NO_MEM;
    *d = (a2av_data) { c, { NULL, a2av_row_offsets(c, 0, sub), sub },
        { NULL, a2av_row_offsets(c, 1, sub), sub }, c->steps[0].comm ? &c->steps[0] : NULL };
    if (!d->up.at || !d->down.at)
        return MPI_ERR_NO_MEM;
    d->up.packed = MPIR_TSP_sched_malloc(MPL_MAX(d->up.at[c->end], 1), sub);
    d->down.packed = MPIR_TSP_sched_malloc(MPL_MAX(d->down.at[c->end], 1), sub);
    if (!d->up.packed || !d->down.packed)
        return MPI_ERR_NO_MEM;
    mpi_errno = MPIR_TSP_sched_cb(a2av_pack_own, d, sub, 0, NULL, &front);
    for (int k = c->n - 1; k > 0 && !mpi_errno; k--)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(&d->up, &c->steps[k], &front);
    if (!mpi_errno && d->top)
        mpi_errno = a2av_top_step(d, sub, &front);
    for (int k = 1; k < c->n && !mpi_errno; k++)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_scatter_down(&d->down, &c->steps[k], &front);
    after = front;
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_cb(a2av_unpack_own, d, sub, 1, &after, &vtx);
    return mpi_errno;
}

/* The counts phase: every rank's counts row (its bytes to and from each rank) gathered up
 * the steps below the top one into its leaders' windows */
static int a2av_counts(a2av_ctx * c, MPIR_TSP_sched_t sched, int *front)
{
    const MPII_Hier_call *a = &c->a;
    const MPII_Hier_blocks side = a2av_send_side(a);
    int me = a->comm->rank, size = a->comm->local_size, mpi_errno;
    MPI_Aint row = 2 * size * (MPI_Aint) sizeof(MPI_Aint);
    MPI_Aint *at = MPII_Hier_run_uniform_offsets(me, c->end, row, sched);

    c->rows = MPIR_TSP_sched_malloc(row * (c->end - me), sched);
    if (!at || !c->rows)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < size; r++) {
        c->rows[r] = MPII_Hier_payload_bytes(side.counts[r], side.type);
        c->rows[size + r] = MPII_Hier_payload_bytes(a->counts[r], a->datatype);
    }
    MPII_Hier_run_vector v = { (char *) c->rows, at, sched };
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, front);
    for (int k = c->n - 1; k > 0 && !mpi_errno; k--)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(&v, &c->steps[k], front);
    return mpi_errno;
}

/* The call's arrays kept with the schedule: the deferred phase reads them after the
 * bindings freed theirs */
static int a2av_keep_call(a2av_ctx * c, const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    int size = a->comm->local_size;

    c->a = *a;
    c->a.given = NULL;
    c->a.counts = MPII_Hier_keep_array(a->counts, size, sched);
    c->a.displs = MPII_Hier_keep_array(a->displs, size, sched);
    if (a->sendbuf != MPI_IN_PLACE) {
        c->a.sendcounts = MPII_Hier_keep_array(a->sendcounts, size, sched);
        c->a.sdispls = MPII_Hier_keep_array(a->sdispls, size, sched);
        if (!c->a.sendcounts || !c->a.sdispls)
            return MPI_ERR_NO_MEM;
    }
    return !c->a.counts || !c->a.displs ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* The exchange through the top leaders on steps[0 .. n - 1] (inter_algo linear): the
 * counts phase, then the data phase as a deferred vertex */
static int a2av_leaders(const MPII_Hier_call * a, const MPII_Hier_run_step * steps, int n,
                        MPIR_TSP_sched_t sched)
{
    int size = a->comm->local_size, front, vtx, mpi_errno;
    a2av_ctx *c = MPIR_TSP_sched_malloc(sizeof(a2av_ctx), sched);

    if (!c)
        return MPI_ERR_NO_MEM;
    mpi_errno = a2av_keep_call(c, a, sched);
    if (mpi_errno)
        return mpi_errno;
    c->n = n;
    c->end = MPII_Hier_run_window_end(steps, n, a->comm->rank);
    c->steps = MPII_Hier_run_steps_keep(steps, n, size, sched);
    mpi_errno = !c->steps ? MPI_ERR_NO_MEM : a2av_counts(c, sched, &front);
    if (!mpi_errno) {
        const MPI_Datatype types[2] = {
            a->sendbuf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : a->sendtype, a->datatype
        };
        mpi_errno = MPII_Hier_sched_add_deferred(a->comm, a2av_build, c, types, 1, &front, sched,
                                                 &vtx);
    }
    return mpi_errno;
}

/* Every rank runs the direct exchange with inter_algo direct: by_size has no choice here,
 * as each rank knows only its own counts */
static int a2av_direct(const MPII_Hier_call * a, const MPII_Hier_params * prm)
{
    return prm->inter_algo == MPII_HIER_ALLTOALLV_INTER_DIRECT;
}

/* This rank's mean block, the larger of what it sends and what it receives over the comm's
 * ranks: what decides whether its rounds run one after the other */
static MPI_Aint a2av_mean_block(const MPII_Hier_call * a)
{
    int size = a->comm->local_size;
    MPI_Aint sent = 0, received = 0;

    for (int i = 0; i < size; i++) {
        if (a->sendbuf != MPI_IN_PLACE)
            sent += MPII_Hier_payload_bytes(a->sendcounts[i], a->sendtype);
        received += MPII_Hier_payload_bytes(a->counts[i], a->datatype);
    }
    return MPL_MAX(sent, received) / size;
}

/* Algorithm: hierarchical alltoallv over the N levels, as one schedule
 *
 *     inter_algo direct: every block straight from sendbuf to its place in recvbuf of its
 *     rank, posted in node rounds: in round j this rank's node sends to the j-th node after
 *     it and receives from the j-th before it; from a mean block by_size takes it for
 *     (hier_by_size.h) each round after the one before, so each node's link carries one
 *     node pair's flows at a time.
 *     inter_algo linear, through the top leaders on the steps for root 0 (each group's
 *     leader its first rank): only a rank knows its counts, so
 *         counts: each rank's counts row (the bytes it sends to and receives from each
 *             rank) gathered up the steps below the top one, binomial trees;
 *         data (a deferred vertex, built from those rows): each rank's blocks packed in
 *             rank order into its send row, the rows gathered up the same trees; each top
 *             leader cuts its groups' rows into one piece per other top leader (the blocks
 *             from its ranks to that one's) and sends them all at once, lays the pieces it
 *             receives out as its ranks' receive rows (whose sizes its ranks' counts give),
 *             which go down the trees; each rank's row to recvbuf.
 *         Only the top leaders cross the top level's links, one message per pair of
 *         groups (P^2 messages become N^2), after one message of counts per rank up the
 *         levels below.
 * Blocks of no elements move no message.  Groups that are not blocks of consecutive ranks,
 * one node, and calls while the plugin makes its comms: the direct exchange.  On one rank
 * the block to itself only (uncounted, as the alltoall's).
 */
static int a2av_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM,
                                                          0);
    const MPII_Hier_blocks send = { a->sendbuf, a->sendcounts, a->sdispls, 0, a->sendtype };
    const MPII_Hier_blocks recv = { a->buf, a->counts, a->displs, 0, a->datatype };
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    int n = 0, inter_algo, mpi_errno;

    if (a->comm->local_size == 1)       /* the block to itself: no message, no tag */
        return MPII_Hier_direct_exchange(a->comm, 0, a->sendbuf == MPI_IN_PLACE ? NULL : &send,
                                         &recv, 0, sched);
    mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_ALLTOALLV_INTER_COUNT, a2av_direct,
                                         steps, &n, &inter_algo);
    if (!mpi_errno && steps[0].comm != a->comm)
        mpi_errno = a2av_leaders(a, steps, n, sched);
    else if (!mpi_errno)
        mpi_errno = MPII_Hier_direct_exchange(a->comm, steps[0].tag,
                                              a->sendbuf == MPI_IN_PLACE ? NULL : &send, &recv,
                                              MPII_Hier_by_size_alltoall_node_rounds
                                              (a2av_mean_block(a)), sched);
    MPII_Hier_run_steps_free(steps, n);
    return mpi_errno;
}

static int a2av_entry(const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Aint recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIR_Comm * comm,
                      int inter_algo, int calls_pvar, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcounts = sendcounts,
        .sdispls = sdispls, .sendtype = sendtype, .buf = recvbuf, .counts = recvcounts,
        .displs = rdispls, .datatype = recvtype, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    if (sched)
        return a2av_sched(&call, sched);
    return MPII_Hier_sched_wait(a2av_sched, &call);
}

int MPIR_Alltoallv_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPIR_Comm * comm_ptr, int inter_algo,
                              int coll_attr)
{
    return a2av_entry(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm_ptr, inter_algo, MPII_HIER_PVAR_CALLS(alltoallv, hier), NULL);
}

int MPIR_TSP_Ialltoallv_sched_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void *recvbuf, const MPI_Aint recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    return a2av_entry(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm_ptr, -1, MPII_HIER_PVAR_CALLS(ialltoallv, tsp_hier), sched);
}
