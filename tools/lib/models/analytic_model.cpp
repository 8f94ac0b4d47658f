#include "hiertune/models/analytic_model.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace hiertune::analytic {

namespace {

// Every rank's children (serving order) and parent in the shape rooted at rank 0.
struct Tree {
    std::vector<std::vector<int>> children;
    std::vector<int> parent;
};

Tree tree_of(MPII_Hier_tree_kind kind, int size, int fanout) {
    Tree tree{std::vector<std::vector<int>>(size), std::vector<int>(size)};
    for (int rank = 0; rank < size; ++rank) {
        MPII_Hier_tree_node node;
        if (MPII_Hier_tree_node_init(&node, kind, size, 0, fanout, rank) != 0)
            throw std::invalid_argument("analytic model: no tree for size " + std::to_string(size) +
                                        ", fanout " + std::to_string(fanout));
        tree.children[rank].assign(node.children, node.children + node.nchildren);
        tree.parent[rank] = node.parent;
        MPII_Hier_tree_node_free(&node);
    }
    return tree;
}

// The later of two arrival times at `reference` (x on a tie).
Cost later(const Cost& x, const Cost& y, const Line& reference) {
    return y.seconds(reference) > x.seconds(reference) ? y : x;
}

// MPII_Scatter_for_bcast's chunk: ceil(m / P) bytes.
std::uint64_t chunk_bytes(int size, std::uint64_t msg_bytes) { return (msg_bytes + size - 1) / size; }

// The latest arrival, at `reference`, of MPII_Scatter_for_bcast (bcast_utils.c): the
// binomial scatter, blocking sends in turn, largest subtree first, each child receiving
// its subtree's chunks, nothing when they lie past the end (size >= 2, msg_bytes > 0).
Cost latest_scatter_arrival(int size, std::uint64_t msg_bytes, const Line& reference) {
    const double chunk = static_cast<double>(chunk_bytes(size, msg_bytes));
    const Tree tree = tree_of(MPII_HIER_TREE_BINOMIAL, size, 1);
    std::vector<Cost> arrival(size);
    std::vector<int> order{0};
    Cost latest;
    for (std::size_t next = 0; next < order.size(); ++next) {
        const int r = order[next];
        Cost t = arrival[r];
        for (int c : tree.children[r]) {
            const int mask = c - r;  // c's subtree: ranks c .. c+mask-1
            const double ranks = std::min(c + mask, size) - c;
            const double bytes = std::min(ranks * chunk, static_cast<double>(msg_bytes) - c * chunk);
            if (bytes <= 0) continue;  // MPICH sends nothing past the end
            t += transfers(1, bytes);
            arrival[c] = t;
            order.push_back(c);
            latest = later(latest, t, reference);
        }
    }
    return latest;
}

}  // namespace

std::vector<int> stage_fanouts(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t segments) {
    if (kind == MPII_HIER_TREE_IN_ORDER_BINARY)
        throw std::invalid_argument("analytic model: in-order binary is a reduce tree");
    if (size < 2 || segments < 1) throw std::invalid_argument("analytic model: need 2 ranks and a segment");
    if (kind == MPII_HIER_TREE_SPLIT_BINARY) {
        std::vector<int> stages = stage_fanouts(MPII_HIER_TREE_BINARY, size, 1, segments);
        const int unmatched = MPII_Hier_tree_split_binary_unmatched(size, 0, nullptr);
        stages.insert(stages.end(), segments, std::max(2, unmatched + 1));
        return stages;
    }
    const Tree tree = tree_of(kind, size, fanout);
    const std::vector<int>& parent = tree.parent;
    std::vector<int> children(size), depth(size, -1);
    for (int rank = 0; rank < size; ++rank) children[rank] = static_cast<int>(tree.children[rank].size());
    for (int rank = 0; rank < size; ++rank)  // hops up to the root
        for (int r = rank, d = 0; depth[rank] < 0; r = parent[r], ++d)
            if (parent[r] < 0) depth[rank] = d;
    const int max_depth = *std::max_element(depth.begin(), depth.end());
    // the last forwarding stage: the deepest parent's last segment
    std::vector<int> widest(static_cast<std::size_t>(max_depth - 1) + segments, 0);
    for (int rank = 0; rank < size; ++rank)
        if (children[rank] > 0)
            for (std::uint64_t t = 0; t < segments; ++t) {
                int& stage = widest[static_cast<std::size_t>(depth[rank]) + t];
                stage = std::max(stage, children[rank] + 1);
            }
    return widest;
}

