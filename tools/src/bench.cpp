#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>
#include <unistd.h>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/report/compare.hpp"
#include "hiertune/common/topology.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/tree/collective.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"
#include "payload.hpp"

namespace hiertune {

namespace {

// MPICH 5.0.1's own yield: usleep(1) after _NO_PROGRESS_COUNT polls without progress
constexpr const char* kThrottle = "MPIR_CVAR_CH4_PROGRESS_THROTTLE";
constexpr const char* kThrottleCount = "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT";

// A progress bar on stderr (draw_progress decides whether).
class Progress {
public:
    Progress(bool enabled, std::ostream& err, std::size_t total) : enabled_(enabled), err_(err), total_(total) {}
    void show(std::size_t done, const std::string& label) {
        if (!enabled_) return;
        err_ << '\r' << progress_line(done, total_, label) << "\033[K" << std::flush;
        shown_ = true;
    }
    void clear() {
        if (!shown_) return;
        err_ << "\r\033[K" << std::flush;
        shown_ = false;
    }

private:
    bool enabled_;
    std::ostream& err_;
    std::size_t total_;
    bool shown_ = false;
};


// The outcome of one group (the configurations of one size), in its order.
struct GroupMeasurement {
    std::vector<Summary> summaries;  // rank 0 only
    std::vector<double> seconds;     // rank 0 only: wall-clock time of each one's turns
    std::vector<char> data_ok;       // every rank: 1 if every rank held the right data every time
};

// Every rank gets the largest of each value over the ranks, by dissemination:
// ceil(log2 P) rounds of MPI_Sendrecv (a max may count a rank twice).  No Csel
// tree selects it, so the tree under test, which changes MPI_Barrier,
// MPI_Allreduce and MPI_Bcast too, does not change how the ranks enter the timed
// call.  Without values it is a barrier: the start of every timed call.
void max_over_ranks(std::vector<double>& values, MPI_Comm comm) {
    constexpr int kTag = 0x5717;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = static_cast<int>(values.size());
    std::vector<double> received(values.size());
    for (int distance = 1; distance < size; distance *= 2) {
        MPI_Sendrecv(values.data(), n, MPI_DOUBLE, (rank + distance) % size, kTag, received.data(), n, MPI_DOUBLE,
                     (rank - distance + size) % size, kTag, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; ++i) values[i] = std::max(values[i], received[i]);
    }
}

// Times the configurations of one size in turns: each round runs one
// repetition (warm-up included) of every configuration still going, its MPI_T
// writes first, so that all of them see the same machine state.  Each keeps
// its own Sampler and its own wall-clock time (its turns only); after each
// round rank 0 applies the stopping rule to each and broadcasts which go on,
// so that all ranks run the same turns.  The group ends when every
// configuration has converged or reached a cap.
GroupMeasurement measure_group(const std::vector<PointKey>& keys,
                               const std::vector<std::map<std::string, CvarValue>>& assignments, MpiCvars& cvars,
                               std::map<std::string, CvarValue>& current, const BenchOptions& options,
                               Payload& payload, MPI_Comm comm) {
    const int rank = world_rank();
    const std::size_t count = keys.size();
    const Payload::Call call = Payload::call_of(keys.front().collective);
    const std::size_t bytes = static_cast<std::size_t>(keys.front().msg_bytes);
    std::vector<Sampler> samplers(count, Sampler(options.rule));
    std::vector<double> elapsed(count, 0.0);
    std::vector<char> going(count, 1);
    std::vector<int> wrong(count, 0);
    for (std::size_t turn = 0; std::find(going.begin(), going.end(), 1) != going.end();) {
        for (std::size_t c = 0; c < count; ++c, ++turn) {
            if (!going[c]) continue;
            const double start = MPI_Wtime();
            cvars.write_changed(assignments[c], current);
            if (options.validate) payload.prepare(call, bytes, turn);
            std::vector<double> slowest;
            max_over_ranks(slowest, comm);
            const double begin = MPI_Wtime();
            payload.run(call, bytes, comm);
            slowest.push_back(MPI_Wtime() - begin);  // a collective ends when its last rank is done
            max_over_ranks(slowest, comm);
            if (options.validate && !payload.check(call, bytes, turn)) wrong[c] = 1;
            if (rank == 0) {
                samplers[c].add(slowest.front());
                elapsed[c] += MPI_Wtime() - start;
            }
        }
        if (rank == 0)
            for (std::size_t c = 0; c < count; ++c)
                going[c] = going[c] && !time_to_stop(samplers[c], elapsed[c], options.max_time);
        std::vector<double> decided(count, 0.0);  // rank 0's decision: the others add nothing to the max
        for (std::size_t c = 0; rank == 0 && c < count; ++c) decided[c] = going[c];
        max_over_ranks(decided, comm);
        for (std::size_t c = 0; c < count; ++c) going[c] = decided[c] > 0;
    }
    GroupMeasurement result;
    MPI_Allreduce(MPI_IN_PLACE, wrong.data(), static_cast<int>(count), MPI_INT, MPI_MAX, comm);
    for (std::size_t c = 0; c < count; ++c) {
        result.data_ok.push_back(wrong[c] == 0 ? 1 : 0);
        if (rank == 0) result.summaries.push_back(samplers[c].summary());
    }
    if (rank == 0) result.seconds = elapsed;
    return result;
}

// Runs a configuration once, untimed, with errors returned rather than fatal:
// a parameter value the library rejects (identically on every rank, since
// every rank wrote the same variables) then ends the run with the library's
// message instead of an abort.  Later calls keep MPI_ERRORS_ARE_FATAL, so a
// failure on some ranks only cannot leave the others waiting.  Returns the
// error text, empty if every rank succeeded.
std::string probe(const PointKey& key, Payload& payload, MPI_Comm comm) {
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int rc = payload.run(Payload::call_of(key.collective), static_cast<std::size_t>(key.msg_bytes), comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    int failed = rc == MPI_SUCCESS ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (!failed) return "";
    if (rc == MPI_SUCCESS) return "failed on another rank";
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    return std::string(text, static_cast<std::size_t>(length));
}

std::string point_label(const PointKey& key) {
    return key.collective + " " + describe_configuration(key) + " " + std::to_string(key.msg_bytes) + " B";
}

// MPI_T state: the catalogue, the planned configurations and their writes.
struct Plan {
    std::unique_ptr<MpiCvars> cvars;
    std::vector<Configuration> configurations;
    std::vector<PointKey> points;
    std::map<std::string, CvarValue> initial;  // every touched variable
    std::optional<CvarValue> throttle;
    std::optional<CvarValue> throttle_count;
};

Plan make_plan(const BenchOptions& options) {
    Plan plan;
    plan.cvars = std::make_unique<MpiCvars>();
    const CvarCatalog& catalog = plan.cvars->catalog();
    plan.configurations = plan_configurations(options.collectives, options.algorithms, options.params, catalog);
    plan.points = plan_points(plan.configurations, options.sizes);
    plan.initial = prepare_configurations(*plan.cvars, plan.configurations);
    if (catalog.find(kThrottle) && catalog.find(kThrottleCount)) {
        plan.cvars->prepare({kThrottle, kThrottleCount});
        plan.throttle = plan.cvars->read(kThrottle);
        plan.throttle_count = plan.cvars->read(kThrottleCount);
    }
    return plan;
}

void warn_oversubscription(const JobFacts& facts, const Plan& plan, std::ostream& err) {
    if (facts.oversubscribed.empty()) return;
    bool never_yields = plan.throttle && plan.throttle->integer == 0;
    for (const Configuration& configuration : plan.configurations) {
        const auto it = configuration.params.find(kThrottle);
        if (it != configuration.params.end()) never_yields = it->second == "0" || it->second == "false";
    }
    for (const HostLoad& host : facts.oversubscribed) {
        const bool one_kernel = host.host.find(',') != std::string::npos;  // emulated nodes of one machine
        err << "hiertune: " << (never_yields ? "warning" : "note") << ": host " << host.host
            << (one_kernel ? " (one machine)" : "") << " runs " << host.ranks << " ranks on " << host.cores
            << " cores";
        if (never_yields)
            err << " and " << kThrottle
                << " is off: waiting ranks spin without yielding the core, so timings measure the"
                   " scheduler; set it to 1 at launch (and " << kThrottleCount << ", e.g. 100)\n";
        else if (plan.throttle_count)
            err << "; waiting ranks yield their core after " << plan.throttle_count->text << " idle polls ("
                << kThrottleCount << ")\n";
        else
            err << "\n";
    }
}

// Rank 0's database: what is stored already, and where new points go.
struct BenchStore {
    std::optional<MeasureDb> db;
    JobId job_id = 0;
    std::map<PointKey, StoredPoint> stored;
    double mark = 0;  // --account: the time from the end of the previous stored point
};

// Rank 0: opens the database; 1 for each planned point it does not hold yet.
std::vector<char> points_to_measure(const Plan& plan, const BenchOptions& options, const JobFacts& facts,
                                    BenchStore& store) {
    std::vector<char> to_measure(plan.points.size(), 1);
    store.db = MeasureDb::open(options.db_path);
    store.job_id = store.db->find_or_create_job(facts.job);
    store.db->record_shared_cores(store.job_id, facts.oversubscribed);  // what its timings are worth
    for (StoredPoint& point : store.db->points(store.job_id)) store.stored.emplace(point.key, std::move(point));
    for (std::size_t i = 0; i < plan.points.size(); ++i) to_measure[i] = store.stored.count(plan.points[i]) ? 0 : 1;
    return to_measure;
}

std::vector<PointKey> selected_points(const Plan& plan, const std::vector<char>& to_measure) {
    std::vector<PointKey> points;
    for (std::size_t i = 0; i < plan.points.size(); ++i)
        if (to_measure[i]) points.push_back(plan.points[i]);
    return points;
}

ReportColumns report_columns(const std::vector<std::vector<std::size_t>>& groups, const Plan& plan,
                             const BenchOptions& options, const JobFacts& facts) {
    ReportColumns columns;
    for (const std::vector<std::size_t>& group : groups) columns.ratio_to_first |= group.size() > 1;
    if (facts.job.nodes >= 2)
        for (const Configuration& configuration : plan.configurations)
            columns.link_bound |= options.link_rate && !grammar::is_kind(configuration.collective, grammar::Collective::barrier);
    return columns;
}

void write_preamble(Reporter& reporter, const ReportColumns& columns, const BenchOptions& options,
                    const JobFacts& facts) {
    reporter.preamble(std::to_string(facts.job.ranks) + " ranks, " + std::to_string(facts.job.nodes) + " nodes x " +
                      std::to_string(facts.job.ppn) + " ppn, " + facts.job.placement +
                      "; Avg Latency = median over repetitions of the max-over-ranks time");
    if (columns.ratio_to_first)
        reporter.preamble("the configurations of a size are timed in turns, repetition by repetition; "
                          "Ratio to first = Avg Latency / that of the first configuration at the size");
    if (columns.link_bound)
        reporter.preamble("links " + std::to_string(std::llround(*options.link_rate)) + " B/s (" +
                          (options.cluster.empty() ? std::string(kLinkRateEnv) : options.cluster) +
                          "); Link bound = bytes through the busiest node link / rate");
}

// Measures the planned points size by size (collective, size), the
// configurations of a size in turns; stored points are reported from the
// database.  Every rank runs it; rank 0 reports and records.
class BenchLoop {
public:
    BenchLoop(const BenchOptions& options, Plan& plan, const JobFacts& facts, BenchStore& store,
              const std::vector<char>& to_measure, Payload& payload, MPI_Comm comm, std::ostream& out,
              std::ostream& err)
        : options_(options), plan_(plan), facts_(facts), store_(store), to_measure_(to_measure), payload_(payload),
          comm_(comm), err_(err), rank_(world_rank()), groups_(point_groups(plan.points)),
          columns_(report_columns(groups_, plan, options, facts)),
          reporter_(out, options.format, options.full, &facts.job, false, columns_),
          progress_(rank_ == 0 && draw_progress(options.progress, isatty(STDERR_FILENO), isatty(STDOUT_FILENO)), err,
                    plan.points.size()),
          current_(plan.initial), results_(plan.points.size()) {}

    // The exit status; leaves MPI_T as found.
    int run() {
        if (rank_ == 0) write_preamble(reporter_, columns_, options_, facts_);
        store_.mark = MPI_Wtime();
        for (std::size_t g = 0; g < groups_.size(); ++g) {
            const std::vector<std::size_t> measured = pending_of(groups_[g]);
            GroupMeasurement measurement;
            if (!measured.empty()) {
                const std::string failure = measure(measured, measurement);
                if (!failure.empty()) {
                    progress_.clear();
                    return finish(bad_input_on_every_rank(failure, "", err_));
                }
            }
            done_ += groups_[g].size();
            if (rank_ == 0) report_group(g, measured, measurement);
        }
        if (rank_ == 0 && unconverged_ > 0 && options_.reps == 0)
            err_ << "hiertune: " << unconverged_ << " of " << plan_.points.size()
                 << " points stopped at a cap before their 95% CI reached " << options_.rule.precision * 100
                 << "% (see -f / --json: n, converged)\n";
        return finish(failed_checks_ == 0 ? 0 : 1);
    }

private:
    int finish(int status) {
        progress_.clear();
        plan_.cvars->write_changed(plan_.initial, current_);
        return status;
    }

    // The group's points to measure, in plan order.
    std::vector<std::size_t> pending_of(const std::vector<std::size_t>& group) const {
        std::vector<std::size_t> measured;
        for (std::size_t i : group)
            if (to_measure_[i]) measured.push_back(i);
        return measured;
    }

    // Probes the configurations not run yet, then times the group; returns the
    // library's refusal of one of them, or "".
    std::string measure(const std::vector<std::size_t>& measured, GroupMeasurement& measurement) {
        const PointKey& first = plan_.points[measured.front()];
        progress_.show(done_, first.collective + " " + std::to_string(first.msg_bytes) + " B, " +
                                  std::to_string(measured.size()) + " configuration" +
                                  (measured.size() == 1 ? "" : "s"));
        std::vector<PointKey> keys;
        std::vector<std::map<std::string, CvarValue>> assignments;
        for (std::size_t i : measured) {
            const PointKey& key = plan_.points[i];
            keys.push_back(key);
            assignments.push_back(cvar_assignment(configuration_of(key), plan_.initial, plan_.cvars->catalog()));
            if (!probed_.insert(key.collective + " " + describe_configuration(key)).second) continue;
            // a value MPI_T refuses (the library's own check), else one the call refuses
            std::string failure = plan_.cvars->write_changed_on_all(assignments.back(), current_);
            if (failure.empty()) failure = probe(key, payload_, comm_);
            if (!failure.empty()) return "the MPI library rejects " + point_label(key) + ": " + failure;
        }
        measurement = measure_group(keys, assignments, *plan_.cvars, current_, options_, payload_, comm_);
        failed_checks_ +=
            static_cast<std::size_t>(std::count(measurement.data_ok.begin(), measurement.data_ok.end(), 0));
        return "";
    }

    // Rank 0: a failure to record ends the job, since the other ranks wait in
    // the next collective.
    void abort_on(const std::exception& e) {
        progress_.clear();
        err_ << "hiertune: error: " << e.what() << '\n';
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    // Rank 0: the result of point i, recorded if measured with the right data;
    // the seconds of its turns go to recorded_seconds when it is recorded.
    PointResult result_of(std::size_t i, const std::vector<std::size_t>& measured,
                          const GroupMeasurement& measurement, std::vector<double>& recorded_seconds) {
        PointResult result;
        result.key = plan_.points[i];
        const auto m = std::find(measured.begin(), measured.end(), i);
        if (m == measured.end()) {
            result.summary = store_.stored.at(result.key).summary;
            result.from_db = true;
            return result;
        }
        const auto c = static_cast<std::size_t>(m - measured.begin());
        result.summary = measurement.summaries[c];
        const bool data_ok = measurement.data_ok[c] != 0;
        if (options_.validate) result.data_ok = data_ok;
        if (!store_.db || !data_ok) return result;  // wrong data is reported, never stored
        try {
            store_.db->record_point(store_.job_id, result.key, result.summary);
            recorded_seconds.push_back(measurement.seconds[c]);
        } catch (const std::exception& e) {
            abort_on(e);
        }
        return result;
    }

    // --account: one row per stored point, the time since the previous row
    // shared in proportion to the points' own turns.
    void account(const std::vector<double>& recorded_seconds) {
        if (recorded_seconds.empty() || options_.account_step.empty()) return;
        const double now = MPI_Wtime();
        double turns = 0;
        for (double seconds : recorded_seconds) turns += seconds;
        try {
            for (double seconds : recorded_seconds)
                store_.db->add_step_time(store_.job_id, options_.account_step,
                                         (now - store_.mark) *
                                             (turns > 0 ? seconds / turns : 1.0 / recorded_seconds.size()));
        } catch (const std::exception& e) {
            abort_on(e);
        }
        store_.mark = now;
    }

    void report_group(std::size_t g, const std::vector<std::size_t>& measured, const GroupMeasurement& measurement) {
        const std::vector<std::size_t>& group = groups_[g];
        std::vector<PointResult> group_results;
        std::vector<double> recorded_seconds;
        for (std::size_t i : group) group_results.push_back(result_of(i, measured, measurement, recorded_seconds));
        account(recorded_seconds);
        progress_.clear();
        compare_configurations(group_results, options_.link_rate, facts_.job.nodes, facts_.job.ppn, facts_.job.ranks);
        for (std::size_t k = 0; k < group.size(); ++k) report_point(group[k], group_results[k]);
        const std::string& collective = plan_.points[group.front()].collective;
        const bool last_of_collective =
            g + 1 == groups_.size() || plan_.points[groups_[g + 1].front()].collective != collective;
        if (options_.format == OutputFormat::osu && last_of_collective) report_collective(collective);
    }

    // OSU: one header block per configuration, so a collective's rows are
    // written once all its sizes are measured; JSON and CSV rows as they come.
    void report_point(std::size_t i, const PointResult& result) {
        if (!result.summary.converged) ++unconverged_;
        if (result.data_ok == false)
            err_ << "hiertune: error: data check FAILED for " << point_label(result.key)
                 << ": some rank received wrong data\n";
        if (options_.format == OutputFormat::osu)
            results_[i] = result;
        else
            reporter_.point(result);
    }

    void report_collective(const std::string& collective) {
        for (std::size_t i = 0; i < plan_.points.size(); ++i)
            if (plan_.points[i].collective == collective) reporter_.point(results_[i]);
    }

    const BenchOptions& options_;
    Plan& plan_;
    const JobFacts& facts_;
    BenchStore& store_;
    const std::vector<char>& to_measure_;
    Payload& payload_;
    MPI_Comm comm_;
    std::ostream& err_;
    const int rank_;
    const std::vector<std::vector<std::size_t>> groups_;
    const ReportColumns columns_;
    Reporter reporter_;
    Progress progress_;
    std::map<std::string, CvarValue> current_;
    std::vector<PointResult> results_;
    std::set<std::string> probed_;  // configurations run once already
    std::size_t unconverged_ = 0, failed_checks_ = 0, done_ = 0;
};

}  // namespace

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
    const int rank = world_rank();
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MpiToolsSession tools;

    // Plan and validate everything on every rank; a bad algorithm, variable
    // or value stops all ranks together before anything is measured.
    Plan plan;
    std::string error;
    try {
        plan = make_plan(options);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "invalid setup on another rank", err);

    const JobFacts facts = gather_job_facts(options.machine);
    if (options.same_runs_once) {  // the same points on every rank: rank 0's count of the fullest node's ranks
        int ppn = facts.job.ppn;
        MPI_Bcast(&ppn, 1, MPI_INT, 0, MPI_COMM_WORLD);
        plan.points = distinct_runs(plan.points, ppn);
    }
    if (rank == 0) warn_oversubscription(facts, plan, err);

    BenchStore store;
    std::vector<char> to_measure(plan.points.size(), 1);
    if (rank == 0 && !options.db_path.empty()) {
        try {
            to_measure = points_to_measure(plan, options, facts, store);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "", err);
    MPI_Bcast(to_measure.data(), static_cast<int>(to_measure.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    const auto pending = static_cast<std::size_t>(std::count(to_measure.begin(), to_measure.end(), 1));
    if (rank == 0 && store.db)
        err << "hiertune: " << options.db_path << " job " << store.job_id << " (" << describe_job(facts.job)
            << "): " << plan.points.size() - pending << " of " << plan.points.size() << " points already stored, "
            << pending << " to measure\n";

    std::optional<Payload> payload;  // gather/scatter roots and allgather hold size x comm-size bytes
    try {
        payload.emplace(selected_points(plan, to_measure), rank, size);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty()))  // sizes this job cannot hold: bad input too
        return bad_input_on_every_rank(error, "out of memory on another rank", err);
    const OwnedComm comm = OwnedComm::dup(MPI_COMM_WORLD);
    return BenchLoop(options, plan, facts, store, to_measure, *payload, comm.get(), out, err).run();
}

}  // namespace hiertune
