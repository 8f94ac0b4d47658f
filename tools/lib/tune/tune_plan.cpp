#include "hiertune/tune/tune_plan.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "hiertune/tree/grammar.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

std::vector<han::Candidate> search_space_candidates(const std::vector<han::Candidate>& all,
                                                    const std::vector<std::pair<Params, std::uint64_t>>& space) {
    std::vector<han::Candidate> candidates;
    for (const han::Candidate& candidate : all) {
        const auto in_space = std::find_if(space.begin(), space.end(), [&](const auto& entry) {
            return entry.first == candidate.config && entry.second == candidate.segsize;
        });
        if (in_space != space.end()) candidates.push_back(candidate);
    }
    return candidates;
}

// What hier's pick at this size counts: segments, or for allgather the pieces
// a leader receives, (N-1) blocks of ppn*m bytes.
std::uint64_t verified_segments(han::Collective collective, std::uint64_t bytes, std::uint64_t segsize, int nodes,
                                int ppn) {
    const std::uint64_t segments = han::segment_count(han::pipelined_bytes(collective, bytes, ppn), segsize);
    return collective == han::Collective::allgather ? static_cast<std::uint64_t>(nodes - 1) * segments : segments;
}

// The measured points of a collective without a task model that a tree can run
// at the plan's position: MPICH's selection by size, and every other choice (hier's
// configurations labelled by config_label, MPICH's forced algorithms by describe).
void measured_options(const TunePlan& plan, const std::string& collective, const std::vector<StoredPoint>& points,
                      std::map<std::uint64_t, Summary>& stock, std::vector<MeasuredOption>& options) {
    for (const StoredPoint& point : points) {
        if (point.key.collective != collective) continue;
        const std::optional<csel::Choice> choice =
            tree_choice_of_point(point.key, plan.comm_size, plan.ppn, plan.node_consecutive);
        if (!choice) continue;
        if (choice->stock) {
            stock[point.key.msg_bytes] = point.summary;
            continue;
        }
        const std::string label = grammar::find(choice->algorithm) ? config_label(choice->params) : choice->describe();
        auto found = std::find_if(options.begin(), options.end(), [&](const auto& o) { return o.label == label; });
        if (found == options.end()) found = options.insert(options.end(), MeasuredOption{*choice, label, {}});
        found->times[point.key.msg_bytes] = point.summary;
    }
}

// The label of the configuration with the smallest of segsizes that is the same run as
// params at bytes and ppn (sweep.hpp: same_run), when that is not params itself; else empty.
std::string same_run_label(const std::string& collective, std::uint64_t bytes, int ppn, const Params& params,
                           const std::vector<std::uint64_t>& segsizes) {
    const std::optional<std::uint64_t> representative =
        same_run_representative(collective, bytes, ppn, std::stoull(params.at("segsize")), segsizes);
    if (!representative) return {};
    Params timed = params;
    timed["segsize"] = std::to_string(*representative);
    return config_label(timed);
}

// What step 4 expects of a pick: the plugin's algorithm (its segments filled in by the
// caller), one of MPICH's algorithms reaching the whole comm where CH4 composes the
// collective (whole_comm=1), or anything (MPICH's selection, a CH4 composition).
VerifyCase verify_case_of(const std::string& collective, std::uint64_t bytes, const csel::Choice& choice) {
    const bool hier = !choice.stock && grammar::find(choice.algorithm);
    const bool mpich_algorithm = !choice.stock && !hier && !grammar::is_composition(choice.algorithm);
    return VerifyCase{collective, bytes, hier, 0, mpich_algorithm && csel::device_composes(collective)};
}