std::uint64_t bcast_segments(MPII_Hier_tree_kind kind, std::uint64_t msg_bytes, std::uint64_t segsize) {
    if (kind == MPII_HIER_TREE_SPLIT_BINARY)
        msg_bytes = static_cast<std::uint64_t>(MPII_Hier_tree_split_binary_first(static_cast<long long>(msg_bytes)));
    if (segsize == 0 || msg_bytes <= segsize) return 1;
    return msg_bytes / segsize + (msg_bytes % segsize != 0);
}

double stage_gamma_sum(const std::vector<int>& fanouts, const Gamma& gamma) {
    double sum = 0;
    for (int p : fanouts) sum += gamma(p);
    return sum;
}

Cost tree_bcast_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes, std::uint64_t segsize,
                     const Gamma& gamma) {
    const std::uint64_t segments = bcast_segments(kind, msg_bytes, segsize);
    const double moved = kind == MPII_HIER_TREE_SPLIT_BINARY
                             ? static_cast<double>(MPII_Hier_tree_split_binary_first(static_cast<long long>(msg_bytes)))
                             : static_cast<double>(msg_bytes);
    const double segment_bytes = moved / static_cast<double>(segments);
    return transfers(stage_gamma_sum(stage_fanouts(kind, size, fanout, segments), gamma), segment_bytes);
}

namespace {

// The segments (bytes) of a range of `bytes` cut at segsize (0: one).
std::vector<double> cut(std::uint64_t bytes, std::uint64_t segsize) {
    std::vector<double> segments;
    const std::uint64_t seg = segsize == 0 ? bytes : segsize;
    for (std::uint64_t done = 0; done < bytes; done += seg)
        segments.push_back(static_cast<double>(std::min(seg, bytes - done)));
    return segments;
}

}  // namespace

std::vector<LinkTransfer> tree_bcast_transfers(MPII_Hier_tree_kind kind, int size, int fanout,
                                               std::uint64_t msg_bytes, std::uint64_t segsize) {
    if (kind == MPII_HIER_TREE_IN_ORDER_BINARY)
        throw std::invalid_argument("analytic model: in-order binary is a reduce tree");
    if (size < 2) throw std::invalid_argument("analytic model: need 2 ranks");
    const Tree tree = tree_of(kind, size, fanout);
    const bool split = kind == MPII_HIER_TREE_SPLIT_BINARY;
    const std::uint64_t first =
        split ? static_cast<std::uint64_t>(MPII_Hier_tree_split_binary_first(static_cast<long long>(msg_bytes)))
              : msg_bytes;
    const std::vector<std::vector<double>> ranges{cut(first, segsize), cut(msg_bytes - first, segsize)};
    // what each rank receives down the tree: ranges[0] unless it carries half 1
    const auto range_of = [&](int rank) -> const std::vector<double>& {
        return ranges[split ? MPII_Hier_tree_split_binary_half(size, 0, rank) : 0];
    };
    std::vector<int> unmatched(static_cast<std::size_t>(size));
    const int nunmatched = split ? MPII_Hier_tree_split_binary_unmatched(size, 0, unmatched.data()) : 0;

    std::vector<LinkTransfer> list;
    std::vector<std::vector<int>> received(size);  // index of the transfer bringing segment t
    const auto send = [&](int src, int dst, double bytes, int after) {
        list.push_back(LinkTransfer{src, dst, bytes, after});
        return static_cast<int>(list.size()) - 1;
    };
    const std::size_t root_segments = std::max(ranges[0].size(), ranges[1].size());
    for (std::size_t t = 0; t < root_segments; ++t) {
        for (std::size_t c = 0; c < tree.children[0].size(); ++c) {
            const int child = tree.children[0][c];
            const std::vector<double>& range = range_of(child);
            if (t < range.size()) received[child].push_back(send(0, child, range[t], -1));
        }
        for (int u = 0; u < nunmatched && t < ranges[1].size(); ++u) send(0, unmatched[u], ranges[1][t], -1);
    }
    std::vector<int> order(tree.children[0]);  // parents before children
    for (std::size_t next = 0; next < order.size(); ++next) {
        const int rank = order[next];
        const std::vector<double>& range = range_of(rank);
        const int partner = split ? MPII_Hier_tree_split_binary_partner(size, 0, rank) : 0;
        for (std::size_t t = 0; t < range.size(); ++t) {
            for (int child : tree.children[rank]) received[child].push_back(send(rank, child, range[t], received[rank][t]));
            if (split && partner != 0) send(rank, partner, range[t], received[rank][t]);
        }
        order.insert(order.end(), tree.children[rank].begin(), tree.children[rank].end());
    }
    return list;
}

