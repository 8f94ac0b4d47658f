// HAN task-based cost model: hand-computed eq. (3) and (4), the one-step (ia)
// allreduce, the allgather ring, short pipelines, selection.
#include <gtest/gtest.h>

#include "hiertune/models/han_model.hpp"

namespace hiertune::han {
namespace {

// The one place that says which halves a pipeline has.
TEST(HanModel, StagesOfEachDecomposition) {
    EXPECT_TRUE(has_stage(Decomposition::bcast, "ib"));
    EXPECT_FALSE(has_stage(Decomposition::bcast, "sr"));
    EXPECT_TRUE(has_stage(Decomposition::reduce, "ir"));
    EXPECT_FALSE(has_stage(Decomposition::reduce, "sb"));
    for (const char* stage : {"sb", "ib", "ir", "sr"}) EXPECT_TRUE(has_stage(Decomposition::allreduce, stage));
    EXPECT_TRUE(has_stage(Decomposition::allreduce_ia, "ia"));
    EXPECT_FALSE(has_stage(Decomposition::allreduce_ia, "ib"));
    for (const char* stage : {"sb", "ib", "ia", "ir", "sr"}) EXPECT_FALSE(has_stage(Decomposition::allgather_ring, stage));
    EXPECT_TRUE(has_stage(Collective::allreduce, "ib"));  // the default configuration: not the one-step ring
    EXPECT_FALSE(has_stage(Collective::allgather, "sb"));
}

TEST(HanModel, SegmentCount) {
    EXPECT_EQ(segment_count(0, 100), 1u);
    EXPECT_EQ(segment_count(1, 100), 1u);
    EXPECT_EQ(segment_count(100, 100), 1u);
    EXPECT_EQ(segment_count(101, 100), 2u);
    EXPECT_EQ(segment_count(350, 100), 4u);
    EXPECT_THROW(segment_count(10, 0), std::invalid_argument);
}

TEST(HanModel, BcastTaskSequence) {
    const auto u1 = task_sequence(Decomposition::bcast, 1);
    ASSERT_EQ(u1.size(), 2u);
    EXPECT_EQ(u1[0].first.task, "ib");
    EXPECT_EQ(u1[1].first.task, "sb");
    const auto u4 = task_sequence(Decomposition::bcast, 4);
    ASSERT_EQ(u4.size(), 3u);
    EXPECT_EQ(u4[1].first.task, "sbib");
    EXPECT_TRUE(u4[1].first.steady);
    EXPECT_EQ(u4[1].second, 3u);
}

TEST(HanModel, AllreduceTaskSequences) {
    using V = std::vector<std::string>;
    EXPECT_EQ(required_tasks(Decomposition::allreduce, 1), (V{"sr", "ir", "ib", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce, 2), (V{"sr", "irsr", "ibir", "sbib", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce, 3), (V{"sr", "irsr", "ibirsr", "sbibir", "sbib", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce, 9),
              (V{"sr", "irsr", "ibirsr", "sbibirsr", "sbibir", "sbib", "sb"}));
    const auto u9 = task_sequence(Decomposition::allreduce, 9);
    ASSERT_EQ(u9.size(), 7u);
    EXPECT_TRUE(u9[3].first.steady);
    EXPECT_EQ(u9[3].second, 6u);  // sbibirsr(3..8)
    std::uint64_t steps = 0;
    for (const auto& [step, count] : u9) steps += count;
    EXPECT_EQ(steps, 9u + 3u);  // the plugin's loop runs u+3 steps
}

// The reduce mirrors the bcast (hier_pipeline.h: sr(0); irsr(1) .. irsr(u-1); ir(u-1)):
// max_i sr_i + (u-1) irsr_i(s) + ir_i.
TEST(HanModel, ReduceTaskSequenceByHand) {
    using V = std::vector<std::string>;
    EXPECT_EQ(decomposition(Collective::reduce, Params{{"inter_algo", "tsp_knomial"}}), Decomposition::reduce);
    EXPECT_EQ(parse_collective("reduce"), Collective::reduce);
    EXPECT_EQ(to_string(Collective::reduce), "reduce");
    EXPECT_FALSE(applies(Collective::reduce, Params{{"inter_algo", kOneStepInterAlgo}}));
    EXPECT_EQ(required_tasks(Decomposition::reduce, 1), (V{"sr", "ir"}));
    EXPECT_EQ(required_tasks(Decomposition::reduce, 5), (V{"sr", "irsr", "ir"}));
    EXPECT_EQ(steady_task(Decomposition::reduce), "irsr");
    EXPECT_EQ(step_count(Decomposition::reduce, 5), 6u);
    const TaskCosts costs{{"sr", {1.0, 0.5}}, {"irsr", {3.0, 4.0}}, {"ir", {2.0, 2.0}}};
    // u = 4: leader 0: 1 + 3*3 + 2 = 12; leader 1: 0.5 + 3*4 + 2 = 14.5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::reduce, costs, 100, 400), 14.5);
    // u = 1: sr + ir: 3 and 2.5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::reduce, costs, 100, 60), 3.0);
}

// Eq. (3): max_i ib_i(0) + (u-1) sbib_i(s) + sb_i, two leaders.
TEST(HanModel, BcastEquation3ByHand) {
    const TaskCosts costs{{"ib", {1.0, 2.0}}, {"sbib", {3.0, 2.5}}, {"sb", {0.5, 0.5}}};
    // u = 4: leader 0: 1 + 3*3 + 0.5 = 10.5; leader 1: 2 + 3*2.5 + 0.5 = 10
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 100, 350), 10.5);
    // u = 2: 1 + 3 + 0.5 = 4.5; 2 + 2.5 + 0.5 = 5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 100, 200), 5.0);
    // u = 1 (and an empty message): ib + sb; 1.5 vs 2.5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 100, 100), 2.5);
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 100, 0), 2.5);
    // u = 1001: leader 0: 1 + 1000*3 + 0.5; leader 1: 2 + 1000*2.5 + 0.5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 1, 1001), 3001.5);
}

TEST(HanModel, SingleValueAppliesToEveryLeader) {
    const TaskCosts costs{{"ib", {1.0, 2.0}}, {"sbib", {3.0}}, {"sb", {0.5}}};
    // u = 3: leader 0: 1 + 6 + 0.5; leader 1: 2 + 6 + 0.5
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 10, 30), 8.5);
}

