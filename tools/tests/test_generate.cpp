// `hiertune generate` library: measured points and task benchmarks to a tree.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <stdlib.h>

#include <filesystem>

#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {
namespace {

namespace fs = std::filesystem;
using csel::Choice;
using csel::Json;

class GenerateTest : public test::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        db_.emplace(MeasureDb::open(path_));
    }
    void TearDown() override {
        db_.reset();
        TempDirTest::TearDown();
    }
    JobId job(int ranks, int nodes, const std::string& placement = "block") {
        return db_->find_or_create_job(JobDescription{"box", ranks, nodes, (ranks + nodes - 1) / nodes, placement, "b"});
    }
    void point(JobId job, const std::string& coll, std::uint64_t bytes, const std::string& algo, Params params,
               double median) {
        Summary s;
        s.n = 10;
        s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = median;
        s.converged = true;
        db_->record_point(job, PointKey{coll, bytes, algo, std::move(params)}, s);
    }
    void task(JobId job, const std::string& name, const Params& config, std::uint64_t seg, std::vector<double> leaders) {
        std::vector<TaskTiming> timings;
        for (std::size_t i = 0; i < leaders.size(); ++i) {
            Summary s;
            s.n = 10;
            s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = leaders[i];
            timings.push_back({static_cast<int>(i), s});
        }
        db_->record_task(job, TaskKey{"bcast", name, config, seg}, timings);
    }

    // bcast's tasks of tsp_kary with shm at fs = 16K on two leaders: ib 10, sb 2,
    // sbib as given
    void kary_bcast_tasks(JobId job, std::vector<double> sbib) {
        const Params kary{{"inter_algo", "tsp_kary"}, {"intra_algo", "shm"}};
        task(job, "ib", kary, 16384, {10, 10});
        task(job, "sbib", kary, 16384, std::move(sbib));
        task(job, "sb", kary, 16384, {2, 2});
    }

    std::optional<MeasureDb> db_;
};

Json stock() {
    return Json::parse(R"({
      "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                           "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
      "collective=reduce": {"comm_type=intra": {"algorithm=MPIR_Reduce_intra_binomial": {}}},
      "collective=allreduce": {"comm_type=intra": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}},
      "collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}}}}
    })");
}

// MPICH's selection with MPIR_CVAR_<COLL>_COMPOSITION=N: N's composition where a CH4
// tree can name it, and where the forced one ran as itself
TEST(GenerateMapping, CompositionPoints) {
    const auto point = [](const std::string& coll, const std::string& n, std::uint64_t bytes = 1024) {
        return PointKey{coll, bytes, "default", {{grammar::composition_cvar(coll), n}}};
    };
    EXPECT_EQ(composition_of_point(point("bcast", "2")), Choice::container("MPIDI_Bcast_intra_composition_beta"));
    EXPECT_EQ(composition_of_point(point("allgather", "1")), Choice::container("MPIDI_Allgather_intra_composition_alpha"));
    EXPECT_FALSE(composition_of_point(point("allreduce", "4")));  // delta: no JSON name in 5.0.1
    EXPECT_FALSE(composition_of_point(point("bcast", "5")));
    EXPECT_FALSE(composition_of_point(point("bcast", "x")));
    EXPECT_FALSE(composition_of_point(PointKey{"bcast", 1024, "default", {}}));
    EXPECT_FALSE(composition_of_point(PointKey{"bcast", 1024, "binomial", {}}));
    // a point the tree cannot name is no tree choice either (the MPIR tree keeps them out)
    EXPECT_FALSE(choice_of_point(point("bcast", "2")));
    // where the forced composition's check fails CH4 ran the netmod-only one instead
    EXPECT_TRUE(composition_ran(point("bcast", "1"), 8, 2));
    EXPECT_FALSE(composition_ran(point("bcast", "1"), 8, 1));
    EXPECT_TRUE(composition_ran(point("bcast", "3"), 8, 1));  // gamma: the whole comm
    EXPECT_FALSE(composition_ran(point("allreduce", "3"), 8, 2));  // gamma: one node only
    EXPECT_TRUE(composition_ran(point("allreduce", "3"), 4, 4));
    EXPECT_TRUE(composition_ran(point("allgather", "1", 4096), 8, 2));
    EXPECT_FALSE(composition_ran(point("allgather", "1", 4097), 8, 2));
    // alltoall's multi-leader alpha: a node comm and blocks per pair of at most
    // MPIR_CVAR_ALLTOALL_SHM_PER_RANK (4096 B); its netmod-only beta anywhere
    EXPECT_EQ(composition_of_point(point("alltoall", "1")), Choice::container("MPIDI_Alltoall_intra_composition_alpha"));
    EXPECT_EQ(composition_of_point(point("alltoall", "2")), Choice::container("MPIDI_Alltoall_intra_composition_beta"));
    EXPECT_FALSE(composition_of_point(point("alltoall", "3")));
    EXPECT_TRUE(composition_ran(point("alltoall", "1", 4096), 8, 2));
    EXPECT_FALSE(composition_ran(point("alltoall", "1", 4097), 8, 2));
    EXPECT_FALSE(composition_ran(point("alltoall", "1", 8), 8, 1));
    EXPECT_TRUE(composition_ran(point("alltoall", "2", 1048576), 8, 1));
}

