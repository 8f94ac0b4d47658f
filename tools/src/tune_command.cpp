#include "tune_command.hpp"

#include "hiertune/models/analytic_han.hpp"
#include "hiertune/report/analytic_report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/models/calibration.hpp"
#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/tree/site_tree.hpp"
#include "hiertune/tree/tree_coverage.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/tune/predicted_shape.hpp"
#include "hiertune/tune/tune_plan.hpp"
#include "hiertune/tune/tune_budget.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/report/validation.hpp"
#include "process.hpp"

#include <mpi.h>

namespace hiertune {

namespace {

namespace fs = std::filesystem;

// Runs the launches of a step (their stdout into `stdout_path` if given);
// returns their wall time in seconds.
double run_step(const std::string& title, const std::vector<Launch>& launches, std::ostream& out,
                const std::string& stdout_path = "") {
    const auto start = std::chrono::steady_clock::now();
    for (const Launch& launch : launches) {
        out << "$ " << describe(launch) << (stdout_path.empty() ? "" : " > " + stdout_path) << std::endl;
        const int status = run_process(launch.argv, launch.env, stdout_path);
        if (status == kExecFailed)
            throw TuneError(title + " failed: cannot run '" + launch.argv.front() + "' (or the job exited with " +
                            std::to_string(kExecFailed) + ")");
        if (status != 0)
            throw TuneError(title + " failed: the " + launch.step + " job exited with status " +
                            std::to_string(status) + " (command above)");
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string seconds_text(double seconds) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << seconds << " s";
    return text.str();
}

std::string us_text(const std::optional<double>& seconds) {
    return seconds ? microseconds(*seconds) + " us" : "-";
}

// Step 0: the calibrate job (it keeps a stored calibration) names the job
// every later step files under; options.machine becomes its machine.
// The environment's MPIR_CVAR_HIER_LATENCY_BYTES (0 when unset or 0), checked before any job.
std::int64_t latency_bytes_from_environment() {
    const char* given = std::getenv(kLatencyBytesCvar);
    if (!given || !*given) return 0;
    char* end = nullptr;
    const long long bytes = std::strtoll(given, &end, 10);
    if (*end || bytes < 0)
        throw UsageError(std::string(kLatencyBytesCvar) + "='" + given + "' in the environment: not an integer >= 0");
    return bytes;
}

// The by_size crossovers every later job runs with (and --install records): the
// environment's where it names them (run_tune read it), else the links' measured alpha / beta.
void set_latency_bytes(TuneOptions& options, const StoredCalibration& calibration, std::ostream& out) {
    if (options.latency_bytes > 0) {
        out << "by_size crossovers: " << kLatencyBytesCvar << "=" << options.latency_bytes << " (from the environment)\n";
        return;
    }
    options.latency_bytes = latency_bytes(calibration.links);
    if (options.latency_bytes > 0)
        out << latency_bytes_line(calibration.links) << ": every job below runs with it\n";
}

Job calibrate_step(TuneOptions& options, const std::string& hiertune, const fs::path& report_dir, std::ostream& out) {
    const fs::path output = report_dir / "calibration.jsonl";
    run_step("step 0 (calibrate)", {calibrate_launch(options, hiertune)}, out, output.string());
    std::ifstream lines(output);
    const std::optional<CalibratedJob> calibrated = calibrated_job(lines);
    if (!calibrated) throw TuneError("step 0 (calibrate): its output " + output.string() + " names no job");
    const MeasureDb db = MeasureDb::open(options.db_path);
    std::optional<Job> job;
    for (const Job& stored : db.jobs())
        if (stored.id == calibrated->job) job = stored;
    if (!job) throw TuneError("step 0 (calibrate): no job " + std::to_string(calibrated->job) + " in " + db.path());
    options.machine = job->description.machine;
    if (!find_tune_job({*job}, options))
        throw TuneError("step 0 (calibrate): the launch ran " + describe_job(job->description) + ", not -n " +
                        std::to_string(options.ranks) +
                        (options.nodes ? " on " + std::to_string(*options.nodes) + " nodes" : std::string()));
    if (!calibrated->measured) out << "calibration stored in " << options.db_path << ": nothing to measure\n";
    const StoredCalibration calibration = db.calibration(job->id);
    out << "job " << job->id << ": " << describe_job(job->description) << '\n' << calibration_report(calibration);
    set_latency_bytes(options, calibration, out);
    return *job;
}


// Per collective, the seg_* inter-node candidates of the search space from the
// analytic models fitted on the job's nodes (none without seg_* configurations).
std::map<std::string, std::vector<han::Candidate>> seg_candidates(const MeasureDb& db, const Job& job,
                                                                   const TuneOptions& options,
                                                                   std::vector<std::string>& lines) {
    std::map<std::string, std::vector<han::Candidate>> result;
    const std::vector<Params> targets = seg_inter_configs(options);
    if (targets.empty()) return result;
    GenerateOptions generate;
    generate.seg_targets = targets;
    for (const std::string& collective : options.collectives)
        if (grammar::takes_seg_submodules(collective))
            result[collective] = seg_inter_candidates_of(db, job, collective, candidates_from_tasks(db.tasks(job.id), collective),
                                                     generate, lines);
    return result;
}

// What the predicted shapes are predicted from: the models fitted on the job's nodes.
PredictionBasis prediction_basis(const MeasureDb& db, const Job& job, const TuneOptions& options) {
    const std::optional<Job> fit = fit_job_of(db, job);
    if (!fit)
        throw TuneError("step 2 (predicted shapes): no analytic models fitted on " +
                        std::to_string(job.description.nodes) + " nodes x 1 rank in " + db.path() + " (step 0b)");
    PredictionBasis basis;
    basis.fit_job = fit->id;
    basis.fitted_procs = fit->description.ranks;
    basis.models = db.fit_models(fit->id);
    basis.inputs = analytic::inputs_of(db.fit_points(fit->id), db.eager_points(fit->id));
    basis.smallest_fitted = analytic::smallest_fitted_size(db.fit_points(fit->id));
    basis.segsizes = options.segsizes;
    basis.chain_fanouts = GenerateOptions{}.chain_fanouts;
    return basis;
}

// The wall time of `hiertune fit` on the job's nodes (one rank each), if stored.
std::optional<double> fit_seconds(const MeasureDb& db, const Job& job) {
    const std::optional<Job> fit = fit_job_of(db, job);
    if (!fit) return std::nullopt;
    const auto times = db.step_times(fit->id);
    const auto found = times.find("fit");
    return found == times.end() ? std::nullopt : std::optional<double>(found->second);
}


std::string read_whole_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw TuneError("cannot read " + path);
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

// The tree as loaded: rounds 1 .. options.tree_rounds of the job with the tree
// and the one without, alternating (the tree is read at MPI_Init only, so
// each is a job of its own), a job per timed group.  A job whose (group, round,
// variant) `stored` reports is skipped; each other job's output (JSON lines into
// `output_dir`) goes to `store`.  Returns the number of jobs run.
int run_tree_rounds(const TuneOptions& options, const std::string& hiertune, const fs::path& output_dir,
                    const std::string& title,
                    const std::function<bool(const TimedGroup&, int, const std::string&)>& stored,
                    const std::function<void(const TreeTimingOutput&)>& store, std::ostream& out) {
    const std::vector<TimedGroup> groups = tree_timed_groups(options);
    int jobs = 0;
    for (int round = 1; round <= options.tree_rounds; ++round)
        for (const bool with_tree : {true, false})
            for (std::size_t g = 0; g < groups.size(); ++g) {
                const std::string variant = with_tree ? kTreeVariant : kNoTreeVariant;
                if (stored(groups[g], round, variant)) continue;
                const fs::path output =
                    output_dir / ("round-" + std::to_string(round) + "-" + variant +
                                  (g == 0 ? std::string() : "-" + std::to_string(g + 1)) + ".jsonl");
                out << "round " << round << "/" << options.tree_rounds << ", " << variant << ":\n";
                run_step(title, {tree_timing_launch(options, hiertune, options.tree_path, with_tree, groups[g])}, out,
                         output.string());
                std::ifstream lines(output);
                try {
                    store(parse_tree_timing_output(lines, groups[g], round, variant));
                } catch (const std::runtime_error& e) {
                    if (dynamic_cast<const TuneError*>(&e)) throw;
                    throw TuneError(title + ": " + e.what() + " (" + output.string() + ")");
                }
                ++jobs;
            }
    return jobs;
}

// The tree timing step 5 stored for a job's tree: a row per size it timed (none where
// the tree picked MPICH's selection at every size).
TreeTimingReport stored_tree_timing(const TuneOptions& options, const MeasureDb& db, JobId job,
                                    const std::string& digest, bool allow_slower) {
    const std::vector<TreeTimingCase> cases = tree_timing_cases(options, db.tree_timings(job, digest));
    if (!cases.empty()) return evaluate_tree_timings(cases, options.tree_tolerance, allow_slower);
    TreeTimingReport none;
    none.tolerance = options.tree_tolerance;
    none.allow_slower = allow_slower;
    return none;
}

// The one-line error of a tree slower than no tree beyond the noise.
std::string tree_slower_error(const TreeTimingReport& report) {
    const auto slower = report.slower();
    std::string sizes;
    for (const TreeTimingRow* row : slower)
        sizes += (sizes.empty() ? "" : ", ") + row->collective + " " + std::to_string(row->msg_bytes) + " B";
    return "the tree is slower than no tree beyond the noise at " + std::to_string(slower.size()) + " of " +
           std::to_string(report.rows.size()) + " sizes (" + sizes + "; --allow-tree-slower accepts it)";
}

// Step 5b's picks put back to stock: a heading and a line per pick.
std::vector<std::string> reverted_lines(const std::vector<RevertedPick>& reverted) {
    std::vector<std::string> lines{"never slower: " + std::to_string(reverted.size()) +
                                   " picks back to MPICH's selection, the tree as loaded not measured faster "
                                   "than no tree beyond the noise there (the timing is that tree's: the tree written runs "
                                   "MPICH's selection there and chooses alike elsewhere):"};
    for (const RevertedPick& r : reverted) {
        std::ostringstream line;
        line << "  " << r.collective << " " << r.msg_bytes << " B: " << r.pick << " (no tree / tree " << std::fixed
             << std::setprecision(3) << r.timing.ratio << ", noise " << std::setprecision(1) << r.timing.noise * 100
             << " %: " << (r.timing.verdict == TreeVerdict::slower ? "slower" : "within the noise") << ")";
        lines.push_back(line.str());
    }
    return lines;
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream file(path);
    file << text;
    file.close();
    if (!file) throw TuneError("cannot write " + path.string());
}

}  // namespace

void check_launch_command(const TuneOptions& options) {
    if (options.launcher.empty() && access(options.mpiexec.c_str(), X_OK) != 0)
        throw UsageError("no mpiexec at " + options.mpiexec + " (give --mpiexec)");
    if (!options.launcher.empty() && !runnable(options.launcher.front()))
        throw UsageError("--launcher: cannot run '" + options.launcher.front() + "' (not an executable file" +
                        (options.launcher.front().find('/') == std::string::npos ? " in PATH)" : ")"));
}

void plot_with_gnuplot(const std::string& script_path, const std::string& script, const std::string& png_path,
                       std::ostream& out) {
    write_file(script_path, script);
    const int status = run_process({"gnuplot", script_path}, {});
    if (status == kExecFailed)
        out << "gnuplot not found: no plot (install gnuplot-nox, then run: gnuplot " << script_path << ")\n";
    else if (status != 0)
        throw TuneError("gnuplot " + script_path + " exited with status " + std::to_string(status));
    else
        out << "plot: " << png_path << '\n';
}

namespace {

// Step 5: the rounds of the tree (by its digest) not stored yet, each job's
// wall time kept like the other steps'.
void tree_timing_step(const TuneOptions& options, const std::string& hiertune, const Job& job, MeasureDb& db,
                      const std::string& digest, const fs::path& report_dir, std::ostream& out) {
    const std::vector<TreeTiming> stored = db.tree_timings(job.id, digest);
    const auto is_stored = [&](const TimedGroup& group, int round, const std::string& variant) {
        return tree_round_stored(group, stored, round, variant);
    };
    const fs::path output_dir = report_dir / "tree-timing";
    std::error_code ec;
    fs::create_directories(output_dir, ec);
    if (ec) throw TuneError("cannot create " + output_dir.string() + ": " + ec.message());
    auto mark = std::chrono::steady_clock::now();
    const auto store = [&](const TreeTimingOutput& output) {
        if (!same_layout(output.layout, job.description))
            throw TuneError("step 5 (tree timing): the job ran " + std::to_string(output.layout.ranks) + " ranks on " +
                            std::to_string(output.layout.nodes) + " nodes x " + std::to_string(output.layout.ppn) +
                            " ppn, " + output.layout.placement + ", not as job " + std::to_string(job.id) + " (" +
                            describe_job(job.description) +
                            "): did the launch place the ranks otherwise than in step 0?");
        db.record_tree_timings(job.id, digest, output.timings);
        // the job's wall time, kept like the other steps' (a killed round is not counted)
        const auto now = std::chrono::steady_clock::now();
        db.add_step_time(job.id, "tree-timing", std::chrono::duration<double>(now - mark).count());
        mark = now;
    };
    const auto start = std::chrono::steady_clock::now();
    const int jobs = run_tree_rounds(options, hiertune, output_dir, "step 5 (tree timing)", is_stored, store, out);
    if (!options.same_as_no_tree.empty())
        out << "not timed: " << options.same_as_no_tree.size()
            << " sizes where the tree runs MPICH's selection, as no tree does\n";
    if (jobs == 0)
        out << "tree " << digest << " timed in " << options.db_path << " (" << options.tree_rounds
            << " rounds): nothing to measure\n";
    else
        out << "tree timing: " << jobs << " jobs, "
            << seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << '\n';
}

// The model's picks against the sweep (the task benchmarks' time, and the stock
// reference's, beside the sweep's), and the measured collectives' picks apart;
// an empty report where a kind has no case.
struct PickReports {
    ValidationReport model, measured;
    bool has_model = false, has_measured = false;
    std::size_t unswept = 0, swept = 0;  // the model's cases whose sweep tune --budget left out, and the rest
};
// sweep_cut: the budget left sweep jobs out, so some cases have no sweep to check against.
PickReports validate_picks(const TuneOptions& options, const Job& job, const MeasureDb& db, const TunePlan& plan,
                           const std::function<std::optional<double>(const char*)>& time_of, bool sweep_cut) {
    std::vector<SizeCase> model_cases, measured_cases;
    PickReports reports;
    for (const SizeCase& c : plan.cases)
        if (c.measured_pick)
            measured_cases.push_back(c);
        else if (sweep_cut && !case_swept(c))
            ++reports.unswept;
        else
            model_cases.push_back(c);
    reports.swept = model_cases.size();
    const std::optional<double> stock_seconds = time_of("stock");
    // the stock reference is part of both ways of tuning
    const auto plus_stock = [&](std::optional<double> seconds) {
        return seconds && stock_seconds ? std::optional<double>(*seconds + *stock_seconds) : seconds;
    };
    // the analytic models' fit is part of the model's measuring time
    std::optional<double> model_seconds = time_of("tasks");
    if (const std::optional<double> fit = seg_inter_configs(options).empty() ? std::nullopt : fit_seconds(db, job))
        model_seconds = model_seconds.value_or(0) + *fit;
    try {
        if ((reports.has_model = !model_cases.empty()))
            // a sweep the budget cut short is no measure of what the whole one takes
            reports.model = validate(model_cases, plus_stock(model_seconds),
                                     reports.unswept > 0 ? std::nullopt : plus_stock(time_of("bench")));
        if ((reports.has_measured = !measured_cases.empty())) {
            reports.measured = validate(measured_cases, std::nullopt, std::nullopt);
            reports.measured.title = "measured picks (one per job shape, or per size where MPICH selects by bytes) vs the best measured at each size";
            reports.measured.targets_apply = false;
        }
    } catch (const ValidationError& e) {
        throw TuneError(std::string("step 7 (report): ") + e.what());
    }
    return reports;
}

// The report's text: calibration, the picks against the sweep, the step times,
// the picks step 5b put back, the tree timing and the coverage table.
std::string tune_report_text(const Job& job, const MeasureDb& db, const TunePlan& plan, const PickReports& reports,
                             const std::vector<RevertedPick>& reverted, const TreeTimingReport& tree_report,
                             const std::vector<std::string>& notes,
                             const std::function<std::optional<double>(const char*)>& time_of) {
    std::ostringstream text;
    text << calibration_report(db.calibration(job.id));
    for (const std::string& line : notes) text << line << '\n';
    text << '\n';
    for (const std::string& note : plan.skipped) text << note << '\n';
    if (reports.unswept > 0)
        text << "the model's picks checked against the exhaustive sweep at " << reports.swept << " of "
             << reports.swept + reports.unswept << " sizes: the budget left the others' sweep out\n";
    for (const std::string& line : close_call_lines(plan)) text << line << '\n';
    if (reports.has_model) write_report_text(reports.model, text);
    if (const std::optional<double> stock_seconds = time_of("stock"); stock_seconds && reports.has_model) {
        text << "(both times include the stock reference measurement, " << seconds_text(*stock_seconds) << ")\n";
        const std::optional<double> tasks = time_of("tasks");
        const std::optional<double> bench = reports.unswept > 0 ? std::nullopt : time_of("bench");
        if (tasks && bench && *bench > 0)
            text << "without it: task benchmarks " << seconds_text(*tasks) << " vs exhaustive sweep "
                 << seconds_text(*bench) << ", task share " << std::fixed << std::setprecision(1)
                 << *tasks / *bench * 100 << " %\n";
    }
    if (reports.has_measured) {
        text << '\n';
        write_report_text(reports.measured, text);
    }
    text << '\n';
    if (!reverted.empty())
        for (const std::string& line : reverted_lines(reverted)) text << line << '\n';
    write_tree_timing_text(tree_report, text);
    text << '\n';
    for (const std::string& line : coverage_lines(plan, coverage(plan, reverted))) text << line << '\n';
    return text.str();
}

// Step 7: the plan's picks against the sweep, the picks step 5b put back to stock,
// the tree timing and the further shapes' sections, into report_dir and `out`.  Throws TuneError when the tree is slower than no tree
// beyond the noise (unless options.allow_tree_slower), once all is written.
void write_tune_report(const TuneOptions& options, const Job& job, const MeasureDb& db, const TunePlan& plan,
                       const std::vector<RevertedPick>& reverted, const std::string& digest,
                       const std::vector<std::string>& notes, bool sweep_cut, const std::string& shapes_text,
                       const fs::path& report_dir, std::ostream& out) {
    const std::map<std::string, double> times = db.step_times(job.id);
    const std::function<std::optional<double>(const char*)> time_of = [&](const char* step) {
        const auto found = times.find(step);
        return found == times.end() ? std::nullopt : std::optional<double>(found->second);
    };
    const PickReports reports = validate_picks(options, job, db, plan, time_of, sweep_cut);
    TreeTimingReport tree_report;
    try {
        tree_report = stored_tree_timing(options, db, job.id, digest, options.allow_tree_slower);
        mark_same_choices(plan, tree_report, reverted);
    } catch (const std::runtime_error& e) {  // ValidationError, or a round missing
        throw TuneError(std::string("step 7 (report): the tree timing: ") + e.what());
    }
    const std::string text = tune_report_text(job, db, plan, reports, reverted, tree_report, notes, time_of) + shapes_text;
    // the CSV files and the plot: the model's picks where there are any, else the measured ones
    const ValidationReport& tabled = reports.has_model ? reports.model : reports.measured;
    std::ostringstream summary, predictions, tree_csv;
    write_summary_csv(tabled, summary);
    write_predictions_csv(tabled, predictions);
    write_tree_timing_csv(tree_report, tree_csv);
    const fs::path predictions_csv = report_dir / "predictions.csv";
    const fs::path png = report_dir / "prediction.png";
    const fs::path script = report_dir / "prediction.gp";
    write_file(report_dir / "report.txt", text);
    write_file(report_dir / "summary.csv", summary.str());
    write_file(predictions_csv, predictions.str());
    write_file(report_dir / "tree-timing.csv", tree_csv.str());
    if (reports.has_model && reports.has_measured) {
        std::ostringstream measured;
        write_summary_csv(reports.measured, measured);
        write_file(report_dir / "summary-measured.csv", measured.str());
    }
    out << text;
    try {  // the model's predictions against the measurements: nothing to plot without them
        if (reports.has_model)
            plot_with_gnuplot(script.string(), gnuplot_script(tabled, predictions_csv.string(), png.string()),
                              png.string(), out);
    } catch (const TuneError& e) {
        throw TuneError(std::string("step 7 (report): ") + e.what());
    }
    out << "report: " << report_dir.string() << " (report.txt, summary.csv, predictions.csv, tree-timing.csv)\n";
    if (tree_report.failed())
        throw TuneError(tree_slower_error(tree_report) + ": see " + (report_dir / "report.txt").string());
}

// A further job shape (--shapes): its jobs' options, the job they are filed under,
// its plan and the picks step 5b put back.
struct ShapeRun {
    JobShape shape;
    TuneOptions options;
    Job job;
    TunePlan plan;
    std::vector<RevertedPick> reverted;
};

// A further shape's tree timing as a report (its same-choice rows marked).
TreeTimingReport shape_tree_timing(const ShapeRun& run, const MeasureDb& db, const std::string& digest, bool allow) {
    try {
        TreeTimingReport report = stored_tree_timing(run.options, db, run.job.id, digest, allow);
        mark_same_choices(run.plan, report, run.reverted);
        return report;
    } catch (const std::runtime_error& e) {
        throw TuneError("shape " + to_string(run.shape) + ": the tree timing: " + e.what());
    }
}

// A further shape's section of the report: the picks put back, the tree timing and
// the coverage; `failed` names the shape when its tree is slower beyond the noise.
std::string shape_report_text(const ShapeRun& run, const MeasureDb& db, const std::string& digest,
                              std::string& failed) {
    const TreeTimingReport timing = shape_tree_timing(run, db, digest, run.options.allow_tree_slower);
    std::ostringstream text;
    text << "\n# further shape " << to_string(run.shape) << ": job " << run.job.id << " ("
         << describe_job(run.job.description) << ")\n";
    for (const std::string& line : shared_cores_lines(run.plan, db.shared_cores(run.job.id), run.options.keep_unproven))
        text << line << '\n';
    if (!run.reverted.empty())
        for (const std::string& line : reverted_lines(run.reverted)) text << line << '\n';
    write_tree_timing_text(timing, text);
    text << '\n';
    for (const std::string& line : coverage_lines(run.plan, coverage(run.plan, run.reverted))) text << line << '\n';
    if (timing.failed() && failed.empty()) failed = to_string(run.shape) + ": " + tree_slower_error(timing);
    return text.str();
}

// One step of tune: its number and title, its done-test against the database
// (a line saying what is stored already, printed instead of running it; empty:
// run it) and its work.  A step without a done-test always runs: cheap, or
// resumable on its own (calibrate --if-missing, the tree timing's rounds).
struct TuneStep {
    std::string number;  // "0", "0b", "1", ...
    std::string title;   // empty: the second half of the step before, under its header
    std::string part;    // what a second half measures (the report's time table)
    std::function<bool()> applies;  // null: always
    std::function<std::string()> done;  // null: never done; else what is stored, "" if not all
    std::function<void()> run;  // right after done() said "", so it may read what done() read
};

// The steps of one tune and what they hand on: step 0's job, step 2's plan,
// step 3's tree.
class TuneRun {
public:
    TuneRun(TuneOptions& options, const std::string& hiertune, const fs::path& report_dir, csel::Json stock,
            std::optional<csel::Json> ch4_stock, std::ostream& out)
        : options_(options), hiertune_(hiertune), report_dir_(report_dir), stock_(std::move(stock)),
          ch4_stock_(std::move(ch4_stock)), out_(out) {}

