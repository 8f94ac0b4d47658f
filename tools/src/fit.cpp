#include "fit.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <mpi.h>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/report/bench_output.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/sweep.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"

namespace hiertune {

namespace {

enum Tag : int { kTagFanout = 11, kTagGather, kTagEager };

// Repeats `once` (which returns this rank's sample, or a negative number where
// the rank takes no sample) until rank 0's sampler says stop; rank 0 tells the
// others after each repetition, untimed.  Returns rank 0's summary.
template <class Once>
Summary repeat(const FitOptions& options, MPI_Comm comm, Once once) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    Sampler sampler(options.rule);
    const double start = MPI_Wtime();
    for (int go = 1; go;) {
        const double sample = once();
        if (rank == 0) {
            sampler.add(sample);
            go = !time_to_stop(sampler, MPI_Wtime() - start, options.max_time);
        }
        MPI_Bcast(&go, 1, MPI_INT, 0, comm);
    }
    return rank == 0 ? sampler.summary() : Summary{};
}

// Section 4.1: rank 0 posts a non-blocking send of the segment to every other
// rank of comm and waits for them all; a sample is the slowest rank's time from
// the barrier to its completion (the last child's receive).
Summary measure_fanout(std::vector<unsigned char>& buffer, std::uint64_t bytes, const FitOptions& options,
                       MPI_Comm comm) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int count = static_cast<int>(bytes);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(size), MPI_REQUEST_NULL);
    return repeat(options, comm, [&] {
        MPI_Barrier(comm);
        const double begin = MPI_Wtime();
        if (rank == 0) {
            for (int child = 1; child < size; ++child)
                MPI_Isend(buffer.data(), count, MPI_BYTE, child, kTagFanout, comm, &requests[child]);
            MPI_Waitall(size - 1, requests.data() + 1, MPI_STATUSES_IGNORE);
        } else {
            MPI_Recv(buffer.data(), count, MPI_BYTE, 0, kTagFanout, comm, MPI_STATUS_IGNORE);
        }
        double local = MPI_Wtime() - begin, slowest = 0;
        MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        return slowest;
    });
}

// The eager measurement (StoredEagerPoint), on rank 0's clock alone: rank 1 posts its
// receive, both pass a barrier, rank 0 sends with MPI_Send and receives the message
// back; a sample is the time MPI_Send took to return over half the round trip.
Summary measure_eager(std::vector<unsigned char>& buffer, std::uint64_t bytes, const FitOptions& options,
                      MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int count = static_cast<int>(bytes);
    std::vector<unsigned char> back(bytes + 1);
    return repeat(options, comm, [&] {
        MPI_Request request = MPI_REQUEST_NULL;
        if (rank == 1) MPI_Irecv(buffer.data(), count, MPI_BYTE, 0, kTagEager, comm, &request);
        MPI_Barrier(comm);
        if (rank == 1) {
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), count, MPI_BYTE, 0, kTagEager, comm);
            return -1.0;
        }
        const double begin = MPI_Wtime();
        MPI_Send(buffer.data(), count, MPI_BYTE, 1, kTagEager, comm);
        const double sent = MPI_Wtime() - begin;
        MPI_Recv(back.data(), count, MPI_BYTE, 1, kTagEager, comm, MPI_STATUS_IGNORE);
        return sent / ((MPI_Wtime() - begin) / 2);
    });
}

// Section 4.2: the collective from root 0, then every other rank sends
// gather_bytes to the root, which receives them in any order; timed at the
// root from the barrier.
int run_once(const std::string& collective, std::vector<unsigned char>& send, std::vector<unsigned char>& recv,
             std::uint64_t bytes, MPI_Comm comm) {
    const int count = static_cast<int>(bytes);
    if (collective == grammar::Collective::bcast) return MPI_Bcast(send.data(), count, MPI_BYTE, 0, comm);
    return MPI_Reduce(send.data(), recv.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm);
}

Summary measure_experiment(const FitKey& key, std::vector<unsigned char>& send, std::vector<unsigned char>& recv,
                           const FitOptions& options, MPI_Comm comm) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int gather = static_cast<int>(key.gather_bytes);
    std::vector<unsigned char> gathered(rank == 0 ? static_cast<std::size_t>(size) * key.gather_bytes + 1 : 1);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(size), MPI_REQUEST_NULL);
    return repeat(options, comm, [&] {
        MPI_Barrier(comm);
        const double begin = MPI_Wtime();
        run_once(key.collective, send, recv, key.msg_bytes, comm);
        if (gather > 0) {
            if (rank == 0) {
                for (int r = 1; r < size; ++r)
                    MPI_Irecv(gathered.data() + static_cast<std::size_t>(r) * key.gather_bytes, gather, MPI_BYTE, r,
                              kTagGather, comm, &requests[r]);
                MPI_Waitall(size - 1, requests.data() + 1, MPI_STATUSES_IGNORE);
            } else {
                MPI_Send(send.data(), gather, MPI_BYTE, 0, kTagGather, comm);
            }
        }
        return rank == 0 ? MPI_Wtime() - begin : -1.0;
    });
}