TEST(GenerateMapping, PointsToChoices) {
    EXPECT_EQ(choice_of_point(PointKey{"bcast", 8, "default", {}}), Choice::stock_tree());
    EXPECT_EQ(choice_of_point(PointKey{"bcast", 8, "binomial", {}}),
              Choice::container("MPIR_Bcast_intra_binomial"));
    EXPECT_EQ(choice_of_point(PointKey{"allreduce", 8, "hier",
                                       {{"MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE", "8192"},
                                        {"MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM", "tsp_kary"},
                                        {"MPIR_CVAR_ALLREDUCE_HIER_INTER_KVAL", "3"},
                                        {"MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE", "1024"},
                                        {"MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM", "shm"}}}),
              Choice::container("MPIR_Allreduce_intra_hier", {{"segsize", "8192"},
                                                              {"inter_algo", "tsp_kary"},
                                                              {"inter_k", "3"},
                                                              {"inter_chunk", "1024"},
                                                              {"intra_algo", "shm"}}));
    EXPECT_EQ(choice_of_point(PointKey{"reduce", 8, "seg_chain",
                                       {{"MPIR_CVAR_REDUCE_SEG_SEGSIZE", "4096"}, {"MPIR_CVAR_REDUCE_SEG_FANOUT", "2"}}}),
              Choice::container("MPIR_Reduce_intra_seg_chain", {{"segsize", "4096"}, {"fanout", "2"}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "seg_chain", {{"MPIR_CVAR_BCAST_SEG_WINDOW", "4"}}}));
    // the grammar's parameters only: fanout is seg_chain's, each collective has its own
    // inter-node submodule, values are checked (MPICH would refuse the tree at MPI_Init)
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "seg_binary", {{"MPIR_CVAR_BCAST_SEG_FANOUT", "2"}}}));
    EXPECT_EQ(choice_of_point(PointKey{"bcast", 8, "seg_binary", {{"MPIR_CVAR_BCAST_SEG_SEGSIZE", "512"}}}),
              Choice::container("MPIR_Bcast_intra_seg_binary", {{"segsize", "512"}}));
    EXPECT_EQ(choice_of_point(PointKey{"bcast", 8, "hier", {{"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", "seg_split_binary"}}}),
              Choice::container("MPIR_Bcast_intra_hier", {{"inter_algo", "seg_split_binary"}}));
    EXPECT_EQ(choice_of_point(PointKey{"reduce", 8, "hier", {{"MPIR_CVAR_REDUCE_HIER_INTER_ALGORITHM", "seg_in_order_binary"}}}),
              Choice::container("MPIR_Reduce_intra_hier", {{"inter_algo", "seg_in_order_binary"}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "hier", {{"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", "tsp_allreduce_ring"}}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "hier", {{"MPIR_CVAR_BCAST_HIER_INTER_KVAL", "0"}}}));
    EXPECT_EQ(choice_of_point(PointKey{"reduce", 8, "nb", {}}), Choice::container("MPIR_Reduce_allcomm_nb"));
    EXPECT_FALSE(choice_of_point(PointKey{"allreduce", 8, "binomial", {}}));  // no such container
    // MPICH passes a parameter its container parser never reads: a tree cannot give it
    EXPECT_EQ(grammar::mpich_unread_params("MPIR_Barrier_intra_recexch"), std::vector<std::string>{"single_phase_recv"});
    EXPECT_EQ(grammar::mpich_unread_params("MPIR_Igather_intra_tsp_tree"), std::vector<std::string>{"k"});
    EXPECT_TRUE(grammar::mpich_unread_params("MPIR_Barrier_intra_k_dissemination").empty());
    EXPECT_FALSE(choice_of_point(PointKey{"barrier", 0, "recexch", {}}));
    EXPECT_FALSE(choice_of_point(PointKey{"igather", 8, "tsp_tree", {}}));
    EXPECT_EQ(choice_of_point(PointKey{"igather", 8, "sched_binomial", {}}),
              Choice::container("MPIR_Igather_intra_sched_binomial"));
    EXPECT_EQ(choice_of_point(PointKey{"igather", 8, "tsp_hier", {}}), Choice::container("MPIR_Igather_intra_tsp_hier"));
    // not expressible: another collective's variable, a foreign variable, parameters of a stock algorithm
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "hier", {{"MPIR_CVAR_REDUCE_HIER_SEGSIZE", "1"}}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "hier", {{"MPIR_CVAR_POLLS_BEFORE_YIELD", "1"}}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "binomial", {{"MPIR_CVAR_BCAST_TREE_KVAL", "4"}}}));
    EXPECT_FALSE(choice_of_point(PointKey{"bcast", 8, "default", {{"MPIR_CVAR_BCAST_TREE_KVAL", "4"}}}));
    EXPECT_EQ(tree_position(JobDescription{"m", 7, 3, 3, "block", ""}), (std::pair<int, int>{7, 3}));
}

