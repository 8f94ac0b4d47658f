#include "hiertune/tree/csel_show.hpp"

#include "hier_grammar.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <variant>

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"

namespace hiertune::csel {

namespace {

// ------------------------------------------------------------------ keys

// The operator node types of csel.c's parse_json_tree.
enum class Op {
    multi_threaded, comm_type_intra, comm_type_inter, collective,
    comm_size_le, comm_size_lt, comm_size_pow2, comm_size_node,
    count_le, count_lt_pow2, avg_le, avg_lt, total_le, total_lt,
    commutative, sendbuf_inplace, op_built_in, block_regular, node_consecutive, avg_ppn_le, avg_ppn_lt,
    hierarchy, any,
};

struct Key {
    Op op = Op::any;
    std::int64_t bound = 0;  // X<=N, X<N
    bool yes = true;         // is_*=yes|no; comm_hierarchy: parent (yes) or not (no)
    std::string collective;  // collective=NAME
};

// MPL_strdup_no_spaces: csel.c compares keys with their spaces removed.
std::string without_spaces(const std::string& text) {
    std::string out;
    for (char c : text)
        if (c != ' ') out += c;
    return out;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// atoi as csel.c reads a bound: leading sign and digits, 0 without digits (clamped
// to int where atoi's overflow would be undefined).
std::int64_t atoi_bound(const std::string& text) {
    const long long value = std::strtoll(text.c_str(), nullptr, 10);
    return std::clamp<long long>(value, INT_MIN, INT_MAX);
}

bool is_container_key(const std::string& key) {
    const std::string bare = without_spaces(key);
    return starts_with(bare, "algorithm=") || starts_with(bare, "composition=");
}

Key key_of(Op op, bool yes = true) {
    Key key;
    key.op = op;
    key.yes = yes;
    return key;
}

Key bounded_key(Op op, std::int64_t bound) {
    Key key = key_of(op);
    key.bound = bound;
    return key;
}

// One key as parse_json_tree reads it (csel.c 353-539, in its order: the ANY operator
// last); TreeError where MPICH asserts at load.
Key parse_key(const std::string& raw, const std::vector<std::string>& path) {
    static const std::vector<std::pair<std::string, Key>> exact{
        {"is_multi_threaded=yes", key_of(Op::multi_threaded, true)},
        {"is_multi_threaded=no", key_of(Op::multi_threaded, false)},
        {"comm_type=intra", key_of(Op::comm_type_intra)},
        {"comm_type=inter", key_of(Op::comm_type_inter)},
        {"comm_size=pow2", key_of(Op::comm_size_pow2)},
        {"comm_size=node_comm_size", key_of(Op::comm_size_node)},
        {"count<pow2", key_of(Op::count_lt_pow2)},
        {"is_commutative=yes", key_of(Op::commutative, true)},
        {"is_commutative=no", key_of(Op::commutative, false)},
        {"is_sendbuf_inplace=yes", key_of(Op::sendbuf_inplace, true)},
        {"is_sendbuf_inplace=no", key_of(Op::sendbuf_inplace, false)},
        {"is_op_built_in=yes", key_of(Op::op_built_in, true)},
        {"is_op_built_in=no", key_of(Op::op_built_in, false)},
        {"is_block_regular=yes", key_of(Op::block_regular, true)},
        {"is_block_regular=no", key_of(Op::block_regular, false)},
        {"is_node_consecutive=yes", key_of(Op::node_consecutive, true)},
        {"is_node_consecutive=no", key_of(Op::node_consecutive, false)},
        // 5.0.1: parent or not; node, node_roots and flat all mean "not a parent comm"
        {"comm_hierarchy=parent", key_of(Op::hierarchy, true)},
        {"comm_hierarchy=node_roots", key_of(Op::hierarchy, false)},
        {"comm_hierarchy=node", key_of(Op::hierarchy, false)},
        {"comm_hierarchy=flat", key_of(Op::hierarchy, false)}};
    // "<=" before "<": csel.c tests the prefixes in this order
    static const std::vector<std::pair<std::string, Op>> bounded{
        {"comm_size<=", Op::comm_size_le},     {"comm_size<", Op::comm_size_lt},
        {"count<=", Op::count_le},             {"avg_msg_size<=", Op::avg_le},
        {"avg_msg_size<", Op::avg_lt},         {"total_msg_size<=", Op::total_le},
        {"total_msg_size<", Op::total_lt},     {"comm_avg_ppn<=", Op::avg_ppn_le},
        {"comm_avg_ppn<", Op::avg_ppn_lt}};

    const std::string key = without_spaces(raw);
    for (const auto& [text, parsed] : exact)
        if (key == text) return parsed;
    if (starts_with(key, "collective=")) {
        const std::string name = key.substr(11);
        const auto& known = known_collectives();
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw TreeError("unknown collective '" + raw + "' at " + path_text(path) + " (MPICH asserts when it loads the tree)");
        Key parsed = key_of(Op::collective);
        parsed.collective = name;
        return parsed;
    }
    for (const auto& [prefix, op] : bounded)
        if (starts_with(key, prefix)) return bounded_key(op, atoi_bound(key.substr(prefix.size())));
    // the ANY operator (csel.c key_is_any): "any", or "=any" after any name
    if (key == "any" || (key.size() >= 4 && key.compare(key.size() - 4, 4, "=any") == 0)) return key_of(Op::any);
    throw TreeError("unknown key '" + raw + "' at " + path_text(path) + " (MPICH asserts when it loads the tree)");
}

// The keys MPIR_Csel_prune evaluates (once per communicator; csel.c prune_tree): ANY too.
bool prunable(Op op) {
    switch (op) {
        case Op::comm_type_intra: case Op::comm_type_inter: case Op::comm_size_le: case Op::comm_size_lt:
        case Op::comm_size_node: case Op::comm_size_pow2: case Op::hierarchy: case Op::node_consecutive:
        case Op::avg_ppn_le: case Op::avg_ppn_lt: case Op::any:
            return true;
        default:
            return false;
    }
}

// ------------------------------------------------------------------ the call

bool is_pow2(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// MPL_pof2: the largest power of two <= n.
std::int64_t pof2(std::int64_t n) {
    std::int64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

// What MPICH knows of the communicator (see the file comment).
struct Comm {
    bool inter = false;
    std::int64_t size = 0;
    bool hierarchy = false;    // MPIR_COMM_ATTR__HIERARCHY
    std::int64_t nodes = 0;    // num_external (with a hierarchy)
    bool parent = false;       // MPIR_Comm_is_parent_comm
    bool consecutive = false;  // MPII_Comm_is_node_consecutive
};

Comm comm_of(const CallPoint& p) {
    Comm comm;
    comm.inter = p.inter;
    comm.size = p.comm_size;
    if (p.subcomm) return comm;  // MPIR_Subcomm_create: no hierarchy
    comm.hierarchy = true;
    comm.nodes = p.inter ? p.comm_size : p.nodes;
    // MPIR_Comm_commit makes node_comm and node_roots_comm unless each node has one rank
    comm.parent = comm.nodes != comm.size;
    // check_hierarchy sets NODE_CONSECUTIVE only between one node and one rank per node
    comm.consecutive = comm.nodes > 1 && comm.nodes < comm.size && p.is_node_consecutive;
    return comm;
}

// The name of what an operator of the call tests, as csel.c's keys spell it.
const char* quantity_name(Op op) {
    switch (op) {
        case Op::count_le: case Op::count_lt_pow2: return "count";
        case Op::avg_le: case Op::avg_lt: return "avg_msg_size";
        case Op::total_le: case Op::total_lt: return "total_msg_size";
        case Op::commutative: return "is_commutative";
        case Op::op_built_in: return "is_op_built_in";
        case Op::sendbuf_inplace: return "is_sendbuf_inplace";
        default: return "is_block_regular";
    }
}

// csel.c's get_count; nullopt where it asserts (grammar::mpich_defines).
std::optional<std::int64_t> csel_count(const std::string& coll, std::int64_t count, std::int64_t size) {
    if (!grammar::mpich_defines("count", coll)) return std::nullopt;
    // the v-forms sum every rank's count
    if (one_of(coll, {"allgatherv", "iallgatherv", "reduce_scatter", "ireduce_scatter"})) return count * size;
    return count;
}

// csel.c's get_avg_msgsize.
std::optional<std::int64_t> avg_msg_size(const std::string& coll, std::int64_t bytes) {
    if (!grammar::mpich_defines("avg_msg_size", coll)) return std::nullopt;
    return bytes;
}

// csel.c's get_total_msgsize.
std::optional<std::int64_t> total_msg_size(const std::string& coll, std::int64_t count, std::int64_t type_size,
                                           std::int64_t size) {
    if (!grammar::mpich_defines("total_msg_size", coll)) return std::nullopt;
    // these assign count * size over the type size csel.c has just read
    if (one_of(coll, {"gather", "scatter", "igather", "iscatter", "ireduce_scatter_block"})) return count * size;
    return count * type_size * size;
}

// The yes/no properties of the call, nullopt where csel.c asserts for the collective.
std::optional<bool> call_flag(Op op, const CallPoint& p) {
    bool value = false;
    switch (op) {
        case Op::commutative: value = p.is_commutative; break;
        case Op::op_built_in: value = p.is_op_built_in; break;
        case Op::sendbuf_inplace: value = p.is_sendbuf_inplace; break;
        case Op::block_regular: value = p.is_block_regular; break;
        default: throw std::logic_error("not a flag of the call");
    }
    if (!grammar::mpich_defines(quantity_name(op), p.collective)) return std::nullopt;
    return value;
}

// ------------------------------------------------------------------ the walk

// A chain of sibling keys (an if/else-if chain in file order), where in it the walk
// stands and the keys that held on the way there.
struct Position {
    const Json* chain = nullptr;
    std::size_t index = 0;
    std::vector<std::string> path;

    bool at_end() const { return index >= chain->size(); }
    Json::const_iterator item() const { return std::next(chain->begin(), static_cast<std::ptrdiff_t>(index)); }
};

using Step = std::variant<Selection, Position>;

std::vector<std::string> extended(std::vector<std::string> path, const std::string& key) {
    path.push_back(key);
    return path;
}

Selection no_match(std::vector<std::string> path, std::string problem) {
    Selection s;
    s.kind = Selection::Kind::no_match;
    s.path = std::move(path);
    s.problem = std::move(problem);
    return s;
}

Selection undefined(std::vector<std::string> path, std::string problem) {
    Selection s = no_match(std::move(path), std::move(problem));
    s.kind = Selection::Kind::undefined;
    return s;
}

// A container object: csel.c's parse_json_tree turns an object holding an algorithm
// key into one leaf (check_tree flags such a key that is not alone); its value holds
// "param=value" keys.
Selection container(const Json& object, const std::string& key, std::vector<std::string> path) {
    Selection s;
    s.kind = Selection::Kind::container;
    const std::string bare = without_spaces(key);
    s.container = starts_with(bare, "algorithm=") ? bare.substr(10) : bare;
    s.path = std::move(path);
    const Json& params = object.at(key);
    if (!params.is_object())
        throw TreeError("parameters of '" + key + "' at " + path_text(s.path) + " are not an object");
    for (const auto& [param, unused] : params.items()) {
        const std::string text = without_spaces(param);
        if (text == std::string(MPII_HIER_WHOLE_COMM_PARAM) + "=1") {  // where it runs, not what
            s.whole_comm = true;
            continue;
        }
        const std::size_t eq = text.find('=');
        s.params.emplace_back(text.substr(0, eq), eq == std::string::npos ? "" : text.substr(eq + 1));
    }
    return s;
}

class Walk {
public:
    explicit Walk(const CallPoint& point) : point_(point), comm_(comm_of(point)) {}

    Selection run(const Json& tree) {
        Step top = enter(tree, {});
        if (std::holds_alternative<Position>(top)) top = prune(std::get<Position>(top));
        if (std::holds_alternative<Selection>(top))
            return undefined({}, "the tree's top level is an algorithm, not collectives");
        return collective(std::get<Position>(top));
    }

private:
    // Into the value of a key that held: a container or the chain it holds.
    Step enter(const Json& value, std::vector<std::string> path) const {
        if (!value.is_object()) throw TreeError(path_text(path) + " is not a JSON object (MPICH asserts when it loads the tree)");
        for (const auto& [key, unused] : value.items())
            if (is_container_key(key)) return container(value, key, std::move(path));
        return Position{&value, 0, std::move(path)};
    }

    // MPIR_Csel_prune's prune_tree: communicator keys only; where none of a chain
    // holds, the walk restarts at `start` in the search.
    Step prune(const Position& start) const {
        Position pos = start;
        while (!pos.at_end()) {
            const auto item = pos.item();
            const Key key = parse_key(item.key(), pos.path);
            if (!prunable(key.op)) return pos;
            if (!comm_test(key, true)) {
                ++pos.index;
                continue;
            }
            Step next = enter(item.value(), extended(pos.path, item.key()));
            if (std::holds_alternative<Selection>(next)) return next;
            pos = std::get<Position>(next);
        }
        return start;
    }

    // MPIR_Csel_prune keeps one subtree per collective of the chain it pruned down to,
    // then MPIR_Csel_search walks the one called.
    Selection collective(const Position& top) const {
        std::optional<Position> called;
        for (Position pos = top; !pos.at_end(); ++pos.index) {
            const auto item = pos.item();
            const Key key = parse_key(item.key(), pos.path);
            if (key.op != Op::collective)  // every communicator meets this, called or not
                return undefined(extended(pos.path, item.key()),
                                 "MPIR_Csel_prune expects only collective keys here (it asserts or misreads this one)");
            if (key.collective == point_.collective) called = pos;
        }
        if (!called) {
            Selection missing = no_match(top.path, "no collective=" + point_.collective);
            missing.note = "mpich-hier's MPI_Init merges in the built-in tree's";
            return missing;
        }
        const auto item = called->item();
        Step next = enter(item.value(), extended(called->path, item.key()));
        if (std::holds_alternative<Position>(next)) next = prune(std::get<Position>(next));
        if (std::holds_alternative<Selection>(next)) return std::get<Selection>(next);
        return search(std::get<Position>(next));
    }

    // MPIR_Csel_search from a pruned position.
    Selection search(Position pos) const {
        while (!pos.at_end()) {
            const auto item = pos.item();
            const Key key = parse_key(item.key(), pos.path);
            std::string why;
            const std::optional<bool> held = test(key, &why);
            if (!held) return undefined(extended(pos.path, item.key()), why);
            if (!*held) {
                ++pos.index;
                continue;
            }
            Step next = enter(item.value(), extended(pos.path, item.key()));
            if (std::holds_alternative<Selection>(next)) return std::get<Selection>(next);
            pos = std::get<Position>(next);
        }
        return no_match(pos.path, "");
    }

    // The communicator keys; `pruning` only matters for comm_size<N (see the file comment).
    bool comm_test(const Key& key, bool pruning) const {
        switch (key.op) {
            case Op::comm_type_intra: return !comm_.inter;
            case Op::comm_type_inter: return comm_.inter;
            case Op::comm_size_le: return comm_.size <= key.bound;
            case Op::comm_size_lt: return pruning ? comm_.size < key.bound : comm_.size <= key.bound;
            case Op::comm_size_node: return comm_.hierarchy && comm_.nodes == 1;
            case Op::comm_size_pow2: return is_pow2(comm_.size);
            case Op::hierarchy: return comm_.parent == key.yes;
            case Op::node_consecutive: return comm_.consecutive == key.yes;
            case Op::avg_ppn_le: return comm_.hierarchy && comm_.size <= key.bound * comm_.nodes;
            case Op::avg_ppn_lt: return comm_.hierarchy && comm_.size < key.bound * comm_.nodes;
            case Op::any: return true;
            default: throw std::logic_error("not a communicator key");
        }
    }

    // Any key at search time; nullopt (and why) where csel.c asserts.
    std::optional<bool> test(const Key& key, std::string* why) const {
        if (prunable(key.op)) return comm_test(key, false);
        const std::string& coll = point_.collective;
        const auto type_size = static_cast<std::int64_t>(point_.type_size);
        const std::int64_t count = static_cast<std::int64_t>(point_.bytes / point_.type_size);
        std::optional<std::int64_t> value;
        switch (key.op) {
            case Op::multi_threaded: return point_.is_multi_threaded == key.yes;
            case Op::collective: return key.collective == coll;
            case Op::count_le: case Op::count_lt_pow2: value = csel_count(coll, count, comm_.size); break;
            case Op::avg_le: case Op::avg_lt: value = avg_msg_size(coll, count * type_size); break;
            case Op::total_le: case Op::total_lt: value = total_msg_size(coll, count, type_size, comm_.size); break;
            default: {
                const std::optional<bool> flag = call_flag(key.op, point_);
                if (!flag) *why = std::string(quantity_name(key.op)) + " is not defined for " + coll;
                return flag ? std::optional<bool>(*flag == key.yes) : std::nullopt;
            }
        }
        if (!value) {
            *why = std::string(quantity_name(key.op)) + " is not defined for " + coll;
            return std::nullopt;
        }
        switch (key.op) {
            case Op::count_lt_pow2: return *value < pof2(comm_.size);
            case Op::count_le: case Op::avg_le: case Op::total_le: return *value <= key.bound;
            default: return *value < key.bound;  // avg_lt, total_lt
        }
    }

    const CallPoint& point_;
    const Comm comm_;
};

void check_point(const CallPoint& p) {
    const auto& known = known_collectives();
    if (std::find(known.begin(), known.end(), p.collective) == known.end())
        throw std::invalid_argument("unknown collective '" + p.collective + "'");
    if (p.comm_size < 1) throw std::invalid_argument("comm size must be >= 1");
    if (p.nodes < 1 || p.nodes > p.comm_size)
        throw std::invalid_argument("nodes must be 1.." + std::to_string(p.comm_size));
    if (p.type_size == 0) throw std::invalid_argument("type size must be >= 1");
}

}  // namespace

const std::vector<std::string>& known_collectives() { return grammar::mpich_collectives(); }

int nodes_for_ppn(int comm_size, int ppn) {
    if (comm_size < 1 || ppn < 1) throw std::invalid_argument("comm size and ppn must be >= 1");
    return (comm_size + ppn - 1) / ppn;
}

std::string path_text(const std::vector<std::string>& path) {
    if (path.empty()) return "top level";
    std::string text;
    for (const std::string& key : path) text += (text.empty() ? "" : " > ") + key;
    return text;
}

std::string Selection::describe() const {
    switch (kind) {
        case Kind::container: {
            std::string text = container;
            for (const auto& [name, value] : params) text += " " + name + (value.empty() ? "" : "=" + value);
            if (whole_comm) text += " (whole comm)";
            return text;
        }
        case Kind::no_match:
            return "NO MATCH at " + path_text(path) + (problem.empty() ? "" : " (" + problem + ")") +
                   ": MPICH asserts" + (note.empty() ? "" : "; " + note);
        case Kind::undefined:
            return "MPICH ASSERTS at " + path_text(path) + ": " + problem;
    }
    return "";
}

Selection select(const Json& tree, const CallPoint& point) {
    check_point(point);
    return Walk(point).run(tree);
}

// ------------------------------------------------------------------ the table

namespace {

// The bounds of one collective's part of a tree: the keys above its collective key
// and those of its subtree.
struct Bounds {
    std::set<std::int64_t> comm_size;  // thresholds t: the answer may change between t and t+1
    bool pow2 = false;
    bool node_comm_size = false;
    std::set<std::int64_t> ppn;                // thresholds as for comm_size
    std::set<std::int64_t> avg, total, count;  // thresholds as for comm_size
    bool count_pow2 = false;
};

void collect(const Json& node, const std::string& collective, std::vector<std::string>& path, Bounds& bounds) {
    if (!node.is_object()) throw TreeError(path_text(path) + " is not a JSON object (MPICH asserts when it loads the tree)");
    for (const auto& [raw, unused] : node.items())
        if (is_container_key(raw)) return;  // a leaf: its parameters are no keys
    for (const auto& [raw, value] : node.items()) {
        const Key key = parse_key(raw, path);
        if (key.op == Op::collective && key.collective != collective) continue;
        switch (key.op) {
            case Op::comm_size_le: bounds.comm_size.insert(key.bound); break;
            // pruned it reads `< N`, searched `<= N`: both sides of both
            case Op::comm_size_lt: bounds.comm_size.insert({key.bound - 1, key.bound}); break;
            case Op::comm_size_pow2: bounds.pow2 = true; break;
            case Op::comm_size_node: bounds.node_comm_size = true; break;
            case Op::avg_ppn_le: bounds.ppn.insert(key.bound); break;
            case Op::avg_ppn_lt: bounds.ppn.insert(key.bound - 1); break;
            case Op::avg_le: bounds.avg.insert(key.bound); break;
            case Op::avg_lt: bounds.avg.insert(key.bound - 1); break;
            case Op::total_le: bounds.total.insert(key.bound); break;
            case Op::total_lt: bounds.total.insert(key.bound - 1); break;
            case Op::count_le: bounds.count.insert(key.bound); break;
            case Op::count_lt_pow2: bounds.count_pow2 = true; break;
            default: break;
        }
        path.push_back(raw);
        collect(value, collective, path, bounds);
        path.pop_back();
    }
}

Bounds bounds_of(const Json& tree, const std::string& collective) {
    Bounds bounds;
    std::vector<std::string> path;
    collect(tree, collective, path, bounds);
    return bounds;
}

constexpr std::int64_t kMaxCommSize = std::int64_t{1} << 20;
constexpr std::int64_t kMaxPpn = 1024;
constexpr std::uint64_t kLargestDefaultMessage = std::uint64_t{1} << 24;  // 16 MiB

// The block of message sizes of one (collective, comm size, ppn): evaluated and merged.
// The sizes hold both sides of every bound, so a row ends right below the next one.
void add_rows(const Json& tree, CallPoint point, int ppn, const std::vector<std::uint64_t>& sizes,
              std::vector<TableRow>& rows) {
    const std::size_t first = rows.size();
    for (std::uint64_t bytes : sizes) {
        point.bytes = bytes;
        Selection selection = select(tree, point);
        if (rows.size() > first && rows.back().selection.describe() == selection.describe()) {
            rows.back().max_bytes = bytes;
            continue;
        }
        rows.push_back({point.collective, point.comm_size, ppn, point.nodes, bytes, bytes, std::move(selection)});
    }
}

// The ppn values of one comm size: above the comm size is one node, shown as the comm size.
std::vector<int> ppns_for(const std::vector<int>& ppns, int comm_size, bool single_node_too) {
    std::set<int> values;
    for (int ppn : ppns) values.insert(std::min(ppn, comm_size));
    if (single_node_too) values.insert(comm_size);
    return {values.begin(), values.end()};
}

void check_options(const TableOptions& options) {
    for (int size : options.comm_sizes)
        if (size < 1) throw std::invalid_argument("comm sizes must be >= 1");
    for (int ppn : options.ppns)
        if (ppn < 1) throw std::invalid_argument("ppn values must be >= 1");
    if (options.type_size == 0) throw std::invalid_argument("type size must be >= 1");
}

}  // namespace

std::vector<int> default_comm_sizes(const Json& tree, const std::string& collective) {
    const Bounds bounds = bounds_of(tree, collective);
    std::set<std::int64_t> sizes;
    for (std::int64_t t : bounds.comm_size) sizes.insert({t, t + 1});
    if (sizes.empty()) sizes.insert(16);
    if (bounds.pow2) {
        const std::set<std::int64_t> plain = sizes;
        for (std::int64_t size : plain) sizes.insert(is_pow2(size) ? size + size / 2 : pof2(size));
    }
    std::vector<int> result;
    for (std::int64_t size : sizes)
        if (size >= 2 && size <= kMaxCommSize) result.push_back(static_cast<int>(size));
    return result;
}

std::vector<int> default_ppns(const Json& tree, const std::string& collective) {
    std::set<std::int64_t> ppns{1, 2};
    for (std::int64_t n : bounds_of(tree, collective).ppn) ppns.insert({n, n + 1});
    std::vector<int> result;
    for (std::int64_t ppn : ppns)
        if (ppn >= 1 && ppn <= kMaxPpn) result.push_back(static_cast<int>(ppn));
    return result;
}

std::vector<std::uint64_t> table_message_sizes(const Json& tree, const std::string& collective, int comm_size,
                                               std::uint64_t type_size) {
    if (comm_size < 1 || type_size == 0) throw std::invalid_argument("comm size and type size must be >= 1");
    const Bounds bounds = bounds_of(tree, collective);
    const auto ts = static_cast<std::int64_t>(type_size);
    const std::int64_t size = comm_size;
    // in elements: the last count on each side of every bound, for each way csel.c
    // turns a count into the quantity it tests (see the file comment of the header)
    std::set<std::int64_t> counts{0};
    for (std::uint64_t bytes = 1; bytes <= kLargestDefaultMessage; bytes *= 2)
        counts.insert(static_cast<std::int64_t>(bytes / type_size));
    const auto around = [&counts](std::int64_t last) { counts.insert({last, last + 1}); };
    for (std::int64_t t : bounds.avg) around(t / ts);
    for (std::int64_t t : bounds.total) {
        around(t / (ts * size));
        around(t / size);
    }
    for (std::int64_t t : bounds.count) {
        around(t);
        around(t / size);
    }
    if (bounds.count_pow2) around(pof2(size) - 1);
    std::vector<std::uint64_t> sizes;
    for (std::int64_t count : counts)
        if (count >= 0) sizes.push_back(static_cast<std::uint64_t>(count) * type_size);
    return sizes;
}

std::vector<TableRow> selection_table(const Json& tree, const TableOptions& options) {
    check_options(options);
    std::vector<std::string> collectives = options.collectives;
    if (collectives.empty())
        collectives = {to_string(grammar::Collective::bcast), to_string(grammar::Collective::reduce), to_string(grammar::Collective::allreduce)};
    std::vector<TableRow> rows;
    for (const std::string& collective : collectives) {
        CallPoint point;
        point.collective = collective;
        point.type_size = options.type_size;
        check_point(point);
        const bool given_ppns = !options.ppns.empty();
        const std::vector<int> sizes =
            options.comm_sizes.empty() ? default_comm_sizes(tree, collective) : options.comm_sizes;
        const std::vector<int> ppns = given_ppns ? options.ppns : default_ppns(tree, collective);
        const bool single_node = !given_ppns && bounds_of(tree, collective).node_comm_size;
        for (int comm_size : sizes) {
            const std::vector<std::uint64_t> messages =
                table_message_sizes(tree, collective, comm_size, options.type_size);
            for (int ppn : ppns_for(ppns, comm_size, single_node)) {
                point.comm_size = comm_size;
                point.nodes = nodes_for_ppn(comm_size, ppn);
                add_rows(tree, point, ppn, messages, rows);
            }
        }
    }
    return rows;
}

std::string bytes_text(const TableRow& row) {
    if (row.min_bytes == row.max_bytes) return std::to_string(row.min_bytes);
    return std::to_string(row.min_bytes) + ".." + std::to_string(row.max_bytes);
}

void print_table(const std::vector<TableRow>& rows, std::ostream& out, const std::vector<std::string>& sources) {
    const bool sourced = !sources.empty();
    std::vector<std::string> header{"collective", "comm_size", "ppn", "bytes", "selection"};
    if (sourced) header.insert(header.end() - 1, "source");
    std::vector<std::vector<std::string>> lines{header};
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const TableRow& row = rows[r];
        lines.push_back({row.collective, std::to_string(row.comm_size), std::to_string(row.ppn), bytes_text(row),
                         row.selection.describe()});
        if (sourced) lines.back().insert(lines.back().end() - 1, sources.at(r));
    }
    std::vector<std::size_t> widths(header.size(), 0);
    for (const auto& line : lines)
        for (std::size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
    for (const auto& line : lines) {
        std::string text;
        for (std::size_t i = 0; i < line.size(); ++i)
            text += i + 1 < line.size() ? line[i] + std::string(widths[i] - line[i].size() + 2, ' ') : line[i];
        out << text << '\n';
    }
}

Json table_json(const std::vector<TableRow>& rows, const std::vector<std::string>& sources) {
    Json array = Json::array();
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const TableRow& row = rows[r];
        const Selection& s = row.selection;
        Json params = Json::object();
        for (const auto& [name, value] : s.params) params[name] = value;
        Json object{{"collective", row.collective}, {"comm_size", row.comm_size}, {"ppn", row.ppn},
                    {"nodes", row.nodes},           {"min_bytes", row.min_bytes}, {"max_bytes", row.max_bytes},
                    {"matched", s.matched()}};
        object["algorithm"] = s.matched() ? Json(s.container) : Json(nullptr);
        object["params"] = params;
        object["whole_comm"] = s.whole_comm;
        object["selection"] = s.describe();
        object["path"] = s.path;
        if (!sources.empty()) object["source"] = sources.at(r);
        array.push_back(std::move(object));
    }
    return array;
}

}  // namespace hiertune::csel
