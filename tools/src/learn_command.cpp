#include "learn_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/usage_error.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"
#include "process.hpp"
#include "tune_command.hpp"

namespace hiertune {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One collective's learning: the learner, its space, and what the database
// gave it.
struct Learned {
    LearnSpace space;
    std::unique_ptr<ActiveLearner> learner;
    std::set<JobShape> loaded;  // shapes whose stored points were read (resume)
    std::size_t from_db = 0;      // points recorded from the database without measuring
    std::size_t measured = 0;     // points recorded from this run's jobs
};

class Runner {
public:
    Runner(const LearnRunOptions& options, std::string hiertune, std::ostream& out)
        : options_(options), hiertune_(std::move(hiertune)), out_(out), machine_(options.jobs.machine) {}

    // Learns one collective; returns the learner (trained on every recorded point).
    Learned learn(const std::vector<Configuration>& configurations);
    // --train-only: the learner trained on the stored points alone.
    Learned train(const std::vector<Configuration>& configurations);

private:
    Learned make(const std::vector<Configuration>& configurations) const;
    std::vector<JobShape> shapes() const;
    // Records the stored points of the job lying in the space; returns how many
    // points the learner did not hold yet, counted as measured when they are
    // among `measured_now` (a job of this run measured them), else as from
    // the database.
    std::size_t record_job(Learned& learned, const Job& job, const JobShape& shape,
                           const std::set<PointKey>& measured_now = {});
    // With the machine known: the stored points of every shape not read yet.
    std::size_t resume(Learned& learned);
    // Runs the groups' bench jobs (at once with --parallel) and records what
    // they stored.
    void measure(Learned& learned, const std::vector<LearnGroup>& groups);

    const LearnRunOptions& options_;
    const std::string hiertune_;
    std::ostream& out_;
    std::string machine_;  // empty until --machine or the first job names it
};

Learned Runner::make(const std::vector<Configuration>& configurations) const {
    Learned learned;
    learned.space = LearnSpace{options_.nodes, options_.ppn, options_.sizes, configurations};
    try {
        learned.learner = std::make_unique<ActiveLearner>(learned.space, options_.learn);
    } catch (const std::invalid_argument& e) {  // options_ are checked: the configurations
        throw UsageError(e.what());
    }
    return learned;
}

std::vector<JobShape> Runner::shapes() const {
    std::vector<JobShape> result;
    for (const int nodes : options_.nodes)
        for (const int ppn : options_.ppn) result.push_back(JobShape{nodes, ppn});
    return result;
}

std::size_t Runner::record_job(Learned& learned, const Job& job, const JobShape& shape,
                               const std::set<PointKey>& measured_now) {
    const MeasureDb db = MeasureDb::open(options_.jobs.db_path);
    std::size_t added = 0;
    for (const auto& [point, seconds] : stored_learn_points(db.points(job.id), shape, learned.space)) {
        const std::size_t before = learned.learner->measured_count();
        learned.learner->record(point, seconds);  // a point held already: the same median again
        if (learned.learner->measured_count() == before) continue;
        ++added;
        const Configuration& c = point.configuration;
        ++(measured_now.count(PointKey{c.collective, point.msg_bytes, c.algorithm, c.params}) ? learned.measured
                                                                                           : learned.from_db);
    }
    learned.loaded.insert(shape);
    return added;
}

std::size_t Runner::resume(Learned& learned) {
    if (machine_.empty()) return 0;
    const std::vector<Job> jobs = MeasureDb::open(options_.jobs.db_path).jobs();
    std::size_t added = 0;
    for (const JobShape& shape : shapes()) {
        if (learned.loaded.count(shape)) continue;
        learned.loaded.insert(shape);
        if (const std::optional<Job> job = find_shape_job(jobs, machine_, shape)) added += record_job(learned, *job, shape);
    }
    return added;
}

void Runner::measure(Learned& learned, const std::vector<LearnGroup>& groups) {
    // Start every group's job (one at a time unless --parallel placed them on
    // disjoint nodes), then wait for all: the database keeps what a failed
    // job stored, so a rerun resumes.
    std::vector<std::map<JobId, std::set<PointKey>>> held;  // per group: what the jobs of its shape hold already
    {
        const MeasureDb db = MeasureDb::open(options_.jobs.db_path);
        const std::vector<Job> jobs = db.jobs();
        for (const LearnGroup& group : groups)
            held.push_back(held_keys(jobs, [&](JobId id) { return db.points(id); }, group.shape, group_keys(group)));
    }
    std::vector<std::pair<Launch, pid_t>> running;
    const auto wait_all = [&]() {
        std::optional<std::string> failure;
        for (auto& [launch, pid] : running) {
            const int status = wait_process(pid);
            if (status != 0 && !failure)
                failure = status == kExecFailed ? "cannot run '" + launch.argv.front() + "' (or the job exited with " +
                                                      std::to_string(kExecFailed) + ")"
                                                : "the bench job exited with status " + std::to_string(status) +
                                                      ": " + describe(launch);
        }
        running.clear();
        if (failure) throw TuneError("learn: " + *failure);
    };
    for (const LearnGroup& group : groups) {
        Launch launch = learn_launch(options_, hiertune_, group);
        out_ << "$ " << describe(launch) << " > /dev/null" << std::endl;
        running.emplace_back(launch, start_process(launch.argv, launch.env, "/dev/null"));
        if (options_.parallel_nodes == 0) wait_all();
    }
    wait_all();

    const MeasureDb db = MeasureDb::open(options_.jobs.db_path);
    const std::vector<Job> jobs = db.jobs();
    const auto points_of = [&](JobId id) { return db.points(id); };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const LearnGroup& group = groups[g];
        const std::vector<PointKey> keys = group_keys(group);
        const std::optional<Job> job = launched_job(jobs, points_of, machine_, group.shape, keys);
        if (!job)
            throw TuneError("learn: the bench job of " + describe(group.shape) +
                            " stored its points in no job of that shape" +
                            (machine_.empty() ? std::string() : " of machine " + machine_) + " in " +
                            options_.jobs.db_path + ": did the launch place the ranks otherwise?");
        if (machine_.empty()) {  // the first job names the machine (the launch's HIERTUNE_MACHINE or rank 0's host)
            machine_ = job->description.machine;
            out_ << "machine: " << machine_ << " (named by the job; --machine sets it)\n";
        }
        // measured now: the keys the job did not hold before; its other stored
        // points of the space come too (resume, when the job named the machine)
        std::set<PointKey> measured(keys.begin(), keys.end());
        if (const auto before = held[g].find(job->id); before != held[g].end())
            for (const PointKey& key : before->second) measured.erase(key);
        record_job(learned, *job, group.shape, measured);
    }
    resume(learned);  // a machine just named: the other shapes' stored points
}

