// What `hiertune bench` measures: collectives x algorithms x parameter sets x sizes.
//
// Specs on the command line (validated against the MPI_T catalogue):
//
//   -a ALGO[:NAME=V[/V...][,NAME=V[/V...]...]]   one algorithm with its own parameters
//   -p NAME=V[/V...]                             parameters for every algorithm
//
// ALGO is an item of the enum MPIR_CVAR_<COLL>_INTRA_ALGORITHM, "default"
// (MPICH's own selection; "auto" is the same) or "all" (default and every
// item).  NAME is any writable MPI_T control variable (MPIR_CVAR_ prefix and
// case optional), V one value ("all" on an enum: every item); value lists
// multiply out, so "-a hier:bcast_hier_segsize=16K/64K" is two configurations.
//
// A configuration is written to MPI_T as a complete assignment of every
// variable any configuration touches (the others keep their initial values),
// so the order configurations run in never matters.  "default" alone needs no
// MPI_T variable at all (plain OSU-style runs work with any MPI library).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hiertune/common/cvars.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

constexpr const char* kDefaultAlgorithm = "default";
// MPICH's own selection: bench's kDefaultAlgorithm, or the CVAR item "auto".
bool is_default_algorithm(const std::string& algorithm);
constexpr const char* kAllAlgorithms = "all";
// MPICH's own items only (all but the plugin's): the stock side of a comparison
constexpr const char* kStockAlgorithms = "stock";

struct ParamSpec {
    std::string name;                 // as typed
    std::vector<std::string> values;  // as typed, at least one
};

struct AlgorithmSpec {
    std::string algorithm;  // as typed
    std::vector<ParamSpec> params;
};

// "NAME=V[/V...]".  Throws UsageError.
ParamSpec parse_param_spec(std::string_view text);
// "ALGO[:NAME=V[/V...][,...]]".  Throws UsageError.
AlgorithmSpec parse_algorithm_spec(std::string_view text);

// What bench times: the grammar's collectives (bcast, reduce, allreduce, allgather,
// gather, scatter, barrier, scan, exscan, reduce_scatter, reduce_scatter_block,
// allgatherv, alltoall, alltoallv, gatherv, scatterv), then their non-blocking forms
// ibcast .. iscatterv (started and waited for at once), MPICH's names, as in its CVARs.
const std::vector<std::string>& supported_collectives();
// "bcast, reduce, ... or barrier", for error messages.
std::string collective_list();
// "a, b or c".
std::string name_list(const std::vector<std::string>& names);
std::string algorithm_cvar(const std::string& collective);          // MPIR_CVAR_BCAST_INTRA_ALGORITHM
std::string device_collective_cvar(const std::string& collective);  // MPIR_CVAR_BCAST_DEVICE_COLLECTIVE

// One thing to time at every size.  algorithm is "default" or an enum item
// name; params maps full cvar names to canonical values.
struct Configuration {
    std::string collective;
    std::string algorithm;
    Params params;
};
bool operator==(const Configuration& a, const Configuration& b);
bool operator!=(const Configuration& a, const Configuration& b);

Configuration configuration_of(const PointKey& key);

// Every configuration, in command-line order (collectives outermost, then
// algorithm specs, their expansion, then parameter combinations), without
// duplicates.  An empty algorithm list means {"default"}.  Throws UsageError
// for a collective not in `known` (messages call it a `kind`), an unknown
// algorithm, variable or value, a variable given twice, or one that selects
// the algorithm itself (use -a for that).  `known`: bench's collectives, or
// the operations `hiertune overlap` times (MPI_Ibcast is "ibcast": its
// algorithm is MPIR_CVAR_IBCAST_INTRA_ALGORITHM).
std::vector<Configuration> plan_configurations(const std::vector<std::string>& collectives,
                                               const std::vector<AlgorithmSpec>& algorithms,
                                               const std::vector<ParamSpec>& common_params,
                                               const CvarCatalog& catalog,
                                               const std::vector<std::string>& known = supported_collectives(),
                                               const std::string& kind = "collective");

// The sweep: configuration-major, sizes ascending, without duplicates.
// Throws UsageError for barrier at a size other than 0: it moves no data.
std::vector<PointKey> plan_points(const std::vector<Configuration>& configurations,
                                  const std::vector<std::uint64_t>& sizes);

// Whether two configurations of the plugin's hier algorithm run the same plan at
// msg_bytes on a job whose fullest node holds ppn ranks: every parameter equal but the
// segment size, and both segment sizes at or above what the hier segment size cuts
// (grammar::segmented_bytes: the whole message, allgather's node block of ppn x
// msg_bytes), which they cut into one segment (hier_segment.h).  Timing both would draw
// one run twice and let the faster draw flatter whichever the sweep calls the best, so a
// sweep times the one with the smallest segment size and the others stand on it
// (same_run_representative).  segsize_name: the name a and b hold the segment size under
// (JSON "segsize" or its CVAR).  Throws std::invalid_argument for allgather with ppn < 1.
bool same_run(const std::string& collective, std::uint64_t msg_bytes, int ppn, const Params& a, const Params& b,
              const std::string& segsize_name);
// same_run of two points (params by CVAR); false unless both are the hier algorithm.
bool same_run(const PointKey& a, const PointKey& b, int ppn);
// The segment size a hier configuration with segment size `own` is timed under at
// msg_bytes and ppn, of the segment sizes `segsizes` its otherwise equal configurations
// take (any order, own among them or not): the smallest that makes the same run as own;
// nullopt when none is smaller (own is timed itself) or own makes no same run.
std::optional<std::uint64_t> same_run_representative(const std::string& collective, std::uint64_t msg_bytes, int ppn,
                                                     std::uint64_t own, const std::vector<std::uint64_t>& segsizes);
// The points without each one that has a same_run_representative among them at ppn
// (bench --same-runs-once: the job's fullest node), in order.
std::vector<PointKey> distinct_runs(const std::vector<PointKey>& points, int ppn);

// bench's measuring order: the indices of `points` (plan_points' order) by
// (collective, size), the collectives in order of first appearance, the sizes
// ascending; a group's indices ascending, so its configurations come in plan
// order and the first is the one the others are compared with.  bench times
// the configurations of a group in turns, repetition by repetition.
std::vector<std::vector<std::size_t>> point_groups(const std::vector<PointKey>& points);

// The MPI_T variables the configurations write (read their initial values
// first).  A collective measured with "default" only touches no selector.
std::set<std::string> touched_cvars(const std::vector<Configuration>& configurations,
                                    const CvarCatalog& catalog);

// The complete assignment that makes `configuration` current: `initial`
// (every touched variable) overridden by the algorithm variable ("auto" for
// default, if touched), the device-collective switch (0 for a forced
// algorithm, so that CH4 hands the call to the MPIR level where the algorithm
// variable is read; its initial value for default) and the parameters.
// Throws UsageError.
std::map<std::string, CvarValue> cvar_assignment(const Configuration& configuration,
                                                 const std::map<std::string, CvarValue>& initial,
                                                 const CvarCatalog& catalog);

}  // namespace hiertune
