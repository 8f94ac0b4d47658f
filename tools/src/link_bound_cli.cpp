#include "link_bound_cli.hpp"

#include <cstdio>
#include <stdexcept>

#include "command_options.hpp"
#include "hiertune/report/compare.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

CLI::App* LinkBoundCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "link-bound",
        "The link bound of collectives (the time the busiest link needs for the bytes every algorithm must send "
        "through it) on NODES nodes of PPN ranks, node links of RATE, optionally under LEAVES leaf switches with "
        "uplinks of UPLINK-RATE: CSV collective,size,link_bound_us");
    command->add_option("-C,--collectives", collectives_,
                        "Collectives (comma-separated): " + collective_list() + " (barrier: no bound)")
        ->required()
        ->delimiter(',');
    command->add_option("--sizes", sizes_,
                        "Sizes, e.g. 8,1K,1M (allgather, allgatherv, gather, scatter, reduce_scatter, "
                        "reduce_scatter_block: per rank; gatherv, scatterv: per rank, the mean of bench's uneven "
                        "blocks; alltoall, alltoallv: per pair, the block each rank sends each rank; as bench "
                        "counts them)")
        ->required();
    command->add_option("--nodes", nodes_, "Nodes")->required()->check(positive_number());
    command->add_option("--ppn", ppn_, "Ranks per node")->capture_default_str()->check(positive_number());
    command->add_option("--rate", rate_, "Node link rate, bytes/s")->required()->check(positive_number());
    command->add_option("--leaves", leaves_, "Leaf switches the nodes are spread over evenly")
        ->capture_default_str()
        ->check(positive_number());
    command->add_option("--uplink-rate", uplink_rate_, "Uplink rate of a leaf switch, bytes/s (with --leaves)")
        ->check(positive_number());
    return command;
}

int LinkBoundCli::run() {
    if (leaves_ > 1 && !(uplink_rate_ > 0)) throw UsageError("--leaves " + std::to_string(leaves_) + " needs --uplink-rate");
    if (nodes_ % leaves_ != 0)
        throw UsageError("--nodes " + std::to_string(nodes_) + " do not split evenly under --leaves " +
                         std::to_string(leaves_));
    const std::vector<std::uint64_t> sizes = parse_size_list(sizes_);
    std::printf("collective,size,link_bound_us\n");
    for (const std::string& collective : collectives_) {
        for (std::uint64_t size : sizes) {
            std::optional<double> bound;
            try {
                bound = link_bound_seconds(collective, size, nodes_, rate_, ppn_, leaves_, uplink_rate_);
            } catch (const std::invalid_argument& error) {
                throw UsageError(error.what());
            }
            if (bound)
                std::printf("%s,%llu,%.3f\n", collective.c_str(), static_cast<unsigned long long>(size), *bound * 1e6);
            else
                std::printf("%s,%llu,\n", collective.c_str(), static_cast<unsigned long long>(size));
        }
    }
    return 0;
}

}  // namespace hiertune
