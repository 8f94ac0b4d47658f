#include "hiertune/tune/tune_steps.hpp"

#include "hiertune/models/analytic_han.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hier_grammar.h"

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/tree/site_tree.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

std::string join_sizes(const std::vector<std::uint64_t>& sizes, char separator) {
    std::string text;
    for (std::uint64_t size : sizes) {
        if (!text.empty()) text += separator;
        text += std::to_string(size);
    }
    return text;
}

// The shortest text that parses back to the same double: a job gets exactly
// tune's value (a stream's 6 digits would send 1234567 as 1234570).
std::string format_number(double value) {
    char text[32];
    const std::to_chars_result written = std::to_chars(text, text + sizeof text, value);
    return std::string(text, written.ptr);
}

// mpiexec [args] -n N, or the launcher's words (the hiertune command follows)
std::vector<std::string> mpiexec_prefix(const TuneOptions& options) {
    if (!options.launcher.empty()) return options.launcher;
    std::vector<std::string> argv{options.mpiexec};
    argv.insert(argv.end(), options.mpiexec_args.begin(), options.mpiexec_args.end());
    argv.push_back("-n");
    argv.push_back(std::to_string(options.ranks));
    return argv;
}

std::vector<std::pair<std::string, std::string>> base_env(const TuneOptions& options) {
    std::vector<std::pair<std::string, std::string>> env;
    if (options.nodes) env.emplace_back(kNumCliquesEnv, std::to_string(*options.nodes));
    if (options.latency_bytes > 0) env.emplace_back(kLatencyBytesCvar, std::to_string(options.latency_bytes));
    return env;
}

bool needs_quoting(const std::string& word) {
    return word.empty() || std::any_of(word.begin(), word.end(), [](unsigned char c) {
               return !(std::isalnum(c) || std::string_view("_-+=/.,:@%").find(static_cast<char>(c)) !=
                                                std::string_view::npos);
           });
}

std::string shell_word(const std::string& word) {
    if (!needs_quoting(word)) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

const std::map<std::string, std::string>& hier_cvar_suffix() {
    static const std::map<std::string, std::string> suffix{{"segsize", "segsize"},
                                                           {"inter_algo", "inter_algorithm"},
                                                           {"inter_k", "inter_kval"},
                                                           {"inter_chunk", "inter_chunk_size"},
                                                           {"intra_algo", "intra_algorithm"}};
    return suffix;
}

}  // namespace

std::vector<std::string> launcher_words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;  // a word has begun (it may still be empty: '')
    const auto end_word = [&] {
        if (in_word) words.push_back(word);
        word.clear();
        in_word = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            end_word();
        } else if (c == '\'') {
            const std::size_t close = text.find('\'', i + 1);
            if (close == std::string::npos) throw UsageError("--launcher '" + text + "': unterminated '");
            word += text.substr(i + 1, close - i - 1);
            in_word = true;
            i = close;
        } else if (c == '"') {
            in_word = true;
            for (++i;; ++i) {
                if (i >= text.size()) throw UsageError("--launcher '" + text + "': unterminated \"");
                if (text[i] == '"') break;
                if (text[i] == '\\' && i + 1 < text.size() &&
                    std::string_view("\"\\$`\n").find(text[i + 1]) != std::string_view::npos) {
                    if (text[++i] != '\n') word += text[i];
                } else {
                    word += text[i];
                }
            }
        } else if (c == '\\') {
            if (i + 1 >= text.size()) throw UsageError("--launcher '" + text + "': ends in a backslash");
            if (text[++i] != '\n') {
                word += text[i];
                in_word = true;
            }
        } else {
            word += c;
            in_word = true;
        }
    }
    end_word();
    if (words.empty() || words.front().empty()) throw UsageError("--launcher '" + text + "': no command");
    return words;
}

const std::vector<std::uint64_t>& sizes_of(const TuneOptions& options, const std::string& collective) {
    const auto own = options.collective_sizes.find(collective);
    return own == options.collective_sizes.end() ? options.sizes : own->second;
}

std::vector<std::uint64_t> model_sizes(const TuneOptions& options) {
    std::set<std::uint64_t> sizes;
    for (const std::string& collective : options.collectives)
        sizes.insert(sizes_of(options, collective).begin(), sizes_of(options, collective).end());
    return {sizes.begin(), sizes.end()};
}

namespace {

// collective into the group of the same sizes, or a new group at the end
void add_to_group(std::vector<TimedGroup>& groups, const std::string& collective,
                  const std::vector<std::uint64_t>& sizes) {
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const TimedGroup& g) { return g.sizes == sizes; });
    if (same != groups.end())
        same->collectives.push_back(collective);
    else
        groups.push_back({{collective}, sizes});
}

}  // namespace

std::vector<TimedGroup> timed_groups(const TuneOptions& options) {
    std::vector<TimedGroup> groups;
    const auto add = [&](const std::string& collective, const std::vector<std::uint64_t>& sizes) {
        add_to_group(groups, collective, sizes);
    };
    for (const std::string& collective : options.collectives) add(collective, sizes_of(options, collective));
    for (const std::string& collective : options.measured)
        add(collective, grammar::is_kind(collective, grammar::Collective::barrier) ? std::vector<std::uint64_t>{0}
                        : options.measured_sizes.empty() ? options.sizes
                                                         : options.measured_sizes);
    return groups;
}

std::vector<TimedGroup> tree_timed_groups(const TuneOptions& options) {
    std::vector<TimedGroup> groups;
    for (const TimedGroup& group : timed_groups(options))
        for (const std::string& collective : group.collectives) {
            std::vector<std::uint64_t> sizes;
            for (std::uint64_t bytes : group.sizes)
                if (!options.same_as_no_tree.count({collective, bytes})) sizes.push_back(bytes);
            if (!sizes.empty()) add_to_group(groups, collective, sizes);
        }
    return groups;
}

void split_measured(TuneOptions& options) {
    std::vector<std::string> model;
    for (const std::string& collective : options.collectives) {
        const bool modelled =
            std::find(model_collectives().begin(), model_collectives().end(), collective) != model_collectives().end();
        (modelled ? model : options.measured).push_back(collective);
    }
    options.collectives = std::move(model);
}

