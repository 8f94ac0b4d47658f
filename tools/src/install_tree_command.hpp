#pragma once

#include <memory>

#include "command.hpp"

namespace hiertune {

// `hiertune install-tree TREE [--prefix P]`: the site's tree for every job.
std::unique_ptr<Command> install_tree_command();

}  // namespace hiertune
