// hier's plan against MPICH's algorithms (lib/critical_path, over hier_critical_path.c).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "hiertune/models/critical_path.hpp"

namespace hiertune {
namespace {

// The messages on the critical path of hier's plan and of MPICH's best.
struct ExpectedCounts {
    std::string hier_plan;
    int hier_inter;
    int hier_intra;
    std::string mpich_best;
    int mpich_inter;
};

void expect_counts(const CriticalPathRow& row, const ExpectedCounts& expected) {
    EXPECT_EQ(row.hier_plan, expected.hier_plan);
    EXPECT_EQ(row.hier_inter, expected.hier_inter);
    EXPECT_EQ(row.hier_intra, expected.hier_intra);
    EXPECT_EQ(row.mpich_best, expected.mpich_best);
    EXPECT_EQ(row.mpich_inter, expected.mpich_inter);
}

TEST(CriticalPath, AllreduceOnFourNodesOfEight) {
    // hier: shm reduce, recursive doubling among 4 leaders (2 messages), shm bcast; the
    // best of MPICH's: its composition, the same leaders' exchange with a shm step each way
    const CriticalPathRow row = critical_path_row("allreduce", 4, 8, "block", 8);
    expect_counts(row, {"shm > recursive_doubling(4) > shm", 2, 2, "composition_alpha", 2});
    EXPECT_EQ(row.mpich_intra, 2);
    EXPECT_TRUE(row.hier_no_worse());
}

TEST(CriticalPath, BcastOnFourNodesOfOne) {
    // one rank per node: no intra-node step; the binomial tree's 2 messages either way
    const CriticalPathRow row = critical_path_row("bcast", 4, 1, "cyclic", 1024);
    expect_counts(row, {"binomial(4)", 2, 0, "binomial", 2});
}

TEST(CriticalPath, AlltoallOnFourNodesOfTwo) {
    // hier: each node's rows onto its leader (binomial, one message), Bruck's among the 4
    // leaders (2 rounds), the rows back; MPICH's best: Bruck's among all 8 ranks (3 rounds)
    const CriticalPathRow row = critical_path_row("alltoall", 4, 2, "block", 8);
    expect_counts(row, {"binomial(2) > brucks(4) > binomial(2)", 2, 2, "brucks", 3});
}

TEST(CriticalPath, TableNestsCollectivesShapesPlacementsAndSizes) {
    CriticalPathQuery query;
    query.collectives = {"barrier", "gather"};
    query.nodes = {2, 3};
    query.ppn = {1, 4};
    query.placements = {"block", "cyclic"};
    query.bytes = {8, 1024};
    const std::vector<CriticalPathRow> rows = critical_path_table(query);
    ASSERT_EQ(rows.size(), 2u * 2 * 2 * 2 * 2);
    EXPECT_EQ(rows.front().collective, "barrier");
    EXPECT_EQ(rows[1].bytes, 1024u);
    EXPECT_EQ(rows[2].placement, "cyclic");
    EXPECT_EQ(rows.back().collective, "gather");
    EXPECT_EQ(rows.back().nodes, 3);
    EXPECT_EQ(rows.back().ppn, 4);
    const std::string text = format_critical_path_table(rows);
    EXPECT_EQ(text.substr(0, text.find('\n')).find("collective"), 0u);
    EXPECT_NE(text.find("shm > dissemination(3) > shm"), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + static_cast<long>(rows.size()));
}

TEST(CriticalPath, RefusesWhatIsNoShape) {
    EXPECT_THROW(critical_path_row("alltoallw", 4, 1, "block", 8), std::invalid_argument);
    EXPECT_THROW(critical_path_row("bcast", 4, 1, "round-robin", 8), std::invalid_argument);
    EXPECT_THROW(critical_path_row("bcast", 0, 1, "block", 8), std::invalid_argument);
    EXPECT_THROW(critical_path_row("bcast", critical_path_max_ranks(), 2, "block", 8), std::invalid_argument);
    EXPECT_EQ(critical_path_collectives().size(), 10u);
    EXPECT_EQ(critical_path_collectives().back(), "scatterv");
}

}  // namespace
}  // namespace hiertune
