#include "hiertune/report/validation.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>
#include <utility>

#include "hiertune/common/stats.hpp"
#include "hiertune/common/text.hpp"

namespace hiertune {

namespace {

std::string where(const SizeCase& c) { return c.collective + " " + std::to_string(c.msg_bytes) + " B"; }

void check_time(const std::optional<double>& value, const char* what, const ConfigTime& config, const SizeCase& c) {
    if (value && !(std::isfinite(*value) && *value > 0))
        throw ValidationError(std::string(what) + " time of '" + config.config + "' at " + where(c) +
                              " is not a positive number");
}

std::string optional_us(const std::optional<double>& seconds) { return seconds ? microseconds(*seconds) : ""; }

std::string ratio(double value) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3) << value;
    return text.str();
}

std::string yes_no(bool met) { return met ? "met" : "NOT met"; }

}  // namespace

std::optional<double> ValidationReport::task_share() const {
    if (!task_seconds || !exhaustive_seconds || *exhaustive_seconds <= 0) return std::nullopt;
    return *task_seconds / *exhaustive_seconds;
}

std::optional<bool> ValidationReport::worst_target_met() const {
    if (!targets.max_worst_slowdown) return std::nullopt;
    return worst_slowdown <= *targets.max_worst_slowdown;
}

std::optional<bool> ValidationReport::time_target_met() const {
    const std::optional<double> share = task_share();
    if (!share) return std::nullopt;
    return *share <= targets.max_task_share;
}

ValidationReport validate(const std::vector<SizeCase>& cases, std::optional<double> task_seconds,
                          std::optional<double> exhaustive_seconds, const ValidationTargets& targets) {
    if (cases.empty()) throw ValidationError("nothing to validate: no message sizes");
    for (const auto& seconds : {task_seconds, exhaustive_seconds})
        if (seconds && !(std::isfinite(*seconds) && *seconds >= 0))
            throw ValidationError("step wall times must be finite and >= 0");
    ValidationReport report;
    report.cases = cases;
    report.task_seconds = task_seconds;
    report.exhaustive_seconds = exhaustive_seconds;
    report.targets = targets;

    std::set<std::pair<std::string, std::uint64_t>> seen;
    double sum = 0;
    for (const SizeCase& c : cases) {
        if (!seen.insert({c.collective, c.msg_bytes}).second) throw ValidationError(where(c) + " given twice");
        if (c.configs.empty()) throw ValidationError("no configurations at " + where(c));
        std::set<std::string> labels;
        std::size_t unmeasured = 0;
        const ConfigTime* first_unmeasured = nullptr;
        const ConfigTime* pick = nullptr;
        for (const ConfigTime& config : c.configs) {
            if (!labels.insert(config.config).second)
                throw ValidationError("configuration '" + config.config + "' given twice at " + where(c));
            check_time(config.predicted, "predicted", config, c);
            check_time(config.measured, "measured", config, c);
            if (!config.measured && unmeasured++ == 0) first_unmeasured = &config;
            if (config.config == c.pick) pick = &config;
        }
        if (!pick)
            throw ValidationError("the pick '" + c.pick + "' at " + where(c) + " is not in the search space");
        if (unmeasured)
            throw ValidationError("no measurement of '" + first_unmeasured->config + "' at " + where(c) + " (" +
                                  std::to_string(unmeasured) + " of " + std::to_string(c.configs.size()) +
                                  " configurations unmeasured): the exhaustive sweep is incomplete");
        const ConfigTime* best = pick;  // ties go to the pick
        for (const ConfigTime& config : c.configs)
            if (*config.measured < *best->measured) best = &config;

        SizeVerdict verdict;
        verdict.collective = c.collective;
        verdict.msg_bytes = c.msg_bytes;
        verdict.pick = pick->config;
        verdict.predicted_pick = pick->predicted;
        verdict.measured_pick = *pick->measured;
        verdict.best = best->config;
        verdict.measured_best = *best->measured;
        verdict.slowdown = verdict.measured_pick / verdict.measured_best;
        if (pick->noise || best->noise)
            verdict.noise = pick->noise.value_or(0) + (best == pick ? 0 : best->noise.value_or(0));
        sum += verdict.slowdown;
        if (report.verdicts.empty() || verdict.slowdown > report.worst_slowdown) {
            report.worst_slowdown = verdict.slowdown;
            report.worst = report.verdicts.size();
        }
        report.verdicts.push_back(std::move(verdict));
    }
    report.average_slowdown = sum / static_cast<double>(report.verdicts.size());
    return report;
}

