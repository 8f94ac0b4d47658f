// A hiertune command: a module (*_cli.cpp) binds its own options to its own fields
// and runs; main.cpp holds the table of commands, brings MPI up for those that need
// it, parses, and reports errors alike for all.
#pragma once

#include <CLI/CLI.hpp>

namespace hiertune {

class Command {
public:
    virtual ~Command() = default;
    // Adds the subcommand and its options to app; returns the subcommand.
    virtual CLI::App* bind(CLI::App& app) = 0;
    // Whether it runs on every rank under mpiexec: main.cpp then brings MPI up
    // before parsing, so that a bad command line is reported once (rank 0) and
    // every rank exits alike.
    virtual bool needs_mpi() const { return false; }
    // After a parse that chose this command: what its options say together, as
    // its runner's input.  Throws UsageError, which under MPI every rank meets
    // alike (only rank 0 reports it), unlike an error of run().
    virtual void prepare() {}
    // Then: runs it; returns its exit status.
    virtual int run() = 0;
};

}  // namespace hiertune
