#include "csel_tree.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace hiertune::csel {

bool operator==(const Choice& a, const Choice& b) {
    return std::tie(a.stock, a.algorithm, a.params) == std::tie(b.stock, b.algorithm, b.params);
}
bool operator!=(const Choice& a, const Choice& b) { return !(a == b); }

std::string Choice::describe() const {
    if (stock) return "stock";
    std::string text = algorithm;
    for (const auto& [key, value] : params) text += " " + key + "=" + value;
    return text;
}

std::string container_name(const std::string& collective, const std::string& algorithm_item) {
    if (collective.empty() || algorithm_item.empty())
        throw std::invalid_argument("container name needs a collective and an algorithm");
    std::string coll = collective;
    coll[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(coll[0])));
    if (algorithm_item == "nb") return "MPIR_" + coll + "_allcomm_nb";
    return "MPIR_" + coll + "_intra_" + algorithm_item;
}

bool known_container(const std::string& collective, const std::string& name) {
    // csel_container.c of MPICH 4.0.2, plus the plugin's registrations
    static const std::map<std::string, std::set<std::string>> known{
        {"bcast",
         {"MPIR_Bcast_allcomm_nb", "MPIR_Bcast_intra_binomial", "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
          "MPIR_Bcast_intra_scatter_ring_allgather", "MPIR_Bcast_intra_smp", "MPIR_Bcast_intra_hier",
          "MPIR_Bcast_intra_seg_linear", "MPIR_Bcast_intra_seg_chain", "MPIR_Bcast_intra_seg_pipeline",
          "MPIR_Bcast_intra_seg_binary", "MPIR_Bcast_intra_seg_split_binary", "MPIR_Bcast_intra_seg_binomial",
          "MPIR_Bcast_inter_remote_send_local_bcast"}},
        {"reduce",
         {"MPIR_Reduce_allcomm_nb", "MPIR_Reduce_intra_binomial", "MPIR_Reduce_intra_reduce_scatter_gather",
          "MPIR_Reduce_intra_smp", "MPIR_Reduce_intra_hier", "MPIR_Reduce_intra_seg_linear",
          "MPIR_Reduce_intra_seg_chain", "MPIR_Reduce_intra_seg_pipeline", "MPIR_Reduce_intra_seg_binary",
          "MPIR_Reduce_intra_seg_binomial", "MPIR_Reduce_intra_seg_in_order_binary",
          "MPIR_Reduce_inter_local_reduce_remote_send"}},
        {"allreduce",
         {"MPIR_Allreduce_allcomm_nb", "MPIR_Allreduce_intra_recursive_doubling",
          "MPIR_Allreduce_intra_reduce_scatter_allgather", "MPIR_Allreduce_intra_smp", "MPIR_Allreduce_intra_hier",
          "MPIR_Allreduce_inter_reduce_exchange_bcast"}}};
    const auto found = known.find(collective);
    return found == known.end() || found->second.count(name) > 0;
}

