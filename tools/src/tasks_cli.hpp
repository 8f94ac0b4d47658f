// `hiertune tasks` (under mpiexec): its options, then tasks.cpp's runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"
#include "tasks.hpp"
#include "hiertune/tree/collective.hpp"

namespace hiertune {

class TasksCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = options(); }
    int run() override;

    // The parsed options as the runner takes them, with the environment's machine
    // name.  Throws UsageError.
    TasksOptions options() const;

private:
    std::vector<std::string> collectives_{to_string(grammar::Collective::bcast)};
    std::string configs_;
    std::vector<std::string> segsizes_;
    std::uint64_t steady_ = 8;
    std::string max_message_ = "0";
    std::vector<std::string> gather_sizes_;
    std::size_t warmup_ = 3;
    std::size_t min_reps_ = 10;
    std::size_t reps_ = 100;
    double precision_percent_ = 2.5;
    double max_time_ = 5;
    std::string db_path_;
    std::string machine_;
    std::string account_step_;
    bool allow_cliques_ = false;
    TasksOptions prepared_;
};

}  // namespace hiertune