std::uint64_t tree_bcast_largest_transfer(MPII_Hier_tree_kind kind, std::uint64_t msg_bytes, std::uint64_t segsize) {
    if (kind == MPII_HIER_TREE_SPLIT_BINARY)
        msg_bytes = static_cast<std::uint64_t>(MPII_Hier_tree_split_binary_first(static_cast<long long>(msg_bytes)));
    return segsize == 0 ? msg_bytes : std::min(msg_bytes, segsize);
}

Cost tree_bcast_link_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes,
                          std::uint64_t segsize, const Line& reference) {
    return link_time(tree_bcast_transfers(kind, size, fanout, msg_bytes, segsize), size, reference);
}

std::vector<int> reduce_stage_fanins(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t segments) {
    if (kind == MPII_HIER_TREE_SPLIT_BINARY) throw std::invalid_argument("analytic model: split-binary is a bcast tree");
    if (size < 2 || segments < 1) throw std::invalid_argument("analytic model: need 2 ranks and a segment");
    const std::vector<std::vector<int>> children = tree_of(kind, size, fanout).children;
    std::vector<int> height(size, -1);
    const std::function<int(int)> height_of = [&](int rank) {
        if (height[rank] < 0) {
            height[rank] = 0;
            for (int child : children[rank]) height[rank] = std::max(height[rank], height_of(child) + 1);
        }
        return height[rank];
    };
    const int top = MPII_Hier_tree_top(kind, size, 0);
    const bool hand_over = top != 0;  // IN_ORDER_BINARY: the top sends the result to the root
    std::vector<int> widest(static_cast<std::size_t>(height_of(top) - 1 + hand_over) + segments, 0);
    for (int rank = 0; rank < size; ++rank)
        if (!children[rank].empty())
            for (std::uint64_t t = 0; t < segments; ++t) {
                int& stage = widest[static_cast<std::size_t>(height_of(rank) - 1) + t];
                stage = std::max(stage, static_cast<int>(children[rank].size()) + 1);
            }
    if (hand_over)
        for (std::uint64_t t = 0; t < segments; ++t) {
            int& stage = widest[static_cast<std::size_t>(height_of(top)) + t];
            stage = std::max(stage, 2);
        }
    return widest;
}

std::uint64_t reduce_segments(std::uint64_t msg_bytes, std::uint64_t segsize, std::uint64_t elem_bytes) {
    if (elem_bytes == 0) throw std::invalid_argument("analytic model: elements of 0 bytes");
    const std::uint64_t seg = std::max<std::uint64_t>(segsize / elem_bytes, 1) * elem_bytes;
    if (segsize == 0 || msg_bytes <= seg) return 1;
    return msg_bytes / seg + (msg_bytes % seg != 0);
}