namespace {

// Generic compaction: T is a Choice or a subtree.
template <class T>
std::vector<std::pair<std::optional<std::uint64_t>, T>> compact(
    const std::vector<std::pair<std::uint64_t, T>>& sampled,
    const std::function<std::optional<T>(std::uint64_t)>& requery, std::vector<std::uint64_t>* wanted) {
    if (sampled.empty()) throw std::invalid_argument("no sampled values to make rules from");
    for (std::size_t i = 1; i < sampled.size(); ++i)
        if (sampled[i].first <= sampled[i - 1].first)
            throw std::invalid_argument("sampled values must be ascending and distinct");

    std::vector<std::pair<std::optional<std::uint64_t>, T>> rules;
    for (std::size_t i = 0; i + 1 < sampled.size(); ++i) {
        const auto& [a, choice_a] = sampled[i];
        const auto& [c, choice_c] = sampled[i + 1];
        if (choice_a == choice_c) continue;  // the rule goes on
        const std::uint64_t b = a + (c - a) / 2;
        std::optional<T> choice_b;
        if (requery && b > a && b < c) choice_b = requery(b);
        if (choice_b) {
            rules.emplace_back(a, choice_a);
            rules.emplace_back(c - 1, *choice_b);
        } else {
            rules.emplace_back(b, choice_a);
            if (wanted && b > a && b < c) wanted->push_back(b);
        }
    }
    rules.emplace_back(std::nullopt, sampled.back().second);

    // Merge neighbours with the same choice: the later bound covers both.
    std::vector<std::pair<std::optional<std::uint64_t>, T>> merged;
    for (auto& rule : rules) {
        if (!merged.empty() && merged.back().second == rule.second)
            merged.back().first = rule.first;
        else
            merged.push_back(std::move(rule));
    }
    return merged;
}

std::string bound_text(std::uint64_t bound) {
    if (bound > static_cast<std::uint64_t>(INT_MAX))
        throw std::invalid_argument("bound " + std::to_string(bound) + " does not fit MPICH's int");
    return std::to_string(bound);
}

Json leaf(const Choice& choice, const Json& stock_intra) {
    if (choice.stock) return stock_intra;
    if (choice.algorithm.empty()) throw std::invalid_argument("algorithm choice without a name");
    Json params = Json::object();
    for (const auto& [key, value] : choice.params) params[key + "=" + value] = Json::object();
    Json container = Json::object();
    container["algorithm=" + choice.algorithm] = params;
    return container;
}

// A chain on one quantity (comm size or average ppn) that applies the tuned subtrees
// only where they were tuned: stock below the smallest tuned value and above the
// largest, the midpoint rules of `compact` between them.  "comm_size=any" ends a
// chain whatever it tests (MPICH has no "comm_avg_ppn=any").
Json keyed_chain(const std::string& prefix, const std::vector<std::pair<std::uint64_t, Json>>& tuned,
                 const Json& stock_intra) {
    Json chain = Json::object();
    if (tuned.front().first > 1) chain[prefix + bound_text(tuned.front().first - 1)] = stock_intra;
    for (const auto& [upper, subtree] : compact<Json>(tuned, {}, nullptr))
        chain[prefix + bound_text(upper ? *upper : tuned.back().first)] = subtree;
    chain["comm_size=any"] = stock_intra;
    return chain;
}

// The comm_hierarchy=parent subtree of one collective.
Json parent_branch(const std::string& collective, const std::vector<SampledChoice>& points,
                   const Json& stock_intra, const TreeInput& input, TreeResult& result) {
    // comm_size -> ppn -> msg -> choice
    std::map<int, std::map<int, std::map<std::uint64_t, Choice>>> grid;
    for (const SampledChoice& p : points) {
        if (p.comm_size <= 0 || p.ppn <= 0)
            throw std::invalid_argument(collective + ": comm size and ppn must be positive");
        if (!grid[p.comm_size][p.ppn].emplace(p.msg_bytes, p.choice).second)
            throw std::invalid_argument(collective + ": two choices for comm size " + std::to_string(p.comm_size) +
                                        ", ppn " + std::to_string(p.ppn) + ", " + std::to_string(p.msg_bytes) +
                                        " bytes");
    }

    std::vector<std::pair<std::uint64_t, Json>> by_size;
    for (const auto& [comm_size, by_ppn_points] : grid) {
        std::vector<std::pair<std::uint64_t, Json>> by_ppn;
        for (const auto& [ppn, by_msg] : by_ppn_points) {
            std::vector<std::pair<std::uint64_t, Choice>> sampled(by_msg.begin(), by_msg.end());
            std::function<std::optional<Choice>(std::uint64_t)> requery;
            if (input.requery)
                requery = [&, cs = comm_size, pp = ppn](std::uint64_t bytes) {
                    return input.requery(collective, cs, pp, bytes);
                };
            std::vector<std::uint64_t> wanted;
            const auto rules = compact<Choice>(sampled, requery, &wanted);
            for (std::uint64_t bytes : wanted) result.wanted.push_back({collective, comm_size, ppn, bytes});
            Json chain = Json::object();
            for (const auto& [upper, choice] : rules)
                chain[upper ? "avg_msg_size<=" + bound_text(*upper) : "avg_msg_size=any"] = leaf(choice, stock_intra);
            result.message_rules += rules.size();
            by_ppn.emplace_back(ppn, std::move(chain));
        }
        by_size.emplace_back(static_cast<std::uint64_t>(comm_size),
                             keyed_chain("comm_avg_ppn<=", by_ppn, stock_intra));
    }
    return keyed_chain("comm_size<=", by_size, stock_intra);
}

}  // namespace

std::vector<Rule> compact_rules(const std::vector<std::pair<std::uint64_t, Choice>>& sampled,
                                const std::function<std::optional<Choice>(std::uint64_t)>& requery,
                                std::vector<std::uint64_t>* wanted) {
    std::vector<Rule> rules;
    for (auto& [upper, choice] : compact<Choice>(sampled, requery, wanted)) rules.push_back(Rule{upper, choice});
    return rules;
}

Json load_tree(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw TreeError("cannot read JSON tree '" + path + "'");
    try {
        Json tree = Json::parse(in);
        if (!tree.is_object()) throw TreeError("JSON tree '" + path + "' is not an object");
        return tree;
    } catch (const Json::exception& e) {
        throw TreeError("JSON tree '" + path + "': " + e.what());
    }
}