std::vector<Params> measured_configs(const std::string& collective) {
    const grammar::Algorithm* hier = grammar::hier_algorithm(collective);
    if (!hier) throw UsageError("collective '" + collective + "' has no hier algorithm");
    if (!hier->param("inter_algo")) return {Params{}};
    std::vector<Params> configs;
    for (const std::string& value : grammar::values(*hier, "inter_algo"))
        if (value != MPII_HIER_BY_SIZE_ITEM) configs.push_back({{"inter_algo", value}});
    return configs;
}

namespace {

// What every job of tune and tree-timing needs: ranks, the launch, message sizes.
void check_job_options(const TuneOptions& options) {
    if (options.ranks < 2) throw UsageError("-n: at least 2 ranks");
    if (!options.launcher.empty() && (options.nodes || !options.mpiexec.empty() || !options.mpiexec_args.empty()))
        throw UsageError("--launcher replaces mpiexec, its arguments and -n in every job: --nodes, --mpiexec and "
                         "--mpiexec-arg do not go with it (put them into the launcher's words)");
    if (options.nodes && (*options.nodes < 2 || *options.nodes > options.ranks))
        throw UsageError("--nodes " + std::to_string(*options.nodes) + ": need 2 .. " +
                         std::to_string(options.ranks) + " (the ranks) emulated nodes");
    if (options.sizes.empty()) throw UsageError("no message sizes (-m, --sizes)");
    if (std::count(options.sizes.begin(), options.sizes.end(), 0u)) throw UsageError("message size 0: need sizes > 0");
}

// The model's collectives (options.collectives) and the measured ones: each known
// to its kind, none twice, at least one.
void check_collectives(const TuneOptions& options) {
    if (options.collectives.empty() && options.measured.empty()) throw UsageError("no collectives (-C)");
    std::set<std::string> seen;
    const auto check = [&](const std::string& collective, const std::vector<std::string>& kind, const char* what) {
        if (std::find(kind.begin(), kind.end(), collective) == kind.end())
            throw UsageError("collective '" + collective + "': " + what + " " + name_list(kind));
        if (!seen.insert(collective).second) throw UsageError("collective '" + collective + "' given twice");
    };
    for (const std::string& collective : options.collectives)
        check(collective, model_collectives(), "the task model covers");
    for (const std::string& collective : options.measured)
        check(collective, measured_collectives(), "measured ones are");
    for (const auto& [collective, sizes] : options.collective_sizes) {
        if (!std::count(options.collectives.begin(), options.collectives.end(), collective))
            throw UsageError("--sizes-of " + collective + ": not a collective of the HAN task model in -C (" +
                             join(options.collectives, ", ") + ")");
        if (sizes.empty() || std::count(sizes.begin(), sizes.end(), 0u))
            throw UsageError("--sizes-of " + collective + ": need sizes > 0");
    }
}

}  // namespace

namespace {

void check_shapes(const TuneOptions& options) {
    for (std::size_t i = 0; i < options.shapes.size(); ++i)
        if (std::count(options.shapes.begin(), options.shapes.begin() + i, options.shapes[i]))
            throw UsageError("--shapes: " + to_string(options.shapes[i]) + " given twice");
    if (!options.shape_launcher.empty() && options.shapes.empty())
        throw UsageError("--shape-launcher without --shapes: no further shape to launch");
    if (!options.shape_launcher.empty() && options.shape_launcher.back() == "--" &&
        !has_shape_placeholder(options.shape_launcher))
        throw UsageError("--shape-launcher ends in '--': tune appends the shape ('--nodes N --ppn P --') to the "
                         "words; leave the '--' out, or place {nodes}, {ppn}, {ranks} in the words");
    if (!options.shape_launcher.empty() && options.nodes)
        throw UsageError("--shape-launcher does not go with --nodes (emulated cliques launch through mpiexec)");
    if (!options.shapes.empty() && options.shape_launcher.empty() && !options.nodes)
        throw UsageError("--shapes needs --shape-launcher WORDS (e.g. 'maint/emucluster run', to which the shape's "
                         "'--nodes N --ppn P --' are appended, or 'srun -N {nodes} --ntasks-per-node={ppn}'), or "
                         "--nodes on emulated cliques");
}

void check_predicted_shapes(const TuneOptions& options) {
    const std::vector<JobShape>& predicted = options.predicted_shapes;
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        const std::string name = "--predict-shapes " + to_string(predicted[i]);
        if (std::count(predicted.begin(), predicted.begin() + i, predicted[i])) throw UsageError(name + ": given twice");
        if (std::count(options.shapes.begin(), options.shapes.end(), predicted[i]))
            throw UsageError(name + ": also in --shapes (a shape is measured or predicted, not both)");
        if (predicted[i].ppn != 1)
            throw UsageError(name + ": the analytic models are fitted on one rank per node and predict that only; "
                                    "measure shapes of more ranks per node with --shapes");
    }
    if (predicted.empty()) return;
    if (predicted_collectives(options).empty())
        throw UsageError("--predict-shapes: the analytic models predict bcast and reduce, and -C names neither");
    if (options.fit_launcher.empty() && !options.nodes)
        throw UsageError("--predict-shapes: the predictions come from the analytic models: give --fit-launcher "
                         "WORDS that start one rank per node (or --nodes on emulated cliques)");
}

}  // namespace

void check_tune_options(const TuneOptions& options) {
    check_job_options(options);
    if (options.segsizes.empty()) throw UsageError("no segment sizes (-s)");
    if (std::count(options.segsizes.begin(), options.segsizes.end(), 0u))
        throw UsageError("segment size 0: segment sizes must be > 0");
    check_collectives(options);
    if (std::count(options.measured_sizes.begin(), options.measured_sizes.end(), 0u))
        throw UsageError("measured message size 0: need sizes > 0 (barrier is timed at 0 by itself)");
    const std::vector<Params> configs = parse_task_configs(options.configs);
    for (const std::string& collective : options.collectives) {
        std::vector<std::string> skipped;
        const std::vector<Params> applying = configs_for(collective, configs, &skipped);
        if (applying.empty())
            throw UsageError("no configuration of the search space applies to " + collective + " (" +
                             skipped.back() + ")");
        for (const Params& config : applying)
            if (!analytic::is_seg_inter(config)) submodule_cvars(collective, config);
    }
    if (!seg_inter_configs(options).empty() && options.fit_launcher.empty() && !options.nodes)
        throw UsageError("seg_* inter-node submodules are costed by the analytic models: give --fit-launcher "
                         "WORDS that start one rank per node (or --nodes on emulated cliques)");
    if (options.db_path.empty()) throw UsageError("--db: no database file");
    if (options.tree_path.empty()) throw UsageError("-o: no tree file");
    if (options.report_dir.empty()) throw UsageError("--report: no report directory");
    if (options.steady_segments < 4) throw UsageError("--steady must be at least 4");
    if (!(options.rate_tolerance_percent >= 0)) throw UsageError("--rate-tolerance must be >= 0");
    if (options.tree_rounds < 2) throw UsageError("--tree-rounds must be at least 2 (one round has no noise)");
    if (!(options.tree_tolerance >= 0 && options.tree_tolerance < 1))
        throw UsageError("--tree-tolerance must be >= 0 and < 100 (percent)");
    check_shapes(options);
    check_predicted_shapes(options);
}

