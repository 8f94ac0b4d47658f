// `hiertune tune` (WITHOUT mpiexec): its options, then tune_command.cpp's run_tune,
// which launches this program's path as the steps' jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/tune/tune_steps.hpp"
#include "launch_options.hpp"

namespace hiertune {

class TuneCli : public Command {
public:
    // hiertune: the program the jobs run (own_path).
    explicit TuneCli(std::string hiertune) : hiertune_(std::move(hiertune)) {}
    CLI::App* bind(CLI::App& app) override;
    int run() override;

    // The parsed options as run_tune takes them, with the environment's machine name.
    // Throws UsageError.
    TuneOptions options() const;

private:
    // the search space and the files
    void bind_space_and_files(CLI::App& tune);
    // the measurements' repetitions and caps
    void bind_repetitions(CLI::App& tune);
    // the tree's timing, its installation and the model
    void bind_tree_and_model(CLI::App& tune);

    std::string hiertune_;
    CLI::App* command_ = nullptr;
    JobShapeArgs shape_{0, 0, TuneOptions{}.collectives, "", {}};  // -C: tune's default collectives
    std::string configs_;
    std::string measured_sizes_;
    std::vector<std::string> sizes_of_;  // --sizes-of COLL=SIZES
    std::vector<std::string> segsizes_{"16K", "64K", "256K"};
    std::string db_path_ = "tune.sqlite";
    std::string output_path_ = "tree.json";
    std::string stock_path_ = mpich_generic_json();
    std::string ch4_stock_path_ = mpich_ch4_generic_json();
    std::string report_dir_ = "tune-report";
    LaunchArgs launch_;
    std::string fit_launcher_;
    std::vector<std::string> shapes_;
    std::vector<std::string> predicted_shapes_;
    std::string shape_launcher_;
    std::string machine_;
    std::uint64_t steady_ = 8;
    std::size_t task_warmup_ = 3;
    std::size_t task_min_reps_ = 10;
    std::size_t task_reps_ = 100;
    std::size_t bench_warmup_ = 10;
    std::size_t bench_min_reps_ = 10;
    std::size_t bench_max_reps_ = 1000;
    double precision_percent_ = 2.5;
    double max_time_ = 5;
    double rate_tolerance_percent_ = kDefaultRateTolerancePercent;
    int tree_rounds_ = 3;
    double tree_tolerance_percent_ = 5;
    bool allow_tree_slower_ = false;
    bool keep_unproven_ = false;
    bool time_every_size_ = false;
    double budget_s_ = 0;  // --budget in seconds, 0: none
    std::string install_prefix_;  // --install's value; given without one: mpich_prefix()
    bool prune_ = false;
    bool no_collapse_ = false;
    bool no_stock_ = false;
    bool allow_cliques_ = false;
};

}  // namespace hiertune
