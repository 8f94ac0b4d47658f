/*
 * mpich-hier: internal interface of the plugin (MPICH internal API).
 */

#ifndef HIER_IMPL_H_INCLUDED
#define HIER_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "hier_levels.h"
#include "hier_segment.h"

/* Per-communicator levels, built on first use and freed with the communicator. */
typedef struct {
    int building;               /* sub-communicators under construction */
    int reentered;              /* single-node hier running on this comm */
    MPII_Hier_levels levels;
    int my_node;
    int my_local;
    MPIR_Comm *node_comm;       /* NULL when my node has one rank */
    int own_node_comm;          /* node_comm was split by us, not comm->node_comm */
    MPIR_Comm **column_comm;    /* [max_ppn]: leaders of column j, NULL if not a member */
    char *column_ready;         /* [max_ppn] */
} MPII_Hier_comm;

/* The levels of comm, built if needed.  Sets *hier to NULL while they are being built
 * (a collective issued by our own communicator creation): callers then run flat. */
int MPII_Hier_get(MPIR_Comm * comm, MPII_Hier_comm ** hier);
/* The leaders' communicator of column j (collective over comm on first use). */
int MPII_Hier_column_comm(MPIR_Comm * comm, MPII_Hier_comm * hier, int column,
                          MPIR_Comm ** column_comm);

/* Counters exposed as MPI_T pvars (class COUNTER, category COLLECTIVE): how often each
 * plugin algorithm ran, and how many pipeline segments it moved. */
enum {
    MPII_HIER_PVAR_BCAST_HIER,
    MPII_HIER_PVAR_BCAST_HIER_SEGMENTS,
    MPII_HIER_PVAR_COUNT
};
extern unsigned long long MPII_Hier_pvars[MPII_HIER_PVAR_COUNT];
#define MPII_HIER_PVAR_ADD(which_, n_) (MPII_Hier_pvars[MPII_HIER_PVAR_##which_] += (n_))

/* The payload of (buf, count, datatype) as contiguous bytes: buf itself when the
 * type is contiguous, else a packed copy that MPII_Hier_payload_finish unpacks. */
typedef struct {
    char *bytes;
    MPI_Aint nbytes;
    MPI_Aint unit;              /* bytes of one basic element of the signature, or 1 */
    void *packed;               /* temporary, NULL when contiguous */
} MPII_Hier_payload;

int MPII_Hier_payload_start(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                            MPI_Datatype datatype, int pack_now);
int MPII_Hier_payload_finish(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, int unpack);

/* Record a failed step in errflag and mpi_errno_ret and carry on, as MPICH's algorithms
 * do, so one failed peer does not hang the others.  Returns MPI_SUCCESS. */
static inline int MPII_Hier_record_error(int mpi_errno, int *mpi_errno_ret,
                                         MPIR_Errflag_t * errflag)
{
    if (mpi_errno) {
        *errflag = MPIX_ERR_PROC_FAILED == MPIR_ERR_GET_CLASS(mpi_errno) ?
            MPIR_ERR_PROC_FAILED : MPIR_ERR_OTHER;
        MPIR_ERR_SET(mpi_errno, *errflag, "**fail");
        MPIR_ERR_ADD(*mpi_errno_ret, mpi_errno);
    }
    return MPI_SUCCESS;
}

#define MPII_HIER_RECORD_ERROR(mpi_errno_, mpi_errno_ret_, errflag_) \
    (mpi_errno_) = MPII_Hier_record_error((mpi_errno_), &(mpi_errno_ret_), (errflag_))

#endif /* HIER_IMPL_H_INCLUDED */