void check_tree_timing_options(const TuneOptions& options) {
    check_job_options(options);
    check_collectives(options);
    if (options.tree_path.empty()) throw UsageError("--tree: no tree file");
    if (options.tree_rounds < 2) throw UsageError("--rounds must be at least 2 (one round has no noise)");
    if (!(options.tree_tolerance >= 0 && options.tree_tolerance < 1))
        throw UsageError("--tolerance must be >= 0 and < 100 (percent)");
}

std::optional<std::string> tune_cliques_refusal(const TuneOptions& options, const char* num_cliques) {
    if (options.allow_cliques) return std::nullopt;
    if (options.nodes) return cliques_error("--nodes " + std::to_string(*options.nodes));
    return cliques_refusal(num_cliques);
}

std::string describe(const Launch& launch) {
    std::vector<std::string> words;
    for (const auto& [name, value] : launch.env) words.push_back(name + "=" + shell_word(value));
    for (const std::string& arg : launch.argv) words.push_back(shell_word(arg));
    return join(words, " ");
}

Launch calibrate_launch(const TuneOptions& options, const std::string& hiertune) {
    Launch launch{"calibrate", mpiexec_prefix(options), base_env(options)};
    launch.argv.insert(launch.argv.end(),
                       {hiertune, "calibrate", "--db", options.db_path, "--if-missing", "--json", "--precision",
                        format_number(options.bench_precision_percent), "--max-time",
                        format_number(options.bench_max_time), "--tolerance",
                        format_number(options.rate_tolerance_percent)});
    if (!options.machine.empty()) launch.argv.insert(launch.argv.end(), {"--machine", options.machine});
    if (options.allow_cliques) launch.argv.push_back(kAllowCliquesFlag);
    return launch;
}

std::vector<Params> seg_inter_configs(const TuneOptions& options) {
    std::vector<Params> configs;
    if (options.collectives.empty()) return configs;  // the model's collectives use them
    for (const Params& config : parse_task_configs(options.configs))
        if (analytic::is_seg_inter(config)) configs.push_back(config);
    return configs;
}

std::vector<std::string> predicted_collectives(const TuneOptions& options) {
    std::vector<std::string> collectives;
    if (options.predicted_shapes.empty()) return collectives;
    for (const std::string& collective : options.collectives)
        if (!analytic::modelled_algorithms(collective).empty()) collectives.push_back(collective);
    return collectives;
}

std::optional<Launch> fit_launch(const TuneOptions& options, const std::string& hiertune) {
    const std::vector<Params> configs = seg_inter_configs(options);
    const std::vector<std::string> predicted = predicted_collectives(options);
    if (configs.empty() && predicted.empty()) return std::nullopt;
    Launch launch{"fit", options.fit_launcher, {}};
    if (launch.argv.empty()) {
        launch.argv = {options.mpiexec};
        launch.argv.insert(launch.argv.end(), options.mpiexec_args.begin(), options.mpiexec_args.end());
        launch.argv.insert(launch.argv.end(), {"-n", std::to_string(options.nodes.value_or(2))});
        if (options.nodes) launch.env.emplace_back(kNumCliquesEnv, std::to_string(*options.nodes));
    }
    // gamma at the segment sizes the trees move: inter_chunk, or the HAN segment (chunk 0)
    std::set<std::string> algos;
    std::set<std::uint64_t> chunks;
    for (const Params& config : configs) {
        algos.insert(config.at("inter_algo"));
        const auto chunk = config.find("inter_chunk");
        if (chunk != config.end() && chunk->second != "0")
            chunks.insert(std::stoull(chunk->second));
        else
            chunks.insert(options.segsizes.begin(), options.segsizes.end());
    }
    // the trees the pipelines run among the leaders: bcast's (bcast, allreduce), reduce's (reduce, allreduce)
    const auto tuned = [&](grammar::Collective collective) {
        return std::count(options.collectives.begin(), options.collectives.end(), to_string(collective)) > 0;
    };
    // the predicted picks' segment sizes are the search space's
    if (!predicted.empty()) chunks.insert(options.segsizes.begin(), options.segsizes.end());
    std::vector<std::string> fitted;
    if (tuned(grammar::Collective::bcast) || (!configs.empty() && tuned(grammar::Collective::allreduce))) fitted.push_back(to_string(grammar::Collective::bcast));
    if (tuned(grammar::Collective::reduce) || (!configs.empty() && tuned(grammar::Collective::allreduce))) fitted.push_back(to_string(grammar::Collective::reduce));
    const auto [smallest, largest_segment] = std::minmax_element(options.segsizes.begin(), options.segsizes.end());
    std::uint64_t largest = std::max(*largest_segment, 2 * *smallest);
    // the predicted picks are the models' up to the largest tuned size
    if (!predicted.empty()) largest = std::max(largest, model_sizes(options).back());
    launch.argv.insert(launch.argv.end(), {hiertune, "fit", "--db", options.db_path, "-C", join(fitted, ",")});
    // a predicted collective fits every modelled algorithm (fit's default): MPICH's too
    if (predicted.empty())
        launch.argv.insert(launch.argv.end(), {"-a", join(std::vector<std::string>(algos.begin(), algos.end()), ",")});
    launch.argv.insert(launch.argv.end(),
                       {"--smallest", std::to_string(*smallest), "--largest", std::to_string(largest),
                        "--count", "5", "--gamma-segsizes",
                        join_sizes(std::vector<std::uint64_t>(chunks.begin(), chunks.end()), ','),
                        "--precision", format_number(options.bench_precision_percent), "--max-time",
                        format_number(options.bench_max_time)});
    if (!options.machine.empty()) launch.argv.insert(launch.argv.end(), {"--machine", options.machine});
    if (options.allow_cliques) launch.argv.push_back(kAllowCliquesFlag);
    return launch;
}

