// The table of hiertune's commands, in the order of `hiertune --help`: main.cpp
// runs it, the command-line tests bind it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace hiertune {

// self: the hiertune the jobs of tune, tree-timing and learn run.
std::vector<std::unique_ptr<Command>> hiertune_commands(const std::string& self);

}  // namespace hiertune
