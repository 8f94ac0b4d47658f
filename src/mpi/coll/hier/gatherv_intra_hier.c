/*
 * mpich-hier: hierarchical gatherv, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* What the deferred part of one gatherv's schedule is built from: the call (the root's
 * arrays kept with the schedule), the steps for root 0, the tags of the top leaders' runs
 * to the root (tag) and of the blocks that go straight to it (tag + 1), and this rank's
 * window (ranks me .. end - 1) with the bytes of their blocks that go through the leaders
 * (MPII_Hier_rooted_v_tree_bytes) as the counts phase gathered them */
typedef struct {
    MPII_Hier_call a;
    MPII_Hier_run_step *steps;
    int n, tag, end;
    MPI_Aint *bytes;            /* [end - me] */
} gv_ctx;

/* The bytes of rank r's block (this rank's own where it is not the root) */
static MPI_Aint gv_block(const MPII_Hier_call * a, int r)
{
    MPI_Aint type_size;
    int counted = a->comm->rank == a->root;     /* the root's own may be in place */

    MPIR_Datatype_get_size_macro(counted ? a->datatype : a->sendtype, type_size);
    return (counted ? a->counts[r] : a->sendcount) * type_size;
}

/* Whether rank r's block goes straight to the root */
static int gv_direct(const MPII_Hier_call * a, int r)
{
    MPI_Aint bytes = gv_block(a, r);
    return bytes > 0 && MPII_Hier_rooted_v_tree_bytes(bytes) == 0;
}

/* The packed offsets of this rank's blocks: every rank's at the root (its recvcounts),
 * else its window's, counted from itself */
static MPI_Aint *gv_offsets(const gv_ctx * c, MPIR_TSP_sched_t sub)
{
    const MPII_Hier_call *a = &c->a;
    int me = a->comm->rank, size = a->comm->local_size;

    if (me != a->root)
        return MPII_Hier_run_offsets(c->bytes, me, c->end, me, sub);
    MPI_Aint *bytes = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * size, sub);
    if (!bytes)
        return NULL;
    for (int r = 0; r < size; r++)
        bytes[r] = MPII_Hier_rooted_v_tree_bytes(gv_block(a, r));
    return MPII_Hier_run_offsets(bytes, 0, size, 0, sub);
}

/* This rank's own block into its place (the root's from recvbuf when in place) */
static int gv_own(const gv_ctx * c, const MPII_Hier_run_vector * v, int *front)
{
    const MPII_Hier_call *a = &c->a;
    int me = a->comm->rank;
    MPI_Aint n = v->at[me + 1] - v->at[me], extent;

    if (n == 0)
        return MPIR_TSP_sched_selective_sink(v->sched, 0, NULL, front);
    if (a->sendbuf != MPI_IN_PLACE)
        return MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype,
                                        v->packed + v->at[me], n, MPIR_BYTE_INTERNAL, v->sched,
                                        0, NULL, front);
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    return MPIR_TSP_sched_localcopy((char *) a->buf + a->displs[me] * extent, a->counts[me],
                                    a->datatype, v->packed + v->at[me], n, MPIR_BYTE_INTERNAL,
                                    v->sched, 0, NULL, front);
}

/* The blocks that go straight to the root, posted with the schedule (they need no
 * counts): the root receives them into recvbuf (copies its own, where not in place),
 * their ranks send them from sendbuf */
static int gv_direct_blocks(const MPII_Hier_call * a, int tag, MPIR_TSP_sched_t sched)
{
    int me = a->comm->rank, vtx, mpi_errno = MPI_SUCCESS;
    MPI_Aint extent;

    if (me != a->root)
        return !gv_direct(a, me) ? MPI_SUCCESS :
            MPIR_TSP_sched_isend(a->sendbuf, a->sendcount, a->sendtype, a->root, tag, a->comm,
                                 sched, 0, NULL, &vtx);
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    for (int r = 0; r < a->comm->local_size && !mpi_errno; r++) {
        char *at = (char *) a->buf + a->displs[r] * extent;
        if (!gv_direct(a, r))
            continue;
        if (r != me)
            mpi_errno = MPIR_TSP_sched_irecv(at, a->counts[r], a->datatype, r, tag, a->comm,
                                             sched, 0, NULL, &vtx);
        else if (a->sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype, at,
                                                 a->counts[r], a->datatype, sched, 0, NULL, &vtx);
    }
    return mpi_errno;
}

/* The root: each top leader's run into its place (its own group's once the root's own
 * steps are done, as it comes back over what the root sent up), then every block of a run
 * to recvbuf (not its own in place) */