// Eq. (4) with the closing sb(u-1), and u = 1, 2 from the task sequence.
TEST(HanModel, AllreduceEquation4ByHand) {
    const TaskCosts costs{{"sr", {1}},   {"ir", {2}},       {"irsr", {3}},   {"ib", {4}},
                          {"ibir", {5}}, {"ibirsr", {6}},   {"sbibirsr", {7}}, {"sbibir", {8}},
                          {"sbib", {9}}, {"sb", {10}}};
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 8, 8), 1 + 2 + 4 + 10.0);
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 8, 16), 1 + 3 + 5 + 9 + 10.0);
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 8, 24), 1 + 3 + 6 + 8 + 9 + 10.0);
    // u = 5: sr + irsr + ibirsr + 2 sbibirsr + sbibir + sbib + sb
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 8, 40), 1 + 3 + 6 + 2 * 7 + 8 + 9 + 10.0);
}

TEST(HanModel, AllreduceMaxOverLeaders) {
    const TaskCosts costs{{"sr", {1, 1}},      {"irsr", {3, 2}},   {"ibirsr", {6, 5}}, {"sbibirsr", {7, 8}},
                          {"sbibir", {8, 8}}, {"sbib", {9, 9}},   {"sb", {10, 10}}};
    // u = 4: leader 0: 1+3+6+7+8+9+10 = 44; leader 1: 1+2+5+8+8+9+10 = 43
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 1, 4), 44.0);
    // u = 10: leader 0: 44 + 6*7 = 86; leader 1: 43 + 6*8 = 91
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce, costs, 1, 10), 91.0);
}

