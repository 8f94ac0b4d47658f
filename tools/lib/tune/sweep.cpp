#include "hiertune/tune/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "hiertune/common/text.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/common/usage_error.hpp"
extern "C" {
#include "hier_segment.h"
}

namespace hiertune {

namespace {

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(text.find(separator, start), text.size());
        parts.push_back(text.substr(start, end - start));
        if (end == text.size()) return parts;
        start = end + 1;
    }
}

bool is_selector_cvar(const std::string& name, const std::vector<std::string>& operations) {
    for (const std::string& operation : operations)
        if (name == algorithm_cvar(operation) || name == device_collective_cvar(operation)) return true;
    return false;
}

// A parameter resolved against the catalogue: full name, canonical values.
struct ResolvedParam {
    std::string name;
    std::vector<std::string> values;
};

ResolvedParam resolve_param(const ParamSpec& spec, const CvarCatalog& catalog,
                            const std::vector<std::string>& operations) {
    const CvarInfo& info = catalog.lookup(spec.name);
    if (is_selector_cvar(info.name, operations))
        throw UsageError(info.name + " selects the algorithm: use -a/--algorithm instead of a parameter");
    ResolvedParam param{info.name, {}};
    for (const std::string& text : spec.values)
        for (std::string value : expand_cvar_values(info, text))
            if (std::find(param.values.begin(), param.values.end(), value) == param.values.end())
                param.values.push_back(std::move(value));
    return param;
}

// Cartesian product; the first parameter varies slowest.
std::vector<Params> parameter_sets(const std::vector<ResolvedParam>& params) {
    std::vector<Params> sets{Params{}};
    for (const ResolvedParam& param : params) {
        std::vector<Params> next;
        for (const Params& set : sets)
            for (const std::string& value : param.values) {
                Params extended = set;
                extended[param.name] = value;
                next.push_back(std::move(extended));
            }
        sets = std::move(next);
    }
    return sets;
}

bool means_default(const std::string& typed) {
    std::string lower = typed;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower == kDefaultAlgorithm || lower == "auto";
}

const CvarInfo& algorithm_info(const std::string& collective, const CvarCatalog& catalog);

// Items MPICH 5.0.1 lists in its algorithm variables but aborts on when forced: its
// algorithm switch (mpir_coll.c) has no case for them and ends in MPIR_Assert(0).
bool aborts_when_forced(const std::string& item) { return item == "sched_auto"; }

// Items that are no host algorithm of their own, left out of "stock": ccl hands GPU
// buffers to NCCL/RCCL and otherwise runs MPICH's own selection (allreduce_intra_ccl.c).
bool is_selection_alias(const std::string& item) { return item == "ccl"; }

// Canonical algorithm names a spec stands for on one collective.
std::vector<std::string> expand_algorithm(const std::string& typed, const std::string& collective,
                                          const CvarCatalog& catalog) {
    if (means_default(typed)) return {kDefaultAlgorithm};  // needs no MPI_T variable
    const CvarInfo& selector = algorithm_info(collective, catalog);
    std::string lower = typed;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == kAllAlgorithms || lower == kStockAlgorithms) {
        const bool stock_only = lower == kStockAlgorithms;
        std::vector<std::string> names{kDefaultAlgorithm};
        for (const EnumItem& item : selector.items)
            if (item.name != "auto" && !aborts_when_forced(item.name) &&
                !(stock_only && (grammar::find(collective, item.name) || is_selection_alias(item.name))))
                names.push_back(item.name);
        return names;
    }
    for (const EnumItem& item : selector.items)
        if (upper(item.name) == upper(typed)) {
            if (aborts_when_forced(item.name))
                throw UsageError(selector.name + "=" + item.name +
                                 ": MPICH aborts when it is forced (no case for it in its algorithm "
                                 "switch); use default for MPICH's own selection");
            return {item.name};
        }
    throw UsageError("unknown " + collective + " algorithm '" + typed + "': " + selector.name +
                     " has " + enum_item_list(selector) + " (or use default, all)");
}

