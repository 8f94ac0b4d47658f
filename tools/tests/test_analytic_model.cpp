// The segmented tree bcast model on the plugin's tree shapes (hand-computed stages).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "hiertune/models/analytic_model.hpp"

namespace hiertune::analytic {
namespace {

using Fanouts = std::vector<int>;

TEST(StageFanouts, BinomialIsThePapersEquation6) {
    // P = 8, n_s = 3: the root (children 4, 2, 1) forwards in stages 0-2: gamma(4);
    // rank 4 (depth 1, children 6, 5) its last segment in stage 3: gamma(3); rank 6
    // (depth 2, child 7) in stage 4: gamma(2) -- n_s * gamma(log P + 1) + gamma(3) + gamma(2)
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_BINOMIAL, 8, 1, 3), (Fanouts{4, 4, 4, 3, 2}));
}

TEST(StageFanouts, EveryShapeByHand) {
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_LINEAR, 5, 1, 2), (Fanouts{5, 5}));
    // a chain of 4: ranks 0-2 forward, segment t leaves rank d in stage d + t
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_PIPELINE, 4, 1, 3), (Fanouts{2, 2, 2, 2, 2}));
    // 2 chains of 2 (r 1,2 and 3,4): the root feeds heads 1 and 3, which feed 2 and 4
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_CHAIN, 5, 2, 2), (Fanouts{3, 3, 2}));
    // binary on 7: root and ranks 1, 2 have two children each
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_BINARY, 7, 1, 1), (Fanouts{3, 3}));
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_BINOMIAL, 2, 1, 1), (Fanouts{2}));
}

TEST(StageFanouts, SplitBinaryTreePhaseThenExchange) {
    // 7 ranks: binary stages 3,3 per segment of half 0 (n_h = 2: 3,3,3), then the exchange:
    // every rank has a mirror (1-2, 3-5, 4-6), so n_h stages of gamma(2)
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_SPLIT_BINARY, 7, 1, 2), (Fanouts{3, 3, 3, 2, 2}));
    // 6 ranks: the left subtree (1, 3, 4) outgrows the right (2, 5); mirrors 1-2, 3-5, and
    // 4 gets half 1 from the root: max(gamma(2), gamma(1 + 1)) per exchange stage
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_SPLIT_BINARY, 6, 1, 1), (Fanouts{3, 3, 2}));
    // 2 ranks: the root's one child gets half 0 down the tree and half 1 as unmatched
    EXPECT_EQ(stage_fanouts(MPII_HIER_TREE_SPLIT_BINARY, 2, 1, 3), (Fanouts{2, 2, 2, 2, 2, 2}));
}

TEST(StageFanouts, WhatIsNotModelledIsRefused) {
    EXPECT_THROW(stage_fanouts(MPII_HIER_TREE_IN_ORDER_BINARY, 8, 1, 2), std::invalid_argument);
    EXPECT_THROW(stage_fanouts(MPII_HIER_TREE_BINOMIAL, 1, 1, 2), std::invalid_argument);
    EXPECT_THROW(stage_fanouts(MPII_HIER_TREE_CHAIN, 5, 0, 2), std::invalid_argument);
    EXPECT_THROW(stage_fanouts(MPII_HIER_TREE_LINEAR, 5, 1, 0), std::invalid_argument);
}

TEST(Segments, BytesAsTheBlockingBcastCutsThem) {
    EXPECT_EQ(bcast_segments(MPII_HIER_TREE_BINOMIAL, 65536, 16384), 4u);
    EXPECT_EQ(bcast_segments(MPII_HIER_TREE_BINOMIAL, 65537, 16384), 5u);
    EXPECT_EQ(bcast_segments(MPII_HIER_TREE_BINOMIAL, 100, 16384), 1u);
    EXPECT_EQ(bcast_segments(MPII_HIER_TREE_BINOMIAL, 100, 0), 1u);
    // split-binary: half 0 = ceil(65537 / 2) = 32769 bytes -> 3 segments of 16 KiB
    EXPECT_EQ(bcast_segments(MPII_HIER_TREE_SPLIT_BINARY, 65537, 16384), 3u);
}

