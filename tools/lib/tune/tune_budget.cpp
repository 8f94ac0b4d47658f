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

double next_job_estimate(const std::vector<double>& ran_s, double fallback_s) {
    if (ran_s.empty()) return fallback_s;
    return *std::max_element(ran_s.begin(), ran_s.end());
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