const CvarInfo& algorithm_info(const std::string& collective, const CvarCatalog& catalog) {
    const CvarInfo* info = catalog.find(algorithm_cvar(collective));
    if (!info)
        throw UsageError("this MPI library has no MPI_T variable " + algorithm_cvar(collective) +
                         ": cannot select " + collective + " algorithms");
    require_writable(*info);
    if (info->type != CvarType::enumeration)
        throw UsageError(info->name + " has no enum items (none through MPI_T, and hiertune was built"
                         " without the MPICH build tree's mpir_cvars.h): cannot select " + collective +
                         " algorithms by name");
    return *info;
}

}  // namespace

ParamSpec parse_param_spec(std::string_view text) {
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw UsageError("parameter '" + std::string(text) + "': expected NAME=VALUE[/VALUE...]");
    ParamSpec spec{std::string(text.substr(0, eq)), {}};
    for (std::string_view value : split(text.substr(eq + 1), '/')) {
        if (value.empty())
            throw UsageError("parameter '" + std::string(text) + "': empty value");
        spec.values.emplace_back(value);
    }
    return spec;
}

AlgorithmSpec parse_algorithm_spec(std::string_view text) {
    const std::size_t colon = text.find(':');
    AlgorithmSpec spec{std::string(text.substr(0, colon)), {}};
    if (spec.algorithm.empty())
        throw UsageError("algorithm '" + std::string(text) + "': expected ALGO[:NAME=VALUE[/VALUE...],...]");
    if (colon != std::string_view::npos)
        for (std::string_view param : split(text.substr(colon + 1), ','))
            spec.params.push_back(parse_param_spec(param));
    return spec;
}

bool is_default_algorithm(const std::string& algorithm) {
    return algorithm == kDefaultAlgorithm || algorithm == "auto";
}

const std::vector<std::string>& supported_collectives() {
    // the plugin's collectives and their non-blocking forms (MPICH's names, so that
    // algorithm_cvar() finds MPIR_CVAR_<COLL>_INTRA_ALGORITHM)
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all = grammar::collectives();
        const std::vector<std::string>& nonblocking = grammar::nonblocking_collectives();
        all.insert(all.end(), nonblocking.begin(), nonblocking.end());
        return all;
    }();
    return names;
}

std::string collective_list() { return name_list(supported_collectives()); }

std::string name_list(const std::vector<std::string>& names) { return spoken(names, "or"); }

std::string algorithm_cvar(const std::string& collective) {
    return "MPIR_CVAR_" + upper(collective) + "_INTRA_ALGORITHM";
}

std::string device_collective_cvar(const std::string& collective) {
    return "MPIR_CVAR_" + upper(collective) + "_DEVICE_COLLECTIVE";
}

bool operator==(const Configuration& a, const Configuration& b) {
    return a.collective == b.collective && a.algorithm == b.algorithm && a.params == b.params;
}
bool operator!=(const Configuration& a, const Configuration& b) { return !(a == b); }

Configuration configuration_of(const PointKey& key) {
    return Configuration{key.collective, key.algorithm, key.params};
}

std::vector<Configuration> plan_configurations(const std::vector<std::string>& collectives,
                                               const std::vector<AlgorithmSpec>& algorithms,
                                               const std::vector<ParamSpec>& common_params,
                                               const CvarCatalog& catalog, const std::vector<std::string>& known,
                                               const std::string& kind) {
    if (collectives.empty()) throw UsageError("no " + kind + " to measure");
    const std::vector<AlgorithmSpec> specs =
        algorithms.empty() ? std::vector<AlgorithmSpec>{{kDefaultAlgorithm, {}}} : algorithms;

    std::vector<ResolvedParam> common;
    for (const ParamSpec& spec : common_params) common.push_back(resolve_param(spec, catalog, known));

    std::vector<Configuration> configurations;
    for (const std::string& collective : collectives) {
        if (std::find(known.begin(), known.end(), collective) == known.end())
            throw UsageError("unknown " + kind + " '" + collective + "' (" + name_list(known) + ")");
        for (const AlgorithmSpec& spec : specs) {
            std::vector<ResolvedParam> params = common;
            for (const ParamSpec& param_spec : spec.params) params.push_back(resolve_param(param_spec, catalog, known));
            for (std::size_t i = 0; i < params.size(); ++i)
                for (std::size_t j = i + 1; j < params.size(); ++j)
                    if (params[i].name == params[j].name)
                        throw UsageError("parameter " + params[i].name + " given twice for algorithm '" +
                                         spec.algorithm + "'");
            const std::vector<Params> sets = parameter_sets(params);

            for (const std::string& algorithm : expand_algorithm(spec.algorithm, collective, catalog))
                for (const Params& set : sets) {
                    Configuration configuration{collective, algorithm, set};
                    if (std::find(configurations.begin(), configurations.end(), configuration) ==
                        configurations.end())
                        configurations.push_back(std::move(configuration));
                }
        }
    }
    return configurations;
}

