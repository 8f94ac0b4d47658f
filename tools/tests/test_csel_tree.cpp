// Csel JSON tree generation: midpoints, merging, completeness, key validity, =any terminators.
#include <gtest/gtest.h>

#include "mpich_trees.hpp"

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune::csel {
namespace {

const Choice kStock = Choice::stock_tree();

using test::hier_bcast;
using test::small_stock;

std::vector<std::pair<std::uint64_t, Choice>> samples(std::initializer_list<std::pair<std::uint64_t, Choice>> list) {
    return list;
}

TEST(CselTree, MpichsCh4TreeLiesBesideItsMpirTree) {
    EXPECT_EQ(ch4_generic_beside("/m/maint/tuning/coll/mpir/generic.json"), "/m/maint/tuning/coll/ch4/generic.json");
    EXPECT_EQ(ch4_generic_beside(""), "");
}

TEST(CselRules, MidpointBetweenSampledSizes) {
    std::vector<std::uint64_t> wanted;
    const auto rules = compact_rules(samples({{1024, kStock}, {4096, kStock}, {16384, hier_bcast("8192")},
                                              {65536, hier_bcast("8192")}}),
                                     {}, &wanted);
    ASSERT_EQ(rules.size(), 2u);
    EXPECT_EQ(rules[0].upper, std::optional<std::uint64_t>(10240));  // (4096 + 16384) / 2
    EXPECT_EQ(rules[0].choice, kStock);
    EXPECT_FALSE(rules[1].upper);
    EXPECT_EQ(rules[1].choice, hier_bcast("8192"));
    EXPECT_EQ(wanted, std::vector<std::uint64_t>{10240});
}

TEST(CselRules, AdjacentSizesNeedNoMidpoint) {
    std::vector<std::uint64_t> wanted;
    const auto rules = compact_rules(samples({{7, kStock}, {8, hier_bcast("4096")}}), {}, &wanted);
    ASSERT_EQ(rules.size(), 2u);
    EXPECT_EQ(*rules[0].upper, 7u);
    EXPECT_TRUE(wanted.empty());
}

TEST(CselRules, EqualNeighboursMerge) {
    const auto rules = compact_rules(samples({{1, hier_bcast("4096")}, {2, hier_bcast("4096")}, {4, hier_bcast("4096")},
                                              {8, kStock}, {16, kStock}, {32, hier_bcast("65536")}}),
                                     {}, nullptr);
    ASSERT_EQ(rules.size(), 3u);
    EXPECT_EQ(*rules[0].upper, 6u);
    EXPECT_EQ(*rules[1].upper, 24u);
    EXPECT_FALSE(rules[2].upper);
    EXPECT_EQ(rules[2].choice, hier_bcast("65536"));
    // one choice everywhere: a single =any rule
    const auto one = compact_rules(samples({{1, kStock}, {1024, kStock}}), {}, nullptr);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_FALSE(one[0].upper);
}

TEST(CselRules, RequeryAtMidpointGivesThreeRulesThenMerges) {
    // ACCLAiM: <=A: ALG-A, <C: ALG-B, then ALG-C
    std::vector<std::uint64_t> asked, wanted;
    const auto rules = compact_rules(samples({{1000, kStock}, {2000, hier_bcast("1024")}}),
                                     [&](std::uint64_t bytes) -> std::optional<Choice> {
                                         asked.push_back(bytes);
                                         return hier_bcast("512");
                                     },
                                     &wanted);
    EXPECT_EQ(asked, std::vector<std::uint64_t>{1500});
    EXPECT_TRUE(wanted.empty());
    ASSERT_EQ(rules.size(), 3u);
    EXPECT_EQ(*rules[0].upper, 1000u);
    EXPECT_EQ(*rules[1].upper, 1999u);
    EXPECT_EQ(rules[1].choice, hier_bcast("512"));
    // ALG-B = ALG-C: the last two merge
    const auto merged = compact_rules(samples({{1000, kStock}, {2000, hier_bcast("1024")}}),
                                      [](std::uint64_t) -> std::optional<Choice> { return hier_bcast("1024"); }, nullptr);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(*merged[0].upper, 1000u);
    // no answer: the midpoint rule
    const auto guessed = compact_rules(samples({{1000, kStock}, {2000, hier_bcast("1024")}}),
                                       [](std::uint64_t) -> std::optional<Choice> { return std::nullopt; }, nullptr);
    EXPECT_EQ(*guessed[0].upper, 1500u);
}

TEST(CselRules, BadInputThrows) {
    EXPECT_THROW(compact_rules({}, {}, nullptr), std::invalid_argument);
    EXPECT_THROW(compact_rules(samples({{8, kStock}, {4, kStock}}), {}, nullptr), std::invalid_argument);
    EXPECT_THROW(compact_rules(samples({{8, kStock}, {8, kStock}}), {}, nullptr), std::invalid_argument);
}

TEST(CselTree, ContainerNames) {
    EXPECT_EQ(container_name("bcast", "hier"), "MPIR_Bcast_intra_hier");
    EXPECT_EQ(container_name("allreduce", "recursive_doubling"), "MPIR_Allreduce_intra_recursive_doubling");
}

TEST(CselTree, InsertsParentBranchInFrontOfStock) {
    const Json stock = small_stock();
    const TreeResult result = build_tree(stock, test::tuned_bcast_input());
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty());
    const Json& intra = result.tree["collective=bcast"]["comm_type=intra"];
    ASSERT_EQ(intra.size(), 2u);
    EXPECT_EQ(intra.begin().key(), "comm_hierarchy=parent");  // file order is the if/else-if order
    // the stock subtree with its comm_size<8 as comm_size<=7: MPICH searches "<" as "<="
    // below other keys, and "<=7" reads the same pruned or searched
    const Json stock_intra = Json::parse(R"({
          "comm_size<=7": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
          "comm_size=any": {
            "avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
            "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}})");
    EXPECT_EQ(intra["comm_hierarchy=any"], stock_intra);
    // keyed on what was tuned: stock below 8 ranks and above 16; 8 and 16 differ (8 with
    // ppn 4 stays stock): midpoint 12
    const Json& parent = intra["comm_hierarchy=parent"];
    std::vector<std::string> keys;
    for (const auto& item : parent.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"comm_size<=7", "comm_size<=12", "comm_size<=16", "comm_size=any"}));
    EXPECT_EQ(parent["comm_size<=7"], stock_intra);
    EXPECT_EQ(parent["comm_size=any"], stock_intra);
    // 8 ranks: stock below ppn 2 and above 4, ppn 2 and 4 differ: midpoint 3
    const Json& small = parent["comm_size<=12"];
    keys.clear();
    for (const auto& item : small.items()) keys.push_back(item.key());
    // the ppn chain ends with 5.0.1's ANY operator on its own name
    EXPECT_EQ(keys, (std::vector<std::string>{"comm_avg_ppn<=1", "comm_avg_ppn<=3", "comm_avg_ppn<=4", "comm_avg_ppn=any"}));
    EXPECT_EQ(small["comm_avg_ppn<=4"], (Json{{"avg_msg_size=any", stock_intra}}));
    EXPECT_EQ(small["comm_avg_ppn=any"], stock_intra);
    // 16 ranks: ppn 2 and 4 agree, one rule for both
    const Json& sixteen = parent["comm_size<=16"];
    ASSERT_EQ(sixteen.size(), 3u);
    EXPECT_EQ(sixteen["comm_avg_ppn<=1"], stock_intra);
    EXPECT_EQ(sixteen["comm_avg_ppn=any"], stock_intra);
    const Json& big = sixteen["comm_avg_ppn<=4"];
    ASSERT_EQ(big.size(), 3u);
    EXPECT_TRUE(big.contains("avg_msg_size<=34816"));   // (4096 + 65536) / 2
    EXPECT_TRUE(big.contains("avg_msg_size<=557056"));  // (65536 + 1048576) / 2
    EXPECT_EQ(big["avg_msg_size=any"],
              (Json{{"algorithm=MPIR_Bcast_intra_hier", {{"inter_algo=tsp_kary", Json::object()},
                                                          {"segsize=131072", Json::object()}}}}));
    // untouched collectives are byte-identical
    EXPECT_EQ(result.tree["collective=allreduce"], stock["collective=allreduce"]);
    EXPECT_EQ(result.tree["collective=barrier"], stock["collective=barrier"]);
    EXPECT_EQ(collectives_of(result.tree), collectives_of(stock));
    // the midpoints guessed at: two changes for each (comm size, ppn) but (8, 4)
    ASSERT_EQ(result.wanted.size(), 6u);
    EXPECT_EQ(result.wanted[0].collective, "bcast");
    EXPECT_EQ(result.wanted[0].comm_size, 8);
    EXPECT_EQ(result.wanted[0].ppn, 2);
    EXPECT_EQ(result.wanted[0].msg_bytes, 34816u);
}

