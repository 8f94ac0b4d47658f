#include "hiertune/tree/generate.hpp"

#include "hiertune/tree/grammar.hpp"
#include "hiertune/tune/sweep.hpp"

#include "hiertune/models/analytic_han.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "hiertune/common/sizes.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/tree/collective.hpp"

namespace hiertune {

namespace {

std::string describe_job(const Job& job) {
    std::ostringstream text;
    text << "job " << job.id << " (" << job.description.machine << ", " << job.description.ranks << " ranks, "
         << job.description.nodes << " nodes, " << job.description.placement << ")";
    return text.str();
}

}  // namespace

const std::vector<std::string>& model_collectives() { return han::collective_names(); }

const std::vector<std::string>& tuned_collectives() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> names = grammar::collectives();
        for (const std::string& collective : grammar::nonblocking_collectives()) names.push_back(collective);
        return names;
    }();
    return all;
}

const std::vector<std::string>& measured_collectives() {
    static const std::vector<std::string> rest = [] {
        std::vector<std::string> names;
        for (const std::string& collective : tuned_collectives())
            if (std::find(model_collectives().begin(), model_collectives().end(), collective) == model_collectives().end())
                names.push_back(collective);
        return names;
    }();
    return rest;
}

std::string model_collectives_text() { return join(model_collectives(), ", "); }

std::optional<Job> fit_job_of(const MeasureDb& db, const Job& job) {
    for (const Job& fit : db.jobs()) {
        const JobDescription& d = fit.description;
        if (d.machine == job.description.machine && d.ranks == job.description.nodes && d.ppn == 1 &&
            !db.fit_models(fit.id).empty())
            return fit;
    }
    return std::nullopt;
}

std::vector<han::Candidate> seg_inter_candidates_of(const MeasureDb& db, const Job& job, const std::string& collective,
                                                    const std::vector<han::Candidate>& measured,
                                                    const GenerateOptions& options, std::vector<std::string>& lines) {
    if (job.description.nodes < 2) return {};
    if (const std::optional<Job> fit = fit_job_of(db, job)) {
        const std::vector<FittedModel> models = db.fit_models(fit->id);
        const analytic::ModelInputs inputs = analytic::inputs_of(db.fit_points(fit->id), db.eager_points(fit->id));
        const han::Collective coll = han::parse_collective(collective);
        std::vector<Params> targets = options.seg_targets;
        if (targets.empty()) {
            std::vector<std::uint64_t> chunks{0};
            for (const auto& [segment, gamma] : inputs.gammas.by_segment) chunks.push_back(segment);
            if (!options.segsizes.empty()) chunks = options.segsizes;
            targets = analytic::seg_inter_targets(coll, measured, chunks, options.chain_fanouts);
        }
        const std::vector<han::Candidate> derived = analytic::seg_inter_candidates(
            coll, measured, models, inputs, job.description.nodes, targets);
        lines.push_back(collective + ": " + std::to_string(derived.size()) +
                        " seg_* inter-node candidates from the analytic models of job " + std::to_string(fit->id));
        return derived;
    }
    lines.push_back(collective + ": no analytic models fitted on " + std::to_string(job.description.nodes) +
                    " nodes x 1 rank ('hiertune fit'): no seg_* inter-node candidates");
    return {};
}

csel::TreeResult build_checked_tree(const csel::Json& stock, const csel::TreeInput& input) {
    return build_checked_pair(stock, std::nullopt, input).mpir;
}