std::vector<std::pair<std::vector<std::pair<std::string, std::string>>, std::vector<Params>>>
launch_groups(const TuneOptions& options) {
    std::vector<std::pair<std::vector<std::pair<std::string, std::string>>, std::vector<Params>>> groups;
    for (const Params& config : parse_task_configs(options.configs)) {
        std::vector<std::pair<std::string, std::string>> env;
        for (const std::string& collective : options.collectives)
            for (const auto& entry : launch_cvars(collective, config))
                // kary is what MPICH uses when the variable is unset: such
                // configurations share the launch of those needing nothing.
                if (entry.second != "kary" && std::find(env.begin(), env.end(), entry) == env.end())
                    env.push_back(entry);
        std::sort(env.begin(), env.end());
        const auto found =
            std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == env; });
        if (found == groups.end())
            groups.push_back({env, {config}});
        else
            found->second.push_back(config);
    }
    return groups;
}

std::string config_spec(const Params& config) {
    std::vector<std::string> items;
    for (const auto& [name, value] : config) items.push_back(name + "=" + value);
    return join(items, ",");
}

std::vector<std::uint64_t> task_segsizes(const TuneOptions& options) {
    std::vector<std::uint64_t> segsizes = options.segsizes;
    const std::uint64_t smallest = *std::min_element(segsizes.begin(), segsizes.end());
    for (std::uint64_t bytes : model_sizes(options))
        if (bytes > 0 && bytes < smallest && !std::count(segsizes.begin(), segsizes.end(), bytes))
            segsizes.push_back(bytes);
    std::sort(segsizes.begin(), segsizes.end());
    return segsizes;
}

std::vector<TaskKey> planned_tasks(const TuneOptions& options) {
    const std::vector<Params> configs = parse_task_configs(options.configs);
    const std::vector<std::uint64_t> segsizes = task_segsizes(options);
    std::vector<TaskKey> plan;
    for (const std::string& collective : options.collectives)
        for (const Params& config : configs_for(collective, configs)) {
            if (analytic::is_seg_inter(config)) continue;  // costed by the analytic models (step 0b)
            for (std::uint64_t segsize : segsizes) {
                const std::vector<TaskKey> keys = task_keys(collective, config, segsize);
                plan.insert(plan.end(), keys.begin(), keys.end());
            }
            if (collective == grammar::Collective::allgather)  // its sg at every size
                for (std::uint64_t bytes : sizes_of(options, collective)) plan.push_back(gather_task_key(config, bytes));
        }
    return plan;
}

std::vector<Launch> tasks_launches(const TuneOptions& options, const std::string& hiertune) {
    if (options.collectives.empty()) return {};  // only measured collectives: no task to time, no model size
    const auto groups = launch_groups(options);
    // tasks --config is one product spec: the user's when one launch covers
    // it and it has no seg_* configuration, else one launch per configuration
    // (for the collectives it applies to).
    struct Spec {
        std::vector<std::pair<std::string, std::string>> env;
        std::string config;
        std::vector<std::string> collectives;
    };
    std::vector<Spec> specs;
    if (groups.size() == 1 && seg_inter_configs(options).empty())
        specs.push_back({groups.front().first, options.configs, options.collectives});
    else
        for (const auto& [launch_env, configs] : groups)
            for (const Params& config : configs) {
                if (analytic::is_seg_inter(config)) continue;
                std::vector<std::string> collectives;
                for (const std::string& collective : options.collectives)
                    if (!configs_for(collective, {config}).empty()) collectives.push_back(collective);
                specs.push_back({launch_env, config_spec(config), collectives});
            }
    std::vector<Launch> launches;
    for (const Spec& spec : specs) {
        Launch launch{"tasks", mpiexec_prefix(options), base_env(options)};
        launch.env.insert(launch.env.end(), spec.env.begin(), spec.env.end());
        launch.argv.insert(launch.argv.end(),
                           {hiertune, "tasks", "-C", join(spec.collectives, ","), "-s",
                            join_sizes(task_segsizes(options), ','), "--steady", std::to_string(options.steady_segments),
                            "--max-message", std::to_string(model_sizes(options).back()),
                            "-x", std::to_string(options.task_warmup), "--min-reps",
                            std::to_string(std::min(options.task_min_reps, options.task_reps)), "-i",
                            std::to_string(options.task_reps), "--precision",
                            format_number(options.bench_precision_percent), "--max-time",
                            format_number(options.bench_max_time)});
        if (!spec.config.empty()) launch.argv.insert(launch.argv.end(), {"--config", spec.config});
        const std::string allgather = to_string(grammar::Collective::allgather);
        if (std::count(spec.collectives.begin(), spec.collectives.end(), allgather))
            launch.argv.insert(launch.argv.end(), {"--sizes", join_sizes(sizes_of(options, allgather), ',')});  // its sg
        launch.argv.insert(launch.argv.end(),
                           {"--db", options.db_path, "--machine", options.machine, "--account", launch.step});
        if (options.allow_cliques) launch.argv.push_back(kAllowCliquesFlag);
        launches.push_back(std::move(launch));
    }
    return launches;
}

std::string bench_algorithm_spec(const std::string& collective, const Params& config,
                                 const std::vector<std::uint64_t>& segsizes) {
    std::string spec = "hier:" + collective + "_hier_segsize=" + join_sizes(segsizes, '/');
    for (const auto& [name, value] : config) {
        const auto found = hier_cvar_suffix().find(name);
        if (found == hier_cvar_suffix().end() || name == "segsize")
            throw UsageError("configuration parameter '" + name + "' has no hier control variable");
        spec += "," + collective + "_hier_" + found->second + "=" + value;
    }
    return spec;
}

Launch bench_launch(const TuneOptions& options, const std::string& hiertune, const std::string& step,
                    const std::string& collective, const std::vector<std::string>& algorithms,
                    const std::vector<std::pair<std::string, std::string>>& launch_env) {
    return bench_launch(options, hiertune, step, TimedGroup{{collective}, options.sizes}, algorithms, launch_env);
}

