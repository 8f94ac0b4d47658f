#include "critical_path_cli.hpp"

#include <iostream>

#include "command_options.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* CriticalPathCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "critical-path",
        "hier's default plan (its by_size choices) against MPICH 5.0.1's algorithms per collective, shape and "
        "message size: sequential inter-node messages and intra-node steps on the critical path, and whether "
        "hier sends no more inter-node messages than the best MPICH algorithm (doc/critical-path.md)");
    const std::string ranks = std::to_string(critical_path_max_ranks());
    command->add_option("--nodes", nodes_, "Node counts, e.g. 2,4,8")
        ->delimiter(',')
        ->check(CLI::Range(1, critical_path_max_ranks()))
        ->capture_default_str();
    command->add_option("--ppn", ppn_, "Ranks per node, e.g. 1,4 (nodes x ppn at most " + ranks + ")")
        ->delimiter(',')
        ->check(CLI::Range(1, critical_path_max_ranks()))
        ->capture_default_str();
    command->add_option("--bytes", bytes_,
                        "Message sizes, e.g. 8,1K (allgather, gather, scatter: per rank; alltoall: per pair)")
        ->capture_default_str();
    command->add_option("--placement", placement_,
                        "Ranks on nodes: block (rank r on node r / ppn), cyclic (node r % nodes) or both")
        ->check(CLI::IsMember({"block", "cyclic", "both"}))
        ->capture_default_str();
    command->add_option("-C,--collective", collectives_, "Collectives (comma-separated; default: all eight)")
        ->delimiter(',')
        ->check(CLI::IsMember(critical_path_collectives()));
    command->add_option("--latency-bytes", latency_bytes_,
                        "The inter-node links' alpha / beta in bytes, as MPIR_CVAR_HIER_LATENCY_BYTES")
        ->check(positive_number())
        ->capture_default_str();
    return command;
}

void CriticalPathCli::prepare() {
    query_ = CriticalPathQuery{};
    query_.collectives = collectives_;
    query_.nodes = nodes_;
    query_.ppn = ppn_;
    if (placement_ == "both")
        query_.placements = {"block", "cyclic"};
    else
        query_.placements = {placement_};
    try {
        query_.bytes = parse_size_list(bytes_);
    } catch (const UsageError& error) {
        throw UsageError("--bytes: " + std::string(error.what()));
    }
    for (std::uint64_t bytes : query_.bytes)
        if (bytes == 0) throw UsageError("--bytes: 0: MPICH sends nothing for an empty message");
    query_.latency_bytes = latency_bytes_;
    for (int nodes : nodes_)
        for (int ppn : ppn_)
            if (static_cast<long long>(nodes) * ppn > critical_path_max_ranks())
                throw UsageError("--nodes " + std::to_string(nodes) + " x --ppn " + std::to_string(ppn) +
                                 ": more than " + std::to_string(critical_path_max_ranks()) + " ranks");
}

int CriticalPathCli::run() {
    std::cout << format_critical_path_table(critical_path_table(query_));
    return 0;
}

}  // namespace hiertune
