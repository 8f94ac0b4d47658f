#include "hiertune/tune/task_bench.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

// Whether value is valid for parameter name of some collective's hier algorithm (the
// configurations are checked per collective when they run: configs_for).
bool valid_hier_param(const std::string& name, const std::string& value) {
    for (const std::string& collective : grammar::collectives())
        if (const grammar::Algorithm* hier = grammar::find(collective, "hier"))
            if (grammar::valid(*hier, name, value)) return true;
    return false;
}

bool is_hier_param(const std::string& name) {
    const grammar::Algorithm* hier = grammar::find(grammar::collectives().front(), "hier");
    return name != "segsize" && hier && hier->param(name);
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return parts;
        start = end + 1;
    }
}

}  // namespace

std::vector<Params> parse_task_configs(const std::string& spec) {
    std::vector<Params> configs{Params{}};
    if (spec.empty()) return configs;
    std::set<std::string> seen;
    for (const std::string& item : split(spec, ',')) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("configuration item '" + item + "' is not NAME=V[/V...]");
        const std::string name = item.substr(0, eq);
        if (!seen.insert(name).second) throw UsageError("configuration parameter '" + name + "' given twice");
        const std::vector<std::string> values = split(item.substr(eq + 1), '/');
        for (const std::string& value : values) {
            if (!is_hier_param(name))
                throw UsageError("unknown configuration parameter '" + name +
                                 "' (inter_algo, inter_k, inter_chunk, intra_algo; the segment size is --segsize)");
            const bool ok = valid_hier_param(name, value);
            if (!ok) throw UsageError("invalid value '" + value + "' for " + name);
        }
        std::vector<Params> expanded;
        for (const Params& config : configs)
            for (const std::string& value : values) {
                Params next = config;
                next[name] = value;
                expanded.push_back(std::move(next));
            }
        configs = std::move(expanded);
    }
    return configs;
}

namespace {

// The part of a search-space configuration that is allgather's: its hier
// algorithm shares only intra_algo (and inter_algo=auto) with bcast's and
// allreduce's; their inter-node submodules and inter_k/inter_chunk mean nothing
// to it, so it runs its ring there, named so that the tree does not depend on
// MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM.
Params allgather_share(const Params& config) {
    const grammar::Algorithm* hier = grammar::find(to_string(grammar::Collective::allgather), "hier");
    Params shared{{"inter_algo", han::kRingInterAlgo}};
    for (const auto& [name, value] : config)
        if (hier && hier->param(name) && grammar::valid(*hier, name, value)) shared[name] = value;
    return shared;
}

}  // namespace

std::vector<Params> configs_for(const std::string& collective, const std::vector<Params>& configs,
                                std::vector<std::string>* notes) {
    const han::Collective coll = han::parse_collective(collective);
    std::vector<Params> result;
    for (const Params& given : configs) {
        const Params config = coll == han::Collective::allgather ? allgather_share(given) : given;
        if (han::applies(coll, config)) {
            if (std::find(result.begin(), result.end(), config) == result.end()) result.push_back(config);
            continue;
        }
        if (!notes) continue;
        std::string text;
        for (const auto& [name, value] : config) text += (text.empty() ? "" : ",") + name + "=" + value;
        const std::string note = collective + ": " + text + " skipped (" + han::why_not(coll, config) + ")";
        if (std::find(notes->begin(), notes->end(), note) == notes->end()) notes->push_back(note);
    }
    return result;
}

std::vector<std::uint64_t> task_runs(han::Decomposition form, std::uint64_t steady_segments) {
    if (steady_segments < 4) throw std::invalid_argument("the steady run needs at least 4 segments");
    switch (form) {
        case han::Decomposition::bcast:
        case han::Decomposition::reduce: return {steady_segments};
        case han::Decomposition::allreduce: return {steady_segments, 2, 1};  // ibir only at u = 2
        case han::Decomposition::allreduce_ia: return {steady_segments, 1};   // u = 2: the K run's tasks
        case han::Decomposition::allgather_ring: return {steady_segments};  // K ring steps at least
    }
    throw std::invalid_argument("unknown decomposition");
}

