// `hiertune tree-timing` (WITHOUT mpiexec): tune's step 5 for any tree; its options,
// then tune_command.cpp's run_tree_timing, which launches this program's path.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/tune_steps.hpp"
#include "launch_options.hpp"

namespace hiertune {

class TreeTimingCli : public Command {
public:
    // hiertune: the program the jobs run (own_path).
    explicit TreeTimingCli(std::string hiertune) : hiertune_(std::move(hiertune)) {}
    CLI::App* bind(CLI::App& app) override;
    int run() override;

    // The parsed options as run_tree_timing takes them.  Throws UsageError.
    TuneOptions options() const;

private:
    std::string hiertune_;
    CLI::App* command_ = nullptr;
    std::string tree_path_;
    JobShapeArgs shape_{0, 0, {to_string(grammar::Collective::bcast), to_string(grammar::Collective::allreduce)}, "", {}};
    LaunchArgs launch_;
    int rounds_ = 3;
    double tolerance_percent_ = 5;
    bool allow_slower_ = false;
    StoppingArgs stopping_{10};
    bool allow_cliques_ = false;
};

}  // namespace hiertune
