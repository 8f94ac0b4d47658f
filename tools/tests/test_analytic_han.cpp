// The fitted analytic models as the HAN model's seg_* inter-node stages.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hiertune/models/analytic_han.hpp"

namespace hiertune::analytic {
namespace {

TEST(AnalyticHan, TaskStages) {
    EXPECT_EQ(task_stages("sbibir"), (std::vector<std::string>{"sb", "ib", "ir"}));
    EXPECT_EQ(task_stages("ia"), std::vector<std::string>{"ia"});
    EXPECT_THROW(task_stages("sbi"), std::invalid_argument);
    EXPECT_THROW(task_stages("xx"), std::invalid_argument);
}

han::Candidate measured(const std::string& inter, std::uint64_t segsize, han::TaskCosts costs) {
    return han::Candidate{{{"inter_algo", inter}, {"inter_k", "2"}, {"intra_algo", "shm"}}, segsize, std::move(costs)};
}

ModelInputs gamma_at_16k() {
    ModelInputs inputs;
    inputs.gammas.by_segment.emplace(16384, Gamma(std::map<int, double>{{2, 10e-6}, {3, 15e-6}}));
    return inputs;
}

// ib from the model, sb measured, sbib keeping its measured ratio to its slowest stage.
TEST(AnalyticHan, BcastInterStageFromTheModel) {
    const std::vector<han::Candidate> tasks{
        measured("tsp_kary", 65536, {{"ib", {100e-6}}, {"sb", {50e-6}}, {"sbib", {120e-6}}})};
    const std::vector<FittedModel> models{{"bcast", "seg_binomial", {}, 4, 10e-6, 1e-9, 10},
                                          {"reduce", "seg_binomial", {}, 4, 10e-6, 1e-9, 10}};
    const std::vector<Params> targets = seg_inter_targets(han::Collective::bcast, tasks, {0, 16384, 65536}, {2});
    EXPECT_EQ(targets.size(), 3u * 6);  // six seg_* trees (seg_chain at one fanout) x three chunks, intra shm
    const std::vector<han::Candidate> derived =
        seg_inter_candidates(han::Collective::bcast, tasks, models, gamma_at_16k(), 4, targets);
    ASSERT_EQ(derived.size(), 2u);  // seg_binomial in one piece and in 16 KiB chunks (64 KiB is the segment)
    const han::Candidate& whole = derived[0];
    EXPECT_EQ(whole.config, (Params{{"inter_algo", "seg_binomial"}, {"inter_chunk", "0"}, {"intra_algo", "shm"}}));
    // (the target without inter_k: tsp_kary's radix does not carry over)
    EXPECT_EQ(whole.segsize, 65536u);
    // binomial on 4 leaders, one 64 KiB segment: the root to 2 children (gamma(3) = 1.5),
    // then rank 2 to rank 3 (gamma(2) = 1): 2.5 (10 us + 65.536 us) = 188.84 us
    EXPECT_NEAR(whole.costs.at("ib")[0], 188.84e-6, 1e-12);
    EXPECT_DOUBLE_EQ(whole.costs.at("sb")[0], 50e-6);
    EXPECT_NEAR(whole.costs.at("sbib")[0], 120e-6 * 188.84 / 100, 1e-12);
    EXPECT_EQ(derived[1].config.at("inter_chunk"), "16384");
    EXPECT_LT(derived[1].costs.at("ib")[0], whole.costs.at("ib")[0]);  // pipelined in 4 chunks
}

TEST(AnalyticHan, AllreduceNeedsBothTreesAndATwoLevelBase) {
    const han::TaskCosts costs{{"sr", {40e-6}}, {"ir", {90e-6}}, {"ib", {100e-6, 80e-6}}, {"sb", {50e-6}},
                               {"irsr", {95e-6}}, {"sbib", {110e-6, 90e-6}}};
    const std::vector<han::Candidate> tasks{measured("tsp_allreduce_ring", 65536, costs),
                                            measured("tsp_kary", 65536, costs)};
    const std::vector<FittedModel> bcast_only{{"bcast", "seg_linear", {}, 4, 10e-6, 1e-9, 10}};
    const std::vector<Params> linear{{{"inter_algo", "seg_linear"}, {"intra_algo", "shm"}}};
    EXPECT_TRUE(seg_inter_candidates(han::Collective::allreduce, tasks, bcast_only, gamma_at_16k(), 3, linear).empty());
    std::vector<FittedModel> both = bcast_only;
    both.push_back({"reduce", "seg_linear", {}, 4, 20e-6, 2e-9, 10});
    const std::vector<han::Candidate> derived =
        seg_inter_candidates(han::Collective::allreduce, tasks, both, gamma_at_16k(), 3, linear);
    ASSERT_EQ(derived.size(), 1u);  // from the tsp_kary base only
    EXPECT_EQ(derived[0].config, linear[0]);  // the target's config: inter_chunk absent, 0
    const std::vector<Params> binomial{{{"inter_algo", "seg_binomial"}, {"intra_algo", "binomial"}}};
    EXPECT_TRUE(seg_inter_candidates(han::Collective::allreduce, tasks, both, gamma_at_16k(), 3, binomial).empty());
    // linear on 3 leaders, one segment: gamma(3) = 1.5 transfers of 64 KiB
    const double ib = 1.5 * (10e-6 + 65536e-9), ir = 1.5 * (20e-6 + 2 * 65536e-9);
    EXPECT_NEAR(derived[0].costs.at("ib")[1], ib, 1e-12);  // the same at every leader
    EXPECT_NEAR(derived[0].costs.at("ir")[0], ir, 1e-12);
    EXPECT_NEAR(derived[0].costs.at("irsr")[0], 95e-6 * ir / 90e-6, 1e-12);
    EXPECT_NEAR(derived[0].costs.at("sbib")[1], 90e-6 * ib / 80e-6, 1e-12);  // per leader
    EXPECT_THROW(seg_inter_candidates(han::Collective::bcast, tasks, both, gamma_at_16k(), 1, linear),
                 std::invalid_argument);
    EXPECT_TRUE(is_seg_inter(linear[0]));
    EXPECT_FALSE(is_seg_inter(tasks[1].config));
}

}  // namespace
}  // namespace hiertune::analytic
