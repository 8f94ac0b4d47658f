// `hiertune learn` without MPI: options, the bench jobs of a batch, the
// medians read back, resume, and the tree from the learned predictions.
#include "hiertune/tune/learn_run.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

template <typename T>
void check_list(const std::vector<T>& values, const std::string& option, const std::string& what) {
    if (values.empty()) throw UsageError(option + ": no " + what);
    std::vector<T> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw UsageError(option + ": a " + what.substr(0, what.size() - 1) + " given twice");
}

}  // namespace

const std::vector<std::string>& learned_collectives() {
    static const std::vector<std::string> names{to_string(grammar::Collective::bcast), to_string(grammar::Collective::reduce),
                                                to_string(grammar::Collective::allreduce)};
    return names;
}


JobShape shape_of(const LearnPoint& point) { return JobShape{point.nodes, point.ppn}; }

std::string describe(const JobShape& shape) {
    return std::to_string(shape.nodes) + " node" + (shape.nodes == 1 ? "" : "s") + " x " + std::to_string(shape.ppn) +
           " ppn";
}

std::pair<int, int> tree_position(const JobShape& shape) { return {shape.ranks(), shape.ppn}; }

void check_learn_options(const LearnRunOptions& options) {
    check_list(options.collectives, "-C", "collectives");
    for (const std::string& collective : options.collectives)
        if (std::find(learned_collectives().begin(), learned_collectives().end(), collective) ==
            learned_collectives().end())
            throw UsageError("collective '" + collective + "': learn tunes " + spoken(learned_collectives(), "and"));
    check_list(options.nodes, "--nodes", "node counts");
    check_list(options.ppn, "--ppn", "ranks per node counts");
    for (const int n : options.nodes)
        if (n <= 0) throw UsageError("--nodes " + std::to_string(n) + ": node counts must be > 0");
    for (const int n : options.ppn)
        if (n <= 0) throw UsageError("--ppn " + std::to_string(n) + ": ranks per node must be > 0");
    for (const int n : options.nodes)
        for (const int p : options.ppn)
            if (n * p < 2)
                throw UsageError("--nodes " + std::to_string(n) + " x --ppn " + std::to_string(p) +
                                 ": a job needs at least 2 ranks");
    check_list(options.sizes, "-m", "sizes");
    for (const std::uint64_t s : options.sizes)
        if (!is_power_of_two(s) || s > kMaxMessageBytes)
            throw UsageError("-m: size " + std::to_string(s) +
                             " is not a power of two up to 1 GiB (the learner's candidates are powers of two; "
                             "it measures others near them itself)");
    if (options.batch == 0) throw UsageError("--batch must be at least 1");
    if (options.collect_only && options.train_only)
        throw UsageError("--collect-only and --train-only exclude each other");
    if (options.jobs.db_path.empty()) throw UsageError("--db: no database file");
    if (!options.collect_only && options.tree_path.empty()) throw UsageError("-o: no tree file");
    if (!options.collect_only && options.stock_path.empty())
        throw UsageError("--stock: no stock tree (MPICH's maint/tuning/coll/mpir/generic.json)");
    const bool launcher = !options.jobs.launcher.empty();
    if (launcher && (!options.jobs.mpiexec.empty() || !options.jobs.mpiexec_args.empty()))
        throw UsageError("--launcher replaces mpiexec and its arguments in every job: --mpiexec and --mpiexec-arg "
                         "do not go with it (put them into the launcher's words)");
    if (launcher && options.jobs.launcher.back() == "--" && !has_shape_placeholder(options.jobs.launcher))
        throw UsageError("--launcher ends in '--': learn appends the shape ('--nodes N --ppn P --') to the words; "
                         "leave the '--' out, or place {nodes}, {ppn}, {ranks} in the words");
    if (options.parallel_nodes > 0) {
        if (launcher)
            throw UsageError("--parallel needs the mpiexec launch: a --launcher cannot be told which nodes a job "
                             "gets (maint/emucluster run always takes the first N nodes and runs one job at a "
                             "time)");
        if (!options.jobs.mpiexec_args.empty())
            throw UsageError("--parallel does not go with --mpiexec-arg: concurrent mpiexec runs of one host "
                             "list start on the same hosts, not on disjoint nodes");
        const int largest = *std::max_element(options.nodes.begin(), options.nodes.end());
        if (options.parallel_nodes < static_cast<std::size_t>(largest))
            throw UsageError("--parallel " + std::to_string(options.parallel_nodes) +
                             ": the allocation must hold the largest job (--nodes " + std::to_string(largest) + ")");
        if (options.rack_nodes == 0) throw UsageError("--rack-nodes must be at least 1");
    }
    if (options.learn.initial_points == 0) throw UsageError("--initial-points must be at least 1");
    if (options.learn.forest.trees < 2) throw UsageError("--trees must be at least 2 (the jackknife needs two)");
    try {
        check_rule(options.learn.convergence);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--threshold/--time-budget: ") + e.what());
    }
}