// The pick, case and verify case of a collective without a task model at one size.
void add_measured_case(TunePlan& plan, const std::string& collective, std::uint64_t bytes,
                       const MeasuredOption* pick) {
    const csel::Choice choice = pick ? pick->choice : csel::Choice::stock_tree();
    CollectivePlan& own = plan.collectives[collective];
    own.stock_measured = true;
    own.picks.push_back({plan.comm_size, plan.ppn, bytes, choice});
    SizeCase c;
    c.collective = collective;
    c.msg_bytes = bytes;
    c.pick = pick ? pick->label : kStockLabel;
    c.measured_pick = true;
    for (const Params& config : measured_configs(collective))
        c.configs.push_back(ConfigTime{config_label(config), std::nullopt, std::nullopt});
    plan.cases.push_back(std::move(c));
    plan.verify.push_back(verify_case_of(collective, bytes, choice));
}

// The cases, picks and verify cases of a collective without a task model at the sizes
// of its timed group: where MPICH selects it by bytes (csel::message_size_key) each
// size's own measured_pick, else one measured_pick for every size.
void plan_measured(TunePlan& plan, const std::string& collective, const std::vector<std::uint64_t>& sizes,
                   const std::vector<StoredPoint>& points) {
    std::map<std::uint64_t, Summary> stock;
    std::vector<MeasuredOption> options;
    measured_options(plan, collective, points, stock, options);
    // only what was measured at every size competes
    options.erase(std::remove_if(options.begin(), options.end(),
                                 [&](const MeasuredOption& o) {
                                     return std::any_of(sizes.begin(), sizes.end(),
                                                        [&](std::uint64_t b) { return !o.times.count(b); });
                                 }),
                  options.end());
    bool complete = true;  // MPICH's selection measured at every size
    for (std::uint64_t bytes : sizes)
        if (!stock.count(bytes)) {
            plan.unpredicted.push_back(collective + " " + std::to_string(bytes) + " B");
            complete = false;
        }
    if (!complete) return;
    if (!csel::message_size_key(collective)) {
        const MeasuredOption* pick = measured_pick(stock, options);
        for (std::uint64_t bytes : sizes) add_measured_case(plan, collective, bytes, pick);
        return;
    }
    for (std::uint64_t bytes : sizes) {
        std::vector<MeasuredOption> at_size;
        for (const MeasuredOption& o : options) at_size.push_back({o.choice, o.label, {{bytes, o.times.at(bytes)}}});
        add_measured_case(plan, collective, bytes, measured_pick({{bytes, stock.at(bytes)}}, at_size));
    }
}

}  // namespace

std::set<std::pair<std::string, std::uint64_t>> stock_cases(const TunePlan& plan) {
    std::set<std::pair<std::string, std::uint64_t>> stock;
    for (const SizeCase& c : plan.cases)
        if (c.pick == kStockLabel) stock.insert({c.collective, c.msg_bytes});
    return stock;
}

void mark_same_choices(const TunePlan& plan, TreeTimingReport& timing, const std::vector<RevertedPick>& reverted) {
    const std::set<std::pair<std::string, std::uint64_t>> stock = stock_cases(plan);
    for (TreeTimingRow& row : timing.rows) {
        row.same_choice = stock.count({row.collective, row.msg_bytes}) > 0;
        row.put_back = std::any_of(reverted.begin(), reverted.end(), [&](const RevertedPick& r) {
            return r.collective == row.collective && r.msg_bytes == row.msg_bytes;
        });
        row.same_choice = row.same_choice && !row.put_back;
    }
}

const MeasuredOption* measured_pick(const std::map<std::uint64_t, Summary>& stock,
                                    const std::vector<MeasuredOption>& options) {
    const MeasuredOption* best = nullptr;
    double best_log_ratio = 0;
    for (const MeasuredOption& option : options) {
        bool slower = false, faster = false;
        double log_ratio = 0;
        for (const auto& [bytes, own] : stock) {
            const auto time = option.times.find(bytes);
            if (time == option.times.end()) return nullptr;  // not measured everywhere: no pick
            const double noise = own.relative_half_width() + time->second.relative_half_width();
            slower = slower || time->second.median > own.median * (1 + noise);
            faster = faster || time->second.median * (1 + std::max(noise, kStockMargin)) < own.median;
            log_ratio += std::log(time->second.median / own.median);
        }
        if (slower || !faster || (best && log_ratio >= best_log_ratio)) continue;
        best = &option;
        best_log_ratio = log_ratio;
    }
    return best;
}

