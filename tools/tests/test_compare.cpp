// The comparison of the configurations of one size: link bound, ratios.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "hiertune/report/compare.hpp"

namespace hiertune {
namespace {

PointResult point(const std::string& collective, std::uint64_t bytes, const std::string& algorithm,
                  double median_seconds) {
    PointResult result;
    result.key = PointKey{collective, bytes, algorithm, {}};
    result.summary.median = median_seconds;
    return result;
}

TEST(LinkBound, BusiestLinkCarriesTheMessageOrTheAllreduceShare) {
    // bcast, reduce: the whole message through some non-root node's link
    EXPECT_DOUBLE_EQ(busiest_link_bytes("bcast", 1048576, 4), 1048576);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("reduce", 1000, 2), 1000);
    // allreduce: 2 (N-1)/N of it; 4 nodes: 2 * 3/4 = 1.5 x, 2 nodes: 1 x, 8 nodes: 1.75 x
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allreduce", 4194304, 4), 6291456);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allreduce", 4096, 2), 4096);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allreduce", 1000, 8), 1750);
    // one node: no link
    EXPECT_DOUBLE_EQ(busiest_link_bytes("bcast", 1000, 1), 0);
    EXPECT_THROW(busiest_link_bytes("alltoallw", 8, 4), std::invalid_argument);
    // 4 nodes x 2 ranks, 1 MiB each: 6 other ranks' blocks cross each node's link
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allgather", 1048576, 4, 2), 6291456);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("gather", 1000, 3, 4), 8000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("scatter", 1000, 2), 1000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("barrier", 0, 4, 2), 0);
    EXPECT_FALSE(link_bound_seconds("barrier", 0, 4, 12.5e6, 2));  // nothing crosses
    // scan, exscan: every node but the first takes in the prefix of those before it, the
    // message, whatever its ranks per node (their non-blocking forms alike)
    EXPECT_DOUBLE_EQ(busiest_link_bytes("scan", 1000, 4, 2), 1000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("iexscan", 1000, 2, 8), 1000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("exscan", 1000, 1, 8), 0);
    EXPECT_DOUBLE_EQ(*link_bound_seconds("iscan", 1250000, 4, 12.5e6, 2), 0.1);
    // the reduce-scatters, a block of 1000 B per rank on 4 nodes x 2 ranks: each node's
    // vector holds 8 blocks, the 6 of the other nodes' ranks leave it, (N-1)/N of it, as
    // allgather's blocks come in (and half of allreduce's 2 (N-1)/N on the 8000 B vector)
    EXPECT_DOUBLE_EQ(busiest_link_bytes("reduce_scatter", 1000, 4, 2), 6000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("reduce_scatter_block", 1000, 4, 2),
                     busiest_link_bytes("allreduce", 8000, 4) / 2);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("ireduce_scatter_block", 1000, 2, 3), 3000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("ireduce_scatter", 1000, 1, 8), 0);
    // 2 nodes x 1 rank, 1.25 MB blocks at 12.5e6 B/s: one block each way, 0.1 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("reduce_scatter", 1250000, 2, 12.5e6, 1), 0.1);
    // allgatherv with equal blocks (bench's) is allgather: the other nodes' 6 blocks of
    // 1 MiB into each of 4 nodes x 2 ranks; its non-blocking form alike
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allgatherv", 1048576, 4, 2), 6291456);
    for (const int nodes : {1, 2, 3, 8})
        for (const int ppn : {1, 2, 5}) {
            EXPECT_DOUBLE_EQ(busiest_link_bytes("allgatherv", 1000, nodes, ppn),
                             busiest_link_bytes("allgather", 1000, nodes, ppn));
            EXPECT_DOUBLE_EQ(busiest_link_bytes("iallgatherv", 1000, nodes, ppn),
                             busiest_link_bytes("allgather", 1000, nodes, ppn));
        }
    // alltoall, 1000 B blocks per pair on 4 nodes x 2 ranks (P = 8): each node's 2 ranks
    // send 6 blocks each to the other nodes' ranks and receive as many, 12000 B each way;
    // its non-blocking form alike; one node: none
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 4, 2), 12000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("ialltoall", 1000, 4, 2), 12000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 1, 8), 0);
    // one rank per node: (P - 1) blocks, allgather's; 2 nodes x 4: 4 x 4 blocks
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 8, 1), busiest_link_bytes("allgather", 1000, 8, 1));
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 2, 4), 16000);
    // uneven: 7 ranks on 3 nodes of at most 3 (3, 2, 2): the fullest node's 3 x 4 blocks,
    // not 3 x (9 - 3) as 3 full nodes would send; the others' 2 x 5 fewer
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 3, 3, 7), 12000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 3, 3), 18000);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 3, 3, 9), 18000);
    // 5 ranks on 2 nodes of at most 4 (4, 1): 4 x 1 blocks either way, as the lone rank's 1 x 4
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoall", 1000, 2, 4, 5), 4000);
    // alltoallv with equal counts (bench's) is alltoall, blocking and not, even or uneven
    for (const char* v : {"alltoallv", "ialltoallv"})
        for (const int nodes : {1, 2, 3, 8})
            for (const int ppn : {1, 2, 5})
                for (const int ranks : {0, nodes * ppn - 1})
                    EXPECT_DOUBLE_EQ(busiest_link_bytes(v, 1000, nodes, ppn, ranks),
                                     busiest_link_bytes("alltoall", 1000, nodes, ppn, ranks))
                        << v << " " << nodes << "x" << ppn << " " << ranks;
    EXPECT_DOUBLE_EQ(busiest_link_bytes("alltoallv", 1000, 3, 3, 7), 12000);
    // ranks read by alltoall's, alltoallv's, gatherv's and scatterv's bounds alone
    EXPECT_DOUBLE_EQ(busiest_link_bytes("allgather", 1000, 3, 3, 7), busiest_link_bytes("allgather", 1000, 3, 3));
    // 2 nodes x 1 rank, 1.25 MB blocks at 12.5e6 B/s: one block each way, 0.1 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("alltoall", 1250000, 2, 12.5e6, 1), 0.1);
    EXPECT_DOUBLE_EQ(*link_bound_seconds("alltoall", 1250000, 3, 12.5e6, 3, 7), 1.2);
}