// A tree changes no size below the smallest one sampled: a pick there would
// stretch down into latency-bound sizes nobody measured.
TEST(CselTree, SizesBelowTheSmallestSampledKeepStock) {
    TreeInput input;
    input.choices["bcast"] = {{8, 2, 1024, hier_bcast("16384")}, {8, 2, 65536, hier_bcast("131072")}};
    const Json stock = small_stock();
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty());
    const Json& sizes = result.tree["collective=bcast"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                                   ["comm_avg_ppn<=2"];
    std::vector<std::string> keys;
    for (const auto& item : sizes.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"avg_msg_size<=1023", "avg_msg_size<=33280", "avg_msg_size=any"}));
    EXPECT_EQ(sizes["avg_msg_size<=1023"], strict_comm_size(stock["collective=bcast"]["comm_type=intra"]));
    EXPECT_EQ(result.message_rules, 3u);

    input.choices["bcast"] = {{8, 2, 1024, kStock}, {8, 2, 65536, hier_bcast("131072")}};  // stock there already
    EXPECT_EQ(build_tree(stock, input).message_rules, 2u);
    input.choices["bcast"] = {{8, 2, 0, hier_bcast("16384")}, {8, 2, 65536, hier_bcast("131072")}};  // 0 sampled
    EXPECT_EQ(build_tree(stock, input).message_rules, 2u);
}

TEST(CselTree, AllStockLeavesTheCollectiveAlone) {
    TreeInput input;
    input.choices["allreduce"] = {{8, 2, 8, kStock}, {8, 2, 1024, kStock}};
    const TreeResult result = build_tree(small_stock(), input);
    EXPECT_EQ(result.tree, small_stock());
    EXPECT_EQ(result.unchanged, std::vector<std::string>{"allreduce"});
}

TEST(CselTree, BadInputIsRefused) {
    TreeInput input;
    input.choices["reduce"] = {{8, 2, 8, hier_bcast("1024")}};
    EXPECT_THROW(build_tree(small_stock(), input), TreeError);  // no reduce in this stock tree
    input.choices.clear();
    input.choices["bcast"] = {{8, 2, 8, hier_bcast("1024")}, {8, 2, 8, kStock}};
    EXPECT_THROW(build_tree(small_stock(), input), std::invalid_argument);
    input.choices["bcast"] = {{8, 2, 8, kStock}, {8, 2, 1ull << 33, hier_bcast("1024")}};
    EXPECT_THROW(build_tree(small_stock(), input), std::invalid_argument);  // midpoint beyond int
}

// Barrier (no size), gather and scatter (MPICH's total_msg_size is a count, and the
// root's under MPI_IN_PLACE is not significant) get one choice per comm size and ppn,
// with no message-size key; two choices for one shape are refused.
TEST(CselTree, SizelessCollectivesGetOneChoicePerShape) {
    EXPECT_EQ(message_size_key("bcast")->name, "avg_msg_size");
    EXPECT_FALSE(message_size_key("bcast")->per_rank);
    EXPECT_EQ(message_size_key("allgather")->name, "total_msg_size");
    EXPECT_TRUE(message_size_key("allgather")->per_rank);
    for (const char* collective : {"gather", "scatter", "barrier"}) EXPECT_FALSE(message_size_key(collective));

    const Choice hier = Choice::container("MPIR_Barrier_intra_hier", {{"inter_algo", "dissemination"}});
    TreeInput input;
    input.choices["barrier"] = {{8, 2, 0, hier}};
    const Json stock = small_stock();
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty());
    const Json& stock_intra = stock["collective=barrier"]["comm_type=intra"];
    const Json leaf{{"algorithm=MPIR_Barrier_intra_hier", {{"inter_algo=dissemination", Json::object()}}}};
    EXPECT_EQ(result.tree["collective=barrier"]["comm_type=intra"]["comm_hierarchy=parent"],
              (Json{{"comm_size<=7", stock_intra},
                    {"comm_size<=8",
                     {{"comm_avg_ppn<=1", stock_intra}, {"comm_avg_ppn<=2", leaf}, {"comm_avg_ppn=any", stock_intra}}},
                    {"comm_size=any", stock_intra}}));
    EXPECT_EQ(result.message_rules, 0u);

    input.choices["barrier"] = {{8, 2, 0, hier}, {8, 2, 1024, kStock}};  // sizes that choose differently
    EXPECT_THROW(build_tree(small_stock(), input), std::invalid_argument);
    input.choices["barrier"] = {{8, 2, 0, hier}, {8, 2, 1024, hier}};  // the same choice at every size
    EXPECT_NO_THROW(build_tree(small_stock(), input));
}