// MPICH's own algorithms with call parameters: the tree gives all of them (MPICH leaves
// its container uninitialised), the point's value where it set the variable, else the
// variable's default from MPICH's cvars.txt (tree_type's default "kary", booleans 0/1).
TEST(GenerateMapping, MpichAlgorithmsGetEveryCallParameter) {
    EXPECT_EQ(choice_of_point(PointKey{"bcast", 8, "tree", {{"MPIR_CVAR_BCAST_TREE_KVAL", "4"}}}),
              Choice::container("MPIR_Bcast_intra_tree",
                                {{"tree_type", "kary"}, {"k", "4"}, {"is_non_blocking", "1"}}));
    EXPECT_EQ(choice_of_point(PointKey{"allreduce", 8, "recursive_multiplying", {}}),
              Choice::container("MPIR_Allreduce_intra_recursive_multiplying", {{"k", "2"}}));
    EXPECT_EQ(choice_of_point(PointKey{"barrier", 0, "k_dissemination", {{"MPIR_CVAR_BARRIER_DISSEM_KVAL", "3"}}}),
              Choice::container("MPIR_Barrier_intra_k_dissemination", {{"k", "3"}}));
    // another algorithm's variable is not this one's parameter
    EXPECT_FALSE(choice_of_point(PointKey{"allreduce", 8, "recursive_multiplying", {{"MPIR_CVAR_ALLREDUCE_TREE_KVAL", "4"}}}));
    for (const grammar::MpichCallParam& p : grammar::mpich_call_params("MPIR_Bcast_intra_pipelined_tree"))
        EXPECT_FALSE(p.default_value.empty()) << p.name;
    EXPECT_EQ(grammar::mpich_call_params("MPIR_Bcast_intra_pipelined_tree").size(), 5u);
    EXPECT_TRUE(grammar::mpich_call_params("MPIR_Bcast_intra_binomial").empty());
    EXPECT_TRUE(grammar::mpich_call_params("MPIR_Bcast_intra_hier").empty());
    // a tuned leaf of ring or smp allreduce is guarded for commutative ops (csel_tree's leaf)
    EXPECT_EQ(grammar::requirements("MPIR_Allreduce_intra_ring"), std::vector<std::string>{"is_commutative=yes"});
    EXPECT_EQ(grammar::requirements("MPIR_Allreduce_intra_smp"), std::vector<std::string>{"is_commutative=yes"});
    // reduce_scatter_allgather asserts count >= pof2: the shipped tree's "count<pow2" fails before it
    EXPECT_EQ(grammar::requirements("MPIR_Allreduce_intra_reduce_scatter_allgather"),
              (std::vector<std::string>{"is_op_built_in=yes", "!count<pow2"}));
    EXPECT_TRUE(grammar::requirements("MPIR_Bcast_intra_binomial").empty());
}

