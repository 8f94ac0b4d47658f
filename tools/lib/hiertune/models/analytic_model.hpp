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

#include "hiertune/models/analytic_fit.hpp"
#include "hiertune/models/link_model.hpp"

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

// The same bcasts for messages sent eagerly (link_model.hpp): every transfer of the
// schedule MPII_Hier_seg_ibcast_sched builds, with its exact bytes (the last segment
// of a range is shorter), each forward waiting for the segment's arrival.  Posting
// order: a rank that receives segment t sends it to its children in serving order,
// then (SPLIT_BINARY) to its mirror; the root, which has every segment at once, sends
// segment by segment (t = 0, 1, ...: to each child, then half 1 to each rank without a
// mirror).  Deviation: the plugin's root posts up to `window` segments per child before
// the next child's; with one segment per child, the common case of eager sizes, the
// orders agree.
std::vector<LinkTransfer> tree_bcast_transfers(MPII_Hier_tree_kind kind, int size, int fanout,
                                               std::uint64_t msg_bytes, std::uint64_t segsize);
// The largest transfer of those (bytes): the segment size, or less for a shorter
// message (half 0 for SPLIT_BINARY).
std::uint64_t tree_bcast_largest_transfer(MPII_Hier_tree_kind kind, std::uint64_t msg_bytes, std::uint64_t segsize);
// link_time of tree_bcast_transfers.
Cost tree_bcast_link_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes,
                          std::uint64_t segsize, const Line& reference);

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

// MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather
// (bcast_intra_scatter_recursive_doubling_allgather.c): the same scatter as the ring
// (MPII_Scatter_for_bcast), then the `while (mask < comm_size)` loop: in step mask
// = 1, 2, 4, ... rank r and r ^ mask (where it exists) MPIC_Sendrecv all they hold
// (curr_size, a range of chunks cut at m, possibly 0 bytes): one transfer of the
// larger side.  Where r ^ mask's subtree is cut by P ("dst_tree_root + mask >
// comm_size"), the ranks of r's subtree that had a partner pass what they received
// (recv_size) on to those that had none by recursive halving (tmp_mask = mask/2 .. 1),
// one blocking MPIC_Send/MPIC_Recv each.  Every rank keeps a clock; ranks that meet
// leave at the later of their clocks (at `reference`) plus the transfer:
//   T = (latest scatter arrival) + (latest allgather clock)
// log2 P steps of chunks 1, 2, 4, ...: 2 log2 P alpha + 2 (P-1)/P m beta for P a
// power of two and P | m.  Deviations: the allgather starts when the last scatter
// arrival is in (all clocks at 0), not at each rank's own; blocking sends are
// synchronous (sender and receiver leave together).
Cost mpich_scatter_rd_bcast_cost(int size, std::uint64_t msg_bytes, const Line& reference);

// MPICH's MPIR_Reduce_intra_binomial (reduce/reduce_intra_binomial.c, the `while (mask
// < comm_size)` loop): a rank receives its children's results one blocking MPIC_Recv
// after the other in mask order 1, 2, 4, ... (the smallest subtree first: the
// reverse of the BINOMIAL shape's serving order), combining after each, then sends to
// its parent.  A rank has its result at
//   t = fold over its children c in receiving order of max(t, t_c) + 1   (t = 0 at a leaf)
// transfers of m (the combine is part of beta); the root's is the reduce's time,
// ceil(log2 P) for the binomial tree.  Root 0 (relative: a commutative op's tree is
// rotated to the root; a non-commutative op with root != 0 adds one transfer, not
// modelled).  m = 0 or P = 1: 0, as MPI_Reduce returns before the algorithm.
int sequential_recv_rounds(MPII_Hier_tree_kind kind, int size, int fanout);
Cost mpich_binomial_reduce_cost(int size, std::uint64_t msg_bytes);

// MPICH's MPIR_Reduce_intra_reduce_scatter_gather (reduce_intra_reduce_scatter_gather.c,
// Rabenseifner), count = m / elem_bytes elements, pof2 the largest power of two <= P,
// rem = P - pof2:
//  1. the odd ranks below 2 rem MPIC_Send their whole buffer (m) to rank - 1, which
//     joins as newrank r/2; ranks >= 2 rem join as rank - rem;
//  2. recursive halving (`while (mask < pof2)`): cnts = count / pof2 elements each, the
//     first count % pof2 one more; in step mask a newrank and newrank ^ mask split
//     their common range of cnts, the lower keeping the lower half, one MPIC_Sendrecv:
//     a transfer of elem_bytes * max(sent, kept) elements;
//  3. binomial gather to newrank 0 (the `while (mask > 0)` loop): newranks mask ..
//     2 mask - 1 send their range to newrank - mask, mask = pof2/2 .. 1.
// Every newrank keeps a clock; ranks that meet leave at the later one plus the
// transfer (their clocks have equal a, or one is ahead in a and b after step 1, so
// no reference line is needed); the root's clock is the time.  For pof2 | count:
//   T = [rem > 0] (alpha + m beta) + 2 log2 pof2 alpha + 2 (pof2-1)/pof2 m beta
// Root 0 (an odd root below 2 rem would add one transfer of cnts[0], another root
// gathers along other ranges: not modelled).  MPICH runs it only for count >= pof2
// (MPII_COLLECTIVE_FALLBACK_CHECK in MPIR_Reduce_impl, mpir_coll.c, else its automatic
// selection; the file asserts it): std::invalid_argument below, also for elem_bytes 0
// or m not a multiple of it.  m = 0 or P = 1: 0 (MPI_Reduce returns before).
Cost mpich_reduce_scatter_gather_cost(int size, std::uint64_t msg_bytes, std::uint64_t elem_bytes);

}  // namespace hiertune::analytic