// A non-blocking form's leaf: CH4 hands it to the MPIR level whole, so MPICH's algorithm
// needs no whole_comm=1 there (the plugin's route never sees it), and the plugin's
// schedule takes no parameters.
TEST(CselTree, NonBlockingLeavesNeedNoRoute) {
    EXPECT_TRUE(device_composes("bcast"));
    EXPECT_FALSE(device_composes("ibarrier"));
    Json stock = small_stock();
    stock["collective=ibarrier"] = Json::parse(R"({
        "comm_type=intra": {"algorithm=MPIR_Ibarrier_intra_sched_recursive_doubling": {}},
        "comm_type=inter": {"algorithm=MPIR_Ibarrier_inter_sched_bcast": {}}})");
    TreeInput input;
    input.choices["ibarrier"] = {{8, 2, 0, Choice::container("MPIR_Ibarrier_intra_sched_recursive_doubling")}};
    input.choices["barrier"] = {{8, 2, 0, Choice::container("MPIR_Barrier_intra_k_dissemination", {{"k", "2"}})}};
    const auto tuned = [](const Json& tree, const std::string& collective) {
        return tree["collective=" + collective]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                   ["comm_avg_ppn<=2"];
    };
    const Json tree = build_tree(stock, input).tree;
    EXPECT_TRUE(check_tree(tree).empty()) << check_tree(tree).front();
    EXPECT_EQ(tuned(tree, "ibarrier"), Json::parse(R"({"algorithm=MPIR_Ibarrier_intra_sched_recursive_doubling": {}})"));
    EXPECT_EQ(tuned(tree, "barrier"),
              Json::parse(R"({"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}, "whole_comm=1": {}}})"));
    input.choices["ibarrier"] = {{8, 2, 0, Choice::container("MPIR_Ibarrier_intra_tsp_hier")}};
    EXPECT_EQ(tuned(build_tree(stock, input).tree, "ibarrier"),
              Json::parse(R"({"algorithm=MPIR_Ibarrier_intra_tsp_hier": {}})"));
}

// MPICH 5.0.1's exscan, iexscan and iscan test no comm_type (MPI defines them on
// intra-communicators only): the whole stock collective is the intra subtree, and the tuned
// collective gets both comm_type keys, the stock as it was under comm_type=inter.  scan,
// exscan and their schedules have no size key in csel.c: one choice per shape.
TEST(CselTree, ScanStockWithoutCommTypeIsItsIntraSubtree) {
    Json stock = small_stock();
    const Json exscan = Json::parse(R"({"algorithm=MPIR_Exscan_intra_recursive_doubling": {}})");
    const Json iscan = Json::parse(R"({"comm_hierarchy=parent": {"algorithm=MPIR_Iscan_intra_sched_smp": {}},
        "comm_hierarchy=any": {"algorithm=MPIR_Iscan_intra_sched_recursive_doubling": {}}})");
    stock["collective=exscan"] = exscan;
    stock["collective=iscan"] = iscan;
    EXPECT_EQ(stock_intra_subtree(stock["collective=exscan"]), &stock["collective=exscan"]);
    EXPECT_EQ(stock_intra_subtree(stock["collective=bcast"]), &stock["collective=bcast"]["comm_type=intra"]);
    EXPECT_EQ(stock_intra_subtree(Json::parse(R"({"comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}})")),
              nullptr);
    EXPECT_EQ(stock_intra_subtree(Json("not a tree")), nullptr);
    for (const char* collective : {"scan", "exscan", "iscan", "iexscan"}) EXPECT_FALSE(message_size_key(collective));

    TreeInput input;
    const Choice hier = Choice::container("MPIR_Exscan_intra_hier", {{"inter_algo", "recursive_doubling"}});
    input.choices["exscan"] = {{8, 2, 1024, hier}, {8, 2, 65536, hier}};
    input.choices["iscan"] = {{8, 2, 1024, Choice::container("MPIR_Iscan_intra_tsp_hier")}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    const Json& node = result.tree["collective=exscan"];
    ASSERT_EQ(node.size(), 2u);
    EXPECT_EQ(node.begin().key(), "comm_type=intra");
    EXPECT_EQ(node["comm_type=inter"], exscan);
    const Json leaf{{"algorithm=MPIR_Exscan_intra_hier", {{"inter_algo=recursive_doubling", Json::object()}}}};
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=parent"],
              (Json{{"comm_size<=7", exscan},
                    {"comm_size<=8", {{"comm_avg_ppn<=1", exscan}, {"comm_avg_ppn<=2", leaf}, {"comm_avg_ppn=any", exscan}}},
                    {"comm_size=any", exscan}}));
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=any"], exscan);
    EXPECT_EQ(result.tree["collective=iscan"]["comm_type=inter"], iscan);
    EXPECT_EQ(result.tree["collective=iscan"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"algorithm=MPIR_Iscan_intra_tsp_hier", Json::object()}}));
    EXPECT_EQ(result.message_rules, 0u);

    input.choices["exscan"] = {{8, 2, 1024, hier}, {8, 2, 65536, kStock}};  // by size: MPICH cannot
    EXPECT_THROW(build_tree(stock, input), std::invalid_argument);
    stock["collective=exscan"] = Json::parse(R"({"comm_type=inter": {"algorithm=MPIR_Exscan_intra_recursive_doubling": {}}})");
    input.choices["exscan"] = {{8, 2, 1024, hier}};
    EXPECT_THROW(build_tree(stock, input), TreeError);  // comm_type keys but no intra one
}

// MPI_Reduce_scatter(_block) and MPI_Ireduce_scatter: csel.c's total_msg_size is the
// vector's bytes (the block per rank times the comm size), so the tuned branch selects by
// it; MPI_Ireduce_scatter_block's is a count (the type size dropped): one choice per shape.
// MPICH's own algorithms go behind the op they need (pairwise: is_commutative=yes).
TEST(CselTree, ReduceScattersSelectByTheVectorsBytes) {
    for (const char* collective : {"reduce_scatter", "ireduce_scatter", "reduce_scatter_block"}) {
        ASSERT_TRUE(message_size_key(collective)) << collective;
        EXPECT_EQ(message_size_key(collective)->name, "total_msg_size");
        EXPECT_TRUE(message_size_key(collective)->per_rank);
    }
    EXPECT_FALSE(message_size_key("ireduce_scatter_block"));
    EXPECT_TRUE(device_composes("reduce_scatter"));
    EXPECT_FALSE(device_composes("ireduce_scatter"));

    Json stock = small_stock();
    const Json intra = Json::parse(R"({
        "is_commutative=yes": {"total_msg_size<524288": {"algorithm=MPIR_Reduce_scatter_intra_recursive_halving": {}},
                               "total_msg_size=any": {"algorithm=MPIR_Reduce_scatter_intra_pairwise": {}}},
        "is_commutative=no": {"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {}}})");
    stock["collective=reduce_scatter"] = {{"comm_type=intra", intra},
        {"comm_type=inter", {{"algorithm=MPIR_Reduce_scatter_inter_remote_reduce_local_scatter", Json::object()}}}};
    TreeInput input;
    const Choice hier = Choice::container("MPIR_Reduce_scatter_intra_hier", {{"inter_algo", "linear"}});
    const Choice pairwise = Choice::container("MPIR_Reduce_scatter_intra_pairwise");
    input.choices["reduce_scatter"] = {{8, 2, 1024, kStock}, {8, 2, 4096, hier}, {8, 2, 65536, pairwise}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    const Json& node = result.tree["collective=reduce_scatter"];
    EXPECT_EQ(node["comm_type=inter"], stock["collective=reduce_scatter"]["comm_type=inter"]);
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=any"], intra);
    // bounds on 8 ranks' vectors: the midpoints of the blocks (2560, 34816) times 8
    const Json pairwise_leaf{{"is_commutative=yes",
                              {{"algorithm=MPIR_Reduce_scatter_intra_pairwise", {{"whole_comm=1", Json::object()}}}}},
                             {"is_commutative=no", intra}};
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=20480", intra},
                    {"total_msg_size<=278528",
                     {{"algorithm=MPIR_Reduce_scatter_intra_hier", {{"inter_algo=linear", Json::object()}}}}},
                    {"total_msg_size=any", pairwise_leaf}}));

    input.choices.clear();
    stock["collective=ireduce_scatter_block"] = Json::parse(R"({
        "comm_type=intra": {"algorithm=MPIR_Ireduce_scatter_block_intra_sched_pairwise": {}},
        "comm_type=inter": {"algorithm=MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv": {}}})");
    const Choice schedule = Choice::container("MPIR_Ireduce_scatter_block_intra_tsp_hier");
    input.choices["ireduce_scatter_block"] = {{8, 2, 1024, schedule}, {8, 2, 65536, schedule}};
    const Json tuned = build_tree(stock, input).tree;
    EXPECT_EQ(tuned["collective=ireduce_scatter_block"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                   ["comm_avg_ppn<=2"],
              (Json{{"algorithm=MPIR_Ireduce_scatter_block_intra_tsp_hier", Json::object()}}));
    input.choices["ireduce_scatter_block"] = {{8, 2, 1024, schedule}, {8, 2, 65536, kStock}};  // by size: MPICH cannot
    EXPECT_THROW(build_tree(stock, input), std::invalid_argument);
}

