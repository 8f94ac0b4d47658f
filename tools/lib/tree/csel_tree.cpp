#include "hiertune/tree/csel_tree.hpp"

#include "hier_grammar.h"

#include "hiertune/tree/collective.hpp"
#include "hiertune/tree/grammar.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace hiertune::csel {

namespace {

constexpr char kIntraKey[] = "comm_type=intra";
constexpr char kCommTypePrefix[] = "comm_type=";

}  // namespace

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
    // one container for intra- and inter-communicators (gatherv's and scatterv's linear,
    // their schedules' sched_linear and tsp_linear): MPICH has no intra one of that name
    const std::string allcomm = "MPIR_" + coll + "_allcomm_" + algorithm_item;
    if (algorithm_item == "nb" || known_container(collective, allcomm)) return allcomm;
    return "MPIR_" + coll + "_intra_" + algorithm_item;
}

bool known_container(const std::string& collective, const std::string& name) {
    return grammar::known_container(collective, name);
}

std::optional<SizeKey> message_size_key(const std::string& collective) {
    // MPICH's csel.c defines avg_msg_size (the bytes of the call) for bcast, reduce and
    // allreduce, and for alltoall and ialltoall (sendcount * type size: the block each
    // rank sends each rank, bench's size itself); for allgather only total_msg_size =
    // recvcount * type size * comm size, for allgatherv and iallgatherv the type size
    // times the sum of the recvcounts (ours equal: each rank's block), for alltoallv and
    // ialltoallv (whose avg_msg_size csel.c asserts on) the sendtype's size times the sum
    // of the sendcounts (ours equal: the block per pair), for reduce_scatter,
    // ireduce_scatter and reduce_scatter_block the vector's bytes, the type size times the
    // sum of the recvcounts (ours: each rank's block) or recvcount * comm size, the same
    // on every rank.  Its total_msg_size of gather, scatter and
    // ireduce_scatter_block is a count (sendcount or recvcount times the comm size, the
    // type's size dropped), gather's and scatter's the root's count that MPI_IN_PLACE
    // makes insignificant; barrier has no size, and csel.c gives scan, exscan, gatherv
    // and scatterv (and their non-blocking forms) no size key at all (gatherv's and
    // scatterv's counts, bench's uneven blocks, are summed by none of its keys).
    if (grammar::mpich_defines("avg_msg_size", collective)) return SizeKey{"avg_msg_size", false};
    constexpr grammar::Collective kTotalBytes[] = {grammar::Collective::allgather,
                                                   grammar::Collective::allgatherv,
                                                   grammar::Collective(grammar::Collective::allgatherv, true),
                                                   grammar::Collective::alltoallv,
                                                   grammar::Collective(grammar::Collective::alltoallv, true),
                                                   grammar::Collective::reduce_scatter,
                                                   grammar::Collective(grammar::Collective::reduce_scatter, true),
                                                   grammar::Collective::reduce_scatter_block};
    for (const grammar::Collective total : kTotalBytes)
        if (collective == total) return SizeKey{"total_msg_size", true};
    return std::nullopt;
}

