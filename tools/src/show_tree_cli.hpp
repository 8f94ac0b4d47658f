// `hiertune show-tree`: what a Csel tree selects, as a table (no MPI); without a file
// the site's installed tree, with its record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"

namespace hiertune {

class ShowTreeCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::string tree_path_;
    std::vector<std::string> collectives_;
    std::vector<int> comm_sizes_;
    std::vector<int> ppns_;
    std::uint64_t type_size_ = 1;
    bool json_ = false;
};

}  // namespace hiertune
