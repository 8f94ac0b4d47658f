#include "hiertune/tune/tune_budget.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace hiertune {

namespace {

void require_seconds(double seconds, const char* what) {
    if (!(std::isfinite(seconds) && seconds >= 0)) throw std::invalid_argument(std::string(what) + " must be finite and >= 0");
}

}  // namespace

bool fits_budget(double budget_s, double elapsed_s, double estimate_s) {
    require_seconds(budget_s, "the budget");
    require_seconds(elapsed_s, "the elapsed time");
    require_seconds(estimate_s, "a job's estimate");
    return budget_s == 0 || elapsed_s + estimate_s <= budget_s;
}

double job_estimate(const std::vector<JobSpend>& ran, double fallback_per_run_s, double runs) {
    require_seconds(fallback_per_run_s, "the time per run");
    require_seconds(runs, "a job's runs");  // a count, held to the same test
    double per_run = 0;
    bool any = false;
    for (const JobSpend& job : ran) {
        require_seconds(job.seconds, "a job's time");
        require_seconds(job.runs, "a job's runs");
        if (job.runs == 0) continue;
        per_run = std::max(per_run, job.seconds / job.runs);
        any = true;
    }
    return (any ? per_run : fallback_per_run_s) * runs;
}

std::string duration_text(double seconds) {
    std::ostringstream text;
    if (seconds < 60) {
        text << std::fixed << std::setprecision(1) << seconds << " s";
        return text.str();
    }
    const long whole = std::lround(seconds);
    if (whole >= 3600) text << whole / 3600 << " h ";
    text << whole % 3600 / 60 << " min " << whole % 60 << " s";
    return text.str();
}

namespace {

std::string spend_row(const std::string& what, std::size_t width, double seconds, double whole_s,
                      const std::string& note) {
    std::ostringstream row;
    row << "  " << std::left << std::setw(static_cast<int>(width)) << what << std::right << std::setw(14)
        << duration_text(seconds) << std::setw(8) << std::fixed << std::setprecision(1) << (whole_s > 0 ? 100 * seconds / whole_s : 0.0)
        << " %" << note;
    return row.str();
}

}  // namespace

std::vector<std::string> spend_lines(const std::vector<StepSpend>& spent, double budget_s, double elapsed_s) {
    require_seconds(budget_s, "the budget");
    require_seconds(elapsed_s, "the elapsed time");
    const double whole_s = budget_s > 0 ? budget_s : elapsed_s;
    std::vector<std::string> lines{std::string("where this run's time went (share of ") +
                                   (budget_s > 0 ? "the budget, " : "the run, ") + duration_text(whole_s) + "):"};
    const std::string rest = "the rest (this report, outside the steps)";
    std::size_t width = rest.size();
    for (const StepSpend& step : spent) width = std::max(width, step.step.size());
    double steps_s = 0;
    for (const StepSpend& step : spent) {
        require_seconds(step.seconds, "a step's time");
        steps_s += step.seconds;
        lines.push_back(
            spend_row(step.step, width, step.seconds, whole_s, step.stored ? "  (stored: nothing measured)" : ""));
    }
    lines.push_back(spend_row(rest, width, std::max(0.0, elapsed_s - steps_s), whole_s, ""));
    return lines;
}

std::vector<std::string> budget_lines(double budget_s, double elapsed_s, const std::vector<BudgetCut>& cuts) {
    if (budget_s == 0) return {};
    std::ostringstream head;
    head << "budget " << duration_text(budget_s) << ": this run took " << duration_text(elapsed_s);
    if (elapsed_s > budget_s) head << " (over by " << duration_text(elapsed_s - budget_s) << ": the steps that make, verify and time the tree always run)";
    std::vector<std::string> lines{head.str()};
    for (const BudgetCut& cut : cuts)
        lines.push_back("  left out: " + cut.job + " (estimated " + duration_text(cut.estimate_s) + ", " +
                        duration_text(cut.left_s) + " left)");
    return lines;
}

}  // namespace hiertune
