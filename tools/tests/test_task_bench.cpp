// Task benchmark planning and step timings -> task costs.
#include <gtest/gtest.h>

#include <set>

#include "hiertune/tune/task_bench.hpp"
#include "hiertune/common/usage_error.hpp"

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

// allgather takes only its own parameters of the shared search space, its ring named
TEST(TaskBench, AllgatherSharesOnlyItsParameters) {
    const auto configs = parse_task_configs("inter_algo=tsp_kary/ring/auto,inter_k=2/4,intra_algo=binomial/shm");
    ASSERT_EQ(configs.size(), 12u);
    std::vector<std::string> notes;
    const std::vector<Params> allgather = configs_for("allgather", configs, &notes);
    EXPECT_EQ(allgather, (std::vector<Params>{{{"inter_algo", "ring"}, {"intra_algo", "binomial"}},
                                              {{"inter_algo", "ring"}, {"intra_algo", "shm"}}}));
    EXPECT_EQ(notes, (std::vector<std::string>{
                         "allgather: inter_algo=auto,intra_algo=binomial skipped (inter_algo=auto is not pipelined: "
                         "the model covers ring)",
                         "allgather: inter_algo=auto,intra_algo=shm skipped (inter_algo=auto is not pipelined: "
                         "the model covers ring)"}));
    notes.clear();
    EXPECT_EQ(configs_for("bcast", configs, &notes).size(), 8u);  // tsp_kary and auto x inter_k x intra_algo
    ASSERT_EQ(notes.size(), 4u);
    EXPECT_EQ(notes[0], "bcast: inter_algo=ring,inter_k=2,intra_algo=binomial skipped (inter_algo=ring is not a bcast value)");
    EXPECT_EQ(configs_for("allgather", {Params{}}), (std::vector<Params>{{{"inter_algo", "ring"}}}));
}

// the ring run: u = ceil(K / (N-1)); sbia the second half of the (N-1)u ring steps, sb the u tail steps
TEST(TaskBench, AllgatherRunsAndKeys) {
    EXPECT_EQ(allgather_run_pieces(8, 2), 8u);
    EXPECT_EQ(allgather_run_pieces(8, 4), 3u);
    EXPECT_EQ(allgather_run_pieces(8, 9), 1u);
    EXPECT_THROW(allgather_run_pieces(8, 1), std::invalid_argument);
    // N = 3, u = 2: ring steps 1 2 3 4, tail 10 20 -> sbia (3+4)/2, sb 15
    const auto tasks = tasks_of_allgather_run(2, 3, {1, 2, 3, 4, 10, 20});
    EXPECT_EQ(tasks, (std::map<std::string, double>{{"sbia", 3.5}, {"sb", 15.0}}));
    EXPECT_THROW(tasks_of_allgather_run(2, 3, {1, 2, 3}), std::invalid_argument);
    const Params ring{{"inter_algo", "ring"}, {"intra_algo", "shm"}};
    const auto keys = task_keys("allgather", ring, 4096);
    ASSERT_EQ(keys.size(), 2u);
    EXPECT_EQ(keys[0].task, "sbia");
    EXPECT_EQ(keys[1].task, "sb");
    const TaskKey gather = gather_task_key(ring, 1000);
    EXPECT_EQ(gather.task, "sg");
    EXPECT_EQ(gather.seg_bytes, 1000u);
    EXPECT_THROW(gather_task_key(Params{{"inter_algo", "auto"}}, 1000), std::invalid_argument);
    using V = std::vector<std::pair<std::string, std::string>>;
    // the plugin's gather is binomial under shm; only the bcast takes the device's
    EXPECT_EQ(submodule_cvars("allgather", ring), (V{{"MPIR_CVAR_GATHER_DEVICE_COLLECTIVE", "0"},
                                                     {"MPIR_CVAR_GATHER_INTRA_ALGORITHM", "binomial"},
                                                     {"MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", "1"},
                                                     {"MPIR_CVAR_BCAST_INTRA_ALGORITHM", "auto"}}));
    EXPECT_EQ(submodule_cvars("allgather", Params{{"intra_algo", "auto"}})[1].second, "auto");
    EXPECT_TRUE(launch_cvars("allgather", ring).empty());
    EXPECT_THROW(submodule_cvars("allgather", Params{{"inter_algo", "tsp_kary"}}), UsageError);
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

    // reduce: ir on the leaders, sr in the node; no bcast variable
    EXPECT_EQ(submodule_cvars("reduce", Params{{"inter_algo", "tsp_kary"}, {"inter_k", "4"}, {"intra_algo", "shm"}}),
              (V{{"MPIR_CVAR_IREDUCE_DEVICE_COLLECTIVE", "0"},
                 {"MPIR_CVAR_IREDUCE_INTRA_ALGORITHM", "tsp_tree"},
                 {"MPIR_CVAR_IREDUCE_TREE_KVAL", "4"},
                 {"MPIR_CVAR_IREDUCE_TREE_PIPELINE_CHUNK_SIZE", "0"},
                 {"MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE", "1"},
                 {"MPIR_CVAR_REDUCE_INTRA_ALGORITHM", "auto"}}));
    EXPECT_EQ(launch_cvars("reduce", Params{{"inter_algo", "tsp_knomial"}}),
              (V{{"MPIR_CVAR_IREDUCE_TREE_TYPE", "knomial_1"}}));
    EXPECT_THROW(submodule_cvars("reduce", one_step), UsageError);
    EXPECT_EQ(task_keys("reduce", Params{}, 4096).size(), 3u);  // sr, irsr, ir
}

}  // namespace
}  // namespace hiertune