namespace {

using Space = std::vector<std::pair<Params, std::uint64_t>>;  // configurations x segment sizes
// medians by (collective, size, label): hier's by configuration (config_label), MPICH's
// (its selection, its algorithms and its CH4 compositions, step 1) by choice (describe)
using Medians = std::map<std::tuple<std::string, std::uint64_t, std::string>, Summary>;

// The medians of the points of `collectives` at the plan's tree position; stock_labels
// (if given): MPICH's labels per collective and size.
Medians measured_medians(const TunePlan& plan, const std::set<std::string>& collectives,
                         const std::vector<StoredPoint>& points,
                         std::map<std::pair<std::string, std::uint64_t>, std::vector<std::string>>* stock_labels) {
    Medians measured;
    for (const StoredPoint& point : points) {
        const std::string& collective = point.key.collective;
        if (!collectives.count(collective)) continue;
        const std::optional<csel::Choice> choice = choice_of_point(point.key);
        const grammar::Algorithm* hier = grammar::hier_algorithm(collective);
        if (choice && hier && choice->algorithm == hier->container) {
            measured[{collective, point.key.msg_bytes, config_label(choice->params)}] = point.summary;
        } else if (const std::optional<csel::Choice> mpich =
                       tree_choice_of_point(point.key, plan.comm_size, plan.ppn, plan.node_consecutive);
                   mpich && !grammar::find(collective, point.key.algorithm)) {
            measured[{collective, point.key.msg_bytes, mpich->describe()}] = point.summary;
            if (stock_labels) (*stock_labels)[{collective, point.key.msg_bytes}].push_back(mpich->describe());
        }
    }
    return measured;
}

// A pick as the cases name it (SizeCase::pick): hier's configuration, or the choice.
std::string pick_label(const std::string& collective, const csel::Choice& choice) {
    return hier_choice(collective, choice) ? config_label(choice.params) : choice.describe();
}

// The model's pick at one size from its predictions there; a close call (generate.hpp)
// settled where all its candidates are measured (each under its timed segment size), else
// filed to be timed.
std::optional<ModelPick> settled_pick(TunePlan& plan, const han::Predictions& predicted,
                                      const std::optional<StockPoint>& stock, const Medians& medians,
                                      const TuneOptions& options) {
    const std::string collective = han::to_string(predicted.collective);
    const std::uint64_t bytes = predicted.msg_bytes;
    std::optional<ModelPick> pick = model_pick(predicted, stock, options.model);
    if (!pick) return pick;
    const std::vector<han::Prediction> tied = tied_candidates(predicted, *pick);
    if (!close_call(*pick, stock) && !(hier_choice(collective, pick->choice) && tied.size() > 1)) return pick;
    CloseCall call{collective, bytes, {}, stock ? stock->choice.describe() : "", stock ? stock->time : 0, ""};
    std::vector<std::pair<Params, Summary>> timed;
    for (const han::Prediction& prediction : tied) {
        const han::Candidate& candidate = *prediction.candidate;
        CloseCallCandidate entry{candidate.config, candidate.segsize,
                                 same_run_representative(collective, bytes, plan.ppn, candidate.segsize, options.segsizes)
                                     .value_or(candidate.segsize),
                                 prediction.time, std::nullopt};
        const bool same_run_listed = std::any_of(call.candidates.begin(), call.candidates.end(), [&](const auto& other) {
            return other.config == entry.config && other.timed_segsize == entry.timed_segsize;
        });
        if (same_run_listed) continue;  // one run: its first (the better predicted) stands for it
        Params params = candidate.config;
        params["segsize"] = std::to_string(entry.timed_segsize);
        if (const auto time = medians.find({collective, bytes, config_label(params)}); time != medians.end()) {
            entry.measured_s = time->second.median;
            timed.emplace_back(candidate_params(candidate), time->second);
        }
        call.candidates.push_back(std::move(entry));
    }
    if (timed.size() == call.candidates.size()) {
        pick = settle_close_call(*pick, collective, stock, timed);
        call.chosen = pick_label(collective, pick->choice);
    }
    plan.close_calls.push_back(std::move(call));
    return pick;
}

// The model's case at one size: the pick, every configuration of the space with its
// prediction, the verify case.
void plan_model_case(TunePlan& plan, const std::string& collective, std::uint64_t bytes,
                     const std::optional<StockPoint>& stock, const Space& space, const Medians& medians,
                     const TuneOptions& options) {
    const han::Collective coll = han::parse_collective(collective);
    CollectivePlan& own = plan.collectives[collective];
    const han::Predictions predicted = han::predict_all(coll, own.candidates, plan.nodes, bytes, plan.ppn);
    const std::optional<ModelPick> pick = settled_pick(plan, predicted, stock, medians, options);
    if (!pick) {
        plan.unpredicted.push_back(collective + " " + std::to_string(bytes) + " B");
        return;
    }
    own.picks.push_back({plan.comm_size, plan.ppn, bytes, pick->choice});
    SizeCase c;
    c.collective = collective;
    c.msg_bytes = bytes;
    const bool hier = hier_choice(collective, pick->choice);
    c.pick = pick_label(collective, pick->choice);
    for (const auto& [config, segsize] : space) {
        Params params = config;
        params["segsize"] = std::to_string(segsize);
        ConfigTime entry;
        entry.config = config_label(params);
        const auto candidate = std::find_if(own.candidates.begin(), own.candidates.end(), [&](const auto& cand) {
            return cand.config == config && cand.segsize == segsize;
        });
        if (candidate != own.candidates.end()) entry.predicted = predicted.of(*candidate);
        entry.same_run_as = same_run_label(collective, bytes, plan.ppn, params, options.segsizes);
        c.configs.push_back(std::move(entry));
    }
    VerifyCase v = verify_case_of(collective, bytes, pick->choice);
    if (hier) {
        const std::uint64_t segsize = std::stoull(pick->choice.params.at("segsize"));
        v.segments = verified_segments(coll, bytes, segsize, plan.nodes, plan.ppn);
    }
    plan.verify.push_back(v);
    plan.cases.push_back(std::move(c));
}

}  // namespace

