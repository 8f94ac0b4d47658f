// What a Csel tree selects (csel_show): every key kind of MPICH 5.0.1's MPIR trees,
// chain order, prune vs search, no-match reports, the table's grid and merged rows.
// Expected selections are worked out by hand from 5.0.1's csel.c (parse_json_tree,
// prune_tree, MPIR_Csel_search) and commutil.c (check_hierarchy, MPIR_Comm_commit).
#include <gtest/gtest.h>

#include "mpich_trees.hpp"

#include <tuple>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "hiertune/tree/csel_show.hpp"

namespace hiertune::csel {
namespace {

Json algo(const std::string& name) { return Json{{"algorithm=" + name, Json::object()}}; }

// A one-collective tree: `intra` under collective=COLL > comm_type=intra.
Json tree_of(const std::string& collective, const Json& intra) {
    return Json{{"collective=" + collective,
                 {{"comm_type=intra", intra}, {"comm_type=inter", algo("INTER")}}}};
}

CallPoint point(const std::string& collective, int comm_size, int nodes, std::uint64_t bytes) {
    CallPoint p;
    p.collective = collective;
    p.comm_size = comm_size;
    p.nodes = nodes;
    p.bytes = bytes;
    return p;
}

// A node_comm or node_roots_comm MPICH made (MPIR_Subcomm_create): no hierarchy.
CallPoint subcomm(const std::string& collective, int comm_size, std::uint64_t bytes) {
    CallPoint p = point(collective, comm_size, 1, bytes);
    p.subcomm = true;
    return p;
}

std::string pick(const Json& tree, const CallPoint& p) { return select(tree, p).describe(); }

TEST(CselShow, FirstHoldingSiblingWinsInFileOrder) {
    const Json intra = Json::parse(R"({"avg_msg_size<=100": {"algorithm=A": {}},
                                      "avg_msg_size<=1000": {"algorithm=B": {}},
                                      "avg_msg_size=any": {"algorithm=C": {}}})");
    const Json tree = tree_of("bcast", intra);
    EXPECT_EQ(pick(tree, point("bcast", 4, 1, 100)), "A");
    EXPECT_EQ(pick(tree, point("bcast", 4, 1, 101)), "B");
    EXPECT_EQ(pick(tree, point("bcast", 4, 1, 1000)), "B");
    EXPECT_EQ(pick(tree, point("bcast", 4, 1, 1001)), "C");
    // the wider bound first shadows the narrower one: file order, not the tightest bound
    const Json swapped = tree_of("bcast", Json::parse(R"({"avg_msg_size<=1000": {"algorithm=B": {}},
                                                          "avg_msg_size<=100": {"algorithm=A": {}},
                                                          "avg_msg_size=any": {"algorithm=C": {}}})"));
    EXPECT_EQ(pick(swapped, point("bcast", 4, 1, 50)), "B");
}

TEST(CselShow, CommSizeKeys) {
    const Json tree = tree_of("bcast", Json::parse(R"({"comm_size<=4": {"algorithm=LE4": {}},
                                                       "comm_size=pow2": {"algorithm=POW2": {}},
                                                       "comm_size=any": {"algorithm=ANY": {}}})"));
    EXPECT_EQ(pick(tree, point("bcast", 4, 4, 8)), "LE4");
    EXPECT_EQ(pick(tree, point("bcast", 5, 5, 8)), "ANY");
    EXPECT_EQ(pick(tree, point("bcast", 8, 8, 8)), "POW2");
    EXPECT_EQ(pick(tree, point("bcast", 12, 12, 8)), "ANY");
    EXPECT_EQ(pick(tree, point("bcast", 16, 2, 8)), "POW2");
}

TEST(CselShow, CommSizeLessThanIsStrictWhenPrunedInclusiveWhenSearched) {
    // comm keys straight under the collective are pruned: 8 < 8 is false
    const Json pruned = tree_of("bcast", Json::parse(R"({"comm_size<8": {"algorithm=SMALL": {}},
                                                         "comm_size=any": {"algorithm=BIG": {}}})"));
    EXPECT_EQ(pick(pruned, point("bcast", 7, 7, 1)), "SMALL");
    EXPECT_EQ(pick(pruned, point("bcast", 8, 8, 1)), "BIG");
    // below a message bound the search reads `comm_size<8` as size <= 8 (csel.c 1220)
    const Json searched = tree_of("bcast", Json::parse(R"({"avg_msg_size<=100": {
                                                             "comm_size<8": {"algorithm=SMALL": {}},
                                                             "comm_size=any": {"algorithm=BIG": {}}},
                                                           "any": {"algorithm=LARGE": {}}})"));
    EXPECT_EQ(pick(searched, point("bcast", 8, 8, 1)), "SMALL");
    EXPECT_EQ(pick(searched, point("bcast", 9, 9, 1)), "BIG");
    EXPECT_EQ(pick(searched, point("bcast", 8, 8, 101)), "LARGE");
    // 5.0.1 prunes through the ANY operator (csel.c 670): below "avg_msg_size=any" the
    // comm_size<8 is still pruned, strictly
    const Json through_any = tree_of("bcast", Json::parse(R"({"avg_msg_size=any": {
                                                                "comm_size<8": {"algorithm=SMALL": {}},
                                                                "comm_size=any": {"algorithm=BIG": {}}}})"));
    EXPECT_EQ(pick(through_any, point("bcast", 7, 7, 1)), "SMALL");
    EXPECT_EQ(pick(through_any, point("bcast", 8, 8, 1)), "BIG");
    // is_multi_threaded stops the pruning as well
    const Json threaded = tree_of("bcast", Json::parse(R"({"is_multi_threaded=no": {
                                                             "comm_size<8": {"algorithm=SMALL": {}},
                                                             "comm_size=any": {"algorithm=BIG": {}}},
                                                           "is_multi_threaded=yes": {"algorithm=MT": {}}})"));
    EXPECT_EQ(pick(threaded, point("bcast", 8, 8, 1)), "SMALL");
    CallPoint mt = point("bcast", 8, 8, 1);
    mt.is_multi_threaded = true;
    EXPECT_EQ(pick(threaded, mt), "MT");
}

