#include "hiertune/report/compare_tuners.hpp"
#include "hiertune/common/text.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/tree/csel_show.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/report/validation.hpp"

namespace hiertune {

namespace {

constexpr const char* kExhaustiveRow = "exhaustive";
constexpr const char* kDefaultRow = "MPICH default";

std::string case_text(const SweepCase& c) { return c.label + " " + std::to_string(c.msg_bytes) + " B"; }

bool is_default_key(const PointKey& key) { return is_default_algorithm(key.algorithm) && key.params.empty(); }

// The label of MPICH's own selection at a case ("default", or "auto" if stored so).
std::optional<std::string> default_config(const SweepCase& c) {
    for (const auto& [config, key] : c.keys)
        if (is_default_key(key)) return config;
    return std::nullopt;
}

// Whether the walk to `selection` passes through a copy of the stock tree's
// subtree of the collective (the whole collective or its intra subtree, as
// is or as build_tree rewrites it below tuned keys).
bool through_stock(const csel::Json& tree, const csel::Selection& selection, const csel::Json& stock,
                   const std::string& collective) {
    const std::string key = "collective=" + collective;
    if (!stock.is_object() || !stock.contains(key)) return false;
    const csel::Json& stock_collective = stock.at(key);
    std::vector<csel::Json> copies{stock_collective};
    if (const csel::Json* intra = csel::stock_intra_subtree(stock_collective)) {
        copies.push_back(*intra);
        copies.push_back(csel::strict_comm_size(*intra));
    }
    const csel::Json* node = &tree;
    for (const std::string& step : selection.path) {
        if (!node->is_object() || !node->contains(step)) return false;
        node = &node->at(step);
        if (std::find(copies.begin(), copies.end(), *node) != copies.end()) return true;
    }
    return false;
}

// The row of one tuner from its picks: averages through validate().
void evaluate(TunerRow& row, const std::vector<SweepCase>& cases) {
    std::vector<SizeCase> measured;
    std::vector<std::size_t> index;  // verdict -> pick
    for (std::size_t i = 0; i < row.picks.size(); ++i) {
        const CasePick& pick = row.picks[i];
        ++row.cases;
        if (pick.status != PickStatus::measured) {
            ++row.not_measured;
            continue;
        }
        const SweepCase& c = cases[pick.case_index];
        SizeCase size_case;
        size_case.collective = c.label;
        size_case.msg_bytes = c.msg_bytes;
        size_case.pick = pick.config;
        for (const auto& [config, seconds] : c.measured)
            size_case.configs.push_back(ConfigTime{config, std::nullopt, seconds});
        measured.push_back(std::move(size_case));
        index.push_back(i);
    }
    if (measured.empty()) return;
    const ValidationReport report = validate(measured, std::nullopt, std::nullopt);
    for (std::size_t v = 0; v < report.verdicts.size(); ++v) {
        CasePick& pick = row.picks[index[v]];
        pick.seconds = report.verdicts[v].measured_pick;
        pick.slowdown = report.verdicts[v].slowdown;
    }
    row.average_slowdown = report.average_slowdown;
    row.worst_slowdown = report.worst_slowdown;
    row.worst_case = case_text(cases[row.picks[index[report.worst]].case_index]);
}

std::string steps_text(const std::map<std::string, double>& steps) {
    std::vector<std::string> parts;
    for (const auto& [step, seconds] : steps) parts.push_back(step + " " + fixed(seconds, 1) + " s");
    return parts.empty() ? std::string("none") : join(parts, ", ");
}

}  // namespace

const std::vector<std::string>& exhaustive_steps() {
    static const std::vector<std::string> steps{"exhaustive", "bench", "stock"};
    return steps;
}

const std::vector<std::string>& non_tuning_steps() {
    static const std::vector<std::string> steps{"exhaustive", "bench", "tree-timing"};
    return steps;
}

TuningCost tuning_cost(const MeasureDb& db, const std::set<JobId>& skip_points_of) {
    std::size_t points = 0, tasks = 0, fit = 0;
    std::map<std::string, double> counted, skipped;
    bool any_step = false;
    for (const Job& job : db.jobs()) {
        if (!skip_points_of.count(job.id)) points += db.count_points(job.id);
        tasks += db.count_tasks(job.id);
        fit += db.fit_points(job.id).size();
        for (const auto& [step, seconds] : db.step_times(job.id)) {
            const auto& excluded = non_tuning_steps();
            if (std::find(excluded.begin(), excluded.end(), step) != excluded.end()) {
                skipped[step] += seconds;
                continue;
            }
            counted[step] += seconds;
            any_step = true;
        }
    }
    TuningCost cost;
    cost.points = points + tasks + fit;
    if (any_step) {
        double total = 0;
        for (const auto& [step, seconds] : counted) total += seconds;
        cost.seconds = total;
    }
    std::vector<std::string> parts;
    parts.push_back(std::to_string(points) + " bench points" +
                    (skip_points_of.empty() ? "" : " (the sweep's jobs' points not counted)"));
    if (tasks) parts.push_back(std::to_string(tasks) + " task benchmarks");
    if (fit) parts.push_back(std::to_string(fit) + " fit points");
    cost.detail = db.path() + ": " + join(parts, ", ") + "; steps: " + steps_text(counted);
    if (!skipped.empty()) cost.detail += " (not counted: " + steps_text(skipped) + ")";
    return cost;
}

std::optional<std::string> configuration_of_selection(const csel::Json& tree, const csel::Selection& selection,
                                                      const SweepCase& sweep_case,
                                                      const std::optional<csel::Json>& stock) {
    if (!selection.matched()) return std::nullopt;
    if (stock && through_stock(tree, selection, *stock, sweep_case.collective)) {
        const std::optional<std::string> config = default_config(sweep_case);
        return config ? config : std::optional<std::string>(kDefaultAlgorithm);
    }
    const csel::Choice chosen = csel::Choice::container(
        selection.container, Params(selection.params.begin(), selection.params.end()));
    for (const auto& [config, key] : sweep_case.keys) {
        if (is_default_key(key)) continue;
        const std::optional<csel::Choice> choice = choice_of_point(key);
        if (choice && *choice == chosen) return config;
    }
    return std::nullopt;
}

namespace {

void check_tree_names(const std::vector<TunerTree>& trees) {
    if (trees.empty()) throw UsageError("no tree to compare (--tree NAME=FILE)");
    std::set<std::string> names;
    for (const TunerTree& tree : trees) {
        if (tree.name.empty()) throw UsageError("a tree needs a name (--tree NAME=FILE)");
        if (tree.name == kExhaustiveRow || tree.name == kDefaultRow)
            throw UsageError("tree name '" + tree.name + "' is reserved for a row of the table");
        if (!names.insert(tree.name).second) throw UsageError("tree name '" + tree.name + "' given twice");
    }
}

// A machine's sweep: its jobs with their points of the wanted collectives.
using SweepJobs = std::vector<std::pair<Job, std::vector<StoredPoint>>>;

std::map<std::string, SweepJobs> sweep_by_machine(const MeasureDb& sweep, const std::vector<std::string>& collectives) {
    const std::set<std::string> wanted(collectives.begin(), collectives.end());
    std::map<std::string, SweepJobs> by_machine;
    std::set<std::string> seen_collectives;
    for (const Job& job : sweep.jobs()) {
        std::vector<StoredPoint> points;
        for (StoredPoint& point : sweep.points(job.id)) {
            seen_collectives.insert(point.key.collective);
            if (wanted.empty() || wanted.count(point.key.collective)) points.push_back(std::move(point));
        }
        if (!points.empty()) by_machine[job.description.machine].emplace_back(job, std::move(points));
    }
    for (const std::string& collective : collectives)
        if (!seen_collectives.count(collective))
            throw UsageError(sweep.path() + " has no points of collective '" + collective + "'");
    if (by_machine.empty()) throw UsageError(sweep.path() + " holds no sweep points");
    return by_machine;
}

// --machine, else the only machine of the sweep.
std::string chosen_machine(const std::map<std::string, SweepJobs>& by_machine, const std::string& machine,
                           const std::string& path) {
    if (!machine.empty()) {
        if (!by_machine.count(machine)) throw UsageError(path + " has no sweep points of machine '" + machine + "'");
        return machine;
    }
    if (by_machine.size() > 1) {
        std::vector<std::string> machines;
        for (const auto& entry : by_machine) machines.push_back(entry.first);
        throw UsageError(path + " holds sweeps of several machines (" + join(machines, ", ") +
                         "): choose one with --machine");
    }
    return by_machine.begin()->first;
}

// The best of a case: lowest median; ties: fewer parameters, then the name.
void label_and_rank(SweepCase& c, bool several_jobs) {
    c.label = c.collective + " P=" + std::to_string(c.ranks) + " (" + std::to_string(c.nodes) + "x" +
              std::to_string(c.ppn) + ")";
    if (several_jobs) c.label += " job " + std::to_string(c.job);
    const auto rank = [&](const std::string& config) {
        return std::make_tuple(c.measured.at(config), c.keys.at(config).params.size(), config);
    };
    for (const auto& [config, seconds] : c.measured)
        if (c.best.empty() || rank(config) < rank(c.best)) c.best = config;
    c.best_seconds = c.measured.at(c.best);
}

// One case per (collective, ranks, nodes, job, size), in that order.
std::vector<SweepCase> sweep_cases(const SweepJobs& jobs) {
    std::map<std::tuple<std::string, int, int, JobId, std::uint64_t>, SweepCase> cases;
    std::map<std::tuple<std::string, int, int, int>, std::set<JobId>> shapes;  // same label, several jobs
    for (const auto& [job, points] : jobs) {
        const JobDescription& d = job.description;
        for (const StoredPoint& point : points) {
            SweepCase& c = cases[{point.key.collective, d.ranks, d.nodes, job.id, point.key.msg_bytes}];
            c.collective = point.key.collective;
            c.job = job.id;
            c.ranks = d.ranks;
            c.nodes = d.nodes;
            c.ppn = d.ppn;
            c.msg_bytes = point.key.msg_bytes;
            const std::string config = describe_configuration(point.key);
            c.measured[config] = point.summary.median;
            c.keys[config] = point.key;
            shapes[{c.collective, d.ranks, d.nodes, d.ppn}].insert(job.id);
        }
    }
    std::vector<SweepCase> result;
    for (auto& [key, c] : cases) {
        label_and_rank(c, shapes[{c.collective, c.ranks, c.nodes, c.ppn}].size() > 1);
        result.push_back(c);
    }
    return result;
}

std::string jobs_note(const std::string& machine, const SweepJobs& jobs, std::size_t cases) {
    std::vector<std::string> job_texts;
    for (const auto& [job, points] : jobs)
        job_texts.push_back("job " + std::to_string(job.id) + " (" + std::to_string(job.description.ranks) +
                            " ranks, " + std::to_string(job.description.nodes) + "x" +
                            std::to_string(job.description.ppn) + ")");
    return "machine " + machine + ": " + join(job_texts, ", ") + "; " + std::to_string(cases) +
           " cases (collective, job, size)";
}

// Exhaustive: its own best everywhere.
TunerRow exhaustive_row(const std::vector<SweepCase>& cases) {
    TunerRow exhaustive;
    exhaustive.name = kExhaustiveRow;
    for (std::size_t i = 0; i < cases.size(); ++i)
        exhaustive.picks.push_back(CasePick{i, PickStatus::measured, cases[i].best, "the sweep's best", 0, 1});
    evaluate(exhaustive, cases);
    exhaustive.worst_case.clear();  // 1 everywhere: no worst case
    return exhaustive;
}

// What the tree picks for case i, walked as MPICH walks it.
CasePick tree_pick(const TunerTree& tree, const SweepCase& c, std::size_t i, const std::optional<csel::Json>& stock) {
    csel::CallPoint point;
    point.collective = c.collective;
    point.comm_size = c.ranks;
    point.nodes = std::clamp(c.nodes, 1, c.ranks);
    point.bytes = c.msg_bytes;
    const csel::Selection selection = csel::select(tree.tree, point);
    CasePick pick;
    pick.case_index = i;
    pick.selection = selection.describe();
    const std::optional<std::string> config = configuration_of_selection(tree.tree, selection, c, stock);
    if (config && c.measured.count(*config)) {
        pick.config = *config;
        if (is_default_algorithm(c.keys.at(*config).algorithm)) pick.selection = "stock subtree: " + pick.selection;
    } else {
        pick.status = PickStatus::not_measured;
        if (config) pick.selection = "stock subtree: " + pick.selection;  // default not measured
    }
    return pick;
}

TunerRow tree_row(const TunerTree& tree, const std::vector<SweepCase>& cases, const std::optional<csel::Json>& stock) {
    TunerRow row;
    row.name = tree.name;
    for (std::size_t i = 0; i < cases.size(); ++i) row.picks.push_back(tree_pick(tree, cases[i], i, stock));
    evaluate(row, cases);
    return row;
}

TunerRow default_row(const std::vector<SweepCase>& cases) {
    TunerRow stock_row;
    stock_row.name = kDefaultRow;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        CasePick pick;
        pick.case_index = i;
        pick.selection = "MPICH's own selection";
        if (const std::optional<std::string> config = default_config(cases[i]))
            pick.config = *config;
        else
            pick.status = PickStatus::not_measured;
        stock_row.picks.push_back(std::move(pick));
    }
    evaluate(stock_row, cases);
    return stock_row;
}

}  // namespace