TEST(Predict, SumOfStageGammasTimesOneSegment) {
    // gamma(2) = 1, gamma(3) = 1.5, gamma(4) = 2.1 (T = 10, 15, 21 us); binomial P = 8,
    // m = 3 KiB at 1 KiB segments: stages 4,4,4,3,2 -> 3 * 2.1 + 1.5 + 1 = 8.8 segment
    // transfers of alpha + beta * 1024 = 10 us + 1 ns * 1024 = 11.024 us: 97.0112 us
    const Gamma gamma(std::map<int, double>{{2, 10e-6}, {3, 15e-6}, {4, 21e-6}});
    EXPECT_NEAR(stage_gamma_sum(stage_fanouts(MPII_HIER_TREE_BINOMIAL, 8, 1, 3), gamma), 8.8, 1e-12);
    EXPECT_NEAR(tree_bcast_cost(MPII_HIER_TREE_BINOMIAL, 8, 1, 3072, 1024, gamma).seconds(Line{10e-6, 1e-9}),
                97.0112e-6, 1e-15);
    // split-binary, 7 ranks, 4 KiB at 1 KiB: half 0 = 2 KiB, 2 segments: stages 3,3,3,2,2
    // -> 1.5 * 3 + 1 * 2 = 6.5 transfers of 2048/2 bytes: 6.5 * 11.024 us = 71.656 us
    EXPECT_NEAR(tree_bcast_cost(MPII_HIER_TREE_SPLIT_BINARY, 7, 1, 4096, 1024, gamma).seconds(Line{10e-6, 1e-9}),
                71.656e-6, 1e-15);
}

TEST(ReduceStages, ReversedTreesByHand) {
    // binomial P = 8, u = 2: heights: 7,5,3,1 leaves; 6 (child 7) h1; 4 (6,5) h2; 2 (3) h1;
    // root (4,2,1) h3.  Fan-ins: h1 ranks in stages 0+t (gamma 2), rank 4 in 1+t (3),
    // root in 2+t (4): stage 0: 2; 1: max(2, 3) = 3; 2: max(3, 4) = 4; 3: 4
    EXPECT_EQ(reduce_stage_fanins(MPII_HIER_TREE_BINOMIAL, 8, 1, 2), (Fanouts{2, 3, 4, 4}));
    EXPECT_EQ(reduce_stage_fanins(MPII_HIER_TREE_LINEAR, 4, 1, 3), (Fanouts{4, 4, 4}));
    // in-order binary on 3 ranks: top 2 with children 0 and 1 (leaves): fan-in 3 in
    // stage t, then the hand-over to rank 0 in stage 1 + t
    EXPECT_EQ(reduce_stage_fanins(MPII_HIER_TREE_IN_ORDER_BINARY, 3, 1, 2), (Fanouts{3, 3, 2}));
    EXPECT_THROW(reduce_stage_fanins(MPII_HIER_TREE_SPLIT_BINARY, 4, 1, 1), std::invalid_argument);
}

TEST(ReduceStages, SegmentsAreWholeElements) {
    EXPECT_EQ(reduce_segments(4000, 999, 8), 5u);  // 999 -> 992 bytes: 4000 / 992 -> 5
    EXPECT_EQ(reduce_segments(4000, 1000, 8), 4u);
    EXPECT_EQ(reduce_segments(4000, 0, 8), 1u);
    EXPECT_EQ(reduce_segments(16, 3, 8), 2u);        // at least one element per segment
    // linear on 4, 2 segments of 1 KiB: stages 4, 4 -> 2 * gamma(4) = 4.2 transfers
    const Gamma gamma(std::map<int, double>{{2, 10e-6}, {3, 15e-6}, {4, 21e-6}});
    EXPECT_NEAR(tree_reduce_cost(MPII_HIER_TREE_LINEAR, 4, 1, 2048, 1024, 4, gamma).seconds(Line{10e-6, 1e-9}),
                4.2 * 11.024e-6, 1e-15);
}