TEST(CselShow, HierarchyAndNodeCommSize) {
    const Json tree = tree_of("bcast", Json::parse(R"({"comm_size=node_comm_size": {"algorithm=ONE_NODE": {}},
                                                       "comm_hierarchy=parent": {"algorithm=PARENT": {}},
                                                       "comm_hierarchy=flat": {"algorithm=FLAT": {}}})"));
    EXPECT_EQ(pick(tree, point("bcast", 8, 1, 1)), "ONE_NODE");  // one node, 8 ranks
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 1)), "PARENT");    // 2 per node
    EXPECT_EQ(pick(tree, point("bcast", 8, 8, 1)), "FLAT");      // one rank per node: no node_comm
    // a lone rank: its hierarchy is one node (num_external 1), so node_comm_size holds
    EXPECT_EQ(pick(tree, point("bcast", 1, 1, 1)), "ONE_NODE");
    EXPECT_EQ(pick(tree, point("bcast", 7, 4, 1)), "PARENT");  // 2, 2, 2, 1
    // a node_comm of 4: no hierarchy, so not on "one node" as csel.c sees it, not a parent
    EXPECT_EQ(pick(tree, subcomm("bcast", 4, 1)), "FLAT");
}

// 5.0.1: comm_hierarchy=parent holds on a parent comm, comm_hierarchy=node, =node_roots
// and =flat all on any other comm (csel.c 521-532, 641, 1342)
TEST(CselShow, HierarchyKeysParentOrNot) {
    for (const char* other : {"comm_hierarchy=node", "comm_hierarchy=node_roots", "comm_hierarchy=flat"}) {
        Json intra = Json::object();
        intra[other] = algo("NOT_PARENT");
        intra["comm_hierarchy=parent"] = algo("PARENT");
        const Json tree = tree_of("bcast", intra);
        EXPECT_EQ(pick(tree, point("bcast", 8, 4, 1)), "PARENT") << other;      // parent comm
        EXPECT_EQ(pick(tree, point("bcast", 8, 1, 1)), "PARENT") << other;      // one node, parent too
        EXPECT_EQ(pick(tree, point("bcast", 8, 8, 1)), "NOT_PARENT") << other;  // one rank per node
        EXPECT_EQ(pick(tree, subcomm("bcast", 4, 1)), "NOT_PARENT") << other;   // node_comm
        EXPECT_EQ(pick(tree, subcomm("bcast", 2, 1)), "NOT_PARENT") << other;   // node_roots_comm
    }
    // on a node_comm, "flat" holds as well as "node": the first of them wins
    const Json flat_first = tree_of("bcast", Json::parse(R"({"comm_hierarchy=flat": {"algorithm=FLAT": {}},
                                                             "comm_hierarchy=node": {"algorithm=NODE": {}},
                                                             "comm_hierarchy=parent": {"algorithm=PARENT": {}}})"));
    EXPECT_EQ(pick(flat_first, subcomm("bcast", 4, 1)), "FLAT");
    EXPECT_EQ(pick(flat_first, point("bcast", 4, 1, 1)), "PARENT");
}

// 5.0.1's ANY operator (csel.c 310-319, 533): "any" alone or "=any" after any name,
// tested after every other key; always true, at prune and search alike
TEST(CselShow, AnyOperator) {
    const Json tree = tree_of("allreduce", Json::parse(R"({"comm_avg_ppn<=1": {"algorithm=FLAT": {}},
                                                           "comm_avg_ppn=any": {
                                                             "is_commutative=yes": {"algorithm=COMMUTATIVE": {}},
                                                             "is_commutative=any": {"count<=8": {"algorithm=SMALL": {}},
                                                                                    "any": {"algorithm=LARGE": {}}}}})"));
    EXPECT_EQ(pick(tree, point("allreduce", 8, 8, 8)), "FLAT");
    EXPECT_EQ(pick(tree, point("allreduce", 8, 4, 8)), "COMMUTATIVE");
    CallPoint user_op = point("allreduce", 8, 4, 8);
    user_op.is_commutative = false;
    EXPECT_EQ(pick(tree, user_op), "SMALL");
    user_op.bytes = 9;
    EXPECT_EQ(pick(tree, user_op), "LARGE");
    const Selection path = select(tree, user_op);
    EXPECT_EQ(path.path, (std::vector<std::string>{"collective=allreduce", "comm_type=intra", "comm_avg_ppn=any",
                                                   "is_commutative=any", "any"}));
    // the name does not matter, nor whether csel.c defines it for the collective: ANY
    // is never evaluated (avg_msg_size<=N would assert for barrier)
    const Json barrier = tree_of("barrier", Json::parse(R"({"avg_msg_size=any": {"nosuchkey=any": {"algorithm=B": {}}}})"));
    EXPECT_EQ(pick(barrier, point("barrier", 4, 2, 0)), "B");
    // the keys csel.c reads before ANY win: comm_size<=any is a bound, atoi's 0
    const Json le_any = tree_of("bcast", Json::parse(R"({"comm_size<=any": {"algorithm=NEVER": {}},
                                                         "any": {"algorithm=ANY": {}}})"));
    EXPECT_EQ(pick(le_any, point("bcast", 4, 2, 8)), "ANY");
    EXPECT_THROW(select(Json::parse(R"({"collective=any": {"algorithm=A": {}}})"), point("bcast", 4, 2, 8)), TreeError);
    // ANY above the collectives: pruned through, like comm_type=intra
    const Json above = Json::parse(R"({"any": {"collective=bcast": {"algorithm=A": {}}}})");
    EXPECT_EQ(pick(above, point("bcast", 4, 2, 8)), "A");
}

