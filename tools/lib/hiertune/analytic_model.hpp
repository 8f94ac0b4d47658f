// The analytic model of the plugin's segmented tree bcasts (Nuriyev et al.,
// "Model-based selection of optimal MPI broadcast algorithms", section 3, eq. 5
// with eq. 2), on the tree shapes the plugin runs (src/mpi/coll/hier/hier_trees.h,
// the same C code).  No MPI.
//
// The message of m bytes is cut into n_s = ceil(m / segsize) segments (bytes, as the
// blocking bcast cuts its packed payload; 1 for segsize 0 or m <= segsize).  A rank
// at depth d (hops below the root) forwards segment t to all its children in stage
// d + t, a non-blocking linear fan-out of (children + 1) processes costing
// gamma(children + 1) * (alpha + beta * m / n_s).  A stage lasts as long as its widest
// fan-out, the bcast as long as its stages:
//
//   T(P, m, n_s) = sum over stages i of max_{ranks forwarding in i} gamma(c + 1)
//                  * (alpha + beta * m / n_s)
//
// For the binomial tree this is the paper's eq. 6.  Deviations, both as in the paper:
// the last, shorter segment is costed as a full one; stages run in lock-step,
// although the plugin keeps up to `window` segments in flight per peer.
//
// SPLIT_BINARY moves each half (half 0 the larger, ceil(m/2) bytes, in n_h segments)
// down one binary subtree: the stages of a binary tree with n_h segments; then every
// rank swaps halves with its mirror (a point-to-point each way: gamma(2)) while the
// root sends half 1 to the k ranks without a mirror (gamma(k + 1)), n_h stages:
//
//   T = (sum over the binary stages of gamma + n_h * max(gamma(2), gamma(k + 1)))
//       * (alpha + beta * ceil(m/2) / n_h)
//
// The plugin runs the exchange on its own tags, overlapping the tree phase: the sum
// is an upper bound.
#pragma once

#include <cstdint>
#include <vector>

#include "hiertune/analytic_fit.hpp"

extern "C" {
#include "hier_trees.h"
}

namespace hiertune::analytic {

// Per stage, the widest fan-out (children + 1) among the ranks forwarding a segment
// in it (for SPLIT_BINARY: of its tree phase and then its exchange, with `segments`
// segments of half 0).  fanout: CHAIN's number of chains.  Throws
// std::invalid_argument for in-order binary (reduce only), size < 2, segments < 1 or
// a bad fanout.
std::vector<int> stage_fanouts(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t segments);

// Segments of an m-byte message at segsize bytes (0: one); for SPLIT_BINARY those of
// half 0.
std::uint64_t bcast_segments(MPII_Hier_tree_kind kind, std::uint64_t msg_bytes, std::uint64_t segsize);

// The sum of gamma over the stages: the bcast's time in units of one segment's
// point-to-point transfer (alpha + beta * m / n_s).
double stage_gamma_sum(const std::vector<int>& fanouts, const Gamma& gamma);

// The segmented tree bcast's time: stage_gamma_sum transfers of one segment
// (seconds = .seconds(alpha, beta), alpha in seconds, beta in seconds per byte).
Cost tree_bcast_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes, std::uint64_t segsize,
                     const Gamma& gamma);

// The segmented tree reduces, the same way reversed (MPII_Hier_seg_ireduce_sched): a
// leaf sends segment t up in stage t; a rank of height h (hops down to its deepest
// leaf) receives segment t from all its c children in stage h - 1 + t, a fan-in of
// c + 1 processes costed gamma(c + 1) like a fan-out, combines and sends it up in
// stage h + t.  IN_ORDER_BINARY's top, rank P-1, then hands each segment to the root
// (relative rank 0 here) one stage later.  The combines are part of each algorithm's
// own beta.  Per stage, the widest fan-in:
std::vector<int> reduce_stage_fanins(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t segments);
// Segments of an m-byte reduce (whole elements of elem_bytes; the plugin also bounds
// the segment by MPIR_CVAR_REDUCE_SEG_TMP_MAX, which the caller applies to segsize).
std::uint64_t reduce_segments(std::uint64_t msg_bytes, std::uint64_t segsize, std::uint64_t elem_bytes);
Cost tree_reduce_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes,
                      std::uint64_t segsize, std::uint64_t elem_bytes, const Gamma& gamma);

// MPICH's MPIR_Bcast_intra_binomial (mpi/coll/bcast/bcast_intra_binomial.c): the
// whole message, no segments; a rank, once it has received, sends it to its children
// one blocking MPIC_Send after the other, the largest subtree first (the plugin's
// BINOMIAL shape).  Child i (0-based, serving order) of a rank that has the message
// at time t has it at t + (i + 1) * (alpha + beta * m); the bcast ends at the latest
// arrival, in units of one transfer: ceil(log2 P) for the binomial tree.
int sequential_send_rounds(MPII_Hier_tree_kind kind, int size, int fanout);
Cost mpich_binomial_bcast_cost(int size, std::uint64_t msg_bytes);

// MPICH's MPIR_Bcast_intra_scatter_ring_allgather (bcast_intra_scatter_ring_allgather.c
// with MPII_Scatter_for_bcast of bcast_utils.c): the message is cut into P chunks of
// s = ceil(m / P) bytes; a binomial scatter (blocking sends in turn, largest subtree
// first, each child receiving its subtree's chunks, nothing when they lie past the
// end) and then P-1 ring steps of MPIC_Sendrecv of one chunk each way:
//   T = (latest scatter arrival) + (P - 1) * (alpha + beta * s)
// (the ring's last chunks may be shorter: costed as full ones).  The scatter's paths
// move different byte counts in different numbers of transfers, so which arrives
// last depends on alpha and beta: the cost is that of the path latest at
// `reference` (fit: iterate from a first estimate to the fitted line).
Cost mpich_scatter_ring_bcast_cost(int size, std::uint64_t msg_bytes, const Line& reference);

}  // namespace hiertune::analytic
