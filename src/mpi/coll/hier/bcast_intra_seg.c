/*
 * mpich-hier: the blocking segmented tree broadcasts (linear, chain, pipeline, binary,
 * split-binary, binomial): the tree schedules of hier_seg_sched.c run to completion, and
 * the thin entry points MPICH's generated dispatch calls.
 */

#include "hier_impl.h"

/* Algorithm: segmented tree bcast, blocking
 *
 * The payload (packed once when the type is not contiguous) runs through the tree's
 * schedule (MPII_Hier_seg_ibcast_sched) as bytes: ranks with different but matching
 * type signatures (MPI_2INT at the root, twice as many MPI_INT elsewhere) cut it alike
 * only in bytes, and a copy does not care where a segment ends.  This rank waits for
 * its part.
 */
int MPII_Hier_seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                        MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize, int fanout,
                        int window)
{
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_payload payload = { 0 };
    int payload_started = 0;
    int64_t nsegs = 0;
    MPII_Hier_sched s;

    MPIR_FUNC_ENTER;

    MPIR_ERR_CHKANDJUMP(comm->comm_kind != MPIR_COMM_KIND__INTRACOMM, mpi_errno, MPI_ERR_COMM,
                        "**commnotintra");
    MPIR_ERR_CHKANDJUMP2(segsize < 0, mpi_errno, MPI_ERR_ARG, "**argneg", "**argneg %s %d",
                         "seg bcast segment size", segsize);
    if (comm->local_size == 1 || !MPII_Hier_payload_bytes(count, datatype))
        goto fn_exit;

    mpi_errno = MPII_Hier_payload_start(&payload, buffer, count, datatype, comm->rank == root);
    MPIR_ERR_CHECK(mpi_errno);
    payload_started = 1;
    if (payload.nbytes == 0)
        goto fn_exit;

    mpi_errno = MPII_Hier_sched_new(&s, MPIR_SCHED_GENTRAN, comm, false);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_seg_ibcast_sched(payload.bytes, payload.nbytes, MPIR_BYTE_INTERNAL, root,
                                           comm, kind, segsize, fanout, window, &nsegs, s.sched);
    MPII_HIER_PVAR_ADD(BCAST_SEG_SEGMENTS, nsegs);
    mpi_errno = MPII_Hier_sched_run(mpi_errno, &s, comm);

  fn_exit:
    if (payload_started) {
        int finish_errno = MPII_Hier_payload_finish(&payload, buffer, count, datatype,
                                                    comm->rank != root);
        if (!mpi_errno)
            mpi_errno = finish_errno;
    }
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- entry points (signatures from coll_algorithms.txt via gen_coll.py); a negative
 * parameter (a Csel JSON tree that does not set it) takes its CVAR.  coll_attr is not
 * passed on: the schedule's sends carry the error bits of its own request only. ---- */

static int seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                     MPIR_Comm * comm_ptr, MPII_Hier_tree_kind kind, int segsize, int fanout)
{
    return MPII_Hier_seg_bcast(buffer, count, datatype, root, comm_ptr, kind,
                               segsize >= 0 ? segsize : MPIR_CVAR_BCAST_SEG_SEGSIZE,
                               fanout >= 0 ? fanout : MPIR_CVAR_BCAST_SEG_FANOUT,
                               MPIR_CVAR_BCAST_SEG_WINDOW);
}

int MPIR_Bcast_intra_seg_linear(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                MPIR_Comm * comm_ptr, int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_linear);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_LINEAR, segsize, 1);
}

int MPIR_Bcast_intra_seg_chain(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                               MPIR_Comm * comm_ptr, int segsize, int fanout, int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_chain);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_CHAIN, segsize,
                     fanout);
}

int MPIR_Bcast_intra_seg_pipeline(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                  MPIR_Comm * comm_ptr, int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_pipeline);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_PIPELINE, segsize,
                     1);
}

int MPIR_Bcast_intra_seg_binary(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                MPIR_Comm * comm_ptr, int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_binary);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_BINARY, segsize, 1);
}

int MPIR_Bcast_intra_seg_split_binary(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                      int root, MPIR_Comm * comm_ptr, int segsize,
                                      int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_split_binary);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_SPLIT_BINARY,
                     segsize, 1);
}

int MPIR_Bcast_intra_seg_binomial(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                                  MPIR_Comm * comm_ptr, int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(bcast, seg_binomial);
    return seg_bcast(buffer, count, datatype, root, comm_ptr, MPII_HIER_TREE_BINOMIAL, segsize,
                     1);
}