Cost tree_reduce_cost(MPII_Hier_tree_kind kind, int size, int fanout, std::uint64_t msg_bytes,
                      std::uint64_t segsize, std::uint64_t elem_bytes, const Gamma& gamma) {
    const std::uint64_t segments = reduce_segments(msg_bytes, segsize, elem_bytes);
    return transfers(stage_gamma_sum(reduce_stage_fanins(kind, size, fanout, segments), gamma),
                     static_cast<double>(msg_bytes) / static_cast<double>(segments));
}

int sequential_send_rounds(MPII_Hier_tree_kind kind, int size, int fanout) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    const Tree tree = tree_of(kind, size, fanout);
    std::vector<int> arrival(size, -1);
    std::vector<int> order{0};  // ranks whose arrival is known, parents first
    arrival[0] = 0;
    for (std::size_t next = 0; next < order.size(); ++next) {
        const std::vector<int>& children = tree.children[order[next]];
        for (std::size_t i = 0; i < children.size(); ++i) {
            arrival[children[i]] = arrival[order[next]] + static_cast<int>(i) + 1;
            order.push_back(children[i]);
        }
    }
    return *std::max_element(arrival.begin(), arrival.end());
}

Cost mpich_binomial_bcast_cost(int size, std::uint64_t msg_bytes) {
    return transfers(sequential_send_rounds(MPII_HIER_TREE_BINOMIAL, size, 1), static_cast<double>(msg_bytes));
}

Cost mpich_scatter_ring_bcast_cost(int size, std::uint64_t msg_bytes, const Line& reference) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    if (size == 1 || msg_bytes == 0) return Cost{};
    return latest_scatter_arrival(size, msg_bytes, reference) +
           transfers(size - 1, static_cast<double>(chunk_bytes(size, msg_bytes)));
}

Cost mpich_scatter_rd_bcast_cost(int size, std::uint64_t msg_bytes, const Line& reference) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    if (size == 1 || msg_bytes == 0) return Cost{};  // MPICH returns at once for nbytes 0
    const std::uint64_t chunk = chunk_bytes(size, msg_bytes);
    // MPICH's curr_size (bytes held, from my_tree_root's chunk on) and recv_size (bytes
    // of the last receive, what the non-power-of-two steps forward) of every rank
    std::vector<std::uint64_t> held(size), last_received(size, 0);
    for (int r = 0; r < size; ++r) {
        const std::uint64_t offset = static_cast<std::uint64_t>(r) * chunk;
        held[r] = offset >= msg_bytes ? 0 : std::min(chunk, msg_bytes - offset);
    }
    std::vector<Cost> clock(size);  // the allgather starts when the scatter has ended
    const auto meet = [&](int x, int y, std::uint64_t bytes) {
        clock[x] = clock[y] = later(clock[x], clock[y], reference) + transfers(1, static_cast<double>(bytes));
    };
    for (int mask = 1; mask < size; mask <<= 1) {
        // MPIC_Sendrecv with rank ^ mask, where it exists: each sends all it holds
        for (int r = 0; r < size; ++r) {
            const int partner = r ^ mask;
            if (partner < r || partner >= size) continue;
            meet(r, partner, std::max(held[r], held[partner]));
            last_received[r] = held[partner];
            last_received[partner] = held[r];
            held[r] = held[partner] = held[r] + held[partner];
        }
        // MPICH's "dst_tree_root + mask > comm_size" steps: where the partner subtree is
        // cut by P, only the first `completed` (nprocs_completed) ranks of r's subtree got
        // its data.  Halving (tmp_mask = sub): in each block of 2 sub ranks (tree_root), a
        // rank below tree_root + completed sends what it last received (recv_size) to
        // rank + sub at or above it, which MPICH's receive test pairs the same way.
        for (int sub = mask >> 1; sub > 0; sub >>= 1)
            for (int r = 0; r < size; ++r) {
                const int my_root = r - r % mask, partner_root = (r ^ mask) - (r ^ mask) % mask;
                if (partner_root + mask <= size) continue;
                const int completed = size - my_root - mask;
                const int threshold = r - r % (2 * sub) + completed;
                const int dst = r ^ sub;
                if (dst > r && r < threshold && dst >= threshold) {
                    meet(r, dst, last_received[r]);
                    last_received[dst] = last_received[r];
                    held[dst] += last_received[r];
                }
            }
    }
    Cost allgather;
    for (const Cost& t : clock) allgather = later(allgather, t, reference);
    return latest_scatter_arrival(size, msg_bytes, reference) + allgather;
}