// MPI_Allgatherv and MPI_Iallgatherv: csel.c's total_msg_size is the type size times the
// sum of the recvcounts, bench's equal blocks times the comm size, so the tuned branch
// selects both by it (per rank x the comm size, as allgather's); MPICH's algorithm gets
// whole_comm=1 in the blocking form only.
TEST(CselTree, AllgathervSelectsByTheBlocksTotalBytes) {
    for (const char* collective : {"allgatherv", "iallgatherv"}) {
        ASSERT_TRUE(message_size_key(collective)) << collective;
        EXPECT_EQ(message_size_key(collective)->name, "total_msg_size");
        EXPECT_TRUE(message_size_key(collective)->per_rank);
    }
    EXPECT_TRUE(device_composes("allgatherv"));
    EXPECT_FALSE(device_composes("iallgatherv"));

    Json stock = small_stock();
    const Json intra = Json::parse(R"({
        "comm_size=pow2": {"total_msg_size<524288": {"algorithm=MPIR_Allgatherv_intra_recursive_doubling": {}},
                           "total_msg_size=any": {"algorithm=MPIR_Allgatherv_intra_ring": {}}},
        "comm_size=any": {"total_msg_size<81920": {"algorithm=MPIR_Allgatherv_intra_brucks": {}},
                          "total_msg_size=any": {"algorithm=MPIR_Allgatherv_intra_ring": {}}}})");
    const Json inter{{"algorithm=MPIR_Allgatherv_inter_remote_gather_local_bcast", Json::object()}};
    stock["collective=allgatherv"] = {{"comm_type=intra", intra}, {"comm_type=inter", inter}};
    const Json iintra = Json::parse(R"({"algorithm=MPIR_Iallgatherv_intra_sched_brucks": {}})");
    stock["collective=iallgatherv"] = {
        {"comm_type=intra", iintra},
        {"comm_type=inter", {{"algorithm=MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast", Json::object()}}}};
    TreeInput input;
    const Choice hier = Choice::container("MPIR_Allgatherv_intra_hier", {{"inter_algo", "linear"}});
    input.choices["allgatherv"] = {
        {8, 2, 1024, kStock}, {8, 2, 4096, hier}, {8, 2, 65536, Choice::container("MPIR_Allgatherv_intra_ring")}};
    input.choices["iallgatherv"] = {{8, 2, 1024, Choice::container("MPIR_Iallgatherv_intra_tsp_hier")},
                                    {8, 2, 65536, Choice::container("MPIR_Iallgatherv_intra_sched_ring")}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    const Json& node = result.tree["collective=allgatherv"];
    EXPECT_EQ(node["comm_type=inter"], inter);
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=any"], intra);
    // bounds on 8 ranks: the midpoints of the blocks (2560, 34816) times 8
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=20480", intra},
                    {"total_msg_size<=278528",
                     {{"algorithm=MPIR_Allgatherv_intra_hier", {{"inter_algo=linear", Json::object()}}}}},
                    {"total_msg_size=any",
                     {{"algorithm=MPIR_Allgatherv_intra_ring", {{"whole_comm=1", Json::object()}}}}}}));
    // MPICH's selection below the smallest block (1 KiB x 8), the schedule's midpoint 33280 B
    // per rank times 8; MPICH's schedule without whole_comm
    EXPECT_EQ(result.tree["collective=iallgatherv"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                         ["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=8191", iintra},
                    {"total_msg_size<=266240", {{"algorithm=MPIR_Iallgatherv_intra_tsp_hier", Json::object()}}},
                    {"total_msg_size=any", {{"algorithm=MPIR_Iallgatherv_intra_sched_ring", Json::object()}}}}));
    EXPECT_EQ(result.tree["collective=iallgatherv"]["comm_type=intra"]["comm_hierarchy=any"], iintra);
}

// MPI_Alltoall and MPI_Ialltoall: csel.c's avg_msg_size is sendcount * type size, the
// block each rank sends each rank, bench's size itself (not per rank times the comm size),
// so the tuned branch selects both by it; MPICH's own algorithms go behind the
// is_sendbuf_inplace they need, with whole_comm=1 in the blocking form only.
TEST(CselTree, AlltoallSelectsByTheBlockPerPair) {
    for (const char* collective : {"alltoall", "ialltoall"}) {
        ASSERT_TRUE(message_size_key(collective)) << collective;
        EXPECT_EQ(message_size_key(collective)->name, "avg_msg_size");
        EXPECT_FALSE(message_size_key(collective)->per_rank);
    }
    EXPECT_TRUE(device_composes("alltoall"));
    EXPECT_FALSE(device_composes("ialltoall"));

    Json stock = small_stock();
    const Json intra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
        "is_sendbuf_inplace=no": {"avg_msg_size<=256": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
                                  "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}})");
    const Json inter{{"algorithm=MPIR_Alltoall_inter_pairwise_exchange", Json::object()}};
    stock["collective=alltoall"] = {{"comm_type=intra", intra}, {"comm_type=inter", inter}};
    // MPICH's schedules need is_sendbuf_inplace as its blocking algorithms do
    const Json iintra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Ialltoall_intra_sched_inplace": {}},
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Ialltoall_intra_sched_brucks": {}}})");
    stock["collective=ialltoall"] = {
        {"comm_type=intra", iintra},
        {"comm_type=inter", {{"algorithm=MPIR_Ialltoall_inter_sched_pairwise_exchange", Json::object()}}}};
    TreeInput input;
    const Choice hier = Choice::container("MPIR_Alltoall_intra_hier", {{"inter_algo", "brucks"}});
    input.choices["alltoall"] = {
        {8, 2, 1024, kStock}, {8, 2, 4096, hier}, {8, 2, 65536, Choice::container("MPIR_Alltoall_intra_scattered")}};
    input.choices["ialltoall"] = {{8, 2, 1024, Choice::container("MPIR_Ialltoall_intra_tsp_hier")},
                                  {8, 2, 65536, Choice::container("MPIR_Ialltoall_intra_tsp_ring")}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    const Json& node = result.tree["collective=alltoall"];
    EXPECT_EQ(node["comm_type=inter"], inter);
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=any"], intra);
    // bounds: the midpoints of the blocks (2560, 34816), not times the comm size
    const Json scattered{{"is_sendbuf_inplace=no",
                          {{"algorithm=MPIR_Alltoall_intra_scattered", {{"whole_comm=1", Json::object()}}}}},
                         {"is_sendbuf_inplace=yes", intra}};
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"avg_msg_size<=2560", intra},
                    {"avg_msg_size<=34816",
                     {{"algorithm=MPIR_Alltoall_intra_hier", {{"inter_algo=brucks", Json::object()}}}}},
                    {"avg_msg_size=any", scattered}}));
    // MPICH's selection below the smallest block, the schedule's midpoint 33280 B; MPICH's
    // schedule without whole_comm
    EXPECT_EQ(result.tree["collective=ialltoall"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                         ["comm_avg_ppn<=2"],
              (Json{{"avg_msg_size<=1023", iintra},
                    {"avg_msg_size<=33280", {{"algorithm=MPIR_Ialltoall_intra_tsp_hier", Json::object()}}},
                    {"avg_msg_size=any", {{"algorithm=MPIR_Ialltoall_intra_tsp_ring", Json::object()}}}}));
}