    void run_steps() {
        for (const TuneStep& step : steps()) {
            if (step.applies && !step.applies()) continue;
            if (!step.title.empty()) out_ << "== tune step " << step.number << "/7: " << step.title << "\n";
            const double start = elapsed();
            const std::string done = step.done ? step.done() : std::string();
            if (!done.empty())
                out_ << done << '\n';
            else
                step.run();
            spent_.push_back({step.number + " " + (step.title.empty() ? step.part : step.title), elapsed() - start,
                              !done.empty()});
        }
    }

    // The verified tree, no slower than none, for every job of the prefix.
    void install() {
        const auto calibration = db_->calibration(job_.id);
        SiteRecord record;
        record.mpich_version = MPICH_VERSION;
        record.machine = job_.description.machine;
        record.cluster = describe_job(job_.description) +
                         (calibration.cluster.empty() ? std::string() : "; " + calibration.cluster);
        record.measured = job_.created_at;
        record.latency_bytes = options_.latency_bytes;
        const SiteRecord written = install_site_tree(options_.tree_path, options_.install_prefix, record);
        out_ << "installed " << site_tree_path(options_.install_prefix).string() << " (" << written.tree_digest
             << "): every job of " << options_.install_prefix << " whose environment names no tree loads it\n";
    }

private:
    std::vector<TuneStep> steps() {
        return {
            {"0", "calibrate the links", "", nullptr, nullptr, [this] { calibrate(); }},
            {"0b", "fit the analytic models (seg_* inter-node submodules, predicted shapes)", "",
             [this] { return !seg_inter_configs(options_).empty() || !options_.predicted_shapes.empty(); }, nullptr,
             [this] { run_step("step 0b (fit)", {*fit_launch(options_, hiertune_)}, out_); }},
            {"1", "task benchmarks", "", nullptr, [this] { return tasks_stored(); }, [this] { measure_tasks(); }},
            // the stock reference: hier goes into the tree only where predicted faster
            {"1", "", "MPICH's own algorithms and compositions", [this] { return options_.stock; },
             [this] { return stock_stored(); }, [this] { measure_stock(); }},
            // the collectives without a task model: hier's inter-node steps measured
            {"1", "", "the collectives without a task model", [this] { return !options_.measured.empty(); },
             [this] { return measured_stored(); }, [this] { measure_measured(); }},
            // the further shapes: every collective measured, hier against MPICH's selection
            {"1", "", "the further shapes", [this] { return !shapes_.empty(); }, [this] { return shapes_stored(); },
             [this] { measure_shapes(); }},
            {"2", "model predictions", "", nullptr, nullptr, [this] { predict(); }},
            // where the model cannot tell hier from MPICH's best, the candidate's time does
            {"2b", "time the close calls", "", [this] { return !plan_.close_calls.empty(); },
             [this] { return close_calls_stored(); }, [this] { time_close_calls(); }},
            {"3", "generate --from model", "", nullptr, nullptr, [this] { generate(); }},
            // the tree loaded into MPICH: the chosen algorithms run
            {"4", "verify the tree in MPICH", "", nullptr, nullptr, [this] { verify("step 4 (verify)"); }},
            // the tree as loaded against no tree, in alternating jobs (each round its own done-test)
            {"5", "time the tree as loaded", "", nullptr, nullptr, [this] { time_tree(); }},
            // never slower: what the timing did not find faster goes back to MPICH's selection
            {"5b", "keep the picks measured faster than no tree", "", [this] { return !options_.keep_unproven; },
             nullptr, [this] { keep_measured_faster_picks(); }},
            {"6", "exhaustive sweep", "", nullptr, [this] { return sweep_stored(); }, [this] { sweep(); }},
            {"7", "validation report", "", nullptr, nullptr, [this] { report(); }},
        };
    }