Launch bench_launch(const TuneOptions& options, const std::string& hiertune, const std::string& step,
                    const TimedGroup& group, const std::vector<std::string>& algorithms,
                    const std::vector<std::pair<std::string, std::string>>& launch_env) {
    Launch launch{step, mpiexec_prefix(options), base_env(options)};
    launch.env.insert(launch.env.end(), launch_env.begin(), launch_env.end());
    launch.argv.insert(launch.argv.end(), {hiertune, "bench", "-C", join(group.collectives, ",")});
    for (const std::string& algorithm : algorithms) {
        launch.argv.push_back("-a");
        launch.argv.push_back(algorithm);
    }
    launch.argv.insert(launch.argv.end(),
                       {"--sizes", join_sizes(group.sizes, ','), "-x", std::to_string(options.bench_warmup),
                        "--min-reps", std::to_string(std::min(options.bench_min_reps, options.bench_max_reps)), "-i",
                        std::to_string(options.bench_max_reps), "--precision",
                        format_number(options.bench_precision_percent), "--max-time",
                        format_number(options.bench_max_time), "--no-progress", "--db", options.db_path});
    if (!options.machine.empty()) launch.argv.insert(launch.argv.end(), {"--machine", options.machine});
    launch.argv.insert(launch.argv.end(), {"--account", launch.step});
    if (options.allow_cliques) launch.argv.push_back(kAllowCliquesFlag);
    return launch;
}

namespace {

// One bench launch of `step` per launch group, timing the specs `specs_of` makes of the
// group's configurations (a group it makes none of is left out), each with its spec count.
// A spec an earlier group times is left out: the same configuration of the collective
// (allgather's share of two groups' configurations), whose run needs neither group's variables.
template <typename SpecsOf>
std::vector<std::pair<Launch, std::size_t>> group_bench_launches(const TuneOptions& options, const std::string& hiertune,
                                                                 const std::string& step, const TimedGroup& group,
                                                                 SpecsOf specs_of) {
    std::vector<std::pair<Launch, std::size_t>> launches;
    std::set<std::string> timed;
    for (const auto& [launch_env, configs] : launch_groups(options)) {
        std::vector<std::string> algorithms;
        for (std::string& spec : specs_of(configs))
            if (timed.insert(spec).second) algorithms.push_back(std::move(spec));
        if (!algorithms.empty())
            launches.emplace_back(bench_launch(options, hiertune, step, group, algorithms, launch_env), algorithms.size());
    }
    return launches;
}

}  // namespace

std::vector<SweepJob> sweep_jobs(const TuneOptions& options, const std::string& hiertune) {
    std::vector<SweepJob> jobs;
    for (const std::string& collective : options.collectives) {
        const auto specs_of = [&](const std::vector<Params>& configs) {
            std::vector<std::string> algorithms;
            for (const Params& config : configs_for(collective, configs))
                algorithms.push_back(bench_algorithm_spec(collective, config, options.segsizes));
            return algorithms;
        };
        for (auto& [launch, count] :
             group_bench_launches(options, hiertune, "bench", TimedGroup{{collective}, sizes_of(options, collective)}, specs_of)) {
            launch.argv.push_back("--same-runs-once");  // measure_plan: the others stand on it
            jobs.push_back(SweepJob{collective, count, std::move(launch)});
        }
    }
    return jobs;
}

std::vector<Launch> candidate_launches(const TuneOptions& options, const std::string& hiertune,
                                       const std::string& collective, const std::vector<Params>& candidates,
                                       const std::vector<std::uint64_t>& sizes) {
    const auto specs_of = [&](const std::vector<Params>& configs) {
        const std::vector<Params> applying = configs_for(collective, configs);  // allgather's share
        std::vector<std::string> algorithms;
        for (const Params& candidate : candidates) {
            Params config = candidate;
            config.erase("segsize");
            if (std::find(applying.begin(), applying.end(), config) != applying.end())
                algorithms.push_back(bench_algorithm_spec(collective, config, {std::stoull(candidate.at("segsize"))}));
        }
        return algorithms;
    };
    std::vector<Launch> launches;
    for (auto& [launch, count] :
         group_bench_launches(options, hiertune, "close", TimedGroup{{collective}, sizes}, specs_of))
        launches.push_back(std::move(launch));
    return launches;
}

std::string sweep_job_name(const SweepJob& job) {
    std::string name = job.collective + ", " + std::to_string(job.configurations) +
                       (job.configurations == 1 ? " configuration" : " configurations");
    for (const auto& [variable, value] : job.launch.env)
        if (variable != kNumCliquesEnv && variable != kLatencyBytesCvar)  // every job's (base_env)
            name += ", " + variable + "=" + value;                           // the launch group's
    return name;
}

namespace {

// The collective's CH4 compositions forced one by one ("default:MPIR_CVAR_BCAST_COMPOSITION=1/2/3"),
// nullopt where CH4 composes none.
std::optional<std::string> composition_spec(const std::string& collective) {
    std::vector<std::string> values;
    for (int n : grammar::tuned_compositions(collective)) values.push_back(std::to_string(n));
    if (values.empty()) return std::nullopt;
    return std::string(kDefaultAlgorithm) + ":" + grammar::composition_cvar(collective) + "=" + join(values, "/");
}

// MPICH's reference of each timed group: `algorithms` in one job, then each collective's
// compositions in one job of its own (a composition variable is the collective's own).
std::vector<Launch> reference_launches(const TuneOptions& options, const std::string& hiertune,
                                       const std::vector<std::string>& algorithms) {
    std::vector<Launch> launches;
    for (const TimedGroup& group : timed_groups(options)) {
        launches.push_back(bench_launch(options, hiertune, "stock", group, algorithms, {}));
        for (const std::string& collective : group.collectives)
            if (const std::optional<std::string> spec = composition_spec(collective))
                launches.push_back(
                    bench_launch(options, hiertune, "stock", TimedGroup{{collective}, group.sizes}, {*spec}, {}));
    }
    return launches;
}

}  // namespace

std::vector<Launch> stock_launches(const TuneOptions& options, const std::string& hiertune) {
    return reference_launches(options, hiertune, {kStockAlgorithms});
}

std::optional<int> stock_reference(const PointKey& key) {
    if (const std::optional<int> n = forced_composition(key)) return n;
    const std::optional<csel::Choice> choice = choice_of_point(key);
    if (choice && choice->stock) return 0;
    return std::nullopt;
}