TunePlan plan_tune(const TuneOptions& options, const std::vector<StoredTask>& tasks,
                   const std::vector<StoredPoint>& points, const JobDescription& job,
                   const std::map<std::string, std::vector<han::Candidate>>& seg_candidates) {
    const std::vector<Params> configs = parse_task_configs(options.configs);
    TunePlan plan;
    const int nodes = job.nodes;
    plan.nodes = nodes;
    plan.node_consecutive = node_consecutive(job);
    plan.comm_size = options.ranks;
    plan.ppn = (options.ranks + nodes - 1) / std::max(nodes, 1);  // the tree's comm_avg_ppn
    plan.model = options.model;
    const Medians medians =
        measured_medians(plan, {options.collectives.begin(), options.collectives.end()}, points, nullptr);
    for (const std::string& collective : options.collectives) {
        Space space;
        for (const Params& config : configs_for(collective, configs, &plan.skipped))
            for (std::uint64_t segsize : options.segsizes) space.emplace_back(config, segsize);
        std::vector<han::Candidate> all = candidates_from_tasks(tasks, collective);
        if (const auto seg = seg_candidates.find(collective); seg != seg_candidates.end())
            all.insert(all.end(), seg->second.begin(), seg->second.end());
        CollectivePlan& own = plan.collectives[collective];
        own.candidates = search_space_candidates(all, space);

        const std::map<std::uint64_t, StockPoint> best_stock =
            best_stock_points(points, collective, plan.comm_size, plan.ppn, plan.node_consecutive);
        own.stock_measured = !best_stock.empty();
        for (std::uint64_t bytes : sizes_of(options, collective)) {
            const auto stock_found = best_stock.find(bytes);
            plan_model_case(plan, collective, bytes,
                            stock_found == best_stock.end() ? std::nullopt
                                                            : std::optional<StockPoint>(stock_found->second),
                            space, medians, options);
        }
    }
    for (const TimedGroup& group : timed_groups(options))
        for (const std::string& collective : group.collectives)
            if (std::count(options.measured.begin(), options.measured.end(), collective))
                plan_measured(plan, collective, group.sizes, points);
    measure_plan(plan, points);
    return plan;
}