TEST(HanModel, MissingTasksAndBadInput) {
    const TaskCosts costs{{"ib", {1.0}}, {"sb", {0.5}}};
    EXPECT_DOUBLE_EQ(*predict(Decomposition::bcast, costs, 100, 50), 1.5);
    std::vector<std::string> missing;
    EXPECT_FALSE(predict(Decomposition::bcast, costs, 100, 150, &missing));
    EXPECT_EQ(missing, std::vector<std::string>{"sbib"});
    EXPECT_THROW(predict(Decomposition::bcast, {{"ib", {1, 2}}, {"sb", {1, 2, 3}}}, 10, 5), std::invalid_argument);
    EXPECT_THROW(predict(Decomposition::bcast, {{"ib", {-1}}, {"sb", {1}}}, 10, 5), std::invalid_argument);
    EXPECT_THROW(predict(Decomposition::bcast, costs, 0, 5), std::invalid_argument);
    EXPECT_EQ(collective_names(), (std::vector<std::string>{"bcast", "reduce", "allreduce", "allgather"}));
    for (const std::string& name : collective_names()) EXPECT_EQ(to_string(parse_collective(name)), name);
    EXPECT_THROW(parse_collective("gather"), std::invalid_argument);
}

TEST(HanModel, DecompositionFromConfig) {
    const Params ring{{"inter_algo", "tsp_allreduce_ring"}, {"intra_algo", "shm"}};
    EXPECT_EQ(decomposition(Collective::bcast, {}), Decomposition::bcast);
    EXPECT_EQ(decomposition(Collective::allreduce, {}), Decomposition::allreduce);
    EXPECT_EQ(decomposition(Collective::allreduce, {{"inter_algo", "tsp_ring"}}), Decomposition::allreduce);
    EXPECT_EQ(decomposition(Collective::allreduce, ring), Decomposition::allreduce_ia);
    EXPECT_TRUE(applies(Collective::bcast, {{"inter_algo", "tsp_kary"}}));
    EXPECT_TRUE(applies(Collective::allreduce, ring));
    EXPECT_FALSE(applies(Collective::bcast, ring));  // allreduce's own: bcast has no ia
    EXPECT_THROW(decomposition(Collective::bcast, ring), std::invalid_argument);
    EXPECT_EQ(steady_task(Decomposition::bcast), "sbib");
    EXPECT_EQ(steady_task(Decomposition::allreduce), "sbibirsr");
    EXPECT_EQ(steady_task(Decomposition::allreduce_ia), "sbiasr");
}

// The plugin's one-step loop: s = 0 .. u+1, ia(s-1), sb(s-2), sr(s).
TEST(HanModel, AllreduceIaTaskSequences) {
    using V = std::vector<std::string>;
    EXPECT_EQ(task_names(Decomposition::allreduce_ia), (V{"sr", "ia", "iasr", "sbiasr", "sbia", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce_ia, 1), (V{"sr", "ia", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce_ia, 2), (V{"sr", "iasr", "sbia", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce_ia, 3), (V{"sr", "iasr", "sbiasr", "sbia", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allreduce_ia, 9), (V{"sr", "iasr", "sbiasr", "sbia", "sb"}));
    EXPECT_EQ(step_task(Decomposition::allreduce_ia, 1, 1), "ia");
    EXPECT_EQ(step_task(Decomposition::allreduce_ia, 3, 1), "");
    const auto u2 = task_sequence(Decomposition::allreduce_ia, 2);
    ASSERT_EQ(u2.size(), 4u);
    for (const auto& [step, count] : u2) EXPECT_FALSE(step.steady) << step.task;  // no step has all 3 stages
    const auto u9 = task_sequence(Decomposition::allreduce_ia, 9);
    ASSERT_EQ(u9.size(), 5u);
    EXPECT_EQ(u9[2].first.task, "sbiasr");
    EXPECT_TRUE(u9[2].first.steady);
    EXPECT_EQ(u9[2].second, 7u);  // sbiasr(2..8)
    std::uint64_t steps = 0;
    for (const auto& [step, count] : u9) steps += count;
    EXPECT_EQ(steps, 9u + 2u);  // the plugin's loop runs u+2 steps
    EXPECT_EQ(step_count(Decomposition::allreduce_ia, 9), 11u);
}

// u = 1: sr + ia + sb; u >= 2: sr + iasr + (u-2) sbiasr + sbia + sb.
TEST(HanModel, AllreduceIaByHand) {
    const TaskCosts costs{{"sr", {1}}, {"ia", {2}}, {"iasr", {3}}, {"sbiasr", {4}}, {"sbia", {5}}, {"sb", {6}}};
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, costs, 8, 8), 1 + 2 + 6.0);
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, costs, 8, 16), 1 + 3 + 5 + 6.0);
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, costs, 8, 24), 1 + 3 + 4 + 5 + 6.0);
    // u = 5: 1 + 3 + 3*4 + 5 + 6 = 27
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, costs, 8, 40), 27.0);
    // HAN's tasks do not predict the ia form, nor the other way round
    std::vector<std::string> missing;
    EXPECT_FALSE(predict(Decomposition::allreduce, costs, 8, 8, &missing));
    EXPECT_EQ(missing, (std::vector<std::string>{"ir", "ib"}));

    // two leaders, max over them
    const TaskCosts two{{"sr", {1, 1}}, {"iasr", {3, 2}}, {"sbiasr", {4, 6}}, {"sbia", {5, 5}}, {"sb", {6, 6}}};
    // u = 2: leader 0: 1+3+5+6 = 15; leader 1: 1+2+5+6 = 14
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, two, 1, 2), 15.0);
    // u = 4: leader 0: 1+3+2*4+5+6 = 23; leader 1: 1+2+2*6+5+6 = 26
    EXPECT_DOUBLE_EQ(*predict(Decomposition::allreduce_ia, two, 1, 4), 26.0);
}

