/*
 * mpich-hier: hierarchical scatterv, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* What the deferred part of one scatterv's schedule is built from: the call (the root's
 * arrays kept with the schedule), the steps for root 0, the tag of the root's messages
 * to the top leaders, and this rank's window (ranks me .. end - 1) with their bytes as the
 * counts phase brought them; on a top leader (the root where it leads its group) they
 * are the start of its run's message from the root, whose packed blocks follow them
 * where they rode with the counts (MPII_Hier_rooted_v_with_counts) */
typedef struct {
    MPII_Hier_call a;
    MPII_Hier_run_step *steps;
    int n, tag, end;
    MPI_Aint *bytes;            /* [end - me] */
    int top_leader;             /* the counts came in (or, at the root, are) a run's message */
} sv_ctx;

/* The bytes of rank r's block (this rank's own where it is not the root) */
static MPI_Aint sv_block(const MPII_Hier_call * a, int r)
{
    MPI_Aint type_size;
    int root = a->comm->rank == a->root;        /* the root's own recvbuf may be in place */

    MPIR_Datatype_get_size_macro(root ? a->sendtype : a->datatype, type_size);
    return (root ? a->sendcounts[r] : a->count) * type_size;
}

/* Whether rank r's block goes straight from the root (MPII_Hier_sized_rooted_v_direct) */
static int sv_direct(const MPII_Hier_call * a, int r)
{
    MPI_Aint bytes = sv_block(a, r);
    return bytes > 0 && MPII_Hier_rooted_v_tree_bytes(bytes) == 0;
}

/* The blocks that go straight from the root, posted with the schedule (they need no
 * counts): the root sends them from sendbuf (copies its own, where not in place), their
 * ranks receive them into recvbuf */
static int sv_direct_blocks(const MPII_Hier_call * a, int tag, MPIR_TSP_sched_t sched)
{
    int me = a->comm->rank, vtx, mpi_errno = MPI_SUCCESS;
    MPI_Aint extent;

    if (me != a->root)
        return !sv_direct(a, me) ? MPI_SUCCESS :
            MPIR_TSP_sched_irecv(a->buf, a->count, a->datatype, a->root, tag, a->comm, sched, 0,
                                 NULL, &vtx);
    MPIR_Datatype_get_extent_macro(a->sendtype, extent);
    for (int r = 0; r < a->comm->local_size && !mpi_errno; r++) {
        const char *from = (const char *) a->sendbuf + a->displs[r] * extent;
        if (!sv_direct(a, r))
            continue;
        if (r != me)
            mpi_errno = MPIR_TSP_sched_isend(from, a->sendcounts[r], a->sendtype, r, tag,
                                             a->comm, sched, 0, NULL, &vtx);
        else if (a->buf != MPI_IN_PLACE)
            mpi_errno = MPIR_TSP_sched_localcopy(from, a->sendcounts[r], a->sendtype, a->buf,
                                                 a->count, a->datatype, sched, 0, NULL, &vtx);
    }
    return mpi_errno;
}

/* The root's message to top member m: its run's bytes, then its run's blocks packed in
 * rank order, copied from sendbuf (after the vertices in[0 .. *n_in - 1] already there);
 * returned, its length in *len, and in *with_counts whether the blocks ride with the
 * counts (else they follow in a message of their own) */
static char *sv_root_message(const sv_ctx * c, int m, const MPI_Aint * bytes, int *in, int *n_in,
                             MPI_Aint * len, int *with_counts, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_call *a = &c->a;
    const MPII_Hier_run_step *top = &c->steps[0];
    int lo = top->first[m], hi = top->first[m + 1], mpi_errno = MPI_SUCCESS;
    MPI_Aint counts = sizeof(MPI_Aint) * (hi - lo), data = 0, at = counts, extent;

    for (int r = lo; r < hi; r++)
        data += bytes[r];
    char *msg = MPIR_TSP_sched_malloc(counts + MPL_MAX(data, 1), sched);
    if (!msg)
        return NULL;
    memcpy(msg, bytes + lo, counts);
    MPIR_Datatype_get_extent_macro(a->sendtype, extent);
    for (int r = lo; r < hi && !mpi_errno; at += bytes[r], r++)
        if (bytes[r] > 0)
            mpi_errno = MPIR_TSP_sched_localcopy((char *) a->sendbuf + a->displs[r] * extent,
                                                 a->sendcounts[r], a->sendtype, msg + at, bytes[r],
                                                 MPIR_BYTE_INTERNAL, sched, 0, NULL, &in[(*n_in)++]);
    *len = counts + data;
    *with_counts = MPII_Hier_rooted_v_with_counts(data);
    return mpi_errno ? NULL : msg;
}