// An error of a setup step (bad input), agreed on by all ranks: 0, else rank 0 says it
// and every rank gets kBadInputStatus.
int agree(const std::string& error, std::ostream& err) {
    if (all_ok(error.empty())) return 0;
    return bad_input_on_every_rank(error, "failed on another rank", err);
}

std::string configuration_label(const FitKey& key) {
    return key.collective + " " + describe_configuration(PointKey{key.collective, key.msg_bytes, key.algorithm, key.params});
}

void print_fit(const analytic::FitResult& fit, const std::vector<StoredFitPoint>& points,
               const std::vector<StoredEagerPoint>& eager, std::ostream& out) {
    out << "# eager: MPI_Send's return over half the round trip (below " << analytic::kEagerRatio
        << ": sent eagerly)\n";
    out << std::left << std::setw(12) << "# bytes" << std::setw(10) << "ratio" << '\n';
    for (const StoredEagerPoint& p : eager)
        out << std::setw(12) << p.msg_bytes << std::fixed << std::setprecision(3) << p.summary.median << '\n';
    out << "# eager limit: " << fit.inputs.eager_bytes
        << " B (seg_* bcasts whose transfers are no larger: the link model)\n";
    out << "# gamma(P) = T(P) / T(2), non-blocking linear fan-out of one segment\n";
    out << std::left << std::setw(12) << "# segment" << std::setw(6) << "P" << std::setw(10) << "gamma" << '\n';
    for (const auto& [segment, gamma] : fit.inputs.gammas.by_segment)
        for (const auto& [procs, ratio] : gamma.measured())
            out << std::setw(12) << segment << std::setw(6) << procs << std::fixed << std::setprecision(3) << ratio
                << '\n';
    out << "# alpha, beta per algorithm (Huber fit of the experiments); worst = the largest |predicted/measured - 1|"
           " over its experiments\n";
    out << std::right << std::setw(12) << "# alpha (us)" << std::setw(14) << "beta (ns/B)" << std::setw(8) << "points"
        << std::setw(9) << "worst" << "  configuration\n";
    for (const FittedModel& model : fit.models) {
        const Configuration configuration = analytic::configuration_of(model);
        const analytic::Line line{model.alpha, model.beta};
        double worst = 0;
        for (const StoredFitPoint& p : points) {
            if (p.key.kind != kFitExperiment || p.key.collective != model.collective ||
                p.key.algorithm != model.algorithm || p.key.params != model.params)
                continue;
            const double predicted = analytic::experiment_cost(configuration, p.key.procs, p.key.msg_bytes,
                                                               p.key.gather_bytes, fit.inputs, line)
                                         .seconds(line);
            worst = std::max(worst, std::fabs(predicted / p.summary.median - 1));
        }
        const PointKey key{model.collective, 0, model.algorithm, model.params};
        out << std::fixed << std::setw(12) << std::setprecision(2) << model.alpha * 1e6 << std::setw(14)
            << std::setprecision(4) << model.beta * 1e9 << std::setw(8) << model.equations << std::setw(7)
            << std::setprecision(1) << worst * 100 << " %  " << model.collective << ' ' << describe_configuration(key)
            << '\n';
    }
    out << std::defaultfloat;
    for (const std::string& note : fit.notes) out << "# note: " << note << '\n';
}

// The configurations to fit, planned through bench's planner (values
// canonical as bench stores them), and the control variables they touch.
struct FitConfigurations {
    std::unique_ptr<MpiCvars> cvars;
    std::vector<Configuration> configurations;
    std::map<std::string, CvarValue> initial;
};

FitConfigurations plan_fit_configurations(const FitOptions& options) {
    FitConfigurations planned;
    planned.cvars = std::make_unique<MpiCvars>();
    const CvarCatalog& catalog = planned.cvars->catalog();
    for (const std::string& collective : options.collectives) {
        const std::vector<Configuration> of_collective = plan_configurations(
            {collective},
            analytic::fit_algorithm_specs(collective, options.algorithms, options.segsize, options.chain_fanout), {},
            catalog);
        planned.configurations.insert(planned.configurations.end(), of_collective.begin(), of_collective.end());
    }
    planned.initial = prepare_configurations(*planned.cvars, planned.configurations);
    return planned;
}

std::uint64_t largest_segment(const FitOptions& options) {
    std::uint64_t largest = 0;
    for (std::uint64_t segment : options.gamma_segsizes) largest = std::max(largest, segment);
    return largest;
}

