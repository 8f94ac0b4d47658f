// `hiertune link-bound`: the link bound of collectives on a network described on the
// command line (lib/compare), for tables made outside bench (bench/peers.sh).
#pragma once

#include <string>
#include <vector>

#include "command.hpp"

namespace hiertune {

class LinkBoundCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::vector<std::string> collectives_;
    std::string sizes_;
    int nodes_ = 0;
    int ppn_ = 1;
    double rate_ = 0;
    int leaves_ = 1;
    double uplink_rate_ = 0;
};

}  // namespace hiertune