/* The root's messages: to each top leader (to its own group's leader where it leads none)
 * its run's counts, with its run's blocks where they ride along, else the blocks right
 * after; its own group's message kept as its counts where it leads it */
static int sv_root_counts(sv_ctx * c, MPIR_TSP_sched_t sched, int *front)
{
    const MPII_Hier_call *a = &c->a;
    const MPII_Hier_run_step *top = &c->steps[0];
    int size = a->comm->local_size, me = a->root, n_in = 0, mpi_errno = MPI_SUCCESS;
    int *in = MPIR_TSP_sched_malloc(sizeof(int) * (size + 2 * top->members + 1), sched);
    MPI_Aint *bytes = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * size, sched);

    if (!in || !bytes)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < size; r++)
        bytes[r] = MPII_Hier_rooted_v_tree_bytes(sv_block(a, r));
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, &in[n_in++]);
    for (int m = 0; m < top->members && !mpi_errno; m++) {
        int from = n_in, with_counts, packed;
        MPI_Aint len, counts = sizeof(MPI_Aint) * (top->first[m + 1] - top->first[m]);
        char *msg = sv_root_message(c, m, bytes, in, &n_in, &len, &with_counts, sched);
        if (!msg)
            return MPI_ERR_NO_MEM;
        if (top->first[m] == me) {      /* its own run: kept, the packing waited for below */
            c->bytes = (MPI_Aint *) msg;
            c->top_leader = 1;
            continue;
        }
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, n_in - from, in + from, &packed);
        n_in = from;
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_isend(msg, with_counts ? len : counts, MPIR_BYTE_INTERNAL,
                                             top->first[m], c->tag, a->comm, sched, 1, &packed,
                                             &in[n_in++]);
        if (!mpi_errno && !with_counts)
            mpi_errno = MPIR_TSP_sched_isend(msg + counts, len - counts, MPIR_BYTE_INTERNAL,
                                             top->first[m], c->tag, a->comm, sched, 1, &packed,
                                             &in[n_in++]);
    }
    return mpi_errno ? mpi_errno : MPIR_TSP_sched_selective_sink(sched, n_in, in, front);
}

/* The data phase, built once the counts are in: a top leader's run (with its counts, or
 * from the root now), down the steps below the top one, this rank's block to recvbuf (not
 * the root's in place) */
static int sv_build(void *data, MPIR_TSP_sched_t sub)
{
    const sv_ctx *c = data;
    const MPII_Hier_call *a = &c->a;
    int me = a->comm->rank, front, vtx, mpi_errno = MPI_SUCCESS;
    MPII_Hier_run_vector v = { NULL, MPII_Hier_run_offsets(c->bytes, me, c->end, me, sub), sub };

    if (!v.at)
        return MPI_ERR_NO_MEM;
    /* at[me] is 0: this rank's block first */
    if (c->top_leader && (me == a->root || MPII_Hier_rooted_v_with_counts(v.at[c->end]))) {
        v.packed = (char *) (c->bytes + (c->end - me));
        mpi_errno = MPIR_TSP_sched_selective_sink(sub, 0, NULL, &front);
    } else {
        if (v.at[c->end] > 0 && !(v.packed = MPIR_TSP_sched_malloc(v.at[c->end], sub)))
            return MPI_ERR_NO_MEM;
        mpi_errno = !c->top_leader || v.at[c->end] == 0 ?
            MPIR_TSP_sched_selective_sink(sub, 0, NULL, &front) :
            MPIR_TSP_sched_irecv(v.packed, v.at[c->end], MPIR_BYTE_INTERNAL, a->root, c->tag,
                                 a->comm, sub, 0, NULL, &front);
    }
    for (int k = 1; k < c->n && !mpi_errno; k++)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_scatter_down(&v, &c->steps[k], &front);
    if (!mpi_errno && a->buf != MPI_IN_PLACE && v.at[me + 1] > v.at[me])
        mpi_errno = MPIR_TSP_sched_localcopy(v.packed + v.at[me], v.at[me + 1] - v.at[me],
                                             MPIR_BYTE_INTERNAL, a->buf, a->count, a->datatype,
                                             sub, 1, &front, &vtx);
    return mpi_errno;
}