static int gv_root(const gv_ctx * c, const MPII_Hier_run_vector * v, int front)
{
    const MPII_Hier_call *a = &c->a;
    const MPII_Hier_run_step *top = &c->steps[0];
    int me = a->root, n_in = 0, done, vtx, mpi_errno = MPI_SUCCESS;
    int *in = MPIR_TSP_sched_malloc(sizeof(int) * (top->members + 1), v->sched);
    MPI_Aint extent;

    if (!in)
        return MPI_ERR_NO_MEM;
    MPIR_Datatype_get_extent_macro(a->datatype, extent);
    in[n_in++] = front;
    for (int m = 0; m < top->members && !mpi_errno; m++) {
        int lo = top->first[m], own = lo <= me && me < top->first[m + 1];
        MPII_Hier_run_piece r = MPII_Hier_run_members(v, top, m, 1);
        if (r.n > 0 && lo != me)
            mpi_errno = MPIR_TSP_sched_irecv(r.buf, r.n, MPIR_BYTE_INTERNAL, lo, c->tag, a->comm,
                                             v->sched, own, &front, &in[n_in++]);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(v->sched, n_in, in, &done);
    for (int r = 0; r < a->comm->local_size && !mpi_errno; r++)
        if (v->at[r + 1] > v->at[r] && !(r == me && a->sendbuf == MPI_IN_PLACE))
            mpi_errno = MPIR_TSP_sched_localcopy(v->packed + v->at[r], v->at[r + 1] - v->at[r],
                                                 MPIR_BYTE_INTERNAL,
                                                 (char *) a->buf + a->displs[r] * extent,
                                                 a->counts[r], a->datatype, v->sched, 1, &done,
                                                 &vtx);
    return mpi_errno;
}

/* The data phase, built once the counts are in: own block, up the steps below the top
 * one, the top leaders' runs to the root */
static int gv_build(void *data, MPIR_TSP_sched_t sub)
{
    const gv_ctx *c = data;
    const MPII_Hier_run_step *top = &c->steps[0];
    int me = c->a.comm->rank, root = c->a.root, front, vtx, mpi_errno;
    MPII_Hier_run_vector v = { NULL, gv_offsets(c, sub), sub };
    int lo = me == root ? 0 : me, hi = me == root ? c->a.comm->local_size : c->end;

    if (!v.at)
        return MPI_ERR_NO_MEM;
    /* at[lo] is 0: rank lo's block first */
    if (v.at[hi] > 0 && !(v.packed = MPIR_TSP_sched_malloc(v.at[hi], sub)))
        return MPI_ERR_NO_MEM;
    mpi_errno = gv_own(c, &v, &front);
    for (int k = c->n - 1; k > 0 && !mpi_errno; k--)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(&v, &c->steps[k], &front);
    if (!mpi_errno && me == root)
        return gv_root(c, &v, front);
    if (!mpi_errno && top->comm) {
        MPII_Hier_run_piece r = MPII_Hier_run_members(&v, top, top->comm->rank, 1);
        if (r.n > 0)
            mpi_errno = MPIR_TSP_sched_isend(r.buf, r.n, MPIR_BYTE_INTERNAL, root, c->tag,
                                             c->a.comm, sub, 1, &front, &vtx);
    }
    return mpi_errno;
}

/* The counts phase: every rank's bytes gathered up the steps below the top one into its
 * leaders' windows (the data phase's receives need them; the root has its recvcounts) */
static int gv_counts(gv_ctx * c, MPIR_TSP_sched_t sched, int *front)
{
    const MPII_Hier_call *a = &c->a;
    int me = a->comm->rank, mpi_errno;
    MPII_Hier_run_vector v;

    if (!(c->bytes = MPII_Hier_run_counts(me, c->end, sched, &v)))
        return MPI_ERR_NO_MEM;
    c->bytes[0] = MPII_Hier_rooted_v_tree_bytes(gv_block(a, me));
    mpi_errno = MPIR_TSP_sched_selective_sink(sched, 0, NULL, front);
    for (int k = c->n - 1; k > 0 && !mpi_errno; k--)
        if (c->steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(&v, &c->steps[k], front);
    return mpi_errno;
}

/* Algorithm: hierarchical gatherv over the N levels, as one schedule
 *
 * Only the root knows every count, so the schedule runs in two phases on the steps for
 * root 0 (each group's leader its first rank, its data the run of its ranks):
 *     counts: each rank's bytes gathered up the steps below the top one, binomial trees,
 *         so that each leader knows its subtrees' blocks;
 *     data (a deferred vertex, built from those counts when they are in): each block no
 *         longer than a start-up packed in rank order, gathered up the same trees, then
 *         each top leader sends its groups' run to the root (inter_algo linear), which
 *         copies every block to its displacement in recvbuf; a longer block goes
 *         straight from its rank's sendbuf to the root's recvbuf
 *         (MPII_Hier_sized_rooted_v_direct: each rank knows its own, the leaders and the
 *         root theirs from the counts).
 * Only the top leaders' runs and the long blocks cross the top level's links.  Groups that are
 * not blocks of consecutive ranks, one node, and calls while the plugin makes its
 * comms: every rank sends its block straight to the root.
 */
static int gv_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_GATHERV_HIER_INTER_ALGORITHM, 0);
    int size = a->comm->local_size, n = 0, inter_algo, front, vtx, mpi_errno;
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    gv_ctx *c = MPIR_TSP_sched_malloc(sizeof(gv_ctx), sched);

    if (!c)
        return MPI_ERR_NO_MEM;
    if (size == 1) {
        MPI_Aint extent;
        MPIR_Datatype_get_extent_macro(a->datatype, extent);
        return a->sendbuf == MPI_IN_PLACE || a->sendcount == 0 ? MPI_SUCCESS :
            MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype,
                                     (char *) a->buf + a->displs[0] * extent, a->counts[0],
                                     a->datatype, sched, 0, NULL, &vtx);
    }
    *c = (gv_ctx) { *a, NULL, 0, 0, 0, NULL };
    c->a.given = NULL;
    if (a->comm->rank == a->root) {
        c->a.counts = MPII_Hier_keep_array(a->counts, size, sched);
        c->a.displs = MPII_Hier_keep_array(a->displs, size, sched);
        if (!c->a.counts || !c->a.displs)
            return MPI_ERR_NO_MEM;
    }
    mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_GATHERV_INTER_COUNT, NULL, steps,
                                         &n, &inter_algo);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_tags_draw(a->comm, 2, 1, &c->tag);
    if (!mpi_errno) {
        c->n = n;
        c->end = MPII_Hier_run_window_end(steps, n, a->comm->rank);
        c->steps = MPII_Hier_run_steps_keep(steps, n, size, sched);
        mpi_errno = !c->steps ? MPI_ERR_NO_MEM : gv_counts(c, sched, &front);
    }
    if (!mpi_errno)
        mpi_errno = gv_direct_blocks(&c->a, c->tag + 1, sched);
    if (!mpi_errno) {
        const MPI_Datatype types[2] = {
            a->sendbuf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : a->sendtype,
            a->comm->rank == a->root ? a->datatype : MPI_DATATYPE_NULL
        };
        mpi_errno = MPII_Hier_sched_add_deferred(a->comm, gv_build, c, types, 1, &front, sched,
                                                 &vtx);
    }
    MPII_Hier_run_steps_free(steps, n);
    return mpi_errno;
}