// MPI_Alltoallv and MPI_Ialltoallv: csel.c has no avg_msg_size of theirs (it asserts);
// its total_msg_size is the sendtype's size times the sendcounts' sum, bench's block per
// pair times the comm size, so the tuned branch selects both by it as allgatherv's;
// MPICH's own algorithms go behind the is_sendbuf_inplace they need, with whole_comm=1 in
// the blocking form only.
TEST(CselTree, AlltoallvSelectsByTheSendcountsSum) {
    for (const char* collective : {"alltoallv", "ialltoallv"}) {
        ASSERT_TRUE(message_size_key(collective)) << collective;
        EXPECT_EQ(message_size_key(collective)->name, "total_msg_size");
        EXPECT_TRUE(message_size_key(collective)->per_rank);
    }
    EXPECT_FALSE(message_size_key("alltoallw"));
    EXPECT_TRUE(device_composes("alltoallv"));
    EXPECT_FALSE(device_composes("ialltoallv"));

    Json stock = small_stock();
    const Json intra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoallv_intra_pairwise_sendrecv_replace": {}},
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoallv_intra_scattered": {}}})");
    const Json inter{{"algorithm=MPIR_Alltoallv_inter_pairwise_exchange", Json::object()}};
    stock["collective=alltoallv"] = {{"comm_type=intra", intra}, {"comm_type=inter", inter}};
    const Json iintra = Json::parse(R"({
        "is_sendbuf_inplace=yes": {"algorithm=MPIR_Ialltoallv_intra_sched_inplace": {}},
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Ialltoallv_intra_sched_blocked": {}}})");
    stock["collective=ialltoallv"] = {
        {"comm_type=intra", iintra},
        {"comm_type=inter", {{"algorithm=MPIR_Ialltoallv_inter_sched_pairwise_exchange", Json::object()}}}};
    TreeInput input;
    const Choice hier = Choice::container("MPIR_Alltoallv_intra_hier", {{"inter_algo", "direct"}});
    input.choices["alltoallv"] = {
        {8, 2, 1024, kStock}, {8, 2, 4096, hier}, {8, 2, 65536, Choice::container("MPIR_Alltoallv_intra_scattered")}};
    input.choices["ialltoallv"] = {{8, 2, 1024, Choice::container("MPIR_Ialltoallv_intra_tsp_hier")},
                                   {8, 2, 65536, kStock}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    const Json& node = result.tree["collective=alltoallv"];
    EXPECT_EQ(node["comm_type=inter"], inter);
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=any"], intra);
    // bounds on 8 ranks: the midpoints of the blocks (2560, 34816) times 8
    const Json scattered{{"is_sendbuf_inplace=no",
                          {{"algorithm=MPIR_Alltoallv_intra_scattered", {{"whole_comm=1", Json::object()}}}}},
                         {"is_sendbuf_inplace=yes", intra}};
    EXPECT_EQ(node["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=20480", intra},
                    {"total_msg_size<=278528",
                     {{"algorithm=MPIR_Alltoallv_intra_hier", {{"inter_algo=direct", Json::object()}}}}},
                    {"total_msg_size=any", scattered}}));
    // MPICH's selection below the smallest block (1 KiB x 8) and above the schedule's
    // midpoint, 33280 B per pair times 8
    EXPECT_EQ(result.tree["collective=ialltoallv"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                         ["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=8191", iintra},
                    {"total_msg_size<=266240", {{"algorithm=MPIR_Ialltoallv_intra_tsp_hier", Json::object()}}},
                    {"total_msg_size=any", iintra}}));
}

// MPI_Gatherv, MPI_Scatterv and their schedules: csel.c sizes none of them (one choice per
// shape, two by size refused), and MPICH's stock names the collective's bare allcomm
// container (generic.json's "collective=gatherv"), the intra subtree of a tuned
// collective, which gets both comm_type keys; MPICH's own algorithm a tree picks is its
// allcomm container, whole_comm=1 in the blocking form only.
TEST(CselTree, GathervAndScattervGetOneChoicePerShape) {
    for (const char* collective : {"gatherv", "igatherv", "scatterv", "iscatterv"})
        EXPECT_FALSE(message_size_key(collective)) << collective;
    EXPECT_EQ(container_name("gatherv", "linear"), "MPIR_Gatherv_allcomm_linear");
    EXPECT_EQ(container_name("iscatterv", "tsp_linear"), "MPIR_Iscatterv_allcomm_tsp_linear");
    EXPECT_EQ(container_name("scatterv", "nb"), "MPIR_Scatterv_allcomm_nb");
    EXPECT_EQ(container_name("gatherv", "hier"), "MPIR_Gatherv_intra_hier");

    Json stock = small_stock();
    for (const char* collective : {"gatherv", "scatterv", "iscatterv"})
        stock["collective=" + std::string(collective)] =
            Json{{"algorithm=" + container_name(collective, collective[0] == 'i' ? "sched_linear" : "linear"),
                  Json::object()}};
    const Choice hier = Choice::container("MPIR_Gatherv_intra_hier", {{"inter_algo", "linear"}});
    TreeInput input;
    input.choices["gatherv"] = {{8, 2, 1024, hier}, {8, 2, 65536, hier}};
    input.choices["scatterv"] = {{8, 2, 1024, Choice::container("MPIR_Scatterv_allcomm_linear")}};
    input.choices["iscatterv"] = {{8, 2, 1024, Choice::container("MPIR_Iscatterv_allcomm_tsp_linear")}};
    const TreeResult result = build_tree(stock, input);
    EXPECT_TRUE(check_tree(result.tree, collectives_of(stock)).empty()) << check_tree(result.tree).front();
    EXPECT_EQ(result.message_rules, 0u);
    const auto tuned = [&](const std::string& collective) {
        return result.tree["collective=" + collective]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                          ["comm_avg_ppn<=2"];
    };
    const Json& gatherv = stock["collective=gatherv"];
    EXPECT_EQ(result.tree["collective=gatherv"]["comm_type=inter"], gatherv);
    EXPECT_EQ(result.tree["collective=gatherv"]["comm_type=intra"]["comm_hierarchy=any"], gatherv);
    EXPECT_EQ(tuned("gatherv"), (Json{{"algorithm=MPIR_Gatherv_intra_hier", {{"inter_algo=linear", Json::object()}}}}));
    EXPECT_EQ(tuned("scatterv"), Json::parse(R"({"algorithm=MPIR_Scatterv_allcomm_linear": {"whole_comm=1": {}}})"));
    EXPECT_EQ(tuned("iscatterv"), Json::parse(R"({"algorithm=MPIR_Iscatterv_allcomm_tsp_linear": {}})"));

    input.choices["gatherv"] = {{8, 2, 1024, hier}, {8, 2, 65536, kStock}};  // by size: MPICH cannot
    EXPECT_THROW(build_tree(stock, input), std::invalid_argument);
}