TunerComparison compare_tuners(const MeasureDb& sweep, const std::vector<TunerTree>& trees,
                               const CompareOptions& options) {
    check_tree_names(trees);
    const std::map<std::string, SweepJobs> by_machine = sweep_by_machine(sweep, options.collectives);
    TunerComparison result;
    result.machine = chosen_machine(by_machine, options.machine, sweep.path());
    const SweepJobs& jobs = by_machine.at(result.machine);
    result.cases = sweep_cases(jobs);
    result.notes.push_back(jobs_note(result.machine, jobs, result.cases.size()));
    if (!options.stock)
        result.notes.push_back("no stock tree: a pick of the stock subtree counts as the algorithm it runs, "
                               "where that was measured forced");
    result.rows.push_back(exhaustive_row(result.cases));
    for (const TunerTree& tree : trees) result.rows.push_back(tree_row(tree, result.cases, options.stock));
    result.rows.push_back(default_row(result.cases));
    result.rows.front().cost = sweep_cost(sweep, result);
    return result;
}

std::set<JobId> sweep_jobs(const TunerComparison& comparison) {
    std::set<JobId> jobs;
    for (const SweepCase& c : comparison.cases) jobs.insert(c.job);
    return jobs;
}

TuningCost sweep_cost(const MeasureDb& sweep, const TunerComparison& comparison) {
    std::set<std::string> collectives;
    for (const SweepCase& c : comparison.cases) collectives.insert(c.collective);
    std::size_t points = 0;
    std::map<std::string, double> steps;
    bool any_step = false;
    for (const JobId job : sweep_jobs(comparison)) {
        for (const StoredPoint& point : sweep.points(job))
            if (collectives.count(point.key.collective)) ++points;
        for (const auto& [step, seconds] : sweep.step_times(job)) {
            const auto& counted = exhaustive_steps();
            if (std::find(counted.begin(), counted.end(), step) == counted.end()) continue;
            steps[step] += seconds;
            any_step = true;
        }
    }
    TuningCost cost;
    cost.points = points;
    if (any_step) {
        double total = 0;
        for (const auto& [step, seconds] : steps) total += seconds;
        cost.seconds = total;
    }
    cost.detail = sweep.path() + ": " + std::to_string(points) + " bench points of " +
                  join(std::vector<std::string>(collectives.begin(), collectives.end()), ",") +
                  "; steps: " + steps_text(steps) + (any_step ? "" : " (no 'bench --account exhaustive' time stored)");
    return cost;
}