static int gv_entry(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const MPI_Aint * recvcounts, const MPI_Aint * displs,
                    MPI_Datatype recvtype, int root, MPIR_Comm * comm, int inter_algo,
                    int calls_pvar, int coll_attr, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .counts = recvcounts, .displs = displs,
        .datatype = recvtype, .root = root, .comm = comm, .given = &given,
        .calls_pvar = calls_pvar };
    /* a tuning file may name it for an intercomm (MPICH's own tree keys gatherv by no
     * comm_type): MPICH's linear algorithm takes both kinds of comm */
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM) {
        MPII_HIER_PVAR_ADD(FLAT_FALLBACKS, 1);
        return sched ? MPIR_TSP_Igatherv_sched_allcomm_linear(sendbuf, sendcount, sendtype,
                                                              recvbuf, recvcounts, displs,
                                                              recvtype, root, comm, sched) :
            MPIR_Gatherv_allcomm_linear(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, root, comm, coll_attr);
    }
    if (sched)
        return gv_sched(&call, sched);
    return MPII_Hier_sched_wait(gv_sched, &call);
}

int MPIR_Gatherv_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Aint recvcounts[], const MPI_Aint displs[],
                            MPI_Datatype recvtype, int root, MPIR_Comm * comm_ptr, int inter_algo,
                            int coll_attr)
{
    return gv_entry(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                    comm_ptr, inter_algo, MPII_HIER_PVAR_CALLS(gatherv, hier), coll_attr, NULL);
}

int MPIR_TSP_Igatherv_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                       MPI_Datatype recvtype, int root, MPIR_Comm * comm_ptr,
                                       MPIR_TSP_sched_t sched)
{
    return gv_entry(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                    comm_ptr, -1, MPII_HIER_PVAR_CALLS(igatherv, tsp_hier), 0, sched);
}