// Where MPICH 5.0.1 falls back from a forced algorithm, a tree must not name it (its
// container would be called directly and assert); best_measured skips such points.
TEST(GenerateMapping, WhatATreeMayRun) {
    const auto key = [](const std::string& coll, std::uint64_t bytes, const std::string& algo, Params params = {}) {
        return PointKey{coll, bytes, algo, std::move(params)};
    };
    EXPECT_TRUE(tree_can_run(key("bcast", 1024, "binomial"), 4, 1));
    EXPECT_TRUE(tree_can_run(key("bcast", 1024, "default"), 4, 1));
    EXPECT_TRUE(tree_can_run(key("bcast", 1024, "hier", {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "16384"}}), 4, 2));
    // smp falls back to MPICH's selection without a node hierarchy
    EXPECT_FALSE(tree_can_run(key("bcast", 1024, "smp"), 4, 1));
    // conditions the job's layout decides (grammar::requirements)
    EXPECT_TRUE(tree_can_run(key("scan", 1024, "smp"), 4, 2));
    EXPECT_FALSE(tree_can_run(key("scan", 1024, "smp"), 4, 2, false));  // round robin
    EXPECT_FALSE(layout_meets("MPIR_Scan_intra_smp", 4, 4, true));      // one node
    EXPECT_TRUE(tree_can_run(key("allgatherv", 1024, "recursive_doubling"), 8, 2));
    EXPECT_FALSE(tree_can_run(key("allgatherv", 1024, "recursive_doubling"), 6, 2));
    EXPECT_FALSE(tree_can_run(key("reduce_scatter", 1024, "noncommutative"), 6, 2));
    EXPECT_TRUE(layout_meets("MPIR_Bcast_intra_binomial", 6, 2, false));
    EXPECT_TRUE(tree_can_run(key("bcast", 1024, "smp"), 4, 2));
    // count >= pof2(ranks): 8 ranks need 8 bytes, 6 ranks 4
    EXPECT_FALSE(tree_can_run(key("reduce", 4, "reduce_scatter_gather"), 8, 2));
    EXPECT_TRUE(tree_can_run(key("reduce", 8, "reduce_scatter_gather"), 8, 2));
    EXPECT_FALSE(tree_can_run(key("allreduce", 3, "reduce_scatter_allgather"), 6, 2));
    EXPECT_TRUE(tree_can_run(key("allreduce", 4, "reduce_scatter_allgather"), 6, 2));
    // iallgatherv's recexch schedules need displacements in rank order: bench's reversed ones
    // made the forced ones fall back, and no key of a tree tests the order
    for (const char* recexch : {"tsp_recexch_doubling", "tsp_recexch_halving"})
        EXPECT_FALSE(tree_can_run(key("iallgatherv", 1024, recexch), 8, 2)) << recexch;
    for (const char* other : {"tsp_ring", "sched_ring", "sched_brucks", "tsp_hier", "default"})
        EXPECT_TRUE(tree_can_run(key("iallgatherv", 1024, other), 8, 2)) << other;
    EXPECT_FALSE(tree_can_run(key("iallgatherv", 1024, "tsp_brucks"), 8, 2));  // its k unread from a tree
    EXPECT_TRUE(tree_can_run(key("allgatherv", 1024, "ring"), 8, 2));
    // alltoall's in-place-only algorithms: bench's sendbuf is no MPI_IN_PLACE, so the forced
    // ones fell back, and the tree would call them on it
    EXPECT_FALSE(tree_can_run(key("alltoall", 1024, "pairwise_sendrecv_replace"), 8, 2));
    EXPECT_FALSE(tree_can_run(key("ialltoall", 1024, "sched_inplace"), 8, 2));
    for (const char* other : {"brucks", "pairwise", "scattered", "nb", "default"})
        EXPECT_TRUE(tree_can_run(key("alltoall", 1024, other), 8, 2)) << other;
    EXPECT_TRUE(tree_can_run(key("alltoall", 1024, "k_brucks"), 8, 2));  // its k read from a tree
    EXPECT_TRUE(tree_can_run(key("alltoall", 1024, "hier", {{"MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", "direct"}}),
                             8, 2));
    for (const char* other : {"sched_brucks", "sched_pairwise", "sched_permuted_sendrecv", "tsp_ring", "tsp_hier"})
        EXPECT_TRUE(tree_can_run(key("ialltoall", 1024, other), 8, 2)) << other;
    // their k, batch size and buffers unread from a tree
    EXPECT_FALSE(tree_can_run(key("ialltoall", 1024, "tsp_brucks"), 8, 2));
    EXPECT_FALSE(tree_can_run(key("ialltoall", 1024, "tsp_scattered"), 8, 2));
    // alltoallv's and ialltoallv's in-place-only algorithms likewise
    EXPECT_FALSE(tree_can_run(key("alltoallv", 1024, "pairwise_sendrecv_replace"), 8, 2));
    for (const char* inplace : {"sched_inplace", "tsp_inplace"})
        EXPECT_FALSE(tree_can_run(key("ialltoallv", 1024, inplace), 8, 2)) << inplace;
    for (const char* other : {"scattered", "nb", "default"})
        EXPECT_TRUE(tree_can_run(key("alltoallv", 1024, other), 8, 2)) << other;
    EXPECT_TRUE(tree_can_run(key("alltoallv", 1024, "hier", {{"MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM", "direct"}}),
                             8, 2));
    for (const char* other : {"sched_blocked", "tsp_hier"})
        EXPECT_TRUE(tree_can_run(key("ialltoallv", 1024, other), 8, 2)) << other;
    // their batch size and blocks unread from a tree
    for (const char* unread : {"tsp_scattered", "tsp_blocked"})
        EXPECT_FALSE(tree_can_run(key("ialltoallv", 1024, unread), 8, 2)) << unread;
    // gatherv's and scatterv's: every algorithm (coll_algorithms.txt lists no restriction),
    // MPICH's by their allcomm containers; hier with its own step only
    for (const char* coll : {"gatherv", "scatterv"}) {
        for (const char* mpich : {"linear", "nb", "default"})
            EXPECT_TRUE(tree_can_run(key(coll, 8, mpich), 8, 2)) << mpich;
        for (const char* mpich : {"sched_linear", "tsp_linear", "tsp_hier"})
            EXPECT_TRUE(tree_can_run(key("i" + std::string(coll), 8, mpich), 8, 1)) << mpich;
    }
    EXPECT_EQ(choice_of_point(key("igatherv", 8, "tsp_linear")), Choice::container("MPIR_Igatherv_allcomm_tsp_linear"));
    EXPECT_EQ(choice_of_point(key("scatterv", 8, "hier", {{"MPIR_CVAR_SCATTERV_HIER_INTER_ALGORITHM", "linear"}})),
              Choice::container("MPIR_Scatterv_intra_hier", {{"inter_algo", "linear"}}));
    EXPECT_FALSE(
        tree_can_run(key("gatherv", 8, "hier", {{"MPIR_CVAR_GATHERV_HIER_INTER_ALGORITHM", "binomial"}}), 8, 2));
    EXPECT_FALSE(tree_can_run(key("gatherv", 8, "binomial"), 8, 2));  // gather's, no container of gatherv
    // what a tree cannot express: a stock algorithm with a parameter, a variable not the plugin's
    EXPECT_FALSE(tree_can_run(key("bcast", 1024, "binomial", {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "16384"}}), 4, 2));
    EXPECT_FALSE(tree_can_run(key("bcast", 1024, "hier", {{"MPIR_CVAR_BCAST_HIER_SEG_WINDOW", "2"}}), 4, 2));
}