// The best candidate at m bytes on `nodes` nodes is the one of inter_algo, at that time.
void expect_best(Collective collective, const std::vector<Candidate>& candidates, int nodes, std::uint64_t m,
                 const std::string& inter_algo, double time) {
    const auto best = best_candidate(collective, candidates, nodes, m);
    ASSERT_TRUE(best) << m;
    EXPECT_EQ(best->candidate->config.at("inter_algo"), inter_algo) << m;
    EXPECT_DOUBLE_EQ(best->time, time) << m;
}

// Each candidate is predicted with its own decomposition.
TEST(HanModel, BestCandidateMixesDecompositions) {
    TaskCosts han_costs;  // 1 per task
    for (const std::string& task : task_names(Decomposition::allreduce)) han_costs[task] = {1};
    const TaskCosts ia_costs{{"sr", {1}}, {"ia", {1}}, {"iasr", {1}}, {"sbiasr", {2}}, {"sbia", {1}}, {"sb", {1}}};
    const std::vector<Candidate> candidates{Candidate{Params{{"inter_algo", "tsp_ring"}}, 100, han_costs},
                                            Candidate{Params{{"inter_algo", "tsp_allreduce_ring"}}, 100, ia_costs}};
    // m = 100, u = 1: ir+ib form sr+ir+ib+sb = 4; ia form sr+ia+sb = 3
    expect_best(Collective::allreduce, candidates, 4, 100, "tsp_allreduce_ring", 3.0);
    // m = 1000, u = 10: ir+ib 1+1+1+7*1+1+1+1 = 13; ia 1+1+8*2+1+1 = 20
    expect_best(Collective::allreduce, candidates, 4, 1000, "tsp_ring", 13.0);
}

Candidate bcast_candidate(const std::string& inter, std::uint64_t fs, double ib, double sbib, double sb) {
    return Candidate{Params{{"inter_algo", inter}}, fs, TaskCosts{{"ib", {ib}}, {"sbib", {sbib}}, {"sb", {sb}}}};
}