TEST(CselShow, CommAvgPpnIsSizeAgainstBoundTimesNodes) {
    const Json tree = tree_of("bcast", Json::parse(R"({"comm_avg_ppn<=2": {"algorithm=LOW": {}},
                                                       "comm_size=any": {"algorithm=HIGH": {}}})"));
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 1)), "LOW");   // 8 <= 2 * 4
    EXPECT_EQ(pick(tree, point("bcast", 8, 3, 1)), "HIGH");  // 8 > 2 * 3 (ppn 3)
    EXPECT_EQ(pick(tree, point("bcast", 7, 4, 1)), "LOW");
    EXPECT_EQ(pick(tree, point("bcast", 9, 4, 1)), "HIGH");  // 9 > 8
    // 5.0.1's comm_avg_ppn<N (csel.c 518, 1333): size < N * nodes
    const Json lt = tree_of("bcast", Json::parse(R"({"comm_avg_ppn<2": {"algorithm=LT2": {}},
                                                     "comm_avg_ppn<=2": {"algorithm=LE2": {}},
                                                     "comm_avg_ppn=any": {"algorithm=ANY": {}}})"));
    EXPECT_EQ(pick(lt, point("bcast", 8, 8, 1)), "LT2");  // 8 < 16
    EXPECT_EQ(pick(lt, point("bcast", 7, 4, 1)), "LT2");  // 7 < 8
    EXPECT_EQ(pick(lt, point("bcast", 8, 4, 1)), "LE2");  // 8 = 2 * 4
    EXPECT_EQ(pick(lt, point("bcast", 9, 4, 1)), "ANY");
    // false on a comm without hierarchy, whatever the bound: MPICH's subcomms
    const Json huge = tree_of("bcast", Json::parse(R"({"comm_avg_ppn<=1000": {"algorithm=LE": {}},
                                                       "comm_avg_ppn<1000": {"algorithm=LT": {}},
                                                       "any": {"algorithm=NO_HIERARCHY": {}}})"));
    EXPECT_EQ(pick(huge, point("bcast", 4, 1, 1)), "LE");
    EXPECT_EQ(pick(huge, subcomm("bcast", 4, 1)), "NO_HIERARCHY");
    EXPECT_EQ(nodes_for_ppn(8, 3), 3);
    EXPECT_EQ(nodes_for_ppn(8, 2), 4);
    EXPECT_EQ(nodes_for_ppn(3, 8), 1);
}

TEST(CselShow, CountKeysUseElementsAndLargestPowerOfTwo) {
    const Json tree = tree_of("allreduce", Json::parse(R"({"count<=10": {"algorithm=LE10": {}},
                                                           "count<pow2": {"algorithm=LTPOF2": {}},
                                                           "count=any": {"algorithm=ANY": {}}})"));
    CallPoint p = point("allreduce", 20, 20, 40);  // pof2(20) = 16
    p.type_size = 4;
    EXPECT_EQ(pick(tree, p), "LE10");  // 10 elements
    p.bytes = 43;                      // still 10 whole elements
    EXPECT_EQ(pick(tree, p), "LE10");
    p.bytes = 44;
    EXPECT_EQ(pick(tree, p), "LTPOF2");  // 11 < 16
    p.bytes = 60;
    EXPECT_EQ(pick(tree, p), "LTPOF2");  // 15
    p.bytes = 64;
    EXPECT_EQ(pick(tree, p), "ANY");  // 16
    // allgatherv counts every rank's block: 2 elements x 8 ranks = 16 > 10
    const Json gatherv = tree_of("allgatherv", Json::parse(R"({"count<=10": {"algorithm=LE10": {}},
                                                               "count=any": {"algorithm=ANY": {}}})"));
    EXPECT_EQ(pick(gatherv, point("allgatherv", 8, 8, 2)), "ANY");
    EXPECT_EQ(pick(gatherv, point("allgather", 8, 8, 2)),
              "NO MATCH at top level (no collective=allgather): MPICH asserts; mpich-hier's MPI_Init merges in "
              "the built-in tree's");
}

TEST(CselShow, MessageSizeKeys) {
    const Json avg = tree_of("bcast", Json::parse(R"({"avg_msg_size<100": {"algorithm=LT100": {}},
                                                      "avg_msg_size=any": {"algorithm=ANY": {}}})"));
    EXPECT_EQ(pick(avg, point("bcast", 4, 1, 99)), "LT100");
    EXPECT_EQ(pick(avg, point("bcast", 4, 1, 100)), "ANY");
    const Json chain = Json::parse(R"({"total_msg_size<=8192": {"algorithm=LE8K": {}},
                                       "total_msg_size<16384": {"algorithm=LT16K": {}},
                                       "total_msg_size=any": {"algorithm=ANY": {}}})");
    const Json bcast = tree_of("bcast", chain);
    EXPECT_EQ(pick(bcast, point("bcast", 8, 8, 1024)), "LE8K");   // 8 x 1024 = 8192
    EXPECT_EQ(pick(bcast, point("bcast", 8, 8, 1025)), "LT16K");  // 8200
    EXPECT_EQ(pick(bcast, point("bcast", 8, 8, 2047)), "LT16K");  // 16376
    EXPECT_EQ(pick(bcast, point("bcast", 8, 8, 2048)), "ANY");    // 16384
    // gather's total is count x size without the type size (csel.c overwrites it)
    const Json gather = tree_of("gather", chain);
    CallPoint g = point("gather", 8, 8, 4096);
    g.type_size = 4;
    EXPECT_EQ(pick(gather, g), "LE8K");  // 1024 elements x 8
    CallPoint b = g;
    b.collective = "bcast";
    EXPECT_EQ(pick(bcast, b), "ANY");  // 4096 B x 8
}