void save_tree(const Json& tree, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw TreeError("cannot write '" + path + "'");
    out << tree.dump(2) << '\n';
    out.close();
    if (!out) throw TreeError("cannot write '" + path + "'");
}

TreeResult build_tree(const Json& stock, const TreeInput& input) {
    if (!stock.is_object()) throw TreeError("stock tree is not a JSON object");
    TreeResult result;
    result.tree = stock;
    for (const auto& [collective, points] : input.choices) {
        const std::string key = "collective=" + collective;
        if (!result.tree.contains(key) || !result.tree[key].is_object() ||
            !result.tree[key].contains("comm_type=intra"))
            throw TreeError("the stock tree has no '" + key + "' with a 'comm_type=intra' subtree");
        if (points.empty()) continue;
        if (std::all_of(points.begin(), points.end(), [](const SampledChoice& p) { return p.choice.stock; })) {
            result.unchanged.push_back(collective);
            continue;
        }
        Json& node = result.tree[key];
        const Json stock_intra = node["comm_type=intra"];
        Json intra = Json::object();
        intra["comm_hierarchy=parent"] = parent_branch(collective, points, stock_intra, input, result);
        intra["comm_hierarchy=any"] = stock_intra;
        node["comm_type=intra"] = std::move(intra);
    }
    return result;
}

// ---------------------------------------------------------------- checking