bool device_composes(const std::string& collective) {
    // a non-blocking call goes to the MPIR level whole: MPID_Ibcast calls the netmod,
    // which calls MPIR_Ibcast_impl
    const grammar::Algorithm* hier = grammar::hier_algorithm(collective);
    return !hier || hier->blocking.empty();
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

// `inner` where `condition` holds, the stock subtree where it does not: a key and the
// key that takes the other calls (yes/no flipped, else "<name>=any"); for "!KEY" (the
// test must fail) the stock subtree under KEY and `inner` after it.
Json guarded(const std::string& condition, const Json& inner, const Json& stock_intra) {
    Json chain = Json::object();
    if (condition.front() == '!') {
        const std::string test = condition.substr(1);
        chain[test] = stock_intra;
        chain[test.substr(0, test.find_first_of("<=")) + "=any"] = inner;
        return chain;
    }
    const std::size_t eq = condition.find('=');
    const std::string name = condition.substr(0, eq), value = condition.substr(eq + 1);
    chain[condition] = inner;
    chain[value == "yes" ? name + "=no" : value == "no" ? name + "=yes" : name + "=any"] = stock_intra;
    return chain;
}

// The choice's container, behind the conditions MPICH's own algorithm needs
// (grammar::requirements; the stock subtree where one fails), except the
// comm_hierarchy=parent every tuned branch lies under.
Json leaf(const std::string& collective, const Choice& choice, const Json& stock_intra) {
    if (choice.stock) return stock_intra;
    if (choice.algorithm.empty()) throw std::invalid_argument("algorithm choice without a name");
    Json params = Json::object();
    for (const auto& [key, value] : choice.params) params[key + "=" + value] = Json::object();
    const bool composition = grammar::is_composition(choice.algorithm);
    // MPICH's own algorithm runs on the whole comm, as it was measured (device step off)
    if (!composition && !grammar::find(choice.algorithm) && device_composes(collective))
        params[std::string(MPII_HIER_WHOLE_COMM_PARAM) + "=1"] = Json::object();
    Json node = Json::object();
    node[(composition ? "composition=" : "algorithm=") + choice.algorithm] = params;
    const std::vector<std::string> needed = grammar::requirements(choice.algorithm);
    for (auto condition = needed.rbegin(); condition != needed.rend(); ++condition)
        if (*condition != "comm_hierarchy=parent") node = guarded(*condition, node, stock_intra);
    return node;
}

// A chain on one quantity (comm size or average ppn: "comm_size", "comm_avg_ppn") that
// applies the tuned subtrees only where they were tuned: stock below the smallest tuned
// value and above the largest, the midpoint rules of `compact` between them, ended by
// MPICH's ANY operator ("comm_avg_ppn=any" too: 5.0.1 reads any "<name>=any" as ANY).
Json keyed_chain(const std::string& quantity, const std::vector<std::pair<std::uint64_t, Json>>& tuned,
                 const Json& stock_intra) {
    const std::string prefix = quantity + "<=";
    Json chain = Json::object();
    if (tuned.front().first > 1) chain[prefix + bound_text(tuned.front().first - 1)] = stock_intra;
    for (const auto& [upper, subtree] : compact<Json>(tuned, {}, nullptr))
        chain[prefix + bound_text(upper ? *upper : tuned.back().first)] = subtree;
    chain[quantity + "=any"] = stock_intra;
    return chain;
}

// The tuned subtree of one collective's choices (comm size, ppn, size chains).
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
            const std::optional<SizeKey> key = message_size_key(collective);
            if (!key) {  // one choice whatever the size
                if (rules.size() != 1)
                    throw std::invalid_argument(collective + ": one choice per comm size and ppn (" +
                                                std::to_string(rules.size()) +
                                                " given): MPICH cannot select it by message size");
                by_ppn.emplace_back(ppn, leaf(collective, rules.front().second, stock_intra));
                continue;
            }
            Json chain = Json::object();
            const std::uint64_t scale = key->per_rank ? static_cast<std::uint64_t>(comm_size) : 1;
            const std::uint64_t smallest = sampled.front().first;
            if (smallest > 0 && !rules.front().second.stock) {  // nothing was measured below it
                chain[key->name + "<=" + bound_text(smallest * scale - 1)] = stock_intra;
                ++result.message_rules;
            }
            for (const auto& [upper, choice] : rules)
                chain[upper ? key->name + "<=" + bound_text(*upper * scale) : key->name + "=any"] =
                    leaf(collective, choice, stock_intra);
            result.message_rules += rules.size();
            by_ppn.emplace_back(ppn, std::move(chain));
        }
        by_size.emplace_back(static_cast<std::uint64_t>(comm_size), keyed_chain("comm_avg_ppn", by_ppn, stock_intra));
    }
    return keyed_chain("comm_size", by_size, stock_intra);
}

}  // namespace