// alltoallv's total_msg_size is the sendcounts' sum, the block per pair times the comm
// size (every count alike); csel.c has no avg_msg_size or count of it (it asserts), and
// tests is_sendbuf_inplace as alltoall's.
TEST(CselShow, AlltoallvTotalIsTheSendcountsSum) {
    const Json chain = Json::parse(R"({"total_msg_size<=8192": {"algorithm=LE8K": {}},
                                       "total_msg_size=any": {"algorithm=ANY": {}}})");
    const Json avg = Json::parse(R"({"avg_msg_size<=8": {"algorithm=A": {}}, "avg_msg_size=any": {"algorithm=B": {}}})");
    const Json count = Json::parse(R"({"count<=8": {"algorithm=A": {}}, "count=any": {"algorithm=B": {}}})");
    for (const char* coll : {"alltoallv", "ialltoallv"}) {
        EXPECT_EQ(pick(tree_of(coll, chain), point(coll, 8, 4, 1024)), "LE8K") << coll;  // 1024 x 8
        EXPECT_EQ(pick(tree_of(coll, chain), point(coll, 8, 4, 1025)), "ANY") << coll;
        EXPECT_EQ(select(tree_of(coll, avg), point(coll, 8, 4, 8)).kind, Selection::Kind::undefined) << coll;
        EXPECT_EQ(select(tree_of(coll, count), point(coll, 8, 4, 8)).kind, Selection::Kind::undefined) << coll;
    }
}

// A tree of the collective whose one branch point is a yes/no property of the call.
Json yes_no_tree(const std::string& collective, const std::string& key, const std::string& yes_algorithm,
                 const std::string& no_algorithm) {
    return tree_of(collective, Json{{key + "=yes", {{"algorithm=" + yes_algorithm, Json::object()}}},
                                    {key + "=no", {{"algorithm=" + no_algorithm, Json::object()}}}});
}

// The tree picks `before` at p, and `after` once the call's property `flag` is flipped.
void expect_picks_as_flag_changes(const Json& tree, CallPoint p, bool CallPoint::*flag, const std::string& before,
                                  const std::string& after) {
    EXPECT_EQ(pick(tree, p), before);
    p.*flag = !(p.*flag);
    EXPECT_EQ(pick(tree, p), after);
}

TEST(CselShow, PropertiesOfTheCall) {
    const Json tree = tree_of("allreduce", Json::parse(R"({"is_commutative=yes": {
                                                              "is_op_built_in=no": {"algorithm=USER_OP": {}},
                                                              "is_op_built_in=yes": {"algorithm=BUILTIN": {}}},
                                                            "is_commutative=no": {"algorithm=NONCOMM": {}}})"));
    CallPoint p = point("allreduce", 4, 2, 8);
    EXPECT_EQ(pick(tree, p), "BUILTIN");
    p.is_op_built_in = false;
    EXPECT_EQ(pick(tree, p), "USER_OP");
    p.is_commutative = false;
    EXPECT_EQ(pick(tree, p), "NONCOMM");

    expect_picks_as_flag_changes(yes_no_tree("alltoall", "is_sendbuf_inplace", "INPLACE", "COPY"),
                                 point("alltoall", 4, 2, 8), &CallPoint::is_sendbuf_inplace, "COPY", "INPLACE");
    expect_picks_as_flag_changes(yes_no_tree("ialltoallv", "is_sendbuf_inplace", "INPLACE", "COPY"),
                                 point("ialltoallv", 4, 2, 8), &CallPoint::is_sendbuf_inplace, "COPY", "INPLACE");
    expect_picks_as_flag_changes(yes_no_tree("reduce_scatter", "is_block_regular", "REGULAR", "IRREGULAR"),
                                 point("reduce_scatter", 4, 2, 8), &CallPoint::is_block_regular, "REGULAR",
                                 "IRREGULAR");

    // node-consecutive only on PARENT comms: a flat comm reads "no" whatever the ranks
    const Json nc = yes_no_tree("bcast", "is_node_consecutive", "CONSECUTIVE", "SCATTERED");
    expect_picks_as_flag_changes(nc, point("bcast", 8, 4, 8), &CallPoint::is_node_consecutive, "CONSECUTIVE",
                                 "SCATTERED");
    EXPECT_EQ(pick(nc, point("bcast", 8, 8, 8)), "SCATTERED");
    // 5.0.1's check_hierarchy sets NODE_CONSECUTIVE only between one node and one rank
    // per node: a single node reads "no" too, as does a subcomm
    EXPECT_EQ(pick(nc, point("bcast", 8, 1, 8)), "SCATTERED");
    EXPECT_EQ(pick(nc, subcomm("bcast", 4, 8)), "SCATTERED");
}

TEST(CselShow, InterCommunicators) {
    const Json tree = tree_of("bcast", algo("INTRA"));
    CallPoint p = point("bcast", 4, 2, 8);
    EXPECT_EQ(pick(tree, p), "INTRA");
    p.inter = true;
    EXPECT_EQ(pick(tree, p), "INTER");
}

TEST(CselShow, ContainerNameAndParamsInFileOrder) {
    const Json tree = Json::parse(R"({"collective=bcast": {"comm_size <= 4": {
        "algorithm=MPIR_Bcast_intra_hier": {"segsize=65536": {}, "inter_algo = tsp_ring": {}}},
        "comm_size=any": {"composition=X": {}}}})");
    const Selection s = select(tree, point("bcast", 4, 2, 8));
    ASSERT_TRUE(s.matched());
    EXPECT_EQ(s.container, "MPIR_Bcast_intra_hier");
    ASSERT_EQ(s.params.size(), 2u);
    EXPECT_EQ(s.params[1], (std::pair<std::string, std::string>{"inter_algo", "tsp_ring"}));
    EXPECT_EQ(s.describe(), "MPIR_Bcast_intra_hier segsize=65536 inter_algo=tsp_ring");
    EXPECT_EQ(s.path, (std::vector<std::string>{"collective=bcast", "comm_size <= 4"}));
    EXPECT_EQ(pick(tree, point("bcast", 5, 2, 8)), "composition=X");
}