std::vector<PointKey> plan_points(const std::vector<Configuration>& configurations,
                                  const std::vector<std::uint64_t>& sizes) {
    std::vector<PointKey> points;
    std::set<PointKey> seen;
    for (const Configuration& configuration : configurations)
        for (std::uint64_t size : sizes) {
            if (grammar::is_kind(configuration.collective, grammar::Collective::barrier) && size != 0)
                throw UsageError(configuration.collective + " takes no message size: use --sizes 0 (got " + std::to_string(size) +
                                 "; time the sized collectives in another run)");
            PointKey key{configuration.collective, size, configuration.algorithm, configuration.params};
            if (seen.insert(key).second) points.push_back(std::move(key));
        }
    return points;
}

namespace {

// The bytes the collective's hier segment size cuts at msg_bytes (grammar::segmented_bytes)
std::optional<std::uint64_t> hier_segmented_bytes(const std::string& collective, std::uint64_t msg_bytes, int ppn) {
    const grammar::Algorithm* hier = grammar::find(collective, "hier");
    return hier ? grammar::segmented_bytes(*hier, msg_bytes, ppn) : std::nullopt;
}

std::optional<std::uint64_t> segsize_of(const Params& params, const std::string& name) {
    const auto value = params.find(name);
    if (value == params.end() || value->second.empty() ||
        !std::all_of(value->second.begin(), value->second.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    try {
        return std::stoull(value->second);
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
}

bool one_segment(std::uint64_t cut_bytes, std::uint64_t segsize) {
    const auto bytes = static_cast<std::int64_t>(cut_bytes);
    return MPII_Hier_seg_size(bytes, static_cast<std::int64_t>(std::min<std::uint64_t>(segsize, INT64_MAX)), 1,
                              nullptr) == bytes;
}

// The hier segment size's CVAR of a point whose segment size cuts something; nullopt for any other
std::optional<std::string> hier_segsize_cvar(const PointKey& key) {
    const grammar::Algorithm* hier = grammar::find(key.collective, key.algorithm);
    if (!hier || hier->item != "hier" || hier->segments == grammar::SegmentCut::none) return std::nullopt;
    const grammar::Param* segsize = hier->param("segsize");
    if (!segsize) return std::nullopt;
    return hier->cvar(*segsize);
}

}  // namespace

bool same_run(const std::string& collective, std::uint64_t msg_bytes, int ppn, const Params& a, const Params& b,
              const std::string& segsize_name) {
    const std::optional<std::uint64_t> cut = hier_segmented_bytes(collective, msg_bytes, ppn);
    if (!cut) return false;
    const std::optional<std::uint64_t> first = segsize_of(a, segsize_name), second = segsize_of(b, segsize_name);
    if (!first || !second || !one_segment(*cut, *first) || !one_segment(*cut, *second)) return false;
    Params rest_a = a, rest_b = b;
    rest_a.erase(segsize_name);
    rest_b.erase(segsize_name);
    return rest_a == rest_b;
}

bool same_run(const PointKey& a, const PointKey& b, int ppn) {
    const std::optional<std::string> cvar = hier_segsize_cvar(a);
    if (a.collective != b.collective || a.msg_bytes != b.msg_bytes || a.algorithm != b.algorithm || !cvar)
        return false;
    return same_run(a.collective, a.msg_bytes, ppn, a.params, b.params, *cvar);
}

std::optional<std::uint64_t> same_run_representative(const std::string& collective, std::uint64_t msg_bytes, int ppn,
                                                     std::uint64_t own, const std::vector<std::uint64_t>& segsizes) {
    const std::optional<std::uint64_t> cut = hier_segmented_bytes(collective, msg_bytes, ppn);
    if (!cut || !one_segment(*cut, own)) return std::nullopt;
    std::optional<std::uint64_t> smallest;
    for (std::uint64_t segsize : segsizes)
        if (segsize < smallest.value_or(own) && one_segment(*cut, segsize)) smallest = segsize;
    return smallest;
}

std::vector<PointKey> distinct_runs(const std::vector<PointKey>& points, int ppn) {
    // a point's class: every field but its segment size; each class's segment sizes
    std::vector<std::optional<std::uint64_t>> own(points.size());
    std::vector<PointKey> classes(points.size());
    std::map<PointKey, std::vector<std::uint64_t>> segsizes;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::optional<std::string> cvar = hier_segsize_cvar(points[i]);
        if (!cvar || !(own[i] = segsize_of(points[i].params, *cvar))) continue;
        classes[i] = points[i];
        classes[i].params.erase(*cvar);
        segsizes[classes[i]].push_back(*own[i]);
    }
    std::vector<PointKey> kept;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (!own[i] || !same_run_representative(points[i].collective, points[i].msg_bytes, ppn, *own[i],
                                                segsizes.at(classes[i])))
            kept.push_back(points[i]);
    return kept;
}

std::vector<std::vector<std::size_t>> point_groups(const std::vector<PointKey>& points) {
    std::vector<std::string> collectives;  // in order of first appearance
    std::map<std::pair<std::string, std::uint64_t>, std::vector<std::size_t>> by_point;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const PointKey& key = points[i];
        if (std::find(collectives.begin(), collectives.end(), key.collective) == collectives.end())
            collectives.push_back(key.collective);
        by_point[{key.collective, key.msg_bytes}].push_back(i);
    }
    std::vector<std::vector<std::size_t>> groups;
    for (const std::string& collective : collectives)
        for (auto it = by_point.lower_bound({collective, 0}); it != by_point.end() && it->first.first == collective;
             ++it)
            groups.push_back(it->second);
    return groups;
}

std::set<std::string> touched_cvars(const std::vector<Configuration>& configurations,
                                    const CvarCatalog& catalog) {
    std::set<std::string> names;
    for (const Configuration& configuration : configurations) {
        // A collective timed with MPICH's default selection only is left alone.
        if (configuration.algorithm != kDefaultAlgorithm) {
            names.insert(algorithm_cvar(configuration.collective));
            if (catalog.find(device_collective_cvar(configuration.collective)))
                names.insert(device_collective_cvar(configuration.collective));
        }
        for (const auto& [name, value] : configuration.params) names.insert(name);
    }
    return names;
}

std::map<std::string, CvarValue> cvar_assignment(const Configuration& configuration,
                                                 const std::map<std::string, CvarValue>& initial,
                                                 const CvarCatalog& catalog) {
    std::map<std::string, CvarValue> assignment = initial;
    const auto set = [&](const std::string& name, const std::string& text) {
        if (!initial.count(name))
            throw std::logic_error("cvar_assignment: no initial value of " + name);
        assignment[name] = parse_cvar_value(catalog.lookup(name), text);
    };

    const std::string selector = algorithm_cvar(configuration.collective);
    const std::string device = device_collective_cvar(configuration.collective);
    if (configuration.algorithm != kDefaultAlgorithm) {
        set(selector, configuration.algorithm);
        if (catalog.find(device)) set(device, "0");
    } else if (initial.count(selector)) {
        set(selector, "auto");  // undo another configuration's choice; device switch as found
    }
    for (const auto& [name, value] : configuration.params) set(name, value);
    return assignment;
}

}  // namespace hiertune
