// hiertune: measure MPICH collective algorithms and find the best per size.
//
//   hiertune bench [options]            (under mpiexec) time collectives
//   hiertune db list|best|points|check  query a measurement database
//   hiertune tasks [options]            (under mpiexec) HAN task benchmarks
//   hiertune calibrate [options]        (under mpiexec) latency and bandwidth per link
//   hiertune overlap [options]          (under mpiexec) overlap of non-blocking operations with computation
//   hiertune overlap-report FILE...     overlap runs side by side, heat maps
//   hiertune fit [options]              (under mpiexec) the analytic models' gamma, alpha, beta
//   hiertune generate                   write a Csel JSON tree from a database
//   hiertune analytic-report            the fitted analytic models vs an exhaustive sweep
//   hiertune tune [options]             (without mpiexec) calibrate, tasks, model, tree,
//                                       verify, tree timing, exhaustive sweep, report
//   hiertune verify --case ...          (under mpiexec; run by tune) check the
//                                       tree's choices through the plugin's pvars
//   hiertune tree-timing --tree FILE    (without mpiexec) a tree as loaded vs no
//                                       tree, alternating jobs
//   hiertune learn [options]            (without mpiexec) active learning (ACCLAiM):
//                                       bench jobs picked by a random forest's
//                                       variance, then the tree of its predictions
//   hiertune show-tree [FILE]           what a Csel tree selects, as a table (no
//                                       FILE: the site's installed tree and its record)
//   hiertune install-tree TREE          the site's tree for every job, with its record
//   hiertune compare-tuners             the tuners' trees against one exhaustive
//                                       sweep: slowdowns, points, tuning time
//   hiertune critical-path              hier's default plan against MPICH's algorithms:
//                                       messages on the critical path
//
// This file runs the table of commands (commands.cpp): each is a module
// (*_cli.cpp, command.hpp) that binds its options and runs the library (tools/lib) or a runner (bench.cpp,
// tune_command.cpp, ...); see tools/README.md for the options.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "command_options.hpp"
#include "commands.hpp"
#include "hiertune/common/usage_error.hpp"
#include "mpi_session.hpp"
#include "process.hpp"
#include "tune_command.hpp"

namespace {

using namespace hiertune;

// The one line and exit status of an error that ends a command without MPI: a job
// that failed (tune's, learn's) is a failure (1); anything else is bad input (2),
// e.g. a file, a database or a tree that does not read as one.
int report(const std::exception& e) {
    std::cout.flush();
    if (dynamic_cast<const TuneError*>(&e) || dynamic_cast<const ProcessError*>(&e)) return print_failure(e.what());
    return print_error(e.what());
}

// A command under mpiexec, on every rank: an error of prepare() is every rank's
// (the same options; rank 0 says it), an error while running may be one rank's,
// which cannot stop the others.
int run_on_every_rank(Command& command, MpiSession& mpi) {
    try {
        command.prepare();
    } catch (const std::exception& e) {
        return mpi.rank() == 0 ? print_error(e.what()) : kBadInputStatus;
    }
    try {
        return command.run();
    } catch (const std::exception& e) {  // e.g. no memory for the buffers, on some rank
        std::cerr << "hiertune: error on rank " << mpi.rank() << ": " << e.what() << '\n';
        mpi.abort(1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string self = own_path(argv[0]);  // the jobs of tune, tree-timing and learn run it
    const std::vector<std::unique_ptr<Command>> table = hiertune_commands(self);
    CLI::App app{"hiertune: measure MPICH collective algorithms and find the best per message size"};
    app.require_subcommand(1);
    std::vector<std::pair<Command*, CLI::App*>> commands;
    for (const std::unique_ptr<Command>& command : table) commands.emplace_back(command.get(), command->bind(app));

    // MPI comes up before parsing, so that a bad command line is reported once
    // (rank 0) and every rank exits alike.
    std::optional<MpiSession> mpi;
    for (const auto& [command, bound] : commands)
        if (command->needs_mpi() && argc > 1 && bound->get_name() == argv[1]) mpi.emplace(argc, argv);
    const bool speaker = !mpi || mpi->rank() == 0;

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return speaker ? app.exit(e) : 0;  // --help
        if (!speaker) return kBadInputStatus;
        if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')  // CLI11: "A subcommand is required"
            return print_error(std::string("unknown command '") + argv[1] + "' (hiertune --help lists them)");
        // CLI11 names the option; its "Run with --help" line would follow ours
        return print_error(std::string(e.what()) + " (see --help)");
    }
    for (const auto& [command, bound] : commands) {
        if (!bound->parsed()) continue;
        if (command->needs_mpi()) {
            if (!mpi) return print_error("'" + bound->get_name() + "' must be the first argument");
            return run_on_every_rank(*command, *mpi);
        }
        try {
            command->prepare();
            return command->run();
        } catch (const std::exception& e) {
            return report(e);
        } catch (...) {  // never std::terminate's abort and core dump
            return print_error("unexpected error of '" + bound->get_name() + "'");
        }
    }
    return kBadInputStatus;  // unreached: the parse requires a command
}
