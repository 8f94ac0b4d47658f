// The tools' view of the plugin's grammar (hier_grammar.h) and its tree check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hier_grammar.h"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/grammar.hpp"
#include "mpich_trees.hpp"

namespace hiertune::grammar {
namespace {

bool has(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// A collective whose hier algorithm takes one parameter, the top leaders' step from a
// list of its own (hier_grammar.h's MPII_HIER_INTER_ALGOS_<COLL>), and whose
// non-blocking form has the parameterless tsp_hier schedule.
struct OneStepHier {
    std::string collective;  // "alltoallv"
    std::string container;   // "MPIR_Alltoallv_intra_hier"
    std::string schedule;    // "MPIR_Ialltoallv_intra_tsp_hier"
    std::string cvar;        // "MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM"
};

// Its algorithms as the grammar gives them: no segments, and `inter` the whole list.
void expect_one_step_hier(const OneStepHier& c, const std::vector<std::string>& inter) {
    const Algorithm* hier = find(c.collective, "hier");
    ASSERT_NE(hier, nullptr) << c.collective;
    EXPECT_EQ(hier_algorithm(c.collective), hier);
    EXPECT_EQ(hier->container, c.container);
    EXPECT_EQ(find(c.container), hier);
    ASSERT_EQ(hier->params.size(), 1u) << c.collective;
    EXPECT_EQ(hier->params[0].name, "inter_algo");
    EXPECT_EQ(hier->cvar(hier->params[0]), c.cvar);
    EXPECT_EQ(values(*hier, "inter_algo"), inter) << c.collective;
    for (const std::string& item : inter) EXPECT_TRUE(valid(*hier, "inter_algo", item)) << item;
    EXPECT_FALSE(valid(*hier, "segsize", "4096")) << c.collective;
    EXPECT_EQ(hier->segments, SegmentCut::none);
    EXPECT_EQ(segmented_bytes(*hier, 4096, 8), std::nullopt);
    EXPECT_FALSE(takes_seg_submodules(c.collective));
    const Algorithm* schedule = hier_algorithm("i" + c.collective);
    ASSERT_NE(schedule, nullptr) << c.collective;
    EXPECT_EQ(schedule->item, "tsp_hier");
    EXPECT_EQ(schedule->container, c.schedule);
    EXPECT_EQ(find(c.schedule), schedule);
    EXPECT_EQ(schedule->blocking, c.collective);
    EXPECT_TRUE(schedule->params.empty());
}

TEST(Grammar, AlgorithmsAndParameters) {
    EXPECT_EQ(collectives(), (std::vector<std::string>{"bcast", "reduce", "allreduce", "allgather", "gather", "scatter",
                                                       "barrier", "scan", "exscan", "reduce_scatter",
                                                       "reduce_scatter_block", "allgatherv", "alltoall",
                                                       "alltoallv", "gatherv", "scatterv"}));
    const Algorithm* hier = find("bcast", "hier");
    ASSERT_NE(hier, nullptr);
    EXPECT_EQ(hier->container, "MPIR_Bcast_intra_hier");
    EXPECT_EQ(find("MPIR_Bcast_intra_hier"), hier);
    ASSERT_EQ(hier->params.size(), 11u);
    EXPECT_EQ(hier->params[1].name, "inter_algo");
    EXPECT_TRUE(hier->params[1].named);
    EXPECT_EQ(hier->cvar(hier->params[2]), "MPIR_CVAR_BCAST_HIER_INTER_KVAL");
    // the steps among switch groups: the inter-node three again, with the same values
    EXPECT_EQ(hier->params[5].name, "up_inter_algo");
    EXPECT_EQ(hier->cvar(hier->params[7]), "MPIR_CVAR_BCAST_HIER_UP_INTER_CHUNK_SIZE");
    EXPECT_EQ(values(*hier, "up_inter_algo"), values(*hier, "inter_algo"));
    // and among package leaders inside a node
    EXPECT_EQ(hier->params[8].name, "down_inter_algo");
    EXPECT_EQ(hier->cvar(hier->params[9]), "MPIR_CVAR_BCAST_HIER_DOWN_INTER_KVAL");
    EXPECT_EQ(values(*hier, "down_inter_algo"), values(*hier, "inter_algo"));
    const Algorithm* chain = find("reduce", "seg_chain");
    ASSERT_NE(chain, nullptr);
    ASSERT_NE(chain->param("fanout"), nullptr);
    EXPECT_EQ(chain->cvar(*chain->param("fanout")), "MPIR_CVAR_REDUCE_SEG_FANOUT");
    EXPECT_EQ(find("reduce", "seg_binary")->param("fanout"), nullptr);
    EXPECT_EQ(find("allreduce", "seg_chain"), nullptr);
    EXPECT_EQ(find("MPIR_Bcast_intra_binomial"), nullptr);
}

// What the segment size cuts decides which configurations run the same plan (sweep.hpp).
TEST(Grammar, SegmentSizesCutTheMessageOrBlocks) {
    for (const std::string collective : {"bcast", "reduce", "allreduce"})
        EXPECT_EQ(find(collective, "hier")->segments, SegmentCut::message) << collective;
    EXPECT_EQ(find("allgather", "hier")->segments, SegmentCut::node_block);
    EXPECT_TRUE(find("allgather", "hier")->param("segsize"));
    EXPECT_EQ(find("gather", "hier")->segments, SegmentCut::none);  // no segments
    EXPECT_EQ(find("bcast", "seg_chain")->segments, SegmentCut::message);
    EXPECT_EQ(find("ibcast", "tsp_hier")->segments, SegmentCut::none);  // no parameters of its own
    EXPECT_EQ(segmented_bytes(*find("bcast", "hier"), 4096, 8), std::optional<std::uint64_t>(4096));
    EXPECT_EQ(segmented_bytes(*find("allgather", "hier"), 4096, 8), std::optional<std::uint64_t>(32768));
    EXPECT_EQ(segmented_bytes(*find("gather", "hier"), 4096, 8), std::nullopt);
    EXPECT_THROW(segmented_bytes(*find("allgather", "hier"), 4096, 0), std::invalid_argument);
}

TEST(Grammar, NonBlockingFormsAreSchedulesWithoutParameters) {
    EXPECT_EQ(nonblocking_collectives(), (std::vector<std::string>{"ibcast", "ireduce", "iallreduce", "iallgather",
                                                                   "igather", "iscatter", "ibarrier", "iscan",
                                                                   "iexscan", "ireduce_scatter",
                                                                   "ireduce_scatter_block", "iallgatherv",
                                                                   "ialltoall", "ialltoallv", "igatherv",
                                                                   "iscatterv"}));
    const Algorithm* ibcast = hier_algorithm("ibcast");
    ASSERT_NE(ibcast, nullptr);
    EXPECT_EQ(ibcast->item, "tsp_hier");
    EXPECT_EQ(ibcast->container, "MPIR_Ibcast_intra_tsp_hier");
    EXPECT_EQ(ibcast->blocking, "bcast");
    EXPECT_TRUE(ibcast->params.empty());
    EXPECT_EQ(find("MPIR_Ibcast_intra_tsp_hier"), ibcast);
    EXPECT_TRUE(known_container("ibcast", "MPIR_Ibcast_intra_tsp_hier"));
    EXPECT_EQ(hier_algorithm("bcast"), find("bcast", "hier"));
    EXPECT_TRUE(hier_algorithm("bcast")->blocking.empty());
    EXPECT_EQ(hier_algorithm("alltoallw"), nullptr);
}

TEST(Grammar, CollectivesAreATypeOfTheGrammarsNames) {
    // every collective of the grammar and its non-blocking schedule form, in its order
    const std::vector<std::string>& names = grammar::collectives();
    ASSERT_EQ(names.size(), grammar::nonblocking_collectives().size());
    for (std::size_t k = 0; k < names.size(); ++k) {
        const grammar::Collective blocking = grammar::Collective::parse(names[k]);
        const grammar::Collective nonblocking = grammar::Collective::parse(grammar::nonblocking_collectives()[k]);
        EXPECT_EQ(static_cast<std::size_t>(blocking.kind()), k);
        EXPECT_EQ(blocking.name(), names[k]);
        EXPECT_FALSE(blocking.nonblocking());
        EXPECT_TRUE(nonblocking.nonblocking());
        EXPECT_EQ(nonblocking.kind(), blocking.kind());
        EXPECT_EQ(nonblocking.blocking(), blocking);
        EXPECT_NE(nonblocking, blocking);
        EXPECT_TRUE(grammar::is_kind(nonblocking.name(), blocking.kind()));
    }
    EXPECT_EQ(grammar::Collective::parse("ibcast"), grammar::Collective(grammar::Collective::bcast, true));
    EXPECT_EQ(grammar::Collective(grammar::Collective::allreduce).mpi_function(), "MPI_Allreduce");
    EXPECT_EQ(grammar::Collective(grammar::Collective::allgather, true).mpi_function(), "MPI_Iallgather");
    // a name held as text is the collective when it is its exact name
    EXPECT_TRUE(std::string("ibarrier") == grammar::Collective(grammar::Collective::barrier, true));
    EXPECT_TRUE(std::string("ibarrier") != grammar::Collective::barrier);
    EXPECT_TRUE(grammar::is_kind("ibarrier", grammar::Collective::barrier));
    EXPECT_FALSE(grammar::is_kind("isend", grammar::Collective::barrier));
    // scan and exscan, MPI_Iscan's "iscan" not read as an "i" before anything else
    EXPECT_EQ(grammar::Collective::find("iscan"), grammar::Collective(grammar::Collective::scan, true));
    EXPECT_EQ(grammar::Collective::find("exscan"), grammar::Collective(grammar::Collective::exscan));
    EXPECT_EQ(grammar::Collective::parse("iexscan").kind(), grammar::Collective::exscan);
    EXPECT_EQ(grammar::Collective(grammar::Collective::scan).mpi_function(), "MPI_Scan");
    EXPECT_EQ(grammar::Collective(grammar::Collective::exscan, true).mpi_function(), "MPI_Iexscan");
    EXPECT_TRUE(grammar::is_kind("iscan", grammar::Collective::scan));
    EXPECT_FALSE(grammar::is_kind("exscan", grammar::Collective::scan));
    EXPECT_FALSE(grammar::Collective::find("iiscan"));
    // the reduce-scatters: neither reduce's nor each other's, whatever their names begin with
    EXPECT_EQ(grammar::Collective::find("ireduce_scatter"),
              grammar::Collective(grammar::Collective::reduce_scatter, true));
    EXPECT_EQ(grammar::Collective::find("reduce_scatter_block"),
              grammar::Collective(grammar::Collective::reduce_scatter_block));
    EXPECT_EQ(grammar::Collective(grammar::Collective::reduce_scatter).mpi_function(), "MPI_Reduce_scatter");
    EXPECT_EQ(grammar::Collective(grammar::Collective::reduce_scatter_block, true).mpi_function(),
              "MPI_Ireduce_scatter_block");
    EXPECT_FALSE(grammar::is_kind("reduce_scatter", grammar::Collective::reduce));
    EXPECT_FALSE(grammar::is_kind("ireduce_scatter_block", grammar::Collective::reduce_scatter));
    EXPECT_TRUE(grammar::is_kind("ireduce_scatter_block", grammar::Collective::reduce_scatter_block));
    EXPECT_FALSE(grammar::Collective::find("reduce_scatterv"));
    // allgatherv: not allgather's, the v no suffix of allgather's name
    EXPECT_EQ(grammar::Collective::find("iallgatherv"), grammar::Collective(grammar::Collective::allgatherv, true));
    EXPECT_EQ(grammar::Collective(grammar::Collective::allgatherv).mpi_function(), "MPI_Allgatherv");
    EXPECT_EQ(grammar::Collective(grammar::Collective::allgatherv, true).mpi_function(), "MPI_Iallgatherv");
    EXPECT_FALSE(grammar::is_kind("allgatherv", grammar::Collective::allgather));
    EXPECT_FALSE(grammar::is_kind("iallgather", grammar::Collective::allgatherv));
    EXPECT_FALSE(grammar::Collective::find("allgathervv"));
    // alltoall and alltoallv: collectives of the plugin, MPI_Ialltoall and MPI_Ialltoallv
    // their non-blocking forms (alltoallv no suffix of alltoall's name); the w form and
    // MPICH's neighbourhood alltoall none
    EXPECT_EQ(grammar::Collective::find("alltoall"), grammar::Collective(grammar::Collective::alltoall));
    EXPECT_EQ(grammar::Collective::find("ialltoall"), grammar::Collective(grammar::Collective::alltoall, true));
    EXPECT_EQ(grammar::Collective(grammar::Collective::alltoall).mpi_function(), "MPI_Alltoall");
    EXPECT_EQ(grammar::Collective(grammar::Collective::alltoall, true).mpi_function(), "MPI_Ialltoall");
    EXPECT_TRUE(grammar::is_kind("ialltoall", grammar::Collective::alltoall));
    EXPECT_FALSE(grammar::is_kind("alltoall", grammar::Collective::allgather));
    EXPECT_EQ(grammar::Collective::find("alltoallv"), grammar::Collective(grammar::Collective::alltoallv));
    EXPECT_EQ(grammar::Collective::find("ialltoallv"), grammar::Collective(grammar::Collective::alltoallv, true));
    EXPECT_EQ(grammar::Collective(grammar::Collective::alltoallv).mpi_function(), "MPI_Alltoallv");
    EXPECT_EQ(grammar::Collective(grammar::Collective::alltoallv, true).mpi_function(), "MPI_Ialltoallv");
    EXPECT_FALSE(grammar::is_kind("alltoallv", grammar::Collective::alltoall));
    EXPECT_FALSE(grammar::is_kind("ialltoall", grammar::Collective::alltoallv));
    // gatherv and scatterv: neither gather's nor scatter's, and allgatherv no "all" before gatherv
    EXPECT_EQ(grammar::Collective::find("igatherv"), grammar::Collective(grammar::Collective::gatherv, true));
    EXPECT_EQ(grammar::Collective::find("scatterv"), grammar::Collective(grammar::Collective::scatterv));
    EXPECT_EQ(grammar::Collective(grammar::Collective::gatherv).mpi_function(), "MPI_Gatherv");
    EXPECT_EQ(grammar::Collective(grammar::Collective::scatterv, true).mpi_function(), "MPI_Iscatterv");
    EXPECT_FALSE(grammar::is_kind("gatherv", grammar::Collective::gather));
    EXPECT_FALSE(grammar::is_kind("iscatter", grammar::Collective::scatterv));
    EXPECT_FALSE(grammar::is_kind("allgatherv", grammar::Collective::gatherv));
    EXPECT_FALSE(grammar::is_kind("iallgatherv", grammar::Collective::gatherv));
    // no collective of the plugin: MPICH's others, MPI's prefix alone, a name with more
    for (const char* other : {"alltoallw", "ialltoallw", "neighbor_alltoall", "neighbor_alltoallv", "i", "",
                              "bcastx", "ii" "bcast", "Bcast", "gathervv", "iigatherv"})
        EXPECT_FALSE(grammar::Collective::find(other)) << other;
    try {
        grammar::Collective::parse("alltoallw");
        ADD_FAILURE() << "parse took alltoallw";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'alltoallw' is not a collective of the plugin (bcast, reduce"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Grammar, ListedCollectivesTakeOnlyTheirOwnInterNodeList) {
    EXPECT_EQ(values(*find("gather", "hier"), "inter_algo"), (std::vector<std::string>{"linear", "binomial", "by_size"}));
    EXPECT_EQ(values(*find("allgather", "hier"), "inter_algo"), (std::vector<std::string>{"auto", "ring", "by_size"}));
    EXPECT_EQ(values(*find("barrier", "hier"), "inter_algo"), (std::vector<std::string>{"auto", "dissemination"}));
    EXPECT_TRUE(valid(*find("scatter", "hier"), "inter_algo", "binomial"));
    EXPECT_FALSE(valid(*find("scatter", "hier"), "inter_algo", "tsp_ring"));  // a tree collective's item
    EXPECT_FALSE(valid(*find("bcast", "hier"), "inter_algo", "ring"));        // allgather's
    EXPECT_FALSE(valid(*find("gather", "hier"), "inter_algo", "auto"));
    EXPECT_EQ(values(*find("barrier", "hier"), "intra_algo"), (std::vector<std::string>{"auto", "binomial", "shm", "by_size"}));
    // the name tune leaves out of its measured configurations is the lists' own item
    EXPECT_EQ(values(*find("scatter", "hier"), "inter_algo").back(), MPII_HIER_BY_SIZE_ITEM);
    EXPECT_EQ(values(*find("bcast", "hier"), "intra_algo").back(), MPII_HIER_BY_SIZE_ITEM);
    EXPECT_EQ(find("gather", "hier")->param("segsize"), nullptr);
    ASSERT_NE(find("allgather", "hier")->param("segsize"), nullptr);
    EXPECT_EQ(find("allgather", "hier")->cvar(*find("allgather", "hier")->param("segsize")),
              "MPIR_CVAR_ALLGATHER_HIER_SEGSIZE");
}

// MPI_Scan and MPI_Exscan: one hier algorithm each, whose one parameter is the leaders'
// exclusive scan (recursive doubling, no segments), and a schedule each for MPI_Iscan and
// MPI_Iexscan; MPICH's own algorithms of them are known containers of theirs only, and
// csel.c gives them no key by bytes or by the op.
TEST(Grammar, ScanAndExscanHaveHierAndTheirSchedules) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kScanInter{MPII_HIER_INTER_ALGOS_SCAN(HIERTUNE_TEST_NAME_)};
    const std::vector<std::string> kExscanInter{MPII_HIER_INTER_ALGOS_EXSCAN(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    for (const std::string coll : {"scan", "exscan"}) {
        const Algorithm* hier = find(coll, "hier");
        ASSERT_NE(hier, nullptr) << coll;
        EXPECT_EQ(hier_algorithm(coll), hier);
        ASSERT_EQ(hier->params.size(), 1u);
        EXPECT_EQ(hier->params[0].name, "inter_algo");
        EXPECT_TRUE(hier->params[0].named);
        // its own list (hier_grammar.h's MPII_HIER_INTER_ALGOS_SCAN, _EXSCAN), none of the tree collectives'
        EXPECT_EQ(values(*hier, "inter_algo"), coll == "scan" ? kScanInter : kExscanInter);
        EXPECT_TRUE(valid(*hier, "inter_algo", "recursive_doubling"));
        EXPECT_FALSE(valid(*hier, "inter_algo", "tsp_kary"));
        EXPECT_EQ(hier->segments, SegmentCut::none);
        EXPECT_FALSE(takes_seg_submodules(coll));
        const Algorithm* schedule = hier_algorithm("i" + coll);
        ASSERT_NE(schedule, nullptr) << coll;
        EXPECT_EQ(schedule->item, "tsp_hier");
        EXPECT_EQ(schedule->blocking, coll);
        EXPECT_TRUE(schedule->params.empty());
        for (const std::string& form : {coll, "i" + coll}) {
            EXPECT_FALSE(mpich_defines("avg_msg_size", form)) << form;
            EXPECT_FALSE(mpich_defines("total_msg_size", form)) << form;
            EXPECT_FALSE(mpich_defines("is_commutative", form)) << form;
        }
    }
    EXPECT_EQ(find("scan", "hier")->container, "MPIR_Scan_intra_hier");
    EXPECT_EQ(find("exscan", "hier")->cvar(find("exscan", "hier")->params[0]), "MPIR_CVAR_EXSCAN_HIER_INTER_ALGORITHM");
    EXPECT_EQ(find("MPIR_Iexscan_intra_tsp_hier"), hier_algorithm("iexscan"));
    EXPECT_TRUE(known_container("scan", "MPIR_Scan_intra_smp"));
    EXPECT_TRUE(known_container("iscan", "MPIR_Iscan_intra_tsp_recursive_doubling"));
    EXPECT_TRUE(known_container("iexscan", "MPIR_Iexscan_intra_sched_recursive_doubling"));
    EXPECT_FALSE(known_container("exscan", "MPIR_Scan_intra_recursive_doubling"));
    EXPECT_FALSE(known_container("scan", "MPIR_Exscan_intra_hier"));
}

// MPI_Reduce_scatter and MPI_Reduce_scatter_block: one hier algorithm each, whose one
// parameter is the top leaders' step (linear, no segments), and a schedule each for their
// non-blocking forms; MPICH's own algorithms are known containers of theirs only (not of
// reduce, not of each other), and csel.c selects them by the vector's bytes and the op.
TEST(Grammar, ReduceScattersHaveHierAndTheirSchedules) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kInter{MPII_HIER_INTER_ALGOS_REDUCE_SCATTER(HIERTUNE_TEST_NAME_)};
    const std::vector<std::string> kBlockInter{MPII_HIER_INTER_ALGOS_REDUCE_SCATTER_BLOCK(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    for (const std::string coll : {"reduce_scatter", "reduce_scatter_block"}) {
        const Algorithm* hier = find(coll, "hier");
        ASSERT_NE(hier, nullptr) << coll;
        EXPECT_EQ(hier_algorithm(coll), hier);
        ASSERT_EQ(hier->params.size(), 1u);
        EXPECT_EQ(hier->params[0].name, "inter_algo");
        // its own list (hier_grammar.h's MPII_HIER_INTER_ALGOS_REDUCE_SCATTER, _BLOCK)
        EXPECT_EQ(values(*hier, "inter_algo"), coll == "reduce_scatter" ? kInter : kBlockInter);
        EXPECT_TRUE(valid(*hier, "inter_algo", "linear"));
        EXPECT_FALSE(valid(*hier, "inter_algo", "tsp_kary"));
        EXPECT_FALSE(valid(*hier, "segsize", "4096"));
        EXPECT_EQ(hier->segments, SegmentCut::none);
        EXPECT_FALSE(takes_seg_submodules(coll));
        const Algorithm* schedule = hier_algorithm("i" + coll);
        ASSERT_NE(schedule, nullptr) << coll;
        EXPECT_EQ(schedule->item, "tsp_hier");
        EXPECT_EQ(schedule->blocking, coll);
        EXPECT_TRUE(schedule->params.empty());
        for (const std::string& form : {coll, "i" + coll}) {
            EXPECT_FALSE(mpich_defines("avg_msg_size", form)) << form;
            EXPECT_TRUE(mpich_defines("total_msg_size", form)) << form;
            EXPECT_TRUE(mpich_defines("is_commutative", form)) << form;
        }
    }
    EXPECT_EQ(find("reduce_scatter_block", "hier")->container, "MPIR_Reduce_scatter_block_intra_hier");
    EXPECT_EQ(find("reduce_scatter", "hier")->cvar(find("reduce_scatter", "hier")->params[0]),
              "MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM");
    EXPECT_EQ(find("MPIR_Ireduce_scatter_block_intra_tsp_hier"), hier_algorithm("ireduce_scatter_block"));
    EXPECT_EQ(requirements("MPIR_Reduce_scatter_block_intra_pairwise"), std::vector<std::string>{"is_commutative=yes"});
    EXPECT_TRUE(known_container("reduce_scatter", "MPIR_Reduce_scatter_intra_recursive_halving"));
    EXPECT_TRUE(known_container("reduce_scatter_block", "MPIR_Reduce_scatter_block_intra_pairwise"));
    EXPECT_TRUE(known_container("ireduce_scatter", "MPIR_Ireduce_scatter_intra_sched_pairwise"));
    EXPECT_TRUE(known_container("reduce_scatter", "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"));
    EXPECT_FALSE(known_container("reduce_scatter", "MPIR_Reduce_scatter_block_intra_pairwise"));
    EXPECT_FALSE(known_container("reduce", "MPIR_Reduce_scatter_intra_pairwise"));
    EXPECT_FALSE(known_container("ireduce_scatter", "MPIR_Ireduce_scatter_block_intra_sched_pairwise"));
    EXPECT_FALSE(known_container("reduce_scatter", "MPIR_Reduce_scatter_block_intra_hier"));
    EXPECT_TRUE(known_container("exscan", "MPIR_Exscan_allcomm_nb"));
}

// MPI_Allgatherv: one hier algorithm, whose one parameter is the top leaders' step (its
// own list, no segments), and a schedule for MPI_Iallgatherv; MPICH's own algorithms are
// known containers of its own (not allgather's, nor allgather's of it), and csel.c
// selects both forms by total_msg_size (the sum of the recvcounts' bytes).
TEST(Grammar, AllgathervHasHierAndItsSchedule) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kInter{MPII_HIER_INTER_ALGOS_ALLGATHERV(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    ASSERT_FALSE(kInter.empty());
    expect_one_step_hier({"allgatherv", "MPIR_Allgatherv_intra_hier", "MPIR_Iallgatherv_intra_tsp_hier",
                          "MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM"},
                         kInter);
    EXPECT_FALSE(valid(*find("allgatherv", "hier"), "inter_algo", "ring"));  // allgather's, not allgatherv's
    for (const std::string form : {"allgatherv", "iallgatherv"}) {
        EXPECT_FALSE(mpich_defines("avg_msg_size", form)) << form;
        EXPECT_TRUE(mpich_defines("total_msg_size", form)) << form;
        EXPECT_FALSE(mpich_defines("is_commutative", form)) << form;
    }
    EXPECT_TRUE(known_container("allgatherv", "MPIR_Allgatherv_intra_brucks"));
    EXPECT_TRUE(known_container("allgatherv", "MPIR_Allgatherv_inter_remote_gather_local_bcast"));
    EXPECT_TRUE(known_container("iallgatherv", "MPIR_Iallgatherv_intra_sched_ring"));
    EXPECT_FALSE(known_container("allgather", "MPIR_Allgatherv_intra_ring"));
    EXPECT_FALSE(known_container("allgatherv", "MPIR_Allgather_intra_ring"));
    EXPECT_FALSE(known_container("iallgatherv", "MPIR_Iallgather_intra_sched_ring"));
    EXPECT_FALSE(known_container("allgather", "MPIR_Allgatherv_intra_hier"));
}

// MPI_Alltoall: one hier algorithm, whose one parameter is the top leaders' step (its own
// list, no segments), and a schedule for MPI_Ialltoall; MPICH's own algorithms are known
// containers of its own (not alltoallv's, nor alltoallv's of it), and csel.c selects both
// forms by avg_msg_size (the block each rank sends each rank) and is_sendbuf_inplace.
TEST(Grammar, AlltoallHasHierAndItsSchedule) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kInter{MPII_HIER_INTER_ALGOS_ALLTOALL(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    const Algorithm* hier = find("alltoall", "hier");
    ASSERT_NE(hier, nullptr);
    EXPECT_EQ(hier_algorithm("alltoall"), hier);
    EXPECT_EQ(hier->container, "MPIR_Alltoall_intra_hier");
    EXPECT_EQ(find("MPIR_Alltoall_intra_hier"), hier);
    ASSERT_EQ(hier->params.size(), 1u);
    EXPECT_EQ(hier->params[0].name, "inter_algo");
    EXPECT_EQ(hier->cvar(hier->params[0]), "MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM");
    EXPECT_EQ(values(*hier, "inter_algo"), kInter);
    ASSERT_FALSE(kInter.empty());
    EXPECT_EQ(kInter.back(), MPII_HIER_BY_SIZE_ITEM);
    for (const std::string& item : kInter) EXPECT_TRUE(valid(*hier, "inter_algo", item)) << item;
    EXPECT_FALSE(valid(*hier, "inter_algo", "ring"));  // allgather's, not alltoall's
    EXPECT_FALSE(valid(*hier, "segsize", "4096"));
    EXPECT_EQ(hier->segments, SegmentCut::none);
    EXPECT_EQ(segmented_bytes(*hier, 4096, 8), std::nullopt);
    EXPECT_FALSE(takes_seg_submodules("alltoall"));
    const Algorithm* schedule = hier_algorithm("ialltoall");
    ASSERT_NE(schedule, nullptr);
    EXPECT_EQ(schedule->item, "tsp_hier");
    EXPECT_EQ(schedule->container, "MPIR_Ialltoall_intra_tsp_hier");
    EXPECT_EQ(schedule->blocking, "alltoall");
    EXPECT_TRUE(schedule->params.empty());
    EXPECT_EQ(find("MPIR_Ialltoall_intra_tsp_hier"), schedule);
    for (const std::string form : {"alltoall", "ialltoall"}) {
        EXPECT_TRUE(mpich_defines("avg_msg_size", form)) << form;
        EXPECT_TRUE(mpich_defines("total_msg_size", form)) << form;
        EXPECT_TRUE(mpich_defines("is_sendbuf_inplace", form)) << form;
        EXPECT_FALSE(mpich_defines("is_commutative", form)) << form;
    }
    EXPECT_EQ(requirements("MPIR_Alltoall_intra_brucks"), std::vector<std::string>{"is_sendbuf_inplace=no"});
    EXPECT_TRUE(known_container("alltoall", "MPIR_Alltoall_intra_pairwise"));
    EXPECT_TRUE(known_container("alltoall", "MPIR_Alltoall_inter_pairwise_exchange"));
    EXPECT_TRUE(known_container("alltoall", "MPIR_Alltoall_allcomm_nb"));
    EXPECT_TRUE(known_container("ialltoall", "MPIR_Ialltoall_intra_tsp_ring"));
    EXPECT_FALSE(known_container("alltoall", "MPIR_Alltoallv_intra_scattered"));
    EXPECT_FALSE(known_container("alltoallv", "MPIR_Alltoall_intra_scattered"));
    EXPECT_FALSE(known_container("ialltoall", "MPIR_Ialltoallv_intra_tsp_scattered"));
    EXPECT_FALSE(known_container("allgather", "MPIR_Alltoall_intra_hier"));
}

// MPI_Alltoallv: one hier algorithm, whose one parameter is its own list (the direct
// exchange alone: no leaders, no by_size, no segments), and a schedule for
// MPI_Ialltoallv; MPICH's own algorithms are known containers of its own (not alltoall's
// nor alltoallw's), and csel.c selects both forms by total_msg_size (the sendcounts' sum:
// it asserts on avg_msg_size and count) and is_sendbuf_inplace.
TEST(Grammar, AlltoallvHasHierAndItsSchedule) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kInter{MPII_HIER_INTER_ALGOS_ALLTOALLV(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    expect_one_step_hier({"alltoallv", "MPIR_Alltoallv_intra_hier", "MPIR_Ialltoallv_intra_tsp_hier",
                          "MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM"},
                         kInter);
    EXPECT_TRUE(valid(*find("alltoallv", "hier"), "inter_algo", "direct"));
    EXPECT_FALSE(valid(*find("alltoallv", "hier"), "inter_algo", "brucks"));  // alltoall's, not alltoallv's
    for (const std::string form : {"alltoallv", "ialltoallv"}) {
        EXPECT_FALSE(mpich_defines("avg_msg_size", form)) << form;
        EXPECT_FALSE(mpich_defines("count", form)) << form;
        EXPECT_TRUE(mpich_defines("total_msg_size", form)) << form;
        EXPECT_TRUE(mpich_defines("is_sendbuf_inplace", form)) << form;
    }
    EXPECT_EQ(requirements("MPIR_Alltoallv_intra_scattered"), std::vector<std::string>{"is_sendbuf_inplace=no"});
    EXPECT_TRUE(known_container("alltoallv", "MPIR_Alltoallv_intra_scattered"));
    EXPECT_TRUE(known_container("alltoallv", "MPIR_Alltoallv_inter_pairwise_exchange"));
    EXPECT_TRUE(known_container("ialltoallv", "MPIR_Ialltoallv_intra_sched_blocked"));
    EXPECT_FALSE(known_container("alltoallv", "MPIR_Alltoallw_intra_scattered"));
    EXPECT_FALSE(known_container("alltoallv", "MPIR_Alltoall_intra_hier"));
    EXPECT_FALSE(known_container("alltoall", "MPIR_Alltoallv_intra_hier"));
    EXPECT_FALSE(known_container("ialltoall", "MPIR_Ialltoallv_intra_tsp_hier"));
}

// MPI_Gatherv and MPI_Scatterv: one hier algorithm each, whose one parameter is the top
// leaders' step from its own list (linear: not gather's or scatter's binomial), and a
// schedule each for MPI_Igatherv and MPI_Iscatterv; MPICH's own algorithms are allcomm
// containers of theirs only (not gather's or scatter's, nor of each other), and csel.c
// defines none of its keys by size or buffer for the four (a tree gives them one choice
// per job shape).
TEST(Grammar, GathervAndScattervHaveHierAndTheirSchedules) {
#define HIERTUNE_TEST_NAME_(name_, NAME_) #name_,
    const std::vector<std::string> kGathervInter{MPII_HIER_INTER_ALGOS_GATHERV(HIERTUNE_TEST_NAME_)};
    const std::vector<std::string> kScattervInter{MPII_HIER_INTER_ALGOS_SCATTERV(HIERTUNE_TEST_NAME_)};
#undef HIERTUNE_TEST_NAME_
    EXPECT_EQ(kGathervInter, std::vector<std::string>{"linear"});
    expect_one_step_hier({"gatherv", "MPIR_Gatherv_intra_hier", "MPIR_Igatherv_intra_tsp_hier",
                          "MPIR_CVAR_GATHERV_HIER_INTER_ALGORITHM"},
                         kGathervInter);
    expect_one_step_hier({"scatterv", "MPIR_Scatterv_intra_hier", "MPIR_Iscatterv_intra_tsp_hier",
                          "MPIR_CVAR_SCATTERV_HIER_INTER_ALGORITHM"},
                         kScattervInter);
    EXPECT_FALSE(valid(*find("gatherv", "hier"), "inter_algo", "binomial"));  // gather's, not gatherv's
    EXPECT_FALSE(valid(*find("scatterv", "hier"), "inter_algo", "by_size"));  // scatter's
    for (const char* form : {"gatherv", "igatherv", "scatterv", "iscatterv"})
        for (const char* key : {"count", "avg_msg_size", "total_msg_size", "is_sendbuf_inplace"})
            EXPECT_FALSE(mpich_defines(key, form)) << form << " " << key;
    for (const char* mpich : {"MPIR_Gatherv_allcomm_linear", "MPIR_Gatherv_allcomm_nb"}) {
        EXPECT_TRUE(known_container("gatherv", mpich)) << mpich;
        EXPECT_TRUE(requirements(mpich).empty()) << mpich;
        EXPECT_FALSE(known_container("gather", mpich)) << mpich;
        EXPECT_FALSE(known_container("scatterv", mpich)) << mpich;
    }
    EXPECT_TRUE(known_container("igatherv", "MPIR_Igatherv_allcomm_tsp_linear"));
    EXPECT_TRUE(known_container("scatterv", "MPIR_Scatterv_allcomm_linear"));
    EXPECT_TRUE(known_container("iscatterv", "MPIR_Iscatterv_allcomm_sched_linear"));
    EXPECT_FALSE(known_container("gatherv", "MPIR_Gatherv_intra_linear"));  // MPICH's is allcomm only
    EXPECT_FALSE(known_container("gatherv", "MPIR_Gather_intra_binomial"));
    EXPECT_FALSE(known_container("allgatherv", "MPIR_Gatherv_intra_hier"));
    EXPECT_FALSE(known_container("gatherv", "MPIR_Allgatherv_intra_hier"));
    EXPECT_FALSE(known_container("iscatter", "MPIR_Iscatterv_intra_tsp_hier"));
}

TEST(Grammar, EachCollectiveHasItsOwnInterNodeSubmodule) {
    const auto bcast = values(*find("bcast", "hier"), "inter_algo");
    const auto reduce = values(*find("reduce", "hier"), "inter_algo");
    const auto allreduce = values(*find("allreduce", "hier"), "inter_algo");
    EXPECT_EQ(bcast.size(), reduce.size());
    EXPECT_EQ(bcast.size(), allreduce.size());
    EXPECT_TRUE(has(bcast, "seg_split_binary") && !has(reduce, "seg_split_binary"));
    EXPECT_TRUE(has(reduce, "seg_in_order_binary") && !has(allreduce, "seg_in_order_binary"));
    EXPECT_TRUE(has(allreduce, "tsp_allreduce_ring") && !has(bcast, "tsp_allreduce_ring"));
    EXPECT_EQ(bcast.back(), "seg_split_binary");  // the CVAR's last item
    EXPECT_EQ(values(*find("bcast", "hier"), "intra_algo"), (std::vector<std::string>{"auto", "binomial", "shm", "by_size"}));
    EXPECT_TRUE(values(*find("bcast", "hier"), "segsize").empty());
    EXPECT_TRUE(valid(*find("bcast", "hier"), "inter_algo", "seg_split_binary"));
    EXPECT_FALSE(valid(*find("allreduce", "hier"), "inter_algo", "seg_split_binary"));
    EXPECT_FALSE(valid(*find("bcast", "seg_binary"), "fanout", "2"));
    EXPECT_TRUE(valid(*find("bcast", "seg_chain"), "fanout", "2"));
    // the segmented trees among them: bcast's, reduce's and allreduce's lists, no other
    EXPECT_TRUE(is_seg_submodule("seg_split_binary"));
    EXPECT_FALSE(is_seg_submodule("tsp_ring"));
    for (const char* collective : {"bcast", "reduce", "allreduce"}) EXPECT_TRUE(takes_seg_submodules(collective));
    for (const char* collective :
         {"allgather", "gather", "scatter", "barrier", "ibcast", "alltoall", "alltoallv", "gatherv", "scatterv"})
        EXPECT_FALSE(takes_seg_submodules(collective)) << collective;
}

TEST(Grammar, ProblemsInOneLine) {
    EXPECT_EQ(problems_line({}), "");
    EXPECT_EQ(problems_line({"first"}), "first");
    EXPECT_EQ(problems_line({"first", "second", "third"}), "first (and 2 more: hiertune check-tree lists them)");
}

// MPIR_CVAR_<COLL>_COMPOSITION's values to the compositions a CH4 tree names; the one
// that leaves a multi-node call to the MPIR tree is each collective's netmod-only one, a
// composition every tree check accepts where the collective's MPIR tree decides
TEST(Grammar, CompositionsOfTheCh4Tree) {
    EXPECT_EQ(composition_cvar("allreduce"), "MPIR_CVAR_ALLREDUCE_COMPOSITION");
    EXPECT_EQ(composition_container("reduce", 3), std::optional<std::string>("MPIDI_Reduce_intra_composition_gamma"));
    EXPECT_EQ(composition_container("barrier", 2), std::optional<std::string>("MPIDI_Barrier_intra_composition_beta"));
    EXPECT_FALSE(composition_container("allreduce", 4));
    EXPECT_FALSE(composition_container("barrier", 3));
    EXPECT_FALSE(composition_container("bcast", 0));
    EXPECT_FALSE(composition_container("", 1));
    EXPECT_TRUE(is_composition("MPIDI_Bcast_intra_composition_alpha"));
    EXPECT_FALSE(is_composition("MPIR_Bcast_intra_binomial"));
    for (const std::string coll : {"bcast", "reduce", "allreduce", "allgather", "barrier", "scan", "reduce_scatter",
                                   "reduce_scatter_block", "allgatherv", "alltoall", "gatherv", "scatterv"}) {
        const std::optional<std::string> whole = whole_comm_composition(coll);
        ASSERT_TRUE(whole) << coll;
        const auto tree = nlohmann::ordered_json::parse("{\"collective=" + coll + "\": {\"composition=" + *whole + "\": {}}}");
        EXPECT_TRUE(check_tree(tree, Level::ch4).empty()) << *whole;
    }
    EXPECT_FALSE(whole_comm_composition("gather"));
    EXPECT_EQ(tuned_compositions("bcast"), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(tuned_compositions("allreduce"), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(tuned_compositions("allgather"), (std::vector<int>{1, 2}));
    EXPECT_EQ(tuned_compositions("barrier"), (std::vector<int>{1, 2}));
    EXPECT_TRUE(tuned_compositions("gather").empty());
    EXPECT_TRUE(tuned_compositions("ibcast").empty());
    // composed by CH4, but MPICH reads no MPIR_CVAR_<COLL>_COMPOSITION of theirs: only a
    // CH4 tree selects their compositions, so tune forces none
    EXPECT_EQ(whole_comm_composition("reduce_scatter"),
              std::optional<std::string>("MPIDI_Reduce_scatter_intra_composition_alpha"));
    EXPECT_EQ(whole_comm_composition("scan"), std::optional<std::string>("MPIDI_Scan_intra_composition_beta"));
    // nor of allgatherv's (MPICH 5.0.1 has no MPIR_CVAR_ALLGATHERV_COMPOSITION)
    EXPECT_EQ(whole_comm_composition("allgatherv"),
              std::optional<std::string>("MPIDI_Allgatherv_intra_composition_alpha"));
    for (const char* coll : {"scan", "reduce_scatter", "reduce_scatter_block", "allgatherv", "iallgatherv"})
        EXPECT_TRUE(tuned_compositions(coll).empty()) << coll;
    EXPECT_FALSE(whole_comm_composition("ireduce_scatter"));
    EXPECT_FALSE(whole_comm_composition("iallgatherv"));
    // alltoall's MPIR_CVAR_ALLTOALL_COMPOSITION: 1 the multi-leader alpha, 2 the
    // netmod-only beta, which leaves a multi-node call to the MPIR tree
    EXPECT_EQ(whole_comm_composition("alltoall"), std::optional<std::string>("MPIDI_Alltoall_intra_composition_beta"));
    EXPECT_EQ(composition_cvar("alltoall"), "MPIR_CVAR_ALLTOALL_COMPOSITION");
    EXPECT_EQ(composition_container("alltoall", 1), std::optional<std::string>("MPIDI_Alltoall_intra_composition_alpha"));
    EXPECT_EQ(composition_container("alltoall", 2), std::optional<std::string>("MPIDI_Alltoall_intra_composition_beta"));
    EXPECT_FALSE(composition_container("alltoall", 3));
    EXPECT_EQ(tuned_compositions("alltoall"), (std::vector<int>{1, 2}));
    EXPECT_TRUE(tuned_compositions("ialltoall").empty());
    EXPECT_FALSE(whole_comm_composition("ialltoall"));
    EXPECT_FALSE(whole_comm_composition("alltoallw"));
    // alltoallv: CH4's one composition, the netmod-only alpha, but MPICH 5.0.1 reads no
    // MPIR_CVAR_ALLTOALLV_COMPOSITION: tune forces none
    EXPECT_EQ(composition_container("alltoallv", 1),
              std::optional<std::string>("MPIDI_Alltoallv_intra_composition_alpha"));
    EXPECT_FALSE(composition_container("alltoallv", 2));
    for (const char* coll : {"alltoallv", "ialltoallv"}) EXPECT_TRUE(tuned_compositions(coll).empty()) << coll;
    // gatherv's and scatterv's netmod-only alpha (checked with the others' above), whose
    // variable MPICH 5.0.1 has not either
    for (const std::string coll : {"gatherv", "scatterv"}) {
        EXPECT_EQ(composition_container(coll, 1), whole_comm_composition(coll)) << coll;
        EXPECT_FALSE(composition_container(coll, 2)) << coll;
        for (const std::string& form : {coll, "i" + coll}) EXPECT_TRUE(tuned_compositions(form).empty()) << form;
    }
    EXPECT_EQ(whole_comm_composition("scatterv"), std::optional<std::string>("MPIDI_Scatterv_intra_composition_alpha"));
}

TEST(Grammar, KnownContainersAreMpichsAndThePlugins) {
    const struct {
        const char* collective;
        const char* container;
        bool known;
    } cases[] = {{"bcast", "MPIR_Bcast_intra_binomial", true},
                 {"gather", "MPIR_Gather_intra_binomial", true},
                 {"reduce", "MPIR_Reduce_intra_seg_in_order_binary", true},
                 {"bcast", "MPIR_Reduce_intra_binomial", false},
                 {"bcast", "MPIR_Bcast_intra_binomal", false},
                 {"allreduce", "MPIR_Allreduce_intra_binomial", false}};
    for (const auto& c : cases) EXPECT_EQ(known_container(c.collective, c.container), c.known) << c.container;
}

TEST(Grammar, CheckTreeReportsEveryProblemWithItsPlace) {
    const auto problems = check_tree(nlohmann::ordered_json::parse(R"({
      "collective=bcast": {"comm_size<=8": {"algorithm=MPIR_Bcast_intra_seg_binary": {"fanout=2": {}}}},
      "collective=barrier": {"algorithm=MPIR_Barrier_intra_smp": {}}})"),
                                     Level::mpir);
    ASSERT_EQ(problems.size(), 3u);
    // a bound ends its chain: MPICH 5.0.1's validate_tree asserts on it at load
    EXPECT_NE(problems[0].find("collective=bcast: a bound that ends its chain"), std::string::npos);
    EXPECT_EQ(problems[1], "collective=bcast > comm_size<=8: invalid parameter of MPIR_Bcast_intra_seg_binary: \"fanout=2\"");
    EXPECT_NE(problems[2].find("comm_hierarchy=parent"), std::string::npos);
}

// MPICH 5.0.1's shipped trees pass the check (the MPIR tree's barrier has MPICH's own
// parameter k=2; both end their chains with the ANY operator)
TEST(Grammar, MpichShippedTreesPass) {
    const std::string mpir = test::generic_json();
    if (mpir.empty()) GTEST_SKIP() << "no MPICH generic.json (set MPICH_GENERIC_JSON)";
    const std::string ch4 = std::filesystem::path(mpir).parent_path().parent_path() / "ch4" / "generic.json";
    for (const auto& [path, level] : {std::pair{mpir, Level::mpir}, std::pair{ch4, Level::ch4}}) {
        const std::vector<std::string> problems = check_tree_file(path, level);
        EXPECT_TRUE(problems.empty()) << path << ": " << problems.front();
    }
    EXPECT_EQ(level_of(csel::load_tree(ch4)), Level::ch4);
}

// csel.c's per-call keys, for the collectives its functions have a case for (5.0.1)
TEST(Grammar, MpichDefinesPerCollectiveKeys) {
    const struct {
        const char* key;
        const char* collective;
        bool defined;
    } cases[] = {{"avg_msg_size", "bcast", true},
                 {"avg_msg_size", "allgather", false},
                 {"total_msg_size", "allgather", true},
                 {"count", "ibcast", false},
                 {"count", "ireduce_scatter_block", true},
                 {"is_commutative", "reduce_scatter_block", true},
                 {"is_op_built_in", "reduce_scatter", false},
                 {"is_sendbuf_inplace", "ialltoallw", true},
                 {"is_block_regular", "reduce_scatter_block", false},
                 {"comm_size", "barrier", true}};  // comm_size: not per collective
    for (const auto& c : cases) EXPECT_EQ(mpich_defines(c.key, c.collective), c.defined) << c.key << " " << c.collective;
}

TEST(Grammar, MpichCollectives) {
    const std::vector<std::string>& all = mpich_collectives();
    EXPECT_EQ(all.size(), 44u);
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_NE(std::find(all.begin(), all.end(), "ineighbor_alltoallw"), all.end());
    EXPECT_EQ(std::find(all.begin(), all.end(), "any"), all.end());
}

TEST(Grammar, CheckTreeFileNamesTheSyntaxError) {
    const std::string path = ::testing::TempDir() + "hiertune_grammar_test.json";
    std::ofstream(path) << "{\"collective=bcast\":\n {\"algorithm=MPIR_Bcast_intra_binomial\": {}";
    auto problems = check_tree_file(path, Level::mpir);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("ends inside a value"), std::string::npos);
    std::filesystem::remove(path);
    problems = check_tree_file(path, Level::mpir);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("cannot be read"), std::string::npos);
}

TEST(Grammar, LevelFromTheFirstContainer) {
    EXPECT_EQ(level_of(nlohmann::ordered_json::parse(
                  R"({"collective=bcast": {"comm_type=intra": {"composition=MPIDI_Bcast_intra_composition_alpha": {}}}})")),
              Level::ch4);
    EXPECT_EQ(level_of(nlohmann::ordered_json::parse(R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}})")),
              Level::mpir);
}

}  // namespace
}  // namespace hiertune::grammar
