// `hiertune overlap` (under mpiexec): its options, then overlap.cpp's runner.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "overlap.hpp"

namespace hiertune {

class OverlapCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = options(); }
    int run() override;

    // The parsed options as the runner takes them.  Throws UsageError.
    OverlapOptions options() const;

private:
    std::vector<std::string> operations_{"isend"};
    std::vector<std::string> algorithms_;
    std::vector<std::string> params_;
    std::string size_range_ = "1K:1M";
    std::pair<double, double> comp_us_{10, 10000};
    unsigned comp_points_ = 4;
    std::size_t reps_ = 10;
    unsigned threads_ = 1;
    OutputFlags output_;
    bool allow_cliques_ = false;
    OverlapOptions prepared_;
};

}  // namespace hiertune