TEST(CselShow, NoMatchNamesTheChain) {
    // a parent-only branch: flat comms fall off it
    const Json tree = tree_of("bcast", Json::parse(R"({"comm_hierarchy=parent": {"algorithm=HIER": {}}})"));
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 8)), "HIER");
    const Selection s = select(tree, point("bcast", 8, 8, 8));
    EXPECT_EQ(s.kind, Selection::Kind::no_match);
    EXPECT_EQ(s.path, (std::vector<std::string>{"collective=bcast", "comm_type=intra"}));
    EXPECT_EQ(s.describe(), "NO MATCH at collective=bcast > comm_type=intra: MPICH asserts");
    // an empty subtree: MPICH's search gets no node
    const Json empty = Json::parse(R"({"collective=bcast": {}})");
    EXPECT_EQ(pick(empty, point("bcast", 8, 4, 8)), "NO MATCH at collective=bcast: MPICH asserts");
    // deeper, after pruning: the message chain has no fallback
    const Json open = tree_of("bcast", Json::parse(R"({"avg_msg_size<=64": {"algorithm=SMALL": {}}})"));
    EXPECT_EQ(pick(open, point("bcast", 8, 4, 64)), "SMALL");
    EXPECT_EQ(pick(open, point("bcast", 8, 4, 65)), "NO MATCH at collective=bcast > comm_type=intra: MPICH asserts");
}

TEST(CselShow, KeysUndefinedForTheCollectiveAssert) {
    const Json tree = Json::parse(R"({"collective=barrier": {"avg_msg_size<=8": {"algorithm=A": {}},
                                                            "avg_msg_size=any": {"algorithm=B": {}}},
                                      "collective=bcast": {"is_commutative=yes": {"algorithm=A": {}},
                                                           "is_commutative=no": {"algorithm=B": {}}},
                                      "collective=ibcast": {"count<=8": {"algorithm=A": {}},
                                                            "count=any": {"algorithm=B": {}}}})");
    const Selection barrier = select(tree, point("barrier", 4, 2, 0));
    EXPECT_EQ(barrier.kind, Selection::Kind::undefined);
    EXPECT_FALSE(barrier.matched());
    EXPECT_EQ(barrier.describe(), "MPICH ASSERTS at collective=barrier > avg_msg_size<=8: avg_msg_size is not "
                                  "defined for barrier");
    EXPECT_EQ(select(tree, point("bcast", 4, 2, 8)).kind, Selection::Kind::undefined);
    EXPECT_EQ(select(tree, point("ibcast", 4, 2, 8)).kind, Selection::Kind::undefined);  // get_count has no ibcast
    // gatherv, scatterv and their schedules: csel.c sizes them by none of its keys, nor
    // tests their sendbuf; a tree without such a key selects
    for (const char* coll : {"gatherv", "igatherv", "scatterv", "iscatterv"}) {
        for (const auto& [held, other] : {std::pair<std::string, std::string>{"count<=8", "count=any"},
                                          {"avg_msg_size<=8", "avg_msg_size=any"},
                                          {"total_msg_size<=8", "total_msg_size=any"},
                                          {"is_sendbuf_inplace=yes", "is_sendbuf_inplace=no"}}) {
            const Json chain{{held, algo("A")}, {other, algo("B")}};
            EXPECT_EQ(select(tree_of(coll, chain), point(coll, 8, 4, 8)).kind, Selection::Kind::undefined)
                << coll << " " << held;
        }
        EXPECT_EQ(pick(tree_of(coll, algo("A")), point(coll, 8, 4, 8)), "A") << coll;
    }
}

TEST(CselShow, TreesAndPointsMpichRefuses) {
    const CallPoint p = point("bcast", 4, 2, 8);
    // atoi reads "x4" as 0: size 8 > 0, so the walk goes on to the unknown key
    EXPECT_THROW(select(Json::parse(R"({"collective=bcast": {"comm_size<=x4": {"algorithm=A": {}}, "bogus": {}}})"),
                        point("bcast", 8, 4, 8)),
                 TreeError);
    EXPECT_THROW(select(Json::parse(R"({"collective=bcast": {"comm_size=any": 3}})"), p), TreeError);
    EXPECT_THROW(select(Json::parse(R"({"collective=bcst": {"comm_size=any": {"algorithm=A": {}}}})"), p),
                 TreeError);
    EXPECT_THROW(select(tree_of("bcast", algo("A")), point("nosuch", 4, 2, 8)), std::invalid_argument);
    EXPECT_THROW(select(tree_of("bcast", algo("A")), point("bcast", 4, 5, 8)), std::invalid_argument);
    CallPoint zero = p;
    zero.type_size = 0;
    EXPECT_THROW(select(tree_of("bcast", algo("A")), zero), std::invalid_argument);
}

TEST(CselShow, CommKeysAboveTheCollectives) {
    const Json tree = Json::parse(R"({"comm_type=intra": {"collective=bcast": {"algorithm=INTRA_BCAST": {}},
                                                         "collective=reduce": {"algorithm=INTRA_REDUCE": {}}},
                                      "comm_type=inter": {"collective=bcast": {"algorithm=INTER_BCAST": {}}}})");
    EXPECT_EQ(pick(tree, point("reduce", 4, 2, 8)), "INTRA_REDUCE");
    CallPoint inter = point("reduce", 4, 2, 8);
    inter.inter = true;
    EXPECT_EQ(select(tree, inter).kind, Selection::Kind::no_match);
    // a non-collective key among the collectives: every communicator meets it
    const Json mixed = Json::parse(R"({"collective=bcast": {"algorithm=A": {}}, "comm_size=any": {"algorithm=B": {}}})");
    EXPECT_EQ(select(mixed, point("bcast", 4, 2, 8)).kind, Selection::Kind::undefined);
}

// ------------------------------------------------------------------ the table

const Json kBcastChain = Json::parse(R"({"avg_msg_size<=0": {"algorithm=SMP": {}},
                                         "avg_msg_size<=12288": {"algorithm=BINOMIAL": {}},
                                         "avg_msg_size=any": {"algorithm=RING": {}}})");