// The stock subtree as it must read below the tuned keys.  MPICH 5.0.1 tests
// "comm_size<N" strictly when it prunes the comm keys (and ANY keys) from the top of a
// tree (csel.c prune_tree), but as "<= N" when it searches below other keys (csel.c
// MPIR_Csel_search): moved below a message-size bound, stock's "comm_size<8" would
// also take 8-rank comms.  "comm_size<=N-1" reads the same both ways.
Json strict_comm_size(const Json& node) {
    if (!node.is_object()) return node;
    Json out = Json::object();
    for (const auto& [key, value] : node.items()) {
        std::string k = key;
        if (k.rfind("comm_size<", 0) == 0 && k.rfind("comm_size<=", 0) != 0) {
            const long bound = std::stol(k.substr(10));
            k = "comm_size<=" + std::to_string(bound - 1);
        }
        out[k] = k.rfind("algorithm=", 0) == 0 ? value : strict_comm_size(value);
    }
    return out;
}

std::vector<Rule> compact_rules(const std::vector<std::pair<std::uint64_t, Choice>>& sampled,
                                const std::function<std::optional<Choice>(std::uint64_t)>& requery,
                                std::vector<std::uint64_t>* wanted) {
    std::vector<Rule> rules;
    for (auto& [upper, choice] : compact<Choice>(sampled, requery, wanted)) rules.push_back(Rule{upper, choice});
    return rules;
}

Json load_tree(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw TreeError("JSON tree '" + path + "' is a directory");
    std::ifstream in(path);
    if (!in) throw TreeError("cannot read JSON tree '" + path + "': " + std::strerror(errno));
    try {
        Json tree = Json::parse(in);
        if (!tree.is_object()) throw TreeError("JSON tree '" + path + "' is not an object");
        return tree;
    } catch (const Json::exception& e) {
        throw TreeError("JSON tree '" + path + "': " + e.what());
    } catch (const std::ios_base::failure& e) {  // a read error past the open
        throw TreeError("cannot read JSON tree '" + path + "': " + e.what());
    }
}

std::string ch4_generic_beside(const std::string& mpir_generic) {
    if (mpir_generic.empty()) return "";
    const std::filesystem::path mpir(mpir_generic);
    return (mpir.parent_path().parent_path() / "ch4" / mpir.filename()).string();
}

namespace {

Json load_checked_tree(const std::string& path, const std::string& option, grammar::Level level) {
    Json tree = load_tree(path);
    const std::vector<std::string> problems = grammar::check_tree_file(path, level);
    if (!problems.empty())
        throw TreeError(option + " " + path + ": " + (level == grammar::Level::mpir ? "MPI_Init" : "MPID_Init") +
                        " would refuse this tree: " + grammar::problems_line(problems));
    return tree;
}

}  // namespace

Json load_mpir_tree(const std::string& path, const std::string& option) {
    return load_checked_tree(path, option, grammar::Level::mpir);
}

Json load_ch4_tree(const std::string& path, const std::string& option) {
    return load_checked_tree(path, option, grammar::Level::ch4);
}

void save_tree(const Json& tree, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw TreeError("cannot write '" + path + "'");
    out << tree.dump(2) << '\n';
    out.close();
    if (!out) throw TreeError("cannot write '" + path + "'");
}

const Json* stock_intra_subtree(const Json& stock_collective) {
    if (!stock_collective.is_object()) return nullptr;
    if (stock_collective.contains(kIntraKey)) return &stock_collective.at(kIntraKey);
    for (const auto& [key, value] : stock_collective.items())
        if (key.rfind(kCommTypePrefix, 0) == 0) return nullptr;
    return &stock_collective;
}

TreeResult build_tree(const Json& stock, const TreeInput& input) {
    if (!stock.is_object()) throw TreeError("stock tree is not a JSON object");
    TreeResult result;
    result.tree = stock;
    for (const auto& [collective, points] : input.choices) {
        const std::string key = "collective=" + collective;
        const Json* stock_intra_node = stock.contains(key) ? stock_intra_subtree(stock.at(key)) : nullptr;
        if (!stock_intra_node)
            throw TreeError("the stock tree has no '" + key + "' with a '" + kIntraKey +
                            "' subtree (or one that tests no comm_type)");
        if (points.empty()) continue;
        if (std::all_of(points.begin(), points.end(), [](const SampledChoice& p) { return p.choice.stock; })) {
            result.unchanged.push_back(collective);
            continue;
        }
        Json& node = result.tree[key];
        const Json stock_intra = strict_comm_size(*stock_intra_node);
        if (!node.contains(kIntraKey)) node = Json{{kIntraKey, Json::object()}, {"comm_type=inter", node}};
        // MPICH makes a comm of one rank per node no parent comm (commutil.c
        // MPIR_Comm_commit: no node_comm, node roots would be the comm itself): its
        // choices go to the other branch.
        std::vector<SampledChoice> parent, flat;
        for (const SampledChoice& p : points) (p.ppn == 1 ? flat : parent).push_back(p);
        const auto tuned = [&](const std::vector<SampledChoice>& some) {
            const bool all_stock = std::all_of(some.begin(), some.end(), [](const auto& p) { return p.choice.stock; });
            return all_stock ? stock_intra : parent_branch(collective, some, stock_intra, input, result);
        };
        Json intra = Json::object();
        intra["comm_hierarchy=parent"] = tuned(parent);
        intra["comm_hierarchy=any"] = tuned(flat);
        node[kIntraKey] = std::move(intra);
    }
    return result;
}

