// The link model of eager transfers and the seg_* bcasts' transfers (hand-computed).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "hiertune/models/analytic_model.hpp"
#include "hiertune/models/link_model.hpp"

namespace hiertune::analytic {
namespace {

const Line kRef{1e-6, 1e-9};  // where paths are compared: alpha small against the bytes

void expect_cost(const Cost& cost, double a, double b) {
    EXPECT_DOUBLE_EQ(cost.a, a);
    EXPECT_DOUBLE_EQ(cost.b, b);
}

TEST(LinkModel, OneTransferIsAlphaPlusBetaBytes) {
    expect_cost(link_time({{0, 1, 1000}}, 2, kRef), 1, 1000);
    expect_cost(link_time({}, 2, kRef), 0, 0);
}

TEST(LinkModel, AFanOutLeavesInPostingOrder) {
    // 0 -> 1 arrives after one transfer, 0 -> 2 after two
    expect_cost(link_time({{0, 1, 1000}, {0, 2, 1000}}, 3, kRef), 2, 2000);
    // the second child forwards at once: 1 -> 3 leaves while 0 -> 2 does
    expect_cost(link_time({{0, 1, 1000}, {0, 2, 1000}, {1, 3, 1000, 0}}, 4, kRef), 2, 2000);
}

TEST(LinkModel, TransfersIntoOneRankQueueInFrontOfItsLink) {
    // 1 -> 0 and 2 -> 0 at once: both leave by one transfer, the link drains the
    // second transfer's worth after that
    expect_cost(link_time({{1, 0, 1000}, {2, 0, 1000}}, 3, kRef), 2, 2000);
    // links are full duplex: a swap and a relay take one transfer
    expect_cost(link_time({{1, 2, 1000}, {2, 1, 1000}}, 3, kRef), 1, 1000);
    expect_cost(link_time({{0, 1, 1000}, {1, 2, 1000}}, 3, kRef), 1, 1000);
}

TEST(LinkModel, APartlyOverlappingArrivalQueuesBehindTheEarlierBytes) {
    // 1 -> 0 (1000 B) leaves over [0, w1]; 2 -> 0 (1000 B) waits for 3 -> 2 (500 B, in at
    // w3 = alpha + 500 beta) and leaves over [w3, w3 + w2].  Two arrive at 0 from w3 to
    // w1: the queue holds w1 - w3 = 500 beta at w1, which it keeps while one arrives; 2 -> 0
    // is in at w3 + w2 + 500 beta = 2 alpha + 2000 beta.
    expect_cost(link_time({{1, 0, 1000}, {3, 2, 500}, {2, 0, 1000, 1}}, 4, kRef), 2, 2000);
}

TEST(LinkModel, AQueueDrainsWhileNothingArrives) {
    // 1 -> 0 and 2 -> 0 at once: in at 2 alpha + 2000 beta, the queue empty then.  3 -> 0
    // waits for 4 -> 3 (5000 B) and leaves into an empty queue: alpha + 5000 beta +
    // alpha + 1000 beta
    expect_cost(link_time({{1, 0, 1000}, {2, 0, 1000}, {4, 3, 5000}, {3, 0, 1000, 2}}, 5, kRef), 2, 6000);
    // the link time of a transfer is alpha + beta b: with 2500 B the queue still holds
    // (alpha + 1000 beta) - 1500 beta at kRef when 3 -> 0 starts, which it waits behind
    expect_cost(link_time({{1, 0, 1000}, {2, 0, 1000}, {4, 3, 2500}, {3, 0, 1000, 2}}, 5, kRef), 3, 3000);
}

TEST(LinkModel, BadTransfersAreRefused) {
    EXPECT_THROW(link_time({{0, 0, 10}}, 2, kRef), std::invalid_argument);
    EXPECT_THROW(link_time({{0, 2, 10}}, 2, kRef), std::invalid_argument);
    EXPECT_THROW(link_time({{0, 1, -1}}, 2, kRef), std::invalid_argument);
    // waits for a transfer into another rank, or a later one
    EXPECT_THROW(link_time({{0, 1, 10}, {2, 0, 10, 0}}, 3, kRef), std::invalid_argument);
    EXPECT_THROW(link_time({{1, 0, 10, 1}, {0, 1, 10}}, 2, kRef), std::invalid_argument);
}

TEST(TreeBcastTransfers, SplitBinaryOnFourRanks) {
    // 4 ranks, 8192 bytes in one segment: half 0 (4096) to 1, half 1 to 2, and to 3 (its
    // left rank without a mirror) from the root; 1 forwards half 0 to its child 3, then
    // to its mirror 2; 2 sends half 1 to 1
    const std::vector<LinkTransfer> list = tree_bcast_transfers(MPII_HIER_TREE_SPLIT_BINARY, 4, 1, 8192, 65536);
    ASSERT_EQ(list.size(), 6u);
    const std::vector<std::tuple<int, int, double, int>> expected{
        {0, 1, 4096, -1}, {0, 2, 4096, -1}, {0, 3, 4096, -1}, {1, 3, 4096, 0}, {1, 2, 4096, 0}, {2, 1, 4096, 1}};
    for (std::size_t i = 0; i < list.size(); ++i)
        EXPECT_EQ(std::make_tuple(list[i].src, list[i].dst, list[i].bytes, list[i].after), expected[i]) << i;
    // root: halves to 1, 2, 3 in turn (in at 1, 2, 3 halves); 1 sends to 3 over [1, 2],
    // to 2 over [2, 3]; 2 sends to 1 over [2, 3]: 3 halves, 1.5 transfers of the message
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_SPLIT_BINARY, 4, 1, 8192, 65536, kRef), 3, 3 * 4096);
}