csel::TreePair build_checked_pair(const csel::Json& stock, const std::optional<csel::Json>& ch4_stock,
                                  const csel::TreeInput& input) {
    if (!ch4_stock)
        for (const auto& [collective, points] : input.choices)
            for (const csel::SampledChoice& point : points)
                if (!point.choice.stock && grammar::is_composition(point.choice.algorithm))
                    throw UsageError(collective + ": a CH4 composition was chosen, but no CH4 stock tree was given");
    csel::TreePair pair;
    try {
        pair = csel::build_tree_pair(stock, ch4_stock ? *ch4_stock : csel::Json::object(), input);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    std::vector<std::string> problems = csel::check_tree(pair.mpir.tree, csel::collectives_of(stock));
    if (pair.ch4)
        for (const std::string& problem : grammar::check_tree(pair.ch4->tree, grammar::Level::ch4))
            problems.push_back("the CH4 tree: " + problem);
    if (!problems.empty()) throw UsageError("generated tree fails its check: " + problems.front());
    return pair;
}

namespace {

// Where a forced composition runs as itself: ch4_coll.h falls back to the netmod-only
// one, silently, where its check fails, so that a point elsewhere measured that one
bool composition_can_run(const std::string& collective, const std::string& container, int comm_size, int ppn,
                         std::uint64_t msg_bytes) {
    if (grammar::whole_comm_composition(collective) == container) return true;
    if (container == "MPIDI_Allreduce_intra_composition_gamma") return comm_size == ppn;  // one node
    // the multi-leader ones: a node's blocks through its shared memory, each rank's at most
    // MPIR_CVAR_ALLGATHER_SHM_PER_RANK, MPIR_CVAR_ALLTOALL_SHM_PER_RANK (4096 B: allgather's
    // size per rank, alltoall's block per pair, as bench counts them)
    if (container == "MPIDI_Allgather_intra_composition_alpha" || container == "MPIDI_Alltoall_intra_composition_alpha")
        return ppn > 1 && msg_bytes <= 4096;
    // the node-first ones need a node comm (MPIR_Comm_is_parent_comm)
    return ppn > 1;
}

}  // namespace

std::optional<int> forced_composition(const PointKey& key) {
    if (!is_default_algorithm(key.algorithm)) return std::nullopt;
    const auto set = key.params.find(grammar::composition_cvar(key.collective));
    if (key.params.size() != 1 || set == key.params.end()) return std::nullopt;
    const std::string& value = set->second;
    int n = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
    return n;
}

std::optional<csel::Choice> composition_of_point(const PointKey& key) {
    const std::optional<int> n = forced_composition(key);
    if (!n) return std::nullopt;
    const std::optional<std::string> container = grammar::composition_container(key.collective, *n);
    if (!container) return std::nullopt;
    return csel::Choice::container(*container);
}

bool composition_ran(const PointKey& key, int comm_size, int ppn) {
    const std::optional<csel::Choice> choice = composition_of_point(key);
    return choice && composition_can_run(key.collective, choice->algorithm, comm_size, ppn, key.msg_bytes);
}

std::optional<csel::Choice> choice_of_point(const PointKey& key) {
    if (is_default_algorithm(key.algorithm)) {
        if (!key.params.empty()) return std::nullopt;
        return csel::Choice::stock_tree();
    }
    if (const grammar::Algorithm* plugin = grammar::find(key.collective, key.algorithm)) {
        // the plugin's algorithms: each CVAR the point set becomes its JSON parameter
        Params params;
        for (const auto& [cvar, value] : key.params) {
            const auto param = std::find_if(plugin->params.begin(), plugin->params.end(),
                                            [&](const grammar::Param& p) { return plugin->cvar(p) == cvar; });
            if (param == plugin->params.end() || !grammar::valid(*plugin, param->name, value)) return std::nullopt;
            params[param->name] = value;
        }
        return csel::Choice::container(plugin->container, params);
    }
    // MPICH's own: the tree gives every call parameter, the point's CVAR value or its default
    const std::string name = csel::container_name(key.collective, key.algorithm);
    if (!csel::known_container(key.collective, name)) return std::nullopt;
    // a parameter the tree cannot give would reach the algorithm uninitialised
    if (!grammar::mpich_unread_params(name).empty()) return std::nullopt;
    const std::vector<grammar::MpichCallParam> call = grammar::mpich_call_params(name);
    for (const auto& [cvar, value] : key.params)
        if (std::none_of(call.begin(), call.end(), [&](const auto& p) { return p.cvar == cvar; }))
            return std::nullopt;
    Params params;
    for (const grammar::MpichCallParam& p : call) {
        const auto set = key.params.find(p.cvar);
        params[p.name] = set == key.params.end() ? p.default_value : set->second;
    }
    return csel::Choice::container(name, params);
}

bool layout_meets(const std::string& container, int comm_size, int ppn, bool node_consecutive) {
    const bool pow2 = comm_size > 0 && (comm_size & (comm_size - 1)) == 0;
    // MPII_Comm_is_node_consecutive: ranks numbered node by node on 2 .. size-1 nodes
    const bool consecutive = node_consecutive && ppn > 1 && ppn < comm_size;
    for (const std::string& condition : grammar::requirements(container))
        if ((condition == "comm_size=pow2" && !pow2) || (condition == "is_node_consecutive=yes" && !consecutive))
            return false;
    return true;
}

bool tree_can_run(const PointKey& key, int comm_size, int ppn, bool node_consecutive) {
    const std::optional<csel::Choice> choice = choice_of_point(key);
    if (!choice) return false;
    // MPIR_Comm_is_parent_comm fails with one rank per node: MPICH builds no node comm
    if (key.algorithm == "smp" && ppn == 1) return false;
    if (!choice->stock && !layout_meets(choice->algorithm, comm_size, ppn, node_consecutive)) return false;
    // count >= comm_ptr->coll.pof2 (count = bytes of MPI_UNSIGNED_CHAR)
    std::uint64_t pof2 = 1;
    while (pof2 * 2 <= static_cast<std::uint64_t>(comm_size)) pof2 *= 2;
    if (((key.collective == grammar::Collective::reduce && key.algorithm == "reduce_scatter_gather") ||
         (key.collective == grammar::Collective::allreduce && key.algorithm == "reduce_scatter_allgather")) &&
        key.msg_bytes < pof2)
        return false;
    // displs-ordered (MPII_Iallgatherv_is_displs_ordered): bench's displacements are in
    // reversed rank order, so the forced recexch schedules fell back, and a tree, which
    // cannot test the order, would call them on any displacements
    if (key.collective == grammar::Collective(grammar::Collective::allgatherv, true) &&
        key.algorithm.rfind("tsp_recexch_", 0) == 0)
        return false;
    // in place only (coll_algorithms.txt's "restrictions: inplace": alltoall's and
    // alltoallv's pairwise_sendrecv_replace, their schedules' sched_inplace, ialltoallv's
    // tsp_inplace): bench's sendbuf never is MPI_IN_PLACE, so the forced ones fell back to
    // MPICH's selection, and a tree would call them on any sendbuf
    // (MPIR_Alltoall_intra_pairwise_sendrecv_replace asserts)
    if ((grammar::is_kind(key.collective, grammar::Collective::alltoall) ||
         grammar::is_kind(key.collective, grammar::Collective::alltoallv)) &&
        (key.algorithm == "pairwise_sendrecv_replace" || key.algorithm == "sched_inplace" ||
         key.algorithm == "tsp_inplace"))
        return false;
    return true;
}

std::optional<csel::Choice> tree_choice_of_point(const PointKey& key, int comm_size, int ppn, bool node_consecutive) {
    if (const std::optional<csel::Choice> composition = composition_of_point(key))
        return composition_ran(key, comm_size, ppn) ? composition : std::nullopt;
    return tree_can_run(key, comm_size, ppn, node_consecutive) ? choice_of_point(key) : std::nullopt;
}

std::pair<int, int> tree_position(const JobDescription& job) {
    return {job.ranks, (job.ranks + job.nodes - 1) / job.nodes};
}

bool node_consecutive(const JobDescription& job) { return job.placement == "block"; }

std::vector<csel::SampledChoice> best_measured(const Job& job, const std::vector<StoredPoint>& points,
                                               const std::string& collective, std::size_t* skipped) {
    const auto [comm_size, ppn] = tree_position(job.description);
    std::map<std::uint64_t, std::pair<const StoredPoint*, csel::Choice>> best;
    std::size_t not_expressible = 0;
    for (const StoredPoint& point : points) {
        if (point.key.collective != collective) continue;
        const std::optional<csel::Choice> choice = choice_of_point(point.key);
        if (!choice || !tree_can_run(point.key, comm_size, ppn, node_consecutive(job.description))) {
            ++not_expressible;
            continue;
        }
        const auto found = best.find(point.key.msg_bytes);
        const auto rank = [](const StoredPoint& p, const csel::Choice& c) {
            return std::make_tuple(p.summary.median, p.key.params.size(), c.describe());
        };
        if (found == best.end() || rank(point, *choice) < rank(*found->second.first, found->second.second))
            best[point.key.msg_bytes] = {&point, *choice};
    }
    if (skipped) *skipped += not_expressible;
    std::vector<csel::SampledChoice> result;
    for (const auto& [bytes, entry] : best) result.push_back({comm_size, ppn, bytes, entry.second});
    return result;
}

std::vector<han::Candidate> candidates_from_tasks(const std::vector<StoredTask>& tasks, const std::string& collective) {
    // (config text, segsize) -> candidate; per task, leaders' medians or the max
    std::map<std::pair<std::string, std::uint64_t>, han::Candidate> by_key;
    // allgather's sg per config text, by bytes per rank (its key's seg_bytes)
    std::map<std::string, std::map<std::uint64_t, std::vector<double>>> gathers;
    const bool allgather = collective == grammar::Collective::allgather;
    for (const StoredTask& task : tasks) {
        if (task.key.collective != collective) continue;
        std::vector<double> per_leader;
        std::optional<double> max_value;
        for (const TaskTiming& timing : task.timings) {  // ordered by leader, -1 first
            if (timing.leader == kMaxOverLeaders)
                max_value = timing.summary.median;
            else
                per_leader.push_back(timing.summary.median);
        }
        std::vector<double> costs = per_leader.empty() ? std::vector<double>{*max_value} : per_leader;
        if (allgather && task.key.task == han::kGatherTask) {
            gathers[canonical_params(task.key.config)][task.key.seg_bytes] = std::move(costs);
            continue;
        }
        han::Candidate& candidate = by_key[{canonical_params(task.key.config), task.key.seg_bytes}];
        candidate.config = task.key.config;
        candidate.segsize = task.key.seg_bytes;
        candidate.costs[task.key.task] = std::move(costs);
    }
    std::vector<han::Candidate> result;
    for (auto& [key, candidate] : by_key) {
        if (const auto found = gathers.find(key.first); found != gathers.end()) candidate.gather_costs = found->second;
        // what the configuration's shorter segments cost (by_key is ordered by segment size within a config)
        for (const auto& [shorter_key, shorter] : by_key) {
            if (shorter_key.first != key.first || shorter_key.second >= key.second) continue;
            candidate.shorter_segments[shorter_key.second] = shorter.costs;
        }
        result.push_back(candidate);
    }
    return result;
}

Params candidate_params(const han::Candidate& candidate) {
    Params params = candidate.config;
    params["segsize"] = std::to_string(candidate.segsize);
    return params;
}

std::map<std::uint64_t, StockPoint> best_stock_points(const std::vector<StoredPoint>& points,
                                                      const std::string& collective, int comm_size, int ppn,
                                                      bool node_consecutive) {
    std::map<std::uint64_t, StockPoint> selection, forced;
    for (const StoredPoint& point : points) {
        if (point.key.collective != collective || grammar::find(collective, point.key.algorithm)) continue;
        const std::optional<csel::Choice> choice = tree_choice_of_point(point.key, comm_size, ppn, node_consecutive);
        if (!choice) continue;
        StockPoint candidate{*choice, choice->describe(), point.summary.median, point.summary.relative_half_width()};
        auto& best = choice->stock ? selection : forced;
        const auto found = best.find(point.key.msg_bytes);
        // ties by name, so that every run picks the same
        if (found == best.end() || std::tie(candidate.time, candidate.label) <
                                       std::tie(found->second.time, found->second.label))
            best[point.key.msg_bytes] = std::move(candidate);
    }
    // a forced algorithm replaces MPICH's selection only when it is clearly faster
    for (auto& [bytes, point] : forced) {
        const auto own = selection.find(bytes);
        if (own == selection.end() || point.time < (1 - kStockMargin) * own->second.time)
            selection[bytes] = std::move(point);
    }
    return selection;
}

csel::Choice hier_container(const std::string& collective, const Params& params) {
    return csel::Choice::container(csel::container_name(collective, "hier"), params);
}

bool hier_choice(const std::string& collective, const csel::Choice& choice) {
    return choice.algorithm == csel::container_name(collective, "hier");
}

std::optional<ModelPick> model_pick(const han::Predictions& predictions, const std::optional<StockPoint>& stock,
                                    const han::ModelOptions& options) {
    ModelPick pick;
    pick.prediction = han::best_candidate(predictions, options);
    if (pick.prediction && (!stock || pick.prediction->time < stock->time))
        pick.choice =
            hier_container(han::to_string(predictions.collective), candidate_params(*pick.prediction->candidate));
    else if (stock)
        pick.choice = stock->choice;
    else
        return std::nullopt;
    return pick;
}

bool close_call(const ModelPick& pick, const std::optional<StockPoint>& stock) {
    if (!pick.prediction || !stock || !(stock->time > 0) || !(pick.prediction->time > 0)) return false;
    const double ratio = pick.prediction->time / stock->time;
    return ratio <= kCloseCallFactor && ratio >= 1 / kCloseCallFactor;
}

std::vector<han::Prediction> tied_candidates(const han::Predictions& predictions, const ModelPick& pick) {
    if (!pick.prediction) return {};
    std::vector<han::Prediction> tied{*pick.prediction};
    for (std::size_t i = 0; i < predictions.time.size(); ++i) {
        const han::Candidate& candidate = (*predictions.candidates)[i];
        const std::optional<double>& time = predictions.time[i];
        if (&candidate != pick.prediction->candidate && time && *time <= pick.prediction->time * kTieFactor)
            tied.push_back({&candidate, *time});
    }
    return tied;
}

ModelPick settle_close_call(ModelPick pick, const std::string& collective, const std::optional<StockPoint>& stock,
                            const std::vector<std::pair<Params, Summary>>& timed) {
    const auto fastest = std::min_element(timed.begin(), timed.end(), [](const auto& a, const auto& b) {
        return a.second.median < b.second.median;
    });
    const csel::Choice hier = hier_container(collective, fastest->first);
    if (!stock) {
        pick.choice = hier;
        return pick;
    }
    const double noise = fastest->second.relative_half_width() + stock->noise;
    const bool model_says_hier = hier_choice(collective, pick.choice);
    if (fastest->second.median * (1 + noise) < stock->time)
        pick.choice = hier;
    else if (stock->time * (1 + noise) < fastest->second.median)
        pick.choice = stock->choice;
    else
        pick.choice = model_says_hier ? hier : stock->choice;
    return pick;
}

std::optional<csel::Choice> model_midpoint(const std::string& collective, const std::vector<han::Candidate>& candidates,
                                           int nodes, int ppn, std::uint64_t msg_bytes,
                                           const han::ModelOptions& options) {
    const auto prediction =
        han::best_candidate(han::parse_collective(collective), candidates, nodes, msg_bytes, options, ppn);
    if (!prediction) return std::nullopt;
    return hier_container(collective, candidate_params(*prediction->candidate));
}

std::vector<std::string> tree_summary_lines(const csel::TreeResult& tree) {
    std::vector<std::string> lines;
    for (const std::string& collective : tree.unchanged)
        lines.push_back(collective + ": stock is best everywhere, stock tree kept");
    lines.push_back(std::to_string(tree.message_rules) + " message-size rules written");
    for (const csel::Midpoint& m : tree.wanted)
        lines.push_back("worth measuring: " + m.collective + " " + std::to_string(m.msg_bytes) + " bytes at " +
                        std::to_string(m.comm_size) + " ranks, ppn " + std::to_string(m.ppn) +
                        " (midpoint where the choice changes)");
    return lines;
}

namespace {

std::vector<Job> selected_jobs(const MeasureDb& db, const GenerateOptions& options) {
    const std::vector<Job> all = db.jobs();
    if (options.jobs.empty()) return all;
    std::vector<Job> result;
    for (JobId id : options.jobs) {
        const auto found = std::find_if(all.begin(), all.end(), [&](const Job& job) { return job.id == id; });
        if (found == all.end()) throw UsageError("no job " + std::to_string(id) + " in " + db.path() + " (see 'db list')");
        result.push_back(*found);
    }
    return result;
}

std::vector<std::string> generated_collectives(const GenerateOptions& options, bool model) {
    std::vector<std::string> collectives = options.collectives;
    if (collectives.empty()) collectives = model ? model_collectives() : tuned_collectives();
    for (const std::string& collective : collectives) {
        if (std::find(tuned_collectives().begin(), tuned_collectives().end(), collective) == tuned_collectives().end())
            throw UsageError("collective '" + collective + "': generate tunes " + name_list(tuned_collectives()));
        if (model && std::find(model_collectives().begin(), model_collectives().end(), collective) ==
                         model_collectives().end())
            throw UsageError("the task model covers " + model_collectives_text() + "; use --from measured for " +
                             collective);
    }
    return collectives;
}

// Model only: per (collective, comm_size, ppn), what a midpoint query needs.
struct ModelContext {
    std::vector<han::Candidate> candidates;
    int nodes = 0;
    int ppn = 0;
    bool has_stock = false;
};
using ModelContexts = std::map<std::tuple<std::string, int, int>, ModelContext>;

// The job's candidates of the collective that pass the filter: from its task
// benchmarks, and the seg_* ones derived from them.
std::vector<han::Candidate> model_candidates(const MeasureDb& db, const Job& job, const std::string& collective,
                                             const GenerateOptions& options, std::vector<std::string>& lines) {
    const auto passes = [&](const han::Candidate& candidate) {
        return !options.candidate_filter || options.candidate_filter(candidate);
    };
    std::vector<han::Candidate> candidates = candidates_from_tasks(db.tasks(job.id), collective);
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](const han::Candidate& candidate) { return !passes(candidate); }),
                     candidates.end());
    if (candidates.empty() || !grammar::takes_seg_submodules(collective)) return candidates;
    for (han::Candidate& candidate : seg_inter_candidates_of(db, job, collective, candidates, options, lines))
        if (passes(candidate)) candidates.push_back(std::move(candidate));
    return candidates;
}