TEST(CselShowTable, MergesMessageSizesIntoContiguousRanges) {
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {4};
    options.ppns = {1};
    const std::vector<TableRow> rows = selection_table(tree_of("bcast", kBcastChain), options);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].selection.describe(), "SMP");
    EXPECT_EQ(bytes_text(rows[0]), "0");
    EXPECT_EQ(rows[1].selection.describe(), "BINOMIAL");
    EXPECT_EQ(rows[1].min_bytes, 1u);
    EXPECT_EQ(rows[1].max_bytes, 12288u);
    EXPECT_EQ(rows[2].selection.describe(), "RING");
    EXPECT_EQ(bytes_text(rows[2]), "12289..16777216");
    EXPECT_EQ(rows[2].comm_size, 4);
    EXPECT_EQ(rows[2].ppn, 1);
    EXPECT_EQ(rows[2].nodes, 4);
}

TEST(CselShowTable, TypeSizeGivesWholeElements) {
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {4};
    options.ppns = {2};
    options.type_size = 8;
    const std::vector<TableRow> rows = selection_table(tree_of("bcast", kBcastChain), options);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(bytes_text(rows[0]), "0");
    EXPECT_EQ(bytes_text(rows[1]), "8..12288");  // 1..1536 elements
    EXPECT_EQ(bytes_text(rows[2]), "12296..16777216");
}

TEST(CselShowTable, SizeDependentBoundsPerCommSize) {
    // total = bytes x comm size: the change is at 8192 / 8 on 8 ranks, 8192 / 16 on 16
    const Json tree = tree_of("bcast", Json::parse(R"({"total_msg_size<=8192": {"algorithm=SMALL": {}},
                                                       "total_msg_size=any": {"algorithm=LARGE": {}}})"));
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {8, 16};
    options.ppns = {1};
    const std::vector<TableRow> rows = selection_table(tree, options);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(bytes_text(rows[0]), "0..1024");
    EXPECT_EQ(bytes_text(rows[1]), "1025..16777216");
    EXPECT_EQ(rows[2].comm_size, 16);
    EXPECT_EQ(bytes_text(rows[2]), "0..512");
    EXPECT_EQ(rows[3].selection.describe(), "LARGE");
}

TEST(CselShowTable, DefaultGridFromTheTreesBounds) {
    const Json tree = Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {
        "comm_size<8": {"comm_avg_ppn<=3": {"algorithm=A": {}}, "comm_size=any": {"algorithm=B": {}}},
        "comm_size=pow2": {"algorithm=C": {}},
        "comm_size=any": {"algorithm=D": {}}}},
      "collective=reduce": {"comm_size<=100": {"algorithm=E": {}}, "comm_size=any": {"algorithm=F": {}}}})");
    // <8: 7 and 8 (pruned) and 9 (searched); pow2 adds 4 (next to 7), 12 (next to 8), 8 (next to 9)
    EXPECT_EQ(default_comm_sizes(tree, "bcast"), (std::vector<int>{4, 7, 8, 9, 12}));
    EXPECT_EQ(default_comm_sizes(tree, "reduce"), (std::vector<int>{100, 101}));
    EXPECT_EQ(default_comm_sizes(tree, "allreduce"), (std::vector<int>{16}));
    EXPECT_EQ(default_ppns(tree, "bcast"), (std::vector<int>{1, 2, 3, 4}));
    EXPECT_EQ(default_ppns(tree, "reduce"), (std::vector<int>{1, 2}));
    // comm_avg_ppn<6: the answer changes between ppn 5 and 6
    const Json lt = tree_of("bcast", Json::parse(R"({"comm_avg_ppn<6": {"algorithm=A": {}}, "any": {"algorithm=B": {}}})"));
    EXPECT_EQ(default_ppns(lt, "bcast"), (std::vector<int>{1, 2, 5, 6}));
    const std::vector<std::uint64_t> sizes = table_message_sizes(tree_of("bcast", kBcastChain), "bcast", 4, 1);
    EXPECT_EQ(sizes.front(), 0u);
    EXPECT_EQ(sizes.back(), 16777216u);
    for (std::uint64_t expected : {1u, 12288u, 12289u, 4096u})
        EXPECT_NE(std::find(sizes.begin(), sizes.end(), expected), sizes.end()) << expected;
}

TEST(CselShowTable, PpnAboveTheCommSizeIsOneNode) {
    const Json tree = tree_of("bcast", Json::parse(R"({"comm_size=node_comm_size": {"algorithm=ONE_NODE": {}},
                                                       "comm_hierarchy=parent": {"algorithm=HIER": {}}})"));
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {4};
    options.ppns = {1, 2, 8};
    const std::vector<TableRow> rows = selection_table(tree, options);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].ppn, 1);
    EXPECT_EQ(rows[0].selection.describe(), "NO MATCH at collective=bcast > comm_type=intra: MPICH asserts");
    EXPECT_EQ(bytes_text(rows[0]), "0..16777216");
    EXPECT_EQ(rows[1].selection.describe(), "HIER");
    EXPECT_EQ(rows[2].ppn, 4);  // 8 per node on 4 ranks: one node
    EXPECT_EQ(rows[2].nodes, 1);
    EXPECT_EQ(rows[2].selection.describe(), "ONE_NODE");
    // by default, node_comm_size adds the single node to the ppn grid
    options.ppns.clear();
    const std::vector<TableRow> defaults = selection_table(tree, options);
    ASSERT_EQ(defaults.size(), 3u);  // ppn 1, 2, 4
    EXPECT_EQ(defaults.back().ppn, 4);
}

