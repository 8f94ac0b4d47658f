#include "tasks.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <mpi.h>

#include "hiertune/han_model.hpp"
#include "hiertune/stats.hpp"
#include "hiertune/task_bench.hpp"
#include "hiertune/usage_error.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"

namespace hiertune {

namespace {

struct Group {
    std::string collective;
    Params config;
    std::uint64_t segsize = 0;
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

// One repetition of a u-segment pipeline in the plugin's lock step
// (bcast_intra_hier.c, allreduce_intra_hier.c); the time of every step on
// this process.
std::vector<double> run_pipeline(han::Decomposition form, std::uint64_t segments, std::uint64_t segsize,
                                 unsigned char* buffer, const Comms& comms) {
    const bool allreduce = form != han::Decomposition::bcast;
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
        if (!one_step && comms.leader && comms.nodes > 1 && valid(ib))
            MPI_Ibcast(seg(ib), count, MPI_BYTE, 0, comms.leaders, &ib_req);
        if (allreduce && !one_step && comms.leader && comms.nodes > 1 && valid(ir))
            MPI_Ireduce(comms.leader_index == 0 ? MPI_IN_PLACE : seg(ir), seg(ir), count, MPI_UNSIGNED_CHAR, MPI_SUM,
                        0, comms.leaders, &ir_req);
        if (comms.node_size > 1 && valid(sb)) MPI_Bcast(seg(sb), count, MPI_BYTE, 0, comms.node);
        if (allreduce && comms.node_size > 1 && valid(sr))
            MPI_Reduce(comms.leader ? MPI_IN_PLACE : seg(sr), comms.leader ? seg(sr) : nullptr, count,
                       MPI_UNSIGNED_CHAR, MPI_SUM, 0, comms.node);
        MPI_Wait(&ib_req, MPI_STATUS_IGNORE);
        MPI_Wait(&ir_req, MPI_STATUS_IGNORE);
        MPI_Wait(&ia_req, MPI_STATUS_IGNORE);
        times[static_cast<std::size_t>(s)] = MPI_Wtime() - start;
    }
    return times;
}

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
    std::string text = group.collective + " segsize=" + std::to_string(group.segsize);
    for (const auto& [key, value] : group.config) text += " " + key + "=" + value;
    return text;
}

}  // namespace