TEST(TreeBcastTransfers, SplitBinaryOnThreeRanksWaitsForTheSharedLink) {
    // root -> 1 over [0, 1] half, root -> 2 over [1, 2]; 1 forwards half 0 to 2 from 1
    // on, so two halves arrive at 2 over [1, 2]: both are in at 3; 2 then sends half 1
    // to 1: in at 4 halves = 2 transfers of the message (the stages say 1.5)
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_SPLIT_BINARY, 3, 1, 8192, 65536, kRef), 4, 4 * 4096);
    const Gamma serial(std::map<int, double>{{2, 1.0}, {3, 2.0}});
    EXPECT_DOUBLE_EQ(tree_bcast_cost(MPII_HIER_TREE_SPLIT_BINARY, 3, 1, 8192, 65536, serial).a, 3);
}

TEST(TreeBcastTransfers, TreesByHand) {
    // binary on 4, one segment: 1 gets it first and forwards to 3 while the root serves 2
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_BINARY, 4, 1, 8192, 65536, kRef), 2, 2 * 8192);
    // a chain of 4, 2500 bytes at 1000: segments 1000, 1000, 500; rank d has segment t
    // at (d + t + 1) thousand bytes while whole ones follow; the last is in at 4500
    // bytes after 5 transfers (root 0, 1; rank 1, 2, 2 segment 1; rank 2 segment 2)
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_PIPELINE, 4, 1, 2500, 1000, kRef), 5, 4500);
    // linear on 4, 2 segments: the root sends segment 0 to 1, 2, 3, then segment 1
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_LINEAR, 4, 1, 2000, 1000, kRef), 6, 6000);
    // 2 ranks, split-binary: the one child gets half 0 down the tree, then half 1
    expect_cost(tree_bcast_link_cost(MPII_HIER_TREE_SPLIT_BINARY, 2, 1, 3001, 0, kRef), 2, 3001);
    EXPECT_THROW(tree_bcast_transfers(MPII_HIER_TREE_IN_ORDER_BINARY, 4, 1, 100, 10), std::invalid_argument);
    EXPECT_THROW(tree_bcast_transfers(MPII_HIER_TREE_BINARY, 1, 1, 100, 10), std::invalid_argument);
}

TEST(TreeBcastTransfers, LargestTransfer) {
    EXPECT_EQ(tree_bcast_largest_transfer(MPII_HIER_TREE_SPLIT_BINARY, 8193, 65536), 4097u);
    EXPECT_EQ(tree_bcast_largest_transfer(MPII_HIER_TREE_SPLIT_BINARY, 8192, 2048), 2048u);
    EXPECT_EQ(tree_bcast_largest_transfer(MPII_HIER_TREE_BINOMIAL, 100, 0), 100u);
    EXPECT_EQ(tree_bcast_largest_transfer(MPII_HIER_TREE_BINOMIAL, 1 << 20, 16384), 16384u);
}

}  // namespace
}  // namespace hiertune::analytic
