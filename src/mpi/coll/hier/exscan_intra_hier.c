/*
 * mpich-hier: hierarchical exscan, the hier scan's schedule (scan_intra_hier.c) with the
 * prefix of the ranks before each rank as its result.
 */

#include "hier_impl.h"

static int exscan_sched(const MPII_Hier_call * a, MPIR_TSP_sched_t sched)
{
    return MPII_Hier_scan_sched(a, 1, sched);
}

int MPIR_Exscan_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                           int inter_algo, int coll_attr)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(exscan, hier) };
    return MPII_Hier_sched_wait(exscan_sched, &call);
}

int MPIR_TSP_Iexscan_sched_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                      MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                                      MPIR_TSP_sched_t sched)
{
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(-1, 0);
    const MPII_Hier_call call = { .sendbuf = sendbuf, .buf = recvbuf, .count = count,
        .datatype = datatype, .op = op, .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(iexscan, tsp_hier) };
    return MPII_Hier_scan_sched(&call, 1, sched);
}