    void calibrate() {
        job_ = calibrate_step(options_, hiertune_, report_dir_, out_);
        db_.emplace(MeasureDb::open(options_.db_path));
        // a later job filed elsewhere (the launch placed the ranks otherwise) leaves this job incomplete
        elsewhere_ = " not stored under job " + std::to_string(job_.id) + " (" + describe_job(job_.description) +
                     ") after the jobs ran: did the launch place the ranks otherwise than in step 0?";
        start_shapes();
        check_predicted_shapes();
    }

    // A predicted shape is larger than the allocation and at a tree position of its own.
    void check_predicted_shapes() const {
        std::vector<std::pair<int, int>> positions{tree_position(job_.description)};
        for (const ShapeRun& run : shapes_) positions.push_back({run.shape.ranks(), run.shape.ppn});
        for (const JobShape& shape : options_.predicted_shapes) {
            const std::string name = "--predict-shapes " + to_string(shape);
            if (shape.nodes <= job_.description.nodes)
                throw TuneError(name + ": not larger than the allocation (" + describe_job(job_.description) +
                                "): measure it with --shapes");
            if (std::count(positions.begin(), positions.end(), std::make_pair(shape.ranks(), shape.ppn)))
                throw TuneError(name + ": the tree position of a measured shape");
        }
    }