TEST_F(GenerateTest, MeasuredBestPerSizeBecomesRules) {
    const JobId j = job(8, 4);
    const Params seg64k{{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "65536"}};
    for (std::uint64_t bytes : {1024u, 4096u, 65536u, 262144u}) {
        point(j, "bcast", bytes, "default", {}, bytes < 65536 ? 1.0 : 5.0);
        point(j, "bcast", bytes, "hier", seg64k, bytes < 65536 ? 2.0 : 3.0);
        point(j, "bcast", bytes, "hier", {{"MPIR_CVAR_POLLS_BEFORE_YIELD", "1"}}, 0.1);  // fastest, not expressible
    }
    GenerateOptions options;
    options.collectives = {"bcast"};
    const GenerateReport report = generate_tree(*db_, stock(), options);
    const Json& parent = report.tree.tree["collective=bcast"]["comm_type=intra"]["comm_hierarchy=parent"];
    // keyed on the job: 8 ranks, 2 per node; stock elsewhere
    EXPECT_EQ(parent["comm_size=any"], stock()["collective=bcast"]["comm_type=intra"]);
    EXPECT_EQ(parent["comm_size<=7"], stock()["collective=bcast"]["comm_type=intra"]);
    const Json& chain = parent["comm_size<=8"]["comm_avg_ppn<=2"];
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_EQ(chain["avg_msg_size<=34816"], stock()["collective=bcast"]["comm_type=intra"]);
    EXPECT_EQ(chain["avg_msg_size=any"],
              (Json{{"algorithm=MPIR_Bcast_intra_hier", {{"segsize=65536", Json::object()}}}}));
    ASSERT_EQ(report.tree.wanted.size(), 1u);
    EXPECT_EQ(report.tree.wanted[0].msg_bytes, 34816u);
    EXPECT_TRUE(csel::check_tree(report.tree.tree, {"bcast", "reduce", "allreduce", "barrier"}).empty());
    const bool mentions_skipped = std::any_of(report.lines.begin(), report.lines.end(), [](const std::string& line) {
        return line.find("4 measured points skipped") != std::string::npos;
    });
    EXPECT_TRUE(mentions_skipped);
}

