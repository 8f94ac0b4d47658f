// `hiertune install-tree TREE [--prefix P]`: the site's tree for every job.
#pragma once

#include <string>

#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/tree/site_tree.hpp"

namespace hiertune {

class InstallTreeCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::string tree_;
    std::string prefix_ = mpich_prefix();
    SiteRecord record_;
};

}  // namespace hiertune