TEST(HanModel, BestCandidateCrossover) {
    // small segments: cheap start, dearer steady state; large: the opposite
    const std::vector<Candidate> candidates{bcast_candidate("tsp_kary", 100, 1, 2, 1),
                                            bcast_candidate("tsp_knomial", 1000, 5, 3, 1)};
    // m = 100: kary u=1: 2; knomial u=1: 6
    expect_best(Collective::bcast, candidates, 4, 100, "tsp_kary", 2.0);
    // m = 10000: kary u=100: 1 + 99*2 + 1 = 200; knomial u=10: 5 + 27 + 1 = 33
    expect_best(Collective::bcast, candidates, 4, 10000, "tsp_knomial", 33.0);
    EXPECT_FALSE(best_candidate(Collective::allreduce, candidates, 4, 10));  // no allreduce tasks
    // tsp_allreduce_ring has no bcast pipeline: skipped even with (free) bcast tasks
    const std::vector<Candidate> with_ring{bcast_candidate("tsp_allreduce_ring", 100, 0, 0, 0), candidates[0]};
    EXPECT_EQ(best_candidate(Collective::bcast, with_ring, 4, 100)->candidate->config.at("inter_algo"), "tsp_kary");
}

TEST(HanModel, OversizeSegmentsCollapse) {
    // fs = 4096 and 65536 both cover a 1000-byte message: only the smaller counts
    const std::vector<Candidate> candidates{bcast_candidate("tsp_kary", 4096, 3, 1, 3),
                                            bcast_candidate("tsp_kary", 65536, 1, 1, 1)};
    auto best = best_candidate(Collective::bcast, candidates, 2, 1000);
    EXPECT_EQ(best->candidate->segsize, 4096u);
    ModelOptions literal;
    literal.collapse_oversize_segments = false;
    best = best_candidate(Collective::bcast, candidates, 2, 1000, literal);
    EXPECT_EQ(best->candidate->segsize, 65536u);
}

// What one segment shorter than the segment size costs (computed by hand).
TEST(HanModel, ShortSegmentsCostWhatTheySend) {
    Candidate c = bcast_candidate("tsp_kary", 16384, 100, 50, 20);
    c.shorter_segments[1024] = TaskCosts{{"ib", {10}}, {"sb", {2}}};
    c.shorter_segments[4096] = TaskCosts{{"ib", {20, 30}}, {"sbib", {8}}, {"sb", {4}}};
    EXPECT_EQ(segment_costs(c, 16384), c.costs);
    EXPECT_EQ(segment_costs(c, 1 << 20), c.costs);
    EXPECT_EQ(segment_costs(c, 1024), c.shorter_segments[1024]);
    EXPECT_EQ(segment_costs(c, 512), c.shorter_segments[1024]);  // below every measured size: an upper bound
    // 2560 B: halfway from 1K to 4K; ib per leader from the single value 10; sbib only at 4K
    const TaskCosts mid = segment_costs(c, 2560);
    EXPECT_EQ(mid.at("ib"), (std::vector<double>{15, 20}));
    EXPECT_EQ(mid.at("sb"), (std::vector<double>{3}));
    EXPECT_EQ(mid.at("sbib"), (std::vector<double>{8}));
    // 10240 B: halfway from 4K to the segment size 16K
    EXPECT_EQ(segment_costs(c, 10240).at("sb"), (std::vector<double>{12}));
    // u = 1 at 1 KiB: ib + sb = 12, not the 120 of a whole 16K segment
    EXPECT_DOUBLE_EQ(*predict_candidate(Collective::bcast, c, 2, 1024), 12.0);
    // 20 KiB: two 16K segments, the segment size's costs
    EXPECT_DOUBLE_EQ(*predict_candidate(Collective::bcast, c, 2, 20480), 100.0 + 50 + 20);
    c.shorter_segments[1024]["ib"] = {1, 2};
    c.shorter_segments[4096]["ib"] = {1, 2, 3};
    EXPECT_THROW(segment_costs(c, 2560), std::invalid_argument);  // 2 leaders at 1K, 3 at 4K
}