/* The counts phase: the root sends each top leader its run's bytes (and blocks, where
 * they ride along), which go down the steps below the top one into each member's window
 * (the data phase's receives need them; a leaf knows its recvcount) */
static int sv_counts(sv_ctx * c, MPIR_TSP_sched_t sched, int *front)
{
    const MPII_Hier_call *a = &c->a;
    const MPII_Hier_run_step *top = &c->steps[0];
    int me = a->comm->rank, mpi_errno = MPI_SUCCESS;
    MPII_Hier_run_vector v;

    if (!(c->bytes = MPII_Hier_run_counts(me, c->end, sched, &v)))
        return MPI_ERR_NO_MEM;
    c->bytes[0] = MPII_Hier_rooted_v_tree_bytes(sv_block(a, me));      /* a leaf's */
    if (me == a->root) {
        mpi_errno = sv_root_counts(c, sched, front);
    } else if (top->comm) {
        MPI_Aint counts = sizeof(MPI_Aint) * (c->end - me);
        char *msg = MPIR_TSP_sched_malloc(counts + MPII_Hier_rooted_v_with_counts_room(), sched);
        if (!msg)
            return MPI_ERR_NO_MEM;
        c->bytes = (MPI_Aint *) msg;
        c->top_leader = 1;
        mpi_errno = MPIR_TSP_sched_irecv(msg, counts + MPII_Hier_rooted_v_with_counts_room(),
                                         MPIR_BYTE_INTERNAL, a->root, c->tag, a->comm, sched, 0,
                                         NULL, front);
    } else {
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, front);
    }
    v.packed = (char *) c->bytes;
    for (int k = 1; k < c->n && !mpi_errno; k++)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_scatter_down(&v, &c->steps[k], front);
    return mpi_errno;
}

/* Algorithm: hierarchical scatterv over the N levels, as one schedule
 *
 * Only the root knows every count, so the schedule runs in two phases on the steps for
 * root 0 (each group's leader its first rank, its data the run of its ranks):
 *     counts: the root packs every block no longer than a start-up in rank order and
 *         sends each top leader one message (inter_algo linear): the bytes of its groups'
 *         blocks, then, where the run is no longer than a start-up
 *         (MPII_Hier_sized_rooted_v_with_counts), the run itself, else the run in a second
 *         message; each leader scatters the counts down the steps below the top one,
 *         binomial trees, so that each member knows its subtrees' blocks;
 *     data (a deferred vertex, built from those counts when they are in): each top leader
 *         takes its run from the counts' message or receives it, and it goes down the
 *         same trees; each rank copies its block to recvbuf; a longer block goes straight
 *         from the root's sendbuf to its rank's recvbuf (MPII_Hier_sized_rooted_v_direct:
 *         each rank knows its own, the leaders and the root theirs from the counts).
 * Only the top leaders' runs and the long blocks cross the top level's links: one message
 * per top leader where its run is short.  Groups that are not blocks of consecutive
 * ranks, one node, and calls while the plugin makes its comms: the root sends every rank
 * its block (with its count).
 */
