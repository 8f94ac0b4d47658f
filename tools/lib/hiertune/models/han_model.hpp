// The HAN task-based cost model (Luo et al., "HAN: a Hierarchical AutotuNed
// Collective Communication Framework", section III) for the plugin's
// pipelined hierarchical algorithms.  No MPI.
//
// A message of m bytes is cut into u = ceil(m / fs) segments (u = 1 for m <= fs,
// also for m = 0).  The algorithm runs in lock-step steps; in each step a node
// leader runs one *task*, the set of stages whose segment index is valid, named
// by those stages in the order sb, ib, ia, ir, sr.  A configuration's
// *decomposition* is its set of stages:
//
//   Bcast         step s = 0 .. u:    ib(s), sb(s-1)                   (2 stages)
//   Reduce        step s = 0 .. u:    sr(s), ir(s-1)                   (2 stages)
//   Allreduce     step s = 0 .. u+2:  sr(s), ir(s-1), ib(s-2), sb(s-3) (4 stages)
//   Allreduce ia  step s = 0 .. u+1:  sr(s), ia(s-1), sb(s-2)          (3 stages)
//
// (the plugin's pipeline tables, src/mpi/coll/hier/hier_pipeline.h; the reduce's root
// on a node leader, as the task benchmarks time it).
// "Allreduce ia" is inter_algo=tsp_allreduce_ring: per segment ONE inter-node
// allreduce ia among the leaders (MPICH's tsp ring) replaces ir and ib.  (The
// plugin falls back to ir + ib for non-commutative ops; hiertune measures and
// models commutative ones.)
// A step with every stage present is the steady state; its cost is the
// stabilised one, sbib(s), sbibirsr(s) resp. sbiasr(s).  The other steps use
// their own measured task cost.  The predicted time is the maximum over node
// leaders of the sum of a leader's step costs:
//
//   Bcast, HAN eq. (3):    max_i  ib(0) + (u-1) sbib(s) + sb
//   Reduce:                max_i  sr + (u-1) irsr(s) + ir
//   Allreduce, u >= 3:     max_i  sr + irsr + ibirsr + (u-3) sbibirsr(s) + sbibir + sbib + sb
//   Allreduce, u = 2:      max_i  sr + irsr + ibir + sbib + sb
//   Allreduce, u = 1:      max_i  sr + ir + ib + sb
//   Allreduce ia, u >= 2:  max_i  sr + iasr + (u-2) sbiasr(s) + sbia + sb
//   Allreduce ia, u = 1:   max_i  sr + ia + sb
//
// The allreduce line for u >= 3 is HAN eq. (4) plus the closing sb(u-1): eq. (4)
// as printed stops at sbib(u-1), but the task sequence (and the plugin) still
// broadcast the last segment on the node after its ib.  u = 1, 2 need the tasks
// ir and ibir, which the paper never names because its eq. (4) assumes u >= 3.
// The ia form has one stage less: u = 2 has no steady step, u = 1 the task ia.
// Like the paper, the last (possibly shorter) segment is costed as a full one.
//
// Allgather (inter_algo=ring, src/mpi/coll/hier/allgather_intra_hier.c; the
// paper only names allgather as a collective its design extends to) is not a
// fixed-depth stage pipeline: every rank contributes m bytes, a node's block of
// ppn*m bytes is cut into u = ceil(ppn*m / fs) pieces, and each leader handles
// the U = N*u pieces of all N blocks, its own first.  Its tasks:
//
//   sg     the intra-node gather of the node's block onto the leader (once;
//          its cost depends on m, not on fs)
//   sbia   one ring step concurrent with the node bcast of one piece: receive
//          the next piece from the left leader, send piece j to the right one,
//          bcast piece j in the node, wait for both (steps 0 .. (N-1)u - 1)
//   sb     the node bcast of one of the last u pieces, which no longer travel
//          (steps (N-1)u .. U-1)
//
//   Allgather ring:        max_i  sg_i(m) + (N-1) u sbia_i(fs) + u sb_i(fs)
//
// Approximations: uniform ppn (every block has u pieces: the plugin's pieces
// follow each node's size), the last piece of a block costed as a full one,
// sbia measured as the steady step (the ring's first steps, still waiting for
// the left neighbour's first piece, cost as much as the later ones).
// inter_algo=auto (MPICH's allgatherv among the leaders, then one bcast of
// everything) is not pipelined and not modelled.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/db/measure_db.hpp"  // Params