void measure_plan(TunePlan& plan, const std::vector<StoredPoint>& points) {
    std::set<std::string> collectives;
    for (const auto& [collective, own] : plan.collectives) collectives.insert(collective);
    std::map<std::pair<std::string, std::uint64_t>, std::vector<std::string>> stock_labels;
    const Medians measured = measured_medians(plan, collectives, points, &stock_labels);
    for (SizeCase& c : plan.cases) {
        for (const std::string& label : stock_labels[{c.collective, c.msg_bytes}]) {
            const bool known = std::any_of(c.configs.begin(), c.configs.end(),
                                           [&](const ConfigTime& config) { return config.config == label; });
            if (!known) c.configs.push_back(ConfigTime{label, std::nullopt, std::nullopt});
        }
        for (ConfigTime& config : c.configs) {
            const std::string& run = config.same_run_as.empty() ? config.config : config.same_run_as;
            const auto time = measured.find({c.collective, c.msg_bytes, run});
            if (time == measured.end()) continue;
            config.measured = time->second.median;
            config.noise = time->second.relative_half_width();
        }
    }
}

std::vector<std::string> close_call_lines(const TunePlan& plan) {
    if (plan.close_calls.empty()) return {};
    std::ostringstream head;
    head << "close calls (the model's prediction within " << kCloseCallFactor
         << "x of MPICH's measured best either way, or hier candidates predicted within " << kTieFactor
         << "x of its best: the measured times decide, beyond their noise):";
    std::vector<std::string> lines{head.str()};
    const auto us = [](double seconds) { return microseconds(seconds, 1) + " us"; };
    for (const CloseCall& call : plan.close_calls) {
        std::string line = "  " + call.collective + " " + std::to_string(call.msg_bytes) + " B: ";
        line += call.stock.empty() ? "no MPICH point" : "MPICH's best " + us(call.stock_s) + " (" + call.stock + ")";
        for (const CloseCallCandidate& candidate : call.candidates) {
            Params params = candidate.config;
            params["segsize"] = std::to_string(candidate.segsize);
            line += "; " + config_label(params) + " predicted " + us(candidate.predicted_s) + ", " +
                    (candidate.measured_s ? "timed " + us(*candidate.measured_s) : std::string("not timed"));
        }
        line += ": " + (call.chosen.empty() ? std::string("not settled, the model's pick stands") : call.chosen);
        lines.push_back(std::move(line));
    }
    return lines;
}

std::vector<CloseCallTiming> untimed_close_calls(const TunePlan& plan) {
    std::vector<CloseCallTiming> timings;
    for (const CloseCall& call : plan.close_calls)
        for (const CloseCallCandidate& candidate : call.candidates) {
            if (candidate.measured_s) continue;
            if (timings.empty() || timings.back().collective != call.collective)
                timings.push_back(CloseCallTiming{call.collective, {}, {}});
            CloseCallTiming& timing = timings.back();
            Params params = candidate.config;
            params["segsize"] = std::to_string(candidate.timed_segsize);
            if (std::find(timing.candidates.begin(), timing.candidates.end(), params) == timing.candidates.end())
                timing.candidates.push_back(std::move(params));
            if (std::find(timing.sizes.begin(), timing.sizes.end(), call.msg_bytes) == timing.sizes.end())
                timing.sizes.push_back(call.msg_bytes);
        }
    for (CloseCallTiming& timing : timings) std::sort(timing.sizes.begin(), timing.sizes.end());
    return timings;
}