    // The further shapes' job options, once step 0 named the machine and the main job.
    void start_shapes() {
        shapes_.clear();
        for (const JobShape& shape : options_.shapes) {
            TuneOptions shaped = shape_options(options_, shape);
            const JobDescription layout{"", shaped.ranks, shape.nodes, shape.ppn, "", ""};
            if (tree_position(layout) == tree_position(job_.description))
                throw TuneError("--shapes " + to_string(shape) + ": the tree position of the main job (" +
                                describe_job(job_.description) + ")");
            shapes_.push_back(ShapeRun{shape, std::move(shaped), {}, {}, {}});
        }
    }

    // Whether a further shape's jobs stored every point it needs; finds its job.
    bool shape_measured(ShapeRun& run) {
        const std::optional<Job> job = find_shape_job(db_->jobs(), options_.machine, run.shape);
        if (!job) return false;
        run.job = *job;
        const std::vector<StoredPoint> points = db_->points(job->id);
        return missing_stock_points(run.options, points).empty() &&
               missing_measured_points(run.options, points).empty();
    }

    std::string shapes_stored() {
        std::vector<std::string> names;
        for (ShapeRun& run : shapes_) {
            if (!shape_measured(run)) return "";
            names.push_back(to_string(run.shape));
        }
        return "further shapes " + join(names, ", ") + " measured at every size: nothing to measure";
    }