// A point measured where MPICH fell back from the forced algorithm (reduce_scatter_gather
// below pof2 bytes) is not the tree's choice however fast it looked.
TEST_F(GenerateTest, MeasuredBestSkipsWhatATreeCannotRun) {
    const JobId j = job(8, 4);
    point(j, "reduce", 4, "reduce_scatter_gather", {}, 0.5);
    point(j, "reduce", 4, "binomial", {}, 1.0);
    point(j, "reduce", 8, "reduce_scatter_gather", {}, 0.5);
    point(j, "reduce", 8, "binomial", {}, 1.0);
    std::size_t skipped = 0;
    const auto best = best_measured(db_->jobs().at(0), db_->points(j), "reduce", &skipped);
    ASSERT_EQ(best.size(), 2u);
    EXPECT_EQ(best[0].msg_bytes, 4u);
    EXPECT_EQ(best[0].choice, Choice::container("MPIR_Reduce_intra_binomial"));
    EXPECT_EQ(best[1].choice, Choice::container("MPIR_Reduce_intra_reduce_scatter_gather"));
    EXPECT_EQ(skipped, 1u);
}

TEST_F(GenerateTest, ModelPicksHierAgainstMeasuredStock) {
    const JobId j = job(8, 4);
    // fs = 16K: ib 10, sbib 6, sb 2 (two leaders, leader 1 slower on sbib)
    kary_bcast_tasks(j, {6, 7});
    // stock: 5 at 1K, 100 at 64K (hier predicts 12 at 1K, 10 + 3*7 + 2 = 33 at 64K)
    point(j, "bcast", 1024, "default", {}, 5);
    point(j, "bcast", 65536, "default", {}, 100);
    GenerateOptions options;
    options.source = GenerateSource::model;
    options.collectives = {"bcast"};
    const GenerateReport report = generate_tree(*db_, stock(), options);
    const Json& chain =
        report.tree.tree["collective=bcast"]["comm_type=intra"]["comm_hierarchy=parent"]["comm_size<=8"]
                        ["comm_avg_ppn<=2"];
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_TRUE(chain.contains("avg_msg_size<=33280"));
    EXPECT_EQ(chain["avg_msg_size=any"],
              (Json{{"algorithm=MPIR_Bcast_intra_hier",
                     {{"inter_algo=tsp_kary", Json::object()}, {"intra_algo=shm", Json::object()},
                      {"segsize=16384", Json::object()}}}}));

    // explicit sizes and no stock: pure model, midpoints asked of the model (none wanted)
    options.sizes = {1024, 1u << 20};
    const GenerateReport sized = generate_tree(*db_, stock(), options);
    EXPECT_TRUE(csel::check_tree(sized.tree.tree).empty());
}