// The model's pick at each size (--sizes, else the stock's measured sizes, else
// the default range); records the job's context for midpoint queries.
std::vector<csel::SampledChoice> model_choices(const MeasureDb& db, const Job& job,
                                               const std::vector<StoredPoint>& points, const std::string& collective,
                                               const GenerateOptions& options, std::vector<std::string>& lines,
                                               ModelContexts& contexts) {
    const auto position = tree_position(job.description);
    ModelContext context;
    context.candidates = model_candidates(db, job, collective, options, lines);
    context.nodes = job.description.nodes;
    context.ppn = position.second;
    if (context.candidates.empty()) return {};
    const std::map<std::uint64_t, StockPoint> stock =
        best_stock_points(points, collective, position.first, position.second, node_consecutive(job.description));
    context.has_stock = !stock.empty();
    std::vector<std::uint64_t> sizes = options.sizes;
    if (sizes.empty())
        for (const auto& [bytes, point] : stock) sizes.push_back(bytes);
    if (sizes.empty()) sizes = osu_size_range(kDefaultSizeRange);
    std::vector<csel::SampledChoice> best;
    for (std::uint64_t bytes : sizes) {
        const auto stock_found = stock.find(bytes);
        const std::optional<ModelPick> pick = model_pick(
            han::predict_all(han::parse_collective(collective), context.candidates, context.nodes, bytes, context.ppn),
            stock_found == stock.end() ? std::nullopt : std::optional<StockPoint>(stock_found->second),
            options.model);
        if (!pick) continue;  // nothing known at this size
        best.push_back({position.first, position.second, bytes, pick->choice});
    }
    contexts[{collective, position.first, position.second}] = std::move(context);
    return best;
}

