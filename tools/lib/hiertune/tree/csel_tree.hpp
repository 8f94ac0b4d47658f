// MPIR Csel JSON trees for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE (no MPI).
//
// A user tree replaces MPICH's whole built-in tree, so the tree written is the
// stock one (MPICH's maint/tuning/coll/mpir/generic.json, given as input) with,
// for each tuned collective, a branch in front of its stock intra subtree:
//
//   "collective=bcast": {
//     "comm_type=intra": {
//       "comm_hierarchy=parent": {
//         "comm_size<=12": {                         midpoint of sampled sizes 8 and 16
//           "comm_avg_ppn<=3": {                     midpoint of sampled ppn 2 and 4
//             "avg_msg_size<=98304": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=65536": {}, ...}},
//             "avg_msg_size=any": <stock intra subtree>
//           },
//           "comm_avg_ppn=any": {...}                ppn chain end: the ANY operator
//         },
//         "comm_size=any": {...}
//       },
//       "comm_hierarchy=any": <stock intra subtree>
//     },
//     "comm_type=inter": <stock>
//   }
//
// A stock collective that tests no comm_type (5.0.1's exscan, iexscan and iscan: MPI
// defines them on intra-communicators only) is its intra subtree as a whole
// (stock_intra_subtree); its tuned form gets the two comm_type keys, the stock as it
// was under "comm_type=inter".
//
// Choices tuned at one rank per node go to "comm_hierarchy=any" instead (a
// comm_size / comm_avg_ppn<=1 / avg_msg_size chain there, stock elsewhere):
// MPICH 5.0.1 makes such a comm no parent comm (MPIR_Comm_commit makes no node_comm
// and no node roots comm when the latter would be the comm itself), so
// comm_hierarchy=parent never holds for it.  The node_comm and node_roots_comm MPICH
// makes for a parent comm have no hierarchy: comm_avg_ppn fails on them, and they get
// the stock subtree.
//
// Csel semantics (MPICH 5.0.1 src/mpi/coll/src/csel.c): sibling keys are an
// if/else-if chain in file order (hence nlohmann::ordered_json throughout),
// `X<=N` tests value <= N with N an int (atoi), an algorithm key must be alone
// in its object, the ANY operator ("any" or "<name>=any", always true) must be the
// last of its chain, every other numeric test needs a following sibling (validate_tree
// asserts otherwise), and MPIR asserts on a call that matches no algorithm.  Each
// chain written here ends with "<name>=any" of the quantity it tests
// (comm_avg_ppn<=N: true when comm size <= N * node count).
//
// Compact rules (ACCLAiM section V): along each dimension the choice of one
// sampled value holds up to the midpoint between it and the next sampled value
// with a different choice; adjacent rules with the same choice are merged.
// With a requery function, the choice at the midpoint B between A and C is
// asked for and the rules become <=A: ALG-A, <C: ALG-B, then ALG-C, merged;
// without one, B is reported as a point worth measuring.
//
// Where a tree was tuned: comm sizes and ppn outside the sampled range get the
// stock subtree; so do message sizes below the smallest sampled one, where a
// tree has nothing to go by (latency-bound calls, whose best algorithm differs
// from that of the smallest size sampled); above the largest sampled size its
// choice holds (a longer message runs the same per-segment steps, more of them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hiertune/db/measure_db.hpp"  // Params

namespace hiertune::csel {

using Json = nlohmann::ordered_json;

// Unreadable or malformed tree files, trees that do not fit the input.
class TreeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What MPICH runs at one point: the stock intra subtree, or one algorithm
// container with its JSON parameters.
struct Choice {
    bool stock = true;
    std::string algorithm;  // container name, e.g. "MPIR_Bcast_intra_hier"
    Params params;          // e.g. {"segsize", "131072"}