std::uint64_t steady_run_segments(std::uint64_t steady_segments, std::uint64_t segsize, std::uint64_t max_message) {
    if (steady_segments < 4) throw std::invalid_argument("the steady run needs at least 4 segments");
    if (segsize == 0) throw std::invalid_argument("segment size 0");
    if (max_message == 0) return steady_segments;
    const std::uint64_t needed = max_message / segsize + (max_message % segsize != 0);
    return std::clamp<std::uint64_t>(needed, 4, steady_segments);
}

std::size_t run_warmup(std::size_t warmup, std::size_t run_index) {
    return run_index == 0 ? warmup : std::min<std::size_t>(warmup, 1);
}

std::map<std::string, double> tasks_of_run(han::Decomposition form, std::uint64_t segments,
                                           const std::vector<double>& step_times) {
    const std::uint64_t steps = han::step_count(form, segments);
    if (step_times.size() != steps)
        throw std::invalid_argument("expected " + std::to_string(steps) + " step times, got " +
                                    std::to_string(step_times.size()));
    std::map<std::string, double> tasks;
    std::map<std::string, std::vector<double>> steady;
    const std::string steady_task = han::steady_task(form);
    for (std::uint64_t s = 0; s < steps; ++s) {
        const std::string task = han::step_task(form, s, segments);
        // the steady steps repeat; the others occur once per run
        if (task == steady_task)
            steady[task].push_back(step_times[s]);
        else
            tasks[task] = step_times[s];
    }
    for (const auto& [task, times] : steady) {
        const std::size_t first = times.size() / 2;  // second half: the pipeline is full
        double sum = 0;
        for (std::size_t i = first; i < times.size(); ++i) sum += times[i];
        tasks[task] = sum / static_cast<double>(times.size() - first);
    }
    return tasks;
}

std::uint64_t allgather_run_pieces(std::uint64_t steady_segments, int nodes) {
    if (steady_segments < 4) throw std::invalid_argument("the steady run needs at least 4 segments");
    if (nodes < 2) throw std::invalid_argument("the allgather ring needs at least 2 nodes");
    const std::uint64_t links = static_cast<std::uint64_t>(nodes - 1);
    return (steady_segments + links - 1) / links;
}

std::map<std::string, double> tasks_of_allgather_run(std::uint64_t pieces_per_block, int nodes,
                                                     const std::vector<double>& step_times) {
    std::uint64_t steps = 0;
    const auto sequence = han::allgather_sequence(pieces_per_block, nodes);
    for (std::size_t i = 1; i < sequence.size(); ++i) steps += sequence[i].second;  // sg is timed on its own
    if (step_times.size() != steps)
        throw std::invalid_argument("expected " + std::to_string(steps) + " step times, got " +
                                    std::to_string(step_times.size()));
    const auto mean = [&](std::size_t first, std::size_t end) {
        double sum = 0;
        for (std::size_t i = first; i < end; ++i) sum += step_times[i];
        return sum / static_cast<double>(end - first);
    };
    const std::size_t ring = static_cast<std::size_t>(sequence[1].second);
    // the second half of the ring steps (the first ones still wait for the left
    // neighbour's first pieces); every tail step bcasts one piece alike
    return {{sequence[1].first.task, mean(ring / 2, ring)}, {sequence[2].first.task, mean(ring, step_times.size())}};
}

std::vector<TaskKey> task_keys(const std::string& collective, const Params& config, std::uint64_t segsize) {
    std::vector<TaskKey> keys;
    for (const std::string& task : han::task_names(han::decomposition(han::parse_collective(collective), config)))
        if (task != han::kGatherTask || collective != grammar::Collective::allgather) keys.push_back(TaskKey{collective, task, config, segsize});
    return keys;
}

TaskKey gather_task_key(const Params& config, std::uint64_t msg_bytes) {
    han::decomposition(han::Collective::allgather, config);  // throws where it does not apply
    return TaskKey{to_string(grammar::Collective::allgather), han::kGatherTask, config, msg_bytes};
}

