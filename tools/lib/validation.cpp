#include "validation.hpp"

#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>
#include <utility>

namespace hiertune {

namespace {

std::string where(const SizeCase& c) { return c.collective + " " + std::to_string(c.msg_bytes) + " B"; }

void check_time(const std::optional<double>& value, const char* what, const ConfigTime& config, const SizeCase& c) {
    if (value && !(std::isfinite(*value) && *value > 0))
        throw ValidationError(std::string(what) + " time of '" + config.config + "' at " + where(c) +
                              " is not a positive number");
}

std::string microseconds(double seconds) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << seconds * 1e6;
    return text.str();
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
    out << "# hiertune tune: model picks vs exhaustive sweep (times in us)\n";
    out << std::left << std::setw(10) << "collective" << std::right << std::setw(10) << "size"
        << "  " << std::setw(12) << "predicted" << std::setw(12) << "measured" << std::setw(12) << "best"
        << std::setw(10) << "slowdown" << "  pick | best\n";
    for (const SizeVerdict& v : report.verdicts) {
        out << std::left << std::setw(10) << v.collective << std::right << std::setw(10) << v.msg_bytes << "  "
            << std::setw(12) << (v.predicted_pick ? microseconds(*v.predicted_pick) : "-") << std::setw(12)
            << microseconds(v.measured_pick) << std::setw(12) << microseconds(v.measured_best) << std::setw(10)
            << ratio(v.slowdown) << "  " << v.pick << " | " << (v.best == v.pick ? "(same)" : v.best) << '\n';
    }
    const SizeVerdict& worst = report.verdicts.at(report.worst);
    out << "average slowdown: " << ratio(report.average_slowdown) << " over " << report.verdicts.size()
        << " sizes (target <= " << ratio(report.targets.max_average_slowdown)
        << "): " << yes_no(report.slowdown_target_met()) << '\n';
    out << "worst slowdown: " << ratio(report.worst_slowdown) << " (" << worst.collective << " " << worst.msg_bytes
        << " B)\n";
    out << "task benchmarks: "
        << (report.task_seconds ? ratio(*report.task_seconds) + " s" : std::string("unknown"))
        << ", exhaustive sweep: "
        << (report.exhaustive_seconds ? ratio(*report.exhaustive_seconds) + " s" : std::string("unknown"));
    if (const auto share = report.task_share()) {
        std::ostringstream percent;
        percent << std::fixed << std::setprecision(1) << *share * 100;
        std::ostringstream target;
        target << std::fixed << std::setprecision(0) << report.targets.max_task_share * 100;
        out << ", task share " << percent.str() << " % (target <= " << target.str()
            << " %): " << yes_no(*report.time_target_met()) << '\n';
    } else {
        out << ", task share unknown: time target not evaluated\n";
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
       << "set multiplot layout 1,2 title 'hiertune tune: model vs measurement'\n"
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

}  // namespace hiertune
