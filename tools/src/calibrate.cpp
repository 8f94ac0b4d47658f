#include "calibrate.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include <mpi.h>

#include "hiertune/models/calibration.hpp"
#include "mpi_job.hpp"

namespace hiertune {

namespace {

enum Tag : int { kTagPing = 1, kTagStop, kTagControl, kTagData, kTagAck };
constexpr int kPingBytes = 8;

// Latency: ping-pong of 8 bytes.  The leader times round trips (a sample is
// half of one) until bench's stopping rule says stop, then sends a stop
// message instead of the next ping; the peer echoes until it gets that.
// Returns the leader's summary (the peer's is empty).
Summary ping_pong(int peer, bool lead, const CalibrateOptions& options, MPI_Comm comm) {
    unsigned char message[kPingBytes] = {};
    if (!lead) {
        for (;;) {
            MPI_Status status;
            MPI_Recv(message, kPingBytes, MPI_BYTE, peer, MPI_ANY_TAG, comm, &status);
            if (status.MPI_TAG == kTagStop) return {};
            MPI_Send(message, kPingBytes, MPI_BYTE, peer, kTagPing, comm);
        }
    }
    Sampler sampler(options.rule);
    const double start = MPI_Wtime();
    do {
        const double begin = MPI_Wtime();
        MPI_Send(message, kPingBytes, MPI_BYTE, peer, kTagPing, comm);
        MPI_Recv(message, kPingBytes, MPI_BYTE, peer, kTagPing, comm, MPI_STATUS_IGNORE);
        sampler.add((MPI_Wtime() - begin) / 2);
    } while (!time_to_stop(sampler, MPI_Wtime() - start, options.max_time));
    MPI_Send(message, 0, MPI_BYTE, peer, kTagStop, comm);
    return sampler.summary();
}

// Bandwidth: windows of --bw-window non-blocking sends of --bw-size bytes,
// each acknowledged by the peer with one byte once all arrived; a sample is
// the time of a window including the ack.  Before each window the leader
// tells the peer (untimed) whether one follows.  Returns the leader's summary
// of the window times.
Summary stream(int peer, bool lead, const CalibrateOptions& options, std::vector<unsigned char>& buffer,
               MPI_Comm comm) {
    const int count = static_cast<int>(options.bw_size);
    const int window = static_cast<int>(options.bw_window);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(window), MPI_REQUEST_NULL);
    unsigned char ack = 0;
    if (!lead) {
        for (;;) {
            int go = 0;
            MPI_Recv(&go, 1, MPI_INT, peer, kTagControl, comm, MPI_STATUS_IGNORE);
            if (!go) return {};
            for (int w = 0; w < window; ++w)  // a buffer of its own per message in flight
                MPI_Irecv(buffer.data() + static_cast<std::size_t>(w) * options.bw_size, count, MPI_BYTE, peer,
                          kTagData, comm, &requests[static_cast<std::size_t>(w)]);
            MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_BYTE, peer, kTagAck, comm);
        }
    }
    Sampler sampler(options.rule);
    const double start = MPI_Wtime();
    int go = 1;
    do {
        MPI_Send(&go, 1, MPI_INT, peer, kTagControl, comm);
        const double begin = MPI_Wtime();
        for (int w = 0; w < window; ++w)  // sends only read the buffer: one serves them all
            MPI_Isend(buffer.data(), count, MPI_BYTE, peer, kTagData, comm, &requests[static_cast<std::size_t>(w)]);
        MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_BYTE, peer, kTagAck, comm, MPI_STATUS_IGNORE);
        sampler.add(MPI_Wtime() - begin);
    } while (!time_to_stop(sampler, MPI_Wtime() - start, options.max_time));
    go = 0;
    MPI_Send(&go, 1, MPI_INT, peer, kTagControl, comm);
    return sampler.summary();
}

std::vector<std::string> names_of(const std::vector<LinkPair>& pairs) {
    std::vector<std::string> names;
    for (const LinkPair& pair : pairs) names.push_back(pair.link);
    return names;
}

std::vector<std::string> names_of(const std::vector<LinkCalibration>& links) {
    std::vector<std::string> names;
    for (const LinkCalibration& link : links) names.push_back(link.link);
    return names;
}

// Rank 0: opens the database; with --if-missing it keeps a stored calibration
// that has the same links and holds the expected rate (run then holds it).
// Returns whether to measure.
bool needs_measuring(const CalibrateOptions& options, const JobFacts& facts, const std::vector<LinkPair>& pairs,
                     std::optional<MeasureDb>& db, CalibrationRun& run, std::ostream& err) {
    db = MeasureDb::open(options.db_path);
    const JobId job = db->find_or_create_job(facts.job);
    db->record_shared_cores(job, facts.oversubscribed);  // tune's report names them
    run.job = job;
    const StoredCalibration stored = db->calibration(job);
    const bool same_links = !stored.links.empty() && names_of(stored.links) == names_of(pairs);
    const bool rate_holds = !options.expect_rate ||
                            all_hold(check_rates(stored.links, *options.expect_rate, options.tolerance_percent));
    if (options.if_missing && same_links && rate_holds) {
        run.links = stored.links;
        run.cluster = stored.cluster;
        run.from_db = true;
        run.measured_at = stored.measured_at;
        return false;
    }
    if (options.if_missing && same_links)
        err << "hiertune: the stored calibration of job " << job << " is off the expected rate: measuring "
            << "again\n";
    return true;
}