    static Choice stock_tree() { return Choice{}; }
    static Choice container(std::string algorithm, Params params = {}) {
        return Choice{false, std::move(algorithm), std::move(params)};
    }
    std::string describe() const;  // "stock" or "MPIR_Bcast_intra_hier segsize=131072 ..."
};
bool operator==(const Choice& a, const Choice& b);
bool operator!=(const Choice& a, const Choice& b);

// An item of MPIR_CVAR_<COLL>_INTRA_ALGORITHM to its container name: "bcast",
// "hier" -> "MPIR_Bcast_intra_hier"; "nb" -> "MPIR_Bcast_allcomm_nb", and so every item
// MPICH knows only as an allcomm container ("gatherv", "linear" ->
// "MPIR_Gatherv_allcomm_linear": coll_algorithms.txt's "allcomm: 1").
std::string container_name(const std::string& collective, const std::string& algorithm_item);

// Whether MPICH with the plugin knows this MPIR container for the
// collective (an unknown name makes MPICH assert when it reads the tree):
// grammar::known_container.
bool known_container(const std::string& collective, const std::string& name);

// The key a tuned branch selects a collective's calls by message size with, and
// whether the sampled size is per rank (the key's bound is then that times the
// comm size: allgather, allgatherv, iallgatherv, reduce_scatter, ireduce_scatter and
// reduce_scatter_block, whose size is each rank's block, and alltoallv and ialltoallv,
// whose size is the block per pair; alltoall and ialltoall: avg_msg_size, the block per
// pair itself); nullopt where no key selects
// the same leaf on every rank by bytes (gather, scatter, barrier, scan, exscan,
// ireduce_scatter_block; gatherv, scatterv and their schedules, which csel.c sizes not at
// all): such a collective gets one choice per comm size and ppn.
struct SizeKey {
    std::string name;  // "avg_msg_size", "total_msg_size"
    bool per_rank = false;
};
std::optional<SizeKey> message_size_key(const std::string& collective);

// Whether CH4 may run the collective as a composition of node-level steps, so that a
// tree's MPICH algorithm reaches the whole comm only through whole_comm=1 (the plugin's
// route, counted by coll_hier_mpir_routed): the blocking ones, not their non-blocking forms.
bool device_composes(const std::string& collective);

// The best choice at one sampled point of one collective.
struct SampledChoice {
    int comm_size = 0;
    int ppn = 0;
    std::uint64_t msg_bytes = 0;
    Choice choice;
};

// One rule of a chain: `<=upper` (nullopt: `=any`) selects the choice.
struct Rule {
    std::optional<std::uint64_t> upper;
    Choice choice;
};

// Compact rules over sorted, distinct sampled values (see the file comment).
// requery may be empty.  Midpoints that would deserve a measurement (no
// requery answer, strictly between the samples) are appended to wanted.
// Throws std::invalid_argument for an empty, unsorted or duplicated list.
std::vector<Rule> compact_rules(const std::vector<std::pair<std::uint64_t, Choice>>& sampled,
                                const std::function<std::optional<Choice>(std::uint64_t)>& requery,
                                std::vector<std::uint64_t>* wanted);

// A midpoint of message sizes the tree guessed at.
struct Midpoint {
    std::string collective;
    int comm_size = 0;
    int ppn = 0;
    std::uint64_t msg_bytes = 0;
};

struct TreeInput {
    // Per collective ("bcast", "allreduce", "reduce"): its sampled choices.
    std::map<std::string, std::vector<SampledChoice>> choices;
    // Optional: the choice of a collective at (comm_size, ppn, msg_bytes) for
    // a message size that was not sampled (e.g. from a model).
    std::function<std::optional<Choice>(const std::string& collective, int comm_size, int ppn,
                                        std::uint64_t msg_bytes)>
        requery;
};

struct TreeResult {
    Json tree;
    std::vector<Midpoint> wanted;        // message sizes worth measuring
    std::size_t message_rules = 0;       // avg_msg_size rules written, all collectives
    std::vector<std::string> unchanged;  // tuned collectives left stock (stock chosen everywhere)
};

// The two trees of one input whose choices may name MPICH's CH4 compositions
// (grammar::is_composition): the MPIR tree (build_tree of mpir_stock) with the stock leaf
// where a composition was chosen, and, when one was, the CH4 tree (build_tree of
// ch4_stock, MPICH's ch4/generic.json) of every collective CH4 composes
// (grammar::whole_comm_composition) that has a choice other than stock: the composition
// where one was chosen, the composition that leaves the call to the MPIR tree where the
// MPIR tree names an algorithm, CH4's stock subtree where it is stock.  So the pair
// selects the same loaded either way: by the site (the plugin routes the MPIR tree's
// algorithms) or by CVAR (the plugin routes nothing, CH4's choices stand).
struct TreePair {
    TreeResult mpir;
    std::optional<TreeResult> ch4;  // nullopt: no composition chosen, no CH4 tree
};
TreePair build_tree_pair(const Json& mpir_stock, const Json& ch4_stock, const TreeInput& input);

// The subtree of a stock tree's collective ("collective=NAME"'s value) that calls on an
// intra-communicator walk: its "comm_type=intra", or the whole of it where no key of its
// top tests comm_type; nullptr for one with comm_type keys but no intra one, and for a
// value that is no object.
const Json* stock_intra_subtree(const Json& stock_collective);

// The stock subtree as build_tree puts it below the tuned keys: every
// "comm_size<N" rewritten as "comm_size<=N-1" (csel.c prunes "<" strictly but
// searches it as "<="), algorithm containers unchanged.
Json strict_comm_size(const Json& node);

// MPICH's shipped CH4 tree (maint/tuning/coll/ch4/generic.json) of its shipped MPIR
// tree's path (maint/tuning/coll/mpir/generic.json); "" for "".
std::string ch4_generic_beside(const std::string& mpir_generic);
// Reads a JSON tree file.  Throws TreeError naming the path.
Json load_tree(const std::string& path);
// A tree read for MPICH 5.0.1's jobs (--stock of generate, tune and learn; the trees of
// tree-timing and compare-tuners): load_tree, then the check MPI_Init runs on an MPIR
// tree.  Throws TreeError naming `option`, the path and the first problem when MPI_Init
// would refuse it (e.g. another MPICH's tree), whose jobs would run MPICH's own tree.
Json load_mpir_tree(const std::string& path, const std::string& option);
// The same for a CH4 tree (tune's --ch4-stock), checked as MPID_Init checks it.
Json load_ch4_tree(const std::string& path, const std::string& option);
// Writes the tree (2-space indent, trailing newline).  Throws TreeError.
void save_tree(const Json& tree, const std::string& path);

// The stock tree with the tuned branches inserted.  Throws TreeError when a
// tuned collective has no intra subtree in the stock tree (stock_intra_subtree), and
// std::invalid_argument for bad input (non-positive sizes, duplicate points,
// a bound beyond INT_MAX).
TreeResult build_tree(const Json& stock, const TreeInput& input);

// The problems MPI_Init reports for this tree as MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
// (grammar::check_tree: the plugin's own check, hier_grammar.c), plus every
// collective in `required` that is missing.  Empty when the tree is fine.
std::vector<std::string> check_tree(const Json& tree, const std::vector<std::string>& required = {});

// The collectives ("bcast", ...) at the top of a tree, in file order.
std::vector<std::string> collectives_of(const Json& tree);

}  // namespace hiertune::csel