// An MPICH algorithm that asserts without a condition on its path (e.g.
// reduce_scatter_gather: a built-in op, and count >= pof2, "count<pow2" failing before it)
// gets each condition in the table's order, stock otherwise.
// Tuned at one rank per node: under comm_hierarchy=any.
TEST(CselTree, MpichRequirementsGuardTheirAlgorithm) {
    Json stock = small_stock();
    stock["collective=reduce"] = Json::parse(R"({
        "comm_type=intra": {"avg_msg_size=any": {"algorithm=MPIR_Reduce_intra_binomial": {}}},
        "comm_type=inter": {"algorithm=MPIR_Reduce_inter_local_reduce_remote_send": {}}})");
    TreeInput input;
    input.choices["reduce"] = {{4, 1, 8, Choice::container("MPIR_Reduce_intra_binomial")},
                               {4, 1, 65536, Choice::container("MPIR_Reduce_intra_reduce_scatter_gather")}};
    const TreeResult result = build_tree(stock, input);
    // one rank per node: MPICH's comm has no hierarchy, the choices go to comm_hierarchy=any
    const Json& intra = result.tree["collective=reduce"]["comm_type=intra"];
    EXPECT_EQ(intra["comm_hierarchy=parent"], stock["collective=reduce"]["comm_type=intra"]);
    const Json& sizes = intra["comm_hierarchy=any"]["comm_size<=4"]["comm_avg_ppn<=1"];
    ASSERT_TRUE(sizes.contains("avg_msg_size=any")) << sizes.dump();
    const Json& guarded = sizes["avg_msg_size=any"];
    ASSERT_EQ(guarded.size(), 2u);
    const Json& stock_intra = stock["collective=reduce"]["comm_type=intra"];
    Json count_guard = Json::object();
    count_guard["count<pow2"] = stock_intra;
    // MPICH's own algorithm, marked to run on the whole comm as it was measured
    count_guard["count=any"] =
        Json::parse(R"({"algorithm=MPIR_Reduce_intra_reduce_scatter_gather": {"whole_comm=1": {}}})");
    EXPECT_EQ(guarded["is_op_built_in=yes"], count_guard);
    EXPECT_EQ(guarded["is_op_built_in=yes"].begin().key(), "count<pow2");  // the test first: its failure selects
    EXPECT_EQ(guarded["is_op_built_in=no"], stock_intra);
    EXPECT_TRUE(check_tree(result.tree).empty()) << check_tree(result.tree).front();
    EXPECT_EQ(sizes.begin().key(), "avg_msg_size<=7");  // below the smallest size sampled
    EXPECT_EQ(sizes.at("avg_msg_size<=32772"),  // (8 + 65536) / 2
              Json::parse(R"({"algorithm=MPIR_Reduce_intra_binomial": {"whole_comm=1": {}}})"));
}

TEST(CselTree, RoundTripThroughAFile) {
    const TreeResult result = build_tree(small_stock(), test::tuned_bcast_input());
    const std::string path = ::testing::TempDir() + "hiertune_tree_test.json";
    save_tree(result.tree, path);
    const Json back = load_tree(path);
    std::filesystem::remove(path);
    EXPECT_EQ(back, result.tree);  // order kept
    EXPECT_TRUE(check_tree(back, {"bcast", "allreduce", "barrier"}).empty());
    EXPECT_THROW(load_tree(path), TreeError);
}

TEST(CselCheck, FindsWhatMpichWouldAssertOn) {
    const auto problems_of = [](const char* text, std::vector<std::string> required = {}) {
        return check_tree(Json::parse(text), required);
    };
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_size<=8": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})").size(), 1u);  // no ANY
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "comm_size<=8": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              2u);  // ANY not last, a bound ends the chain
    // 5.0.1's ANY operator: "any" alone, or "=any" after any name (a misspelt one too: it
    // means the same), comm_avg_ppn=any included
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_size<=8": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              0u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_avg_ppn<4": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "comm_avg_ppn=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              0u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"any": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "comm_type=inter": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              1u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"avg_msg_size<=x": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              1u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_sise=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})").size(), 0u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_sise<=4": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}})")
                  .size(),
              1u);
    // MPICH's own parameters of its algorithms (5.0.1's barrier: k_dissemination, k=2)
    EXPECT_EQ(problems_of(R"({"collective=barrier": {"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}}}})").size(),
              0u);
    EXPECT_EQ(problems_of(R"({"collective=barrier": {"algorithm=MPIR_Barrier_intra_k_dissemination": {"kval=2": {}}}})").size(),
              2u);  // kval is not read, and k is missing
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_type=intra": {}}})").size(), 1u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}, "comm_size=any": {}}}})")
                  .size(),
              1u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=-1": {},
                                                    "inter_algo=tree": {}, "inter_k=3": {}}}})")
                  .size(),
              2u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_hier": {"inter_algo=seg_chain": {},
                                                    "intra_algo=shm": {}, "inter_chunk=0": {}}}})")
                  .size(),
              0u);
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_seg_binary": {"segsize=8192": {},
                                                    "fanout=0": {}, "window=2": {}}}})")
                  .size(),
              2u);
    EXPECT_EQ(problems_of(R"({"collective=gather": {"algorithm=MPIR_Gather_intra_binomial": {}}})", {"gather", "reduce"}).size(), 1u);
    EXPECT_EQ(problems_of(R"({"collective=allreduce": {"algorithm=MPIR_Allreduce_intra_binomial": {}}})").size(),
              1u);  // what MPICH asserts on ("unrecognized key")
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_type=intra": {"comm_avg_ppn<=2": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                                    "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}})")
                  .size(),
              0u);
    // MPICH's smp bcast asserts on a comm without node hierarchy
    EXPECT_EQ(problems_of(R"({"collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_smp": {}}}})").size(),
              1u);
}