double stock_seconds_per_run(const std::vector<StoredPoint>& points, double stock_step_s) {
    const auto stock_step = [](const StoredPoint& point) {
        return !grammar::find(point.key.collective, point.key.algorithm);
    };
    const auto runs = std::count_if(points.begin(), points.end(), stock_step);
    return runs == 0 ? 0.0 : stock_step_s / static_cast<double>(runs);
}

std::vector<std::string> missing_stock_points(const TuneOptions& options, const std::vector<StoredPoint>& points) {
    std::set<std::tuple<std::string, std::uint64_t, int>> stored;
    for (const StoredPoint& point : points)
        if (const std::optional<int> n = stock_reference(point.key))
            stored.insert({point.key.collective, point.key.msg_bytes, *n});
    std::vector<std::string> missing;
    for (const TimedGroup& group : timed_groups(options))
        for (const std::string& collective : group.collectives) {
            std::vector<int> wanted{0};
            for (int n : grammar::tuned_compositions(collective)) wanted.push_back(n);
            for (std::uint64_t bytes : group.sizes)
                for (int n : wanted)
                    if (!stored.count({collective, bytes, n}))
                        missing.push_back(collective + " " + std::to_string(bytes) + " B" +
                                          (n ? " composition " + std::to_string(n) : std::string()));
        }
    return missing;
}

namespace {

// "hier:gather_hier_inter_algorithm=linear/binomial": every measured configuration
// of the collective in one bench spec (they differ in inter_algo alone); "tsp_hier"
// for a non-blocking form.
std::string measured_spec(const std::string& collective) {
    const grammar::Algorithm* hier = grammar::hier_algorithm(collective);
    if (hier && !hier->param("inter_algo")) return hier->item;
    std::vector<std::string> values;
    for (const Params& config : measured_configs(collective)) values.push_back(config.at("inter_algo"));
    return "hier:" + collective + "_hier_" + hier_cvar_suffix().at("inter_algo") + "=" + join(values, "/");
}

}  // namespace

std::vector<Launch> measured_launches(const TuneOptions& options, const std::string& hiertune) {
    std::vector<Launch> launches;
    for (const TimedGroup& group : timed_groups(options))
        for (const std::string& collective : group.collectives)
            if (std::count(options.measured.begin(), options.measured.end(), collective))
                launches.push_back(bench_launch(options, hiertune, "measured", TimedGroup{{collective}, group.sizes},
                                                {measured_spec(collective)}, {}));
    return launches;
}

std::vector<std::string> missing_measured_points(const TuneOptions& options, const std::vector<StoredPoint>& points) {
    std::set<std::tuple<std::string, std::uint64_t, Params>> stored;
    for (const StoredPoint& point : points) {
        const std::optional<csel::Choice> choice = choice_of_point(point.key);
        if (choice && grammar::find(choice->algorithm))
            stored.insert({point.key.collective, point.key.msg_bytes, choice->params});
    }
    std::vector<std::string> missing;
    for (const TimedGroup& group : timed_groups(options))
        for (const std::string& collective : group.collectives) {
            if (!std::count(options.measured.begin(), options.measured.end(), collective)) continue;
            for (std::uint64_t bytes : group.sizes)
                for (const Params& config : measured_configs(collective))
                    if (!stored.count({collective, bytes, config}))
                        missing.push_back(collective + " " + std::to_string(bytes) + " B " + config_label(config));
        }
    return missing;
}

bool operator==(const VerifyCase& a, const VerifyCase& b) {
    return a.collective == b.collective && a.msg_bytes == b.msg_bytes && a.hier == b.hier &&
           a.segments == b.segments && a.whole_comm == b.whole_comm;
}

std::string to_string(const VerifyCase& c) {
    return c.collective + ":" + std::to_string(c.msg_bytes) + ":" +
           (c.hier ? "hier/" + std::to_string(c.segments) : std::string(c.whole_comm ? kWholeCommCase : "any"));
}