// Powers of two from 1 KiB to the largest segment gamma is measured at.
std::vector<std::uint64_t> eager_sizes_of(const FitOptions& options) {
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t bytes = 1024; bytes <= largest_segment(options); bytes *= 2) sizes.push_back(bytes);
    return sizes;
}

std::vector<FitKey> fit_plan(const std::vector<Configuration>& configurations, const FitOptions& options, int world) {
    std::vector<FitKey> plan;
    for (std::uint64_t segment : options.gamma_segsizes)
        for (int procs = 2; procs <= world; ++procs) plan.push_back(FitKey{kFitGamma, "", "", {}, procs, segment, 0});
    for (const Configuration& c : configurations)
        for (std::size_t i = 0; i < options.sizes.size(); ++i)
            plan.push_back(FitKey{kFitExperiment, c.collective, c.algorithm, c.params, world, options.sizes[i],
                                  analytic::experiment_gather_bytes(options.gather_bytes, i)});
    return plan;
}

struct FitStore {
    std::optional<MeasureDb> db;
    JobId job = 0;
};

// 1 for each fit point and eager size the database lacks.
struct FitPending {
    std::vector<char> points;
    std::vector<char> eager;
};

// Rank 0: opens the database and says what is missing.
FitPending find_pending(const std::vector<FitKey>& plan, const std::vector<std::uint64_t>& eager_sizes,
                        const FitOptions& options, const JobFacts& facts, FitStore& store, std::ostream& err) {
    FitPending to_measure{std::vector<char>(plan.size(), 0), std::vector<char>(eager_sizes.size(), 0)};
    store.db = MeasureDb::open(options.db_path);
    store.job = store.db->find_or_create_job(facts.job);
    const std::vector<FitKey> pending = store.db->pending_fit_points(store.job, plan);
    const std::set<FitKey> missing(pending.begin(), pending.end());
    for (std::size_t i = 0; i < plan.size(); ++i) to_measure.points[i] = missing.count(plan[i]) ? 1 : 0;
    std::set<std::uint64_t> eager_stored;
    for (const StoredEagerPoint& p : store.db->eager_points(store.job)) eager_stored.insert(p.msg_bytes);
    std::size_t eager_pending = 0;
    for (std::size_t i = 0; i < eager_sizes.size(); ++i)
        eager_pending += to_measure.eager[i] = eager_stored.count(eager_sizes[i]) ? 0 : 1;
    err << "hiertune: " << options.db_path << " job " << store.job << " (" << describe_job(facts.job)
        << "): " << plan.size() - pending.size() << " of " << plan.size() << " fit points stored, " << pending.size()
        << " to measure; " << eager_sizes.size() - eager_pending << " of " << eager_sizes.size()
        << " eager points stored\n";
    return to_measure;
}

// The measurements of every rank; rank 0 records them.  finish() puts the
// control variables back and frees the communicators.
class FitMeasurement {
public:
    FitMeasurement(const FitOptions& options, FitConfigurations& planned, FitStore& store, std::uint64_t max_bytes,
                   std::ostream& err)
        : options_(options), planned_(planned), store_(store), err_(err), rank_(world_rank()),
          send_(max_bytes + 1, static_cast<unsigned char>(rank_)), recv_(max_bytes + 1, 0),
          current_(planned.initial), owned_(OwnedComm::dup(MPI_COMM_WORLD)), comm_(owned_.get()) {}

    void measure_eager_points(const std::vector<std::uint64_t>& sizes, const std::vector<char>& to_measure) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (!to_measure[i]) continue;
            const MPI_Comm pair = comm_of_first(2);
            Summary summary;
            if (pair != MPI_COMM_NULL) summary = measure_eager(send_, sizes[i], options_, pair);
            if (rank_ != 0) continue;
            try {
                store_.db->record_eager_point(store_.job, sizes[i], summary);
            } catch (const std::exception& e) {
                abort_on(e);
            }
        }
    }

    // The exit status: not 0 when the library refuses a configuration.
    int measure_points(const std::vector<FitKey>& plan, const std::vector<char>& to_measure) {
        for (std::size_t i = 0; i < plan.size(); ++i) {
            if (!to_measure[i]) continue;
            const FitKey& key = plan[i];
            if (key.kind == kFitGamma) {
                const MPI_Comm first = comm_of_first(key.procs);
                Summary summary;
                if (first != MPI_COMM_NULL) summary = measure_fanout(send_, key.msg_bytes, options_, first);
                record(key, summary);
                continue;
            }
            if (const int status = check_accepted(key)) return status;
            record(key, measure_experiment(key, send_, recv_, options_, comm_));
        }
        return 0;
    }

    void finish() {
        planned_.cvars->write_changed(planned_.initial, current_);
        first_ranks_.clear();
    }

