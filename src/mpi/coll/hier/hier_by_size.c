/*
 * mpich-hier: the by_size submodules' cost model (hier_by_size.h).  Pure: no MPI.
 */

#include <stdlib.h>
#include <string.h>
#include "hier_by_size.h"

/* ceil(log2 n) */
static int ceil_log2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

/* floor(log2 n), n >= 1 */
static int floor_log2(int n)
{
    int l = 0;
    while ((2 << l) <= n)
        l++;
    return l;
}

/* MPICH's recursive doubling: log2 of the largest power of two <= n, and a step in and a
 * step out for the members beyond it */
static int recursive_doubling_steps(int n)
{
    int l = floor_log2(n);
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
        case MPII_HIER_SIZED_ROOTED:
            c.latency = hops * a + (int64_t) (n - 1 + floor_log2(n) - 1) * bytes;
            c.bandwidth = (int64_t) (n - 1) * (a + bytes);
            break;
        default:       /* bcast, reduce */
            c.latency = hops * (a + bytes);
            c.bandwidth = (n - 2 + pieces) * (a + bytes / pieces);
    }
    return c;
}

int MPII_Hier_sized_plan_latency(MPII_Hier_sized_op op, const MPII_Hier_seg_plan * plan, int n,
                                 int64_t inter_chunk, int64_t alpha_bytes)
{
    int64_t bytes = plan->nsegs > 1 ? plan->seg_bytes : plan->nbytes;
    int64_t pieces = plan->nsegs;
    if (inter_chunk > 0 && bytes > inter_chunk)
        pieces *= (bytes + inter_chunk - 1) / inter_chunk;
    return MPII_Hier_sized_latency(op, bytes, pieces, n, alpha_bytes);
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

int MPII_Hier_sized_rooted_shm_fits(int64_t node_bytes, int64_t cell_bytes)
{
    return MPII_Hier_sized_intra_shm(node_bytes, cell_bytes) &&
        node_bytes <= MPII_HIER_SHM_ROOTED_MAX_BYTES;
}

int MPII_Hier_sized_rooted_shm(int node_size, int64_t node_bytes, int64_t cell_bytes)
{
    return node_size > 2 && MPII_Hier_sized_rooted_shm_fits(node_bytes, cell_bytes);
}

/* rank of recursive doubling's member nr among size ranks, rem of them folded */
static int recursive_doubling_rank(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

/* The critical-path simulator's times (hier_critical_path.c), for one message pattern:
 * a message goes once its sender has received what it waits for and its previous send
 * is received, and is received one weight (INTER: crossing nodes, else 1) after that and
 * after the receiver's previous receive. */
#define INTER ((int64_t) 1 << 20)
typedef struct {
    int64_t got;                /* the last receive's end */
    int64_t sent;               /* the last send's end */
} rank_times;

static int64_t message(rank_times * now, const rank_times * before, const int *node_of,
                       int from, int to)
{
    int64_t ready = before[from].got > before[from].sent ? before[from].got : before[from].sent;
    int64_t t = (ready > before[to].got ? ready : before[to].got) +
        (node_of[from] != node_of[to] ? INTER : 1);
    now[to].got = t;
    now[from].sent = t;
    return t;
}

int MPII_Hier_recursive_doubling_inter(const int *node_of, int size)
{
    if (!node_of || size < 1)
        return -1;
    int pof2 = 1;
    int64_t longest = 0, t;
    while (pof2 * 2 <= size)
        pof2 *= 2;
    int rem = size - pof2;
    rank_times *now = calloc(size, sizeof(*now)), *before = malloc(size * sizeof(*before));
    if (!now || !before) {
        free(now);
        free(before);
        return -1;
    }
    for (int round = -1; round <= ceil_log2(pof2); round++) {
        memcpy(before, now, size * sizeof(*now));       /* a round's messages go at once */
        for (int i = 0; i < rem && (round == -1 || round == ceil_log2(pof2)); i++) {
            t = round == -1 ? message(now, before, node_of, 2 * i, 2 * i + 1) :
                message(now, before, node_of, 2 * i + 1, 2 * i);
            longest = t > longest ? t : longest;
        }
        for (int nr = 0; round >= 0 && nr < pof2 && (1 << round) < pof2; nr++) {
            t = message(now, before, node_of, recursive_doubling_rank(nr ^ (1 << round), rem),
                        recursive_doubling_rank(nr, rem));
            longest = t > longest ? t : longest;
        }
    }
    free(now);
    free(before);
    return (int) (longest / INTER);
}

int MPII_Hier_sized_allreduce_flat(const int *node_of, int size, int nnodes)
{
    int flat = MPII_Hier_recursive_doubling_inter(node_of, size);
    return flat >= 0 && flat < recursive_doubling_steps(nnodes);
}

int MPII_Hier_sized_scan_latency(int64_t bytes, int n, int64_t segsize, int64_t alpha_bytes)
{
    int rounds = 0;
    int64_t segs = segsize > 0 ? (bytes + segsize - 1) / segsize : 1;
    int64_t seg = segs > 1 ? segsize : bytes;
    for (int reach = 1; reach < n; reach *= 2)
        rounds++;
    return rounds * (alpha_bytes + bytes) <= (n - 2 + segs) * (alpha_bytes + seg);
}

int MPII_Hier_sized_alltoall_aggregate(int64_t block, int size, int64_t alpha_bytes)
{
    int64_t row = block * size;
    return row <= alpha_bytes && row <= MPII_HIER_ALLTOALL_AGGREGATE_MAX_ROW;
}

int MPII_Hier_sized_alltoall_brucks(int64_t piece, int n, int64_t alpha_bytes)
{
    int64_t rounds = ceil_log2(n);
    return rounds * (alpha_bytes + (n + 1) / 2 * piece) <= (n - 1) * (alpha_bytes + piece);
}

int MPII_Hier_sized_alltoall_node_rounds(int64_t block, int64_t alpha_bytes)
{
    return block >= MPII_HIER_ALLTOALL_ROUNDS_MIN_ALPHAS * alpha_bytes;
}

int MPII_Hier_sized_rooted_v_direct(int64_t block, int64_t alpha_bytes)
{
    return block > alpha_bytes;
}

int MPII_Hier_sized_rooted_v_with_counts(int64_t run_bytes, int64_t alpha_bytes)
{
    return run_bytes <= alpha_bytes;
}
