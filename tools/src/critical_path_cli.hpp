// `hiertune critical-path`: hier's default plan against MPICH 5.0.1's algorithms, in
// sequential inter-node messages and intra-node steps on the critical path (no MPI).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"
#include "hiertune/models/critical_path.hpp"

namespace hiertune {

class CriticalPathCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    // Checks the options together (ranks per shape, sizes).  Throws UsageError.
    void prepare() override;
    int run() override;

    const CriticalPathQuery& query() const { return query_; }

private:
    std::vector<int> nodes_{2, 4, 8, 16, 32, 64};
    std::vector<int> ppn_{1, 2, 4, 8};
    std::string bytes_ = "8,1024";
    std::string placement_ = "both";
    std::vector<std::string> collectives_;
    std::int64_t latency_bytes_ = critical_path_default_latency_bytes();
    CriticalPathQuery query_;
};

}  // namespace hiertune
