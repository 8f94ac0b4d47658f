/*
 * mpich-hier: the by_size submodules' cost model (hier_by_size.h).  Pure: no MPI.
 */

#include "hier_by_size.h"

/* ceil(log2 n) */
static int ceil_log2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

/* MPICH's recursive doubling: log2 of the largest power of two <= n, and a step in and a
 * step out for the members beyond it */
static int recursive_doubling_steps(int n)
{
    int l = 0;
    while ((2 << l) <= n)
        l++;
    return l + ((1 << l) != n ? 2 : 0);
}

int MPII_Hier_sized_hops(MPII_Hier_sized_op op, int latency, int n)
{
    if (n <= 1)
        return 0;
    switch (op) {
        case MPII_HIER_SIZED_ALLREDUCE:
            return latency ? recursive_doubling_steps(n) : 2 * (n - 1);
        default:       /* trees and the allgather's exchanges */
            return latency ? ceil_log2(n) : n - 1;
    }
}

MPII_Hier_sized_costs MPII_Hier_sized_cost(MPII_Hier_sized_op op, int64_t bytes, int64_t pieces,
                                           int n, int64_t alpha_bytes)
{
    MPII_Hier_sized_costs c = { 0, 0 };
    int64_t a = alpha_bytes;
    if (n <= 1)
        return c;
    if (pieces < 1)
        pieces = 1;
    int64_t hops = MPII_Hier_sized_hops(op, 1, n);
    switch (op) {
        case MPII_HIER_SIZED_ALLREDUCE:
            c.latency = hops * (a + bytes);
            c.bandwidth = 2 * (int64_t) (n - 1) * (a + bytes / n);
            break;
        case MPII_HIER_SIZED_ALLGATHER:
            c.latency = hops * a + (int64_t) (n - 1) * bytes;
            c.bandwidth = (int64_t) (n - 1) * (a + bytes);
            break;
        default:       /* bcast, reduce */
            c.latency = hops * (a + bytes);
            c.bandwidth = (n - 2 + pieces) * (a + bytes / pieces);
    }
    return c;
}

int MPII_Hier_sized_latency(MPII_Hier_sized_op op, int64_t bytes, int64_t pieces, int n,
                            int64_t alpha_bytes)
{
    if (pieces > 1)
        return 0;
    if (op == MPII_HIER_SIZED_ALLGATHER && bytes > alpha_bytes)
        return 0;
    MPII_Hier_sized_costs c = MPII_Hier_sized_cost(op, bytes, pieces, n, alpha_bytes);
    return c.latency <= c.bandwidth;
}

int MPII_Hier_sized_intra_shm(int64_t bytes, int64_t cell_bytes)
{
    return bytes <= cell_bytes;
}
