/*
 * mpich-hier: the direct exchange of the alltoalls (alltoall, alltoallv): every block
 * straight from its sender's buffer to its place in the receiver's, posted in node rounds.
 */

#include "hier_impl.h"

/* The exchange as its vertices read it: the send blocks (a packed copy of the receive
 * blocks in place), this rank's peers in node rounds (MPII_Hier_alltoall_node_rounds) */
typedef struct {
    MPIR_Comm *comm;
    int tag, in_place;
    MPII_Hier_blocks send, recv;
    MPI_Aint s_ext, r_ext;
    int *to, *from, *to_round, *from_round, *vtx;
} direct_plan;

static MPI_Aint block_count(const MPII_Hier_blocks * b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}

static char *block_at(const MPII_Hier_blocks * b, int i, MPI_Aint extent)
{
    return (char *) b->buf + (b->displs ? b->displs[i] : i * b->count) * extent;
}

/* Round j after the n_in vertices in: this rank's blocks to the round's node, its blocks
 * from the other; *gate: a vertex after all of them.  A block of no elements moves no
 * message: its receiver's count is 0 too (the type signatures match). */
static int direct_round(const direct_plan * d, int j, int n_in, int *in,
                        MPIR_TSP_sched_t sched, int *gate)
{
    int me = d->comm->rank, nv = 0, mpi_errno = MPI_SUCCESS;

    for (int i = d->to_round[j]; i < d->to_round[j + 1] && !mpi_errno; i++) {
        int to = d->to[i];
        MPI_Aint n = block_count(&d->send, to);
        if (to == me && !d->in_place && n > 0)
            mpi_errno = MPIR_TSP_sched_localcopy(block_at(&d->send, me, d->s_ext), n,
                                                 d->send.type, block_at(&d->recv, me, d->r_ext),
                                                 block_count(&d->recv, me), d->recv.type, sched,
                                                 n_in, in, &d->vtx[nv++]);
        else if (to != me && n > 0)
            mpi_errno = MPIR_TSP_sched_isend(block_at(&d->send, to, d->s_ext), n, d->send.type,
                                             to, d->tag, d->comm, sched, n_in, in, &d->vtx[nv++]);
    }
    for (int i = d->from_round[j]; i < d->from_round[j + 1] && !mpi_errno; i++) {
        int from = d->from[i];
        MPI_Aint n = block_count(&d->recv, from);
        if (from != me && n > 0)
            mpi_errno = MPIR_TSP_sched_irecv(block_at(&d->recv, from, d->r_ext), n, d->recv.type,
                                             from, d->tag, d->comm, sched, n_in, in,
                                             &d->vtx[nv++]);
    }
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, nv, d->vtx, gate);
    return mpi_errno;
}

/* This rank's peers in node rounds from the comm's node ids; the number of rounds, -1 on
 * an error (in *mpi_errno) */
static int direct_node_rounds(direct_plan * d, int *mpi_errno)
{
    int size = d->comm->local_size, max_id, *node = MPL_malloc(sizeof(int) * size, MPL_MEM_COLL);
    int n = -1;

    *mpi_errno = node ? MPID_Get_max_node_id(d->comm, &max_id) : MPI_ERR_NO_MEM;
    for (int r = 0; r < size && !*mpi_errno; r++)
        *mpi_errno = MPID_Get_node_id(d->comm, r, &node[r]);
    if (!*mpi_errno)
        n = MPII_Hier_alltoall_node_rounds(node, max_id + 1, size, d->comm->rank, d->to, d->from,
                                           d->to_round, d->from_round);
    if (!*mpi_errno && n < 0)
        *mpi_errno = MPI_ERR_INTERN;
    MPL_free(node);
    return n;
}

/* In place: the receive blocks but this rank's own packed into a temporary, the send
 * blocks made of it (bytes); *copied: a vertex after every copy */
static int direct_copy_out(direct_plan * d, MPIR_TSP_sched_t sched, int *copied)
{
    int size = d->comm->local_size, me = d->comm->rank, nv = 0, mpi_errno = MPI_SUCCESS;
    MPI_Aint *at = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * 2 * (size + 1), sched), *n;
    char *packed;

    if (!at)
        return MPI_ERR_NO_MEM;
    n = at + size + 1;
    at[0] = 0;
    for (int i = 0; i < size; i++) {
        n[i] = i == me ? 0 : MPII_Hier_payload_bytes(block_count(&d->recv, i), d->recv.type);
        at[i + 1] = at[i] + n[i];
    }
    packed = MPIR_TSP_sched_malloc(MPL_MAX(at[size], 1), sched);
    if (!packed)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < size && !mpi_errno; i++)
        if (n[i] > 0)
            mpi_errno = MPIR_TSP_sched_localcopy(block_at(&d->recv, i, d->r_ext),
                                                 block_count(&d->recv, i), d->recv.type,
                                                 packed + at[i], n[i], MPIR_BYTE_INTERNAL, sched,
                                                 0, NULL, &d->vtx[nv++]);
    d->send = (MPII_Hier_blocks) { packed, n, at, 0, MPIR_BYTE_INTERNAL };
    d->s_ext = 1;
    if (!mpi_errno)
        mpi_errno = MPIR_TSP_sched_selective_sink(sched, nv, d->vtx, copied);
    return mpi_errno;
}

int MPII_Hier_direct_exchange(MPIR_Comm * comm, int tag, const MPII_Hier_blocks * send,
                              const MPII_Hier_blocks * recv, int chained, MPIR_TSP_sched_t sched)
{
    int size = comm->local_size, copied = -1, gate = -1, n, unused, mpi_errno = MPI_SUCCESS;
    int *ints = MPIR_TSP_sched_malloc(sizeof(int) * (6 * size + 2), sched);
    direct_plan d = { comm, tag, send == NULL };

    if (!ints)
        return MPI_ERR_NO_MEM;
    d.to = ints, d.from = ints + size, d.to_round = ints + 2 * size;
    d.from_round = ints + 3 * size + 1, d.vtx = ints + 4 * size + 2;
    d.recv = *recv;
    MPIR_Datatype_get_extent_macro(recv->type, d.r_ext);
    if (d.in_place) {
        mpi_errno = direct_copy_out(&d, sched, &copied);
    } else {
        d.send = *send;
        MPIR_Datatype_get_extent_macro(send->type, d.s_ext);
    }
    n = mpi_errno ? -1 : direct_node_rounds(&d, &mpi_errno);
    for (int j = 0; j < n && !mpi_errno; j++) {
        int after = j <= 1 || !chained ? copied : gate;
        mpi_errno = direct_round(&d, j, after >= 0, &after, sched, j == 0 ? &unused : &gate);
    }
    return mpi_errno;
}