// gatherv into and scatterv out of the root's node: as gather's and scatter's, every block
// of the ranks off that node (the first ppn ranks), bench's uneven ones (1000 B per rank:
// 1500 B on even ranks, 500 B on odd ones, an odd size's last rank 1000 B): gather's bound
// where the root's node holds whole pairs, less where it holds half of one
TEST(LinkBound, RootedVCollectivesCarryTheUnevenBlocksOffTheRootsNode) {
    for (const char* v : {"gatherv", "igatherv", "scatterv", "iscatterv"}) {
        EXPECT_DOUBLE_EQ(busiest_link_bytes(v, 1000, 4, 2), 6000) << v;
        EXPECT_DOUBLE_EQ(busiest_link_bytes(v, 1000, 1, 8), 0) << v;  // one node
    }
    // 3 nodes x 3 ranks: ranks 3 .. 8, 500 + 1500 + 500 + 1500 + 500 + 1000, not gather's 6000
    EXPECT_DOUBLE_EQ(busiest_link_bytes("gatherv", 1000, 3, 3), 5500);
    EXPECT_DOUBLE_EQ(busiest_link_bytes("gather", 1000, 3, 3), 6000);
    // 7 ranks on 3 nodes of at most 3: ranks 3 .. 6, 500 + 1500 + 500 + 1000
    EXPECT_DOUBLE_EQ(busiest_link_bytes("scatterv", 1000, 3, 3, 7), 3500);
    // 2 nodes x 1 rank, 1.25 MB per rank at 12.5e6 B/s: rank 1's 625000 B, 0.05 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("igatherv", 1250000, 2, 12.5e6, 1), 0.05);
}

TEST(LinkBound, SecondsAtTheLinkRate) {
    // 100 Mbit/s = 12.5e6 B/s: 1 MiB bcast 1048576 / 12.5e6 = 0.08388608 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("bcast", 1048576, 4, 12.5e6), 0.08388608);
    // 4 MiB allreduce on 4 nodes: 6291456 / 12.5e6 = 0.50331648 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("allreduce", 4194304, 4, 12.5e6), 0.50331648);
    // 1 Gbit/s = 125e6 B/s: 8 B reduce = 6.4e-8 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("reduce", 8, 2, 125e6), 6.4e-8);
    EXPECT_FALSE(link_bound_seconds("bcast", 1048576, 1, 12.5e6));  // one node
    EXPECT_FALSE(link_bound_seconds("bcast", 1048576, 4, 0));       // no rate
}