VerifyCase parse_verify_case(const std::string& text) {
    const auto bad = [&](const std::string& why) {
        return UsageError("verify case '" + text + "': " + why + " (COLL:BYTES:hier/SEGMENTS, COLL:BYTES:" +
                          kWholeCommCase + " or COLL:BYTES:any)");
    };
    const auto digits = [](const std::string& s) {
        return !s.empty() && s.size() <= 19 &&
               std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    const std::size_t first = text.find(':');
    const std::size_t second = first == std::string::npos ? first : text.find(':', first + 1);
    if (second == std::string::npos) throw bad("not three fields");
    VerifyCase c;
    c.collective = text.substr(0, first);
    if (std::find(tuned_collectives().begin(), tuned_collectives().end(), c.collective) ==
        tuned_collectives().end())
        throw bad("collective must be one of " + name_list(tuned_collectives()));
    const std::string bytes = text.substr(first + 1, second - first - 1);
    const bool barrier = grammar::is_kind(c.collective, grammar::Collective::barrier);
    if (!digits(bytes) || (std::stoull(bytes) == 0) != barrier)
        throw bad(barrier ? c.collective + " has no size: BYTES must be 0" : "size must be a positive integer");
    c.msg_bytes = std::stoull(bytes);
    const std::string expect = text.substr(second + 1);
    if (expect == "any") return c;
    c.whole_comm = expect == kWholeCommCase;
    if (c.whole_comm) return c;
    if (expect.rfind("hier/", 0) != 0)
        throw bad(std::string("expectation must be hier/SEGMENTS, ") + kWholeCommCase + " or any");
    const std::string segments = expect.substr(5);
    // the measured collectives' hier counts no segments (hier/0); hier/0 of another
    // collective leaves its segments unchecked (a pick by measurement, its segment
    // size the variable's default)
    const bool counted = !std::count(measured_collectives().begin(), measured_collectives().end(), c.collective);
    if (!digits(segments) || (!counted && std::stoull(segments) != 0))
        throw bad(counted ? "segments must be an integer >= 0" : c.collective + " counts no segments: hier/0");
    c.hier = true;
    c.segments = std::stoull(segments);
    return c;
}

namespace {

// The CH4 tree beside the tree, where there is one
std::optional<std::string> ch4_tree_beside(const std::string& tree) {
    const std::filesystem::path ch4 = ch4_tree_path(tree);
    return std::filesystem::exists(ch4) ? std::optional<std::string>(ch4.string()) : std::nullopt;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> tree_env(const std::string& tree, bool with_tree) {
    const std::optional<std::string> ch4 = with_tree ? ch4_tree_beside(tree) : std::nullopt;
    // "": MPICH's built-in tree even where the caller's environment names one
    return {{"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", with_tree ? tree : ""},
            {"MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", ch4.value_or("")}};
}

Launch verify_launch(const TuneOptions& options, const std::string& hiertune, const std::string& tree,
                     const std::vector<VerifyCase>& cases) {
    if (tree.empty() || tree.front() != '/') throw UsageError("verify needs an absolute tree path, not '" + tree + "'");
    Launch launch{"verify", mpiexec_prefix(options), base_env(options)};
    const auto env = tree_env(tree, true);
    launch.env.insert(launch.env.end(), env.begin(), env.end());
    const bool ch4 = ch4_tree_beside(tree).has_value();
    launch.argv.push_back(hiertune);
    launch.argv.push_back("verify");
    for (VerifyCase c : cases) {
        // no route to count where the CH4 tree brings the call there, or where CH4 hands the
        // collective to the MPIR level whole (gather, scatter: no CH4 composition to route past)
        c.whole_comm = c.whole_comm && !ch4 && grammar::whole_comm_composition(c.collective).has_value();
        launch.argv.push_back("--case");
        launch.argv.push_back(to_string(c));
    }
    return launch;
}

Launch tree_timing_launch(const TuneOptions& options, const std::string& hiertune, const std::string& tree,
                          bool with_tree, const TimedGroup& group) {
    if (tree.empty() || tree.front() != '/')
        throw UsageError("the tree timing needs an absolute tree path, not '" + tree + "'");
    Launch launch{with_tree ? kTreeVariant : kNoTreeVariant, mpiexec_prefix(options), base_env(options)};
    const auto env = tree_env(tree, with_tree);
    launch.env.insert(launch.env.end(), env.begin(), env.end());
    launch.argv.insert(launch.argv.end(),
                       {hiertune, "bench", "-C", join(group.collectives, ","), "-a", "default", "--sizes",
                        join_sizes(group.sizes, ','), "-x", std::to_string(options.bench_warmup), "--min-reps",
                        std::to_string(std::min(options.bench_min_reps, options.bench_max_reps)), "-i",
                        std::to_string(options.bench_max_reps), "--precision",
                        format_number(options.bench_precision_percent), "--max-time",
                        format_number(options.bench_max_time), "--no-progress", "--json"});
    if (options.allow_cliques) launch.argv.push_back(kAllowCliquesFlag);
    return launch;
}

TreeTimingOutput parse_tree_timing_output(std::istream& lines, const TimedGroup& group, int round,
                                          const std::string& variant) {
    TreeTimingOutput output;
    bool have_layout = false;
    std::set<std::pair<std::string, std::uint64_t>> seen;
    std::size_t number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto bad = [&](const std::string& why) {
            return std::runtime_error("line " + std::to_string(number) + " of the " + variant +
                                      " job's output: " + why);
        };
        try {
            const nlohmann::json point = nlohmann::json::parse(line);
            if (point.at("algorithm").get<std::string>() != "default" || !point.at("params").empty())
                throw bad("not a point of the default selection");
            JobDescription layout;
            layout.ranks = point.at("ranks").get<int>();
            layout.nodes = point.at("nodes").get<int>();
            layout.ppn = point.at("ppn").get<int>();
            layout.placement = point.at("placement").get<std::string>();
            if (have_layout && !same_layout(layout, output.layout)) throw bad("points of two job layouts");
            output.layout = layout;
            have_layout = true;
            TreeTiming timing;
            timing.round = round;
            timing.variant = variant;
            timing.collective = point.at("collective").get<std::string>();
            timing.msg_bytes = point.at("size").get<std::uint64_t>();
            const std::string at = timing.collective + " " + std::to_string(timing.msg_bytes) + " B";
            if (std::find(group.collectives.begin(), group.collectives.end(), timing.collective) ==
                    group.collectives.end() ||
                std::find(group.sizes.begin(), group.sizes.end(), timing.msg_bytes) == group.sizes.end())
                throw bad(at + " was not asked for");
            if (!seen.insert({timing.collective, timing.msg_bytes}).second) throw bad(at + " twice");
            Summary& s = timing.summary;
            s.median = point.at("median_us").get<double>() * 1e-6;
            s.ci_lo = point.at("ci_lo_us").get<double>() * 1e-6;
            s.ci_hi = point.at("ci_hi_us").get<double>() * 1e-6;
            s.min = point.at("min_us").get<double>() * 1e-6;
            s.max = point.at("max_us").get<double>() * 1e-6;
            s.mean = point.at("mean_us").get<double>() * 1e-6;
            s.n = point.at("n").get<std::size_t>();
            s.converged = point.at("converged").get<bool>();
            output.timings.push_back(std::move(timing));
        } catch (const nlohmann::json::exception& e) {
            throw bad(std::string("not a bench JSON point (") + e.what() + ")");
        }
    }
    for (const std::string& collective : group.collectives)
        for (std::uint64_t bytes : group.sizes)
            if (!seen.count({collective, bytes}))
                throw std::runtime_error("the " + variant + " job's output has no point for " + collective + " " +
                                         std::to_string(bytes) + " B");
    return output;
}

bool same_layout(const JobDescription& a, const JobDescription& b) {
    return a.ranks == b.ranks && a.nodes == b.nodes && a.ppn == b.ppn && a.placement == b.placement;
}

namespace {

// The round's time of (collective, size, round, variant), if stored.
std::optional<double> tree_time(const std::vector<TreeTiming>& timings, const std::string& collective,
                                std::uint64_t bytes, int round, const std::string& variant) {
    for (const TreeTiming& timing : timings)
        if (timing.collective == collective && timing.msg_bytes == bytes && timing.round == round &&
            timing.variant == variant)
            return timing.summary.median;
    return std::nullopt;
}

}  // namespace

bool tree_round_stored(const TimedGroup& group, const std::vector<TreeTiming>& timings, int round,
                       const std::string& variant) {
    for (const std::string& collective : group.collectives)
        for (std::uint64_t bytes : group.sizes)
            if (!tree_time(timings, collective, bytes, round, variant)) return false;
    return true;
}

std::vector<TreeTimingCase> tree_timing_cases(const TuneOptions& options, const std::vector<TreeTiming>& timings) {
    std::vector<TreeTimingCase> cases;
    for (const TimedGroup& group : tree_timed_groups(options))
        for (const std::string& collective : group.collectives)
            for (std::uint64_t bytes : group.sizes) {
                TreeTimingCase c{collective, bytes, {}, {}};
                for (int round = 1; round <= options.tree_rounds; ++round)
                    for (const char* variant : {kTreeVariant, kNoTreeVariant}) {
                        const std::optional<double> time = tree_time(timings, collective, bytes, round, variant);
                        if (!time)
                            throw std::runtime_error("no " + std::string(variant) + " timing of " + collective +
                                                     " " + std::to_string(bytes) + " B in round " +
                                                     std::to_string(round));
                        (variant == std::string(kTreeVariant) ? c.tree : c.no_tree).push_back(*time);
                    }
                cases.push_back(std::move(c));
            }
    return cases;
}

bool in_search_space(const TuneOptions& options, const han::Candidate& candidate) {
    if (std::find(options.segsizes.begin(), options.segsizes.end(), candidate.segsize) == options.segsizes.end())
        return false;
    const std::vector<Params> configs = parse_task_configs(options.configs);
    if (std::find(configs.begin(), configs.end(), candidate.config) != configs.end()) return true;
    const std::string allgather_name = to_string(grammar::Collective::allgather);
    const std::vector<Params> allgather = configs_for(allgather_name, configs);  // its share of the space
    return std::count(options.collectives.begin(), options.collectives.end(), allgather_name) &&
           std::find(allgather.begin(), allgather.end(), candidate.config) != allgather.end();
}

bool operator==(const JobShape& a, const JobShape& b) { return a.nodes == b.nodes && a.ppn == b.ppn; }
bool operator<(const JobShape& a, const JobShape& b) { return std::tie(a.nodes, a.ppn) < std::tie(b.nodes, b.ppn); }

std::string to_string(const JobShape& shape) { return std::to_string(shape.nodes) + "x" + std::to_string(shape.ppn); }

JobShape parse_job_shape(const std::string& text, const std::string& option) {
    const std::size_t x = text.find('x');
    const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
    const auto number = [&](const std::string& part) {
        if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), digit))
            throw UsageError(option + ": '" + text + "' is not NODESxPPN (e.g. 2x2)");
        return std::stoi(part);
    };
    if (x == std::string::npos) number("");
    const JobShape shape{number(text.substr(0, x)), number(text.substr(x + 1))};
    if (shape.nodes < 2 || shape.ppn < 1)
        throw UsageError(option + ": " + text + ": need at least 2 nodes and 1 rank per node");
    return shape;
}

