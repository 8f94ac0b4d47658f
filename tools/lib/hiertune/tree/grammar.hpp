// The plugin's grammar (src/mpi/coll/hier/hier_grammar.h, the one table of its
// algorithms, JSON parameters, their values and CVARs) for the tools, and the
// tree check MPICH runs at MPI_Init (hier_grammar.c, compiled in), so that
// hiertune writes and checks exactly what the plugin accepts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiertune::grammar {

struct Param {
    std::string name;         // JSON name: "segsize", "inter_algo", ...
    bool named = false;       // a name from a list (else an integer >= min)
    int min = 0;
    std::string cvar_suffix;  // MPIR_CVAR_<COLL>_<suffix>: "HIER_SEGSIZE", "SEG_FANOUT", ...
    std::string list;         // named: the grammar's list, "INTER_ALGOS" or "INTRA_ALGOS"
};

// What an algorithm's segsize parameter cuts into segments (hier_grammar.h's comments on
// MPII_HIER_PARAMS_*): the whole message (hier bcast/reduce/allreduce, the segmented
// trees), each node's block (allgather: the leaders' ring moves a node's blocks in
// pieces), or nothing (no segsize).
enum class SegmentCut { none, message, node_block };

struct Algorithm {
    std::string collective;  // "bcast", "ibcast"
    std::string item;        // MPIR_CVAR_<COLL>_INTRA_ALGORITHM item: "hier", "seg_chain", "tsp_hier"
    std::string container;   // "MPIR_Bcast_intra_hier"
    std::vector<Param> params;  // none for a schedule form: it reads its blocking form's CVARs
    std::string blocking;       // a schedule form's blocking collective ("bcast"); else empty
    SegmentCut segments = SegmentCut::none;  // what its segsize cuts

    std::string cvar(const Param& param) const;  // "MPIR_CVAR_BCAST_HIER_SEGSIZE"
    const Param* param(const std::string& name) const;
};

// The bytes the algorithm's segment size cuts at a call of msg_bytes (allgather: per rank)
// where the fullest node holds ppn ranks: the message, or the node's block (ppn x
// msg_bytes); nullopt for an algorithm without segments.  Throws std::invalid_argument
// for a node block with ppn < 1.
std::optional<std::uint64_t> segmented_bytes(const Algorithm& algorithm, std::uint64_t msg_bytes, int ppn);

// The collectives with plugin algorithms ("bcast", "reduce", "allreduce").
const std::vector<std::string>& collectives();
// Their non-blocking forms with a plugin schedule ("ibcast", ...), in the table's order.
const std::vector<std::string>& nonblocking_collectives();
// The plugin's algorithms, in the table's order: the blocking ones, then the schedule
// forms (MPII_HIER_SCHED_ALGORITHMS: MPI_Ibcast's "tsp_hier" runs bcast's hier).
const std::vector<Algorithm>& plugin_algorithms();
// The collective's first plugin algorithm: "hier", or a non-blocking form's schedule;
// nullptr for a collective without one.
const Algorithm* hier_algorithm(const std::string& collective);
// The one a container name or (collective, CVAR item) names; nullptr if none.
const Algorithm* find(const std::string& container);
const Algorithm* find(const std::string& collective, const std::string& item);
// Whether an inter-node submodule is one of the plugin's segmented trees (seg_*), which
// run only inside the plugin and are costed by the analytic models.
bool is_seg_submodule(const std::string& inter_algo);
// Whether the collective's hier algorithm takes segmented trees as inter-node submodules.
bool takes_seg_submodules(const std::string& collective);
// Whether "name=value" is a valid parameter of algorithm.
bool valid(const Algorithm& algorithm, const std::string& name, const std::string& value);
// The values a named parameter takes for this algorithm (its collective's own
// inter-node submodule included); empty for an integer parameter.
std::vector<std::string> values(const Algorithm& algorithm, const std::string& name);

// The conditions MPICH's container needs on the path that selects it
// (MPII_HIER_MPICH_REQUIREMENTS: it asserts or moves no data otherwise), in the
// table's order, e.g. "is_op_built_in=yes" and "!count<pow2" (the test fails) for
// MPIR_Reduce_intra_reduce_scatter_gather; empty if none.
std::vector<std::string> requirements(const std::string& container);