private:
    // Rank 0: a failure to record ends the job (the others wait in the next measurement).
    void abort_on(const std::exception& e) {
        err_ << "hiertune: error: " << e.what() << '\n';
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    void record(const FitKey& key, const Summary& summary) {
        if (rank_ != 0) return;
        try {
            store_.db->record_fit_point(store_.job, key, summary);
        } catch (const std::exception& e) {
            abort_on(e);
        }
    }

    // The communicator of ranks 0 .. procs-1 (MPI_COMM_NULL beyond), split once.
    MPI_Comm comm_of_first(int procs) {
        auto found = first_ranks_.find(procs);
        if (found == first_ranks_.end()) {
            MPI_Comm sub = MPI_COMM_NULL;
            MPI_Comm_split(MPI_COMM_WORLD, rank_ < procs ? 0 : MPI_UNDEFINED, rank_, &sub);
            found = first_ranks_.emplace(procs, OwnedComm(sub)).first;
        }
        return found->second.get();
    }

    // A value MPI_T refuses, or (one untimed run with errors returned) one the
    // call refuses, ends the fit with the library's message: its status, else 0.
    int check_accepted(const FitKey& key) {
        const Configuration configuration{key.collective, key.algorithm, key.params};
        const std::string refused = planned_.cvars->write_changed_on_all(
            cvar_assignment(configuration, planned_.initial, planned_.cvars->catalog()), current_);
        int rc = MPI_SUCCESS;
        if (refused.empty()) {
            MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
            rc = run_once(key.collective, send_, recv_, key.msg_bytes, comm_);
            MPI_Comm_set_errhandler(comm_, MPI_ERRORS_ARE_FATAL);
        }
        if (refused.empty() && all_ok(rc == MPI_SUCCESS)) return 0;
        return bad_input_on_every_rank(
            "the MPI library rejects " + configuration_label(key) + (refused.empty() ? "" : ": " + refused), "", err_);
    }

    const FitOptions& options_;
    FitConfigurations& planned_;
    FitStore& store_;
    std::ostream& err_;
    const int rank_;
    std::vector<unsigned char> send_;
    std::vector<unsigned char> recv_;
    std::map<std::string, CvarValue> current_;
    OwnedComm owned_;
    MPI_Comm comm_;
    std::map<int, OwnedComm> first_ranks_;
};

// Rank 0 fits everything stored for the job and stores the models.
int fit_and_store(FitStore& store, double started, std::ostream& out, std::ostream& err) {
    try {
        const std::vector<StoredFitPoint> points = store.db->fit_points(store.job);
        const std::vector<StoredEagerPoint> eager = store.db->eager_points(store.job);
        const analytic::FitResult fit = analytic::fit_points(points, eager);
        for (const FittedModel& model : fit.models) store.db->record_fit_model(store.job, model);
        store.db->add_step_time(store.job, "fit", MPI_Wtime() - started);
        print_fit(fit, points, eager, out);
    } catch (const std::exception& e) {
        err << "hiertune: error: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

}  // namespace

int run_fit(const FitOptions& options, std::ostream& out, std::ostream& err) {
    const double started = MPI_Wtime();
    const int rank = world_rank();
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MpiToolsSession tools;
    if (world < 2) return bad_input_on_every_rank("fit needs at least 2 processes", "", err);

    FitConfigurations planned;
    std::string error;
    try {
        planned = plan_fit_configurations(options);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (const int status = agree(error, err)) return status;
    const std::vector<std::uint64_t> eager_sizes = eager_sizes_of(options);
    const std::vector<FitKey> plan = fit_plan(planned.configurations, options, world);

    const JobFacts facts = gather_job_facts(options.machine);
    FitStore store;
    FitPending to_measure{std::vector<char>(plan.size(), 0), std::vector<char>(eager_sizes.size(), 0)};
    if (rank == 0) {
        try {
            to_measure = find_pending(plan, eager_sizes, options, facts, store, err);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (const int status = agree(error, err)) return status;
    MPI_Bcast(to_measure.points.data(), static_cast<int>(to_measure.points.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(to_measure.eager.data(), static_cast<int>(to_measure.eager.size()), MPI_CHAR, 0, MPI_COMM_WORLD);

    std::uint64_t max_bytes = largest_segment(options);
    for (const FitKey& key : plan) max_bytes = std::max({max_bytes, key.msg_bytes, key.gather_bytes});
    FitMeasurement measurement(options, planned, store, max_bytes, err);
    measurement.measure_eager_points(eager_sizes, to_measure.eager);
    const int status = measurement.measure_points(plan, to_measure.points);
    measurement.finish();
    if (status != 0 || rank != 0) return status;
    return fit_and_store(store, started, out, err);
}

}  // namespace hiertune
