// What `hiertune bench` adds to the configurations of one collective at one
// message size, which it times in turns: each one's ratio to the first, and
// with the node link rate (HIERTUNE_LINK_RATE) the link bound and each one's
// ratio to it.
//
// The link bound of a call is the time the busiest node link needs to carry,
// in one direction, the bytes every algorithm must send through it: bcast and
// reduce the message (some node other than the root's must receive it all, or
// send its whole contribution); allreduce over N nodes 2(N-1)/N of it, the
// reduce-scatter + allgather minimum.  No algorithm can beat it, so
// median / bound says how far a configuration is from what the network allows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/report/bench_output.hpp"

namespace hiertune {

// Bytes the busiest node link carries in one direction for one call of
// `collective` on `bytes` (per rank for allgather, allgatherv, gather, scatter, gatherv,
// scatterv, reduce_scatter and reduce_scatter_block; alltoall, alltoallv: the block each
// rank sends each rank) over `nodes` nodes of at most `ppn` ranks, `ranks` in all (0:
// nodes x ppn; only alltoall's and alltoallv's bound reads it, ppn x (ranks - ppn)
// blocks, the fullest node's, and gatherv's and scatterv's, the uneven blocks of ranks
// ppn .. ranks - 1) (0 on fewer than 2 nodes, and for barrier).  Throws
// std::invalid_argument for a collective bench does not time.
double busiest_link_bytes(const std::string& collective, std::uint64_t bytes, int nodes, int ppn = 1,
                          int ranks = 0);

// busiest_link_bytes / rate (bytes/s), in seconds; nullopt on fewer than 2
// nodes, without a positive rate, or when no byte has to cross (barrier).
std::optional<double> link_bound_seconds(const std::string& collective, std::uint64_t bytes, int nodes,
                                         double rate, int ppn = 1, int ranks = 0);

// A network of leaf switches: `leaves` of them, nodes spread evenly, joined by
// uplinks of `uplink_rate` (bytes/s).  An uplink carries what busiest_link_bytes
// gives with the leaves as the nodes and a leaf's ranks as the ppn (the same
// minimum one level up); the bound is the slower of a node link and an uplink.
// nodes % leaves must be 0 (else std::invalid_argument); 1 leaf: node links only.
std::optional<double> link_bound_seconds(const std::string& collective, std::uint64_t bytes, int nodes,
                                         double rate, int ppn, int leaves, double uplink_rate);

// Sets ratio_to_first (median / the first point's median) on every point of
// `group`, the configurations of one size in plan order, when it has more
// than one (a zero first median gives none), and link_bound from `link_rate`
// over `nodes` nodes of at most `ppn` ranks, `ranks` in all (see link_bound_seconds).
void compare_configurations(std::vector<PointResult>& group, std::optional<double> link_rate, int nodes,
                            int ppn = 1, int ranks = 0);

}  // namespace hiertune
