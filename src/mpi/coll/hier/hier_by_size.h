/*
 * mpich-hier: the by_size submodules' choice, pure (no MPI): which algorithm a step
 * among n members takes for the bytes it moves, from a latency-bandwidth (alpha-beta)
 * cost model of the step's links.
 *
 * Costs are in bytes: alpha / beta (MPIR_CVAR_HIER_LATENCY_BYTES, the bytes a link moves
 * in the time one message's start-up takes) per sequential message plus the bytes on
 * the critical path.  For each operation a latency algorithm (fewest sequential
 * messages) and a bandwidth algorithm (each link carries each byte once, pipelined):
 *
 *   op         latency algorithm                    bandwidth algorithm (today's default)
 *   bcast      binomial tree: L (a + m)             chain, u pieces: (n - 2 + u)(a + m/u)
 *   reduce     binomial tree: L (a + m)             chain, u pieces: (n - 2 + u)(a + m/u)
 *   allreduce  recursive doubling: R (a + m)        ring: 2 (n - 1)(a + m/n)
 *   allgather  Bruck / recursive doubling,          ring: (n - 1)(a + b)
 *              MPICH's pick: L a + (n - 1) b
 *   gather,    binomial tree:                       linear: (n - 1)(a + b)
 *   scatter    L a + (n - 1) b + (D - 1) b
 *
 * with L = ceil(log2 n), R = log2 of the largest power of two <= n, plus 2 when n is not
 * one (MPICH's recursive doubling folds the others in and out), D = floor(log2 n) the
 * binomial tree's depth, m the step's bytes, b one member's block.  The binomial gather
 * and scatter store and forward: the deepest member's block waits behind D - 1 messages of
 * whole subtrees, which the root's later sends hide only where every member has a link of
 * its own (not behind a switch uplink that the forwarded blocks cross once more), so the
 * model charges one block per forwarding level.  The latency algorithm is taken where it costs no more, but never for a
 * message the bandwidth algorithm pipelines (u > 1 pieces: the segments of the hier
 * pipeline overlap across levels, which a one-step model does not see), and for allgather
 * only while a block is no longer than a start-up (b <= a): in the model Bruck never costs
 * more, but its steps exchange growing halves that two flows may share a link for.
 *
 * Intra-node (by_size intra submodule): the device's release_gather shared memory (one
 * step per direction) when the message fits one of its cells, MPICH's pick otherwise.
 */

#ifndef HIER_BY_SIZE_H_INCLUDED
#define HIER_BY_SIZE_H_INCLUDED

#include <stdint.h>
#include "hier_segment.h"

/* alpha / beta of a typical cluster link (a few microseconds of start-up at a few GB/s),
 * taken while MPIR_CVAR_HIER_LATENCY_BYTES is 0 */
#define MPII_HIER_LATENCY_BYTES_DEFAULT 8192
/* Pipeline segment sizes, in bytes of the packed message, of the hier bcast, reduce and
 * allreduce, and of the hier allgather's ring (its pieces travel both ways on every
 * leader's link at once, and smaller ones keep the levels below busier): the defaults of
 * MPIR_CVAR_{BCAST,REDUCE,ALLREDUCE}_HIER_SEGSIZE and MPIR_CVAR_ALLGATHER_HIER_SEGSIZE,
 * which maint/gen-cvars.py writes into cvars.txt from here */
#define MPII_HIER_SEGSIZE_DEFAULT 16384
#define MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT 8192
/* MPICH 5.0.1's release_gather cell with its CVARs' defaults
 * (MPIR_CVAR_BCAST_INTRANODE_BUFFER_TOTAL_SIZE / MPIR_CVAR_BCAST_INTRANODE_NUM_CELLS):
 * what the tables of tools and tests assume; the plugin reads the CVARs */
#define MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT (32768 / 4)
/* The most bytes of a node's blocks that its gather or scatter moves through the device's
 * shared memory (a bitwise-or reduce of zero-padded copies, a bcast of all of them): each
 * rank holds them on its stack, and the leader's reduce combines them once per rank */
#define MPII_HIER_SHM_ROOTED_MAX_BYTES 8192
/* The largest row of blocks (one rank's to every rank) that by_size's alltoall aggregates
 * through the groups' leaders */
#define MPII_HIER_ALLTOALL_AGGREGATE_MAX_ROW (1 << 20)
/* The blocks, in start-ups (alpha bytes), from which the direct alltoall exchanges in node
 * rounds, one node pair's flows on each link at a time, instead of all at once: a round
 * waits for its slowest block, which the flows no longer fighting for the links repays
 * only when a block takes many start-ups (doc/measurements/alltoall-5.0.1.md) */
#define MPII_HIER_ALLTOALL_ROUNDS_MIN_ALPHAS 32

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MPII_HIER_SIZED_BCAST,
    MPII_HIER_SIZED_REDUCE,
    MPII_HIER_SIZED_ALLREDUCE,
    MPII_HIER_SIZED_ALLGATHER,
    MPII_HIER_SIZED_ROOTED      /* gather and scatter */
} MPII_Hier_sized_op;

typedef struct {
    int64_t latency;            /* the latency algorithm's cost, bytes */
    int64_t bandwidth;          /* the bandwidth algorithm's */
} MPII_Hier_sized_costs;

/* The model's costs for a step of op among n members moving bytes (allgather, gather,
 * scatter: one member's block) in `pieces` pipelined pieces, alpha_bytes = alpha / beta. */
MPII_Hier_sized_costs MPII_Hier_sized_cost(MPII_Hier_sized_op op, int64_t bytes, int64_t pieces,
                                           int n, int64_t alpha_bytes);