std::optional<std::string> learn_cliques_refusal(const LearnRunOptions& options, const char* num_cliques) {
    if (options.jobs.allow_cliques) return std::nullopt;
    if (options.jobs.launcher.empty()) {
        const int largest = *std::max_element(options.nodes.begin(), options.nodes.end());
        if (largest > 1) return cliques_error("--nodes " + std::to_string(largest) + " without --launcher");
    }
    return cliques_refusal(num_cliques);
}


std::vector<LearnGroup> group_points(const std::vector<LearnPoint>& batch) {
    std::vector<LearnGroup> groups;
    for (const LearnPoint& point : batch) {
        if (point.configuration.collective != batch.front().configuration.collective)
            throw std::invalid_argument("learn: a batch of several collectives (" +
                                        batch.front().configuration.collective + ", " +
                                        point.configuration.collective + ")");
        const JobShape shape = shape_of(point);
        auto group = std::find_if(groups.begin(), groups.end(), [&](const LearnGroup& g) { return g.shape == shape; });
        if (group == groups.end()) {
            groups.push_back(LearnGroup{shape, {}, {}, {}});
            group = groups.end() - 1;
        }
        if (std::find(group->sizes.begin(), group->sizes.end(), point.msg_bytes) == group->sizes.end())
            group->sizes.push_back(point.msg_bytes);
        if (std::find(group->configurations.begin(), group->configurations.end(), point.configuration) ==
            group->configurations.end())
            group->configurations.push_back(point.configuration);
        group->points.push_back(point);
    }
    for (LearnGroup& group : groups) std::sort(group.sizes.begin(), group.sizes.end());
    return groups;
}

std::vector<int> group_node_needs(const std::vector<LearnGroup>& groups) {
    std::vector<int> needs;
    for (const LearnGroup& group : groups) needs.push_back(group.shape.nodes);
    return needs;
}

std::vector<PointKey> group_keys(const LearnGroup& group) {
    std::vector<PointKey> keys;
    for (const Configuration& c : group.configurations)
        for (const std::uint64_t bytes : group.sizes) keys.push_back(PointKey{c.collective, bytes, c.algorithm, c.params});
    return keys;
}

std::string algorithm_spec(const Configuration& configuration) {
    std::string spec = configuration.algorithm;
    char separator = ':';
    for (const auto& [name, value] : configuration.params) {
        spec += separator + name + "=" + value;
        separator = ',';
    }
    return spec;
}

TuneOptions shape_options(const LearnRunOptions& options, const JobShape& shape,
                          const std::vector<std::uint64_t>& sizes) {
    TuneOptions job = at_shape(options.jobs, options.jobs.launcher, shape);
    job.sizes = sizes;
    return job;
}

Launch learn_launch(const LearnRunOptions& options, const std::string& hiertune, const LearnGroup& group) {
    if (group.points.empty()) throw std::invalid_argument("learn: a group without points");
    std::vector<std::string> specs;
    for (const Configuration& c : group.configurations) specs.push_back(algorithm_spec(c));
    return bench_launch(shape_options(options, group.shape, group.sizes), hiertune, "learn",
                        group.points.front().configuration.collective, specs, {});
}

std::optional<Job> launched_job(const std::vector<Job>& jobs,
                                const std::function<std::vector<StoredPoint>(JobId)>& points_of,
                                const std::string& machine, const JobShape& shape,
                                const std::vector<PointKey>& keys) {
    std::optional<Job> found;
    std::string found_newest;
    for (const Job& job : jobs) {
        if (!has_shape(job, shape) || (!machine.empty() && job.description.machine != machine)) continue;
        std::map<PointKey, std::string> stored;
        for (const StoredPoint& point : points_of(job.id)) stored.emplace(point.key, point.measured_at);
        std::string newest;
        bool all = true;
        for (const PointKey& key : keys) {
            const auto at = stored.find(key);
            if (at == stored.end()) {
                all = false;
                break;
            }
            newest = std::max(newest, at->second);  // UTC ISO 8601: text order is time order
        }
        if (!all) continue;
        if (!found || std::tie(newest, job.id) > std::tie(found_newest, found->id)) {
            found = job;
            found_newest = newest;
        }
    }
    return found;
}

std::map<JobId, std::set<PointKey>> held_keys(const std::vector<Job>& jobs,
                                              const std::function<std::vector<StoredPoint>(JobId)>& points_of,
                                              const JobShape& shape, const std::vector<PointKey>& keys) {
    const std::set<PointKey> wanted(keys.begin(), keys.end());
    std::map<JobId, std::set<PointKey>> held;
    for (const Job& job : jobs) {
        if (!has_shape(job, shape)) continue;
        for (const StoredPoint& point : points_of(job.id))
            if (wanted.count(point.key)) held[job.id].insert(point.key);
    }
    return held;
}