namespace {

const std::set<std::string> kCollectives{
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier", "bcast",
    "exscan", "gather", "gatherv", "iallgather", "iallgatherv", "iallreduce", "ialltoall", "ialltoallv",
    "ialltoallw", "ibarrier", "ibcast", "iexscan", "igather", "igatherv", "ineighbor_allgather",
    "ineighbor_allgatherv", "ineighbor_alltoall", "ineighbor_alltoallv", "ineighbor_alltoallw", "ireduce",
    "ireduce_scatter", "ireduce_scatter_block", "iscan", "iscatter", "iscatterv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw", "reduce",
    "reduce_scatter", "reduce_scatter_block", "scan", "scatter", "scatterv"};

enum class KeyKind { unknown, boolean, numeric, any, collective, container };

bool is_int_text(const std::string& text) {
    if (text.empty() || text.size() > 10) return false;
    if (!std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) return false;
    return std::stoull(text) <= static_cast<unsigned long long>(INT_MAX);
}

// Classifies a key as csel.c's parse_json_tree does (spaces are stripped there too).
KeyKind classify(const std::string& key, std::string* problem) {
    static const std::set<std::string> booleans{
        "is_multi_threaded=yes", "is_multi_threaded=no", "comm_type=intra", "comm_type=inter",
        "is_commutative=yes", "is_commutative=no", "is_sendbuf_inplace=yes", "is_sendbuf_inplace=no",
        "is_op_built_in=yes", "is_op_built_in=no", "is_block_regular=yes", "is_block_regular=no",
        "is_node_consecutive=yes", "is_node_consecutive=no", "comm_hierarchy=parent",
        "comm_hierarchy=node_roots", "comm_hierarchy=node", "comm_hierarchy=flat"};
    static const std::set<std::string> always{"comm_size=any", "avg_msg_size=any", "total_msg_size=any",
                                              "count=any", "comm_hierarchy=any"};
    static const std::set<std::string> numeric_fixed{"comm_size=pow2", "comm_size=node_comm_size", "count<pow2"};
    static const std::vector<std::string> numeric_prefixes{"comm_size<=", "comm_size<", "avg_msg_size<=",
                                                           "avg_msg_size<", "total_msg_size<=",
                                                           "total_msg_size<", "count<=", "comm_avg_ppn<="};
    if (key.rfind("algorithm=", 0) == 0 || key.rfind("composition=", 0) == 0) return KeyKind::container;
    if (key.rfind("collective=", 0) == 0) {
        if (!kCollectives.count(key.substr(11))) *problem = "unknown collective '" + key + "'";
        return KeyKind::collective;
    }
    if (booleans.count(key)) return KeyKind::boolean;
    if (always.count(key)) return KeyKind::any;
    if (numeric_fixed.count(key)) return KeyKind::numeric;
    for (const std::string& prefix : numeric_prefixes)
        if (key.rfind(prefix, 0) == 0) {
            if (!is_int_text(key.substr(prefix.size())))
                *problem = "'" + key + "': bound is not an integer within 0..INT_MAX";
            return KeyKind::numeric;
        }
    *problem = "unknown key '" + key + "'";
    return KeyKind::unknown;
}

void check_hier_params(const std::string& where, const std::string& name, const Json& params,
                       std::vector<std::string>& problems) {
    static const std::map<std::string, std::set<std::string>> names{
        {"inter_algo", {"auto", "sched_binomial", "tsp_kary", "tsp_knomial", "tsp_ring", "seg_linear", "seg_chain",
                        "seg_pipeline", "seg_binary", "seg_binomial", "tsp_allreduce_ring"}},
        {"intra_algo", {"auto", "binomial", "shm"}}};
    static const std::set<std::string> ints{"segsize", "inter_k", "inter_chunk"};
    for (const auto& [key, value] : params.items()) {
        const std::size_t eq = key.find('=');
        const std::string param = key.substr(0, eq);
        const std::string text = eq == std::string::npos ? "" : key.substr(eq + 1);
        bool ok = eq != std::string::npos && value.is_object() && value.empty();
        if (ok && names.count(param)) ok = names.at(param).count(text) > 0;
        else if (ok && ints.count(param)) ok = is_int_text(text) && !(param == "inter_k" && text == "0");
        else ok = false;
        if (!ok) problems.push_back(where + ": invalid parameter '" + key + "' of " + name);
    }
}

// MPIR_<Coll>_intra_seg_<shape>: segsize (>= 0) and fanout (>= 1).
void check_seg_params(const std::string& where, const std::string& name, const Json& params,
                      std::vector<std::string>& problems) {
    for (const auto& [key, value] : params.items()) {
        const std::size_t eq = key.find('=');
        const std::string param = key.substr(0, eq);
        const std::string text = eq == std::string::npos ? "" : key.substr(eq + 1);
        const bool ok = eq != std::string::npos && value.is_object() && value.empty() && is_int_text(text) &&
                        (param == "segsize" || (param == "fanout" && text != "0"));
        if (!ok) problems.push_back(where + ": invalid parameter '" + key + "' of " + name);
    }
}

void walk(const Json& node, const std::string& where, const std::string& collective,
          std::vector<std::string>& problems) {
    if (!node.is_object()) {
        problems.push_back(where + ": not a JSON object");
        return;
    }
    if (node.empty()) {
        problems.push_back(where + ": empty subtree (MPICH needs a success path)");
        return;
    }
    const auto items = node.items();
    std::size_t index = 0, count = node.size();
    bool has_numeric = false;
    std::string last_key;
    KeyKind last_kind = KeyKind::unknown;
    for (const auto& [key, value] : items) {
        std::string problem;
        const KeyKind kind = classify(key, &problem);
        const std::string here = where + "/" + key;
        if (!problem.empty()) problems.push_back(here + ": " + problem);
        if (kind == KeyKind::container) {
            if (key.rfind("algorithm=", 0) == 0 && !known_container(collective, key.substr(10)))
                problems.push_back(here + ": MPICH has no algorithm " + key.substr(10) + " for " + collective);
            if (count != 1) problems.push_back(here + ": an algorithm key must be alone in its object");
            if (!value.is_object()) {
                problems.push_back(here + ": parameters are not an object");
            } else if (key.size() > 15 && key.compare(key.size() - 11, 11, "_intra_hier") == 0) {
                check_hier_params(where, key.substr(10), value, problems);
            } else if (key.find("_intra_seg_") != std::string::npos) {
                check_seg_params(where, key.substr(10), value, problems);
            }
            return;
        }
        if (kind == KeyKind::any && index + 1 != count)
            problems.push_back(here + ": an '=any' key must be the last of its chain");
        if (kind == KeyKind::numeric) has_numeric = true;
        walk(value, here, kind == KeyKind::collective ? key.substr(11) : collective, problems);
        last_key = key;
        last_kind = kind;
        ++index;
    }
    if (has_numeric && last_kind != KeyKind::any)
        problems.push_back(where + ": numeric chain ends with '" + last_key + "', not an always-true '=any' key");
}

}  // namespace

std::vector<std::string> collectives_of(const Json& tree) {
    std::vector<std::string> result;
    if (!tree.is_object()) return result;
    for (const auto& [key, value] : tree.items())
        if (key.rfind("collective=", 0) == 0) result.push_back(key.substr(11));
    return result;
}

std::vector<std::string> check_tree(const Json& tree, const std::vector<std::string>& required) {
    std::vector<std::string> problems;
    if (!tree.is_object() || tree.empty()) {
        problems.push_back("tree is not a non-empty JSON object");
        return problems;
    }
    for (const auto& [key, value] : tree.items())
        if (key.rfind("collective=", 0) != 0) problems.push_back("top-level key '" + key + "' is not a collective");
    walk(tree, "", "", problems);
    const std::vector<std::string> present = collectives_of(tree);
    for (const std::string& collective : required)
        if (std::find(present.begin(), present.end(), collective) == present.end())
            problems.push_back("collective '" + collective + "' is missing (MPICH asserts when it is called)");
    return problems;
}

}  // namespace hiertune::csel
