// Where a tuned tree's choices come from, kept beside the tree.
#include "hiertune/tree/tree_coverage.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/db/measure_db.hpp"  // tree_digest

namespace hiertune {

namespace {

using nlohmann::json;

json to_json(const CoveragePosition& position) {
    json ranges = json::array();
    for (const CoverageRange& r : position.ranges)
        ranges.push_back({{"collective", r.collective}, {"first_bytes", r.first_bytes},
                          {"last_bytes", r.last_bytes}, {"source", r.source}, {"choice", r.choice}});
    return {{"comm_size", position.comm_size}, {"ppn", position.ppn}, {"shape", position.shape},
            {"predicted", position.predicted}, {"ranges", ranges}};
}

CoveragePosition position_of(const json& j) {
    CoveragePosition position{j.at("comm_size").get<int>(), j.at("ppn").get<int>(),
                              j.at("shape").get<std::string>(), j.at("predicted").get<bool>(), {}};
    for (const json& r : j.at("ranges"))
        position.ranges.push_back(CoverageRange{r.at("collective").get<std::string>(),
                                                r.at("first_bytes").get<std::uint64_t>(),
                                                r.at("last_bytes").get<std::uint64_t>(),
                                                r.at("source").get<std::string>(), r.at("choice").get<std::string>()});
    return position;
}

// The bound of a "NAME<=N" key, if the key is one.
std::optional<int> bound_of(const std::string& key, const std::string& name) {
    const std::string prefix = name + "<=";
    if (key.rfind(prefix, 0) != 0) return std::nullopt;
    try {
        return std::stoi(key.substr(prefix.size()));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The tuned position a walk entered, if any.
const CoveragePosition* entered_position(const TreeCoverage& coverage, const std::vector<std::string>& path) {
    for (std::size_t i = 0; i + 2 < path.size(); ++i) {
        if (path[i].rfind("comm_hierarchy=", 0) != 0) continue;
        const std::optional<int> size = bound_of(path[i + 1], "comm_size");
        const std::optional<int> ppn = bound_of(path[i + 2], "comm_avg_ppn");
        if (!size || !ppn) continue;
        for (const CoveragePosition& position : coverage.positions)
            if (position.comm_size == *size && position.ppn == *ppn) return &position;
    }
    return nullptr;
}

}  // namespace

std::filesystem::path coverage_path(const std::filesystem::path& tree) { return tree.string() + kCoverageSuffix; }

void save_coverage(const TreeCoverage& coverage, const std::filesystem::path& path) {
    json positions = json::array();
    for (const CoveragePosition& position : coverage.positions) positions.push_back(to_json(position));
    const std::filesystem::path staged = path.string() + ".new";
    {
        std::ofstream out(staged);
        out << json{{"tree_digest", coverage.tree_digest}, {"positions", positions}}.dump(2) << '\n';
        if (!out) throw UsageError("cannot write " + staged.string());
    }
    std::error_code error;
    std::filesystem::rename(staged, path, error);
    if (error) throw UsageError("cannot move " + staged.string() + " to " + path.string() + ": " + error.message());
}

std::optional<TreeCoverage> load_coverage(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    try {
        const json j = json::parse(in);
        TreeCoverage coverage{j.at("tree_digest").get<std::string>(), {}};
        for (const json& position : j.at("positions")) coverage.positions.push_back(position_of(position));
        return coverage;
    } catch (const json::exception& e) {
        throw UsageError(path.string() + ": not a coverage file of hiertune tune: " + e.what());
    }
}

std::string row_source(const TreeCoverage& coverage, const csel::TableRow& row) {
    const CoveragePosition* position = entered_position(coverage, row.selection.path);
    for (const CoveragePosition& tuned : coverage.positions)  // all stock there: the tree has no branch
        if (!position && tuned.comm_size == row.comm_size && tuned.ppn == row.ppn) position = &tuned;
    if (!position) return kNotTunedSource;
    std::vector<const CoverageRange*> ranges;
    for (const CoverageRange& range : position->ranges)
        if (range.collective == row.collective) ranges.push_back(&range);
    if (ranges.empty()) return kNotTunedSource;
    std::vector<std::string> sources;
    const CoverageRange* below = nullptr;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const bool last = i + 1 == ranges.size();  // its choice holds above it
        if (ranges[i]->first_bytes <= row.max_bytes && (last || ranges[i]->last_bytes >= row.min_bytes)) {
            if (std::find(sources.begin(), sources.end(), ranges[i]->source) == sources.end())
                sources.push_back(ranges[i]->source);
        } else if (ranges[i]->last_bytes < row.min_bytes) {
            below = ranges[i];
        }
    }
    if (!sources.empty()) return join(sources, "+");
    return below ? below->source : kBelowTunedSource;
}

std::optional<TreeCoverage> coverage_of_tree(const std::filesystem::path& tree, std::ostream& warn,
                                             const std::string& left_out) {
    const std::filesystem::path path = coverage_path(tree);
    std::optional<TreeCoverage> coverage = load_coverage(path);
    if (!coverage) return std::nullopt;
    std::ifstream in(tree, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (coverage->tree_digest == tree_digest(content)) return coverage;
    warn << "hiertune: warning: " << path.string() << " describes another tree: " << left_out << '\n';
    return std::nullopt;
}

std::string to_string(PickSource source) {
    switch (source) {
        case PickSource::model: return "model";
        case PickSource::measured: return "measured";
        case PickSource::stock: return "stock";
        case PickSource::put_back: return "put back";
        case PickSource::predicted: return "predicted";
    }
    return "";
}

bool is_stock_source(const std::string& source) {
    return source == to_string(PickSource::stock) || source == to_string(PickSource::put_back) ||
           source == kNotTunedSource || source == kBelowTunedSource;
}

std::string source_at(const csel::Json& tree, const TreeCoverage& coverage, const std::string& collective,
                      int comm_size, int ppn, std::uint64_t msg_bytes) {
    csel::TableOptions options;
    options.collectives = {collective};
    options.comm_sizes = {comm_size};
    options.ppns = {ppn};
    const std::vector<csel::TableRow> rows = csel::selection_table(tree, options);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const bool last = i + 1 == rows.size();  // it holds for every larger message too
        if (rows[i].min_bytes <= msg_bytes && (last || msg_bytes <= rows[i].max_bytes)) {
            csel::TableRow at = rows[i];
            at.min_bytes = at.max_bytes = msg_bytes;
            return row_source(coverage, at);
        }
    }
    return kNotTunedSource;  // below the table's first size: none is below 0 B
}

}  // namespace hiertune