TEST(LinkBound, LeafSwitchesBoundByTheSlowerOfNodeLinkAndUplink) {
    // 2 leaves x 2 nodes x 2 ranks, node links 50e6 B/s, uplinks 12.5e6 B/s.
    // bcast 1 MiB: the message crosses an uplink once: 1048576 / 12.5e6 = 0.08388608 s
    // (a node link alone: 1048576 / 50e6 = 0.02097152 s)
    EXPECT_DOUBLE_EQ(*link_bound_seconds("bcast", 1048576, 4, 50e6, 2, 2, 12.5e6), 0.08388608);
    // allreduce 4 MiB: the uplinks as 2 nodes carry 2 (2-1)/2 = 1 x: 0.33554432 s;
    // the node links 2 (4-1)/4 = 1.5 x at 50e6: 0.12582912 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("allreduce", 4194304, 4, 50e6, 2, 2, 12.5e6), 0.33554432);
    // allgather 1000 B per rank: into a leaf, the other leaf's 4 ranks' blocks: 4000 B at
    // 12.5e6 = 3.2e-4 s; into a node, 6 blocks at 50e6: 1.2e-4 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("allgather", 1000, 4, 50e6, 2, 2, 12.5e6), 3.2e-4);
    // reduce_scatter alike: out of a leaf, the other leaf's 4 ranks' blocks of its sums
    EXPECT_DOUBLE_EQ(*link_bound_seconds("reduce_scatter", 1000, 4, 50e6, 2, 2, 12.5e6), 3.2e-4);
    // allgatherv as allgather
    EXPECT_DOUBLE_EQ(*link_bound_seconds("iallgatherv", 1000, 4, 50e6, 2, 2, 12.5e6), 3.2e-4);
    // alltoall 1000 B per pair: out of a leaf, its 4 ranks' blocks to the other leaf's 4:
    // 16000 B at 12.5e6 = 1.28e-3 s; out of a node, 2 x 6 blocks at 50e6: 2.4e-4 s
    EXPECT_DOUBLE_EQ(*link_bound_seconds("alltoall", 1000, 4, 50e6, 2, 2, 12.5e6), 1.28e-3);
    // a fast uplink leaves the node links the bound
    EXPECT_DOUBLE_EQ(*link_bound_seconds("bcast", 1048576, 4, 12.5e6, 2, 2, 1e9), 0.08388608);
    // one leaf: node links only
    EXPECT_DOUBLE_EQ(*link_bound_seconds("bcast", 1048576, 4, 12.5e6, 2, 1, 1.0), 0.08388608);
    EXPECT_FALSE(link_bound_seconds("barrier", 0, 4, 12.5e6, 2, 2, 1e6));
    EXPECT_THROW(link_bound_seconds("bcast", 8, 5, 12.5e6, 1, 2, 1e6), std::invalid_argument);
}

TEST(Compare, RatiosToTheFirstConfigurationAndToTheBound) {
    // stock 0.2 s, hier 0.1 s, binomial 0.3 s for a 1 MiB bcast on 4 nodes at 12.5e6 B/s
    std::vector<PointResult> group{point("bcast", 1048576, "default", 0.2), point("bcast", 1048576, "hier", 0.1),
                                   point("bcast", 1048576, "binomial", 0.3)};
    compare_configurations(group, 12.5e6, 4);
    EXPECT_DOUBLE_EQ(*group[0].ratio_to_first, 1.0);
    EXPECT_DOUBLE_EQ(*group[1].ratio_to_first, 0.5);
    EXPECT_DOUBLE_EQ(*group[2].ratio_to_first, 1.5);
    for (const PointResult& result : group) EXPECT_DOUBLE_EQ(*result.link_bound, 0.08388608);

    std::vector<PointResult> alone{group[1]};
    compare_configurations(alone, std::nullopt, 4);
    EXPECT_FALSE(alone[0].ratio_to_first);  // nothing to compare with
    EXPECT_FALSE(alone[0].link_bound);      // no rate

    // alltoall's and alltoallv's bound on the job's ranks: 7 on 3 nodes of at most 3,
    // 1.25 MB blocks: 3 x 4 blocks out of the fullest node at 12.5e6 B/s
    std::vector<PointResult> alltoall{point("alltoall", 1250000, "default", 2.0),
                                      point("alltoallv", 1250000, "default", 2.0)};
    compare_configurations(alltoall, 12.5e6, 3, 3, 7);
    EXPECT_DOUBLE_EQ(*alltoall[0].link_bound, 1.2);
    EXPECT_DOUBLE_EQ(*alltoall[1].link_bound, 1.2);
}

TEST(Compare, OutputColumns) {
    std::vector<PointResult> group{point("bcast", 1048576, "default", 0.2), point("bcast", 1048576, "hier", 0.1)};
    compare_configurations(group, 12.5e6, 4);
    const ReportColumns both{true, true};
    // 100000 us; ratio to first 0.5; bound 83886.08 us; 0.1 / 0.08388608 = 1.1920929
    EXPECT_EQ(osu_column_header(false, both),
              "# Size       Avg Latency(us)    Ratio to first    Link bound(us)    Ratio to bound");
    EXPECT_EQ(osu_row(group[1], false, both),
              "1048576            100000.00             0.500          83886.08             1.192");
    EXPECT_EQ(csv_header(false, both).substr(csv_header(false).size()), ",ratio_to_first,link_bound_us,ratio_to_bound");
    const std::string row = csv_row(group[1], false, both);
    EXPECT_EQ(row.substr(row.size() - 22), ",0.500,83886.080,1.192") << row;
    const nlohmann::ordered_json json = point_json(group[1], nullptr);
    EXPECT_DOUBLE_EQ(json["ratio_to_first"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(json["link_bound_us"].get<double>(), 83886.08);
    EXPECT_NEAR(json["ratio_to_bound"].get<double>(), 1.1920929, 1e-7);

    // a point without the values: "-" in OSU, empty in CSV, absent in JSON
    const PointResult bare = point("bcast", 8, "default", 10e-6);
    EXPECT_EQ(osu_row(bare, false, ReportColumns{true, false}), "8                      10.00                 -");
    EXPECT_EQ(csv_row(bare, false, both).substr(csv_row(bare, false).size()), ",,,");
    EXPECT_FALSE(point_json(bare, nullptr).contains("ratio_to_first"));
}

}  // namespace
}  // namespace hiertune