    void measure_shapes() {
        for (ShapeRun& run : shapes_) {
            if (shape_measured(run)) continue;
            const std::string title = "step 1 (shape " + to_string(run.shape) + ")";
            std::vector<Launch> launches = shape_stock_launches(run.options, hiertune_);
            const std::vector<Launch> measured = measured_launches(run.options, hiertune_);
            launches.insert(launches.end(), measured.begin(), measured.end());
            const double seconds = run_step(title, launches, out_);
            if (!shape_measured(run))
                throw TuneError(title + ": points not stored under a job of " + to_string(run.shape) +
                                " on machine " + options_.machine + ": did the launch place the ranks otherwise?");
            out_ << "shape " << to_string(run.shape) << ": " << seconds_text(seconds) << '\n';
        }
    }

    std::string tasks_stored() {
        return db_->pending_tasks(job_.id, planned_tasks(options_)).empty()
                   ? "all task benchmarks stored in " + options_.db_path + ": nothing to measure"
                   : std::string();
    }

    void measure_tasks() {
        // the jobs add each group's time to the database as it is stored (--account),
        // so the report's times survive a kill and a resume
        const double seconds = run_step("step 1 (tasks)", tasks_launches(options_, hiertune_), out_);
        if (!db_->pending_tasks(job_.id, planned_tasks(options_)).empty())
            throw TuneError("step 1 (tasks): task benchmarks" + elsewhere_);
        out_ << "task benchmarks: " << seconds_text(seconds) << '\n';
    }

    std::string stock_stored() {
        return missing_stock_points(options_, db_->points(job_.id)).empty()
                   ? "stock selection measured at every size: nothing to measure"
                   : std::string();
    }

    void measure_stock() {
        const double seconds = run_step("step 1 (stock)", stock_launches(options_, hiertune_), out_);
        if (!missing_stock_points(options_, db_->points(job_.id)).empty())
            throw TuneError("step 1 (stock): stock points" + elsewhere_);
        out_ << "stock reference: " << seconds_text(seconds) << '\n';
    }

    std::string measured_stored() {
        return missing_measured_points(options_, db_->points(job_.id)).empty()
                   ? "hier of " + measured_names() + " measured at every size: nothing to measure"
                   : std::string();
    }

    std::string measured_names() const { return join(options_.measured, ", "); }

    void measure_measured() {
        const double seconds = run_step("step 1 (measured)", measured_launches(options_, hiertune_), out_);
        if (!missing_measured_points(options_, db_->points(job_.id)).empty())
            throw TuneError("step 1 (measured): points" + elsewhere_);
        out_ << "hier of " << measured_names() << ": " << seconds_text(seconds) << '\n';
    }

    void predict() {
        std::vector<std::string> seg_lines;
        seg_candidates_ = seg_candidates(*db_, job_, options_, seg_lines);
        plan_main();
        for (const std::string& line : seg_lines) out_ << line << '\n';
        for (const std::string& note : plan_.skipped) out_ << note << '\n';
        print_picks();
        plan_shapes();
        predict_shapes();
    }

