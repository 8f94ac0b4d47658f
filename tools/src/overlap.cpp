#include "overlap.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iomanip>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <thread>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>
#include <sched.h>

#include <nlohmann/json.hpp>

#include "hiertune/models/overlap.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/report/overlap_report.hpp"
#include "hiertune/common/stats.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/tree/collective.hpp"
#include "mpi_cvars.hpp"
#include "mpi_job.hpp"
#include "payload.hpp"
#include "tune_command.hpp"

namespace hiertune {

namespace {

// Operation-major, in command-line order, without duplicates; pt2pt
// operations have MPICH's default only (-a selects collective algorithms).
std::vector<Configuration> plan_overlap(const OverlapOptions& options, const CvarCatalog& catalog) {
    std::vector<Configuration> configurations;
    for (const std::string& operation : options.operations) {
        const bool collective = is_collective_operation(operation);
        for (Configuration& configuration :
             plan_configurations({operation}, collective ? options.algorithms : std::vector<AlgorithmSpec>{},
                                 options.params, catalog, overlap_operations(), "operation"))
            if (std::find(configurations.begin(), configurations.end(), configuration) == configurations.end())
                configurations.push_back(std::move(configuration));
    }
    if (configurations.empty()) throw UsageError("no operation to measure");
    return configurations;
}

enum class Phase { comm, comp, overlap };

// The width of the table's operation column: the longest operation's name and a space.
int operation_width() {
    std::size_t width = 0;
    for (const std::string& operation : overlap_operations()) width = std::max(width, operation.size());
    return static_cast<int>(width) + 1;
}

// One operation at one size: buffers, synchronisation and the timed sequence
// start, [compute], wait.  Reductions use MPI_UNSIGNED_CHAR with MPI_SUM,
// the others MPI_BYTE; root 0.  A size is each rank's block where a rank holds one
// block per rank (iallgather; iallgatherv, bench's layout: Payload::allgatherv_layout;
// the reduce-scatters: the vector of them out, the rank's own block of the sum in,
// MPI_Ireduce_scatter with equal recvcounts; ialltoall: one block to each rank out, one
// from each rank in, with a send buffer of them as well; ialltoallv the same, bench's
// layout: Payload::alltoallv_layout; igatherv and iscatterv: bench's uneven blocks,
// Payload::uneven_layout, the root's all of them).  The send buffer holds
// `send_bytes` (send_buffer_bytes), at least one block.
class Runner {
public:
    Runner(std::size_t max_bytes, std::size_t send_bytes, int rank, int size)
        : counts_(static_cast<std::size_t>(size), 0),
          displs_(static_cast<std::size_t>(size), 0),
          sdispls_(static_cast<std::size_t>(size), 0),
          rank_(rank) {
        const std::size_t block = std::max<std::size_t>(max_bytes, 1);
        try {
            send_.assign(std::max(send_bytes, block), static_cast<unsigned char>(rank));
            recv_.assign(block * static_cast<std::size_t>(size), 0);
        } catch (const std::bad_alloc&) {
            throw std::runtime_error("rank " + std::to_string(rank) + " cannot allocate the message buffers");
        }
    }

