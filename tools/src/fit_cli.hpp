// `hiertune fit` (under mpiexec, one rank per node): its options, then fit.cpp's runner.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "fit.hpp"

namespace hiertune {

class FitCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = options(); }
    int run() override;

    // The parsed options as the runner takes them, with the environment's machine
    // name.  Throws UsageError.
    FitOptions options() const;

private:
    CLI::App* command_ = nullptr;
    std::vector<std::string> collectives_ = analytic::modelled_collectives();
    std::vector<std::string> algorithms_;
    std::string smallest_ = "8K";
    std::string largest_ = "4M";
    std::size_t count_ = 10;
    std::vector<std::string> gamma_segsizes_{"16K", "64K", "256K"};
    std::string segsize_ = "64K";
    int chain_fanout_ = 2;
    std::string gather_ = "1K";
    StoppingArgs stopping_{2};
    std::string db_path_;
    std::string machine_;
    bool allow_cliques_ = false;
    FitOptions prepared_;
};

}  // namespace hiertune
