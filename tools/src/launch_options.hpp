// What the commands that launch jobs of their own (tune, tree-timing, learn) bind
// alike: how the jobs are started, their shape and message sizes, and bench's
// stopping rule in them.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_options.hpp"
#include "hiertune/tune/tune_steps.hpp"

namespace hiertune {

// --mpiexec, --mpiexec-arg, --launcher.
struct LaunchArgs {
    std::string mpiexec;
    std::vector<std::string> mpiexec_args;
    std::string launcher;

    // The jobs' launcher words, mpiexec (the default one unless a launcher is
    // given) and its arguments; command: the parsed subcommand.
    void apply(const CLI::App& command, TuneOptions& jobs) const;
};
struct LaunchHelp {
    std::string mpiexec;
    std::string mpiexec_arg;
    std::string launcher;
};
void add_launch_options(CLI::App& command, LaunchArgs& args, const LaunchHelp& help);

// -n, --nodes, -C, -m, --sizes of the jobs of tune and tree-timing.
struct JobShapeArgs {
    int ranks = 0;
    int nodes = 0;
    std::vector<std::string> collectives;
    std::string size_range;
    std::vector<std::string> sizes;

    // Without -m and --sizes, 1K:1M.  Throws UsageError.
    void apply(const CLI::App& command, TuneOptions& jobs) const;
};
// collective_help: the -C help, which lists the choices.
void add_job_shape_options(CLI::App& command, JobShapeArgs& args, const std::string& ranks_help,
                           const std::vector<std::string>& collective_choices, const std::string& collective_help);

// The bench jobs' stopping rule.  Throws UsageError.
void apply_bench_stopping(const CLI::App& command, const StoppingArgs& stopping, TuneOptions& jobs);

}  // namespace hiertune
