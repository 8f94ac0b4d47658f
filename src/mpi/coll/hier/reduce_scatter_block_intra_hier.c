/*
 * mpich-hier: hierarchical reduce-scatter-block, the hier reduce-scatter's schedule
 * (reduce_scatter_intra_hier.c) with every rank's block recvcount elements.
 */

#include "hier_impl.h"

int MPIR_Reduce_scatter_block_intra_hier(const void *sendbuf, void *recvbuf,
                                         MPI_Aint recvcount, MPI_Datatype datatype, MPI_Op op,
                                         MPIR_Comm * comm_ptr, int inter_algo, int coll_attr)
{
    return MPII_Hier_reduce_scatter_entry(sendbuf, recvbuf, NULL, recvcount, datatype, op,
                                          comm_ptr, inter_algo,
                                          MPII_HIER_PVAR_CALLS(reduce_scatter_block, hier),
                                          NULL);
}

int MPIR_TSP_Ireduce_scatter_block_sched_intra_hier(const void *sendbuf, void *recvbuf,
                                                    MPI_Aint recvcount, MPI_Datatype datatype,
                                                    MPI_Op op, MPIR_Comm * comm_ptr,
                                                    MPIR_TSP_sched_t sched)
{
    return MPII_Hier_reduce_scatter_entry(sendbuf, recvbuf, NULL, recvcount, datatype, op,
                                          comm_ptr, -1,
                                          MPII_HIER_PVAR_CALLS(ireduce_scatter_block, tsp_hier),
                                          sched);
}