// With analytic models fitted on the job's nodes (4 nodes x 1 rank), the seg_*
// inter-node submodules are candidates too, their ib from the model.
TEST_F(GenerateTest, ModelConsidersSegInterNodeTreesFromTheAnalyticModels) {
    const JobId j = job(8, 4);
    kary_bcast_tasks(j, {10, 10});
    GenerateOptions options;
    options.source = GenerateSource::model;
    options.collectives = {"bcast"};
    options.sizes = {65536};
    GenerateReport report = generate_tree(*db_, stock(), options);
    EXPECT_NE(report.tree.tree.dump().find("inter_algo=tsp_kary"), std::string::npos);
    EXPECT_NE(std::find(report.lines.begin(), report.lines.end(),
                        "bcast: no analytic models fitted on 4 nodes x 1 rank ('hiertune fit'): no seg_* inter-node "
                        "candidates"),
              report.lines.end());

    const JobId fit = job(4, 4);  // same machine, one rank per node
    Summary s;
    s.n = 10;
    s.converged = true;
    for (int procs : {2, 3}) {
        s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = procs == 2 ? 1e-6 : 1.5e-6;
        db_->record_fit_point(fit, FitKey{kFitGamma, "", "", {}, procs, 16384, 0}, s);
    }
    // seg_linear on 4 leaders, one 16 KiB segment: gamma(4) = 2 (extended) x (1 + 0) = 2 < ib 10
    db_->record_fit_model(fit, FittedModel{"bcast", "seg_linear", {}, 4, 1, 0, 10});
    report = generate_tree(*db_, stock(), options);
    EXPECT_NE(report.tree.tree.dump().find("inter_algo=seg_linear"), std::string::npos) << report.tree.tree.dump();
    EXPECT_NE(report.tree.tree.dump().find("inter_chunk=0"), std::string::npos);
    EXPECT_NE(std::find(report.lines.begin(), report.lines.end(),
                        "bcast: 1 seg_* inter-node candidates from the analytic models of job " + std::to_string(fit)),
              report.lines.end());
}

