// `hiertune learn` (WITHOUT mpiexec): its options, then learn_command.cpp's runner,
// which launches this program's path as the bench jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/learn_run.hpp"
#include "hiertune/tune/sweep.hpp"
#include "launch_options.hpp"

namespace hiertune {

class LearnCli : public Command {
public:
    // hiertune: the program the jobs run (own_path).
    explicit LearnCli(std::string hiertune) : hiertune_(std::move(hiertune)) {}
    CLI::App* bind(CLI::App& app) override;
    int run() override;

    // The parsed options as run_learn takes them, checked (check_learn_options).
    // Throws UsageError.
    LearnRunOptions options() const;
    // -a and -p, parsed; no -a: every algorithm.  Throws UsageError.
    std::vector<AlgorithmSpec> algorithms() const;
    std::vector<ParamSpec> params() const;

private:
    // the space of shapes, sizes and configurations, and the files
    void bind_space_and_files(CLI::App& learn);
    // the learner: batches, convergence, forest, start and parallel jobs
    void bind_learning(CLI::App& learn);

    std::string hiertune_;
    CLI::App* command_ = nullptr;
    std::vector<std::string> collectives_{to_string(grammar::Collective::bcast)};
    std::vector<int> nodes_;
    std::vector<int> ppn_{1};
    std::string size_range_ = "1K:1M";
    std::vector<std::string> algorithms_;
    std::vector<std::string> params_;
    std::string db_path_ = "learn.sqlite";
    std::string output_path_ = "tree.json";
    std::string stock_path_ = mpich_generic_json();
    std::size_t batch_ = 1;
    double time_budget_ = 0;
    double threshold_ = 0.1;
    bool absolute_ = false;
    std::size_t converge_iterations_ = 4;
    std::size_t trees_ = 100;
    std::size_t initial_points_ = 4;
    bool random_start_ = false;
    std::uint64_t seed_ = 1;
    std::size_t parallel_ = 0;
    std::size_t rack_nodes_ = 1;
    bool collect_only_ = false;
    bool train_only_ = false;
    LaunchArgs launch_;
    std::string machine_;
    StoppingArgs stopping_{10};
    bool allow_cliques_ = false;
};

}  // namespace hiertune