namespace {

const std::vector<std::string>& shape_placeholders() {
    static const std::vector<std::string> names{"{nodes}", "{ppn}", "{ranks}"};
    return names;
}

}  // namespace

bool has_shape_placeholder(const std::vector<std::string>& words) {
    for (const std::string& word : words)
        for (const std::string& name : shape_placeholders())
            if (word.find(name) != std::string::npos) return true;
    return false;
}

std::vector<std::string> launcher_for_shape(const std::vector<std::string>& launcher, const JobShape& shape) {
    const std::vector<std::string> values{std::to_string(shape.nodes), std::to_string(shape.ppn),
                                          std::to_string(shape.ranks())};
    std::vector<std::string> words;
    for (std::string word : launcher) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::string& name = shape_placeholders()[i];
            for (std::size_t at = word.find(name); at != std::string::npos; at = word.find(name, at + values[i].size()))
                word.replace(at, name.size(), values[i]);
        }
        words.push_back(std::move(word));
    }
    if (!has_shape_placeholder(launcher))  // maint/emucluster run's options
        words.insert(words.end(), {"--nodes", values[0], "--ppn", values[1], "--"});
    return words;
}

TuneOptions at_shape(TuneOptions jobs, const std::vector<std::string>& launcher, const JobShape& shape) {
    jobs.ranks = shape.ranks();
    if (launcher.empty()) {
        jobs.nodes = shape.nodes;
        jobs.launcher.clear();
    } else {
        jobs.nodes.reset();
        jobs.launcher = launcher_for_shape(launcher, shape);
    }
    return jobs;
}

TuneOptions shape_options(const TuneOptions& options, const JobShape& shape) {
    // check_tune_options: no shape launcher means emulated nodes (--nodes)
    TuneOptions job = at_shape(options, options.shape_launcher, shape);
    job.measured = options.collectives;
    job.measured.insert(job.measured.end(), options.measured.begin(), options.measured.end());
    job.collectives.clear();
    if (job.measured_sizes.empty()) job.measured_sizes = options.sizes;
    job.shapes.clear();
    job.shape_launcher.clear();
    return job;
}

std::vector<Launch> shape_stock_launches(const TuneOptions& shape, const std::string& hiertune) {
    return reference_launches(shape, hiertune, {kDefaultAlgorithm});
}

bool has_shape(const Job& job, const JobShape& shape) {
    return job.description.ranks == shape.ranks() && job.description.nodes == shape.nodes &&
           job.description.ppn == shape.ppn;
}

std::optional<Job> find_shape_job(const std::vector<Job>& jobs, const std::string& machine, const JobShape& shape) {
    std::optional<Job> found;
    for (const Job& job : jobs)
        if (job.description.machine == machine && has_shape(job, shape) && (!found || job.id > found->id)) found = job;
    return found;
}

std::optional<Job> find_tune_job(const std::vector<Job>& jobs, const TuneOptions& options) {
    std::optional<Job> found;
    for (const Job& job : jobs) {  // by id: the last match is the newest
        if (job.description.machine != options.machine || job.description.ranks != options.ranks) continue;
        if (options.nodes && job.description.nodes != *options.nodes) continue;
        found = job;
    }
    return found;
}

std::string config_label(const Params& params) {
    if (params.empty()) return kDefaultsLabel;
    std::vector<std::string> words;
    const auto segsize = params.find("segsize");
    if (segsize != params.end()) words.push_back("segsize=" + segsize->second);
    for (const auto& [name, value] : params)
        if (name != "segsize") words.push_back(name + "=" + value);
    return join(words, " ");
}

}  // namespace hiertune
