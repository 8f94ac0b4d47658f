// The commands `hiertune tune` and `hiertune tree-timing` (run WITHOUT mpiexec:
// they launch the MPI jobs themselves), see lib/hiertune/tune/tune_steps.hpp for the steps.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

#include "hiertune/tune/tune_steps.hpp"

namespace hiertune {

// A step that failed; the message is one line naming the step.
class TuneError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// mpiexec (without a launcher), or the launcher's first word, must be
// runnable before any job starts.  Throws UsageError (bad input, not a failed step).
void check_launch_command(const TuneOptions& options);

// Writes `script` to script_path and runs gnuplot on it; prints "plot: PNG",
// or where gnuplot is missing how to plot later.  Throws TuneError when
// gnuplot fails.
void plot_with_gnuplot(const std::string& script_path, const std::string& script, const std::string& png_path,
                       std::ostream& out);

// Runs the steps; options.mpiexec (without a launcher) and stock_path must be
// resolved, options.machine may be empty (step 0's job names it).
// Returns 0; throws TuneError, UsageError, DbError, ValidationError.  A tree
// slower than no tree beyond the noise (step 5) throws TuneError once the
// whole report is written, unless options.allow_tree_slower.
int run_tune(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err);

// `hiertune tree-timing` (run WITHOUT mpiexec): tune's step 5 for any tree,
// options.tree_path, with the launch fields, collectives, sizes, bench effort
// and tree_* fields of the options; prints the jobs and the table.  Returns 1
// (after an error line on `err`) when the tree is slower than no tree beyond
// the noise at some size and allow_tree_slower is not set, else 0; throws
// TuneError, UsageError, ValidationError, csel errors.
int run_tree_timing(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err);

// `hiertune analytic-report`: analytic_report.hpp's validation of the fitted
// models of job `fit_job` in db_path, written to out_dir (report.txt,
// summary.csv, predictions.csv, defaults.csv, prediction.png when gnuplot runs)
// and printed.  Targets of issue 17: average slowdown <= 1.03, worst <= 1.10,
// fitting <= 20 % of the sweep.  Returns 0 when they are met, 1 otherwise;
// throws UsageError, DbError, ValidationError, TuneError.
int run_analytic_report(const std::string& db_path, JobId fit_job, const std::string& out_dir, std::ostream& out);

}  // namespace hiertune
