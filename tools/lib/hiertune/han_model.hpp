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
//   Allreduce     step s = 0 .. u+2:  sr(s), ir(s-1), ib(s-2), sb(s-3) (4 stages)
//   Allreduce ia  step s = 0 .. u+1:  sr(s), ia(s-1), sb(s-2)          (3 stages)
//
// (the plugin's loops in src/mpi/coll/hier/{bcast,allreduce}_intra_hier.c).
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
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/measure_db.hpp"  // Params

namespace hiertune::han {

enum class Collective { bcast, allreduce };

// The value of inter_algo that gives allreduce its one-step inter-node stage ia.
constexpr const char* kOneStepInterAlgo = "tsp_allreduce_ring";

// The stages a configuration runs (see above).
enum class Decomposition { bcast, allreduce, allreduce_ia };

// Whether a configuration (JSON names) has a pipeline for the collective:
// not bcast with inter_algo=tsp_allreduce_ring (allreduce's own).
bool applies(Collective collective, const Params& config);
// The configuration's decomposition: allreduce_ia for allreduce with
// inter_algo=tsp_allreduce_ring.  Throws std::invalid_argument where it does
// not apply.
Decomposition decomposition(Collective collective, const Params& config);

// "bcast" / "allreduce"; parse throws std::invalid_argument for anything else.
std::string to_string(Collective collective);
Collective parse_collective(const std::string& name);

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
std::string step_task(Decomposition form, std::uint64_t step, std::uint64_t segments);
// Steps of a u-segment pipeline: u+1 (bcast), u+3 (allreduce), u+2 (allreduce ia).
std::uint64_t step_count(Decomposition form, std::uint64_t segments);
// The steady-state task, every stage present: sbib, sbibirsr, sbiasr.
std::string steady_task(Decomposition form);

// Distinct steps in order with their multiplicity (the steady step has u-1,
// u-3 resp. u-2 repetitions), e.g. bcast u=4: {ib,1}, {sbib,3}, {sb,1}.
std::vector<std::pair<Step, std::uint64_t>> task_sequence(Decomposition form, std::uint64_t segments);

// Task names the model may need for any u (bcast: ib sbib sb; allreduce: sr ir
// irsr ib ibir ibirsr sbibirsr sbibir sbib sb; allreduce ia: sr ia iasr sbiasr
// sbia sb).
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
std::optional<double> predict(Decomposition form, const TaskCosts& costs, std::uint64_t segsize,
                              std::uint64_t msg_bytes, std::vector<std::string>* missing = nullptr);

// A configuration of the hierarchical algorithm at one segment size with its
// task costs: the parameters other than segsize, by their JSON names
// (inter_algo, inter_k, inter_chunk, intra_algo).
struct Candidate {
    Params config;
    std::uint64_t segsize = 0;
    TaskCosts costs;
};

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

// The candidate with the lowest predicted time for an m-byte message on
// `nodes` nodes (ties: smaller segsize, then config text), each predicted with
// its configuration's decomposition (candidates that do not apply to the
// collective are skipped); nullopt when no candidate can be predicted.
std::optional<Prediction> best_candidate(Collective collective, const std::vector<Candidate>& candidates,
                                         int nodes, std::uint64_t msg_bytes, const ModelOptions& options = {});

}  // namespace hiertune::han