std::string job_line(const std::string& collective, const Job& job, const std::vector<csel::SampledChoice>& best) {
    const auto not_stock = std::count_if(best.begin(), best.end(), [](const auto& p) { return !p.choice.stock; });
    return collective + ": " + describe_job(job) + ": " + std::to_string(best.size()) + " sizes, " +
           std::to_string(not_stock) + " not stock";
}

// The jobs' choices of one collective into input (none: the stock tree is kept).
void sample_collective(const MeasureDb& db, const std::vector<Job>& jobs, const std::string& collective,
                       const GenerateOptions& options, GenerateReport& report, csel::TreeInput& input,
                       ModelContexts& contexts) {
    const bool model = options.source == GenerateSource::model;
    std::map<std::pair<int, int>, JobId> position_owner;
    std::vector<csel::SampledChoice>& sampled = input.choices[collective];
    std::size_t skipped = 0;
    for (const Job& job : jobs) {
        const auto position = tree_position(job.description);
        const std::vector<StoredPoint> points = db.points(job.id);
        const std::vector<csel::SampledChoice> best =
            model ? model_choices(db, job, points, collective, options, report.lines, contexts)
                  : best_measured(job, points, collective, &skipped);
        if (best.empty()) continue;
        const auto [owner, fresh] = position_owner.emplace(position, job.id);
        if (!fresh)
            throw UsageError("jobs " + std::to_string(owner->second) + " and " + std::to_string(job.id) +
                             " both have " + std::to_string(position.first) + " ranks and average ppn " +
                             std::to_string(position.second) + ": the tree cannot tell them apart; pick one with --job");
        report.lines.push_back(job_line(collective, job, best));
        sampled.insert(sampled.end(), best.begin(), best.end());
    }
    if (skipped)
        report.lines.push_back(collective + ": " + std::to_string(skipped) +
                               " measured points skipped (parameters or algorithms a tree cannot express)");
    if (sampled.empty()) {
        report.lines.push_back(collective + ": no data, stock tree kept");
        input.choices.erase(collective);
    }
}

}  // namespace

