/*
 * mpich-hier: the blocking segmented tree reduces (linear, chain, pipeline, binary,
 * binomial, in-order binary): the tree schedules of hier_seg_sched.c run to completion,
 * and the thin entry points MPICH's generated dispatch calls.
 */

#include "hier_impl.h"

/* Algorithm: segmented tree reduce, blocking: the tree's schedule
 * (MPII_Hier_seg_ireduce_sched) on the user's buffers, waited for. */
int MPII_Hier_seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                         MPII_Hier_tree_kind kind, int segsize, int fanout, int window)
{
    int mpi_errno = MPI_SUCCESS;
    int64_t nsegs = 0;
    MPII_Hier_sched s;

    MPIR_FUNC_ENTER;

    MPIR_ERR_CHKANDJUMP(comm->comm_kind != MPIR_COMM_KIND__INTRACOMM, mpi_errno, MPI_ERR_COMM,
                        "**commnotintra");
    MPIR_ERR_CHKANDJUMP2(segsize < 0, mpi_errno, MPI_ERR_ARG, "**argneg", "**argneg %s %d",
                         "seg reduce segment size", segsize);
    mpi_errno = MPII_Hier_sched_new(&s, MPIR_SCHED_GENTRAN, comm, false);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_seg_ireduce_sched(sendbuf, recvbuf, count, datatype, op, root, comm,
                                            kind, segsize, fanout, window, &nsegs, s.sched);
    MPII_HIER_PVAR_ADD(REDUCE_SEG_SEGMENTS, nsegs);
    mpi_errno = MPII_Hier_sched_run(mpi_errno, &s, comm);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- entry points (signatures from coll_algorithms.txt via gen_coll.py); a negative
 * parameter (a Csel JSON tree that does not set it) takes its CVAR.  coll_attr is not
 * passed on: the schedule's sends carry the error bits of its own request only. ---- */

static int seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPIR_Comm * comm_ptr, MPII_Hier_tree_kind kind,
                      int segsize, int fanout)
{
    return MPII_Hier_seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr, kind,
                                segsize >= 0 ? segsize : MPIR_CVAR_REDUCE_SEG_SEGSIZE,
                                fanout >= 0 ? fanout : MPIR_CVAR_REDUCE_SEG_FANOUT,
                                MPIR_CVAR_REDUCE_SEG_WINDOW);
}

int MPIR_Reduce_intra_seg_linear(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                 int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_linear);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_LINEAR, segsize, 1);
}

int MPIR_Reduce_intra_seg_pipeline(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                   int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_pipeline);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_PIPELINE, segsize, 1);
}

int MPIR_Reduce_intra_seg_binary(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                 int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_binary);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_BINARY, segsize, 1);
}

int MPIR_Reduce_intra_seg_binomial(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr,
                                   int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_binomial);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_BINOMIAL, segsize, 1);
}

int MPIR_Reduce_intra_seg_in_order_binary(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                          MPI_Datatype datatype, MPI_Op op, int root,
                                          MPIR_Comm * comm_ptr, int segsize, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_in_order_binary);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_IN_ORDER_BINARY, segsize, 1);
}

int MPIR_Reduce_intra_seg_chain(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype datatype, MPI_Op op, int root,
                                MPIR_Comm * comm_ptr, int segsize, int fanout, int coll_attr)
{
    MPII_HIER_PVAR_CALL(reduce, seg_chain);
    return seg_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr,
                      MPII_HIER_TREE_CHAIN, segsize, fanout);
}
