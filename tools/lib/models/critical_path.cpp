#include "hiertune/models/critical_path.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "hier_by_size.h"
#include "hier_critical_path.h"

namespace hiertune {

std::vector<std::string> critical_path_collectives() {
    std::vector<std::string> names;
    for (int c = 0; c < MPII_HIER_CPATH_NCOLLS; c++)
        names.emplace_back(MPII_Hier_cpath_coll_name(static_cast<MPII_Hier_cpath_coll>(c)));
    return names;
}

int critical_path_max_ranks() { return MPII_HIER_CPATH_MAX_RANKS; }

std::int64_t critical_path_default_latency_bytes() { return MPII_HIER_LATENCY_BYTES_DEFAULT; }

CriticalPathRow critical_path_row(const std::string& collective, int nodes, int ppn, const std::string& placement,
                                  std::uint64_t bytes, std::int64_t latency_bytes) {
    const int coll = MPII_Hier_cpath_coll_parse(collective.c_str());
    if (coll < 0) throw std::invalid_argument("unknown collective '" + collective + "'");
    if (placement != "block" && placement != "cyclic")
        throw std::invalid_argument("unknown placement '" + placement + "' (block or cyclic)");
    const MPII_Hier_cpath_shape shape{nodes, ppn, placement == "block" ? MPII_HIER_CPATH_BLOCK : MPII_HIER_CPATH_CYCLIC};
    if (!MPII_Hier_cpath_shape_valid(&shape))
        throw std::invalid_argument(std::to_string(nodes) + " nodes x " + std::to_string(ppn) +
                                    " ranks per node: not 1 to " + std::to_string(critical_path_max_ranks()) +
                                    " ranks");
    MPII_Hier_cpath_row row;
    const std::int64_t alpha = latency_bytes > 0 ? latency_bytes : critical_path_default_latency_bytes();
    if (MPII_Hier_cpath_compare(static_cast<MPII_Hier_cpath_coll>(coll), &shape, static_cast<std::int64_t>(bytes),
                                alpha, &row) != 0)
        throw std::runtime_error("cannot count " + collective + " on " + std::to_string(nodes) + " x " +
                                 std::to_string(ppn) + " (no memory)");
    char plan[3 * MPII_HIER_CPATH_NAME_LEN + 8];
    MPII_Hier_cpath_plan_text(&row.hier, plan, sizeof(plan));
    CriticalPathRow out;
    out.collective = collective;
    out.nodes = nodes;
    out.ppn = ppn;
    out.placement = placement;
    out.bytes = bytes;
    out.hier_plan = plan;
    out.hier_inter = row.hier.count.inter;
    out.hier_intra = row.hier.count.intra;
    out.mpich_best = MPII_Hier_cpath_algo_name(row.best);
    out.mpich_inter = row.best_count.inter;
    out.mpich_intra = row.best_count.intra;
    return out;
}

std::vector<CriticalPathRow> critical_path_table(const CriticalPathQuery& query) {
    const std::vector<std::string> collectives =
        query.collectives.empty() ? critical_path_collectives() : query.collectives;
    std::vector<CriticalPathRow> rows;
    for (const std::string& collective : collectives)
        for (int nodes : query.nodes)
            for (int ppn : query.ppn)
                for (const std::string& placement : query.placements)
                    for (std::uint64_t bytes : query.bytes)
                        rows.push_back(critical_path_row(collective, nodes, ppn, placement, bytes, query.latency_bytes));
    return rows;
}

namespace {

std::vector<std::string> cells(const CriticalPathRow& row) {
    return {row.collective,
            std::to_string(row.nodes) + " x " + std::to_string(row.ppn),
            row.placement,
            std::to_string(row.bytes),
            row.hier_plan,
            std::to_string(row.hier_inter) + "/" + std::to_string(row.hier_intra),
            row.mpich_best,
            std::to_string(row.mpich_inter) + "/" + std::to_string(row.mpich_intra),
            row.hier_no_worse() ? "<=" : ">"};
}

}  // namespace

std::string format_critical_path_table(const std::vector<CriticalPathRow>& rows) {
    std::vector<std::vector<std::string>> lines{{"collective", "nodes x ppn", "placement", "bytes", "hier plan",
                                                 "hier inter/intra", "best MPICH", "inter/intra", "verdict"}};
    for (const CriticalPathRow& row : rows) lines.push_back(cells(row));
    std::vector<std::size_t> width(lines.front().size(), 0);
    for (const auto& line : lines)
        for (std::size_t i = 0; i < line.size(); i++) width[i] = std::max(width[i], line[i].size());
    std::ostringstream text;
    for (const auto& line : lines) {
        std::string out;
        for (std::size_t i = 0; i < line.size(); i++) {
            out += line[i];
            if (i + 1 < line.size()) out += std::string(width[i] - line[i].size() + 2, ' ');
        }
        text << out << '\n';
    }
    return text.str();
}

}  // namespace hiertune
