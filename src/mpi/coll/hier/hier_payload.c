/*
 * mpich-hier: the payload of a call as contiguous bytes (hier_impl.h, MPII_Hier_payload):
 * the user's buffer when its type is contiguous, else a packed copy.
 */

#include "hier_impl.h"

MPI_Aint MPII_Hier_payload_bytes(MPI_Aint count, MPI_Datatype datatype)
{
    MPI_Aint type_size;
    MPIR_Datatype_get_size_macro(datatype, type_size);
    return count * type_size;
}

int MPII_Hier_payload_contig(void *buf, MPI_Aint count, MPI_Datatype datatype, char **bytes,
                             MPI_Aint * nbytes)
{
    MPI_Aint type_size, true_lb, extent;
    int is_contig;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    MPIR_Datatype_is_contig(datatype, &is_contig);
    /* count > 1 of a type with trailing padding is not one contiguous block */
    if (count > 1 && extent != type_size)
        is_contig = 0;
    MPIR_Datatype_get_true_lb(datatype, &true_lb);
    if (nbytes)
        *nbytes = type_size * count;
    if (bytes)
        *bytes = (char *) buf + true_lb;
    return is_contig || type_size * count == 0;
}

int MPII_Hier_payload_start(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                            MPI_Datatype datatype, int pack_now)
{
    int mpi_errno = MPI_SUCCESS;

    payload->packed = NULL;
    if (!MPII_Hier_payload_contig(buf, count, datatype, &payload->bytes, &payload->nbytes)) {
        payload->packed = MPL_malloc(payload->nbytes, MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!payload->packed, mpi_errno, MPI_ERR_OTHER, "**nomem");
        payload->bytes = payload->packed;
        if (pack_now) {
            MPI_Aint actual;
            mpi_errno = MPIR_Typerep_pack(buf, count, datatype, 0, payload->packed,
                                          payload->nbytes, &actual, MPIR_TYPEREP_FLAG_NONE);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_payload_finish(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, int unpack)
{
    int mpi_errno = MPI_SUCCESS;

    if (payload->packed) {
        if (unpack) {
            MPI_Aint actual;
            mpi_errno = MPIR_Typerep_unpack(payload->packed, payload->nbytes, buf, count,
                                            datatype, 0, &actual, MPIR_TYPEREP_FLAG_NONE);
        }
        MPL_free(payload->packed);
        payload->packed = NULL;
    }
    return mpi_errno;
}
