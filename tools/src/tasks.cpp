#include "tasks.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <mpi.h>

#include "hiertune/models/han_model.hpp"
#include "hiertune/common/stats.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/task_bench.hpp"
#include "hiertune/common/usage_error.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"

namespace hiertune {

namespace {

struct Group {
    std::string collective;
    Params config;
    std::uint64_t segsize = 0;  // allgather's sg: the bytes per rank it gathers
    bool gather = false;        // allgather's sg alone (han::kGatherTask)
};

// The communicators of the pipeline: the node (MPI_COMM_TYPE_SHARED, which
// honours MPIR_CVAR_NUM_CLIQUES like the plugin's node split) and its leaders
// (local rank 0; world rank 0 is leader 0, the root's node).
struct Comms {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm leaders = MPI_COMM_NULL;
    int node_size = 1;
    bool leader = false;
    int leader_index = -1;
    int nodes = 0;

    Comms() {
        const int rank = world_rank();
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int local = 0;
        MPI_Comm_rank(node, &local);
        MPI_Comm_size(node, &node_size);
        leader = local == 0;
        MPI_Comm_split(MPI_COMM_WORLD, leader ? 0 : MPI_UNDEFINED, rank, &leaders);
        if (leader) {
            MPI_Comm_rank(leaders, &leader_index);
            MPI_Comm_size(leaders, &nodes);
        }
        MPI_Bcast(&nodes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    ~Comms() {
        if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
        MPI_Comm_free(&node);
    }
    Comms(const Comms&) = delete;
    Comms& operator=(const Comms&) = delete;
};

// One repetition of a u-segment pipeline in the plugin's lock step (its pipeline
// tables, hier_pipeline.h: bcast, reduce onto world rank 0, allreduce); the time of
// every step on this process.
std::vector<double> run_pipeline(han::Decomposition form, std::uint64_t segments, std::uint64_t segsize,
                                 unsigned char* buffer, const Comms& comms) {
    const bool reduces = han::has_stage(form, "sr");            // and ir unless one_step
    const bool bcasts = han::has_stage(form, "sb");             // and ib unless one_step
    const bool allreduce = reduces && bcasts;                   // ib after ir: lags 2 and 3
    const bool one_step = form == han::Decomposition::allreduce_ia;  // ia(s-1) instead of ir(s-1), ib(s-2)
    const std::int64_t u = static_cast<std::int64_t>(segments);
    const std::int64_t lag_ib = allreduce ? 2 : 0, lag_ir = 1, lag_ia = 1;
    const std::int64_t lag_sb = one_step ? 2 : allreduce ? 3 : 1;
    const int count = static_cast<int>(segsize);
    const auto valid = [u](std::int64_t t) { return t >= 0 && t < u; };
    const auto seg = [&](std::int64_t t) { return buffer + t * static_cast<std::int64_t>(segsize); };

    std::vector<double> times(han::step_count(form, segments));
    for (std::int64_t s = 0; s < static_cast<std::int64_t>(times.size()); ++s) {
        const double start = MPI_Wtime();
        MPI_Request ib_req = MPI_REQUEST_NULL, ir_req = MPI_REQUEST_NULL, ia_req = MPI_REQUEST_NULL;
        const std::int64_t ia = s - lag_ia, ib = s - lag_ib, ir = s - lag_ir, sb = s - lag_sb, sr = s;
        if (one_step && comms.leader && comms.nodes > 1 && valid(ia))
            MPI_Iallreduce(MPI_IN_PLACE, seg(ia), count, MPI_UNSIGNED_CHAR, MPI_SUM, comms.leaders, &ia_req);
        if (bcasts && !one_step && comms.leader && comms.nodes > 1 && valid(ib))
            MPI_Ibcast(seg(ib), count, MPI_BYTE, 0, comms.leaders, &ib_req);
        if (reduces && !one_step && comms.leader && comms.nodes > 1 && valid(ir))
            MPI_Ireduce(comms.leader_index == 0 ? MPI_IN_PLACE : seg(ir), seg(ir), count, MPI_UNSIGNED_CHAR, MPI_SUM,
                        0, comms.leaders, &ir_req);
        if (bcasts && comms.node_size > 1 && valid(sb)) MPI_Bcast(seg(sb), count, MPI_BYTE, 0, comms.node);
        if (reduces && comms.node_size > 1 && valid(sr))
            MPI_Reduce(comms.leader ? MPI_IN_PLACE : seg(sr), comms.leader ? seg(sr) : nullptr, count,
                       MPI_UNSIGNED_CHAR, MPI_SUM, 0, comms.node);
        MPI_Wait(&ib_req, MPI_STATUS_IGNORE);
        MPI_Wait(&ir_req, MPI_STATUS_IGNORE);
        MPI_Wait(&ia_req, MPI_STATUS_IGNORE);
        times[static_cast<std::size_t>(s)] = MPI_Wtime() - start;
    }
    return times;
}

// One repetition of the allgather ring (allgather_intra_hier.c) with u pieces
// of segsize bytes per node block: at step j a leader receives piece u + j
// from the left leader, sends piece j (its own, or one received u steps
// before) to the right one, bcasts piece j in the node, then waits for both;
// the last u steps only bcast.  Non-leaders bcast every piece.  The time of
// every step on this process; buffer holds nodes * u pieces.
std::vector<double> run_allgather_ring(std::uint64_t pieces_per_block, std::uint64_t segsize,
                                       unsigned char* buffer, const Comms& comms) {
    const std::int64_t u = static_cast<std::int64_t>(pieces_per_block);
    const std::int64_t pieces = u * comms.nodes, travelling = pieces - u;
    const int count = static_cast<int>(segsize);
    const auto piece = [&](std::int64_t t) { return buffer + t * static_cast<std::int64_t>(segsize); };
    const int left = (comms.leader_index - 1 + comms.nodes) % std::max(comms.nodes, 1);
    const int right = (comms.leader_index + 1) % std::max(comms.nodes, 1);

    std::vector<double> times(static_cast<std::size_t>(pieces));
    for (std::int64_t j = 0; j < pieces; ++j) {
        const double start = MPI_Wtime();
        MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        if (comms.leader && j < travelling) {
            MPI_Irecv(piece(u + j), count, MPI_BYTE, left, 0, comms.leaders, &requests[0]);
            MPI_Isend(piece(j), count, MPI_BYTE, right, 0, comms.leaders, &requests[1]);
        }
        if (comms.node_size > 1) MPI_Bcast(piece(j), count, MPI_BYTE, 0, comms.node);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        times[static_cast<std::size_t>(j)] = MPI_Wtime() - start;
    }
    return times;
}

// One repetition of allgather's sg: the node's blocks of bytes_per_rank onto
// its leader (buffer: node_size blocks); its time on this process.
double run_gather(std::uint64_t bytes_per_rank, unsigned char* buffer, const Comms& comms) {
    const int count = static_cast<int>(bytes_per_rank);
    const double start = MPI_Wtime();
    if (comms.node_size > 1)
        MPI_Gather(comms.leader ? MPI_IN_PLACE : buffer, count, MPI_BYTE, buffer, count, MPI_BYTE, 0, comms.node);
    return MPI_Wtime() - start;
}

// One run of a group: its share of the group's time cap (steps) and one
// repetition, which returns the tasks it timed on this process.
struct Run {
    std::uint64_t steps = 0;
    std::function<std::map<std::string, double>()> repeat;
};

constexpr int kPacked = 8;  // n, median, ci_lo, ci_hi, min, max, mean, converged

void pack(const Summary& s, double* out) {
    const double values[kPacked] = {static_cast<double>(s.n), s.median, s.ci_lo, s.ci_hi,
                                    s.min, s.max, s.mean, s.converged ? 1.0 : 0.0};
    std::copy(values, values + kPacked, out);
}

Summary unpack(const double* in) {
    Summary s;
    s.n = static_cast<std::size_t>(in[0]);
    s.median = in[1];
    s.ci_lo = in[2];
    s.ci_hi = in[3];
    s.min = in[4];
    s.max = in[5];
    s.mean = in[6];
    s.converged = in[7] != 0;
    return s;
}

std::string describe(const Group& group) {
    std::string text = group.collective + (group.gather ? " " + std::string(han::kGatherTask) + " bytes=" : " segsize=") +
                       std::to_string(group.segsize);
    for (const auto& [key, value] : group.config) text += " " + key + "=" + value;
    return text;
}

// What run_tasks measures: its groups, the control variables they set and the
// configurations a collective has no pipeline for.
struct TaskPlan {
    std::vector<Group> groups;
    std::set<std::string> cvar_names;
    std::vector<std::string> skipped;
};

void check_sizes(const TasksOptions& options) {
    if (options.segsizes.empty()) throw UsageError("no segment size (--segsize)");
    for (std::uint64_t fs : options.segsizes)
        if (fs == 0 || fs > (1u << 30) / std::max<std::uint64_t>(options.steady_segments, 1))
            throw UsageError("segment size " + std::to_string(fs) + " out of range");
    task_runs(han::Decomposition::bcast, options.steady_segments);  // K >= 4
}

// MPICH reads the launch-time control variables only in MPI_Init, so this job
// cannot time a configuration that needs other values than it was started with.
void check_launch_cvars(const std::string& collective, const Params& config) {
    for (const auto& [name, value] : launch_cvars(collective, config)) {
        const char* env = std::getenv(name.c_str());
        const std::string current = env && *env ? env : "kary";
        if (current != value)
            throw UsageError(collective + " " + canonical_params(config) + " needs " + name + "=" + value +
                             " at launch (MPICH reads it only in MPI_Init; it is " + current +
                             "): time such configurations in a separate mpiexec");
    }
}

void add_collective(const TasksOptions& options, const std::string& collective, TaskPlan& plan) {
    const std::vector<Params> configs = configs_for(collective, options.configs, &plan.skipped);
    if (configs.empty())
        throw UsageError("no configuration applies to " + collective + " (" + plan.skipped.back() + ")");
    for (const Params& config : configs) {
        for (const auto& [name, value] : submodule_cvars(collective, config)) plan.cvar_names.insert(name);
        check_launch_cvars(collective, config);
        for (std::uint64_t fs : options.segsizes) plan.groups.push_back(Group{collective, config, fs, false});
        if (collective == grammar::Collective::allgather)
            for (std::uint64_t m : options.gather_sizes) plan.groups.push_back(Group{collective, config, m, true});
    }
    if (collective == grammar::Collective::allgather && options.gather_sizes.empty())
        throw UsageError("allgather: no --sizes (the bytes per rank its node gather sg is timed at)");
}

// The same on every rank; throws UsageError on bad options.
TaskPlan plan_tasks(const TasksOptions& options) {
    TaskPlan plan;
    check_sizes(options);
    for (const std::string& collective : options.collectives) add_collective(options, collective, plan);
    for (std::uint64_t m : options.gather_sizes)
        if (m == 0 || m > (1u << 30)) throw UsageError("gather size " + std::to_string(m) + " out of range");
    return plan;
}

std::vector<TaskKey> keys_of(const Group& group) {
    if (group.gather) return {gather_task_key(group.config, group.segsize)};
    return task_keys(group.collective, group.config, group.segsize);
}

// Where rank 0 records the tasks, and since when the current group is accounted.
struct TaskStore {
    std::optional<MeasureDb> db;
    JobId job = 0;
    double mark = 0;  // --account: each group's time from the end of the previous one
};

// Rank 0: 1 for each group that has a task not yet in the database.
std::vector<char> groups_to_run(const std::vector<Group>& groups, const TasksOptions& options,
                                const JobFacts& facts, TaskStore& store) {
    std::vector<char> to_run(groups.size(), 1);
    if (options.db_path.empty()) return to_run;
    store.db = MeasureDb::open(options.db_path);
    store.job = store.db->find_or_create_job(facts.job);
    for (std::size_t i = 0; i < groups.size(); ++i)
        to_run[i] = store.db->pending_tasks(store.job, keys_of(groups[i])).empty() ? 0 : 1;
    return to_run;
}

// A group's runs and the buffer they share (the runs hold its address).
struct GroupRuns {
    std::vector<unsigned char> buffer;
    std::vector<Run> runs;
    std::vector<std::string> tasks;  // what the group stores
};

GroupRuns gather_runs(const Group& group, const Comms& comms) {
    GroupRuns g;
    g.buffer.assign(static_cast<std::size_t>(comms.node_size) * group.segsize, 1);
    unsigned char* data = g.buffer.data();
    const std::uint64_t bytes = group.segsize;
    g.runs.push_back(Run{1, [data, bytes, &comms] {
                             return std::map<std::string, double>{{han::kGatherTask, run_gather(bytes, data, comms)}};
                         }});
    g.tasks = {han::kGatherTask};
    return g;
}

GroupRuns allgather_ring_runs(const Group& group, std::uint64_t steady, const Comms& comms) {
    GroupRuns g;
    const std::uint64_t u = allgather_run_pieces(steady, comms.nodes);
    g.buffer.assign(static_cast<std::size_t>(u * static_cast<std::uint64_t>(comms.nodes) * group.segsize), 1);
    unsigned char* data = g.buffer.data();
    const std::uint64_t segsize = group.segsize;
    g.runs.push_back(Run{u * static_cast<std::uint64_t>(comms.nodes), [data, segsize, u, &comms] {
                             return tasks_of_allgather_run(u, comms.nodes,
                                                           run_allgather_ring(u, segsize, data, comms));
                         }});
    for (const std::string& task : han::task_names(han::Decomposition::allgather_ring))
        if (task != han::kGatherTask) g.tasks.push_back(task);
    return g;
}

GroupRuns pipeline_runs(const Group& group, han::Decomposition form, std::uint64_t steady, const Comms& comms) {
    GroupRuns g;
    g.buffer.assign(steady * group.segsize, 1);
    unsigned char* data = g.buffer.data();
    const std::uint64_t segsize = group.segsize;
    for (std::uint64_t u : task_runs(form, steady))
        g.runs.push_back(Run{han::step_count(form, u), [data, segsize, form, u, &comms] {
                                 return tasks_of_run(form, u, run_pipeline(form, u, segsize, data, comms));
                             }});
    g.tasks = han::task_names(form);
    return g;
}

GroupRuns runs_of(const Group& group, han::Decomposition form, const TasksOptions& options, const Comms& comms) {
    const std::uint64_t steady = steady_run_segments(options.steady_segments, group.segsize, options.max_message);
    if (group.gather) return gather_runs(group, comms);
    if (form == han::Decomposition::allgather_ring) return allgather_ring_runs(group, steady, comms);
    return pipeline_runs(group, form, steady, comms);
}

// bench's stopping rule per run, a Sampler per task on each leader: every leader's
// every task done (converged or at the cap of repetitions), or the run's time cap
// (rank 0's clock decides).  Leaders return their samplers, the others none.
std::map<std::string, Sampler> measure_run(const Run& run, std::size_t warmup, double run_cap,
                                           const TasksOptions& options, const Comms& comms) {
    StoppingRule rule;
    rule.precision = options.precision;
    rule.warmup_reps = warmup;
    rule.min_reps = options.min_reps;
    rule.max_reps = options.reps;
    const int rank = world_rank();
    std::map<std::string, Sampler> samplers;
    double timed_since = 0;
    for (std::size_t rep = 0;; ++rep) {
        if (rep == warmup) timed_since = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        const std::map<std::string, double> timed = run.repeat();
        if (comms.leader)
            for (const auto& [task, time] : timed) samplers.try_emplace(task, rule).first->second.add(time);
        if (rep + 1 < warmup + options.min_reps) continue;  // even past the time cap
        int local[2] = {1, 1};  // done here, time left
        for (const auto& [task, sampler] : samplers)
            if (!sampler.done()) local[0] = 0;
        if (rank == 0 && options.max_time > 0 && MPI_Wtime() - timed_since >= run_cap) local[1] = 0;
        int global[2] = {0, 0};
        MPI_Allreduce(local, global, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (global[0] || !global[1]) break;
    }
    return samplers;
}

// The group's time cap is shared among its runs by their step counts; the
// first run providing a task wins.
std::map<std::string, Sampler> measure_group(const std::vector<Run>& runs, const TasksOptions& options,
                                             const Comms& comms) {
    std::map<std::string, Sampler> samples;
    std::uint64_t all_steps = 0;
    for (const Run& run : runs) all_steps += run.steps;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const double run_cap = options.max_time * static_cast<double>(runs[r].steps) / static_cast<double>(all_steps);
        auto run = measure_run(runs[r], run_warmup(options.warmup, r), run_cap, options, comms);
        for (auto& [task, sampler] : run) samples.emplace(task, std::move(sampler));
    }
    return samples;
}

// Leaders: every leader's packed summaries of the tasks, gathered on rank 0.
std::vector<double> gather_summaries(const std::vector<std::string>& tasks,
                                     const std::map<std::string, Sampler>& samples, const Comms& comms) {
    std::vector<double> mine(tasks.size() * kPacked, 0.0);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const auto found = samples.find(tasks[t]);
        if (found != samples.end() && found->second.count() > 0)
            pack(found->second.summary(), &mine[t * kPacked]);
    }
    std::vector<double> all(world_rank() == 0 ? mine.size() * static_cast<std::size_t>(comms.nodes) : 0);
    MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
               MPI_DOUBLE, 0, comms.leaders);
    return all;
}

// Rank 0: the timings of task t on every leader; fewer than the nodes when a
// leader has none.
std::vector<TaskTiming> task_timings(const std::vector<double>& all, std::size_t t, std::size_t task_count,
                                     int nodes) {
    std::vector<TaskTiming> timings;
    for (int leader = 0; leader < nodes; ++leader) {
        const double* packed = &all[(static_cast<std::size_t>(leader) * task_count + t) * kPacked];
        if (packed[0] < 1) continue;
        timings.push_back(TaskTiming{leader, unpack(packed)});
    }
    return timings;
}

// Rank 0: prints the group's line and records its tasks; returns an error, or "".
std::string report_group(const Group& group, const std::vector<std::string>& tasks, const std::vector<double>& all,
                         int nodes, const TasksOptions& options, TaskStore& store, std::ostream& out) {
    std::string error;
    std::ostringstream line;
    line << std::fixed << std::setprecision(2) << describe(group) << ":";
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const std::vector<TaskTiming> timings = task_timings(all, t, tasks.size(), nodes);
        if (timings.size() != static_cast<std::size_t>(nodes)) continue;
        double worst = 0;
        for (const TaskTiming& timing : timings) worst = std::max(worst, timing.summary.median);
        line << " " << tasks[t] << " " << worst * 1e6;
        if (!store.db) continue;
        try {
            store.db->record_task(store.job, TaskKey{group.collective, tasks[t], group.config, group.segsize}, timings);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    out << line.str() << "  (us, max over leaders of the medians)\n" << std::flush;
    if (store.db && !options.account_step.empty() && error.empty()) {
        const double now = MPI_Wtime();
        try {
            store.db->add_step_time(store.job, options.account_step, now - store.mark);
        } catch (const std::exception& e) {
            error = e.what();
        }
        store.mark = now;
    }
    return error;
}

void set_group_cvars(const Group& group, MpiCvars& cvars) {
    for (const auto& [name, text] : submodule_cvars(group.collective, group.config))
        cvars.write(name, parse_cvar_value(cvars.catalog().lookup(name), text));
}

// Measures one group on every rank and reports it on rank 0; returns the exit
// status (the same on all ranks), 0 to go on.
int run_group(const Group& group, const TasksOptions& options, const Comms& comms, MpiCvars& cvars,
              TaskStore& store, std::ostream& out, std::ostream& err) {
    std::string error;
    try {
        set_group_cvars(group, cvars);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty()))  // a value MPI_T refuses
        return bad_input_on_every_rank(describe(group) + ": " + error, "", err);

    const han::Decomposition form = han::decomposition(han::parse_collective(group.collective), group.config);
    const GroupRuns group_runs = runs_of(group, form, options, comms);
    const auto samples = measure_group(group_runs.runs, options, comms);
    if (comms.leader) {
        const std::vector<double> all = gather_summaries(group_runs.tasks, samples, comms);
        if (world_rank() == 0) error = report_group(group, group_runs.tasks, all, comms.nodes, options, store, out);
    }
    if (!all_ok(error.empty())) {
        if (world_rank() == 0) err << "hiertune: error: " << error << '\n';
        return 1;
    }
    return 0;
}

// Every rank reads the control variables the groups set, to put them back after.
std::map<std::string, CvarValue> saved_cvars(const std::set<std::string>& names, MpiCvars& cvars) {
    std::map<std::string, CvarValue> saved;
    cvars.prepare(names);
    for (const std::string& name : names) saved[name] = cvars.read(name);
    return saved;
}

void restore_cvars(const std::map<std::string, CvarValue>& saved, MpiCvars& cvars) {
    for (const auto& [name, value] : saved) {
        try {
            cvars.write(name, value);
        } catch (const std::exception&) {
        }
    }
}

void print_pending(const TaskPlan& plan, const std::vector<char>& to_run, int nodes, std::ostream& err) {
    for (const std::string& note : plan.skipped) err << note << '\n';
    const auto stored = std::count(to_run.begin(), to_run.end(), 0);
    err << stored << " of " << plan.groups.size() << " task groups already stored, " << plan.groups.size() - stored
        << " to measure (" << nodes << " nodes)\n";
}

}  // namespace

int run_tasks(const TasksOptions& options, std::ostream& out, std::ostream& err) {
    const int rank = world_rank();
    MpiToolsSession tools;
    std::string error;
    TaskPlan plan;
    try {
        plan = plan_tasks(options);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "", err);

    MpiCvars cvars;
    std::map<std::string, CvarValue> saved;
    try {
        saved = saved_cvars(plan.cvar_names, cvars);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty()))
        return bad_input_on_every_rank(error, "control variables unusable on another rank", err);

    Comms comms;
    const JobFacts facts = gather_job_facts(options.machine);
    if (comms.nodes < 2)
        return bad_input_on_every_rank("the task benchmarks need at least 2 nodes (MPIR_CVAR_NUM_CLIQUES)", "", err);

    std::vector<char> to_run(plan.groups.size(), 1);
    TaskStore store;
    if (rank == 0) {
        try {
            to_run = groups_to_run(plan.groups, options, facts, store);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "", err);
    MPI_Bcast(to_run.data(), static_cast<int>(to_run.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) print_pending(plan, to_run, comms.nodes, err);

    int status = 0;
    store.mark = MPI_Wtime();
    for (std::size_t g = 0; g < plan.groups.size() && status == 0; ++g)
        if (to_run[g]) status = run_group(plan.groups[g], options, comms, cvars, store, out, err);
    restore_cvars(saved, cvars);
    return status;
}

}  // namespace hiertune
