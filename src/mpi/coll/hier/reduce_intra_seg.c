/*
 * mpich-hier: the blocking segmented tree reduces (linear, chain, pipeline, binary,
 * binomial, in-order binary): the tree schedules of hier_seg_sched.c run to completion,
 * and the thin entry points MPICH's generated dispatch calls.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_REDUCE_SEG_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 65536
      min         : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Segment size, in bytes, of the segmented tree reduces (seg_linear, seg_chain,
        seg_pipeline, seg_binary, seg_binomial, seg_in_order_binary), rounded down to whole
        datatype elements (at least one). 0 reduces the message as one segment.
        Raised so that a message is cut into at most 1024 pieces (pvar
        coll_hier_segsize_raised counts it).

    - name        : MPIR_CVAR_REDUCE_SEG_FANOUT
      category    : COLLECTIVE
      type        : int
      default     : 4
      min         : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Number of chains that feed the root of the seg_chain reduce (at least 1).

    - name        : MPIR_CVAR_REDUCE_SEG_WINDOW
      category    : COLLECTIVE
      type        : int
      default     : 4
      min         : 1
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
      min         : 0
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

    MPIR_ERR_CHKANDJUMP2(segsize < 0, mpi_errno, MPI_ERR_ARG, "**argneg", "**argneg %s %d",
                         "seg reduce segment size", segsize);
    mpi_errno = MPII_Hier_sched_new(&s, MPIR_SCHED_GENTRAN, comm, false);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_seg_ireduce_sched(sendbuf, recvbuf, count, datatype, op, root, comm,
                                            kind, segsize, fanout, window, &nsegs, s.sched);
    MPII_HIER_PVAR_ADD(REDUCE_SEG_SEGMENTS, nsegs);
    mpi_errno = MPII_Hier_sched_run(mpi_errno, &s, comm);
    MPIR_ERR_CHECK(mpi_errno);

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