void set_cost(TunerComparison& comparison, const std::string& name, const TuningCost& cost) {
    for (std::size_t i = 1; i + 1 < comparison.rows.size(); ++i)
        if (comparison.rows[i].name == name) {
            comparison.rows[i].cost = cost;
            return;
        }
    throw UsageError("--tuning-db names '" + name + "', which is no --tree");
}

void write_comparison_text(const TunerComparison& comparison, std::ostream& out) {
    const std::vector<std::string> header{"tuner", "cases", "not measured", "avg slowdown", "worst slowdown",
                                          "worst at", "points", "tuning time (s)"};
    std::vector<std::vector<std::string>> table{header};
    for (const TunerRow& row : comparison.rows) {
        const bool reference = row.name == kDefaultRow;
        table.push_back({row.name, std::to_string(row.cases), std::to_string(row.not_measured),
                         row.average_slowdown ? fixed(*row.average_slowdown, 3) : "-",
                         row.worst_slowdown ? fixed(*row.worst_slowdown, 3) : "-",
                         row.worst_case.empty() ? "-" : row.worst_case,
                         reference ? "-" : row.cost.points ? std::to_string(*row.cost.points) : "unknown",
                         reference ? "-" : row.cost.seconds ? fixed(*row.cost.seconds, 1) : "unknown"});
    }
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& line : table)
        for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
    out << "# slowdown = median(pick) / median(exhaustive best) over the cases where the pick was measured\n";
    for (const auto& line : table) {
        std::string text;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const bool left = i == 0 || i == 5;
            const std::string pad(width[i] - line[i].size(), ' ');
            text += (i ? "  " : "") + (left ? line[i] + (i + 1 < line.size() ? pad : "") : pad + line[i]);
        }
        out << text << '\n';
    }
    for (const std::string& note : comparison.notes) out << "note: " << note << '\n';
    for (const TunerRow& row : comparison.rows) {
        if (!row.cost.detail.empty()) out << "cost of " << row.name << ": " << row.cost.detail << '\n';
        for (const CasePick& pick : row.picks)
            if (pick.status == PickStatus::not_measured)
                out << "not measured: " << row.name << " at " << case_text(comparison.cases[pick.case_index])
                    << ": " << pick.selection << '\n';
    }
}

