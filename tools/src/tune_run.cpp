#include "tune_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "calibration.hpp"
#include "cluster_env.hpp"
#include "csel_tree.hpp"
#include "generate.hpp"
#include "measure_db.hpp"
#include "report.hpp"
#include "task_bench.hpp"
#include "usage_error.hpp"
#include "validation.hpp"

namespace hiertune {

namespace {

namespace fs = std::filesystem;

constexpr int kExecFailed = 127;

// Runs argv with env added; returns the exit status (128 + signal when
// killed, kExecFailed when it could not be started).
int run_process(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                const std::string& stdout_path = "") {
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0) throw TuneError(std::string("cannot fork: ") + std::strerror(errno));
    if (pid == 0) {
        for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
        if (!stdout_path.empty()) {
            if (!freopen(stdout_path.c_str(), "w", stdout)) _exit(kExecFailed);
        }
        std::vector<char*> args;
        for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(kExecFailed);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw TuneError(std::string("waitpid: ") + std::strerror(errno));
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Whether execvp could start `command`: a path with a slash as it is, a
// bare name through PATH.
bool runnable(const std::string& command) {
    if (command.find('/') != std::string::npos) return access(command.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / command;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return true;
    }
    return false;
}

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
    if (!seconds) return "-";
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << *seconds * 1e6 << " us";
    return text.str();
}

// Step 0: the calibrate job (it keeps a stored calibration) names the job
// every later step files under; options.machine becomes its machine.
Job calibrate_step(TuneOptions& options, const std::string& hiertune, const fs::path& report_dir,
                   std::ostream& out) {
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
    out << "job " << job->id << ": " << describe_job(job->description) << '\n'
        << calibration_report(db.calibration(job->id));
    return *job;
}

bool tasks_complete(const MeasureDb& db, JobId job, const TuneOptions& options) {
    std::vector<TaskKey> plan;
    for (const std::string& collective : options.collectives)
        for (const Params& config : parse_task_configs(options.configs))
            for (std::uint64_t segsize : options.segsizes) {
                const auto keys = task_keys(collective, config, segsize);
                plan.insert(plan.end(), keys.begin(), keys.end());
            }
    return db.pending_tasks(job, plan).empty();
}

bool sweep_complete(const TuneCases& cases) {
    for (const SizeCase& c : cases.cases)
        for (const ConfigTime& config : c.configs)
            if (!config.measured) return false;
    return cases.unpredicted.empty();
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream file(path);
    file << text;
    file.close();
    if (!file) throw TuneError("cannot write " + path.string());
}

}  // namespace

int run_tune(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err) {
    check_tune_options(options);
    if (const std::optional<std::string> why = tune_cliques_refusal(options, std::getenv(kNumCliquesEnv)))
        throw UsageError(*why);
    options.db_path = fs::absolute(options.db_path).string();
    options.tree_path = fs::absolute(options.tree_path).string();
    const fs::path report_dir = fs::absolute(options.report_dir);
    if (options.launcher.empty() && access(options.mpiexec.c_str(), X_OK) != 0)
        throw TuneError("no mpiexec at " + options.mpiexec + " (give --mpiexec)");
    if (!options.launcher.empty() && !runnable(options.launcher.front()))
        throw TuneError("--launcher: cannot run '" + options.launcher.front() + "' (not an executable file" +
                        (options.launcher.front().find('/') == std::string::npos ? " in PATH)" : ")"));
    const csel::Json stock = csel::load_tree(options.stock_path);  // fail before measuring anything
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    if (ec) throw TuneError("cannot create the report directory " + report_dir.string() + ": " + ec.message());

    // (0) the links, and the job every later step files under
    out << "== tune step 0/6: calibrate the links\n";
    const Job job = calibrate_step(options, hiertune, report_dir, out);
    // a later job filed elsewhere (the launch placed the ranks otherwise) leaves this job incomplete
    const std::string elsewhere = " not stored under job " + std::to_string(job.id) + " (" +
                                  describe_job(job.description) +
                                  ") after the jobs ran: did the launch place the ranks otherwise than in step 0?";

    // (a) task benchmarks
    out << "== tune step 1/6: task benchmarks\n";
    {
        MeasureDb db = MeasureDb::open(options.db_path);
        if (tasks_complete(db, job.id, options)) {
            out << "all task benchmarks stored in " << options.db_path << ": nothing to measure\n";
        } else {
            // the jobs add each group's time to the database as it is stored (--account),
            // so the report's times survive a kill and a resume
            const double seconds = run_step("step 1 (tasks)", tasks_launches(options, hiertune), out);
            if (!tasks_complete(db, job.id, options)) throw TuneError("step 1 (tasks): task benchmarks" + elsewhere);
            out << "task benchmarks: " << seconds_text(seconds) << '\n';
        }
        // the stock reference: hier goes into the tree only where predicted faster
        if (options.stock) {
            const std::vector<std::string> missing = missing_stock_points(options, db.points(job.id));
            if (missing.empty()) {
                out << "stock selection measured at every size: nothing to measure\n";
            } else {
                const double seconds = run_step("step 1 (stock)", {stock_launch(options, hiertune)}, out);
                if (!missing_stock_points(options, db.points(job.id)).empty())
                    throw TuneError("step 1 (stock): stock points" + elsewhere);
                out << "stock reference: " << seconds_text(seconds) << '\n';
            }
        }
    }

    // (b) model predictions
    out << "== tune step 2/6: model predictions\n";
    MeasureDb db = MeasureDb::open(options.db_path);
    TuneCases cases = tune_cases(options, db.tasks(job.id), db.points(job.id), job.description.nodes);
    if (!cases.unpredicted.empty())
        throw TuneError("step 2 (model): no prediction for " + cases.unpredicted.front() +
                        " (task benchmarks missing in " + options.db_path + ")");
    for (const SizeCase& c : cases.cases) {
        std::optional<double> predicted;
        for (const ConfigTime& config : c.configs)
            if (config.config == c.pick) predicted = config.predicted;
        out << c.collective << " " << c.msg_bytes << " B: " << c.pick << " (predicted " << us_text(predicted)
            << ")\n";
    }

    // (c) the tree
    out << "== tune step 3/6: generate --from model\n";
    GenerateOptions generate;
    generate.source = GenerateSource::model;
    generate.collectives = options.collectives;
    generate.jobs = {job.id};
    generate.sizes = options.sizes;
    generate.model = options.model;
    generate.candidate_filter = [&](const han::Candidate& candidate) { return in_search_space(options, candidate); };
    try {
        const GenerateReport generated = generate_tree(db, stock, generate);
        csel::save_tree(generated.tree.tree, options.tree_path);
        for (const std::string& line : generated.lines) out << line << '\n';
    } catch (const std::exception& e) {
        throw TuneError(std::string("step 3 (generate): ") + e.what());
    }
    out << "wrote " << options.tree_path << '\n';

    // (d) the tree loaded into MPICH: the chosen algorithms run
    out << "== tune step 4/6: verify the tree in MPICH\n";
    run_step("step 4 (verify)", {verify_launch(options, hiertune, options.tree_path, cases.verify)}, out);

    // (e) the exhaustive sweep
    out << "== tune step 5/6: exhaustive sweep\n";
    if (sweep_complete(cases)) {
        out << "every configuration measured in " << options.db_path << ": nothing to measure\n";
    } else {
        const double seconds = run_step("step 5 (bench)", bench_launches(options, hiertune), out);
        out << "exhaustive sweep: " << seconds_text(seconds) << '\n';
    }

    // (f) the report
    out << "== tune step 6/6: validation report\n";
    cases = tune_cases(options, db.tasks(job.id), db.points(job.id), job.description.nodes);
    const std::map<std::string, double> times = db.step_times(job.id);
    const auto time_of = [&](const char* step) {
        const auto found = times.find(step);
        return found == times.end() ? std::nullopt : std::optional<double>(found->second);
    };
    ValidationReport report;
    // the stock reference is part of both ways of tuning
    const std::optional<double> stock_seconds = time_of("stock");
    try {
        const auto plus_stock = [&](std::optional<double> seconds) {
            return seconds && stock_seconds ? std::optional<double>(*seconds + *stock_seconds) : seconds;
        };
        report = validate(cases.cases, plus_stock(time_of("tasks")), plus_stock(time_of("bench")));
    } catch (const ValidationError& e) {
        throw TuneError(std::string("step 6 (report): ") + e.what());
    }
    std::ostringstream text;
    text << calibration_report(db.calibration(job.id)) << '\n';
    write_report_text(report, text);
    if (stock_seconds) {
        text << "(both times include the stock reference measurement, " << seconds_text(*stock_seconds) << ")\n";
        const std::optional<double> tasks = time_of("tasks"), bench = time_of("bench");
        if (tasks && bench && *bench > 0)
            text << "without it: task benchmarks " << seconds_text(*tasks) << " vs exhaustive sweep "
                 << seconds_text(*bench) << ", task share " << std::fixed << std::setprecision(1)
                 << *tasks / *bench * 100 << " %\n";
    }
    std::ostringstream summary, predictions;
    write_summary_csv(report, summary);
    write_predictions_csv(report, predictions);
    const fs::path predictions_csv = report_dir / "predictions.csv";
    const fs::path png = report_dir / "prediction.png";
    const fs::path script = report_dir / "prediction.gp";
    write_file(report_dir / "report.txt", text.str());
    write_file(report_dir / "summary.csv", summary.str());
    write_file(predictions_csv, predictions.str());
    write_file(script, gnuplot_script(report, predictions_csv.string(), png.string()));
    out << text.str();
    const int status = run_process({"gnuplot", script.string()}, {});
    if (status == kExecFailed)
        out << "gnuplot not found: no plot (install gnuplot-nox, then run: gnuplot " << script.string() << ")\n";
    else if (status != 0)
        throw TuneError("step 6 (report): gnuplot " + script.string() + " exited with status " +
                        std::to_string(status));
    else
        out << "plot: " << png.string() << '\n';
    out << "report: " << report_dir.string() << " (report.txt, summary.csv, predictions.csv)\n";
    (void)err;
    return 0;
}

}  // namespace hiertune
