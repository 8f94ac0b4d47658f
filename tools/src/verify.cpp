#include "verify.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"
#include "mpi_job.hpp"
#include "payload.hpp"

namespace hiertune {

namespace {

// One plugin counter, read through its own MPI_T session.
class Counter {
public:
    // ok() is false when the library has no such pvar (not built with mpich-hier).
    explicit Counter(const std::string& name) {
        int index = 0;
        if (MPI_T_pvar_get_index(name.c_str(), MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS) return;
        int count = 0;
        if (MPI_T_pvar_session_create(&session_) != MPI_SUCCESS) return;
        if (MPI_T_pvar_handle_alloc(session_, index, nullptr, &handle_, &count) != MPI_SUCCESS) return;
        MPI_T_pvar_start(session_, handle_);  // continuous counters refuse: they always count
        ok_ = true;
    }
    ~Counter() {
        if (ok_) MPI_T_pvar_handle_free(session_, &handle_);
        if (session_ != MPI_T_PVAR_SESSION_NULL) MPI_T_pvar_session_free(&session_);
    }
    Counter(const Counter&) = delete;
    Counter& operator=(const Counter&) = delete;

    bool ok() const { return ok_; }
    unsigned long long read() {
        unsigned long long value = 0;
        if (ok_) MPI_T_pvar_read(session_, handle_, &value);
        return value;
    }

private:
    MPI_T_pvar_session session_ = MPI_T_PVAR_SESSION_NULL;
    MPI_T_pvar_handle handle_ = MPI_T_PVAR_HANDLE_NULL;
    bool ok_ = false;
};

// Calls the collective once with repetition `rep`'s data (bench's payload, root 0);
// true when the data is right on this rank.
bool call_and_check(const VerifyCase& c, MPI_Comm comm, int rank, int size, std::size_t rep) {
    const auto bytes = static_cast<std::size_t>(c.msg_bytes);
    Payload payload({PointKey{c.collective, c.msg_bytes, "default", {}}}, rank, size);
    const Payload::Call call = Payload::call_of(c.collective);
    payload.prepare(call, bytes, rep);
    return payload.run(call, bytes, comm) == MPI_SUCCESS && payload.check(call, bytes, rep);
}

// How often the case's collective ran hier and routed to the MPIR level, and
// its segments, as the least and most over the ranks; whether any rank got
// wrong data.
struct CaseCounts {
    bool data_failed = false;
    long long min_calls = 0, max_calls = 0;
    long long min_segments = 0, max_segments = 0;
    long long min_routed = 0, max_routed = 0;
};

// Each collective's hier counters: the calls and the segments.
using CounterPair = std::pair<std::unique_ptr<Counter>, std::unique_ptr<Counter>>;

// Runs one case (after a warm-up call that may build sub-communicators) and
// counts on every rank what it did.
CaseCounts count_case(const VerifyCase& c, CounterPair& counters, Counter& routed, MPI_Comm comm, int rank,
                      int size) {
    Counter& calls = *counters.first;
    Counter& segments = *counters.second;
    call_and_check(c, comm, rank, size, 0);
    MPI_Barrier(comm);
    const unsigned long long calls0 = calls.read();
    const unsigned long long segments0 = segments.read();
    const unsigned long long routed0 = routed.read();
    const bool data_ok = call_and_check(c, comm, rank, size, 1);
    const auto delta = [](unsigned long long now, unsigned long long before) {
        return static_cast<long long>(now - before);
    };
    const long long my_calls = delta(calls.read(), calls0), my_segments = delta(segments.read(), segments0),
                    my_routed = delta(routed.read(), routed0);
    // per rank: [data failed, min and max of calls, segments, routed] via max of negations
    long long local[7] = {data_ok ? 0 : 1, -my_calls, my_calls, -my_segments, my_segments, -my_routed, my_routed};
    long long global[7] = {0, 0, 0, 0, 0, 0, 0};
    MPI_Allreduce(local, global, 7, MPI_LONG_LONG, MPI_MAX, comm);
    return CaseCounts{global[0] != 0, -global[1], global[2], -global[3], global[4], -global[5], global[6]};
}

struct Verdict {
    bool ok;
    std::string text;
};

Verdict judge(const VerifyCase& c, const CaseCounts& n) {
    if (c.whole_comm) {
        // MPICH's algorithm on the whole comm: routed once on every rank, hier not run
        const bool whole = n.min_routed == 1 && n.max_routed == 1 && n.max_calls == 0;
        return {!n.data_failed && whole,
                whole ? "MPICH's algorithm ran on the whole comm (routed to the MPIR level)"
                      : "routed " + std::to_string(n.min_routed) + ".." + std::to_string(n.max_routed) +
                            " times per rank, hier " + std::to_string(n.max_calls) +
                            " (expected routed once, no hier: the whole_comm=1 leaf did not run)"};
    }
    if (c.hier) {
        const bool ran = n.min_calls == 1 && n.max_calls == 1;
        // allgather counts the pieces a leader receives: the other ranks add none; 0: not checked
        const bool segs = c.segments == 0 ||
                          (c.collective == grammar::Collective::allgather
                               ? n.max_segments == static_cast<long long>(c.segments)
                               : n.min_segments == static_cast<long long>(c.segments) && n.max_segments == n.min_segments);
        return {!n.data_failed && ran && segs,
                ran ? "hier ran with " + std::to_string(n.min_segments) +
                          (n.max_segments != n.min_segments ? ".." + std::to_string(n.max_segments) : "") +
                          " segments (" +
                          (c.segments == 0 ? std::string("not checked") : "expected " + std::to_string(c.segments)) + ")"
                    : "hier ran " + std::to_string(n.min_calls) + ".." + std::to_string(n.max_calls) +
                          " times per rank (expected once: the tree's choice did not run)"};
    }
    return {!n.data_failed, n.max_calls > 0 ? "hier ran (stock choice)" : "stock choice ran"};
}

// The counters of every collective of the cases; "" when every rank has them,
// else the error to report.
std::string open_counters(const std::vector<VerifyCase>& cases, std::map<std::string, CounterPair>& counters) {
    for (const VerifyCase& c : cases) {
        CounterPair& entry = counters[c.collective];
        if (entry.first) continue;
        const grammar::Algorithm* hier = grammar::hier_algorithm(c.collective);
        if (!hier) return "verify: " + c.collective + " has no plugin algorithm";
        const std::string prefix = "coll_hier_" + c.collective + "_" + hier->item + "_";
        entry.first = std::make_unique<Counter>(prefix + "count");
        // gather, scatter, barrier, scan, exscan, the reduce-scatters, allgatherv, alltoall,
        // alltoallv, gatherv, scatterv and the schedules count no segments: their counter
        // reads 0
        entry.second = std::make_unique<Counter>(prefix + "segments");
        if (!all_ok(entry.first->ok()))
            return "no MPI_T counter " + prefix + "count: the library is not MPICH built with mpich-hier";
    }
    return "";
}

}  // namespace

int run_verify(const std::vector<VerifyCase>& cases, std::ostream& out, std::ostream& err) {
    MpiToolsSession tools;
    const int rank = world_rank();
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (const VerifyCase& c : cases)
        if (c.msg_bytes > 1u << 30)
            return bad_input_on_every_rank("verify case " + to_string(c) + ": at most 1 GiB", "", err);

    std::map<std::string, CounterPair> counters;
    const std::string missing = open_counters(cases, counters);
    if (!missing.empty()) return bad_input_on_every_rank(missing, "", err);
    // the calls the device hands to the MPIR level (a whole_comm=1 leaf's among them)
    Counter routed("coll_hier_mpir_routed");
    if (!all_ok(routed.ok()))
        return bad_input_on_every_rank(
            "no MPI_T counter coll_hier_mpir_routed: the library is not MPICH built with mpich-hier", "", err);

    const OwnedComm owned = OwnedComm::dup(MPI_COMM_WORLD);
    const MPI_Comm comm = owned.get();
    int failures = 0;
    for (const VerifyCase& c : cases) {
        const CaseCounts counts = count_case(c, counters[c.collective], routed, comm, rank, size);
        const Verdict verdict = judge(c, counts);
        if (rank == 0)
            out << "verify " << c.collective << " " << c.msg_bytes << " B: " << verdict.text
                << (counts.data_failed ? ", WRONG DATA" : ", data ok") << (verdict.ok ? ": ok" : ": FAILED") << '\n';
        if (!verdict.ok) ++failures;
    }
    if (rank == 0)
        out << "verify: " << cases.size() - static_cast<std::size_t>(failures) << " of " << cases.size() << " cases as the tree says\n";
    return failures == 0 ? 0 : 1;
}

}  // namespace hiertune