int run_tasks(const TasksOptions& options, std::ostream& out, std::ostream& err) {
    const int rank = world_rank();
    MpiToolsSession tools;
    std::string error;

    // 1. The plan and its control variables, the same on every rank.
    std::vector<Group> groups;
    std::set<std::string> names;
    std::vector<std::string> skipped;  // configurations a collective has no pipeline for
    try {
        if (options.segsizes.empty()) throw UsageError("no segment size (--segsize)");
        for (std::uint64_t fs : options.segsizes)
            if (fs == 0 || fs > (1u << 30) / std::max<std::uint64_t>(options.steady_segments, 1))
                throw UsageError("segment size " + std::to_string(fs) + " out of range");
        task_runs(han::Decomposition::bcast, options.steady_segments);  // K >= 4
        for (const std::string& collective : options.collectives) {
            const std::vector<Params> configs = configs_for(collective, options.configs, &skipped);
            if (configs.empty())
                throw UsageError("no configuration applies to " + collective + " (" + skipped.back() + ")");
            for (const Params& config : configs) {
                for (const auto& [name, value] : submodule_cvars(collective, config)) names.insert(name);
                for (const auto& [name, value] : launch_cvars(collective, config)) {
                    const char* env = std::getenv(name.c_str());
                    const std::string current = env && *env ? env : "kary";
                    if (current != value)
                        throw UsageError(collective + " " + canonical_params(config) + " needs " + name + "=" + value +
                                         " at launch (MPICH reads it only in MPI_Init; it is " + current +
                                         "): time such configurations in a separate mpiexec");
                }
                for (std::uint64_t fs : options.segsizes) groups.push_back(Group{collective, config, fs});
            }
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty())) {
        if (rank == 0) err << "hiertune: error: " << error << '\n';
        return 1;
    }

    MpiCvars cvars;
    std::map<std::string, CvarValue> saved;
    try {
        cvars.prepare(names);
        for (const std::string& name : names) saved[name] = cvars.read(name);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty())) {
        if (rank == 0) err << "hiertune: error: " << (error.empty() ? "control variables unusable on another rank" : error) << '\n';
        return 1;
    }

    Comms comms;
    const JobFacts facts = gather_job_facts(options.machine);
    if (comms.nodes < 2) {
        if (rank == 0) err << "hiertune: error: the task benchmarks need at least 2 nodes (MPIR_CVAR_NUM_CLIQUES)\n";
        return 1;
    }

    // 2. Rank 0 decides which groups still need measuring.
    std::vector<char> to_run(groups.size(), 1);
    std::optional<MeasureDb> db;
    JobId job = 0;
    if (rank == 0 && !options.db_path.empty()) {
        try {
            db = MeasureDb::open(options.db_path);
            job = db->find_or_create_job(facts.job);
            for (std::size_t i = 0; i < groups.size(); ++i)
                to_run[i] = db->pending_tasks(job, task_keys(groups[i].collective, groups[i].config,
                                                              groups[i].segsize))
                                .empty()
                                ? 0
                                : 1;
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!all_ok(error.empty())) {
        if (rank == 0) err << "hiertune: error: " << error << '\n';
        return 1;
    }
    MPI_Bcast(to_run.data(), static_cast<int>(to_run.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (const std::string& note : skipped) err << note << '\n';
        const auto stored = std::count(to_run.begin(), to_run.end(), 0);
        err << stored << " of " << groups.size() << " task groups already stored, " << groups.size() - stored
            << " to measure (" << comms.nodes << " nodes)\n";
    }

    // 3. Measure.
    int status = 0;
    double mark = MPI_Wtime();  // --account: each group's time from the end of the previous one
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (!to_run[g]) continue;
        const Group& group = groups[g];
        const han::Decomposition form = han::decomposition(han::parse_collective(group.collective), group.config);
        try {
            for (const auto& [name, text] : submodule_cvars(group.collective, group.config))
                cvars.write(name, parse_cvar_value(cvars.catalog().lookup(name), text));
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (!all_ok(error.empty())) {
            if (rank == 0) err << "hiertune: error: " << describe(group) << ": " << error << '\n';
            status = 1;
            break;
        }

        const std::uint64_t steady = steady_run_segments(options.steady_segments, group.segsize, options.max_message);
        std::vector<unsigned char> buffer(steady * group.segsize, 1);
        std::map<std::string, std::vector<double>> samples;  // leaders: the first run providing a task wins
        const std::vector<std::uint64_t> runs = task_runs(form, steady);
        std::uint64_t all_steps = 0;
        for (std::uint64_t u : runs) all_steps += han::step_count(form, u);
        for (std::size_t r = 0; r < runs.size(); ++r) {
            const std::uint64_t u = runs[r];
            const std::size_t warmup = run_warmup(options.warmup, r);
            // bench's stopping rule per run: every leader's every task converged, or a cap;
            // the group's time cap is shared among its runs by their step counts
            const double run_cap = options.max_time * static_cast<double>(han::step_count(form, u)) /
                                   static_cast<double>(all_steps);
            std::map<std::string, std::vector<double>> run;
            double timed_since = 0;
            for (std::size_t rep = 0;; ++rep) {
                if (rep == warmup) timed_since = MPI_Wtime();
                MPI_Barrier(MPI_COMM_WORLD);
                const std::vector<double> steps = run_pipeline(form, u, group.segsize, buffer.data(), comms);
                if (comms.leader && rep >= warmup)
                    for (const auto& [task, time] : tasks_of_run(form, u, steps)) run[task].push_back(time);
                if (rep + 1 < warmup + options.min_reps) continue;
                if (rep + 1 >= warmup + options.reps) break;
                int local[2] = {1, 1};  // converged here, time left (rank 0's clock decides)
                for (const auto& [task, times] : run)
                    if (!summarize(times, options.precision).converged) local[0] = 0;
                if (rank == 0 && options.max_time > 0 && MPI_Wtime() - timed_since >= run_cap) local[1] = 0;
                int global[2] = {0, 0};
                MPI_Allreduce(local, global, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                if (global[0] || !global[1]) break;
            }
            for (auto& [task, times] : run) samples.emplace(task, std::move(times));
        }

        // 4. Per leader and task a summary, gathered on rank 0 (leader 0).
        const std::vector<std::string> tasks = han::task_names(form);
        if (comms.leader) {
            std::vector<double> mine(tasks.size() * kPacked, 0.0);
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                const auto found = samples.find(tasks[t]);
                if (found != samples.end() && !found->second.empty())
                    pack(summarize(found->second, options.precision), &mine[t * kPacked]);
            }
            std::vector<double> all(rank == 0 ? mine.size() * static_cast<std::size_t>(comms.nodes) : 0);
            MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                       static_cast<int>(mine.size()), MPI_DOUBLE, 0, comms.leaders);
            if (rank == 0) {
                std::ostringstream line;
                line << std::fixed << std::setprecision(2) << describe(group) << ":";
                for (std::size_t t = 0; t < tasks.size(); ++t) {
                    std::vector<TaskTiming> timings;
                    double worst = 0;
                    for (int leader = 0; leader < comms.nodes; ++leader) {
                        const double* packed = &all[(static_cast<std::size_t>(leader) * tasks.size() + t) * kPacked];
                        if (packed[0] < 1) continue;
                        timings.push_back(TaskTiming{leader, unpack(packed)});
                        worst = std::max(worst, timings.back().summary.median);
                    }
                    if (timings.size() != static_cast<std::size_t>(comms.nodes)) continue;
                    line << " " << tasks[t] << " " << worst * 1e6;
                    if (db) {
                        try {
                            db->record_task(job, TaskKey{group.collective, tasks[t], group.config, group.segsize},
                                            timings);
                        } catch (const std::exception& e) {
                            error = e.what();
                        }
                    }
                }
                out << line.str() << "  (us, max over leaders of the medians)\n" << std::flush;
                if (db && !options.account_step.empty() && error.empty()) {
                    const double now = MPI_Wtime();
                    try {
                        db->add_step_time(job, options.account_step, now - mark);
                    } catch (const std::exception& e) {
                        error = e.what();
                    }
                    mark = now;
                }
            }
        }
        if (!all_ok(error.empty())) {
            if (rank == 0) err << "hiertune: error: " << error << '\n';
            status = 1;
            break;
        }
    }

    // 5. Leave the library as it was.
    for (const auto& [name, value] : saved) {
        try {
            cvars.write(name, value);
        } catch (const std::exception&) {
        }
    }
    return status;
}

}  // namespace hiertune