namespace hiertune::han {

enum class Collective { bcast, reduce, allreduce, allgather };

// The value of inter_algo that gives allreduce its one-step inter-node stage ia.
constexpr const char* kOneStepInterAlgo = "tsp_allreduce_ring";

// The value of inter_algo that gives allgather its pipelined ring (the
// default; the other one, auto, is not modelled).
constexpr const char* kRingInterAlgo = "ring";

// The stages a configuration runs (see above).
enum class Decomposition { bcast, reduce, allreduce, allreduce_ia, allgather_ring };

// Whether a configuration (JSON names) has a pipeline for the collective: its
// parameters are ones the collective's hier algorithm has, with values valid
// for it (the grammar: not bcast with inter_algo=tsp_allreduce_ring,
// allreduce's own; allgather has no inter_k, inter_chunk), and allgather's
// inter_algo is ring (the default).
bool applies(Collective collective, const Params& config);
// Why a configuration does not apply, e.g. "tsp_allreduce_ring is allreduce
// only"; empty where it does.
std::string why_not(Collective collective, const Params& config);
// The configuration's decomposition: allreduce_ia for allreduce with
// inter_algo=tsp_allreduce_ring, allgather_ring for allgather.  Throws
// std::invalid_argument where it does not apply.
Decomposition decomposition(Collective collective, const Params& config);
// Whether a decomposition runs the stage named ("sb", "ib", "ia", "ir", "sr"): the
// one place that says which halves (bcast: sb, ib; reduce: sr, ir) a pipeline has.
// The allgather ring has none of them.
bool has_stage(Decomposition form, const std::string& stage);
// The same of a collective's pipeline with the default configuration.
bool has_stage(Collective collective, const std::string& stage);

// "bcast" / "reduce" / "allreduce" / "allgather"; parse throws std::invalid_argument for
// anything else.
std::string to_string(Collective collective);
Collective parse_collective(const std::string& name);
// The names of every Collective, in the enum's order: what the task model covers.
const std::vector<std::string>& collective_names();

// The bytes a configuration's segment size cuts at a call of msg_bytes (allgather: per
// rank) with ppn ranks on the fullest node: the message, allgather's node block
// (grammar::segmented_bytes of the collective's hier algorithm).  Throws
// std::invalid_argument for allgather with ppn < 1.
std::uint64_t pipelined_bytes(Collective collective, std::uint64_t msg_bytes, int ppn);

// Number of pipeline segments of an m-byte message with segment size fs > 0
// (at least 1).  Throws std::invalid_argument for fs == 0.
std::uint64_t segment_count(std::uint64_t msg_bytes, std::uint64_t segsize);

// One step of the leaders' task sequence: its task name and whether it is the
// steady-state task (costed with the stabilised measurement).
struct Step {
    std::string task;
    bool steady = false;
};
// The task a leader runs at step s (0 .. u-1+depth) of a u-segment pipeline,
// e.g. bcast step 0: "ib"; allreduce step 3 of 9: "sbibirsr".  Empty past the end.
// These four throw std::invalid_argument for allgather_ring, whose steps depend
// on the node count (allgather_sequence).
std::string step_task(Decomposition form, std::uint64_t step, std::uint64_t segments);
// Steps of a u-segment pipeline: u+1 (bcast, reduce), u+3 (allreduce), u+2 (allreduce ia).
std::uint64_t step_count(Decomposition form, std::uint64_t segments);
// The steady-state task, every stage present: sbib, irsr, sbibirsr, sbiasr.
std::string steady_task(Decomposition form);

// Distinct steps in order with their multiplicity (the steady step has u-1,
// u-3 resp. u-2 repetitions), e.g. bcast u=4: {ib,1}, {sbib,3}, {sb,1}.
std::vector<std::pair<Step, std::uint64_t>> task_sequence(Decomposition form, std::uint64_t segments);

// Allgather ring: a leader's steps for N nodes of u pieces each:
// {sg,1}, {sbia,(N-1)u, steady}, {sb,u}.  Throws std::invalid_argument for
// u == 0 or nodes < 2.
std::vector<std::pair<Step, std::uint64_t>> allgather_sequence(std::uint64_t pieces_per_block, int nodes);
// Allgather's node gather: the one task whose cost depends on the bytes per
// rank m rather than on the piece size (Candidate::gather_costs).
constexpr const char* kGatherTask = "sg";

// Task names the model may need for any u (bcast: ib sbib sb; reduce: sr irsr ir; allreduce: sr ir
// irsr ib ibir ibirsr sbibirsr sbibir sbib sb; allreduce ia: sr ia iasr sbiasr
// sbia sb; allgather ring: sg sbia sb).
std::vector<std::string> task_names(Decomposition form);
// The tasks needed for this many segments.
std::vector<std::string> required_tasks(Decomposition form, std::uint64_t segments);

// Measured cost (seconds) of each task, per node leader (index 0 = the root's
// node).  A task with a single value (e.g. the max over leaders) applies to
// every leader.  Otherwise all tasks must have the same number of leaders.
using TaskCosts = std::map<std::string, std::vector<double>>;

// Predicted time of the collective, or nullopt when a required task is missing
// (missing, if given, receives the names).  Throws std::invalid_argument for
// fs == 0, negative or non-finite costs, or inconsistent leader counts.
// Not for allgather_ring (std::invalid_argument): predict_allgather.
std::optional<double> predict(Decomposition form, const TaskCosts& costs, std::uint64_t segsize,
                              std::uint64_t msg_bytes, std::vector<std::string>* missing = nullptr);

// Predicted time of the allgather ring for m = msg_bytes per rank on `nodes`
// nodes of ppn ranks (blocks of ppn*m bytes, u = segment_count(ppn*m, fs)):
// costs hold sg (measured at m), sbia and sb (at fs).  As predict otherwise;
// also throws for nodes < 2 or ppn < 1.
std::optional<double> predict_allgather(const TaskCosts& costs, std::uint64_t segsize, std::uint64_t msg_bytes,
                                        int nodes, int ppn, std::vector<std::string>* missing = nullptr);

// A configuration of the hierarchical algorithm at one segment size with its
// task costs: the parameters other than segsize, by their JSON names
// (inter_algo, inter_k, inter_chunk, intra_algo).
struct Candidate {
    Params config;
    std::uint64_t segsize = 0;
    TaskCosts costs;
    // allgather: the per-leader costs of sg by bytes per rank m (the gather
    // does not depend on segsize; the same map in every segsize's candidate)
    std::map<std::uint64_t, std::vector<double>> gather_costs{};
    // the same configuration's task costs measured at segment sizes below
    // segsize, by segment size: what a message shorter than one segment sends
    // (segment_costs)
    std::map<std::uint64_t, TaskCosts> shorter_segments{};
};

// The task costs of one segment of `piece` bytes of the candidate's pipeline.
// A message shorter than the segment size sends one segment of its own length,
// not a whole segment (a deviation from the paper, whose model costs every
// segment as a full one; its tasks are benchmarked at the segment sizes only):
//   piece >= segsize                    the candidate's costs
//   piece measured (shorter_segments)   those costs
//   lo < piece < hi measured            per task and leader, linear in bytes
//                                       between lo's and hi's cost (a task
//                                       costs about alpha + bytes * beta)
//   piece below every measured size     the smallest measured size's costs
//                                       (an upper bound: latency dominates)
// A task only the larger neighbour has keeps its cost.  Throws
// std::invalid_argument where the two neighbours' leader counts differ.
TaskCosts segment_costs(const Candidate& candidate, std::uint64_t piece);

// The candidate's predicted time for an m-byte message (allgather: m bytes per
// rank on `nodes` nodes of ppn ranks, the pieces cut from ppn*m-byte blocks),
// with segment_costs of its piece; nullopt where a task or, for allgather, sg
// at m is missing.  Throws std::invalid_argument where the configuration does
// not apply to the collective.
std::optional<double> predict_candidate(Collective collective, const Candidate& candidate, int nodes,
                                        std::uint64_t msg_bytes, int ppn = 0);

// Pruning heuristics of HAN section III-C (off by default: they trade accuracy
// for fewer task benchmarks).
struct PruneOptions {
    bool enabled = false;
    // A chain needs segments to fill its pipeline: skip these inter_algo values
    // while u < chain_min_segments_per_node * nodes.
    std::vector<std::string> chain_algos{"tsp_ring", "seg_chain", "seg_pipeline"};
    double chain_min_segments_per_node = 1.0;
    // "config value only from this segment size on", e.g. {"intra_algo", "shm", 524288}.
    struct MinSegsize {
        std::string param;
        std::string value;
        std::uint64_t min_segsize = 0;
    };
    std::vector<MinSegsize> min_segsize;
};

struct ModelOptions {
    PruneOptions prune;
    // All fs >= m run alike (one segment of m bytes): of those, only the
    // smallest fs of each configuration is considered, its costs being the
    // closest to an m-byte segment.
    bool collapse_oversize_segments = true;
};

// True when the heuristics drop this candidate for this message.
bool pruned(const Candidate& candidate, int nodes, std::uint64_t msg_bytes, const PruneOptions& prune);

struct Prediction {
    const Candidate* candidate = nullptr;  // into the candidates given
    double time = 0;
};

// The candidates' predictions at one call: each candidate's predicted time for an
// m-byte message on `nodes` nodes of ppn ranks (predict_candidate; nullopt where its
// configuration does not apply to the collective or a task it needs is missing), by
// candidate index.  Made once per size and read by best_candidate, the tune's tie and
// close-call tests and its report.  Holds the address of `candidates`.
struct Predictions {
    Collective collective = Collective::bcast;
    const std::vector<Candidate>* candidates = nullptr;
    int nodes = 0;
    std::uint64_t msg_bytes = 0;
    int ppn = 0;
    std::vector<std::optional<double>> time;  // time[i]: candidates[i]'s