TEST(CselTree, MpichGenericTreeStaysComplete) {
    const std::string path = test::generic_json();
    if (path.empty()) GTEST_SKIP() << "no MPICH generic.json (set MPICH_GENERIC_JSON)";
    const Json stock = load_tree(path);
    const std::vector<std::string> all = collectives_of(stock);
    EXPECT_EQ(all.size(), 44u);
    EXPECT_TRUE(check_tree(stock, all).empty()) << check_tree(stock, all).front();
    TreeInput input = test::tuned_bcast_input();
    input.choices["allreduce"] = {{8, 2, 8, kStock},
                                  {8, 2, 65536, Choice::container("MPIR_Allreduce_intra_hier",
                                                                  {{"segsize", "8192"}, {"intra_algo", "shm"}})}};
    input.choices["reduce"] = {{8, 2, 65536, Choice::container("MPIR_Reduce_intra_hier", {{"segsize", "4096"}})}};
    // generic.json's gatherv and scatterv: a bare allcomm container, no comm_type
    input.choices["gatherv"] = {{8, 2, 1024, Choice::container("MPIR_Gatherv_intra_hier", {{"inter_algo", "linear"}})}};
    input.choices["iscatterv"] = {{8, 2, 1024, Choice::container("MPIR_Iscatterv_allcomm_tsp_linear")}};
    const TreeResult result = build_tree(stock, input);
    const auto problems = check_tree(result.tree, all);
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(collectives_of(result.tree), all);
    const Json& reduce_stock = stock["collective=reduce"]["comm_type=intra"];
    const Json tuned{{"avg_msg_size<=65535", reduce_stock},
                     {"avg_msg_size=any", {{"algorithm=MPIR_Reduce_intra_hier", {{"segsize=4096", Json::object()}}}}}};
    EXPECT_EQ(result.tree["collective=reduce"]["comm_type=intra"]["comm_hierarchy=parent"],
              (Json{{"comm_size<=7", reduce_stock},
                    {"comm_size<=8", {{"comm_avg_ppn<=1", reduce_stock}, {"comm_avg_ppn<=2", tuned},
                                      {"comm_avg_ppn=any", reduce_stock}}},
                    {"comm_size=any", reduce_stock}}));
}

// A small stand-in for MPICH's ch4/generic.json: bcast and reduce as shipped, compacted
Json small_ch4_stock() {
    return Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {
        "comm_hierarchy=parent": {"avg_msg_size<=12288": {"composition=MPIDI_Bcast_intra_composition_alpha": {}},
                                  "avg_msg_size=any": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}},
        "comm_hierarchy=any": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}}},
      "collective=reduce": {"comm_type=intra": {
        "comm_hierarchy=parent": {"is_commutative=yes": {"composition=MPIDI_Reduce_intra_composition_alpha": {}},
                                  "is_commutative=no": {"composition=MPIDI_Reduce_intra_composition_gamma": {}}},
        "comm_hierarchy=any": {"composition=MPIDI_Reduce_intra_composition_gamma": {}}}},
      "collective=allreduce": {"comm_type=intra": {
        "comm_hierarchy=parent": {"is_commutative=yes": {"composition=MPIDI_Allreduce_intra_composition_alpha": {}},
                                  "is_commutative=no": {"composition=MPIDI_Allreduce_intra_composition_beta": {}}},
        "comm_hierarchy=any": {"composition=MPIDI_Allreduce_intra_composition_beta": {}}}}
    })");
}

const Choice kBcastBeta = Choice::container("MPIDI_Bcast_intra_composition_beta");
const Choice kReduceBeta = Choice::container("MPIDI_Reduce_intra_composition_beta");

// The leaf of one tuned point of a pair's tree (comm size 8, ppn 2, the size rule `size`)
const Json& tuned_leaf(const Json& tree, const std::string& collective, const std::string& size) {
    return tree.at("collective=" + collective).at("comm_type=intra").at("comm_hierarchy=parent").at("comm_size<=8").at(
        "comm_avg_ppn<=2").at(size);
}

// Where a composition was chosen the MPIR tree keeps MPICH's selection and the CH4 tree
// names it; where the MPIR tree names an algorithm the CH4 tree leaves the call to it
// (bcast gamma: MPIR_Bcast_impl on the whole comm); stock stays stock in both.
TEST(CselTreePair, CompositionsGoToTheCh4Tree) {
    TreeInput input;
    input.choices["bcast"] = {{8, 2, 1024, kBcastBeta}, {8, 2, 65536, test::hier_bcast("16384")},
                              {8, 2, 1048576, kStock}};
    input.choices["allreduce"] = {{8, 2, 1024, kStock},
                                  {8, 2, 65536, Choice::container("MPIR_Allreduce_intra_hier", {{"segsize", "8192"}})}};
    const TreePair pair = build_tree_pair(test::small_stock(), small_ch4_stock(), input);
    const Json& mpir_stock = pair.mpir.tree["collective=bcast"]["comm_type=intra"]["comm_hierarchy=any"];
    EXPECT_EQ(tuned_leaf(pair.mpir.tree, "bcast", "avg_msg_size<=33280"), mpir_stock);
    EXPECT_TRUE(tuned_leaf(pair.mpir.tree, "bcast", "avg_msg_size<=557056").contains("algorithm=MPIR_Bcast_intra_hier"));
    EXPECT_TRUE(check_tree(pair.mpir.tree, collectives_of(test::small_stock())).empty());
    ASSERT_TRUE(pair.ch4);
    const Json& ch4 = pair.ch4->tree;
    EXPECT_EQ(tuned_leaf(ch4, "bcast", "avg_msg_size<=33280"),
              (Json{{"composition=MPIDI_Bcast_intra_composition_beta", Json::object()}}));
    EXPECT_EQ(tuned_leaf(ch4, "bcast", "avg_msg_size<=557056"),
              (Json{{"composition=MPIDI_Bcast_intra_composition_gamma", Json::object()}}));
    EXPECT_EQ(tuned_leaf(ch4, "bcast", "avg_msg_size=any"),
              strict_comm_size(small_ch4_stock()["collective=bcast"]["comm_type=intra"]));
    // no composition chosen for allreduce, but an MPIR algorithm: the CH4 tree leaves the
    // call to the MPIR tree there (beta: MPIR_Allreduce_impl on the whole comm), since a
    // CH4 tree given by CVAR turns the plugin's routing off; its stock sizes stay stock
    EXPECT_EQ(tuned_leaf(ch4, "allreduce", "avg_msg_size<=33280"),
              strict_comm_size(small_ch4_stock()["collective=allreduce"]["comm_type=intra"]));
    EXPECT_EQ(tuned_leaf(ch4, "allreduce", "avg_msg_size=any"),
              (Json{{"composition=MPIDI_Allreduce_intra_composition_beta", Json::object()}}));
    // reduce has no choice but stock: MPICH's CH4 choice stays
    EXPECT_EQ(ch4["collective=reduce"], small_ch4_stock()["collective=reduce"]);
    const std::vector<std::string> problems = grammar::check_tree(ch4, grammar::Level::ch4);
    EXPECT_TRUE(problems.empty()) << problems.front();
}

