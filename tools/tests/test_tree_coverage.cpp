// The coverage file beside a tuned tree: written and read back, and the source of each
// row show-tree prints.
#include <gtest/gtest.h>

#include <fstream>

#include "temp_dir.hpp"

#include "hiertune/common/usage_error.hpp"
#include "hiertune/tree/tree_coverage.hpp"

namespace hiertune {
namespace {

TreeCoverage sample() {
    TreeCoverage coverage{"abc", {}};
    coverage.positions.push_back(CoveragePosition{8, 2, "4x2", false,
                                                  {{"bcast", 1024, 2048, "stock", "stock"},
                                                   {"bcast", 4096, 65536, "model", "segsize=65536"},
                                                   {"bcast", 131072, 1048576, "put back", "stock"},
                                                   {"gather", 8192, 131072, "measured", "inter_algo=linear"}}});
    coverage.positions.push_back(CoveragePosition{16, 1, "16x1", true,
                                                  {{"bcast", 16384, 65536, "stock", "stock"},
                                                   {"bcast", 1048576, 1048576, "predicted", "seg_pipeline"}}});
    return coverage;
}

csel::TableRow row(const std::string& collective, const std::string& hierarchy, int size, int ppn,
                   std::uint64_t min_bytes, std::uint64_t max_bytes) {
    csel::TableRow r;
    r.collective = collective;
    r.comm_size = size;
    r.ppn = ppn;
    r.min_bytes = min_bytes;
    r.max_bytes = max_bytes;
    r.selection.kind = csel::Selection::Kind::container;
    r.selection.path = {"collective=" + collective, "comm_type=intra", "comm_hierarchy=" + hierarchy,
                        "comm_size<=" + std::to_string(size), "comm_avg_ppn<=" + std::to_string(ppn)};
    return r;
}

TEST(TreeCoverage, EachRowTakesTheSourcesOfTheTunedSizesInIt) {
    const TreeCoverage coverage = sample();
    EXPECT_EQ(row_source(coverage, row("bcast", "parent", 8, 2, 0, 511)), "stock (below the sizes tuned)");
    EXPECT_EQ(row_source(coverage, row("bcast", "parent", 8, 2, 1024, 3000)), "stock");
    EXPECT_EQ(row_source(coverage, row("bcast", "parent", 8, 2, 3001, 3500)), "stock");  // between: the one below
    EXPECT_EQ(row_source(coverage, row("bcast", "parent", 8, 2, 3501, 200000)), "model+put back");
    EXPECT_EQ(row_source(coverage, row("bcast", "parent", 8, 2, 2000000, 16777216)), "put back");  // above: the last
    EXPECT_EQ(row_source(coverage, row("gather", "parent", 8, 2, 0, 16777216)), "measured");
    EXPECT_EQ(row_source(coverage, row("reduce", "parent", 8, 2, 0, 100)), "stock (not tuned)");
    EXPECT_EQ(row_source(coverage, row("bcast", "any", 16, 1, 600000, 16777216)), "predicted");
    EXPECT_EQ(row_source(coverage, row("bcast", "any", 4, 1, 600000, 16777216)), "stock (not tuned)");
    csel::TableRow stock = row("bcast", "parent", 8, 2, 4096, 8192);
    stock.selection.path = {"collective=bcast", "comm_type=intra", "comm_size<=8", "comm_avg_ppn<=2"};
    EXPECT_EQ(row_source(coverage, stock), "model");  // not a tuned branch's keys, but its shape
    stock.comm_size = 7;
    EXPECT_EQ(row_source(coverage, stock), "stock (not tuned)");
}

TEST(TreeCoverage, MpichsOwnSelectionIsWhereTheSourceIsStock) {
    EXPECT_TRUE(is_stock_source("stock"));
    EXPECT_TRUE(is_stock_source("put back"));
    EXPECT_TRUE(is_stock_source("stock (not tuned)"));
    EXPECT_TRUE(is_stock_source("stock (below the sizes tuned)"));
    EXPECT_FALSE(is_stock_source("model"));
    EXPECT_FALSE(is_stock_source("measured"));
    EXPECT_FALSE(is_stock_source("predicted"));
    EXPECT_FALSE(is_stock_source("model+put back"));  // a row over several sizes: not one size's
}

TEST(TreeCoverage, SourceAtOneSizeOfTheWalk) {
    const csel::Json tree = csel::Json::parse(R"({"collective=bcast": {"comm_type=intra": {"comm_hierarchy=parent": {
        "comm_size<=8": {"comm_avg_ppn<=2": {"avg_msg_size<=2048": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                             "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_pipelined_tree": {}}},
                         "comm_avg_ppn=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
        "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}})");
    const TreeCoverage coverage = sample();
    EXPECT_EQ(source_at(tree, coverage, "bcast", 8, 2, 512), "stock (below the sizes tuned)");
    EXPECT_EQ(source_at(tree, coverage, "bcast", 8, 2, 2048), "stock");
    EXPECT_EQ(source_at(tree, coverage, "bcast", 8, 2, 65536), "model");  // its row holds 2049.. up
    EXPECT_EQ(source_at(tree, coverage, "bcast", 8, 2, 4194304), "put back");  // above the last: the last
    EXPECT_EQ(source_at(tree, coverage, "bcast", 8, 4, 65536), "stock (not tuned)");  // the ppn tuned is 2
    EXPECT_EQ(source_at(tree, coverage, "bcast", 16, 1, 1048576), "predicted");
}

class TreeCoverageFile : public test::TempDirTest {};

TEST_F(TreeCoverageFile, WrittenAndReadBack) {
    const std::filesystem::path path = coverage_path(dir_ / "tree.json");
    EXPECT_EQ(path.filename(), "tree.json.coverage");
    EXPECT_FALSE(load_coverage(path));
    save_coverage(sample(), path);
    const std::optional<TreeCoverage> back = load_coverage(path);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->tree_digest, "abc");
    ASSERT_EQ(back->positions.size(), 2u);
    EXPECT_TRUE(back->positions[1].predicted);
    EXPECT_EQ(back->positions[1].shape, "16x1");
    ASSERT_EQ(back->positions[0].ranges.size(), 4u);
    EXPECT_EQ(back->positions[0].ranges[1].source, "model");
    EXPECT_EQ(back->positions[0].ranges[1].last_bytes, 65536u);
    std::ofstream(path) << "{\"tree_digest\": 1}";
    EXPECT_THROW(load_coverage(path), UsageError);
}

}  // namespace
}  // namespace hiertune