    // The main job's plan from what the database holds now.
    void plan_main() {
        plan_ = plan_tune(options_, db_->tasks(job_.id), db_->points(job_.id), job_.description, seg_candidates_);
        if (!plan_.unpredicted.empty())
            throw TuneError("step 2 (model): no prediction for " + plan_.unpredicted.front() +
                            " (task benchmarks missing in " + options_.db_path + ")");
    }

    std::string close_calls_stored() {
        if (!untimed_close_calls(plan_).empty()) return "";
        for (const std::string& line : close_call_lines(plan_)) out_ << line << '\n';
        return "every close call's candidate measured in " + options_.db_path + ": nothing to measure";
    }

    // The close calls' candidates timed, then the plan made again with their times.
    void time_close_calls() {
        std::vector<Launch> launches;
        for (const CloseCallTiming& timing : untimed_close_calls(plan_)) {
            const std::vector<Launch> own =
                candidate_launches(options_, hiertune_, timing.collective, timing.candidates, timing.sizes);
            launches.insert(launches.end(), own.begin(), own.end());
        }
        const double seconds = run_step("step 2b (bench)", launches, out_);
        plan_main();
        for (const std::string& line : close_call_lines(plan_)) out_ << line << '\n';
        out_ << "close calls timed: " << seconds_text(seconds) << '\n';
        print_picks();
    }

    // Each predicted shape's picks from the analytic models.
    void predict_shapes() {
        predicted_.clear();
        if (options_.predicted_shapes.empty()) return;
        basis_ = prediction_basis(*db_, job_, options_);
        std::map<std::string, std::vector<std::uint64_t>> sizes;
        for (const std::string& collective : predicted_collectives(options_))
            sizes[collective] = sizes_of(options_, collective);
        for (const JobShape& shape : options_.predicted_shapes) {
            predicted_.push_back(predict_shape(shape, sizes, basis_));
            for (const PredictedCase& c : predicted_.back().cases)
                out_ << "predicted shape " << to_string(shape) << ": " << c.collective << " " << c.msg_bytes
                     << " B: " << (c.picked ? c.plugin_label : std::string(kStockLabel)) << " (predicted)\n";
        }
    }

    void print_picks() {
        for (const SizeCase& c : plan_.cases) {
            std::optional<double> predicted;
            for (const ConfigTime& config : c.configs)
                if (config.config == c.pick) predicted = config.predicted;
            out_ << c.collective << " " << c.msg_bytes << " B: " << c.pick
                 << (predicted || options_.collectives.end() != std::find(options_.collectives.begin(),
                                                                         options_.collectives.end(), c.collective)
                         ? " (predicted " + us_text(predicted) + ")"
                         : std::string(csel::message_size_key(c.collective) ? " (measured at this size)"
                                                                          : " (measured; one choice per job shape)"))
                 << "\n";
        }
    }

    // Each further shape's picks from its measurements alone.
    void plan_shapes() {
        for (ShapeRun& run : shapes_) {
            run.plan = plan_tune(run.options, {}, db_->points(run.job.id), run.job.description);
            if (!run.plan.unpredicted.empty())
                throw TuneError("step 2 (shape " + to_string(run.shape) + "): no measurement for " +
                                run.plan.unpredicted.front());
            for (const SizeCase& c : run.plan.cases)
                out_ << "shape " << to_string(run.shape) << ": " << c.collective << " " << c.msg_bytes
                     << " B: " << c.pick << " (measured)\n";
        }
    }

    // Every plan of the tree, the main job's first, each with the picks step 5b put back.
    std::vector<std::pair<const TunePlan*, const std::vector<RevertedPick>*>> all_plans() const {
        std::vector<std::pair<const TunePlan*, const std::vector<RevertedPick>*>> plans{{&plan_, &reverted_}};
        for (const ShapeRun& run : shapes_) plans.push_back({&run.plan, &run.reverted});
        for (const PredictedShape& predicted : predicted_) plans.push_back({&predicted.plan, nullptr});
        return plans;
    }

    void generate() {
        std::vector<const TunePlan*> shapes;
        for (const auto& [plan, reverted] : all_plans())
            if (plan != &plan_) shapes.push_back(plan);
        const fs::path ch4 = ch4_tree_path(options_.tree_path);
        bool with_ch4 = false;
        try {
            const GenerateReport generated = plan_tree(plan_, stock_, shapes, ch4_stock_);
            csel::save_tree(generated.tree.tree, options_.tree_path);
            // the CH4 tree goes beside the tree (install-tree installs both), an earlier one goes
            with_ch4 = generated.ch4.has_value();
            if (with_ch4)
                csel::save_tree(generated.ch4->tree, ch4.string());
            else
                fs::remove(ch4);
            for (const std::string& line : generated.lines) out_ << line << '\n';
        } catch (const std::exception& e) {
            throw TuneError(std::string("step 3 (generate): ") + e.what());
        }
        out_ << "wrote " << options_.tree_path << '\n';
        if (with_ch4) out_ << "wrote " << ch4.string() << " (the CH4 tree tuned with it)\n";
        // the pair is timed and stored as one tree; the coverage file is the MPIR tree's
        // (show-tree checks it against that file)
        const std::string mpir = read_whole_file(options_.tree_path);
        digest_ = tree_digest(mpir + (with_ch4 ? read_whole_file(ch4.string()) : std::string()));
        save_coverage(tree_coverage(tree_digest(mpir), all_plans()), coverage_path(options_.tree_path));
    }

    void verify(const std::string& title) {
        run_step(title, {verify_launch(options_, hiertune_, options_.tree_path, plan_.verify)}, out_);
        for (const ShapeRun& run : shapes_)
            run_step(title + ", shape " + to_string(run.shape),
                     {verify_launch(run.options, hiertune_, options_.tree_path, run.plan.verify)}, out_);
    }

    // The sizes where the tree picked MPICH's selection run what no tree runs: not timed
    // (fixed here, before step 5b puts more picks back, so that the report finds the
    // rows step 5 timed).
    void time_tree() {
        if (!options_.time_every_size) options_.same_as_no_tree = stock_cases(plan_);
        tree_timing_step(options_, hiertune_, job_, *db_, digest_, report_dir_, out_);
        for (ShapeRun& run : shapes_)
            if (!run.options.time_every_size) run.options.same_as_no_tree = stock_cases(run.plan);
        for (const ShapeRun& run : shapes_)
            tree_timing_step(run.options, hiertune_, run.job, *db_, digest_,
                             report_dir_ / ("shape-" + to_string(run.shape)), out_);
        timed_digest_ = digest_;
    }