GenerateReport generate_tree(const MeasureDb& db, const csel::Json& stock, const GenerateOptions& options) {
    if (options.source == GenerateSource::analytic) return generate_analytic_tree(db, stock, options);
    const bool model = options.source == GenerateSource::model;
    const std::vector<std::string> collectives = generated_collectives(options, model);
    const std::vector<Job> jobs = selected_jobs(db, options);

    GenerateReport report;
    csel::TreeInput input;
    ModelContexts contexts;
    for (const std::string& collective : collectives)
        sample_collective(db, jobs, collective, options, report, input, contexts);
    if (input.choices.empty())
        throw UsageError(std::string("nothing to generate from in ") + db.path() + ": no " +
                         (model ? "task benchmarks" : "measured points") + " for the requested collectives");

    if (model)
        input.requery = [&](const std::string& collective, int comm_size, int ppn,
                            std::uint64_t bytes) -> std::optional<csel::Choice> {
            const auto found = contexts.find({collective, comm_size, ppn});
            if (found == contexts.end() || found->second.has_stock) return std::nullopt;  // stock not measured there
            return model_midpoint(collective, found->second.candidates, found->second.nodes, found->second.ppn, bytes,
                                  options.model);
        };

    report.tree = build_checked_tree(stock, input);
    const std::vector<std::string> summary = tree_summary_lines(report.tree);
    report.lines.insert(report.lines.end(), summary.begin(), summary.end());
    return report;
}

}  // namespace hiertune