static int sv_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_SCATTERV_HIER_INTER_ALGORITHM,
                                                          0);
    int size = a->comm->local_size, me = a->comm->rank, n = 0, inter_algo, front, vtx, mpi_errno;
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    sv_ctx *c = MPIR_TSP_sched_malloc(sizeof(sv_ctx), sched);

    if (!c)
        return MPI_ERR_NO_MEM;
    if (size == 1) {
        MPI_Aint extent;
        MPIR_Datatype_get_extent_macro(a->sendtype, extent);
        return a->buf == MPI_IN_PLACE || a->sendcounts[0] == 0 ? MPI_SUCCESS :
            MPIR_TSP_sched_localcopy((char *) a->sendbuf + a->displs[0] * extent,
                                     a->sendcounts[0], a->sendtype, a->buf, a->count,
                                     a->datatype, sched, 0, NULL, &vtx);
    }
    *c = (sv_ctx) { *a, NULL, 0, 0, 0, NULL, 0 };
    c->a.given = NULL;
    if (me == a->root) {
        c->a.sendcounts = MPII_Hier_keep_array(a->sendcounts, size, sched);
        c->a.displs = MPII_Hier_keep_array(a->displs, size, sched);
        if (!c->a.sendcounts || !c->a.displs)
            return MPI_ERR_NO_MEM;
    }
    mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_SCATTERV_INTER_COUNT, NULL, steps,
                                         &n, &inter_algo);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_tags_draw(a->comm, 2, 1, &c->tag);
    if (!mpi_errno) {
        c->n = n;
        c->end = MPII_Hier_run_window_end(steps, n, me);
        c->steps = MPII_Hier_run_steps_keep(steps, n, size, sched);
        mpi_errno = !c->steps ? MPI_ERR_NO_MEM : sv_counts(c, sched, &front);
    }
    if (!mpi_errno)
        mpi_errno = sv_direct_blocks(&c->a, c->tag + 1, sched);
    if (!mpi_errno) {
        const MPI_Datatype types[2] = {
            me == a->root ? a->sendtype : MPI_DATATYPE_NULL,
            a->buf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : a->datatype
        };
        mpi_errno = MPII_Hier_sched_add_deferred(a->comm, sv_build, c, types, 1, &front, sched,
                                                 &vtx);
    }
    MPII_Hier_run_steps_free(steps, n);
    return mpi_errno;
}

static int sv_entry(const void *sendbuf, const MPI_Aint * sendcounts, const MPI_Aint * displs,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                    MPI_Datatype recvtype, int root, MPIR_Comm * comm, int inter_algo,
                    int calls_pvar, int coll_attr, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcounts = sendcounts,
        .displs = displs, .sendtype = sendtype, .buf = recvbuf, .count = recvcount,
        .datatype = recvtype, .root = root, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    /* a tuning file may name it for an intercomm (MPICH's own tree keys scatterv by no
     * comm_type): MPICH's linear algorithm takes both kinds of comm */
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM) {
        MPII_HIER_PVAR_ADD(FLAT_FALLBACKS, 1);
        return sched ? MPIR_TSP_Iscatterv_sched_allcomm_linear(sendbuf, sendcounts, displs,
                                                               sendtype, recvbuf, recvcount,
                                                               recvtype, root, comm, sched) :
            MPIR_Scatterv_allcomm_linear(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                         recvtype, root, comm, coll_attr);
    }
    if (sched)
        return sv_sched(&call, sched);
    return MPII_Hier_sched_wait(sv_sched, &call);
}

int MPIR_Scatterv_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                             const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                             MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                             MPIR_Comm * comm_ptr, int inter_algo, int coll_attr)
{
    return sv_entry(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm_ptr, inter_algo, MPII_HIER_PVAR_CALLS(scatterv, hier), coll_attr, NULL);
}

int MPIR_TSP_Iscatterv_sched_intra_hier(const void *sendbuf, const MPI_Aint sendcounts[],
                                        const MPI_Aint displs[], MPI_Datatype sendtype,
                                        void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                                        int root, MPIR_Comm * comm_ptr, MPIR_TSP_sched_t sched)
{
    return sv_entry(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm_ptr, -1, MPII_HIER_PVAR_CALLS(iscatterv, tsp_hier), 0, sched);
}
