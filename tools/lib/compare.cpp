#include "hiertune/compare.hpp"

#include <stdexcept>

namespace hiertune {

double busiest_link_bytes(const std::string& collective, std::uint64_t bytes, int nodes) {
    if (collective != "bcast" && collective != "reduce" && collective != "allreduce")
        throw std::invalid_argument("no link bound for collective '" + collective + "'");
    if (nodes < 2) return 0;
    const double message = static_cast<double>(bytes);
    if (collective == "allreduce") return 2.0 * (nodes - 1) / nodes * message;
    return message;
}

std::optional<double> link_bound_seconds(const std::string& collective, std::uint64_t bytes, int nodes,
                                         double rate) {
    const double through = busiest_link_bytes(collective, bytes, nodes);
    if (!(rate > 0) || nodes < 2) return std::nullopt;
    return through / rate;
}

void compare_configurations(std::vector<PointResult>& group, std::optional<double> link_rate, int nodes) {
    if (group.empty()) return;
    const double first = group.front().summary.median;
    for (PointResult& point : group) {
        point.ratio_to_first.reset();
        if (group.size() > 1 && first > 0) point.ratio_to_first = point.summary.median / first;
        point.link_bound.reset();
        if (link_rate) point.link_bound = link_bound_seconds(point.key.collective, point.key.msg_bytes, nodes, *link_rate);
    }
}

}  // namespace hiertune
