// Task benchmark planning and step timings -> task costs.
#include <gtest/gtest.h>

#include <set>

#include "hiertune/task_bench.hpp"
#include "hiertune/usage_error.hpp"

namespace hiertune {
namespace {

TEST(TaskBench, ConfigsMultiplyOut) {
    const auto configs = parse_task_configs("inter_algo=tsp_kary/tsp_knomial,inter_k=2/4,intra_algo=shm");
    ASSERT_EQ(configs.size(), 4u);
    EXPECT_EQ(configs[0], (Params{{"inter_algo", "tsp_kary"}, {"inter_k", "2"}, {"intra_algo", "shm"}}));
    EXPECT_EQ(configs[3], (Params{{"inter_algo", "tsp_knomial"}, {"inter_k", "4"}, {"intra_algo", "shm"}}));
    EXPECT_EQ(parse_task_configs(""), std::vector<Params>{Params{}});
    EXPECT_THROW(parse_task_configs("inter_algo=tree"), UsageError);
    EXPECT_THROW(parse_task_configs("inter_k=0"), UsageError);
    EXPECT_THROW(parse_task_configs("segsize=4096"), UsageError);
    EXPECT_THROW(parse_task_configs("inter_k=2,inter_k=3"), UsageError);
    EXPECT_THROW(parse_task_configs("inter_k"), UsageError);
}

TEST(TaskBench, RunsAndKeys) {
    using han::Decomposition;
    EXPECT_EQ(task_runs(Decomposition::bcast, 8), std::vector<std::uint64_t>{8});
    EXPECT_EQ(task_runs(Decomposition::allreduce, 8), (std::vector<std::uint64_t>{8, 2, 1}));
    EXPECT_EQ(task_runs(Decomposition::allreduce_ia, 8), (std::vector<std::uint64_t>{8, 1}));
    EXPECT_THROW(task_runs(Decomposition::bcast, 3), std::invalid_argument);
    const auto keys = task_keys("allreduce", Params{{"inter_algo", "auto"}}, 8192);
    EXPECT_EQ(keys.size(), 10u);
    EXPECT_EQ(keys[0].seg_bytes, 8192u);
    const auto ia_keys = task_keys("allreduce", Params{{"inter_algo", "tsp_allreduce_ring"}}, 8192);
    EXPECT_EQ(ia_keys.size(), 6u);  // sr ia iasr sbiasr sbia sb
    EXPECT_EQ(ia_keys[1].task, "ia");
    EXPECT_THROW(task_keys("bcast", Params{{"inter_algo", "tsp_allreduce_ring"}}, 8192), std::invalid_argument);
    // the runs of both allreduce forms cover every task the model may need (any u from 1 to 8)
    for (const auto& [form, form_keys] :
         {std::pair{Decomposition::allreduce, keys}, {Decomposition::allreduce_ia, ia_keys}}) {
        std::set<std::string> covered;
        for (std::uint64_t u : task_runs(form, 8))
            for (const auto& [task, time] : tasks_of_run(form, u, std::vector<double>(han::step_count(form, u), 1.0)))
                covered.insert(task);
        for (const TaskKey& key : form_keys) EXPECT_TRUE(covered.count(key.task)) << key.task;
        for (std::uint64_t u = 1; u <= 8; ++u)
            for (const std::string& task : han::required_tasks(form, u)) EXPECT_TRUE(covered.count(task)) << task;
    }
}

TEST(TaskBench, BcastSkipsTheAllreduceRing) {
    const auto configs = parse_task_configs("inter_algo=tsp_kary/tsp_allreduce_ring,intra_algo=binomial");
    ASSERT_EQ(configs.size(), 2u);
    std::vector<std::string> notes;
    EXPECT_EQ(configs_for("bcast", configs, &notes), std::vector<Params>{configs[0]});
    EXPECT_EQ(notes, std::vector<std::string>{"bcast: inter_algo=tsp_allreduce_ring,intra_algo=binomial skipped "
                                              "(tsp_allreduce_ring is allreduce only)"});
    notes.clear();
    EXPECT_EQ(configs_for("allreduce", configs, &notes), configs);
    EXPECT_TRUE(notes.empty());
    EXPECT_TRUE(configs_for("bcast", {configs[1]}).empty());
}

TEST(TaskBench, SteadyRunLength) {
    EXPECT_EQ(steady_run_segments(8, 16384, 0), 8u);              // no message limit
    EXPECT_EQ(steady_run_segments(8, 16384, 1 << 20), 8u);        // 64 segments needed: capped
    EXPECT_EQ(steady_run_segments(8, 262144, 1 << 20), 4u);       // 1 MiB is 4 segments
    EXPECT_EQ(steady_run_segments(8, 200000, 1 << 20), 6u);       // 5.24 segments: the partial one counts
    EXPECT_EQ(steady_run_segments(8, 1 << 20, 1024), 4u);         // never below 4
    EXPECT_EQ(steady_run_segments(16, 65536, 1 << 20), 16u);
    EXPECT_THROW(steady_run_segments(3, 4096, 0), std::invalid_argument);
    EXPECT_THROW(steady_run_segments(8, 0, 4096), std::invalid_argument);
    EXPECT_EQ(run_warmup(3, 0), 3u);
    EXPECT_EQ(run_warmup(3, 1), 1u);
    EXPECT_EQ(run_warmup(3, 2), 1u);
    EXPECT_EQ(run_warmup(0, 1), 0u);
}

TEST(TaskBench, StepTimesToTasks) {
    // bcast u = 6: ib, sbib x5, sb; steady = mean of the last 3 sbib (5 // 2 = 2 skipped)
    const auto bcast = tasks_of_run(han::Decomposition::bcast, 6, {1, 9, 8, 3, 4, 5, 0.5});
    ASSERT_EQ(bcast.size(), 3u);
    EXPECT_DOUBLE_EQ(bcast.at("ib"), 1);
    EXPECT_DOUBLE_EQ(bcast.at("sbib"), 4);
    EXPECT_DOUBLE_EQ(bcast.at("sb"), 0.5);
    // allreduce u = 2: sr, irsr, ibir, sbib, sb
    const auto two = tasks_of_run(han::Decomposition::allreduce, 2, {1, 2, 3, 4, 5});
    EXPECT_EQ(two, (std::map<std::string, double>{{"sr", 1}, {"irsr", 2}, {"ibir", 3}, {"sbib", 4}, {"sb", 5}}));
    EXPECT_THROW(tasks_of_run(han::Decomposition::allreduce, 2, {1, 2, 3}), std::invalid_argument);
    // allreduce ia u = 5 (u+2 steps): sr, iasr, sbiasr x3, sbia, sb; steady = mean of the last 2 (3 // 2 = 1 skipped)
    const auto ia = tasks_of_run(han::Decomposition::allreduce_ia, 5, {1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(ia, (std::map<std::string, double>{{"sr", 1}, {"iasr", 2}, {"sbiasr", 4.5}, {"sbia", 6}, {"sb", 7}}));
    // u = 1: sr, ia, sb
    EXPECT_EQ(tasks_of_run(han::Decomposition::allreduce_ia, 1, {1, 2, 3}),
              (std::map<std::string, double>{{"sr", 1}, {"ia", 2}, {"sb", 3}}));
    EXPECT_THROW(tasks_of_run(han::Decomposition::allreduce_ia, 1, {1, 2, 3, 4}), std::invalid_argument);
}

TEST(TaskBench, SubmoduleStandIns) {
    using V = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(submodule_cvars("bcast", Params{{"inter_algo", "tsp_knomial"}, {"inter_k", "4"}, {"intra_algo", "binomial"}}),
              (V{{"MPIR_CVAR_IBCAST_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_IBCAST_INTRA_ALGORITHM", "tsp_tree"},
                 {"MPIR_CVAR_IBCAST_TREE_KVAL", "4"},
                 {"MPIR_CVAR_IBCAST_TREE_PIPELINE_CHUNK_SIZE", "0"},
                 {"MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial"}}));
    const auto ring = submodule_cvars("allreduce", Params{{"inter_algo", "tsp_ring"}, {"intra_algo", "shm"}});
    EXPECT_EQ(ring.size(), 12u);
    EXPECT_EQ(ring[2], (std::pair<std::string, std::string>{"MPIR_CVAR_IBCAST_TREE_KVAL", "1"}));
    EXPECT_EQ(ring[11], (std::pair<std::string, std::string>{"MPIR_CVAR_REDUCE_INTRA_ALGORITHM", "auto"}));
    EXPECT_EQ(launch_cvars("allreduce", Params{{"inter_algo", "tsp_knomial"}}),
              (V{{"MPIR_CVAR_IBCAST_TREE_TYPE", "knomial_1"}, {"MPIR_CVAR_IREDUCE_TREE_TYPE", "knomial_1"}}));
    EXPECT_EQ(launch_cvars("bcast", Params{{"inter_algo", "tsp_ring"}}), (V{{"MPIR_CVAR_IBCAST_TREE_TYPE", "kary"}}));
    EXPECT_TRUE(launch_cvars("bcast", Params{{"inter_algo", "sched_binomial"}}).empty());
    EXPECT_THROW(submodule_cvars("bcast", Params{{"inter_algo", "seg_chain"}}), UsageError);

    // ia: MPI_Iallreduce on the leaders under MPICH's tsp ring; no ib/ir variables, no launch variable
    const Params one_step{{"inter_algo", "tsp_allreduce_ring"}, {"inter_k", "4"}, {"intra_algo", "binomial"}};
    EXPECT_EQ(submodule_cvars("allreduce", one_step),
              (V{{"MPIR_CVAR_IALLREDUCE_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", "tsp_ring"},
                 {"MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial"},
                 {"MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_REDUCE_INTRA_ALGORITHM", "binomial"}}));
    EXPECT_TRUE(launch_cvars("allreduce", one_step).empty());
    EXPECT_THROW(submodule_cvars("bcast", one_step), UsageError);
}

}  // namespace
}  // namespace hiertune
