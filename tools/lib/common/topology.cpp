#include "hiertune/common/topology.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace hiertune {

Layout describe_layout(const std::vector<int>& node_of_rank) {
    if (node_of_rank.empty()) throw std::invalid_argument("describe_layout: no ranks");
    // Renumber nodes by first appearance: 0, 1, 2, ...
    std::map<int, int> index_of;
    std::vector<int> node;
    std::vector<int> count;
    for (int id : node_of_rank) {
        const auto [it, fresh] = index_of.emplace(id, static_cast<int>(index_of.size()));
        if (fresh) count.push_back(0);
        node.push_back(it->second);
        ++count[static_cast<std::size_t>(it->second)];
    }

    Layout layout;
    layout.nodes = static_cast<int>(count.size());
    layout.ppn = *std::max_element(count.begin(), count.end());
    const bool block = std::is_sorted(node.begin(), node.end());
    bool round_robin = true;
    for (std::size_t r = 0; r < node.size(); ++r)
        round_robin = round_robin && node[r] == static_cast<int>(r % count.size());
    layout.placement = block ? "block" : round_robin ? "round-robin" : "irregular";
    return layout;
}

std::string to_string(const HostLoad& load) {
    return load.host + ": " + std::to_string(load.ranks) + " ranks on " + std::to_string(load.cores) + " cores";
}

std::vector<HostLoad> oversubscribed_hosts(const std::vector<std::string>& host_of_rank,
                                           const std::vector<std::string>& kernel_of_rank,
                                           const std::vector<int>& cores_of_rank) {
    if (host_of_rank.size() != cores_of_rank.size() || kernel_of_rank.size() != cores_of_rank.size())
        throw std::invalid_argument("oversubscribed_hosts: one host, kernel and core count per rank");
    std::map<std::string, HostLoad> hosts;  // by kernel
    std::map<std::string, std::set<std::string>> named;
    for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
        const std::string key = kernel_of_rank[r].empty() ? "host " + host_of_rank[r] : kernel_of_rank[r];
        HostLoad& load = hosts[key];
        if (named[key].insert(host_of_rank[r]).second)
            load.host += (load.host.empty() ? "" : ", ") + host_of_rank[r];
        ++load.ranks;
        load.cores = load.ranks == 1 ? cores_of_rank[r] : std::min(load.cores, cores_of_rank[r]);
    }
    std::vector<HostLoad> result;
    for (const auto& [key, load] : hosts)
        if (load.ranks > load.cores) result.push_back(load);
    return result;
}

std::string condense_library_version(std::string_view text) {
    std::string result;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string line;
        for (char c : text.substr(start, end - start)) {
            const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
            if (space && (line.empty() || line.back() == ' ')) continue;
            line += space ? ' ' : c;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        const bool blank_field = line.empty() || line.back() == ':';
        if (!blank_field) result += (result.empty() ? "" : "; ") + line;
        start = end + 1;
    }
    return result;
}

}  // namespace hiertune