Learned Runner::learn(const std::vector<Configuration>& configurations) {
    Learned learned = make(configurations);
    ActiveLearner& learner = *learned.learner;
    const std::string& collective = configurations.front().collective;
    out_ << "== learn " << collective << ": " << learner.candidates().size() << " candidates ("
         << configurations.size() << " configurations x " << shapes().size() << " shapes x " << options_.sizes.size()
         << " sizes), batch " << options_.batch << '\n';
    const auto start = Clock::now();
    if (const std::size_t resumed = resume(learned))
        out_ << "resumed: " << resumed << " points of " << collective << " from " << options_.jobs.db_path
             << " (machine " << machine_ << ")\n";
    const double budget = options_.learn.convergence.time_budget_s;
    std::size_t iteration = 0;
    bool trained = false;  // the last forest saw every recorded point
    std::string stop;
    for (;;) {
        const double elapsed = seconds_since(start);
        if (learner.measured_count() >= options_.learn.initial_points) {
            const LearnStop state = learner.iterate(elapsed);
            trained = true;
            out_ << iteration_line(++iteration, learner.measured_count(), learner.summed_variance(), elapsed)
                 << std::endl;
            if (state != LearnStop::running) {
                stop = to_string(state);
                break;
            }
        } else if (budget > 0 && elapsed >= budget) {
            stop = to_string(LearnStop::time_budget);
            break;
        }
        // the start design and the random start in one go; then the batch of
        // the highest variances
        const std::size_t count = std::max(options_.batch, learner.start_wanted());
        const std::vector<LearnPoint> points = learner.next_points(count);
        if (points.empty()) {
            stop = "every candidate measured";
            break;
        }
        std::vector<LearnGroup> groups = group_points(points);
        if (options_.parallel_nodes > 0) {
            // IV-D: the groups that fit on disjoint nodes of the allocation run
            // at once; the others rank again next iteration
            const ScheduleRound round =
                schedule_round(group_node_needs(groups), options_.parallel_nodes, options_.rack_nodes);
            std::vector<LearnGroup> placed;
            out_ << "round:";
            for (const ScheduledRun& run : round) {
                placed.push_back(groups[run.point]);
                out_ << ' ' << describe(groups[run.point].shape) << " on nodes " << run.first_node << '-'
                     << run.first_node + run.node_count - 1;
            }
            out_ << '\n';
            groups = std::move(placed);
        }
        measure(learned, groups);
        trained = false;
    }
    if (!trained) {
        if (learner.measured_count() == 0)
            throw UsageError("learn " + collective + ": no point measured before the time budget ran out");
        learner.iterate(seconds_since(start));  // the tree's forest sees every point
    }
    std::ostringstream line;  // not on out_: its precision would stay
    line << collective << ": stopped (" << stop << ") after " << iteration << " iteration"
         << (iteration == 1 ? "" : "s") << ": " << learner.measured_count() << " points (" << learned.measured
         << " measured now, " << learned.from_db << " from the database), " << std::fixed << std::setprecision(1)
         << seconds_since(start) << " s";
    out_ << line.str() << std::endl;
    return learned;
}

