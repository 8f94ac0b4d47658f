// A tune's time budget (tune --budget).  The steps that make the tree, verify it and
// time it against no tree always run: they decide what every job gets.  The
// exhaustive sweep (step 6) checks the picks and changes no tree, so it gets what is
// left: its jobs run one by one while each is estimated to end inside the budget, and
// the report says which were left out and which picks are therefore not checked.
#pragma once

#include <string>
#include <vector>

namespace hiertune {

// One job the budget left out.
struct BudgetCut {
    std::string job;        // what it would have measured, e.g. "exhaustive sweep of allreduce"
    double estimate_s = 0;  // its estimated time
    double left_s = 0;      // what the budget had left when it was due
};

// Whether a job estimated at estimate_s may start after elapsed_s of a budget of
// budget_s seconds (0: no budget, always).  Throws std::invalid_argument on a
// negative or non-finite argument.
bool fits_budget(double budget_s, double elapsed_s, double estimate_s);

// A job that ran: its time and the runs (one configuration at one size) it measured.
struct JobSpend {
    double seconds = 0;
    double runs = 0;
};

// The estimate of a job that measures `runs` runs: at the slowest time per run of the
// jobs that ran (those that measured none left out), else at fallback_per_run_s.  A
// step's jobs differ in their runs (a collective's configurations times its sizes, less
// those stored), so a job is estimated by its own count, not by the longest that ran.
// Throws std::invalid_argument on a negative or non-finite argument.
double job_estimate(const std::vector<JobSpend>& ran, double fallback_per_run_s, double runs);

// The report's lines: the budget and this run's time against it, then each job
// left out.  None without a budget.
std::vector<std::string> budget_lines(double budget_s, double elapsed_s, const std::vector<BudgetCut>& cuts);

// One step of a run and its wall time in it (what the step decides: its title).
struct StepSpend {
    std::string step;  // "1 task benchmarks"
    double seconds = 0;
    bool stored = false;  // the database held its data: it measured nothing
};

// The report's table of where the run's time went: each step that applied, its time
// and its share of the budget (of the run's time without one), "stored" where it
// measured nothing; then the rest of the run (the report's own step, outside the steps).  Throws
// std::invalid_argument on a negative or non-finite time.
std::vector<std::string> spend_lines(const std::vector<StepSpend>& spent, double budget_s, double elapsed_s);

// "45 min 0 s", "1 h 2 min 3 s", "12.5 s".
std::string duration_text(double seconds);

}  // namespace hiertune