    void report() {
        measure_plan(plan_, db_->points(job_.id));
        std::string shapes_text, failed;
        for (const ShapeRun& run : shapes_) shapes_text += shape_report_text(run, *db_, timed_digest_, failed);
        for (const PredictedShape& predicted : predicted_) {
            shapes_text += '\n';
            for (const std::string& line : predicted_shape_lines(predicted, basis_)) shapes_text += line + '\n';
        }
        std::vector<std::string> notes = shared_cores_lines(plan_, db_->shared_cores(job_.id), options_.keep_unproven);
        if (!options_.same_as_no_tree.empty())
            notes.push_back("tree timing: " + std::to_string(options_.same_as_no_tree.size()) +
                            " sizes not timed, where the tree picked MPICH's selection (it runs what no tree runs)");
        for (const std::string& line : budget_lines(options_.budget_s, elapsed(), budget_cuts_)) notes.push_back(line);
        for (const std::string& line : spend_lines(spent_, options_.budget_s, elapsed())) notes.push_back(line);
        write_tune_report(options_, job_, *db_, plan_, reverted_, timed_digest_, notes, !budget_cuts_.empty(),
                          shapes_text, report_dir_, out_);
        if (!failed.empty()) throw TuneError("further shape " + failed + ": see " + (report_dir_ / "report.txt").string());
    }

    // Step 5b: the picks the timing of this tree did not find faster become stock; a
    // changed tree is made and verified.  Its timing stays the timed tree's: the picks
    // make the tree (plan_tree), and only the ones put back changed, to MPICH's selection,
    // which runs what no tree runs; at every other size the new tree chooses alike.
    void keep_measured_faster_picks() {
        TreeTimingReport timing;
        try {
            timing = stored_tree_timing(options_, *db_, job_.id, digest_, true);
        } catch (const std::runtime_error& e) {
            throw TuneError(std::string("step 5b: the tree timing: ") + e.what());
        }
        reverted_ = keep_measured_faster(plan_, timing);
        bool any = !reverted_.empty();
        if (any)
            for (const std::string& line : reverted_lines(reverted_)) out_ << line << '\n';
        for (ShapeRun& run : shapes_) {
            run.reverted = keep_measured_faster(run.plan, shape_tree_timing(run, *db_, digest_, true));
            if (run.reverted.empty()) continue;
            any = true;
            out_ << "shape " << to_string(run.shape) << ": ";
            for (const std::string& line : reverted_lines(run.reverted)) out_ << line << '\n';
        }
        if (!any) {
            out_ << "no pick left that the timing did not find faster: the tree stays\n";
            return;
        }
        generate();
        verify("step 5b (verify)");
        out_ << "the tree timed in step 5 stands for this one: the same choices but where picks went back to MPICH's "
                "selection\n";
    }

    std::string sweep_stored() {
        measure_plan(plan_, db_->points(job_.id));
        return sweep_complete(plan_) ? "every configuration measured in " + options_.db_path + ": nothing to measure"
                                     : std::string();
    }

    // Each job while it is estimated to end inside the budget (tune_budget.hpp); not
    // those of a collective an earlier run swept whole.  The step's done-test
    // (sweep_stored) measured the plan against the database just before.  A collective's
    // runs left are shared among its jobs by their configurations.
    void sweep() {
        const std::map<std::string, std::size_t> runs_left = unmeasured_runs(plan_);
        const std::vector<SweepJob> jobs = sweep_jobs(options_, hiertune_);
        std::map<std::string, std::size_t> configurations;
        for (const SweepJob& job : jobs) configurations[job.collective] += job.configurations;
        std::vector<JobSpend> ran;
        const double first_rate = stock_seconds_per_run();
        for (const SweepJob& job : jobs) {
            const auto left = runs_left.find(job.collective);
            if (left == runs_left.end()) continue;
            const double runs = static_cast<double>(left->second) * static_cast<double>(job.configurations) /
                                static_cast<double>(configurations[job.collective]);
            const double estimate = job_estimate(ran, first_rate, runs);
            if (!fits_budget(options_.budget_s, elapsed(), estimate)) {
                budget_cuts_.push_back({"exhaustive sweep of " + sweep_job_name(job), estimate,
                                        std::max(0.0, options_.budget_s - elapsed())});
                out_ << "budget: " << budget_cuts_.back().job << " left out\n";
                continue;
            }
            ran.push_back({run_step("step 6 (bench)", {job.launch}, out_), runs});
        }
        double seconds = 0;
        for (const JobSpend& job : ran) seconds += job.seconds;
        out_ << "exhaustive sweep: " << seconds_text(seconds) << '\n';
    }

    // The sweep's first rate per run: the stock step's (stock_seconds_per_run).
    double stock_seconds_per_run() const {
        const std::map<std::string, double> times = db_->step_times(job_.id);
        const auto found = times.find("stock");
        return found == times.end() ? 0.0 : hiertune::stock_seconds_per_run(db_->points(job_.id), found->second);
    }

    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }

    TuneOptions& options_;  // step 0 files the job under its machine name
    const std::string& hiertune_;
    const fs::path report_dir_;
    const csel::Json stock_;
    const std::optional<csel::Json> ch4_stock_;
    std::ostream& out_;
    Job job_;
    std::optional<MeasureDb> db_;
    std::string elsewhere_;  // why a job's results are missing after it ran
    std::map<std::string, std::vector<han::Candidate>> seg_candidates_;  // step 2's, for every plan_main
    TunePlan plan_;
    std::string digest_;        // the tree's (step 3, or step 5b's)
    std::string timed_digest_;  // the tree step 5 timed, whose timing the report gives
    std::vector<RevertedPick> reverted_;  // step 5b's
    std::vector<ShapeRun> shapes_;        // --shapes, from step 0 on
    std::vector<PredictedShape> predicted_;  // --predict-shapes, from step 2 on
    PredictionBasis basis_;                  // what they are predicted from
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();  // the budget's clock
    std::vector<BudgetCut> budget_cuts_;     // step 6's jobs the budget left out
    std::vector<StepSpend> spent_;           // each step's time in this run, as it ends
};

}  // namespace

// How jobs use the tree: the variables naming it (and the by_size crossovers its hier
// picks were measured with), or the install that carries both.
void write_use_it(const TuneOptions& options, std::ostream& out) {
    write_tree_latency_bytes(options.tree_path, options.latency_bytes);
    const std::string latency =
        options.latency_bytes > 0 ? " " + std::string(kLatencyBytesCvar) + "=" + std::to_string(options.latency_bytes)
                                  : std::string();
    out << "use it: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" << options.tree_path << latency << " mpiexec ...\n";
    if (fs::exists(ch4_tree_path(options.tree_path)))
        out << "  with MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE=" << ch4_tree_path(options.tree_path).string()
            << " (the CH4 compositions it picked)\n";
    if (options.install_prefix.empty())
        out << "or for every job of this install: hiertune install-tree " << options.tree_path
            << (options.latency_bytes > 0 ? " (it records " + latency_bytes_path(options.tree_path).string() + ")" : "")
            << '\n';
}

int run_tune(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err) {
    check_tune_options(options);
    if (const std::optional<std::string> why = tune_cliques_refusal(options, std::getenv(kNumCliquesEnv)))
        throw UsageError(*why);
    options.latency_bytes = latency_bytes_from_environment();
    options.db_path = fs::absolute(options.db_path).string();
    options.tree_path = fs::absolute(options.tree_path).string();
    const fs::path report_dir = fs::absolute(options.report_dir);
    check_launch_command(options);
    csel::Json stock = csel::load_mpir_tree(options.stock_path, "--stock");  // fail before measuring anything
    std::optional<csel::Json> ch4_stock;
    if (!options.ch4_stock_path.empty()) ch4_stock = csel::load_ch4_tree(options.ch4_stock_path, "--ch4-stock");
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    if (ec) throw UsageError("--report: cannot create the directory " + report_dir.string() + ": " + ec.message());

    TuneRun run(options, hiertune, report_dir, std::move(stock), std::move(ch4_stock), out);
    run.run_steps();
    (void)err;
    write_use_it(options, out);
    if (!options.install_prefix.empty()) run.install();
    return 0;
}

namespace {

// Where the tree's coverage file (tune writes it beside the tree) says the tree runs
// MPICH's own selection at the jobs' shape, a row compares two runs of the same choice:
// its slower verdict is noise (same_choice).  No file, or one of another tree: no mark.
void mark_stock_rows(const std::string& tree_path, const JobDescription& layout, TreeTimingReport& report,
                     std::ostream& err) {
    const std::optional<TreeCoverage> coverage = coverage_of_tree(tree_path, err, "no row marked as MPICH's own");
    if (!coverage) return;
    const csel::Json tree = csel::load_mpir_tree(tree_path, "--tree");
    for (TreeTimingRow& row : report.rows)
        row.same_choice =
            is_stock_source(source_at(tree, *coverage, row.collective, layout.ranks, layout.ppn, row.msg_bytes));
}

}  // namespace

int run_tree_timing(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err) {
    check_tree_timing_options(options);
    if (const std::optional<std::string> why = tune_cliques_refusal(options, std::getenv(kNumCliquesEnv)))
        throw UsageError(*why);
    options.tree_path = fs::absolute(options.tree_path).string();
    csel::load_mpir_tree(options.tree_path, "--tree");  // an unreadable or refused tree fails before any job
    if (fs::exists(ch4_tree_path(options.tree_path)))
        csel::load_ch4_tree(ch4_tree_path(options.tree_path).string(), "the CH4 tree beside --tree,");
    check_launch_command(options);

    // the jobs' output, in a directory of our own that goes when we do
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = (tmpdir && *tmpdir ? std::string(tmpdir) : std::string("/tmp")) + "/hiertune-tree.XXXXXX";
    if (!mkdtemp(pattern.data()))
        throw TuneError("cannot create a directory like " + pattern + ": " + std::strerror(errno));
    struct RemoveDir {
        fs::path path;
        ~RemoveDir() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } output_dir{pattern};

    std::vector<TreeTiming> timings;
    std::optional<JobDescription> layout;
    const auto store = [&](const TreeTimingOutput& output) {
        // every job must run as the first did, and as -n (and --nodes) say
        const JobDescription& ran = output.layout;
        if (ran.ranks != options.ranks || (options.nodes && ran.nodes != *options.nodes) ||
            (layout && !same_layout(ran, *layout)))
            throw TuneError("tree-timing: a job ran " + std::to_string(ran.ranks) + " ranks on " +
                            std::to_string(ran.nodes) + " nodes x " + std::to_string(ran.ppn) + " ppn, " +
                            ran.placement + ": not -n " + std::to_string(options.ranks) +
                            (options.nodes ? " --nodes " + std::to_string(*options.nodes) : std::string()) +
                            (layout ? " or not as the first job" : ""));
        layout = ran;
        timings.insert(timings.end(), output.timings.begin(), output.timings.end());
    };
    out << "# tree " << options.tree_path << '\n';
    run_tree_rounds(
        options, hiertune, output_dir.path, "tree-timing",
        [](const TimedGroup&, int, const std::string&) { return false; }, store, out);
    TreeTimingReport report = evaluate_tree_timings(tree_timing_cases(options, timings), options.tree_tolerance,
                                                    options.allow_tree_slower);
    mark_stock_rows(options.tree_path, *layout, report, err);
    out << "# " << layout->ranks << " ranks, " << layout->nodes << " nodes x " << layout->ppn << " ppn, "
        << layout->placement << "; " << options.tree_rounds << " rounds\n";
    write_tree_timing_text(report, out);
    if (report.failed()) {
        out.flush();
        err << "hiertune: error: " << tree_slower_error(report) << '\n';
        return 1;
    }
    return 0;
}

int run_analytic_report(const std::string& db_path, JobId fit_job, const std::string& out_dir, std::ostream& out) {
    const MeasureDb db = MeasureDb::open(db_path);
    ValidationTargets targets;
    targets.max_average_slowdown = 1.03;
    targets.max_worst_slowdown = 1.10;
    targets.max_task_share = 0.20;
    const AnalyticValidation validation = validate_analytic(db, fit_job, targets);
    const fs::path dir(out_dir);
    fs::create_directories(dir);
    std::ostringstream text, summary, predictions, defaults;
    for (const std::string& line : validation.lines) text << line << '\n';
    write_report_text(validation.report, text);
    write_default_text(validation, text);
    write_summary_csv(validation.report, summary);
    write_predictions_csv(validation.report, predictions);
    write_default_csv(validation, defaults);
    const fs::path predictions_csv = dir / "predictions.csv", png = dir / "prediction.png", script = dir / "prediction.gp";
    write_file(dir / "report.txt", text.str());
    write_file(dir / "summary.csv", summary.str());
    write_file(predictions_csv, predictions.str());
    write_file(dir / "defaults.csv", defaults.str());
    out << text.str();
    plot_with_gnuplot(script.string(), gnuplot_script(validation.report, predictions_csv.string(), png.string()),
                      png.string(), out);
    out << "report: " << dir.string() << " (report.txt, summary.csv, predictions.csv, defaults.csv)\n";
    const ValidationReport& r = validation.report;
    return r.slowdown_target_met() && r.worst_target_met().value_or(true) && r.time_target_met().value_or(false) ? 0
                                                                                                                : 1;
}

}  // namespace hiertune
