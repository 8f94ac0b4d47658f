/*
 * mpich-hier: hierarchical alltoall, one schedule for its blocking, non-blocking and
 * persistent forms.
 */

#include "hier_impl.h"

/* What every vertex of one alltoall's schedule shares.  A row is size blocks, packed in
 * rank order: on the way up rank s's send row (its blocks to every rank), on the way down
 * rank d's receive row (every rank's block to it).  This rank holds the rows of ranks
 * me .. me + rows - 1, its subtrees' (a group's leader is its first rank). */
typedef struct {
    MPI_Aint block;             /* bytes of one block */
    MPI_Aint row;               /* size * block */
    int me;
    char *up;                   /* send rows */
    char *down;                 /* receive rows */
    const MPI_Aint *at;         /* rank r's row at (r - me) * row (MPII_Hier_run_vector) */
    MPIR_TSP_sched_t sched;
} a2a_ctx;

/* The top step of one schedule as its two copies read it: the pieces of each pair of
 * groups in slots of slot bytes, slot h of send holding this leader's groups' blocks to
 * member h's groups and slot h of recv member h's groups' blocks to this leader's */
typedef struct {
    const a2a_ctx *c;
    int *first;                 /* [members + 1]: the top step's runs (MPII_Hier_run_step) */
    int members, m;
    MPI_Aint slot;
    char *send, *recv;
} a2a_top;

/* Each slot's piece from the send rows: for every sending rank s of this leader's groups,
 * its blocks to member h's ranks */
static int a2a_pack(MPIR_Comm * comm, int tag, void *data)
{
    const a2a_top *t = data;
    int ng = t->first[t->m + 1] - t->first[t->m];

    for (int h = 0; h < t->members; h++) {
        int lo = t->first[h], nh = t->first[h + 1] - lo;
        for (int s = 0; s < ng; s++)
            memcpy(t->send + h * t->slot + s * nh * t->c->block,
                   t->c->up + s * t->c->row + lo * t->c->block, nh * t->c->block);
    }
    return MPI_SUCCESS;
}

/* The receive rows from the slots: member h's piece holds, for each of its ranks s, the
 * blocks to this leader's ranks d */
static int a2a_unpack(MPIR_Comm * comm, int tag, void *data)
{
    const a2a_top *t = data;
    int ng = t->first[t->m + 1] - t->first[t->m];

    for (int h = 0; h < t->members; h++) {
        int lo = t->first[h], nh = t->first[h + 1] - lo;
        const char *piece = t->recv + h * t->slot;
        for (int s = 0; s < nh; s++)
            for (int d = 0; d < ng; d++)
                memcpy(t->c->down + d * t->c->row + (lo + s) * t->c->block,
                       piece + (s * ng + d) * t->c->block, t->c->block);
    }
    return MPI_SUCCESS;
}

/* The top step's exchange of the packed slots: each leader sends every other one its slot
 * at once (linear), or MPICH's Bruck alltoall of whole slots among them (brucks; its
 * vertices wait for everything before them, through fences) */