bool case_swept(const SizeCase& c) {
    return std::all_of(c.configs.begin(), c.configs.end(), [](const ConfigTime& config) { return config.measured; });
}

bool sweep_complete(const TunePlan& plan) {
    return std::all_of(plan.cases.begin(), plan.cases.end(), case_swept) && plan.unpredicted.empty();
}

std::map<std::string, std::size_t> unmeasured_runs(const TunePlan& plan) {
    std::set<std::tuple<std::string, std::uint64_t, std::string>> runs;
    for (const SizeCase& c : plan.cases)
        for (const ConfigTime& config : c.configs)
            if (!config.measured)
                runs.insert({c.collective, c.msg_bytes, config.same_run_as.empty() ? config.config : config.same_run_as});
    std::map<std::string, std::size_t> counts;
    for (const auto& run : runs) ++counts[std::get<0>(run)];
    return counts;
}

std::vector<RevertedPick> keep_measured_faster(TunePlan& plan, const TreeTimingReport& timing) {
    // the collectives with one choice per shape that keep it: none slower, one faster
    std::map<std::string, std::pair<bool, bool>> slower_faster;
    for (const TreeTimingRow& row : timing.rows)
        if (!csel::message_size_key(row.collective)) {
            auto& [slower, faster] = slower_faster[row.collective];
            slower = slower || row.verdict == TreeVerdict::slower;
            faster = faster || row.verdict == TreeVerdict::faster;
        }
    const auto kept = [&](const TreeTimingRow& row) {
        const auto shape = slower_faster.find(row.collective);
        return shape == slower_faster.end() ? row.verdict == TreeVerdict::faster
                                            : !shape->second.first && shape->second.second;
    };
    std::vector<RevertedPick> reverted;
    for (std::size_t i = 0; i < plan.cases.size(); ++i) {  // the cases are in plan order; verify[i] is case i's
        SizeCase& c = plan.cases[i];
        const auto row = std::find_if(timing.rows.begin(), timing.rows.end(), [&](const TreeTimingRow& r) {
            return r.collective == c.collective && r.msg_bytes == c.msg_bytes;
        });
        std::vector<csel::SampledChoice>& picks = plan.collectives.at(c.collective).picks;
        const auto pick = std::find_if(picks.begin(), picks.end(),
                                       [&](const csel::SampledChoice& p) { return p.msg_bytes == c.msg_bytes; });
        if (pick == picks.end() || pick->choice.stock || row == timing.rows.end() || kept(*row)) continue;
        reverted.push_back({c.collective, c.msg_bytes, c.pick, *row});
        pick->choice = csel::Choice::stock_tree();
        c.pick = pick->choice.describe();
        plan.verify[i] = VerifyCase{c.collective, c.msg_bytes, false, 0, false};
    }
    return reverted;
}

namespace {

PickSource source_of(const TunePlan& plan, const SizeCase& c, const std::vector<RevertedPick>& reverted) {
    if (std::any_of(reverted.begin(), reverted.end(), [&](const RevertedPick& r) {
            return r.collective == c.collective && r.msg_bytes == c.msg_bytes;
        }))
        return PickSource::put_back;
    const std::vector<csel::SampledChoice>& picks = plan.collectives.at(c.collective).picks;
    const auto pick = std::find_if(picks.begin(), picks.end(),
                                   [&](const csel::SampledChoice& p) { return p.msg_bytes == c.msg_bytes; });
    if (pick == picks.end() || pick->choice.stock) return PickSource::stock;
    if (plan.predicted) return PickSource::predicted;
    if (c.measured_pick || !grammar::find(pick->choice.algorithm)) return PickSource::measured;
    const bool timed_close_call = std::any_of(plan.close_calls.begin(), plan.close_calls.end(), [&](const CloseCall& call) {
        return call.collective == c.collective && call.msg_bytes == c.msg_bytes && !call.chosen.empty();
    });
    return timed_close_call ? PickSource::measured : PickSource::model;
}

}  // namespace