TEST(MpichBinomial, LatestArrivalOfBlockingSendsInTurn) {
    // P = 5: the root serves 4, 2, 1 (arrivals 1, 2, 3), rank 2 serves 3 (arrival 3)
    EXPECT_EQ(sequential_send_rounds(MPII_HIER_TREE_BINOMIAL, 5, 1), 3);
    for (int p : {1, 2, 3, 4, 7, 8, 9, 16, 17, 100}) {  // ceil(log2 P) for every P
        int rounds = 0;
        while ((1 << rounds) < p) ++rounds;
        EXPECT_EQ(sequential_send_rounds(MPII_HIER_TREE_BINOMIAL, p, 1), rounds) << "P = " << p;
    }
    // linear: the root's last child waits for all P-1 sends
    EXPECT_EQ(sequential_send_rounds(MPII_HIER_TREE_LINEAR, 6, 1), 5);
    // 8 ranks, 1 MiB, alpha 10 us, beta 1 ns/B: 3 * (10 + 1048.576) us
    EXPECT_NEAR(mpich_binomial_bcast_cost(8, 1 << 20).seconds(Line{10e-6, 1e-9}), 3 * 1058.576e-6, 1e-12);
}

TEST(MpichScatterRing, ScatterArrivalThenRingByHand) {
    // P = 4, m = 4000: chunks of 1000; the root sends 2000 bytes to 2, then 1000 to 1;
    // 2 sends 1000 to 3: latest arrival 2 alpha + 3000 beta; ring 3 (alpha + 1000 beta);
    // alpha 10 us, beta 1 ns/B: 20 + 3 + 30 + 3 = 56 us
    const Line ab{10e-6, 1e-9};
    EXPECT_NEAR(mpich_scatter_ring_bcast_cost(4, 4000, ab).seconds(ab), 56e-6, 1e-15);
    // m = 3 on 4 ranks: chunks of 1 byte, rank 3's chunk lies past the end (no send to
    // it): arrivals 2 at alpha + beta, 1 at 2 (alpha + beta); ring 3 (alpha + beta)
    EXPECT_NEAR(mpich_scatter_ring_bcast_cost(4, 3, ab).seconds(ab), 5 * (10e-6 + 1e-9), 1e-15);
    EXPECT_EQ(mpich_scatter_ring_bcast_cost(1, 4000, ab).seconds(ab), 0);
    // as a linear form: ranks 1 and 3 arrive last, after 2 transfers of 3000 bytes in all
    const Cost by_bytes = mpich_scatter_ring_bcast_cost(4, 4000, ab);
    EXPECT_DOUBLE_EQ(by_bytes.a, 2 + 3);
    EXPECT_DOUBLE_EQ(by_bytes.b, 3000 + 3000);
    EXPECT_EQ(mpich_scatter_ring_bcast_cost(4, 0, ab).seconds(ab), 0);
}

