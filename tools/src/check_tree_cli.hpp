// `hiertune check-tree`: the problems MPI_Init would report of Csel trees, one line each.
#pragma once

#include <string>
#include <vector>

#include "command.hpp"

namespace hiertune {

class CheckTreeCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::vector<std::string> paths_;
    std::string level_ = "auto";
};

}  // namespace hiertune