void write_report_text(const ValidationReport& report, std::ostream& out) {
    out << "# " << report.title << " (times in us)\n";
    out << std::left << std::setw(10) << "collective" << std::right << std::setw(10) << "size"
        << "  " << std::setw(12) << "predicted" << std::setw(12) << "measured" << std::setw(12) << "best"
        << std::setw(10) << "slowdown" << std::setw(8) << "noise" << "  pick | best\n";
    const bool any_noise = std::any_of(report.verdicts.begin(), report.verdicts.end(),
                                       [](const SizeVerdict& v) { return v.noise.has_value(); });
    std::size_t beyond = 0;
    for (const SizeVerdict& v : report.verdicts) {
        std::string noise = "-";
        if (v.noise) {
            std::ostringstream percent;
            percent << std::fixed << std::setprecision(1) << *v.noise * 100 << '%';
            noise = percent.str();
        }
        beyond += v.beyond_noise();
        out << std::left << std::setw(10) << v.collective << std::right << std::setw(10) << v.msg_bytes << "  "
            << std::setw(12) << (v.predicted_pick ? microseconds(*v.predicted_pick) : "-") << std::setw(12)
            << microseconds(v.measured_pick) << std::setw(12) << microseconds(v.measured_best) << std::setw(10)
            << ratio(v.slowdown) << std::setw(8) << noise << "  " << v.pick << " | "
            << (v.best == v.pick ? "(same)" : v.best) << '\n';
    }
    if (any_noise)
        out << "slower than the best beyond the noise (slowdown > 1 + noise, the two medians' 95 % CIs apart): "
            << beyond << " of " << report.verdicts.size() << " sizes\n";
    const SizeVerdict& worst = report.verdicts.at(report.worst);
    out << "average slowdown: " << ratio(report.average_slowdown) << " over " << report.verdicts.size() << " sizes";
    if (report.targets_apply)
        out << " (target <= " << ratio(report.targets.max_average_slowdown)
            << "): " << yes_no(report.slowdown_target_met());
    out << '\n';
    out << "worst slowdown: " << ratio(report.worst_slowdown) << " (" << worst.collective << " " << worst.msg_bytes
        << " B)";
    if (!report.targets_apply) {
        out << '\n';
        return;
    }
    if (const auto met = report.worst_target_met())
        out << " (target <= " << ratio(*report.targets.max_worst_slowdown) << "): " << yes_no(*met);
    out << '\n';
    out << report.tuning_step << ": "
        << (report.task_seconds ? ratio(*report.task_seconds) + " s" : std::string("unknown"))
        << ", exhaustive sweep: "
        << (report.exhaustive_seconds ? ratio(*report.exhaustive_seconds) + " s" : std::string("unknown"));
    if (const auto share = report.task_share()) {
        std::ostringstream percent;
        percent << std::fixed << std::setprecision(1) << *share * 100;
        std::ostringstream target;
        target << std::fixed << std::setprecision(0) << report.targets.max_task_share * 100;
        out << ", " << report.share_name << " " << percent.str() << " % (target <= " << target.str()
            << " %): " << yes_no(*report.time_target_met()) << '\n';
    } else {
        out << ", " << report.share_name << " unknown: time target not evaluated\n";
    }
}

void write_summary_csv(const ValidationReport& report, std::ostream& out) {
    out << "collective,msg_bytes,pick,predicted_pick_us,measured_pick_us,best,measured_best_us,slowdown\n";
    for (const SizeVerdict& v : report.verdicts)
        out << v.collective << ',' << v.msg_bytes << ',' << v.pick << ',' << optional_us(v.predicted_pick) << ','
            << microseconds(v.measured_pick) << ',' << v.best << ',' << microseconds(v.measured_best) << ','
            << std::setprecision(6) << v.slowdown << '\n';
}

void write_predictions_csv(const ValidationReport& report, std::ostream& out) {
    out << "collective,msg_bytes,config,predicted_us,measured_us,predicted_over_measured,pick,best\n";
    for (std::size_t i = 0; i < report.cases.size(); ++i) {
        const SizeCase& c = report.cases[i];
        const SizeVerdict& v = report.verdicts[i];
        for (const ConfigTime& config : c.configs) {
            out << c.collective << ',' << c.msg_bytes << ',' << config.config << ',' << optional_us(config.predicted)
                << ',' << optional_us(config.measured) << ',';
            if (config.predicted && config.measured) out << std::setprecision(6) << *config.predicted / *config.measured;
            out << ',' << (config.config == v.pick ? 1 : 0) << ',' << (config.config == v.best ? 1 : 0) << '\n';
        }
    }
}

