#include "hiertune/tree/grammar.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <json.h>

#include "hier_grammar.h"
#include "hier_mpich_keys.h"
#include "hiertune/tree/collective.hpp"

namespace hiertune::grammar {

namespace {

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

#define HIERTUNE_INT_(name_, min_, cvar_) Param{#name_, false, min_, #cvar_, ""},
#define HIERTUNE_NAME_(name_, list_, cvar_) Param{#name_, true, 0, #cvar_, #list_},
const std::vector<Param> kHierParams{MPII_HIER_PARAMS_HIER(HIERTUNE_INT_, HIERTUNE_NAME_)};
const std::vector<Param> kHierDataParams{MPII_HIER_PARAMS_HIER_DATA(HIERTUNE_INT_, HIERTUNE_NAME_)};
const std::vector<Param> kHierStepsParams{MPII_HIER_PARAMS_HIER_STEPS(HIERTUNE_INT_, HIERTUNE_NAME_)};
const std::vector<Param> kHierTopParams{MPII_HIER_PARAMS_HIER_TOP(HIERTUNE_INT_, HIERTUNE_NAME_)};
const std::vector<Param> kSegParams{MPII_HIER_PARAMS_SEG(HIERTUNE_INT_, HIERTUNE_NAME_)};
const std::vector<Param> kSegChainParams{MPII_HIER_PARAMS_SEG_CHAIN(HIERTUNE_INT_, HIERTUNE_NAME_)};
#define kParams_HIER kHierParams
#define kParams_HIER_DATA kHierDataParams
#define kParams_HIER_STEPS kHierStepsParams
#define kParams_HIER_TOP kHierTopParams
#define kParams_SEG kSegParams
#define kParams_SEG_CHAIN kSegChainParams
// what each parameter family's segsize cuts (hier_grammar.h's comments on MPII_HIER_PARAMS_*)
#define kSegmentCut_HIER SegmentCut::message
#define kSegmentCut_HIER_DATA SegmentCut::node_block
#define kSegmentCut_HIER_STEPS SegmentCut::none
#define kSegmentCut_HIER_TOP SegmentCut::none
#define kSegmentCut_SEG SegmentCut::message
#define kSegmentCut_SEG_CHAIN SegmentCut::message

#define HIERTUNE_ALGORITHM_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    Algorithm{#coll_, #algo_, "MPIR_" #Coll_ "_intra_" #algo_, kParams_##PARAMS_, "", kSegmentCut_##PARAMS_},
#define HIERTUNE_SCHED_ALGORITHM_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    Algorithm{#icoll_, #algo_, "MPIR_" #Icoll_ "_intra_" #algo_, {}, #coll_, SegmentCut::none},

struct NamedValue {
    const char* list;        // the grammar's list: "INTER_ALGOS" or "INTRA_ALGOS"
    const char* collective;  // nullptr: every collective (INTER_ALGOS: every tree collective)
    const char* name;
};
#define HIERTUNE_INTER_ALL_(name_, NAME_) NamedValue{"INTER_ALGOS", nullptr, #name_},
#define HIERTUNE_INTER_OWN_(coll_, COLL_, name_, NAME_) NamedValue{"INTER_ALGOS", #coll_, #name_},
#define HIERTUNE_INTRA_(name_, NAME_) NamedValue{"INTRA_ALGOS", nullptr, #name_},
const std::vector<NamedValue> kNamedValues{MPII_HIER_INTER_ALGOS(HIERTUNE_INTER_ALL_, HIERTUNE_INTER_OWN_)
                                               MPII_HIER_INTRA_ALGOS(HIERTUNE_INTRA_)};

#define HIERTUNE_STRING_(s_) s_,
const std::vector<std::string> kMpichAlgorithms{MPII_HIER_MPICH_ALGORITHMS(HIERTUNE_STRING_)};
// what follows "MPIR_<Coll>_" in an MPIR container's name
constexpr const char* kContainerKinds[] = {"intra_", "inter_", "allcomm_"};

using JsonPtr = std::unique_ptr<json_object, decltype(&json_object_put)>;

void collect(void* ctx, const char* where, const char* what, const char* item) {
    auto* lines = static_cast<std::vector<std::string>*>(ctx);
    if (*where)
        lines->push_back(std::string(where) + ": " + what + " \"" + item + "\"");
    else
        lines->push_back(std::string(item) + ": " + what);
}

MPII_Hier_tree_level c_level(Level level) { return level == Level::ch4 ? MPII_HIER_TREE_CH4 : MPII_HIER_TREE_MPIR; }

bool first_container_is_composition(const nlohmann::ordered_json& node) {
    if (!node.is_object()) return false;
    for (const auto& [key, value] : node.items()) {
        if (key.rfind("composition=", 0) == 0) return true;
        if (key.rfind("algorithm=", 0) == 0) return false;
        if (first_container_is_composition(value)) return true;
    }
    return false;
}

}  // namespace

std::string Algorithm::cvar(const Param& p) const { return "MPIR_CVAR_" + upper(collective) + "_" + p.cvar_suffix; }

const Param* Algorithm::param(const std::string& name) const {
    for (const Param& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

std::optional<std::uint64_t> segmented_bytes(const Algorithm& algorithm, std::uint64_t msg_bytes, int ppn) {
    switch (algorithm.segments) {
        case SegmentCut::message: return msg_bytes;
        case SegmentCut::node_block:
            if (ppn < 1) throw std::invalid_argument(algorithm.collective + "'s segments cut a node's block: ppn >= 1");
            return static_cast<std::uint64_t>(ppn) * msg_bytes;
        case SegmentCut::none: break;
    }
    return std::nullopt;
}

const std::vector<std::string>& collectives() {
#define HIERTUNE_COLLECTIVE_(coll_, Coll_, COLL_) #coll_,
    static const std::vector<std::string> all{MPII_HIER_COLLECTIVES(HIERTUNE_COLLECTIVE_)};
    return all;
}

const std::vector<std::string>& nonblocking_collectives() {
#define HIERTUNE_ICOLLECTIVE_(icoll_, Icoll_, ICOLL_, algo_, coll_) #icoll_,
    static const std::vector<std::string> all{MPII_HIER_SCHED_ALGORITHMS(HIERTUNE_ICOLLECTIVE_)};
#undef HIERTUNE_ICOLLECTIVE_
    return all;
}

const std::vector<Algorithm>& plugin_algorithms() {
    static const std::vector<Algorithm> all{MPII_HIER_ALGORITHMS(HIERTUNE_ALGORITHM_)
                                                MPII_HIER_SCHED_ALGORITHMS(HIERTUNE_SCHED_ALGORITHM_)};
    return all;
}

const Algorithm* hier_algorithm(const std::string& collective) {
    for (const Algorithm& a : plugin_algorithms())
        if (a.collective == collective) return &a;
    return nullptr;
}

const Algorithm* find(const std::string& container) {
    for (const Algorithm& a : plugin_algorithms())
        if (a.container == container) return &a;
    return nullptr;
}

const Algorithm* find(const std::string& collective, const std::string& item) {
    for (const Algorithm& a : plugin_algorithms())
        if (a.collective == collective && a.item == item) return &a;
    return nullptr;
}

bool valid(const Algorithm& algorithm, const std::string& name, const std::string& value) {
    int out = 0;
    return MPII_Hier_grammar_param(MPII_Hier_grammar_algorithm(algorithm.container.c_str()), name.c_str(),
                                   value.c_str(), &out) >= 0;
}

std::vector<std::string> values(const Algorithm& algorithm, const std::string& name) {
    std::vector<std::string> result;
    const Param* p = algorithm.param(name);
    if (!p || !p->named) return result;
    if (p->list == "INTER_ALGOS" && MPII_Hier_grammar_listed_inter(algorithm.collective.c_str(), 0)) {
        for (int i = 0; const char* listed = MPII_Hier_grammar_listed_inter(algorithm.collective.c_str(), i); ++i)
            result.push_back(listed);
        return result;
    }
    for (const NamedValue& v : kNamedValues)
        if (p->list == v.list && (!v.collective || algorithm.collective == v.collective)) result.push_back(v.name);
    return result;
}

bool is_seg_submodule(const std::string& inter_algo) { return inter_algo.rfind("seg_", 0) == 0; }

bool takes_seg_submodules(const std::string& collective) {
    const Algorithm* hier = hier_algorithm(collective);
    if (!hier) return false;
    const std::vector<std::string> inter = values(*hier, "inter_algo");
    return std::any_of(inter.begin(), inter.end(), is_seg_submodule);
}

std::vector<std::string> requirements(const std::string& container) {
    struct Row {
        const char* container;
        const char* condition;
    };
#define HIERTUNE_REQUIREMENT_(container_, condition_) {#container_, #condition_},
    static const Row rows[] = {MPII_HIER_MPICH_REQUIREMENTS(HIERTUNE_REQUIREMENT_)};
#undef HIERTUNE_REQUIREMENT_
    std::vector<std::string> conditions;
    for (const Row& row : rows)
        if (container == row.container) conditions.emplace_back(row.condition);
    return conditions;
}

std::vector<MpichCallParam> mpich_call_params(const std::string& container) {
    struct Row {
        const char* container;
        MpichCallParam param;
    };
#define HIERTUNE_CALL_PARAM_(container_, param_, cvar_, default_) Row{container_, {param_, cvar_, default_}},
    static const std::vector<Row> rows{MPII_HIER_MPICH_ALGORITHM_CVARS(HIERTUNE_CALL_PARAM_)};
#undef HIERTUNE_CALL_PARAM_
    std::vector<MpichCallParam> params;
    for (const Row& row : rows)
        if (container == row.container) params.push_back(row.param);
    return params;
}

std::vector<std::string> mpich_unread_params(const std::string& container) {
    struct Row {
        const char* container;
        const char* param;
    };
#define HIERTUNE_UNREAD_(container_, param_) Row{container_, param_},
    static const std::vector<Row> rows{MPII_HIER_MPICH_UNREAD_PARAMS(HIERTUNE_UNREAD_)};
#undef HIERTUNE_UNREAD_
    std::vector<std::string> params;
    for (const Row& row : rows)
        if (container == row.container) params.emplace_back(row.param);
    return params;
}

bool known_container(const std::string& collective, const std::string& container) {
    if (const Algorithm* a = find(container)) return a->collective == collective;
    if (std::find(kMpichAlgorithms.begin(), kMpichAlgorithms.end(), container) == kMpichAlgorithms.end())
        return false;
    std::string prefix = "MPIR_" + collective + "_";
    prefix[5] = static_cast<char>(std::toupper(static_cast<unsigned char>(prefix[5])));
    if (container.rfind(prefix, 0) != 0) return false;
    // MPIR_<Coll>_intra_..., _inter_..., _allcomm_nb: not another collective's whose name
    // goes on (MPIR_Reduce_scatter_... is no reduce's, MPIR_Reduce_scatter_block_... no
    // reduce_scatter's)
    const std::string rest = container.substr(prefix.size());
    return std::any_of(std::begin(kContainerKinds), std::end(kContainerKinds),
                       [&](const char* kind) { return rest.rfind(kind, 0) == 0; });
}

std::string composition_cvar(const std::string& collective) {
    std::string upper = collective;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return "MPIR_CVAR_" + upper + "_COMPOSITION";
}

std::optional<std::string> composition_container(const std::string& collective, int n) {
    static const char* const kGreek[] = {"alpha", "beta", "gamma", "delta"};
    static const std::vector<std::string> kNamed{MPII_HIER_MPICH_COMPOSITIONS(HIERTUNE_STRING_)};
    if (collective.empty() || n < 1 || n > 4) return std::nullopt;
    std::string coll = collective;
    coll[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(coll[0])));
    const std::string name = "MPIDI_" + coll + "_intra_composition_" + kGreek[n - 1];
    if (std::find(kNamed.begin(), kNamed.end(), name) == kNamed.end()) return std::nullopt;
    return name;
}

bool is_composition(const std::string& container) { return container.rfind("MPIDI_", 0) == 0; }

std::optional<std::string> whole_comm_composition(const std::string& collective) {
#define HIERTUNE_WHOLE_COMM_(coll_, container_) \
    if (collective == #coll_) return std::string(#container_);
    MPII_HIER_CH4_WHOLE_COMM_COMPOSITIONS(HIERTUNE_WHOLE_COMM_)
#undef HIERTUNE_WHOLE_COMM_
    return std::nullopt;
}

std::vector<int> tuned_compositions(const std::string& collective) {
    // the collectives whose MPID_<Coll> reads MPIR_CVAR_<COLL>_COMPOSITION (MPICH 5.0.1's
    // ch4_coll.h; alltoall's: 1 multi-leader alpha, 2 netmod-only beta); only a CH4 tree
    // selects the others' compositions (scan's, the reduce-scatters', allgatherv's,
    // alltoallv's, gatherv's and scatterv's netmod-only alpha: MPID_Alltoallv, MPID_Gatherv
    // and MPID_Scatterv read no MPIR_CVAR_<COLL>_COMPOSITION)
    constexpr Collective kForcedByCvar[] = {Collective::bcast,     Collective::reduce,  Collective::allreduce,
                                            Collective::allgather, Collective::barrier, Collective::alltoall};
    std::vector<int> values;
    if (!whole_comm_composition(collective) ||
        std::none_of(std::begin(kForcedByCvar), std::end(kForcedByCvar),
                     [&](Collective forced) { return collective == forced; }))
        return values;
    for (int n = 1; n <= 3; ++n)
        if (composition_container(collective, n)) values.push_back(n);
    return values;
}

const std::vector<std::string>& mpich_collectives() {
    static const std::vector<std::string> all{MPII_HIER_MPICH_COLLECTIVES(HIERTUNE_STRING_)};
    return all;
}

bool mpich_defines(const std::string& key, const std::string& collective) {
#define HIERTUNE_KEY_COLLECTIVE_(key_, coll_) {key_, coll_},
    static const std::vector<std::pair<std::string, std::string>> defined{
        MPII_HIER_MPICH_KEY_COLLECTIVES(HIERTUNE_KEY_COLLECTIVE_)};
#undef HIERTUNE_KEY_COLLECTIVE_
    bool per_collective = false;
    for (const auto& [name, coll] : defined) {
        if (name != key) continue;
        if (coll == collective) return true;
        per_collective = true;
    }
    return !per_collective;
}

std::vector<std::string> check_tree(const nlohmann::ordered_json& tree, Level level) {
    std::vector<std::string> problems;
    JsonPtr parsed(json_tokener_parse(tree.dump().c_str()), &json_object_put);
    if (!parsed) {
        problems.push_back("the tree does not convert to JSON for the check");
        return problems;
    }
    MPII_Hier_check_tree(parsed.get(), c_level(level), collect, &problems);
    return problems;
}

std::string problems_line(const std::vector<std::string>& problems) {
    if (problems.empty()) return "";
    return problems.front() + (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) +
                                                         " more: hiertune check-tree lists them)"
                                                   : "");
}

std::vector<std::string> check_tree_file(const std::string& path, Level level) {
    std::vector<std::string> problems;
    JsonPtr tree(MPII_Hier_read_tree(path.c_str(), collect, &problems), &json_object_put);
    if (tree) MPII_Hier_check_tree(tree.get(), c_level(level), collect, &problems);
    return problems;
}

Level level_of(const nlohmann::ordered_json& tree) {
    return first_container_is_composition(tree) ? Level::ch4 : Level::mpir;
}

}  // namespace hiertune::grammar