static int a2a_exchange(const a2a_top * t, const MPII_Hier_run_step * st, int brucks,
                        int packed, int *front)
{
    int ng = t->first[t->m + 1] - t->first[t->m], n_in = 0, mpi_errno = MPI_SUCCESS;
    int *in = MPL_malloc(sizeof(int) * t->members, MPL_MEM_COLL);

    if (!in)
        return MPI_ERR_NO_MEM;
    if (brucks) {
        int saved = st->comm->next_sched_tag;
        st->comm->next_sched_tag = st->tag;     /* every top leader draws the step's tag */
        mpi_errno = MPIR_TSP_sched_fence(t->c->sched);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_Ialltoall_sched_intra_brucks(t->send, t->slot, MPIR_BYTE_INTERNAL,
                                                              t->recv, t->slot, MPIR_BYTE_INTERNAL,
                                                              st->comm, 2, 0, t->c->sched);
        st->comm->next_sched_tag = saved;
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_fence(t->c->sched);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_sink(t->c->sched, front);
        MPL_free(in);
        return mpi_errno;
    }
    mpi_errno = MPIR_TSP_sched_localcopy(t->send + t->m * t->slot, (MPI_Aint) ng * ng * t->c->block,
                                         MPIR_BYTE_INTERNAL, t->recv + t->m * t->slot,
                                         (MPI_Aint) ng * ng * t->c->block, MPIR_BYTE_INTERNAL,
                                         t->c->sched, 1, &packed, &in[n_in++]);
    for (int i = 1; i < t->members && !mpi_errno; i++) {
        int h = (t->m + i) % t->members, vtx;
        MPI_Aint n = (MPI_Aint) ng * (t->first[h + 1] - t->first[h]) * t->c->block;
        mpi_errno = MPIR_TSP_sched_isend(t->send + h * t->slot, n, MPIR_BYTE_INTERNAL, h, st->tag,
                                         st->comm, t->c->sched, 1, &packed, &vtx);
        if (!mpi_errno)
            mpi_errno = MPIR_TSP_sched_irecv(t->recv + h * t->slot, n, MPIR_BYTE_INTERNAL, h,
                                             st->tag, st->comm, t->c->sched, 0, NULL, &in[n_in++]);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(t->c->sched, n_in, in, front);
    MPL_free(in);
    return mpi_errno;
}

/* Whether the exchange of pieces of piece bytes among members takes MPICH's Bruck
 * alltoall: inter_algo brucks, or by_size where its rounds cost no more (hier_by_size.h) */
static int a2a_brucks(int inter_algo, MPI_Aint piece, int members)
{
    return inter_algo == MPII_HIER_ALLTOALL_INTER_BRUCKS ||
        (inter_algo == MPII_HIER_ALLTOALL_INTER_BY_SIZE &&
         MPII_Hier_by_size_alltoall_brucks(piece, members));
}

/* The top step: the send rows packed into one slot per member, the slots exchanged
 * (inter_algo linear or brucks; by_size: Bruck's for slots no longer than a start-up), the
 * receive rows unpacked from them.  Groups of one rank each: the rows are the slots. */
static int a2a_top_step(const a2a_ctx * c, const MPII_Hier_run_step * st, int inter_algo,
                        int *front)
{
    int members = st->comm->local_size, widest = 0, mpi_errno = MPI_SUCCESS, brucks, after;
    a2a_top *t = MPIR_TSP_sched_malloc(sizeof(a2a_top), c->sched);

    if (!t)
        return MPI_ERR_NO_MEM;
    for (int h = 0; h < members; h++)
        widest = MPL_MAX(widest, st->first[h + 1] - st->first[h]);
    *t = (a2a_top) { c, MPIR_TSP_sched_malloc(sizeof(int) * (members + 1), c->sched),
        members, st->comm->rank, (MPI_Aint) widest * widest * c->block, c->up, c->down };
    if (widest > 1) {
        t->send = MPIR_TSP_sched_malloc(t->slot * members, c->sched);
        t->recv = MPIR_TSP_sched_malloc(t->slot * members, c->sched);
    }
    if (!t->first || !t->send || !t->recv)
        return MPI_ERR_NO_MEM;
    memcpy(t->first, st->first, sizeof(int) * (members + 1));
    brucks = a2a_brucks(inter_algo, t->slot, members);
    /* gentran sets a new vertex's id before it reads the ids it waits for: never one
     * variable for both */
    after = *front;
    if (widest > 1)
        mpi_errno = MPIR_TSP_sched_cb(a2a_pack, t, c->sched, 1, &after, front);
    if (!mpi_errno)
        mpi_errno = a2a_exchange(t, st, brucks, *front, front);
    after = *front;
    if (!mpi_errno && widest > 1)
        mpi_errno = MPIR_TSP_sched_cb(a2a_unpack, t, c->sched, 1, &after, front);
    return mpi_errno;
}

/* This rank's send row from sendbuf (recvbuf in place), the steps, then its receive row
 * to recvbuf */
static int a2a_steps(const a2a_ctx * c, const MPII_Hier_call * a, const MPII_Hier_run_step * steps,
                     int n, int inter_algo)
{
    int size = a->comm->local_size, front, vtx, mpi_errno;
    int in_place = a->sendbuf == MPI_IN_PLACE;

    mpi_errno = MPIR_TSP_sched_localcopy(in_place ? a->buf : a->sendbuf,
                                         size * (in_place ? a->count : a->sendcount),
                                         in_place ? a->datatype : a->sendtype, c->up, c->row,
                                         MPIR_BYTE_INTERNAL, c->sched, 0, NULL, &front);
    /* up the steps, finest first, along binomial trees; then down, coarsest first */
    MPII_Hier_run_vector up = { c->up, c->at, c->sched }, down = { c->down, c->at, c->sched };
    for (int k = n - 1; k > 0 && !mpi_errno; k--)
        if (steps[k].comm)
            mpi_errno = MPII_Hier_run_gather_up(&up, &steps[k], &front);
    if (!mpi_errno && steps[0].comm)
        mpi_errno = a2a_top_step(c, &steps[0], inter_algo, &front);
    for (int k = 1; k < n && !mpi_errno; k++)
        if (steps[k].comm)
            mpi_errno = MPII_Hier_run_scatter_down(&down, &steps[k], &front);
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_localcopy(c->down, c->row, MPIR_BYTE_INTERNAL, a->buf,
                                             size * a->count, a->datatype, c->sched, 1, &front,
                                             &vtx);
    return mpi_errno;
}

/* The flat plan (each rank its own group) but for Bruck's: the direct exchange in node
 * rounds (MPII_Hier_direct_exchange), chained for blocks by_size takes it for
 * (hier_by_size.h).  No row is packed: a temporary the size of the rows costs its pages
 * at every call. */
static int a2a_flat(const MPII_Hier_call * a, const MPII_Hier_run_step * st,
                    MPIR_TSP_sched_t sched)
{
    const MPII_Hier_blocks send = { a->sendbuf, NULL, NULL, a->sendcount, a->sendtype };
    const MPII_Hier_blocks recv = { a->buf, NULL, NULL, a->count, a->datatype };
    MPI_Aint block = MPII_Hier_payload_bytes(a->count, a->datatype);

    return MPII_Hier_direct_exchange(a->comm, st->tag, a->sendbuf == MPI_IN_PLACE ? NULL : &send,
                                     &recv, MPII_Hier_by_size_alltoall_node_rounds(block), sched);
}

/* The rows this rank holds: its largest run at any step (its subtree's below the top, its
 * groups' at the top), each starting at its own; -1 where one does not */
static int a2a_rows(const MPII_Hier_run_step * steps, int n, int me)
{
    int rows = 1;
    for (int k = 0; k < n; k++) {
        const MPII_Hier_run_step *st = &steps[k];
        if (!st->comm)
            continue;
        int m = st->comm->rank, len = k == 0 ? 1 : MPII_Hier_run_subtree(st, m);
        if (st->first[m] != me)
            return -1;
        rows = MPL_MAX(rows, st->first[m + len] - me);
    }
    return rows;
}

/* Whether the call's blocks go straight from rank to rank instead of through the groups'
 * leaders: inter_algo direct, or by_size for rows it does not aggregate */
static int a2a_direct(const MPII_Hier_call * a, const MPII_Hier_params * prm)
{
    if (prm->inter_algo == MPII_HIER_ALLTOALL_INTER_DIRECT)
        return 1;
    return prm->inter_algo == MPII_HIER_ALLTOALL_INTER_BY_SIZE &&
        !MPII_Hier_by_size_alltoall_aggregate(MPII_Hier_payload_bytes(a->count, a->datatype),
                                              a->comm->local_size);
}

/* Algorithm: hierarchical alltoall over the N levels, as one schedule
 *
 *     each rank's blocks packed into its send row;
 *     up the steps below the top one, finest first: each group gathers its ranks' send
 *         rows onto its leader along a binomial tree;
 *     the top step: each top leader cuts its groups' rows into one piece per other top
 *         leader (the blocks from its ranks to that one's ranks), and the leaders exchange
 *         them (inter_algo linear: all at once; brucks: MPICH's Bruck alltoall of the
 *         pieces padded to the widest pair's); each leader lays what it received out as
 *         the receive rows of its ranks;
 *     down the steps, coarsest first: each leader scatters its ranks' receive rows along a
 *         binomial tree;
 *     each rank's receive row to recvbuf.
 * Only the top leaders cross the top level's links, one message per pair of groups (P^2
 * messages become N^2).  inter_algo direct, or by_size for rows longer than a start-up
 * (hier_by_size.h): each rank its own group, every block straight from sendbuf to its
 * rank's recvbuf (by_size: Bruck's among all ranks where its rounds cost no more).  The
 * same where groups are not blocks of consecutive ranks (counted), on one node, and while
 * the plugin makes its comms.
 */
static int a2a_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM,
                                                          0);
    int size = a->comm->local_size, n = 0, mpi_errno = MPI_SUCCESS, vtx, inter_algo;
    MPII_Hier_run_step steps[MPII_HIER_MAX_STEPS];
    a2a_ctx *c = MPIR_TSP_sched_malloc(sizeof(a2a_ctx), sched);
    MPI_Aint block = MPII_Hier_payload_bytes(a->count, a->datatype);

    if (!c)
        return MPI_ERR_NO_MEM;
    if (block == 0 || (size == 1 && a->sendbuf == MPI_IN_PLACE))
        return MPI_SUCCESS;
    if (size == 1)
        return MPIR_TSP_sched_localcopy(a->sendbuf, a->sendcount, a->sendtype, a->buf, a->count,
                                        a->datatype, sched, 0, NULL, &vtx);
    mpi_errno = MPII_Hier_run_steps_plan(a, &cvars, MPII_HIER_ALLTOALL_INTER_COUNT, a2a_direct,
                                         steps, &n, &inter_algo);
    if (!mpi_errno && steps[0].comm == a->comm && !a2a_brucks(inter_algo, block, size)) {
        mpi_errno = a2a_flat(a, &steps[0], sched);
    } else if (!mpi_errno) {
        int rows = a2a_rows(steps, n, a->comm->rank);
        int me = a->comm->rank;
        *c = (a2a_ctx) { block, block * size, me, NULL, NULL, NULL, sched };
        if (rows > 0) {
            c->up = MPIR_TSP_sched_malloc(rows * c->row, sched);
            c->down = MPIR_TSP_sched_malloc(rows * c->row, sched);
            c->at = MPII_Hier_run_uniform_offsets(me, me + rows, c->row, sched);
        }
        mpi_errno = rows < 0 ? MPI_ERR_INTERN : !c->up || !c->down || !c->at ? MPI_ERR_NO_MEM :
            a2a_steps(c, a, steps, n, inter_algo);
    }
    MPII_Hier_run_steps_free(steps, n);
    return mpi_errno;
}

static int a2a_entry(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPIR_Comm * comm,
                     int inter_algo, int calls_pvar, MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .sendcount = sendcount,
        .sendtype = sendtype, .buf = recvbuf, .count = recvcount, .datatype = recvtype,
        .comm = comm, .given = &given, .calls_pvar = calls_pvar };
    if (sched)
        return a2a_sched(&call, sched);
    return MPII_Hier_sched_wait(a2a_sched, &call);
}

int MPIR_Alltoall_intra_hier(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                             MPIR_Comm * comm_ptr, int inter_algo, int coll_attr)
{
    return a2a_entry(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr,
                     inter_algo, MPII_HIER_PVAR_CALLS(alltoall, hier), NULL);
}

int MPIR_TSP_Ialltoall_sched_intra_hier(const void *sendbuf, MPI_Aint sendcount,
                                        MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                        MPI_Datatype recvtype, MPIR_Comm * comm_ptr,
                                        MPIR_TSP_sched_t sched)
{
    return a2a_entry(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr, -1,
                     MPII_HIER_PVAR_CALLS(ialltoall, tsp_hier), sched);
}