std::vector<std::pair<std::string, std::string>> submodule_cvars(const std::string& collective, const Params& config) {
    const auto value_of = [&](const std::string& key, const std::string& fallback) {
        const auto found = config.find(key);
        return found == config.end() ? fallback : found->second;
    };
    const std::string inter = value_of("inter_algo", "auto");
    const std::string intra = value_of("intra_algo", "auto");
    if (grammar::is_seg_submodule(inter))
        throw UsageError("inter_algo=" + inter + " exists only inside the plugin: no public-API stand-in to time");
    if (!han::applies(han::parse_collective(collective), config))
        throw UsageError(collective + ": no such submodule (" + han::why_not(han::parse_collective(collective), config) +
                         ")");

    std::vector<std::pair<std::string, std::string>> cvars;
    if (collective == grammar::Collective::allgather) {
        // the ring is point-to-point (MPI_Isend/MPI_Irecv): no inter-node variable.
        // The plugin's gather is MPICH's auto or binomial; under shm, while the
        // node's blocks fit a cell, it is the device's reduce (MPII_Hier_intra_rooted),
        // which user-level MPI cannot run: timed as binomial, the tree it replaces.
        cvars.emplace_back("MPIR_CVAR_GATHER_DEVICE_COLLECTIVE", "0");
        cvars.emplace_back("MPIR_CVAR_GATHER_INTRA_ALGORITHM", intra == "auto" ? "auto" : "binomial");
        cvars.emplace_back("MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", intra == "shm" ? "1" : "0");
        cvars.emplace_back("MPIR_CVAR_BCAST_INTRA_ALGORITHM", intra == "shm" ? "auto" : intra);
        return cvars;
    }
    std::vector<std::string> colls;  // the halves of the pipeline: its MPI_Bcast, its MPI_Reduce
    if (han::has_stage(han::parse_collective(collective), "sb")) colls.push_back("BCAST");
    if (han::has_stage(han::parse_collective(collective), "sr")) colls.push_back("REDUCE");
    const bool one_step = inter == han::kOneStepInterAlgo;
    if (one_step) {  // ia for ib and ir: the tsp ring, which the plugin calls directly
        cvars.emplace_back("MPIR_CVAR_IALLREDUCE_DEVICE_COLLECTIVE", "0");
        cvars.emplace_back("MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", "tsp_ring");
    }
    for (const std::string& coll : colls) {
        if (!one_step) {
            const std::string inb = "MPIR_CVAR_I" + coll + "_";
            cvars.emplace_back(inb + "DEVICE_COLLECTIVE", "0");
            if (inter == "auto" || inter == "sched_binomial") {
                cvars.emplace_back(inb + "INTRA_ALGORITHM", inter);
            } else {
                cvars.emplace_back(inb + "INTRA_ALGORITHM", "tsp_tree");
                cvars.emplace_back(inb + "TREE_KVAL", inter == "tsp_ring" ? "1" : value_of("inter_k", "2"));
                cvars.emplace_back(inb + "TREE_PIPELINE_CHUNK_SIZE", value_of("inter_chunk", "0"));
            }
        }
        const std::string b = "MPIR_CVAR_" + coll + "_";
        if (intra == "shm") {
            cvars.emplace_back(b + "DEVICE_COLLECTIVE", "1");
            cvars.emplace_back(b + "INTRA_ALGORITHM", "auto");
        } else {
            cvars.emplace_back(b + "DEVICE_COLLECTIVE", "0");
            cvars.emplace_back(b + "INTRA_ALGORITHM", intra);
        }
    }
    return cvars;
}

std::vector<std::pair<std::string, std::string>> launch_cvars(const std::string& collective, const Params& config) {
    const auto found = config.find("inter_algo");
    const std::string inter = found == config.end() ? "auto" : found->second;
    std::vector<std::pair<std::string, std::string>> cvars;
    if (collective == grammar::Collective::allgather || inter.rfind("tsp_", 0) != 0 || inter == han::kOneStepInterAlgo) return cvars;
    const std::string type = inter == "tsp_knomial" ? "knomial_1" : "kary";
    if (han::has_stage(han::parse_collective(collective), "ib")) cvars.emplace_back("MPIR_CVAR_IBCAST_TREE_TYPE", type);
    if (han::has_stage(han::parse_collective(collective), "ir")) cvars.emplace_back("MPIR_CVAR_IREDUCE_TREE_TYPE", type);
    return cvars;
}

}  // namespace hiertune
