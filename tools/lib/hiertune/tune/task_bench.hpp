// What `hiertune tasks` measures and how its timings become HAN task costs
// (no MPI here; the runner is tools/src/tasks.cpp).
//
// The task benchmarks run the hierarchical pipeline itself for a few segment
// counts u and time every step on every node leader.  Executing the real
// prefix gives each task the start time it has in the collective (HAN's
// "delayed start": sbib(1) starts when that leader's ib(0) ends), and the
// steady-state cost sbib(s) / sbibirsr(s) / sbiasr(s) is read once the
// pipeline is full:
//
//   bcast         u = K         -> ib, sbib(s), sb
//   allreduce     u = K, 2, 1   -> sr, irsr, ibirsr, sbibirsr(s), sbibir, sbib, sb;
//                                  ibir (u = 2); ir, ib (u = 1)
//   allreduce ia  u = K, 1      -> sr, iasr, sbiasr(s), sbia, sb; ia (u = 1)
//                                  (u = 2 has no task of its own)
//   allgather     the ring with u = ceil(K / (N-1)) pieces per node block
//                 -> sbia(s) (mean of the second half of its (N-1)u steps),
//                 sb (mean of the u tail steps); and per message size m a
//                 run of the node gather alone -> sg(m)
//
// with K = steady_segments (>= 4), or fewer where no message of interest has
// K segments of this size (steady_run_segments).  The steady cost of one
// repetition is the mean of the second half of its steady steps (the first ones
// still fill the pipeline, HAN Fig. 3).  Only a group's first run warms up
// fully: the later ones reuse its buffer and connections (run_warmup).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hiertune/models/han_model.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

// "inter_algo=tsp_kary/tsp_knomial,inter_k=2/4,intra_algo=shm": the hier
// parameters (JSON names, without segsize) with value lists, multiplied out in
// the order given.  "" gives one configuration with no parameters (the
// CVAR defaults).  Throws UsageError for unknown names or values, or a
// parameter given twice.
std::vector<Params> parse_task_configs(const std::string& spec);

// The configurations that have a pipeline for the collective (han::applies:
// bcast skips inter_algo=tsp_allreduce_ring, allreduce's own); notes, if
// given, receives a line per skipped one ("bcast: inter_algo=... skipped (...)").
// Allgather takes of each configuration only the parameters its hier algorithm
// has with values valid for it (intra_algo, inter_algo ring or auto: the
// others are bcast's and allreduce's), inter_algo=ring where none is left,
// duplicates removed; inter_algo=auto is then skipped (not pipelined), so
// "inter_algo=tsp_kary,inter_k=2,intra_algo=shm" is allgather's
// "inter_algo=ring,intra_algo=shm".
std::vector<Params> configs_for(const std::string& collective, const std::vector<Params>& configs,
                                std::vector<std::string>* notes = nullptr);

// The segment counts to run for a decomposition.
std::vector<std::uint64_t> task_runs(han::Decomposition form, std::uint64_t steady_segments);

// K of the steady run for one segment size: the segments of the largest
// message the costs are for, at least 4 and at most steady_segments (longer
// pipelines than any message has would only cost time); max_message 0: no
// limit.  Throws std::invalid_argument for steady_segments < 4 or segsize 0.
std::uint64_t steady_run_segments(std::uint64_t steady_segments, std::uint64_t segsize, std::uint64_t max_message);

// Warm-up repetitions of the run_index-th run of a group: all of them before
// the first, one before each later run (a new pipeline shape, same buffer).
std::size_t run_warmup(std::size_t warmup, std::size_t run_index);

// Task costs of one leader and one repetition of a u-segment run, from its
// per-step times (step_count(form, u) of them).  Throws
// std::invalid_argument for a wrong number of steps.
std::map<std::string, double> tasks_of_run(han::Decomposition form, std::uint64_t segments,
                                           const std::vector<double>& step_times);

// Pieces per node block of the allgather ring run: ceil(K / (N-1)), so that
// the ring has at least K steps.  Throws std::invalid_argument for K < 4 or
// nodes < 2.
std::uint64_t allgather_run_pieces(std::uint64_t steady_segments, int nodes);

// sbia and sb of one leader and one repetition of the allgather ring with u
// pieces per block on N nodes, from the times of its N*u steps (sg is timed
// apart).  Throws std::invalid_argument for a wrong number of steps.
std::map<std::string, double> tasks_of_allgather_run(std::uint64_t pieces_per_block, int nodes,
                                                     const std::vector<double>& step_times);

// The database keys of one (collective, configuration, segment size) group:
// one per task name of the configuration's decomposition, allgather's sg
// excepted (gather_task_key).  Throws std::invalid_argument for a
// configuration that does not apply.
std::vector<TaskKey> task_keys(const std::string& collective, const Params& config, std::uint64_t segsize);

// Allgather's node gather sg at m bytes per rank: its key's seg_bytes is m
// (the node block is ppn*m; sg does not depend on the piece size).  Throws
// std::invalid_argument for a configuration that does not apply.
TaskKey gather_task_key(const Params& config, std::uint64_t msg_bytes);

// The public-API stand-ins for the plugin's submodules of a configuration:
// control variables (full names) and values that make MPI_Ibcast/MPI_Ireduce
// (MPI_Iallreduce for tsp_allreduce_ring) on the leaders' communicator and
// MPI_Bcast/MPI_Reduce on the node communicator run what the hier algorithm
// runs internally:
//   inter_algo auto -> I<COLL>_INTRA_ALGORITHM=auto; sched_binomial -> sched_binomial;
//   tsp_kary/tsp_knomial/tsp_ring -> tsp_tree with I<COLL>_TREE_KVAL inter_k
//   (ring: 1), I<COLL>_TREE_PIPELINE_CHUNK_SIZE inter_chunk (the tree type:
//   launch_cvars);
//   tsp_allreduce_ring (allreduce) -> IALLREDUCE_INTRA_ALGORITHM=tsp_ring with
//   IALLREDUCE_DEVICE_COLLECTIVE=0 (the ring the plugin starts; it ignores
//   inter_k and inter_chunk), no I<COLL> variables;
//   intra_algo binomial/auto -> <COLL>_INTRA_ALGORITHM binomial/auto with the
//   device collective off; shm -> the device collective on (CH4's own choice).
// I<COLL>_DEVICE_COLLECTIVE=0 so that the MPIR level reads the algorithm.
// collective "bcast" uses ibcast/bcast; "allreduce" also ireduce/reduce;
// "allgather" (its ring is point-to-point, no inter-node variable) gather/bcast
// on the node: GATHER_INTRA_ALGORITHM auto, else binomial (also for shm, as the
// plugin's gather), the bcast as for bcast, device collectives as above.
// Throws UsageError for the plugin-only seg_* inter algorithms and for a
// configuration that does not apply to the collective (configs_for).
std::vector<std::pair<std::string, std::string>> submodule_cvars(const std::string& collective, const Params& config);

// Variables the configuration needs that MPICH reads only at MPI_Init,
// so they must be in the environment of the launch: I<COLL>_TREE_TYPE
// (string; kary for tsp_kary and tsp_ring, knomial_1 for tsp_knomial; unset
// means kary).  Empty for the other inter algorithms (tsp_allreduce_ring: the
// ring reads no tree type).
std::vector<std::pair<std::string, std::string>> launch_cvars(const std::string& collective, const Params& config);

}  // namespace hiertune