std::vector<CoverageRow> coverage(const TunePlan& plan, const std::vector<RevertedPick>& reverted) {
    std::vector<CoverageRow> rows;
    for (const SizeCase& c : plan.cases) {
        const PickSource source = source_of(plan, c, reverted);
        if (!rows.empty() && rows.back().collective == c.collective && rows.back().source == source &&
            rows.back().choice == c.pick) {
            rows.back().last_bytes = c.msg_bytes;
            continue;
        }
        rows.push_back(CoverageRow{c.collective, c.msg_bytes, c.msg_bytes, source, c.pick});
    }
    return rows;
}

std::vector<std::string> coverage_lines(const TunePlan& plan, const std::vector<CoverageRow>& rows) {
    const std::string shape = std::to_string(plan.comm_size) + " ranks, " + std::to_string(plan.ppn) + " per node";
    std::vector<std::string> lines{
        plan.predicted
            ? "# coverage: where the tree's choices come from (predicted: the analytic models' pick, not measured; "
              "stock: MPICH's selection, the models not predicting a pick faster by the margin)"
            : "# coverage: where the tree's choices come from (model: the HAN task model's pick; measured: picked by "
              "measurement; stock: MPICH's selection measured fastest; put back: not measured faster than no tree)",
        (plan.predicted ? "# predicted at " : "# tuned at ") + shape +
            "; every comm size and ppn no section names: MPICH's selection (not tuned)",
        "collective   sizes (B)                 source     choice"};
    const auto row_text = [](const std::string& collective, const std::string& sizes, const std::string& source,
                             const std::string& choice) {
        std::ostringstream line;
        line << std::left << std::setw(12) << collective << ' ' << std::setw(25) << sizes << ' ' << std::setw(10)
             << source << ' ' << (choice == kStockLabel ? "MPICH's selection" : choice);
        return line.str();
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CoverageRow& row = rows[i];
        const bool by_size = csel::message_size_key(row.collective).has_value();
        const bool first = i == 0 || rows[i - 1].collective != row.collective;
        const bool last = i + 1 == rows.size() || rows[i + 1].collective != row.collective;
        if (by_size && first && row.first_bytes > 0)
            lines.push_back(row_text(row.collective, "< " + std::to_string(row.first_bytes), "stock",
                                     "MPICH's selection (not measured)"));
        std::string sizes = std::to_string(row.first_bytes);
        if (row.last_bytes != row.first_bytes) sizes += "-" + std::to_string(row.last_bytes);
        if (!by_size) sizes = "every size (" + sizes + ")";
        else if (last) sizes += " and up";
        lines.push_back(row_text(row.collective, sizes, to_string(row.source), row.choice));
    }
    return lines;
}

std::vector<std::string> shared_cores_lines(const TunePlan& plan, const std::vector<HostLoad>& shared_cores,
                                            bool keep_unproven) {
    if (shared_cores.empty()) return {};
    std::vector<std::string> lines;
    for (const HostLoad& hosts : shared_cores) lines.push_back("shared cores: " + to_string(hosts));
    lines.push_back("  below " + std::to_string(kSharedCoresNoiseBelow) +
                    " B such jobs time the scheduler as much as the links: where ranks have cores of their own "
                    "the choices there may rank otherwise");
    std::map<std::string, std::string> sizes;  // by collective, in plan order below
    std::vector<std::string> order;
    for (const SizeCase& c : plan.cases) {
        if (c.msg_bytes >= kSharedCoresNoiseBelow || c.pick == kStockLabel) continue;
        if (!sizes.count(c.collective)) order.push_back(c.collective);
        sizes[c.collective] += " " + std::to_string(c.msg_bytes);
    }
    std::string picks;
    for (const std::string& collective : order) picks += (picks.empty() ? "" : ", ") + collective + sizes[collective] + " B";
    if (picks.empty())
        lines.push_back("  no pick there other than MPICH's selection");
    else
        lines.push_back("  picks there other than MPICH's selection: " + picks +
                        (keep_unproven ? " (--keep-unproven: not checked against no tree)"
                                       : " (each measured faster than no tree beyond the noise: step 5b)"));
    return lines;
}