void write_comparison_csv(const TunerComparison& comparison, std::ostream& out) {
    out << "tuner,cases,not_measured,average_slowdown,worst_slowdown,worst_case,points,seconds\n";
    for (const TunerRow& row : comparison.rows) {
        out << row.name << ',' << row.cases << ',' << row.not_measured << ','
            << (row.average_slowdown ? fixed(*row.average_slowdown, 4) : "") << ','
            << (row.worst_slowdown ? fixed(*row.worst_slowdown, 4) : "") << ',' << row.worst_case << ','
            << (row.cost.points ? std::to_string(*row.cost.points) : "") << ','
            << (row.cost.seconds ? fixed(*row.cost.seconds, 3) : "") << '\n';
    }
}

void write_comparison_json(const TunerComparison& comparison, std::ostream& out) {
    csel::Json doc = csel::Json::object();
    doc["machine"] = comparison.machine;
    doc["cases"] = comparison.cases.size();
    csel::Json rows = csel::Json::array();
    for (const TunerRow& row : comparison.rows) {
        csel::Json r = csel::Json::object();
        r["tuner"] = row.name;
        r["cases"] = row.cases;
        r["not_measured"] = row.not_measured;
        r["average_slowdown"] = row.average_slowdown ? csel::Json(*row.average_slowdown) : csel::Json(nullptr);
        r["worst_slowdown"] = row.worst_slowdown ? csel::Json(*row.worst_slowdown) : csel::Json(nullptr);
        r["worst_case"] = row.worst_case.empty() ? csel::Json(nullptr) : csel::Json(row.worst_case);
        r["points"] = row.cost.points ? csel::Json(*row.cost.points) : csel::Json(nullptr);
        r["seconds"] = row.cost.seconds ? csel::Json(*row.cost.seconds) : csel::Json(nullptr);
        r["cost"] = row.cost.detail.empty() ? csel::Json(nullptr) : csel::Json(row.cost.detail);
        csel::Json picks = csel::Json::array();
        for (const CasePick& pick : row.picks) {
            const SweepCase& c = comparison.cases[pick.case_index];
            csel::Json p = csel::Json::object();
            p["case"] = c.label;
            p["msg_bytes"] = c.msg_bytes;
            p["pick"] = pick.status == PickStatus::measured ? csel::Json(pick.config) : csel::Json(nullptr);
            p["selection"] = pick.selection;
            p["measured"] = pick.status == PickStatus::measured;
            p["best"] = c.best;
            p["slowdown"] = pick.status == PickStatus::measured ? csel::Json(pick.slowdown) : csel::Json(nullptr);
            picks.push_back(std::move(p));
        }
        r["picks"] = std::move(picks);
        rows.push_back(std::move(r));
    }
    doc["rows"] = std::move(rows);
    doc["notes"] = comparison.notes;
    out << doc.dump(2) << '\n';
}

}  // namespace hiertune
