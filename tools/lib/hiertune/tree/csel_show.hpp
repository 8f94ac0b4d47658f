// What an MPIR Csel JSON tree selects (`hiertune show-tree`; no MPI).
//
// The walk is MPICH 5.0.1's (src/mpi/coll/src/csel.c), in its two phases:
//
//  - when a communicator is created, MPIR_Csel_prune walks from the root over the
//    keys that depend on the communicator alone (comm_type, comm_size*, comm_hierarchy,
//    is_node_consecutive, comm_avg_ppn) and the ANY operator down to the collectives,
//    then into each collective's subtree as far as such keys lead; where no sibling of
//    such a chain holds, it keeps that subtree unpruned;
//  - at each call, MPIR_Csel_search walks on from there over every key, to an
//    algorithm (a "container"), or off the end of a chain: MPICH then gets no
//    container and the collective asserts.
//
// The phases differ in one key: `comm_size<N` is `size < N` when pruning but
// `size <= N` when searching (csel.c's search tests `<=`), so it answers by where it
// stands (e.g. below a message-size key it is searched).  Bounds are read as atoi does.
// The ANY operator, "any" or any "<name>=any", always holds; MPICH reads it after every
// other key, so "comm_size<=any" is a bound (0) and "collective=any" an unknown collective.
//
// The communicator as MPICH 5.0.1 describes it (src/mpi/comm/commutil.c check_hierarchy
// and MPIR_Comm_commit, src/include/mpir_comm.h): a communicator the user gets has a
// hierarchy (the nodes of its ranks), and is a parent comm (MPICH makes node_comm and
// node_roots_comm for it) unless every node holds just one of its ranks; the node_comm
// and node_roots_comm MPICH makes (subcomms, MPIR_Subcomm_create) have no hierarchy.
//   comm_hierarchy=parent               a parent comm
//   comm_hierarchy=node|node_roots|flat any other comm: all three alike
//   comm_size=node_comm_size            a hierarchy on a single node (a lone rank too)
//   comm_avg_ppn<=N, comm_avg_ppn<N     a hierarchy, and size <= N * nodes (< N * nodes)
//   is_node_consecutive                 a hierarchy on 2..size-1 nodes whose ranks are
//                                       numbered node by node (neither one node nor one
//                                       rank per node counts)
//   count<pow2                          count < the largest power of two <= comm size
// An intercomm is taken as one rank per node (MPICH derives its hierarchy from the
// remote group's nodes; not modelled): never a parent comm.
//
// Message quantities (csel.c get_count, get_avg_msgsize, get_total_msgsize), with
// `bytes` one rank's block (bcast/reduce/allreduce: the buffer; alltoall: what goes to
// one peer; allgather, reduce_scatter*: one rank's part), count = bytes / type size
// and the blocks of v/w collectives all alike (a simplification: csel.c sums them):
//   count           = count for bcast, reduce, allreduce, allgather, reduce_scatter_block
//                     (and their i-forms but ibcast); count * size for allgatherv,
//                     reduce_scatter (and i-forms)
//   avg_msg_size    = count * type size, for bcast, reduce, allreduce, alltoall (and i-forms)
//   total_msg_size  = count * type size * size, for bcast, reduce, allreduce, alltoall(v,w),
//                     allgather(v), reduce_scatter(_block) (and i-forms); but count * size
//                     for gather, scatter, igather, iscatter, ireduce_scatter_block (csel.c
//                     overwrites the type size there)
// Anywhere else csel.c has no answer and asserts: the walk reports that key.  Likewise
// is_commutative (reductions), is_op_built_in ((i)reduce, (i)allreduce),
// is_sendbuf_inplace ((i)alltoall(v,w)) and is_block_regular ((i)reduce_scatter).
// The ANY operator is never evaluated, so "avg_msg_size=any" holds for any collective.
//
// mpich-hier's MPI_Init merges the collectives a user tree leaves out from MPICH's
// built-in tree; stock 5.0.1 asserts on them.  A missing collective is reported as a
// no-match that says so.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/csel_tree.hpp"  // Json, TreeError