/* 1: the step takes the latency algorithm, 0: the bandwidth one. */
int MPII_Hier_sized_latency(MPII_Hier_sized_op op, int64_t bytes, int64_t pieces, int n,
                            int64_t alpha_bytes);
/* MPII_Hier_sized_latency for a step moving the segments of plan, each cut in pieces of
 * inter_chunk bytes when inter_chunk > 0: the segment's bytes (the payload's when it is
 * one segment) and every piece of the payload. */
int MPII_Hier_sized_plan_latency(MPII_Hier_sized_op op, const MPII_Hier_seg_plan * plan, int n,
                                 int64_t inter_chunk, int64_t alpha_bytes);
/* Sequential messages on the critical path of one piece through the step's algorithm
 * (latency or bandwidth) among n members, a rank sending one message at a time. */
int MPII_Hier_sized_hops(MPII_Hier_sized_op op, int latency, int n);
/* Sequential inter-node messages on the longest path of MPICH's recursive doubling
 * allreduce (MPIR_Allreduce_intra_recursive_doubling) among size ranks on the nodes
 * node_of[size]: the ranks 2i < 2 * (size - largest power of two) fold into 2i + 1 first
 * and get the result back last.  -1 on bad input or no memory. */
int MPII_Hier_recursive_doubling_inter(const int *node_of, int size);
/* 1 when MPICH's flat recursive doubling on those ranks crosses nodes fewer times than
 * recursive doubling among one leader per node (of nnodes): then the latency regime of
 * a nodes-only allreduce runs flat.  Node counts that are not a power of two make
 * the leaders fold across nodes, where the flat one folds inside nodes. */
int MPII_Hier_sized_allreduce_flat(const int *node_of, int size, int nnodes);
/* 1: the intra-node step takes the device's shared memory (bytes fit one cell). */
int MPII_Hier_sized_intra_shm(int64_t bytes, int64_t cell_bytes);
/* 1: a node's blocks (node_bytes in all) fit the device's shared-memory gather or
 * scatter: one cell and MPII_HIER_SHM_ROOTED_MAX_BYTES. */
int MPII_Hier_sized_rooted_shm_fits(int64_t node_bytes, int64_t cell_bytes);
/* 1: by_size takes the device for the gather or scatter of a node of node_size ranks:
 * the blocks fit, and MPICH's binomial tree would take more than one step (more than 2
 * ranks; with 2 it is one message, which costs less than the device's set of flags). */
int MPII_Hier_sized_rooted_shm(int node_size, int64_t node_bytes, int64_t cell_bytes);
/* 1: by_size's scan among the n top leaders takes recursive doubling (ceil(log2 n)
 * exchanges of the whole message of bytes), 0: the chain that pipelines it in segments of
 * segsize bytes (n - 2 + its segments sends of a segment before the last leader has its
 * prefix); each message costs alpha_bytes + its bytes. */
int MPII_Hier_sized_scan_latency(int64_t bytes, int n, int64_t segsize, int64_t alpha_bytes);
/* 1: by_size's alltoall among size ranks with blocks of block bytes aggregates them
 * through each group's leader (the leaders exchange one piece per pair of groups): a rank's
 * whole row of blocks no longer than a start-up (size * block <= alpha_bytes), where the
 * direct exchange's size - 1 messages a rank cost their start-ups and nothing else, and at
 * most MPII_HIER_ALLTOALL_AGGREGATE_MAX_ROW bytes (a leader holds one row per rank of its
 * groups, twice); 0: every rank exchanges with every other directly.  A longer row pays
 * the gather's, the scatter's and the leaders' copies on top of the same bytes on every
 * node's link. */
int MPII_Hier_sized_alltoall_aggregate(int64_t block, int size, int64_t alpha_bytes);
/* 1: the n members of an alltoall's exchange of pieces of at most piece bytes take Bruck's
 * algorithm, ceil(log2 n) rounds each moving up to ceil(n / 2) pieces, L (a + ceil(n/2) p),
 * where it costs no more than sending each other member its piece, (n - 1)(a + p), one
 * start-up after the other. */
int MPII_Hier_sized_alltoall_brucks(int64_t piece, int n, int64_t alpha_bytes);
/* 1: the direct alltoall of blocks of block bytes exchanges in node rounds
 * (MPII_Hier_alltoall_node_rounds, each round after the one before): blocks of at least
 * MPII_HIER_ALLTOALL_ROUNDS_MIN_ALPHAS start-ups; 0: all blocks at once. */
int MPII_Hier_sized_alltoall_node_rounds(int64_t block, int64_t alpha_bytes);
/* 1: a block of a rooted v-collective (gatherv, scatterv) of block bytes goes straight
 * between its rank and the root, from and to the user's buffers: longer than a start-up,
 * where the leaders' store-and-forward of it (and the root's copies) would cost more than
 * the start-up it saves; 0: through its leaders, packed with its group's.  Each rank
 * decides for its own block, the root and the leaders for theirs by the same rule. */
int MPII_Hier_sized_rooted_v_direct(int64_t block, int64_t alpha_bytes);
/* 1: a scatterv's run of run_bytes packed bytes for one top leader rides in the root's
 * message of that run's counts, which arrives first (no longer than a start-up: a second
 * message would add its start-up to the run's time); 0: the run follows in a message of
 * its own.  The root decides from its counts, the leader by the same rule from the counts
 * it received, into a buffer with room for a start-up's bytes after them. */
int MPII_Hier_sized_rooted_v_with_counts(int64_t run_bytes, int64_t alpha_bytes);

#ifdef __cplusplus
}
#endif

#endif /* HIER_BY_SIZE_H_INCLUDED */