std::set<std::string> machines_with_shapes(const std::vector<Job>& jobs, const std::vector<JobShape>& shapes) {
    std::set<std::string> machines;
    for (const Job& job : jobs)
        for (const JobShape& shape : shapes)
            if (has_shape(job, shape)) machines.insert(job.description.machine);
    return machines;
}

std::vector<std::pair<LearnPoint, double>> stored_learn_points(const std::vector<StoredPoint>& points,
                                                               const JobShape& shape, const LearnSpace& space) {
    std::vector<std::pair<LearnPoint, double>> result;
    if (space.sizes.empty() || space.configurations.empty()) return result;
    const auto [smallest, largest] = std::minmax_element(space.sizes.begin(), space.sizes.end());
    const std::uint64_t lo = non_p2_range(*smallest).lo, hi = non_p2_range(*largest).hi;
    for (const StoredPoint& point : points) {
        const Configuration c = configuration_of(point.key);
        if (point.key.msg_bytes < lo || point.key.msg_bytes > hi || !(point.summary.median > 0)) continue;
        if (std::find(space.configurations.begin(), space.configurations.end(), c) == space.configurations.end())
            continue;
        result.push_back({LearnPoint{shape.nodes, shape.ppn, point.key.msg_bytes, c}, point.summary.median});
    }
    return result;
}

std::optional<csel::Choice> learned_choice(const LearnedCollective& learned, const JobShape& shape,
                                           std::uint64_t msg_bytes) {
    std::optional<csel::Choice> best;
    std::tuple<double, std::size_t, std::string> best_rank;
    for (const Configuration& c : learned.space.configurations) {
        const PointKey key{c.collective, msg_bytes, c.algorithm, c.params};
        if (!tree_can_run(key, shape.ranks(), shape.ppn)) continue;
        const csel::Choice choice = *choice_of_point(key);
        const double seconds = learned.predicted_seconds(LearnPoint{shape.nodes, shape.ppn, msg_bytes, c});
        auto rank = std::make_tuple(seconds, c.params.size(), choice.describe());
        if (!best || rank < best_rank) {
            best = choice;
            best_rank = std::move(rank);
        }
    }
    return best;
}

csel::TreeInput learned_tree_input(const std::vector<LearnedCollective>& learned, std::vector<std::string>* lines) {
    csel::TreeInput input;
    // per (collective, comm_size, ppn): the shape and the collective's model, for the requery
    std::map<std::tuple<std::string, int, int>, std::pair<JobShape, std::size_t>> positions;
    for (std::size_t i = 0; i < learned.size(); ++i) {
        const LearnSpace& space = learned[i].space;
        if (space.configurations.empty() || space.nodes.empty() || space.ppn.empty() || space.sizes.empty())
            throw std::invalid_argument("learned tree: an empty space");
        const std::string& collective = space.configurations.front().collective;
        if (input.choices.count(collective))
            throw std::invalid_argument("learned tree: collective " + collective + " given twice");
        std::vector<csel::SampledChoice>& sampled = input.choices[collective];
        std::size_t not_stock = 0, unchosen = 0;
        for (const int nodes : space.nodes)
            for (const int ppn : space.ppn) {
                const JobShape shape{nodes, ppn};
                const auto [comm_size, tree_ppn] = tree_position(shape);
                positions[{collective, comm_size, tree_ppn}] = {shape, i};
                for (const std::uint64_t bytes : space.sizes) {
                    const std::optional<csel::Choice> choice = learned_choice(learned[i], shape, bytes);
                    if (!choice) {
                        ++unchosen;
                        continue;
                    }
                    not_stock += choice->stock ? 0 : 1;
                    sampled.push_back({comm_size, tree_ppn, bytes, *choice});
                }
            }
        if (lines) {
            std::string line = collective + ": " + std::to_string(sampled.size()) + " sampled (shape, size) points, " +
                               std::to_string(not_stock) + " not stock";
            if (unchosen) line += ", " + std::to_string(unchosen) + " where no configuration may be chosen (stock kept)";
            lines->push_back(line);
        }
        if (sampled.empty()) input.choices.erase(collective);
    }
    // the model asked at a midpoint where the choice changes (compact rules, section V)
    input.requery = [learned, positions](const std::string& collective, int comm_size, int ppn,
                                         std::uint64_t bytes) -> std::optional<csel::Choice> {
        const auto found = positions.find({collective, comm_size, ppn});
        if (found == positions.end()) return std::nullopt;
        return learned_choice(learned[found->second.second], found->second.first, bytes);
    };
    return input;
}

std::string iteration_line(std::size_t iteration, std::size_t measured, double summed_variance, double elapsed_s) {
    std::ostringstream line;
    line << "iteration " << iteration << ": " << measured << " point" << (measured == 1 ? "" : "s")
         << " measured, summed variance " << std::setprecision(4) << summed_variance << ", " << std::fixed
         << std::setprecision(1) << elapsed_s << " s";
    return line.str();
}

}  // namespace hiertune