TEST(HanModel, PruningIsOptional) {
    const std::vector<Candidate> candidates{bcast_candidate("tsp_ring", 100, 1, 1, 1),
                                            bcast_candidate("tsp_kary", 100, 2, 2, 2)};
    // 3 segments on 8 nodes: the chain wins unpruned, is skipped pruned
    EXPECT_EQ(best_candidate(Collective::bcast, candidates, 8, 300)->candidate->config.at("inter_algo"), "tsp_ring");
    ModelOptions options;
    options.prune.enabled = true;
    EXPECT_EQ(best_candidate(Collective::bcast, candidates, 8, 300, options)->candidate->config.at("inter_algo"),
              "tsp_kary");
    // 8 segments fill it
    EXPECT_EQ(best_candidate(Collective::bcast, candidates, 8, 800, options)->candidate->config.at("inter_algo"),
              "tsp_ring");
    const std::vector<Candidate> seg{bcast_candidate("seg_pipeline", 100, 1, 1, 1), candidates[1]};
    EXPECT_EQ(best_candidate(Collective::bcast, seg, 8, 300, options)->candidate->config.at("inter_algo"), "tsp_kary");
    options.prune.min_segsize.push_back({"inter_algo", "tsp_ring", 1000});
    EXPECT_EQ(best_candidate(Collective::bcast, candidates, 8, 800, options)->candidate->config.at("inter_algo"),
              "tsp_kary");
}

// The plugin's ring: sg once, (N-1)u steps sbia, u steps sb.
TEST(HanModel, AllgatherSequence) {
    using V = std::vector<std::string>;
    EXPECT_EQ(task_names(Decomposition::allgather_ring), (V{"sg", "sbia", "sb"}));
    EXPECT_EQ(required_tasks(Decomposition::allgather_ring, 1), (V{"sg", "sbia", "sb"}));
    const auto n4u3 = allgather_sequence(3, 4);
    ASSERT_EQ(n4u3.size(), 3u);
    EXPECT_EQ(n4u3[0].first.task, "sg");
    EXPECT_EQ(n4u3[0].second, 1u);
    EXPECT_EQ(n4u3[1].first.task, "sbia");
    EXPECT_TRUE(n4u3[1].first.steady);
    EXPECT_EQ(n4u3[1].second, 9u);  // (4-1)*3
    EXPECT_EQ(n4u3[2].first.task, "sb");
    EXPECT_EQ(n4u3[2].second, 3u);
    EXPECT_THROW(allgather_sequence(0, 4), std::invalid_argument);
    EXPECT_THROW(allgather_sequence(1, 1), std::invalid_argument);
    // the stage functions have no node count
    EXPECT_THROW(task_sequence(Decomposition::allgather_ring, 2), std::invalid_argument);
    EXPECT_THROW(step_count(Decomposition::allgather_ring, 2), std::invalid_argument);
}

TEST(HanModel, AllgatherConfigurations) {
    EXPECT_EQ(decomposition(Collective::allgather, {}), Decomposition::allgather_ring);
    EXPECT_EQ(decomposition(Collective::allgather, {{"inter_algo", "ring"}, {"intra_algo", "shm"}}),
              Decomposition::allgather_ring);
    EXPECT_FALSE(applies(Collective::allgather, {{"inter_algo", "auto"}}));  // not pipelined
    EXPECT_EQ(why_not(Collective::allgather, {{"inter_algo", "auto"}}),
              "inter_algo=auto is not pipelined: the model covers ring");
    EXPECT_FALSE(applies(Collective::allgather, {{"inter_algo", "tsp_kary"}}));
    EXPECT_EQ(why_not(Collective::allgather, {{"inter_k", "2"}}), "allgather's hier algorithm has no inter_k");
    EXPECT_FALSE(applies(Collective::allgather, {{"inter_algo", "tsp_allreduce_ring"}}));
    EXPECT_FALSE(applies(Collective::bcast, {{"inter_algo", "ring"}}));  // allgather's own
    EXPECT_EQ(why_not(Collective::bcast, {{"inter_algo", "ring"}}), "inter_algo=ring is not a bcast value");
    EXPECT_EQ(why_not(Collective::bcast, {{"inter_algo", "tsp_allreduce_ring"}}), "tsp_allreduce_ring is allreduce only");
    EXPECT_EQ(parse_collective("allgather"), Collective::allgather);
    EXPECT_EQ(to_string(Collective::allgather), "allgather");
    EXPECT_THROW(predict(Decomposition::allgather_ring, {}, 100, 100), std::invalid_argument);
}