// A parameter MPICH passes from its container to its own algorithm (coll_algorithms.txt's
// extra_params, MPII_HIER_MPICH_ALGORITHM_CVARS): a tree must give each one, since
// MPICH leaves the container uninitialised.
struct MpichCallParam {
    std::string name;           // JSON name: "k", "tree_type", ...
    std::string cvar;           // the variable that gives it when forced: "MPIR_CVAR_BCAST_TREE_KVAL"
    std::string default_value;  // that variable's default (booleans 0/1): "2", "kary"
};
// The call parameters of an MPICH container, in name order; empty for the plugin's
// containers and MPICH's without parameters.
std::vector<MpichCallParam> mpich_call_params(const std::string& container);

// The parameters MPICH passes from one of its containers to its algorithm but never
// reads from a tree (MPII_HIER_MPICH_UNREAD_PARAMS), in name order: the algorithm gets
// whatever the uninitialised container holds, so a tree must not name the container
// (MPIR_Barrier_intra_recexch: single_phase_recv; MPIR_Igather_intra_tsp_tree: k).
std::vector<std::string> mpich_unread_params(const std::string& container);

// Whether MPICH (with the plugin) knows an MPIR container of this collective.
bool known_container(const std::string& collective, const std::string& container);

// MPICH's CH4 compositions (a CH4 tree's "composition=MPIDI_<Coll>_intra_composition_..."):
// MPIR_CVAR_<COLL>_COMPOSITION, whose value N forces the N-th of alpha, beta, gamma,
// delta (ch4_coll.h's switch); N's container where a CH4 tree can name it
// (MPII_HIER_MPICH_COMPOSITIONS: not allreduce's delta), else nullopt; whether a
// container is a composition; the collective's composition that leaves a multi-node call
// to the MPIR tree (MPII_HIER_CH4_WHOLE_COMM_COMPOSITIONS), nullopt where CH4 composes none.
std::string composition_cvar(const std::string& collective);
std::optional<std::string> composition_container(const std::string& collective, int n);
bool is_composition(const std::string& container);
std::optional<std::string> whole_comm_composition(const std::string& collective);
// The values of composition_cvar that tune forces to measure the collective's
// compositions: 1 .. 3 where a CH4 tree can name the N-th (the 4th is bcast's staging of
// GPU buffers through the host, allreduce's delta a tree cannot name), for the
// collectives CH4 composes on host buffers (whole_comm_composition) whose variable MPICH
// reads (bcast, reduce, allreduce, allgather, barrier, alltoall; not scan's, the
// reduce-scatters', allgatherv's, alltoallv's, gatherv's or scatterv's: only a CH4 tree
// selects their compositions); none for the others.
std::vector<int> tuned_compositions(const std::string& collective);

// The collectives MPICH's trees may name ("collective=NAME"), from MPICH's csel.c
// (hier_mpich_keys.h), sorted.
const std::vector<std::string>& mpich_collectives();
// Whether MPICH's csel.c evaluates the key named `key` ("count", "avg_msg_size",
// "total_msg_size", "is_commutative", "is_op_built_in", "is_sendbuf_inplace",
// "is_block_regular") for a call of the collective: it asserts on the others
// (MPII_HIER_MPICH_KEY_COLLECTIVES).  True for a key that is not per collective.
bool mpich_defines(const std::string& key, const std::string& collective);

// The trees MPICH reads: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE (algorithm=MPIR_...)
// or MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE (composition=MPIDI_...).
enum class Level { mpir, ch4 };

// The problems MPI_Init would report for a tree, one line each:
// "collective=bcast > comm_size<=8: an unknown key \"...\"".  Empty when fine.
std::vector<std::string> check_tree(const nlohmann::ordered_json& tree, Level level);
// The same for a file; an unreadable file or bad JSON is one problem.
std::vector<std::string> check_tree_file(const std::string& path, Level level);
// The problems of a check in one line, as hiertune's errors are: the first one and how
// many more ("... (and 2 more: hiertune check-tree lists them)"); "" when none.
std::string problems_line(const std::vector<std::string>& problems);
// mpir unless the tree's first container is a composition.
Level level_of(const nlohmann::ordered_json& tree);

}  // namespace hiertune::grammar