TEST(CselShowTable, PrintsAlignedColumnsAndJson) {
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {4};
    options.ppns = {1};
    const Json tree = tree_of("bcast", Json::parse(R"({"avg_msg_size<=0": {"algorithm=MPIR_Bcast_intra_smp": {}},
      "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=65536": {}, "inter_algo=tsp_ring": {}}}})"));
    const std::vector<TableRow> rows = selection_table(tree, options);
    std::ostringstream out;
    print_table(rows, out);
    EXPECT_EQ(out.str(),
              "collective  comm_size  ppn  bytes        selection\n"
              "bcast       4          1    0            MPIR_Bcast_intra_smp\n"
              "bcast       4          1    1..16777216  MPIR_Bcast_intra_hier segsize=65536 inter_algo=tsp_ring\n");
    const Json json = table_json(rows);
    ASSERT_EQ(json.size(), 2u);
    EXPECT_EQ(json[1]["algorithm"], "MPIR_Bcast_intra_hier");
    EXPECT_EQ(json[1]["params"], (Json{{"segsize", "65536"}, {"inter_algo", "tsp_ring"}}));
    EXPECT_EQ(json[1]["min_bytes"], 1);
    EXPECT_EQ(json[1]["max_bytes"], 16777216);
    EXPECT_EQ(json[1]["nodes"], 4);
    EXPECT_EQ(json[1]["matched"], true);
    EXPECT_EQ(json[0]["path"], (Json{"collective=bcast", "comm_type=intra", "avg_msg_size<=0"}));
}

TEST(CselShowTable, RejectsBadOptions) {
    TableOptions options;
    options.collectives = {"bcast"};
    options.comm_sizes = {0};
    EXPECT_THROW(selection_table(tree_of("bcast", kBcastChain), options), std::invalid_argument);
    options.comm_sizes = {4};
    options.collectives = {"broadcast"};
    EXPECT_THROW(selection_table(tree_of("bcast", kBcastChain), options), std::invalid_argument);
}

// ------------------------------------------------------------------ trees from build_tree

using test::hier_bcast;
using test::small_stock;

// The tree of test::tuned_bcast_input.
Json tuned_tree() { return build_tree(small_stock(), test::tuned_bcast_input()).tree; }

TEST(CselShowBuiltTree, TunedPointsSelectTheTunedAlgorithm) {
    const Json tree = tuned_tree();
    const std::string hier16k = "MPIR_Bcast_intra_hier inter_algo=tsp_kary segsize=16384";  // Params sort by name
    const std::string hier128k = "MPIR_Bcast_intra_hier inter_algo=tsp_kary segsize=131072";
    for (int comm_size : {8, 16})
        for (int ppn : {2, 4}) {
            if (comm_size == 8 && ppn == 4) continue;
            const int nodes = nodes_for_ppn(comm_size, ppn);
            EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, 65536)), hier16k) << comm_size << " " << ppn;
            EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, 1048576)), hier128k) << comm_size << " " << ppn;
            // the midpoints: (4096 + 65536) / 2 and (65536 + 1 MiB) / 2
            EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, 34817)), hier16k);
            EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, 557056)), hier16k);
            EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, 557057)), hier128k);
        }
    // 16 ranks below the tuned sizes: the stock subtree, its comm_size<8 searched (16 > 8)
    EXPECT_EQ(pick(tree, point("bcast", 16, 8, 34816)), "MPIR_Bcast_intra_scatter_ring_allgather");
    EXPECT_EQ(pick(tree, point("bcast", 16, 8, 4096)), "MPIR_Bcast_intra_binomial");
    // untuned places keep the stock choice: 8 ranks at ppn 4, flat comms, other sizes,
    // message sizes below the tuned ones
    for (const auto& [comm_size, nodes, bytes] : std::vector<std::tuple<int, int, std::uint64_t>>{
             {8, 2, 1048576}, {8, 2, 34816}, {8, 4, 34816}, {16, 16, 1048576}, {32, 16, 1048576},
             {6, 3, 1048576}, {7, 3, 34816}, {16, 8, 34816}})
        EXPECT_EQ(pick(tree, point("bcast", comm_size, nodes, bytes)),
                  pick(small_stock(), point("bcast", comm_size, nodes, bytes)))
            << comm_size << " ranks, " << nodes << " nodes, " << bytes << " B";
}

TEST(CselShowBuiltTree, StockLeafBelowMessageKeysKeepsItsStrictCommSizeTest) {
    // At 8 ranks the stock tree's comm_size<8 is pruned at top level (false: scatter ring
    // allgather beyond 12 KiB) but would be searched as <= 8 inside a tuned branch:
    // build_tree writes it there as comm_size<=7, which reads the same both ways.
    const Json tree = tuned_tree();
    EXPECT_EQ(pick(small_stock(), point("bcast", 8, 4, 34816)), "MPIR_Bcast_intra_scatter_ring_allgather");
    const Selection inside = select(tree, point("bcast", 8, 4, 34816));
    EXPECT_EQ(inside.describe(), "MPIR_Bcast_intra_scatter_ring_allgather");
    EXPECT_EQ(inside.path, (std::vector<std::string>{"collective=bcast", "comm_type=intra", "comm_hierarchy=parent",
                                                     "comm_size<=12", "comm_avg_ppn<=3", "avg_msg_size<=34816",
                                                     "comm_size=any", "avg_msg_size=any"}));
    EXPECT_EQ(pick(tree, point("bcast", 7, 4, 34816)), pick(small_stock(), point("bcast", 7, 4, 34816)));
}

// Tuned at one rank per node: the choices hold for such user comms (a hierarchy of 4
// nodes: comm_avg_ppn<=1 holds), not for MPICH's node_roots_comm of the same size (no
// hierarchy: comm_avg_ppn fails, csel.c 654-660), which keeps the stock choice.
TEST(CselShowBuiltTree, FlatChoicesSkipMpichSubcomms) {
    TreeInput input;
    input.choices["bcast"] = {{4, 1, 1024, Choice::stock_tree()},
                              {4, 1, 65536, Choice::container("MPIR_Bcast_intra_scatter_ring_allgather")}};
    const Json tree = build_tree(small_stock(), input).tree;
    EXPECT_TRUE(check_tree(tree).empty()) << check_tree(tree).front();
    EXPECT_EQ(pick(tree, point("bcast", 4, 4, 65536)), "MPIR_Bcast_intra_scatter_ring_allgather (whole comm)");
    EXPECT_EQ(pick(tree, point("bcast", 4, 4, 1024)), "MPIR_Bcast_intra_binomial");
    const Selection roots = select(tree, subcomm("bcast", 4, 65536));
    EXPECT_EQ(roots.describe(), "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(roots.path, (std::vector<std::string>{"collective=bcast", "comm_type=intra", "comm_hierarchy=any",
                                                    "comm_size<=4", "comm_avg_ppn=any", "comm_size<=7",
                                                    "avg_msg_size=any"}));
}