TEST(MpichScatterRd, ScatterThenRecursiveDoublingByHand) {
    const Line ab{10e-6, 1e-9};
    // P = 4, m = 4000: the scatter as in the ring test (2 alpha + 3000 beta); then
    // rank pairs (0,1), (2,3) swap 1000 bytes, (0,2), (1,3) 2000: 4 alpha + 6000 beta
    const Cost pof2 = mpich_scatter_rd_bcast_cost(4, 4000, ab);
    EXPECT_DOUBLE_EQ(pof2.a, 2 + 2);
    EXPECT_DOUBLE_EQ(pof2.b, 3000 + 3000);
    // P = 2, m = 1000: the root sends 500 bytes to 1, then they swap 500
    EXPECT_NEAR(mpich_scatter_rd_bcast_cost(2, 1000, ab).seconds(ab), 2 * (10e-6 + 500e-9), 1e-15);
    // P = 3, m = 3000, chunks of 1000: scatter root -> 2 (1000), -> 1 (1000): 2 alpha +
    // 2000 beta.  mask 1: (0,1) swap 1000 (alpha + 1000 beta); 2 has no partner 3.
    // mask 2: (0,2) swap 2000 / 1000: 2 alpha + 3000 beta; partner subtree {2, 3} is
    // cut, completed = 3 - 0 - 2 = 1: rank 0 sends what it received (1000) to rank 1:
    // 3 alpha + 4000 beta.  T = 5 alpha + 6000 beta = 56 us
    const Cost three = mpich_scatter_rd_bcast_cost(3, 3000, ab);
    EXPECT_DOUBLE_EQ(three.a, 5);
    EXPECT_DOUBLE_EQ(three.b, 6000);
    // P = 5, m = 5000, chunks of 1000: scatter root -> 4 (1000), -> 2 (2000), -> 1
    // (1000); 2 -> 3 (1000): latest 3 alpha + 4000 beta (ranks 1 and 3).
    // mask 1: (0,1), (2,3) swap 1000 (alpha + 1000 beta); mask 2: (0,2), (1,3) swap
    // 2000 (2 alpha + 3000 beta); 4 has no partner in either.  mask 4: (0,4) swap 4000
    // / 1000: 3 alpha + 7000 beta; {4..7} is cut, completed = 1: rank 0 sends its
    // 1000 received bytes to 2 (4 alpha + 8000 beta), then 0 -> 1 and 2 -> 3 (block
    // roots 0 and 2, threshold root + 1): 5 alpha + 9000 beta.  T = 8 alpha + 13000 beta
    const Cost five = mpich_scatter_rd_bcast_cost(5, 5000, ab);
    EXPECT_DOUBLE_EQ(five.a, 3 + 5);
    EXPECT_DOUBLE_EQ(five.b, 4000 + 9000);
    EXPECT_NEAR(five.seconds(ab), 93e-6, 1e-15);
    // P = 7, m = 1: rank 0 holds the only byte, the scatter sends nothing, and empty
    // Sendrecvs/Sends still cost alpha.  mask 1: (0,1) 1 byte, (2,3), (4,5) 0 bytes.
    // mask 2: (0,2), (1,3) 1 byte: 2 alpha + 2 beta; (4,6) 0: 2 alpha; {6,7} is cut,
    // completed = 1: 4 sends its last receive (0 bytes) to 5: 3 alpha.  mask 4:
    // (1,5) swap 1 byte from max(2 alpha + 2 beta, 3 alpha), then the cut {4..7},
    // completed = 3: 1 sends what it got from 5 (0 bytes) to 3.  Alpha-bound the path
    // 4 -> 5 -> 1 -> 3 is latest, 5 alpha + beta; beta-bound rank 0's own three swaps
    // of one byte, 3 beta.
    const Cost alpha_bound = mpich_scatter_rd_bcast_cost(7, 1, ab);
    EXPECT_DOUBLE_EQ(alpha_bound.a, 5);
    EXPECT_DOUBLE_EQ(alpha_bound.b, 1);
    EXPECT_DOUBLE_EQ(mpich_scatter_rd_bcast_cost(7, 1, Line{0, 1}).seconds(Line{0, 1}), 3);
    EXPECT_EQ(mpich_scatter_rd_bcast_cost(1, 4000, ab).seconds(ab), 0);
    EXPECT_EQ(mpich_scatter_rd_bcast_cost(4, 0, ab).seconds(ab), 0);  // MPICH returns at once
    EXPECT_THROW(mpich_scatter_rd_bcast_cost(0, 4000, ab), std::invalid_argument);
}

TEST(MpichBinomialReduce, LatestCompletionOfBlockingReceivesInTurn) {
    // P = 5: the root receives from 1 (a leaf) at 1, from 2 (which received 3's at 1)
    // at max(1, 1) + 1 = 2, from 4 (a leaf) at 3
    EXPECT_EQ(sequential_recv_rounds(MPII_HIER_TREE_BINOMIAL, 5, 1), 3);
    // P = 6: from 1 at 1, from 2 (3's at 1) at 2, from 4 (5's at 1) at 3
    EXPECT_EQ(sequential_recv_rounds(MPII_HIER_TREE_BINOMIAL, 6, 1), 3);
    for (int p = 1; p <= 100; ++p) {  // ceil(log2 P) for every P
        int rounds = 0;
        while ((1 << rounds) < p) ++rounds;
        EXPECT_EQ(sequential_recv_rounds(MPII_HIER_TREE_BINOMIAL, p, 1), rounds) << "P = " << p;
    }
    // linear: the root receives P-1 times in turn
    EXPECT_EQ(sequential_recv_rounds(MPII_HIER_TREE_LINEAR, 6, 1), 5);
    // 8 ranks, 1 MiB, alpha 10 us, beta 1 ns/B: 3 * (10 + 1048.576) us
    EXPECT_NEAR(mpich_binomial_reduce_cost(8, 1 << 20).seconds(Line{10e-6, 1e-9}), 3 * 1058.576e-6, 1e-12);
    // MPI_Reduce returns before the algorithm for count 0 or one rank
    EXPECT_EQ(mpich_binomial_reduce_cost(8, 0).a, 0);
    EXPECT_EQ(mpich_binomial_reduce_cost(1, 1 << 20).a, 0);
}