TEST_F(GenerateTest, ErrorsAreUsageErrors) {
    GenerateOptions options;
    EXPECT_THROW(generate_tree(*db_, stock(), options), UsageError);  // empty database
    const JobId a = job(8, 4, "block");
    const JobId b = job(8, 4, "round-robin");
    point(a, "bcast", 8, "default", {}, 1);
    point(b, "bcast", 8, "binomial", {}, 1);
    EXPECT_THROW(generate_tree(*db_, stock(), options), UsageError);  // same tree position
    options.jobs = {a};
    EXPECT_NO_THROW(generate_tree(*db_, stock(), options));
    options.jobs = {99};
    EXPECT_THROW(generate_tree(*db_, stock(), options), UsageError);
    options.jobs = {};
    options.collectives = {"gather"};
    EXPECT_THROW(generate_tree(*db_, stock(), options), UsageError);
    options.collectives = {"reduce"};
    options.source = GenerateSource::model;
    EXPECT_THROW(generate_tree(*db_, stock(), options), UsageError);
    options.source = GenerateSource::measured;
    options.collectives = {"bcast"};
    options.jobs = {b};
    Json no_bcast = stock();
    no_bcast.erase("collective=bcast");
    EXPECT_THROW(generate_tree(*db_, no_bcast, options), csel::TreeError);
}

}  // namespace
}  // namespace hiertune

namespace hiertune {
namespace {

// allgather's sg, keyed by bytes per rank, is no candidate of its own: every
// segment size's candidate of its configuration carries it
TEST(GenerateModel, AllgatherGatherCostsJoinEveryCandidate) {
    const Params ring{{"inter_algo", "ring"}, {"intra_algo", "binomial"}};
    const auto task = [&](const std::string& name, std::uint64_t bytes, double median) {
        StoredTask t;
        t.key = TaskKey{"allgather", name, ring, bytes};
        Summary s;
        s.n = 5;
        s.median = median;
        t.timings = {TaskTiming{0, s}, TaskTiming{1, s}};
        return t;
    };
    const std::vector<StoredTask> tasks{task("sbia", 4096, 2.0), task("sb", 4096, 1.0), task("sbia", 32768, 5.0),
                                        task("sb", 32768, 3.0), task("sg", 4096, 7.0), task("sg", 1000, 4.0)};
    const std::vector<han::Candidate> candidates = candidates_from_tasks(tasks, "allgather");
    ASSERT_EQ(candidates.size(), 2u);  // fs 4096 and 32768; sg at 4096 bytes per rank is not a segment size
    for (const han::Candidate& c : candidates) {
        EXPECT_EQ(c.costs.count("sg"), 0u);
        EXPECT_EQ(c.gather_costs, (std::map<std::uint64_t, std::vector<double>>{{1000, {4.0, 4.0}}, {4096, {7.0, 7.0}}}));
    }
    // 2 nodes of 2 ranks, 1000 bytes per rank: block 2000, fs 4096: u = 1 -> 4 + 2 + 1 = 7
    const han::Predictions predicted = han::predict_all(han::Collective::allgather, candidates, 2, 1000, 2);
    EXPECT_EQ(predicted.time, (std::vector<std::optional<double>>{7.0, 7.0}));  // fs 32768: u = 1 too
    EXPECT_EQ(predicted.of(candidates[1]), std::optional<double>(7.0));
    const han::Candidate elsewhere = candidates[1];
    EXPECT_EQ(predicted.of(elsewhere), std::nullopt);  // not one of the candidates predicted
    EXPECT_THROW(han::predict_all(han::Collective::allgather, candidates, 2, 1000, 0), std::invalid_argument);
    const auto pick = model_pick(predicted, std::nullopt, {});
    ASSERT_TRUE(pick && pick->prediction);
    EXPECT_DOUBLE_EQ(pick->prediction->time, 7.0);
    EXPECT_EQ(pick->choice.algorithm, "MPIR_Allgather_intra_hier");
    EXPECT_EQ(pick->choice.params.at("segsize"), "4096");
    EXPECT_EQ(pick->choice.params.at("inter_algo"), "ring");
}

}  // namespace
}  // namespace hiertune