std::string gnuplot_script(const ValidationReport& report, const std::string& predictions_csv,
                           const std::string& png_path) {
    std::set<std::string> collectives;
    for (const SizeCase& c : report.cases) collectives.insert(c.collective);
    // gnuplot strings in single quotes: a quote is doubled.
    const auto quoted = [](const std::string& text) {
        std::string result = "'";
        for (char ch : text) result += ch == '\'' ? std::string("''") : std::string(1, ch);
        return result + "'";
    };
    std::ostringstream gp;
    gp << "# generated by hiertune tune\n"
       << "set terminal pngcairo size 1400,600 noenhanced\n"
       << "set output " << quoted(png_path) << "\n"
       << "set datafile separator ','\n"
       << "set key top left\n"
       << "set multiplot layout 1,2 title " << quoted(report.title) << "\n"
       << "set logscale xy\n"
       << "set grid\n"
       << "set title 'per size and configuration'\n"
       << "set xlabel 'predicted (us)'\n"
       << "set ylabel 'measured (us)'\n"
       << "plot ";
    std::size_t style = 1;
    for (const std::string& collective : collectives)
        gp << quoted(predictions_csv) << " skip 1 using (strcol(1) eq " << quoted(collective)
           << " && strcol(4) ne '' ? $4 : NaN):5 with points pt " << style++ << " title " << quoted(collective)
           << ", ";
    gp << "x with lines dt 2 lc rgb 'gray' title 'measured = predicted'\n"
       << "set title 'pick vs exhaustive best'\n"
       << "set xlabel 'message size (bytes)'\n"
       << "set ylabel 'measured (us)'\n"
       << "plot ";
    bool first = true;
    for (const std::string& collective : collectives) {
        for (const auto& [column, name] : {std::pair<int, const char*>{7, "model pick"}, {8, "exhaustive best"}}) {
            if (!first) gp << ", ";
            first = false;
            gp << quoted(predictions_csv) << " skip 1 using (strcol(1) eq " << quoted(collective) << " && $"
               << column << " == 1 ? $2 : NaN):5 with points pt " << style++ << " ps 1.5 title "
               << quoted(collective + " " + name);
        }
    }
    gp << "\nunset multiplot\n";
    return gp.str();
}

// ---------------------------------------------------------------- tree timing

std::string to_string(TreeVerdict verdict) {
    switch (verdict) {
        case TreeVerdict::faster:
            return "faster";
        case TreeVerdict::slower:
            return "slower";
        case TreeVerdict::within_noise:
            break;
    }
    return "within_noise";
}

std::vector<const TreeTimingRow*> TreeTimingReport::slower() const {
    std::vector<const TreeTimingRow*> result;
    for (const TreeTimingRow& row : rows)
        if (row.verdict == TreeVerdict::slower && !row.same_choice && !row.put_back) result.push_back(&row);
    return result;
}

TreeTimingReport evaluate_tree_timings(const std::vector<TreeTimingCase>& cases, double tolerance,
                                       bool allow_slower) {
    if (cases.empty()) throw ValidationError("no tree timings: no message sizes");
    if (!(tolerance >= 0 && tolerance < 1)) throw ValidationError("the tree timing tolerance must be in [0, 1)");
    TreeTimingReport report;
    report.tolerance = tolerance;
    report.allow_slower = allow_slower;
    std::set<std::pair<std::string, std::uint64_t>> seen;
    for (const TreeTimingCase& c : cases) {
        const std::string at = c.collective + " " + std::to_string(c.msg_bytes) + " B";
        if (!seen.insert({c.collective, c.msg_bytes}).second)
            throw ValidationError("tree timing of " + at + " given twice");
        if (c.tree.size() != c.no_tree.size())
            throw ValidationError("tree timing of " + at + ": " + std::to_string(c.tree.size()) +
                                  " rounds with the tree, " + std::to_string(c.no_tree.size()) + " without");
        if (c.tree.size() < 2)
            throw ValidationError("tree timing of " + at + ": " + std::to_string(c.tree.size()) +
                                  " round(s); at least 2 give a noise");
        for (const auto* times : {&c.tree, &c.no_tree})
            for (double t : *times)
                if (!(std::isfinite(t) && t > 0))
                    throw ValidationError("tree timing of " + at + ": a time that is not a positive number");
        TreeTimingRow row;
        row.collective = c.collective;
        row.msg_bytes = c.msg_bytes;
        row.rounds = c.tree.size();
        row.tree = median(c.tree);
        row.no_tree = median(c.no_tree);
        row.ratio = row.no_tree / row.tree;
        const auto spread = [](const std::vector<double>& times, double middle) {
            const auto [low, high] = std::minmax_element(times.begin(), times.end());
            return (*high - *low) / middle;
        };
        row.noise = std::max(spread(c.tree, row.tree), spread(c.no_tree, row.no_tree));
        // beyond the noise: the two jobs' rounds do not overlap at all
        const double tree_min = *std::min_element(c.tree.begin(), c.tree.end());
        const double tree_max = *std::max_element(c.tree.begin(), c.tree.end());
        const double no_tree_min = *std::min_element(c.no_tree.begin(), c.no_tree.end());
        const double no_tree_max = *std::max_element(c.no_tree.begin(), c.no_tree.end());
        if (tree_min > no_tree_max && row.ratio < 1 - tolerance)
            row.verdict = TreeVerdict::slower;
        else if (tree_max < no_tree_min && row.ratio > 1 + tolerance)
            row.verdict = TreeVerdict::faster;
        report.rows.push_back(std::move(row));
    }
    return report;
}