// One pair at a time; everybody else waits in the barrier.  The pairs' leaders
// add their links to run; returns the number of measurements (on this rank)
// that stopped at a cap.
std::size_t measure_links(const std::vector<LinkPair>& pairs, const CalibrateOptions& options, CalibrationRun& run) {
    const int rank = world_rank();
    std::size_t unconverged = 0;
    const OwnedComm owned = OwnedComm::dup(MPI_COMM_WORLD);
    const MPI_Comm comm = owned.get();
    std::vector<unsigned char> buffer;
    const double window_bytes = static_cast<double>(options.bw_size * options.bw_window);
    for (const LinkPair& pair : pairs) {
        if (rank == pair.first || rank == pair.second) {
            if (buffer.empty()) buffer.assign(options.bw_size * options.bw_window, 1);
            const bool lead = rank == pair.first;
            const int peer = lead ? pair.second : pair.first;
            const Summary latency = ping_pong(peer, lead, options, comm);
            const Summary window = stream(peer, lead, options, buffer, comm);
            if (lead) {
                run.links.push_back(
                    LinkCalibration{pair.link, latency.median, window_bytes / window.median, latency.n, window.n});
                unconverged += (latency.converged ? 0 : 1) + (window.converged ? 0 : 1);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return unconverged;
}

// Rank 0: the table and the rate check; returns the exit status.
int report_calibration(const CalibrationRun& run, std::size_t unconverged, const std::string& error,
                       const CalibrateOptions& options, std::ostream& out, std::ostream& err) {
    int status = 0;
    if (!error.empty()) {
        err << "hiertune: error: " << error << '\n';
        status = 1;
    }
    write_calibration(run, options.format, out);
    out << std::flush;
    if (unconverged > 0) {  // one write: under mpiexec, stdout and stderr merge by writes
        std::ostringstream note;
        note << "hiertune: " << unconverged << " of " << 2 * run.links.size()
             << " measurements stopped at a cap before their 95% CI reached " << options.rule.precision * 100
             << "% (reps: latency/bandwidth repetitions)\n";
        err << note.str() << std::flush;
    }
    if (options.expect_rate) {
        std::ostream& verdicts = options.format == OutputFormat::osu ? out : err;
        const std::vector<RateVerdict> checked = check_rates(run.links, *options.expect_rate, options.tolerance_percent);
        for (const RateVerdict& verdict : checked) verdicts << verdict_line(verdict) << '\n';
        verdicts << std::flush;
        if (!all_hold(checked)) status = 1;
    }
    return status;
}

}  // namespace

int run_calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err) {
    const int rank = world_rank();
    std::string error;

    const std::vector<int> node_of_rank = node_of_each_rank();
    const std::vector<LinkPair> pairs = calibration_pairs(node_of_rank);
    const JobFacts facts = gather_job_facts(options.machine);
    if (pairs.empty() || pairs.front().link == kIntraLink)
        return bad_input_on_every_rank(
            "calibrate needs at least 2 nodes (MPI_COMM_TYPE_SHARED groups); this job has one", "", err);

    std::optional<MeasureDb> db;
    CalibrationRun run;
    run.job_description = rank == 0 ? &facts.job : nullptr;
    run.cluster = options.cluster;
    for (const HostLoad& load : facts.oversubscribed) run.shared_cores.push_back(to_string(load));
    int measure = 1;
    if (rank == 0 && !options.db_path.empty()) {
        try {
            measure = needs_measuring(options, facts, pairs, db, run, err) ? 1 : 0;
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "", err);
    MPI_Bcast(&measure, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && db)
        err << "hiertune: " << options.db_path << " job " << *run.job << " (" << describe_job(facts.job) << "): "
            << (measure ? "measuring " + std::to_string(pairs.size()) + (pairs.size() == 1 ? " link" : " links")
                        : "calibration stored (measured " + run.measured_at + "): nothing to measure")
            << '\n';

    std::size_t unconverged = 0;
    if (measure) {
        unconverged = measure_links(pairs, options, run);
        if (rank == 0 && db) {
            try {
                db->record_calibration(*run.job, run.links, run.cluster);
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
    }

    // every rank returns rank 0's verdict
    int status = rank == 0 ? report_calibration(run, unconverged, error, options, out, err) : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

}  // namespace hiertune
