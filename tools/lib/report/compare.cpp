#include "hiertune/report/compare.hpp"

#include <stdexcept>

#include "hiertune/common/sizes.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

namespace {

// The bytes of bench's uneven blocks (uneven_block) of `bytes` per rank on `ranks` ranks
// that lie off the root's node, whose ranks are the first `ppn` (block placement, root 0).
double uneven_blocks_off_root_node(std::uint64_t bytes, int ppn, int ranks) {
    double sum = 0;
    for (int r = ppn; r < ranks; ++r) sum += static_cast<double>(uneven_block(r, ranks, bytes));
    return sum;
}

}  // namespace

double busiest_link_bytes(const std::string& name, std::uint64_t bytes, int nodes, int ppn, int ranks) {
    if (nodes < 2) return 0;
    const std::optional<grammar::Collective> collective = grammar::Collective::find(name);
    if (!collective) throw std::invalid_argument("no link bound for collective '" + name + "'");
    const double message = static_cast<double>(bytes);
    switch (collective->kind()) {
        // the message into (bcast) or out of (reduce) the root's node; into every node
        // but the first, the prefix of the nodes before it (scan, exscan)
        case grammar::Collective::bcast:
        case grammar::Collective::reduce:
        case grammar::Collective::scan:
        case grammar::Collective::exscan: return message;
        case grammar::Collective::allreduce: return 2.0 * (nodes - 1) / nodes * message;
        // every other node's blocks into each node (allgather; allgatherv with equal blocks,
        // as bench calls it), into the root's (gather), out of the root's (scatter); the
        // reduce-scatters: of a node's vector of N x ppn blocks, the (N-1) x ppn that the
        // other nodes' ranks receive must leave the node in some form (each byte of their
        // sums depends on the node's byte there), and as many come in per node on average:
        // (N-1)/N of the vector, allreduce's reduce-scatter half
        case grammar::Collective::allgather:
        case grammar::Collective::allgatherv:
        case grammar::Collective::gather:
        case grammar::Collective::scatter:
        case grammar::Collective::reduce_scatter:
        case grammar::Collective::reduce_scatter_block: return static_cast<double>(nodes - 1) * ppn * message;
        // gatherv into, scatterv out of the root's node: as gather and scatter, every block
        // of the other nodes' ranks, bench's uneven ones summed (P: ranks, or nodes x ppn)
        case grammar::Collective::gatherv:
        case grammar::Collective::scatterv:
            return uneven_blocks_off_root_node(bytes, ppn, ranks > 0 ? ranks : nodes * ppn);
        // alltoall, a block per pair (alltoallv with equal counts, as bench calls it): a
        // node of n ranks sends each of its ranks' blocks to the P - n ranks elsewhere out
        // and receives as many in, n (P - n) blocks each way; n (P - n) grows up to n = P / 2
        // and no other node holds more than P - ppn ranks, so the fullest node's link is the
        // busiest (P: ranks, or nodes x ppn)
        case grammar::Collective::alltoall:
        case grammar::Collective::alltoallv: {
            const double total = ranks > 0 ? ranks : static_cast<double>(nodes) * ppn;
            return ppn * (total - ppn) * message;
        }
        case grammar::Collective::barrier: return 0;
    }
    throw std::logic_error("busiest_link_bytes: a collective without a case");
}

std::optional<double> link_bound_seconds(const std::string& collective, std::uint64_t bytes, int nodes,
                                         double rate, int ppn, int ranks) {
    const double through = busiest_link_bytes(collective, bytes, nodes, ppn, ranks);
    if (!(rate > 0) || nodes < 2 || !(through > 0)) return std::nullopt;
    return through / rate;
}

std::optional<double> link_bound_seconds(const std::string& collective, std::uint64_t bytes, int nodes,
                                         double rate, int ppn, int leaves, double uplink_rate) {
    if (leaves < 1 || nodes % leaves != 0)
        throw std::invalid_argument(std::to_string(nodes) + " nodes do not split evenly under " +
                                    std::to_string(leaves) + " leaf switches");
    std::optional<double> bound = link_bound_seconds(collective, bytes, nodes, rate, ppn);
    if (leaves == 1) return bound;
    const std::optional<double> uplink =
        link_bound_seconds(collective, bytes, leaves, uplink_rate, ppn * (nodes / leaves));
    if (uplink && (!bound || *uplink > *bound)) bound = uplink;
    return bound;
}

void compare_configurations(std::vector<PointResult>& group, std::optional<double> link_rate, int nodes, int ppn,
                            int ranks) {
    if (group.empty()) return;
    const double first = group.front().summary.median;
    for (PointResult& point : group) {
        point.ratio_to_first.reset();
        if (group.size() > 1 && first > 0) point.ratio_to_first = point.summary.median / first;
        point.link_bound.reset();
        if (link_rate)
            point.link_bound =
                link_bound_seconds(point.key.collective, point.key.msg_bytes, nodes, *link_rate, ppn, ranks);
    }
}

}  // namespace hiertune