TreeCoverage tree_coverage(const std::string& tree_digest,
                           const std::vector<std::pair<const TunePlan*, const std::vector<RevertedPick>*>>& plans) {
    TreeCoverage file{tree_digest, {}};
    for (const auto& [plan, reverted] : plans) {
        CoveragePosition position{plan->comm_size, plan->ppn,
                                  std::to_string(plan->nodes) + "x" + std::to_string(plan->ppn), plan->predicted, {}};
        for (const CoverageRow& row : coverage(*plan, reverted ? *reverted : std::vector<RevertedPick>{}))
            position.ranges.push_back(
                CoverageRange{row.collective, row.first_bytes, row.last_bytes, to_string(row.source), row.choice});
        file.positions.push_back(std::move(position));
    }
    return file;
}

namespace {

// Every plan's picks per collective, each plan at its own tree position.
std::map<std::string, std::vector<csel::SampledChoice>> all_picks(const TunePlan& plan,
                                                                 const std::vector<const TunePlan*>& shapes) {
    std::map<std::string, std::vector<csel::SampledChoice>> picks;
    std::set<std::pair<int, int>> positions{{plan.comm_size, plan.ppn}};
    for (const auto& [collective, own] : plan.collectives) picks[collective] = own.picks;
    for (const TunePlan* shape : shapes) {
        if (!positions.insert({shape->comm_size, shape->ppn}).second)
            throw UsageError("two tuned shapes at comm size " + std::to_string(shape->comm_size) + ", ppn " +
                             std::to_string(shape->ppn) + ": one tree position takes one");
        for (const auto& [collective, own] : shape->collectives)
            picks[collective].insert(picks[collective].end(), own.picks.begin(), own.picks.end());
    }
    return picks;
}

}  // namespace

GenerateReport plan_tree(const TunePlan& plan, const csel::Json& stock, const std::vector<const TunePlan*>& shapes,
                         const std::optional<csel::Json>& ch4_stock) {
    csel::TreeInput input;
    GenerateReport report;
    for (auto& [collective, picks] : all_picks(plan, shapes)) {
        if (picks.empty()) {
            report.lines.push_back(collective + ": no data, stock tree kept");
            continue;
        }
        const auto hier = std::count_if(picks.begin(), picks.end(),
                                        [](const csel::SampledChoice& pick) { return !pick.choice.stock; });
        report.lines.push_back(collective + ": " + std::to_string(picks.size()) + " sizes, " + std::to_string(hier) +
                               " not stock");
        input.choices[collective] = std::move(picks);
    }
    if (input.choices.empty()) throw UsageError("nothing to generate from: no pick for any collective");
    input.requery = [&plan](const std::string& collective, int comm_size, int ppn,
                            std::uint64_t bytes) -> std::optional<csel::Choice> {
        const auto found = plan.collectives.find(collective);
        if (found == plan.collectives.end() || found->second.stock_measured || comm_size != plan.comm_size ||
            ppn != plan.ppn)
            return std::nullopt;
        return model_midpoint(collective, found->second.candidates, plan.nodes, plan.ppn, bytes, plan.model);
    };
    csel::TreePair pair = build_checked_pair(stock, ch4_stock, input);
    report.tree = std::move(pair.mpir);
    report.ch4 = std::move(pair.ch4);
    const std::vector<std::string> summary = tree_summary_lines(report.tree);
    report.lines.insert(report.lines.end(), summary.begin(), summary.end());
    if (report.ch4)
        report.lines.push_back("a CH4 composition picked: a CH4 tree goes with the tree");
    return report;
}

}  // namespace hiertune