TEST(MpichReduceScatterGather, HalvingThenGatherByHand) {
    const Line ab{10e-6, 1e-9};
    // P = 4, 4000 elements of 1 byte: cnts 1000 each.  Halving: (0,1), (2,3) swap
    // halves of 2000; (0,2), (1,3) of 1000.  Gather: 2 -> 0 and 3 -> 1 (1000), 1 -> 0
    // (2000): 4 alpha + 6000 beta = 46 us
    const Cost pof2 = mpich_reduce_scatter_gather_cost(4, 4000, 1);
    EXPECT_DOUBLE_EQ(pof2.a, 4);
    EXPECT_DOUBLE_EQ(pof2.b, 6000);
    EXPECT_NEAR(pof2.seconds(ab), 46e-6, 1e-15);
    // P = 5, 1000 elements of 4 bytes (m = 4000): rem 1, rank 1 sends 4000 bytes to 0
    // (newrank 0: alpha + 4000 beta).  Newranks 0-3 then as for P = 4, cnts 250 = 1000
    // bytes; every path meets newrank 0's: 5 alpha + 10000 beta = 60 us
    const Cost five = mpich_reduce_scatter_gather_cost(5, 4000, 4);
    EXPECT_DOUBLE_EQ(five.a, 5);
    EXPECT_DOUBLE_EQ(five.b, 10000);
    // P = 4, 6 elements of 1000 bytes: cnts 2, 2, 1, 1 (the remainder in the first).
    // Halving: [0,2) 4000 / [2,4) 2000 bytes: alpha + 4000 beta for all; (0,2) split
    // [0,2): 2000 each, 2 alpha + 6000 beta; (1,3) split [2,4): 1000 each, 2 alpha +
    // 5000 beta.  Gather: 2 -> 0 ([1,2): 2000): 3 alpha + 8000 beta; 3 -> 1 ([3,4):
    // 1000): 3 alpha + 6000 beta; 1 -> 0 ([2,4): 2000): 4 alpha + 10000 beta
    const Cost uneven = mpich_reduce_scatter_gather_cost(4, 6000, 1000);
    EXPECT_DOUBLE_EQ(uneven.a, 4);
    EXPECT_DOUBLE_EQ(uneven.b, 10000);
    // P = 2, 3 elements of 1000 bytes: cnts 2, 1: swap max(2000, 1000), then 1 -> 0 1000
    const Cost two = mpich_reduce_scatter_gather_cost(2, 3000, 1000);
    EXPECT_DOUBLE_EQ(two.a, 2);
    EXPECT_DOUBLE_EQ(two.b, 3000);
    EXPECT_EQ(mpich_reduce_scatter_gather_cost(1, 4000, 4).a, 0);
    EXPECT_EQ(mpich_reduce_scatter_gather_cost(5, 0, 4).a, 0);  // MPI_Reduce returns first
    // count < pof2: MPICH falls back to its automatic selection
    EXPECT_THROW(mpich_reduce_scatter_gather_cost(5, 3, 1), std::invalid_argument);
    EXPECT_THROW(mpich_reduce_scatter_gather_cost(4, 10, 4), std::invalid_argument);  // 2.5 elements
    EXPECT_THROW(mpich_reduce_scatter_gather_cost(4, 16, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hiertune::analytic