namespace {

// The input with each choice mapped (requery's answers too)
TreeInput mapped_input(const TreeInput& input, const std::function<Choice(const std::string&, const Choice&)>& map) {
    TreeInput out;
    for (const auto& [collective, points] : input.choices)
        for (const SampledChoice& p : points) out.choices[collective].push_back({p.comm_size, p.ppn, p.msg_bytes, map(collective, p.choice)});
    if (input.requery)
        out.requery = [requery = input.requery, map](const std::string& collective, int comm_size, int ppn,
                                                     std::uint64_t bytes) -> std::optional<Choice> {
            const std::optional<Choice> choice = requery(collective, comm_size, ppn, bytes);
            if (!choice) return std::nullopt;
            return map(collective, *choice);
        };
    return out;
}

bool names_composition(const Choice& choice) { return !choice.stock && grammar::is_composition(choice.algorithm); }

}  // namespace

TreePair build_tree_pair(const Json& mpir_stock, const Json& ch4_stock, const TreeInput& input) {
    TreePair pair;
    pair.mpir = build_tree(mpir_stock, mapped_input(input, [](const std::string&, const Choice& c) {
        return names_composition(c) ? Choice::stock_tree() : c;
    }));
    const auto any_of_points = [&](const std::function<bool(const Choice&)>& test) {
        return std::any_of(input.choices.begin(), input.choices.end(), [&](const auto& entry) {
            return std::any_of(entry.second.begin(), entry.second.end(),
                               [&](const SampledChoice& p) { return test(p.choice); });
        });
    };
    if (!any_of_points(names_composition)) return pair;
    // every collective CH4 composes with a choice of its own: a CH4 tree given by CVAR
    // turns the plugin's routing off, so its choices must bring the MPIR ones there
    TreeInput composed;
    for (const auto& [collective, points] : input.choices)
        if (grammar::whole_comm_composition(collective) &&
            std::any_of(points.begin(), points.end(), [](const SampledChoice& p) { return !p.choice.stock; }))
            composed.choices[collective] = points;
    composed.requery = input.requery;
    pair.ch4 = build_tree(ch4_stock, mapped_input(composed, [](const std::string& collective, const Choice& c) {
        if (c.stock || names_composition(c)) return c;
        const std::optional<std::string> whole = grammar::whole_comm_composition(collective);
        if (!whole) throw TreeError(collective + ": a composition chosen where CH4 composes none");
        return Choice::container(*whole);
    }));
    return pair;
}

// ---------------------------------------------------------------- checking

std::vector<std::string> collectives_of(const Json& tree) {
    std::vector<std::string> result;
    if (!tree.is_object()) return result;
    for (const auto& [key, value] : tree.items())
        if (key.rfind("collective=", 0) == 0) result.push_back(key.substr(11));
    return result;
}

std::vector<std::string> check_tree(const Json& tree, const std::vector<std::string>& required) {
    std::vector<std::string> problems = grammar::check_tree(tree, grammar::Level::mpir);
    const std::vector<std::string> present = collectives_of(tree);
    for (const std::string& collective : required)
        if (std::find(present.begin(), present.end(), collective) == present.end())
            problems.push_back("collective '" + collective + "' is missing (MPICH asserts when it is called)");
    return problems;
}

}  // namespace hiertune::csel