// the node-first reduce composition goes behind its commutative guard, as MPID_Init
// checks; no composition chosen anywhere: no CH4 tree
TEST(CselTreePair, GuardsAndNoCompositionNoCh4Tree) {
    Json mpir = test::small_stock();
    mpir["collective=reduce"] = Json::parse(R"({"comm_type=intra": {"algorithm=MPIR_Reduce_intra_binomial": {}}})");
    TreeInput input;
    input.choices["reduce"] = {{8, 2, 1024, kReduceBeta}, {8, 2, 65536, kStock}};
    const TreePair pair = build_tree_pair(mpir, small_ch4_stock(), input);
    ASSERT_TRUE(pair.ch4);
    const Json& leaf = tuned_leaf(pair.ch4->tree, "reduce", "avg_msg_size<=33280");
    ASSERT_TRUE(leaf.contains("is_commutative=yes")) << leaf.dump();
    EXPECT_TRUE(leaf["is_commutative=yes"].contains("composition=MPIDI_Reduce_intra_composition_beta"));
    const std::vector<std::string> problems = grammar::check_tree(pair.ch4->tree, grammar::Level::ch4);
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(pair.mpir.unchanged, std::vector<std::string>{"reduce"});

    input.choices["reduce"] = {{8, 2, 1024, kStock}, {8, 2, 65536, Choice::container("MPIR_Reduce_intra_hier")}};
    EXPECT_FALSE(build_tree_pair(mpir, small_ch4_stock(), input).ch4);
}

// With MPICH's shipped trees: both trees of a pair pass the checks MPI_Init runs, every
// collective kept
TEST(CselTreePair, MpichGenericTreesStayValid) {
    const std::string mpir = test::generic_json(), ch4 = test::generic_ch4_json();
    if (mpir.empty() || ch4.empty()) GTEST_SKIP() << "no MPICH generic.json (set MPICH_GENERIC_JSON)";
    TreeInput input;
    for (const std::string coll : {"bcast", "reduce", "allreduce", "allgather"}) {
        const Choice composition = Choice::container(*grammar::composition_container(coll, 1));
        input.choices[coll] = {{8, 2, 1024, composition}, {8, 2, 65536, kStock}};
    }
    input.choices["bcast"].push_back({8, 2, 1048576, test::hier_bcast("16384")});
    // the reduce-scatters: CH4 leaves a multi-node call to the MPIR tree through its
    // netmod-only composition alpha, behind which the MPIR tree picks hier or MPICH's
    input.choices["reduce_scatter"] = {
        {8, 2, 1024, Choice::container("MPIR_Reduce_scatter_intra_hier", {{"inter_algo", "linear"}})},
        {8, 2, 65536, kStock}};
    input.choices["reduce_scatter_block"] = {
        {8, 2, 1024, Choice::container("MPIR_Reduce_scatter_block_intra_recursive_halving")}};
    // allgatherv alike (its composition alpha), and iallgatherv's MPIR tree alone
    input.choices["allgatherv"] = {
        {8, 2, 1024, Choice::container("MPIR_Allgatherv_intra_hier", {{"inter_algo", "linear"}})},
        {8, 2, 65536, Choice::container("MPIR_Allgatherv_intra_brucks")}};
    input.choices["iallgatherv"] = {{8, 2, 1024, Choice::container("MPIR_Iallgatherv_intra_tsp_hier")}};
    // alltoall: its multi-leader composition alpha (MPIR_CVAR_ALLTOALL_COMPOSITION=1) at
    // small blocks, hier behind its netmod-only beta at large ones
    input.choices["alltoall"] = {
        {8, 2, 1024, Choice::container("MPIDI_Alltoall_intra_composition_alpha")},
        {8, 2, 65536, Choice::container("MPIR_Alltoall_intra_hier", {{"inter_algo", "direct"}})}};
    const TreePair pair = build_tree_pair(load_tree(mpir), load_tree(ch4), input);
    ASSERT_TRUE(pair.ch4);
    EXPECT_EQ(collectives_of(pair.ch4->tree), collectives_of(load_tree(ch4)));
    const std::vector<std::string> problems = grammar::check_tree(pair.ch4->tree, grammar::Level::ch4);
    EXPECT_TRUE(problems.empty()) << problems.front();
    const std::vector<std::string> mpir_problems = check_tree(pair.mpir.tree, collectives_of(load_tree(mpir)));
    EXPECT_TRUE(mpir_problems.empty()) << mpir_problems.front();
    const Json& ch4_block = pair.ch4->tree["collective=reduce_scatter_block"]["comm_type=intra"];
    EXPECT_EQ(ch4_block["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"]["total_msg_size=any"],
              (Json{{"composition=MPIDI_Reduce_scatter_block_intra_composition_alpha", Json::object()}}));
    const Json& mpir_block = pair.mpir.tree["collective=reduce_scatter_block"]["comm_type=intra"];
    EXPECT_EQ(mpir_block["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"]["total_msg_size=any"]
                        ["is_commutative=yes"],
              (Json{{"algorithm=MPIR_Reduce_scatter_block_intra_recursive_halving", {{"whole_comm=1", Json::object()}}}}));
    const Json& ch4_allgatherv = pair.ch4->tree["collective=allgatherv"]["comm_type=intra"];
    // the stock's below the smallest size, the same composition above it
    const Json alpha{{"composition=MPIDI_Allgatherv_intra_composition_alpha", Json::object()}};
    EXPECT_EQ(ch4_allgatherv["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"total_msg_size<=8191", alpha}, {"total_msg_size=any", alpha}}));
    const Json& mpir_allgatherv = pair.mpir.tree["collective=allgatherv"]["comm_type=intra"];
    EXPECT_EQ(mpir_allgatherv["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"]["total_msg_size=any"],
              (Json{{"algorithm=MPIR_Allgatherv_intra_brucks", {{"whole_comm=1", Json::object()}}}}));
    EXPECT_FALSE(pair.ch4->tree.contains("collective=iallgatherv"));
    const Json& ch4_alltoall = pair.ch4->tree["collective=alltoall"]["comm_type=intra"];
    const Json alltoall_alpha{{"composition=MPIDI_Alltoall_intra_composition_alpha", Json::object()}};
    const Json alltoall_beta{{"composition=MPIDI_Alltoall_intra_composition_beta", Json::object()}};
    EXPECT_EQ(ch4_alltoall["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"],
              (Json{{"avg_msg_size<=1023", alltoall_beta},
                    {"avg_msg_size<=33280", alltoall_alpha},
                    {"avg_msg_size=any", alltoall_beta}}));
    const Json& mpir_alltoall = pair.mpir.tree["collective=alltoall"]["comm_type=intra"];
    EXPECT_EQ(mpir_alltoall["comm_hierarchy=parent"]["comm_size<=8"]["comm_avg_ppn<=2"]["avg_msg_size=any"],
              (Json{{"algorithm=MPIR_Alltoall_intra_hier", {{"inter_algo=direct", Json::object()}}}}));
}

}  // namespace
}  // namespace hiertune::csel
