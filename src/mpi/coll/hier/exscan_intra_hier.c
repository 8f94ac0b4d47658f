/*
 * mpich-hier: hierarchical exscan, the hier scan's schedule (scan_intra_hier.c) with the
 * prefix of the ranks before each rank as its result.
 */

#include "hier_impl.h"

int MPIR_Exscan_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                           int inter_algo, int coll_attr)
{
    return MPII_Hier_scan_entry(1, sendbuf, recvbuf, count, datatype, op, comm_ptr, inter_algo,
                                MPII_HIER_PVAR_CALLS(exscan, hier), NULL);
}

int MPIR_TSP_Iexscan_sched_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                      MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                                      MPIR_TSP_sched_t sched)
{
    return MPII_Hier_scan_entry(1, sendbuf, recvbuf, count, datatype, op, comm_ptr, -1,
                                MPII_HIER_PVAR_CALLS(iexscan, tsp_hier), sched);
}