// An alltoallv tree tuned at 8 ranks, 2 per node, by the block per pair: the tree's
// total_msg_size bounds (the blocks' times 8) select the tuned choices at the blocks the
// call sends, as csel.c sums the sendcounts.
TEST(CselShowBuiltTree, AlltoallvTunedByTheBlockSelectsAtTheBlock) {
    Json stock = small_stock();
    const Json intra{{"is_sendbuf_inplace=yes", algo("MPIR_Alltoallv_intra_pairwise_sendrecv_replace")},
                     {"is_sendbuf_inplace=no", algo("MPIR_Alltoallv_intra_scattered")}};
    stock["collective=alltoallv"] = {{"comm_type=intra", intra},
                                     {"comm_type=inter", algo("MPIR_Alltoallv_inter_pairwise_exchange")}};
    TreeInput input;
    input.choices["alltoallv"] = {
        {8, 2, 1024, Choice::container("MPIR_Alltoallv_intra_hier", {{"inter_algo", "direct"}})},
        {8, 2, 65536, Choice::stock_tree()}};
    const Json tree = build_tree(stock, input).tree;
    EXPECT_TRUE(check_tree(tree).empty()) << check_tree(tree).front();
    const std::string hier = "MPIR_Alltoallv_intra_hier inter_algo=direct";
    EXPECT_EQ(pick(tree, point("alltoallv", 8, 4, 1024)), hier);
    // the blocks' midpoint, 1024 + (65536 - 1024) / 2, times 8 in the tree
    EXPECT_EQ(pick(tree, point("alltoallv", 8, 4, 33280)), hier);
    EXPECT_EQ(pick(tree, point("alltoallv", 8, 4, 33281)), "MPIR_Alltoallv_intra_scattered");
    EXPECT_EQ(pick(tree, point("alltoallv", 8, 4, 1023)), "MPIR_Alltoallv_intra_scattered");
}

TEST(CselShowBuiltTree, TableOfTheTunedTree) {
    TableOptions options;
    options.comm_sizes = {16};
    options.ppns = {4};
    const std::vector<TableRow> rows = selection_table(tuned_tree(), options);
    // reduce and allreduce are not in this tree: one no-match row each
    std::vector<std::string> bcast;
    for (const TableRow& row : rows)
        if (row.collective == "bcast") bcast.push_back(bytes_text(row) + " " + row.selection.describe());
    EXPECT_EQ(bcast, (std::vector<std::string>{
                         "0..12288 MPIR_Bcast_intra_binomial",
                         "12289..34816 MPIR_Bcast_intra_scatter_ring_allgather",
                         "34817..557056 MPIR_Bcast_intra_hier inter_algo=tsp_kary segsize=16384",
                         "557057..16777216 MPIR_Bcast_intra_hier inter_algo=tsp_kary segsize=131072"}));
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[4].collective, "reduce");
    EXPECT_EQ(rows[4].selection.kind, Selection::Kind::no_match);
}

TEST(CselShowGeneric, MpichGenericTreeSelections) {
    const std::string path = test::generic_json();
    if (path.empty()) GTEST_SKIP() << "no MPICH generic.json (set MPICH_GENERIC_JSON)";
    const Json tree = load_tree(path);
    // bcast, 8 ranks, 2 per node: comm_size<8 pruned (false), pow2, parent
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 0)), "MPIR_Bcast_intra_smp");
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 12288)), "MPIR_Bcast_intra_binomial");
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 12289)), "MPIR_Bcast_intra_scatter_recursive_doubling_allgather");
    EXPECT_EQ(pick(tree, point("bcast", 8, 4, 524289)), "MPIR_Bcast_intra_scatter_ring_allgather");
    EXPECT_EQ(pick(tree, point("bcast", 7, 4, 524289)), "MPIR_Bcast_intra_binomial");
    // allreduce: recursive doubling below pof2 elements, then reduce-scatter/allgather
    EXPECT_EQ(pick(tree, point("allreduce", 64, 32, 63)), "MPIR_Allreduce_intra_recursive_doubling");
    EXPECT_EQ(pick(tree, point("allreduce", 64, 32, 64)), "MPIR_Allreduce_intra_reduce_scatter_allgather");
    // barrier: smp on a parent comm, else 5.0.1's k_dissemination with its parameter
    EXPECT_EQ(pick(tree, point("barrier", 8, 4, 0)), "MPIR_Barrier_intra_smp");
    EXPECT_EQ(pick(tree, point("barrier", 8, 8, 0)), "MPIR_Barrier_intra_k_dissemination k=2");
    EXPECT_EQ(pick(tree, subcomm("barrier", 4, 0)), "MPIR_Barrier_intra_k_dissemination k=2");
    // an empty bcast: smp on 4 ranks of one node (a parent comm), binomial on a node_comm
    // of 4 (no hierarchy, no parent comm)
    EXPECT_EQ(pick(tree, point("bcast", 4, 1, 0)), "MPIR_Bcast_intra_smp");
    EXPECT_EQ(pick(tree, subcomm("bcast", 4, 0)), "MPIR_Bcast_intra_binomial");
    // scan: smp where the ranks are node-consecutive, which one node is not in 5.0.1
    EXPECT_EQ(pick(tree, point("scan", 8, 4, 64)), "MPIR_Scan_intra_smp");
    EXPECT_EQ(pick(tree, point("scan", 8, 1, 64)), "MPIR_Scan_intra_recursive_doubling");
    EXPECT_EQ(pick(tree, point("scan", 8, 8, 64)), "MPIR_Scan_intra_recursive_doubling");
    // every collective of the tree answers something (no throw) at a plain point
    for (const std::string& collective : collectives_of(tree)) EXPECT_NO_THROW(select(tree, point(collective, 8, 4, 64)));
}

}  // namespace
}  // namespace hiertune::csel