    // The time of one repetition, in seconds, on rank 0 (pt2pt: the timed
    // side, rank 0; collectives: the slowest rank); -1 elsewhere.  Every rank
    // of the operation calls it.
    double run(const std::string& operation, std::size_t bytes, Phase phase, ComputeTeam& team, double comp_us,
               MPI_Comm comm) {
        const bool comm_phase = phase != Phase::comp;
        const bool compute = phase != Phase::comm;
        if (is_collective_operation(operation)) {
            MPI_Barrier(comm);
            const double begin = MPI_Wtime();
            MPI_Request request = MPI_REQUEST_NULL;
            if (comm_phase) start_collective(operation, bytes, comm, &request);
            if (compute) team.run(comp_us);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            const double local = MPI_Wtime() - begin;
            double slowest = 0;  // a collective ends when its last rank is done
            MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
            return rank_ == 0 ? slowest : -1;
        }
        return run_pt2pt(operation, bytes, comm_phase, compute, team, comp_us, comm);
    }

private:
    void start_collective(const std::string& operation, std::size_t bytes, MPI_Comm comm, MPI_Request* request) {
        const int count = static_cast<int>(bytes);
        switch (grammar::Collective::parse(operation).kind()) {
            case grammar::Collective::bcast: MPI_Ibcast(send_.data(), count, MPI_BYTE, 0, comm, request); return;
            case grammar::Collective::reduce:
                MPI_Ireduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm, request);
                return;
            case grammar::Collective::allreduce:
                MPI_Iallreduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
                return;
            case grammar::Collective::allgather:
                MPI_Iallgather(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, comm, request);
                return;
            case grammar::Collective::allgatherv:
                Payload::allgatherv_layout(count, counts_, displs_);  // unchanged until the call completes
                MPI_Iallgatherv(send_.data(), count, MPI_BYTE, recv_.data(), counts_.data(), displs_.data(), MPI_BYTE,
                                comm, request);
                return;
            case grammar::Collective::scan:
                MPI_Iscan(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
                return;
            case grammar::Collective::exscan:
                MPI_Iexscan(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
                return;
            // the vector of one block per rank goes out of recv_ (size blocks), the block into send_
            case grammar::Collective::reduce_scatter:
                std::fill(counts_.begin(), counts_.end(), count);  // unchanged until the call completes
                MPI_Ireduce_scatter(recv_.data(), send_.data(), counts_.data(), MPI_UNSIGNED_CHAR, MPI_SUM, comm,
                                    request);
                return;
            case grammar::Collective::reduce_scatter_block:
                MPI_Ireduce_scatter_block(recv_.data(), send_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
                return;
            case grammar::Collective::alltoall:  // send_ holds size blocks (send_buffer_bytes)
                MPI_Ialltoall(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, comm, request);
                return;
            case grammar::Collective::alltoallv:  // as alltoall; the arrays unchanged until the call completes
                Payload::alltoallv_layout(count, counts_, sdispls_, displs_);
                MPI_Ialltoallv(send_.data(), counts_.data(), sdispls_.data(), MPI_BYTE, recv_.data(), counts_.data(),
                               displs_.data(), MPI_BYTE, comm, request);
                return;
            // the root's blocks in (gatherv) or out of (scatterv) recv_, a rank's own block
            // out of or into send_; the arrays unchanged until the call completes
            case grammar::Collective::gatherv:
                Payload::uneven_layout(bytes, counts_, displs_);
                MPI_Igatherv(send_.data(), own_count(), MPI_BYTE, recv_.data(), counts_.data(), displs_.data(),
                             MPI_BYTE, 0, comm, request);
                return;
            case grammar::Collective::scatterv:
                Payload::uneven_layout(bytes, counts_, displs_);
                MPI_Iscatterv(recv_.data(), counts_.data(), displs_.data(), MPI_BYTE, send_.data(), own_count(),
                              MPI_BYTE, 0, comm, request);
                return;
            case grammar::Collective::gather:
            case grammar::Collective::scatter:
            case grammar::Collective::barrier: break;  // not among overlap_operations(): options refuse them
        }
        throw std::logic_error("overlap: no MPI call for '" + operation + "'");
    }

    // Rank 0 is timed, rank 1 its peer.  Rank 1 sends a 0-byte token once
    // its side is ready (for isend and both: after posting its receive), so
    // that the receiver is ready first, as the paper asks; a barrier would
    // release the ranks in an order the library picks.  The comp phase keeps
    // the token so that every phase starts alike.
    double run_pt2pt(const std::string& operation, std::size_t bytes, bool comm_phase, bool compute,
                     ComputeTeam& team, double comp_us, MPI_Comm comm) {
        const int count = static_cast<int>(bytes);
        constexpr int kToken = 1, kData = 2;
        if (rank_ > 1) return -1;
        if (rank_ == 1) {
            if (comm_phase && operation == "isend") {
                MPI_Send(nullptr, 0, MPI_BYTE, 0, kToken, comm);
                MPI_Recv(recv_.data(), count, MPI_BYTE, 0, kData, comm, MPI_STATUS_IGNORE);
            } else if (comm_phase && operation == "irecv") {
                MPI_Send(nullptr, 0, MPI_BYTE, 0, kToken, comm);
                MPI_Recv(nullptr, 0, MPI_BYTE, 0, kToken, comm, MPI_STATUS_IGNORE);  // rank 0's receive is posted
                MPI_Send(send_.data(), count, MPI_BYTE, 0, kData, comm);
            } else if (comm_phase) {  // both: rank 1 overlaps too
                MPI_Request requests[2];
                MPI_Irecv(recv_.data(), count, MPI_BYTE, 0, kData, comm, &requests[0]);
                MPI_Send(nullptr, 0, MPI_BYTE, 0, kToken, comm);
                MPI_Isend(send_.data(), count, MPI_BYTE, 0, kData, comm, &requests[1]);
                if (compute) team.run(comp_us);
                MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            } else {
                MPI_Send(nullptr, 0, MPI_BYTE, 0, kToken, comm);
            }
            return -1;
        }
        MPI_Recv(nullptr, 0, MPI_BYTE, 1, kToken, comm, MPI_STATUS_IGNORE);
        const double begin = MPI_Wtime();
        MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        if (comm_phase && operation == "isend") {
            MPI_Isend(send_.data(), count, MPI_BYTE, 1, kData, comm, &requests[0]);
        } else if (comm_phase && operation == "irecv") {
            // receive posted, then the 0-byte clear-to-send (the paper's CTS)
            MPI_Irecv(recv_.data(), count, MPI_BYTE, 1, kData, comm, &requests[0]);
            MPI_Send(nullptr, 0, MPI_BYTE, 1, kToken, comm);
        } else if (comm_phase) {
            MPI_Irecv(recv_.data(), count, MPI_BYTE, 1, kData, comm, &requests[0]);
            MPI_Isend(send_.data(), count, MPI_BYTE, 1, kData, comm, &requests[1]);
        }
        if (compute) team.run(comp_us);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        return MPI_Wtime() - begin;
    }

    // this rank's block of igatherv and iscatterv (counts_ as Payload::uneven_layout made it)
    int own_count() const { return counts_[static_cast<std::size_t>(rank_)]; }

    std::vector<unsigned char> send_;
    std::vector<unsigned char> recv_;
    // MPI_Ireduce_scatter's, MPI_Iallgatherv's, MPI_Ialltoallv's, MPI_Igatherv's and
    // MPI_Iscatterv's counts
    std::vector<int> counts_;
    std::vector<int> displs_;  // MPI_Iallgatherv's, MPI_Igatherv's, MPI_Iscatterv's displs; MPI_Ialltoallv's rdispls
    std::vector<int> sdispls_;  // MPI_Ialltoallv's sdispls
    int rank_;
};

std::string params_text(const Params& params) {
    std::string text;
    for (const auto& [name, value] : params) text += (text.empty() ? "" : " ") + name + "=" + value;
    return text;
}

class Printer {
public:
    Printer(std::ostream& out, std::ostream& err, OutputFormat format) : out_(out), err_(err), format_(format) {}

    // What the run measures under: the JSON's first object (overlap-report
    // reads it), a comment in the table, a line on stderr with CSV.
    void header(const OverlapSettings& settings) {
        if (format_ == OutputFormat::json)
            out_ << overlap_settings_json(settings) << '\n';
        else if (format_ == OutputFormat::csv)
            err_ << "hiertune: overlap: " << settings_label(settings) << ", MPI_THREAD_" << settings.thread_level
                 << '\n';
        else
            out_ << "# " << settings_label(settings) << ", MPI_THREAD_" << settings.thread_level << '\n';
        if (format_ == OutputFormat::csv)
            out_ << "operation,algorithm,params,size,comp_us,t_comm_us,t_comp_us,t_measured_us,ratio\n";
        else if (format_ == OutputFormat::osu)
            out_ << "# ratio = (t_measured - max(t_comm, t_comp)) / min(t_comm, t_comp): 0 overlap, 1 none\n"
                 << std::left << std::setw(operation_width()) << "# operation" << std::setw(12) << "algorithm"
                 << std::right << std::setw(9) << "size" << std::setw(11) << "comp_us" << std::setw(12)
                 << "t_comm_us" << std::setw(12) << "t_comp_us" << std::setw(11) << "t_meas_us" << std::setw(8)
                 << "ratio" << '\n';
    }

    void row(const Configuration& configuration, const OverlapCell& cell) {
        if (format_ == OutputFormat::json) {
            nlohmann::ordered_json row{{"operation", configuration.collective},
                                       {"algorithm", configuration.algorithm},
                                       {"params", configuration.params},
                                       {"size", cell.bytes},
                                       {"comp_us", cell.comp_us},
                                       {"t_comm_us", cell.t_comm_us},
                                       {"t_comp_us", cell.t_comp_us},
                                       {"t_measured_us", cell.t_measured_us},
                                       {"ratio", cell.ratio}};
            out_ << row.dump() << '\n';
        } else if (format_ == OutputFormat::csv) {
            out_ << csv_field(configuration.collective) << ',' << csv_field(configuration.algorithm) << ','
                 << csv_field(params_text(configuration.params)) << ',' << cell.bytes << ','
                  << fixed(cell.comp_us, 1) << ',' << fixed(cell.t_comm_us, 3) << ',' << fixed(cell.t_comp_us, 3) << ','
                 << fixed(cell.t_measured_us, 3) << ',' << fixed(cell.ratio, 4) << '\n';
        } else {
            out_ << std::left << std::setw(operation_width()) << configuration.collective << std::setw(12)
                 << configuration.algorithm << std::right << std::setw(9) << cell.bytes << std::setw(11)
                 << fixed(cell.comp_us, 1) << std::setw(12) << fixed(cell.t_comm_us, 3) << std::setw(12)
                 << fixed(cell.t_comp_us, 3) << std::setw(11) << fixed(cell.t_measured_us, 3) << std::setw(8)
                 << fixed(cell.ratio, 2) << '\n';
        }
        out_ << std::flush;
    }

    // The operation's verdict: JSON, a final object; CSV, a line on stderr
    // (stdout stays one table); the table, a comment.
    void verdict(const Configuration& configuration, const std::vector<OverlapCell>& cells) {
        const OverlapSummary summary = summarize_overlap(cells);
        const std::string label =
            series_label(OverlapSeries{configuration.collective, configuration.algorithm, configuration.params, {}});
        std::string text;
        nlohmann::ordered_json object{{"verdict", nullptr},
                                      {"operation", configuration.collective},
                                      {"algorithm", configuration.algorithm},
                                      {"params", configuration.params},
                                      {"cells", summary.cells},
                                      {"significant_cells", summary.significant}};
        if (!summary.verdict) {
            text = label + ": no verdict: no cell where t_comm and t_comp are each >= " +
                   fixed(kSignificantShare * 100, 0) + "% of the other (widen --comp)";
        } else {
            const std::string word = to_string(*summary.verdict);
            text = label + " overlaps " + (word == "overlaps" ? "" : word + " ") + "(median ratio " +
                   fixed(*summary.median_ratio, 2) + " over " + std::to_string(summary.significant) + " of " +
                   std::to_string(summary.cells) + " cells)";
            object["verdict"] = word;
            object["median_ratio"] = *summary.median_ratio;
        }
        if (format_ == OutputFormat::json)
            out_ << object.dump() << '\n';
        else if (format_ == OutputFormat::csv)
            err_ << "hiertune: " << text << '\n';
        else
            out_ << "# " << text << '\n';
        out_ << std::flush;
    }

private:
    std::ostream& out_;
    std::ostream& err_;
    OutputFormat format_;
};

// MPIR_CVAR_ASYNC_PROGRESS as this process runs with it ("" where the
// library has no such variable): MPICH reads it only in MPI_Init.
std::string read_async_progress(MpiCvars& cvars) {
    const std::string name = "MPIR_CVAR_ASYNC_PROGRESS";
    if (!cvars.catalog().find(name)) return "";
    return cvars.read_once(name).text;
}

std::string thread_level_name() {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    }
    return std::to_string(level);
}

// The cores this process may run on (its affinity mask: a binding or a
// container's cpuset counts).
int usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// What run_overlap measures, planned and checked the same on every rank.
struct OverlapPlan {
    std::unique_ptr<MpiCvars> cvars;
    std::vector<Configuration> configurations;
    std::map<std::string, CvarValue> initial;
    OverlapGrid grid;
};

OverlapPlan make_overlap_plan(const OverlapOptions& options) {
    OverlapPlan plan;
    plan.grid = make_overlap_grid(options.min_size, options.max_size, options.min_comp_us, options.max_comp_us,
                                  options.comp_points);
    plan.cvars = std::make_unique<MpiCvars>();
    plan.configurations = plan_overlap(options, plan.cvars->catalog());
    plan.initial = prepare_configurations(*plan.cvars, plan.configurations);
    return plan;
}

OverlapSettings settings_of(const OverlapOptions& options, int size, MpiCvars& cvars) {
    OverlapSettings settings;
    settings.ranks = size;
    settings.threads = options.threads;
    settings.reps = options.reps;
    settings.async_progress = read_async_progress(cvars);
    settings.thread_level = thread_level_name();
    const std::vector<int> nodes = node_of_each_rank();
    for (const int node : nodes)
        settings.ranks_per_node =
            std::max(settings.ranks_per_node, static_cast<int>(std::count(nodes.begin(), nodes.end(), node)));
    return settings;
}

// Collective: rank 0 warns when some rank's threads outnumber its cores.
void warn_if_crowded(const OverlapSettings& settings, const OverlapOptions& options, std::ostream& err) {
    const int cpus = usable_cpus();
    int crowded = settings.ranks_per_node * static_cast<int>(options.threads) > cpus ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &crowded, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank() == 0 && crowded)
        err << "hiertune: warning: " << settings.ranks_per_node << " ranks per node x " << options.threads
            << " computation threads > the cores a rank may use (" << cpus
            << " here): the ratios measure the scheduler as much as MPI\n";
}

// The three phases in turn, repetition by repetition, so that the references
// see the machine state of the overlap.  Rank 0 returns the cell; the others
// an empty one.
std::optional<OverlapCell> measure_cell(const std::string& collective, std::size_t bytes, double comp_us,
                                        std::size_t reps, Runner& runner, ComputeTeam& team, MPI_Comm comm) {
    const int rank = world_rank();
    StoppingRule fixed;  // one warm-up repetition, then exactly reps
    fixed.warmup_reps = 1;
    fixed.min_reps = fixed.max_reps = reps;
    Sampler comm_s(fixed), comp_s(fixed), measured_s(fixed);
    for (std::size_t rep = 0; rep <= reps; ++rep) {
        const double t_comm = runner.run(collective, bytes, Phase::comm, team, comp_us, comm);
        const double t_comp = runner.run(collective, bytes, Phase::comp, team, comp_us, comm);
        const double t_measured = runner.run(collective, bytes, Phase::overlap, team, comp_us, comm);
        if (rank != 0) continue;
        comm_s.add(t_comm);
        comp_s.add(t_comp);
        measured_s.add(t_measured);
    }
    if (rank != 0) return std::nullopt;
    OverlapCell cell;
    cell.bytes = bytes;
    cell.comp_us = comp_us;
    cell.t_comm_us = comm_s.summary().median * 1e6;
    cell.t_comp_us = comp_s.summary().median * 1e6;
    cell.t_measured_us = measured_s.summary().median * 1e6;
    cell.ratio = overhead_ratio(cell.t_measured_us, cell.t_comm_us, cell.t_comp_us);
    return cell;
}

// Every cell of the grid for one configuration (already written to MPI_T);
// rank 0 prints the rows and the verdict.
void measure_configuration(const Configuration& configuration, const OverlapGrid& grid, std::size_t reps,
                           Runner& runner, ComputeTeam& team, Printer& printer, MPI_Comm comm) {
    std::vector<OverlapCell> cells;
    for (const std::size_t bytes : grid.sizes)
        for (const double comp_us : grid.comp_us) {
            const auto cell = measure_cell(configuration.collective, bytes, comp_us, reps, runner, team, comm);
            if (!cell) continue;
            printer.row(configuration, *cell);
            cells.push_back(*cell);
        }
    if (world_rank() == 0) printer.verdict(configuration, cells);
}

// Per configuration and cell; returns the exit status.  Leaves MPI_T as found.
int measure_all(OverlapPlan& plan, const OverlapOptions& options, Runner& runner, ComputeTeam& team,
                Printer& printer, MPI_Comm comm, std::ostream& err) {
    std::map<std::string, CvarValue> current = plan.initial;
    for (const Configuration& configuration : plan.configurations) {
        const std::string refused = plan.cvars->write_changed_on_all(
            cvar_assignment(configuration, plan.initial, plan.cvars->catalog()), current);
        if (!refused.empty()) {  // a value MPI_T refuses: every rank stops here
            plan.cvars->write_changed(plan.initial, current);
            return bad_input_on_every_rank(
                configuration.collective + " " + configuration.algorithm + ": the MPI library rejects " + refused, "",
                err);
        }
        measure_configuration(configuration, plan.grid, options.reps, runner, team, printer, comm);
    }
    plan.cvars->write_changed(plan.initial, current);
    return 0;
}

// Refuses a largest size whose displacements exceed MPI's int (iallgatherv, ialltoallv,
// igatherv, iscatterv: Payload::check_displacements) and gives the bytes the Runner's send
// buffer needs at the largest size: a block per rank where an operation planned sends
// every rank a block of its own (ialltoall, ialltoallv), the largest uneven block (rank
// 0's) for igatherv's and iscatterv's own block, else one block.  Throws
// std::runtime_error.
std::size_t send_buffer_bytes(const OverlapPlan& plan, int size) {
    const std::uint64_t largest = plan.grid.sizes.back();
    std::uint64_t send = largest;
    for (const Configuration& configuration : plan.configurations) {
        const std::optional<grammar::Collective> collective = grammar::Collective::find(configuration.collective);
        if (!collective) continue;  // isend, irecv, both
        if (Payload::has_displacements(collective->kind()))
            Payload::check_displacements(configuration.collective, largest, size);
        if (Payload::sends_each_rank_a_block(collective->kind()))
            send = std::max(send, largest * static_cast<std::uint64_t>(size));
        if (Payload::has_uneven_blocks(collective->kind())) send = std::max(send, uneven_block(0, size, largest));
    }
    return static_cast<std::size_t>(send);
}

}  // namespace

int run_overlap(const OverlapOptions& options, std::ostream& out, std::ostream& err) {
    const int rank = world_rank();
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return bad_input_on_every_rank("overlap needs at least 2 ranks (mpiexec -n 2 ...)", "", err);
    MpiToolsSession tools;

    // Plan and validate on every rank: all stop together on a bad option.
    OverlapPlan plan;
    std::string error;
    try {
        plan = make_overlap_plan(options);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty())) return bad_input_on_every_rank(error, "invalid setup on another rank", err);