int sequential_recv_rounds(MPII_Hier_tree_kind kind, int size, int fanout) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    const Tree tree = tree_of(kind, size, fanout);
    // when a rank has its result: a leaf at once; a parent receives child after child,
    // each once both are ready, the smallest subtree first (the reverse serving order)
    const std::function<int(int)> result_at = [&](int rank) {
        int t = 0;
        const std::vector<int>& children = tree.children[rank];
        for (auto child = children.rbegin(); child != children.rend(); ++child)
            t = std::max(t, result_at(*child)) + 1;
        return t;
    };
    return result_at(0);
}

Cost mpich_binomial_reduce_cost(int size, std::uint64_t msg_bytes) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    if (size == 1 || msg_bytes == 0) return Cost{};  // MPI_Reduce only copies locally
    return transfers(sequential_recv_rounds(MPII_HIER_TREE_BINOMIAL, size, 1), static_cast<double>(msg_bytes));
}

Cost mpich_reduce_scatter_gather_cost(int size, std::uint64_t msg_bytes, std::uint64_t elem_bytes) {
    if (size < 1) throw std::invalid_argument("analytic model: need a rank");
    if (elem_bytes == 0 || msg_bytes % elem_bytes != 0)
        throw std::invalid_argument("analytic model: a reduce moves whole elements");
    if (size == 1 || msg_bytes == 0) return Cost{};  // MPI_Reduce only copies locally
    const std::uint64_t count = msg_bytes / elem_bytes;
    int pof2 = 1;
    while (2 * pof2 <= size) pof2 *= 2;
    if (count < static_cast<std::uint64_t>(pof2))
        throw std::invalid_argument("analytic model: reduce_scatter_gather needs count >= pof2 (MPICH falls back)");
    const int rem = size - pof2;
    // MPICH's cnts (count / pof2 each, the first count % pof2 one more) as prefix sums
    std::vector<std::uint64_t> first(pof2 + 1, 0);
    for (int i = 0; i < pof2; ++i)
        first[i + 1] = first[i] + count / pof2 + (static_cast<std::uint64_t>(i) < count % pof2);
    const auto bytes_of = [&](int lo, int hi) { return static_cast<double>((first[hi] - first[lo]) * elem_bytes); };
    // by newrank; the first rem received an odd rank's whole buffer
    std::vector<Cost> clock(pof2);
    for (int r = 0; r < rem; ++r) clock[r] = transfers(1, static_cast<double>(msg_bytes));
    // Clocks that meet here have equal a, or one is ahead in a and b (that receive):
    // every alpha, beta > 0 orders them alike.
    const Line any_positive{1, 1};
    const auto meet = [&](int x, int y, double bytes) {
        clock[x] = clock[y] = later(clock[x], clock[y], any_positive) + transfers(1, bytes);
    };
    // recursive halving: partners at distance mask split their common range of cnts,
    // the lower newrank keeping the lower half
    std::vector<int> lo(pof2, 0), hi(pof2, pof2);
    for (int mask = 1; mask < pof2; mask <<= 1)
        for (int r = 0; r < pof2; ++r) {
            const int partner = r ^ mask;
            if (partner < r) continue;
            const int mid = lo[r] + (hi[r] - lo[r]) / 2;
            meet(r, partner, std::max(bytes_of(lo[r], mid), bytes_of(mid, hi[r])));
            hi[r] = mid;
            lo[partner] = mid;
        }
    // binomial gather: at mask, newranks mask .. 2 mask - 1 send their range down by mask
    for (int mask = pof2 / 2; mask > 0; mask >>= 1)
        for (int r = 0; r < mask; ++r) {
            meet(r, r + mask, bytes_of(lo[r + mask], hi[r + mask]));
            hi[r] = hi[r + mask];
        }
    return clock[0];
}

}  // namespace hiertune::analytic