namespace {

// What of a row counts: a verdict either way where the tree runs MPICH's selection too
// (same choice) or where step 5b put the pick back is the chance rate of the verdict.
const char* not_counted(const TreeTimingRow& row) {
    return row.put_back ? "put_back" : row.same_choice ? "same_choice" : "";
}

std::string verdict_text(const TreeTimingRow& row) {
    const std::string mark = row.put_back ? ": put back" : row.same_choice ? ", same choice: noise" : "";
    switch (row.verdict) {
        case TreeVerdict::slower:
            return *not_counted(row) ? "slower" + mark : "FAIL (slower)";
        case TreeVerdict::faster:
            return "faster" + mark;
        case TreeVerdict::within_noise:
            break;
    }
    return "within noise" + std::string(row.put_back ? mark : "");
}

}  // namespace

void write_tree_timing_text(const TreeTimingReport& report, std::ostream& out) {
    std::ostringstream tolerance;
    tolerance << std::fixed << std::setprecision(3) << report.tolerance;
    out << "# hiertune: the tree as loaded vs no tree (times in us)\n"
        << "# per size: alternating jobs with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=<tree> and without it;\n"
        << "#   a round's time = the job's median over repetitions of the max-over-ranks time (bench -a default)\n"
        << "# tree, no-tree: median over the rounds; ratio = no-tree / tree (> 1: the tree is faster);\n"
        << "#   noise = the larger (max - min) / median of the two jobs' rounds\n"
        << "# FAIL (slower): every round with the tree slower than every round without it AND ratio < 1 - "
        << tolerance.str() << ";\n"
        << "#   faster: every round with the tree faster AND ratio > 1 + " << tolerance.str()
        << "; else within noise\n"
        << "#   same choice: the tree runs MPICH's selection here too: slower or faster is noise (not counted)\n"
        << "#   put back: step 5b put the pick timed here back to MPICH's selection (not counted)\n";
    out << std::left << std::setw(10) << "collective" << std::right << std::setw(10) << "size" << std::setw(8)
        << "rounds" << std::setw(12) << "tree" << std::setw(12) << "no-tree" << std::setw(9) << "ratio"
        << std::setw(9) << "noise" << "  verdict\n";
    for (const TreeTimingRow& row : report.rows) {
        std::ostringstream noise;
        noise << std::fixed << std::setprecision(1) << row.noise * 100 << "%";
        out << std::left << std::setw(10) << row.collective << std::right << std::setw(10) << row.msg_bytes
            << std::setw(8) << row.rounds << std::setw(12) << microseconds(row.tree) << std::setw(12)
            << microseconds(row.no_tree) << std::setw(9) << ratio(row.ratio) << std::setw(9) << noise.str() << "  "
            << verdict_text(row) << '\n';
    }
    const std::vector<const TreeTimingRow*> slower = report.slower();
    out << "tree vs no tree: " << slower.size() << " of " << report.rows.size()
        << " sizes slower beyond the noise: ";
    if (slower.empty()) {
        out << "ok\n";
        return;
    }
    out << (report.allow_slower ? "accepted (--allow-tree-slower)" : "FAILED") << " (";
    for (std::size_t i = 0; i < slower.size(); ++i)
        out << (i ? ", " : "") << slower[i]->collective << " " << slower[i]->msg_bytes << " B";
    out << ")\n";
}

void write_tree_timing_csv(const TreeTimingReport& report, std::ostream& out) {
    out << "collective,msg_bytes,rounds,tree_us,no_tree_us,ratio,noise,verdict,not_counted\n";
    for (const TreeTimingRow& row : report.rows)
        out << row.collective << ',' << row.msg_bytes << ',' << row.rounds << ',' << microseconds(row.tree) << ','
            << microseconds(row.no_tree) << ',' << std::setprecision(6) << row.ratio << ',' << row.noise << ','
            << to_string(row.verdict) << ',' << not_counted(row) << '\n';
}

}  // namespace hiertune
