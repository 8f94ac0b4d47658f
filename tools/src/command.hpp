// A hiertune command: it binds its own options to its own fields and runs; main.cpp
// holds the table of commands.
#pragma once

#include <CLI/CLI.hpp>

namespace hiertune {

class Command {
public:
    virtual ~Command() = default;
    // Adds the subcommand and its options to app.
    virtual CLI::App* bind(CLI::App& app) = 0;
    // After a parse that chose this command: its exit status.
    virtual int run() = 0;
};

}  // namespace hiertune