    // The prediction of a candidate of *candidates (by address); nullopt for another.
    std::optional<double> of(const Candidate& candidate) const;
};
// Throws std::invalid_argument for an allgather candidate with ppn < 1 (predict_candidate).
Predictions predict_all(Collective collective, const std::vector<Candidate>& candidates, int nodes,
                        std::uint64_t msg_bytes, int ppn = 0);
Predictions predict_all(Collective, const std::vector<Candidate>&&, int, std::uint64_t, int = 0) = delete;

// The candidate with the lowest predicted time (ties: smaller segsize, then config
// text); nullopt when no candidate can be predicted.  Allgather: m is the bytes per
// rank, ppn (>= 1, else std::invalid_argument) the ranks per node; a candidate without
// sg at m is not predicted; "fs >= m" of collapse_oversize_segments reads fs >= the
// node block ppn*m (pipelined_bytes).
std::optional<Prediction> best_candidate(const Predictions& predictions, const ModelOptions& options = {});
// The same of predict_all(collective, candidates, nodes, msg_bytes, ppn).
std::optional<Prediction> best_candidate(Collective collective, const std::vector<Candidate>& candidates,
                                         int nodes, std::uint64_t msg_bytes, const ModelOptions& options = {},
                                         int ppn = 0);

}  // namespace hiertune::han