Learned Runner::train(const std::vector<Configuration>& configurations) {
    Learned learned = make(configurations);
    const std::string& collective = configurations.front().collective;
    if (machine_.empty()) {
        const std::set<std::string> machines =
            machines_with_shapes(MeasureDb::open(options_.jobs.db_path).jobs(), shapes());
        if (machines.empty())
            throw UsageError("--train-only: " + options_.jobs.db_path + " has no job of the space's shapes");
        if (machines.size() > 1) {
            std::string names;
            for (const std::string& name : machines) names += (names.empty() ? "" : ", ") + name;
            throw UsageError("--train-only: " + options_.jobs.db_path + " has jobs of several machines (" + names +
                             "): give --machine");
        }
        machine_ = *machines.begin();
        out_ << "machine: " << machine_ << " (the one machine with jobs of these shapes)\n";
    }
    resume(learned);
    ActiveLearner& learner = *learned.learner;
    if (learner.measured_count() == 0)
        throw UsageError("--train-only: no stored point of " + collective + " in the space for machine " + machine_ +
                         " in " + options_.jobs.db_path + " (run without --train-only to measure)");
    learner.iterate(0);
    out_ << "== train " << collective << ": " << learner.measured_count() << " points from " << options_.jobs.db_path
         << '\n'
         << iteration_line(1, learner.measured_count(), learner.summed_variance(), 0) << '\n';
    return learned;
}

}  // namespace

std::vector<std::vector<Configuration>> plan_learn_configurations(const std::vector<std::string>& collectives,
                                                                  const std::vector<AlgorithmSpec>& algorithms,
                                                                  const std::vector<ParamSpec>& params) {
    MpiToolsSession tools;  // MPI_T only: the catalogue, without MPI_Init
    const MpiCvars cvars;
    std::vector<std::vector<Configuration>> result;
    for (const std::string& collective : collectives)
        result.push_back(plan_configurations({collective}, algorithms, params, cvars.catalog()));
    return result;
}

int run_learn(const LearnRunOptions& options, const std::vector<std::vector<Configuration>>& configurations,
              const std::string& hiertune, std::ostream& out) {
    check_learn_options(options);
    if (configurations.size() != options.collectives.size())
        throw std::logic_error("learn: configurations for " + std::to_string(configurations.size()) + " of " +
                               std::to_string(options.collectives.size()) + " collectives");
    if (!options.train_only)  // what is timed on cliques measures the scheduler
        if (const std::optional<std::string> why = learn_cliques_refusal(options, std::getenv(kNumCliquesEnv)))
            throw UsageError(*why);
    LearnRunOptions resolved = options;
    resolved.jobs.db_path = fs::absolute(options.jobs.db_path).string();
    std::optional<csel::Json> stock;
    if (!options.collect_only) {
        resolved.tree_path = fs::absolute(options.tree_path).string();
        stock = csel::load_mpir_tree(options.stock_path, "--stock");  // fail before measuring anything
    }
    if (options.train_only) {
        if (!fs::exists(resolved.jobs.db_path)) throw UsageError("--train-only: no database " + resolved.jobs.db_path);
    } else {
        // every shape's launch must be able to start
        for (const int nodes : options.nodes)
            for (const int ppn : options.ppn)
                check_launch_command(shape_options(resolved, JobShape{nodes, ppn}, options.sizes));
    }

    Runner runner(resolved, hiertune, out);
    std::vector<Learned> learned;
    for (const std::vector<Configuration>& of_collective : configurations)
        learned.push_back(options.train_only ? runner.train(of_collective) : runner.learn(of_collective));
    if (options.collect_only) {
        out << "--collect-only: no tree; the points are in " << resolved.jobs.db_path << '\n';
        return 0;
    }

    out << "== tree\n";
    std::vector<LearnedCollective> models;
    for (const Learned& l : learned) {
        const ActiveLearner* learner = l.learner.get();
        models.push_back(LearnedCollective{
            l.space, [learner](const LearnPoint& point) { return learner->predicted_seconds(point); }});
    }
    std::vector<std::string> lines;
    const csel::TreeInput input = learned_tree_input(models, &lines);
    for (const std::string& line : lines) out << line << '\n';
    if (input.choices.empty())
        throw UsageError("learn: no configuration a tree can name was learned (see the lines above)");
    const csel::TreeResult tree = build_checked_tree(*stock, input);
    csel::save_tree(tree.tree, resolved.tree_path);
    for (const std::string& collective : tree.unchanged)
        out << collective << ": stock is best everywhere, stock tree kept\n";
    out << tree.message_rules << " message-size rules written\n"
        << "wrote " << resolved.tree_path << '\n';
    return 0;
}

}  // namespace hiertune