    // The busy loop's speed, on every rank (each computes on its own core).
    const ComputeCalibration calibration = calibrate_compute(100);
    const OverlapSettings settings = settings_of(options, size, *plan.cvars);
    warn_if_crowded(settings, options, err);

    std::optional<Runner> runner;
    std::optional<ComputeTeam> team;
    try {
        runner.emplace(static_cast<std::size_t>(plan.grid.sizes.back()), send_buffer_bytes(plan, size), rank, size);
        team.emplace(calibration, options.threads);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (!all_ok(error.empty()))  // sizes this job cannot hold: bad input too
        return bad_input_on_every_rank(error, "out of memory on another rank", err);
    const OwnedComm comm = OwnedComm::dup(MPI_COMM_WORLD);

    Printer printer(out, err, options.format);
    if (rank == 0) printer.header(settings);
    return measure_all(plan, options, *runner, *team, printer, comm.get(), err);
}

int run_overlap_report(const std::vector<std::string>& paths, const std::string& png_dir, std::ostream& out) {
    std::vector<OverlapRun> runs;
    for (const std::string& path : paths) {
        std::ifstream in(path);
        if (!in) throw UsageError("cannot read " + path);
        runs.push_back(read_overlap_run(in, path));
    }
    out << overlap_report_text(runs);
    if (png_dir.empty()) return 0;
    std::filesystem::create_directories(png_dir);
    for (const OverlapSeries& series : overlap_series_union(runs)) {
        const std::filesystem::path png = std::filesystem::path(png_dir) / heatmap_file_name(series);
        std::filesystem::path script = png;
        script.replace_extension(".gp");
        plot_with_gnuplot(script.string(), overlap_heatmap_script(runs, series, png.string()), png.string(), out);
    }
    return 0;
}

}  // namespace hiertune