// max_i sg_i(m) + (N-1) u sbia_i(fs) + u sb_i(fs), u = ceil(ppn*m / fs).
TEST(HanModel, AllgatherEquationByHand) {
    const TaskCosts costs{{"sg", {1.0, 3.0}}, {"sbia", {2.0, 1.5}}, {"sb", {0.5, 1.0}}};
    // N = 2, ppn = 2, m = 150: block 300, fs = 100 -> u = 3
    // leader 0: 1 + 1*3*2 + 3*0.5 = 8.5; leader 1: 3 + 3*1.5 + 3*1 = 10.5
    EXPECT_DOUBLE_EQ(*predict_allgather(costs, 100, 150, 2, 2), 10.5);
    // N = 4, ppn = 1, m = 100: u = 1; leader 0: 1 + 3*2 + 0.5 = 7.5; leader 1: 3 + 3*1.5 + 1 = 8.5
    EXPECT_DOUBLE_EQ(*predict_allgather(costs, 100, 100, 4, 1), 8.5);
    // the last piece costs as a full one: m = 101, ppn = 1 -> u = 2: 1 + 3*2*2 + 2*0.5 = 14; 3 + 9 + 2 = 14
    EXPECT_DOUBLE_EQ(*predict_allgather(costs, 100, 101, 4, 1), 14.0);
    std::vector<std::string> missing;
    EXPECT_FALSE(predict_allgather({{"sbia", {1}}}, 100, 10, 2, 2, &missing));
    EXPECT_EQ(missing, (std::vector<std::string>{"sg", "sb"}));
    EXPECT_THROW(predict_allgather(costs, 100, 10, 2, 0), std::invalid_argument);
    EXPECT_THROW(predict_allgather(costs, 0, 10, 2, 2), std::invalid_argument);
}

// sg is looked up at the message's bytes per rank; fs is compared with the node block.
TEST(HanModel, AllgatherBestCandidate) {
    const auto ring = [](const std::string& intra, std::uint64_t fs, double sbia, double sb) {
        Candidate c{{{"inter_algo", "ring"}, {"intra_algo", intra}}, fs, {{"sbia", {sbia}}, {"sb", {sb}}}, {}};
        c.gather_costs = {{1000, {5.0}}, {4000, {7.0}}};
        return c;
    };
    const std::vector<Candidate> candidates{ring("binomial", 1000, 2.0, 1.0), ring("shm", 1000, 1.0, 1.0),
                                            ring("shm", 8192, 9.0, 9.0)};
    // m = 1000, ppn 2, 3 nodes: block 2000; fs 1000: u = 2: binomial 5 + 2*2*2 + 2*1 = 15; shm 5 + 4 + 2 = 11;
    // fs 8192 covers the block: 5 + 2*9 + 9 = 32
    auto best = best_candidate(Collective::allgather, candidates, 3, 1000, {}, 2);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->candidate->config.at("intra_algo"), "shm");
    EXPECT_EQ(best->candidate->segsize, 1000u);
    EXPECT_DOUBLE_EQ(best->time, 11.0);
    // m = 4000, ppn 2: block 8000, fs 1000: u = 8: shm 7 + 2*8*1 + 8*1 = 31; fs 8192: 7 + 18 + 9 = 34
    best = best_candidate(Collective::allgather, candidates, 3, 4000, {}, 2);
    EXPECT_DOUBLE_EQ(best->time, 31.0);
    // no sg at 2000 bytes per rank: nothing to predict
    EXPECT_FALSE(best_candidate(Collective::allgather, candidates, 3, 2000, {}, 2));
    EXPECT_THROW(best_candidate(Collective::allgather, candidates, 3, 1000), std::invalid_argument);  // no ppn
    // bcast candidates do not apply to allgather
    const std::vector<Candidate> bcast{{{{"inter_algo", "tsp_kary"}}, 1000, {{"ib", {1}}, {"sbib", {1}}, {"sb", {1}}}, {}}};
    EXPECT_FALSE(best_candidate(Collective::allgather, bcast, 3, 1000, {}, 2));
}

}  // namespace
}  // namespace hiertune::han