namespace hiertune::csel {

// One collective call on one communicator, as csel.c sees it.
struct CallPoint {
    std::string collective = to_string(grammar::Collective::bcast);  // as in "collective=bcast"
    bool inter = false;                // comm_type=inter
    int comm_size = 2;                 // local size
    int nodes = 1;                     // nodes the ranks are on, 1..comm_size
    bool subcomm = false;              // a node_comm or node_roots_comm MPICH made for a parent
                                       // comm: no hierarchy of its own (nodes unused)
    std::uint64_t bytes = 0;           // one rank's block, see the file comment
    std::uint64_t type_size = 1;       // count = bytes / type_size
    bool is_commutative = true;
    bool is_op_built_in = true;
    bool is_sendbuf_inplace = false;
    bool is_multi_threaded = false;
    bool is_block_regular = true;
    bool is_node_consecutive = true;  // ranks of a node numbered together (only PARENT comms)
};

// Nodes of `comm_size` ranks placed `ppn` per node (the last node may hold fewer).
int nodes_for_ppn(int comm_size, int ppn);

// Where a walk ends.
struct Selection {
    enum class Kind {
        container,  // an algorithm (or composition) was reached
        no_match,   // a chain where no sibling held: MPICH gets no container and asserts
        undefined,  // a key csel.c cannot evaluate for this collective: it asserts
    };
    Kind kind = Kind::no_match;
    std::string container;  // "MPIR_Bcast_intra_hier" ("algorithm=" dropped), "composition=..."
    std::vector<std::pair<std::string, std::string>> params;  // file order: {"segsize", "65536"}
    bool whole_comm = false;  // MPICH's algorithm marked whole_comm=1 (not in params)
    std::vector<std::string> path;  // keys that held, from the root; undefined: ends with the key
    std::string problem;            // no_match, undefined: why, e.g. "no collective=reduce"
    std::string note;               // what mpich-hier does instead, where it differs

    bool matched() const { return kind == Kind::container; }
    // "MPIR_Bcast_intra_hier segsize=65536 inter_algo=tsp_ring",
    // "NO MATCH at collective=bcast > comm_type=intra: MPICH asserts",
    // "NO MATCH at top level (no collective=reduce): MPICH asserts; mpich-hier: ...", ...
    std::string describe() const;
};

// "a > b > c", or "top level" for an empty path.
std::string path_text(const std::vector<std::string>& path);

// What MPICH 5.0.1 selects at `point`.  Throws TreeError where MPICH would refuse the
// tree when it loads it (a value that is not an object, an unknown key on the way),
// std::invalid_argument for an impossible point (sizes < 1, nodes outside 1..comm size,
// type size 0, an unknown collective).
Selection select(const Json& tree, const CallPoint& point);

// The collectives MPICH's trees may name (grammar::mpich_collectives: MPICH's csel.c).
const std::vector<std::string>& known_collectives();

// ------------------------------------------------------------------ the table

struct TableOptions {
    std::vector<std::string> collectives;  // empty: bcast, reduce, allreduce
    std::vector<int> comm_sizes;           // empty: from the tree, see default_comm_sizes
    std::vector<int> ppns;                 // empty: from the tree, see default_ppns
    std::uint64_t type_size = 1;
};

// Message sizes of one (collective, comm size, ppn) with one selection: every byte
// count from min_bytes to max_bytes (whole elements) selects the same.  The last row
// of a block also holds for every larger message (all bounds of the tree lie below).
struct TableRow {
    std::string collective;
    int comm_size = 0;
    int ppn = 0;
    int nodes = 0;
    std::uint64_t min_bytes = 0;
    std::uint64_t max_bytes = 0;
    Selection selection;
};

// The comm sizes worth showing for a collective: both sides of each comm_size bound
// of its subtree (N and N+1 for `<=N`; N-1, N and N+1 for `<N`, which prune and search
// read differently), where comm_size=pow2 appears a power of two next to each other
// size and a non-power next to each power (8 -> 12), 16 if there is no bound; 2..2^20.
// Throws TreeError for keys MPICH does not know.
std::vector<int> default_comm_sizes(const Json& tree, const std::string& collective);
// 1 (flat), 2 and both sides of each comm_avg_ppn bound (<=N: N, N+1; <N: N-1, N); 1..1024.
std::vector<int> default_ppns(const Json& tree, const std::string& collective);
// Ascending byte counts, whole elements, at which the selection may change: 0, powers
// of two from 1 B to 16 MiB and both sides of every message bound of the collective's
// subtree (avg_msg_size, total_msg_size and count, converted for this comm size).
std::vector<std::uint64_t> table_message_sizes(const Json& tree, const std::string& collective, int comm_size,
                                               std::uint64_t type_size);

// Each collective x comm size x ppn (a ppn above the comm size means one node: it is
// shown as the comm size; `comm_size=node_comm_size` in the tree adds that case) x
// message size, evaluated and merged into rows.  Throws as select does, and
// std::invalid_argument for non-positive sizes or an unknown collective.
std::vector<TableRow> selection_table(const Json& tree, const TableOptions& options);

// "0..12288", or "4096" for a single size.
std::string bytes_text(const TableRow& row);
// Aligned columns collective, comm_size, ppn, bytes, selection, with a header line;
// with sources (one per row: tree_coverage.hpp row_source) a column source before
// the selection.
void print_table(const std::vector<TableRow>& rows, std::ostream& out, const std::vector<std::string>& sources = {});
// [{"collective": ..., "comm_size": ..., "ppn": ..., "nodes": ..., "min_bytes": ...,
//   "max_bytes": ..., "matched": ..., "algorithm": ... or null, "params": {...},
//   "selection": describe(), "path": [...]}, ...], with sources each row's "source"
Json table_json(const std::vector<TableRow>& rows, const std::vector<std::string>& sources = {});

}  // namespace hiertune::csel
