// `hiertune bench` (under mpiexec): its options, then bench.cpp's runner.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench.hpp"
#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/tree/collective.hpp"

namespace hiertune {

class BenchCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = options(); }
    int run() override;

    // The parsed options as the runner takes them, with the environment's machine name,
    // link rate and cluster.  Throws UsageError.
    BenchOptions options() const;

private:
    CLI::App* command_ = nullptr;
    std::vector<std::string> collectives_{to_string(grammar::Collective::bcast)};
    std::vector<std::string> algorithms_;
    std::vector<std::string> params_;
    std::string size_range_;
    std::vector<std::string> sizes_;
    StoppingArgs stopping_{10};
    std::size_t reps_ = 0;
    OutputFlags output_;
    bool full_ = false;
    bool validate_ = false;
    bool same_runs_once_ = false;
    bool progress_ = false;
    bool no_progress_ = false;
    std::string db_path_;
    std::string machine_;
    std::string account_step_;
    bool allow_cliques_ = false;
    BenchOptions prepared_;
};

}  // namespace hiertune
