// What `hiertune bench` is asked to measure: sizes, MPI_T variables and
// values, algorithm/parameter specs, the sweep plan and its resumption.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "hiertune/common/cvars.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"
#include "summaries.hpp"

namespace hiertune {
namespace {

using Sizes = std::vector<std::uint64_t>;

// Message of the UsageError `statement` throws ("" if it throws none).
template <typename Statement>
std::string usage_error(Statement statement) {
    try {
        statement();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

// ---------------------------------------------------------------- sizes

TEST(Sizes, ParsesByteCountsWithBinarySuffixes) {
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("65537"), 65537u);
    EXPECT_EQ(parse_size("64K"), 65536u);
    EXPECT_EQ(parse_size("4m"), 4u << 20);
    EXPECT_EQ(parse_size("1G"), kMaxMessageBytes);
}

TEST(Sizes, RejectsMalformedAndOutOfRangeSizes) {
    for (const char* bad : {"", "-1", "+5", " 5", "5 ", "4X", "4KB", "0x10", "1.5K", "K"})
        EXPECT_THROW(parse_size(bad), UsageError) << bad;
    EXPECT_NE(usage_error([] { parse_size("2G"); }).find("maximum 1073741824"), std::string::npos);
    EXPECT_NE(usage_error([] { parse_size("1073741825"); }).find("maximum"), std::string::npos);
    EXPECT_NE(usage_error([] { parse_size("99999999999999999999999"); }).find("too large"), std::string::npos);
}

TEST(Sizes, OsuRangeDoublesFromMinToMax) {
    EXPECT_EQ(osu_size_range("1:16"), (Sizes{1, 2, 4, 8, 16}));
    EXPECT_EQ(osu_size_range("16"), (Sizes{1, 2, 4, 8, 16}));  // MIN defaults to 1
    EXPECT_EQ(osu_size_range("0:4"), (Sizes{0, 1, 2, 4}));     // as OSU: 0, then 1, 2, ...
    EXPECT_EQ(osu_size_range("3:20"), (Sizes{3, 6, 12}));      // MAX itself only if reached
    EXPECT_EQ(osu_size_range("8:8"), (Sizes{8}));
    EXPECT_EQ(osu_size_range("1M:4M"), (Sizes{1 << 20, 2 << 20, 4 << 20}));
    for (const char* bad : {"16:8", "1:2:3", ":8", "1:", "", "a:b"})
        EXPECT_THROW(osu_size_range(bad), UsageError) << bad;
}

TEST(Sizes, UnionOfRangeAndListsIsSortedAndUnique) {
    EXPECT_EQ(message_sizes("", {}), osu_size_range(kDefaultSizeRange));
    EXPECT_EQ(message_sizes("1:4", {"3,1000", "4"}), (Sizes{1, 2, 3, 4, 1000}));
    EXPECT_EQ(message_sizes("", {"65537,3"}), (Sizes{3, 65537}));  // no default range with a list
    for (const char* bad : {"3,,5", ",3", "3,", "3;5"})
        EXPECT_THROW(message_sizes("", {bad}), UsageError) << bad;
}

// gatherv's and scatterv's blocks: half a block more and less on each pair of ranks, so
// they differ from 2 bytes on, and add up to size x bytes on any size (an odd size's last
// rank the block itself); rank 0's the largest.
TEST(Sizes, UnevenBlocksAddUpToTheSizePerRank) {
    EXPECT_EQ(uneven_block(0, 4, 1000), 1500u);
    EXPECT_EQ(uneven_block(1, 4, 1000), 500u);
    EXPECT_EQ(uneven_block(4, 5, 1000), 1000u);  // no pair
    EXPECT_EQ(uneven_block(1, 2, 3), 2u);        // 3 - 3 / 2
    EXPECT_EQ(uneven_block(0, 2, 1), 1u);        // one byte does not split
    EXPECT_EQ(uneven_block(0, 1, 1000), 1000u);
    for (const int size : {1, 2, 3, 7, 8})
        for (const std::uint64_t bytes : {0u, 1u, 3u, 1000u, 1u << 30}) {
            std::uint64_t sum = 0, largest = 0;
            for (int r = 0; r < size; ++r) {
                sum += uneven_block(r, size, bytes);
                largest = std::max(largest, uneven_block(r, size, bytes));
            }
            EXPECT_EQ(sum, bytes * static_cast<std::uint64_t>(size)) << size << " x " << bytes;
            EXPECT_EQ(largest, uneven_block(0, size, bytes)) << size << " x " << bytes;
        }
}

// ---------------------------------------------------------------- catalogue

CvarInfo enum_cvar(const std::string& name, const std::vector<std::string>& items) {
    CvarInfo info;
    info.name = name;
    info.type = CvarType::enumeration;
    for (std::size_t i = 0; i < items.size(); ++i) info.items.push_back({items[i], static_cast<int>(i)});
    return info;
}

CvarInfo typed_cvar(const std::string& name, CvarType type) {
    CvarInfo info;
    info.name = name;
    info.type = type;
    return info;
}

// A small stand-in for what MPI_T reports.
CvarCatalog test_catalog() {
    CvarCatalog catalog;
    catalog.add(enum_cvar("MPIR_CVAR_BCAST_INTRA_ALGORITHM", {"auto", "binomial", "smp", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_REDUCE_INTRA_ALGORITHM", {"auto", "binomial", "reduce_scatter_gather"}));
    catalog.add(enum_cvar("MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", {"auto", "brucks", "recursive_doubling", "ring"}));
    catalog.add(typed_cvar("MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE", CvarType::int_));
    catalog.add(enum_cvar("MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", {"auto", "tsp_kary", "tsp_knomial"}));
    catalog.add(typed_cvar("MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_BCAST_HIER_SEGSIZE", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_BCAST_HIER_INTER_KVAL", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_POLLS_BEFORE_YIELD", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_SOME_UNSIGNED", CvarType::unsigned_));
    catalog.add(typed_cvar("MPIR_CVAR_SOME_DOUBLE", CvarType::double_));
    CvarInfo text = typed_cvar("MPIR_CVAR_NETMOD", CvarType::unsupported);
    text.unsupported_why = "a string";
    catalog.add(text);
    catalog.add(typed_cvar("MPIR_CVAR_ASYNC_PROGRESS", CvarType::int_));  // writable, read at MPI_Init only
    catalog.add(enum_cvar("MPIR_CVAR_IBCAST_INTRA_ALGORITHM", {"auto", "sched_auto", "tsp_tree", "sched_binomial"}));
    CvarInfo fixed = typed_cvar("MPIR_CVAR_FIXED", CvarType::int_);
    fixed.writable = false;
    catalog.add(fixed);
    return catalog;
}

TEST(Cvars, LookupAcceptsShortAndLowerCaseNames) {
    const CvarCatalog catalog = test_catalog();
    EXPECT_EQ(catalog.lookup("MPIR_CVAR_BCAST_HIER_SEGSIZE").name, "MPIR_CVAR_BCAST_HIER_SEGSIZE");
    EXPECT_EQ(catalog.lookup("bcast_hier_segsize").name, "MPIR_CVAR_BCAST_HIER_SEGSIZE");
    EXPECT_EQ(catalog.lookup("mpir_cvar_bcast_hier_segsize").name, "MPIR_CVAR_BCAST_HIER_SEGSIZE");
    EXPECT_EQ(catalog.find("bcast_hier_segsize"), nullptr);  // find() is exact
}

TEST(Cvars, UnknownNameSuggestsSimilarOnes) {
    const CvarCatalog catalog = test_catalog();
    const std::string message = usage_error([&] { catalog.lookup("segsize"); });
    EXPECT_NE(message.find("unknown MPI_T control variable 'segsize'"), std::string::npos);
    EXPECT_NE(message.find("MPIR_CVAR_BCAST_HIER_SEGSIZE"), std::string::npos);
    EXPECT_EQ(usage_error([&] { catalog.lookup("nothing_like_it"); }),
              "unknown MPI_T control variable 'nothing_like_it'");
}

TEST(Cvars, ParsesValuesByType) {
    const CvarCatalog catalog = test_catalog();
    const CvarInfo& inter = catalog.lookup("bcast_hier_inter_algorithm");
    const CvarValue knomial = parse_cvar_value(inter, "TSP_KNOMIAL");
    EXPECT_EQ(knomial.text, "tsp_knomial");  // canonical item name
    EXPECT_EQ(knomial.integer, 2);

    const CvarInfo& segsize = catalog.lookup("bcast_hier_segsize");
    EXPECT_EQ(parse_cvar_value(segsize, "65536").integer, 65536);
    EXPECT_EQ(parse_cvar_value(segsize, "-1").text, "-1");
    EXPECT_EQ(parse_cvar_value(segsize, "64k").text, "65536");
    EXPECT_EQ(parse_cvar_value(segsize, "true").integer, 1);
    EXPECT_EQ(parse_cvar_value(segsize, "FALSE").text, "0");
    EXPECT_EQ(parse_cvar_value(catalog.lookup("some_unsigned"), "4294967295").integer, 4294967295);
    EXPECT_DOUBLE_EQ(parse_cvar_value(catalog.lookup("some_double"), "0.5").real, 0.5);
}

TEST(Cvars, RejectsBadValuesNamingTheVariable) {
    const CvarCatalog catalog = test_catalog();
    const std::string bad_item =
        usage_error([&] { parse_cvar_value(catalog.lookup("bcast_hier_inter_algorithm"), "ring"); });
    EXPECT_NE(bad_item.find("MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM"), std::string::npos);
    EXPECT_NE(bad_item.find("auto, tsp_kary, tsp_knomial"), std::string::npos);

    const CvarInfo& segsize = catalog.lookup("bcast_hier_segsize");
    for (const char* bad : {"", "abc", "12KB", "k", "-1K", "2G", "2147483648", "1.5", " 1"})
        EXPECT_THROW(parse_cvar_value(segsize, bad), UsageError) << bad;
    EXPECT_THROW(parse_cvar_value(catalog.lookup("some_unsigned"), "-1"), UsageError);
    EXPECT_THROW(parse_cvar_value(catalog.lookup("some_unsigned"), "4294967296"), UsageError);
    EXPECT_THROW(parse_cvar_value(catalog.lookup("some_double"), "inf"), UsageError);
    EXPECT_NE(usage_error([&] { parse_cvar_value(catalog.lookup("netmod"), "ofi"); }).find("a string"),
              std::string::npos);
    EXPECT_NE(usage_error([&] { parse_cvar_value(catalog.lookup("fixed"), "1"); }).find("read-only"),
              std::string::npos);
}

TEST(Cvars, ThoseReadOnlyInMpiInitMustComeFromTheEnvironment) {
    const CvarCatalog catalog = test_catalog();
    EXPECT_TRUE(set_at_init_only("MPIR_CVAR_ASYNC_PROGRESS"));
    EXPECT_FALSE(set_at_init_only("MPIR_CVAR_BCAST_HIER_SEGSIZE"));
    const std::string init_only = usage_error([&] { parse_cvar_value(catalog.lookup("async_progress"), "1"); });
    EXPECT_NE(init_only.find("only in MPI_Init"), std::string::npos) << init_only;
    EXPECT_NE(init_only.find("MPIR_CVAR_ASYNC_PROGRESS=V mpiexec"), std::string::npos) << init_only;
    EXPECT_NE(usage_error([&] { parse_cvar_value(catalog.lookup("fixed"), "1"); }).find("in the environment"),
              std::string::npos);
    EXPECT_NE(usage_error([&] { plan_configurations({"bcast"}, {}, {{"async_progress", {"1"}}}, catalog); })
                  .find("only in MPI_Init"),
              std::string::npos);
}

TEST(Cvars, AllExpandsToEveryEnumItem) {
    const CvarCatalog catalog = test_catalog();
    EXPECT_EQ(expand_cvar_values(catalog.lookup("bcast_hier_inter_algorithm"), "all"),
              (std::vector<std::string>{"auto", "tsp_kary", "tsp_knomial"}));
    EXPECT_THROW(expand_cvar_values(catalog.lookup("bcast_hier_segsize"), "all"), UsageError);
}

TEST(Cvars, ValuesReadBackGetCanonicalText) {
    const CvarCatalog catalog = test_catalog();
    EXPECT_EQ(cvar_value_from_integer(catalog.lookup("bcast_intra_algorithm"), 3).text, "hier");
    EXPECT_EQ(cvar_value_from_integer(catalog.lookup("bcast_intra_algorithm"), 9).text, "9");
    EXPECT_EQ(cvar_value_from_integer(catalog.lookup("bcast_hier_segsize"), 4096).text, "4096");
    EXPECT_EQ(cvar_value_from_real(0.25).text, "0.25");
}

TEST(Cvars, EnumTableFromTheMpichBuild) {
    const auto table = parse_enum_table("\nMPIR_CVAR_A auto x y\n\nMPIR_CVAR_B auto\n");
    ASSERT_EQ(table.size(), 2u);
    EXPECT_EQ(table.at("MPIR_CVAR_A"), (std::vector<std::string>{"auto", "x", "y"}));
    EXPECT_THROW(parse_enum_table("MPIR_CVAR_A\n"), std::invalid_argument);
    EXPECT_THROW(parse_enum_table("MPIR_CVAR_A a\nMPIR_CVAR_A b\n"), std::invalid_argument);
}

// MPICH 4.0.2 glued the description lines together without separators (5.0.1 keeps
// its newlines); both must parse.
constexpr const char* kGluedDescription =
    "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden)"
    "binomial         - Force Binomial Treenb               - Force nonblocking algorithm"
    "scatter_ring     - Force Scatter Ringhier             - Force hier (mpich-hier)";

TEST(Cvars, DescriptionMustListExactlyTheTableItems) {
    const std::vector<std::string> items{"auto", "binomial", "nb", "scatter_ring", "hier"};
    EXPECT_TRUE(description_lists_items(kGluedDescription, items));
    EXPECT_FALSE(description_lists_items(kGluedDescription, {"auto", "binomial", "nb", "scatter_ring"}));
    EXPECT_FALSE(description_lists_items(kGluedDescription,
                                         {"auto", "binomial", "nb", "scatter_ring", "hier", "new"}));
    EXPECT_FALSE(description_lists_items(kGluedDescription, {"auto", "nb", "binomial", "scatter_ring", "hier"}));
    EXPECT_FALSE(description_lists_items(kGluedDescription, {"auto", "binomial", "nb", "ring", "hier"}));
    EXPECT_FALSE(description_lists_items("no items here", {"auto"}));
    EXPECT_TRUE(description_lists_items("Pick oneauto - a (x)sched_binomial - b", {"auto", "sched_binomial"}));
}

// ---------------------------------------------------------------- specs

TEST(Specs, ParsesParameterValueLists) {
    const ParamSpec spec = parse_param_spec("bcast_hier_segsize=16K/65536");
    EXPECT_EQ(spec.name, "bcast_hier_segsize");
    EXPECT_EQ(spec.values, (std::vector<std::string>{"16K", "65536"}));
    for (const char* bad : {"segsize", "=1", "segsize=", "segsize=1//2", "segsize=1/"})
        EXPECT_THROW(parse_param_spec(bad), UsageError) << bad;
}

TEST(Specs, ParsesAlgorithmsWithTheirParameters) {
    const AlgorithmSpec plain = parse_algorithm_spec("binomial");
    EXPECT_EQ(plain.algorithm, "binomial");
    EXPECT_TRUE(plain.params.empty());
    const AlgorithmSpec hier = parse_algorithm_spec("hier:bcast_hier_segsize=8192/65536,bcast_hier_inter_kval=4");
    EXPECT_EQ(hier.algorithm, "hier");
    ASSERT_EQ(hier.params.size(), 2u);
    EXPECT_EQ(hier.params[0].values.size(), 2u);
    EXPECT_EQ(hier.params[1].name, "bcast_hier_inter_kval");
    for (const char* bad : {"", ":x=1", "hier:", "hier:x", "hier:x=1,", "hier:x=1,,y=2"})
        EXPECT_THROW(parse_algorithm_spec(bad), UsageError) << bad;
}

// ---------------------------------------------------------------- plans

std::vector<Configuration> plan(const std::vector<std::string>& collectives,
                                const std::vector<std::string>& algorithms,
                                const std::vector<std::string>& params = {}) {
    std::vector<AlgorithmSpec> algorithm_specs;
    for (const std::string& text : algorithms) algorithm_specs.push_back(parse_algorithm_spec(text));
    std::vector<ParamSpec> param_specs;
    for (const std::string& text : params) param_specs.push_back(parse_param_spec(text));
    return plan_configurations(collectives, algorithm_specs, param_specs, test_catalog());
}

TEST(Plan, DefaultIsMpichsOwnSelection) {
    EXPECT_EQ(plan({"bcast"}, {}), (std::vector<Configuration>{{"bcast", "default", {}}}));
    EXPECT_EQ(plan({"bcast"}, {"auto"}), plan({"bcast"}, {"default"}));
}

TEST(Plan, AllIsDefaultAndEveryAlgorithmButAuto) {
    std::vector<std::string> names;
    for (const Configuration& c : plan({"bcast"}, {"all"})) names.push_back(c.algorithm);
    EXPECT_EQ(names, (std::vector<std::string>{"default", "binomial", "smp", "hier"}));
}

TEST(Plan, StockIsAllButThePluginsAlgorithms) {
    std::vector<std::string> names;
    for (const Configuration& c : plan({"bcast"}, {"stock"})) names.push_back(c.algorithm);
    EXPECT_EQ(names, (std::vector<std::string>{"default", "binomial", "smp"}));
    // ccl is MPICH's own selection on host buffers: not swept as an algorithm
    CvarCatalog with_ccl = test_catalog();
    with_ccl.add(enum_cvar("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", {"auto", "ring", "ccl", "hier"}));
    names.clear();
    for (const Configuration& c : plan_configurations({"allreduce"}, {parse_algorithm_spec("stock")}, {}, with_ccl))
        names.push_back(c.algorithm);
    EXPECT_EQ(names, (std::vector<std::string>{"default", "ring"}));
}

TEST(Plan, ValueListsMultiplyOutFirstParameterSlowest) {
    const auto configurations =
        plan({"bcast"}, {"HIER:bcast_hier_segsize=8K/64K,bcast_hier_inter_algorithm=tsp_kary/tsp_knomial"});
    ASSERT_EQ(configurations.size(), 4u);
    EXPECT_EQ(configurations[0].algorithm, "hier");  // canonical item name
    EXPECT_EQ(canonical_params(configurations[0].params),
              "MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM=tsp_kary;MPIR_CVAR_BCAST_HIER_SEGSIZE=8192");
    EXPECT_EQ(canonical_params(configurations[1].params),
              "MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM=tsp_knomial;MPIR_CVAR_BCAST_HIER_SEGSIZE=8192");
    EXPECT_EQ(configurations[3].params.at("MPIR_CVAR_BCAST_HIER_SEGSIZE"), "65536");
}

TEST(Plan, CommonParametersApplyToEveryAlgorithm) {
    const auto configurations = plan({"bcast"}, {"binomial", "hier"}, {"polls_before_yield=0/1000"});
    ASSERT_EQ(configurations.size(), 4u);
    EXPECT_EQ(configurations[0], (Configuration{"bcast", "binomial", {{"MPIR_CVAR_POLLS_BEFORE_YIELD", "0"}}}));
    EXPECT_EQ(configurations[3], (Configuration{"bcast", "hier", {{"MPIR_CVAR_POLLS_BEFORE_YIELD", "1000"}}}));
}

TEST(Plan, DuplicatesCollapseInCommandLineOrder) {
    const auto configurations = plan({"bcast", "reduce"}, {"binomial", "default", "binomial", "auto"});
    EXPECT_EQ(configurations, (std::vector<Configuration>{{"bcast", "binomial", {}},
                                                          {"bcast", "default", {}},
                                                          {"reduce", "binomial", {}},
                                                          {"reduce", "default", {}}}));
}

TEST(Plan, RejectsWhatTheLibraryDoesNotHave) {
    const std::string unknown = usage_error([] { plan({"bcast"}, {"ring"}); });
    EXPECT_NE(unknown.find("unknown bcast algorithm 'ring'"), std::string::npos);
    EXPECT_NE(unknown.find("auto, binomial, smp, hier"), std::string::npos);
    // hier exists for bcast only in this catalogue
    EXPECT_NE(usage_error([] { plan({"bcast", "reduce"}, {"hier"}); }).find("unknown reduce algorithm"),
              std::string::npos);
    EXPECT_NE(usage_error([] { plan({"allreduce"}, {"binomial"}); }).find("no MPI_T variable MPIR_CVAR_ALLREDUCE"),
              std::string::npos);
    EXPECT_EQ(plan({"allreduce"}, {}).size(), 1u);  // default needs no selector variable
    EXPECT_EQ(usage_error([] { plan({"alltoallw"}, {}); }),
              "unknown collective 'alltoallw' (bcast, reduce, allreduce, allgather, gather, scatter, barrier, scan, "
              "exscan, reduce_scatter, reduce_scatter_block, allgatherv, alltoall, alltoallv, gatherv, scatterv, "
              "ibcast, ireduce, iallreduce, iallgather, igather, iscatter, ibarrier, iscan, iexscan, "
              "ireduce_scatter, ireduce_scatter_block, iallgatherv, ialltoall, ialltoallv, igatherv or iscatterv)");
    EXPECT_THROW(plan({}, {}), UsageError);
    EXPECT_THROW(plan({"bcast"}, {"hier:no_such_cvar=1"}), UsageError);
    EXPECT_THROW(plan({"bcast"}, {"hier:bcast_hier_segsize=big"}), UsageError);
    EXPECT_THROW(plan({"bcast"}, {"hier:bcast_hier_inter_algorithm=tsp_ring"}), UsageError);
    EXPECT_THROW(plan({"bcast"}, {"hier:netmod=ofi"}), UsageError);
}

TEST(Plan, KnowsEveryCollectiveBenchTimes) {
    EXPECT_EQ(supported_collectives(),
              (std::vector<std::string>{"bcast", "reduce", "allreduce", "allgather", "gather", "scatter", "barrier",
                                        "scan", "exscan", "reduce_scatter", "reduce_scatter_block", "allgatherv",
                                        "alltoall", "alltoallv", "gatherv", "scatterv", "ibcast", "ireduce",
                                        "iallreduce", "iallgather", "igather", "iscatter", "ibarrier", "iscan",
                                        "iexscan", "ireduce_scatter", "ireduce_scatter_block", "iallgatherv",
                                        "ialltoall", "ialltoallv", "igatherv", "iscatterv"}));
    // a non-blocking form has its blocking form's sizes: none for MPI_Ibarrier
    EXPECT_EQ(usage_error([] { plan_points({{"ibarrier", "default", {}}}, {8}); }),
              "ibarrier takes no message size: use --sizes 0 (got 8; time the sized collectives in another run)");
    EXPECT_EQ(plan({"allgather", "gather", "scatter", "barrier"}, {}),
              (std::vector<Configuration>{{"allgather", "default", {}},
                                          {"gather", "default", {}},
                                          {"scatter", "default", {}},
                                          {"barrier", "default", {}}}));
    // -a goes through MPIR_CVAR_<COLL>_INTRA_ALGORITHM as for the others
    EXPECT_EQ(algorithm_cvar("allgather"), "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM");
    const auto allgather = plan({"allgather"}, {"default", "RING"});
    ASSERT_EQ(allgather.size(), 2u);
    EXPECT_EQ(allgather[1], (Configuration{"allgather", "ring", {}}));
    EXPECT_EQ(touched_cvars(allgather, test_catalog()),
              (std::set<std::string>{"MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE", "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM"}));
    EXPECT_NE(usage_error([] { plan({"allgather"}, {"binomial"}); }).find("unknown allgather algorithm 'binomial'"),
              std::string::npos);
    EXPECT_NE(usage_error([] { plan({"gather"}, {"binomial"}); }).find("no MPI_T variable MPIR_CVAR_GATHER"),
              std::string::npos);
    EXPECT_NE(usage_error([] { plan({"bcast"}, {}, {"allgather_intra_algorithm=ring"}); }).find("use -a"),
              std::string::npos);
}

// The configurations `-a spec` gives one collective with the variables of `catalog`.
std::vector<Configuration> configurations_of(const CvarCatalog& catalog, const std::string& collective,
                                             const std::string& spec) {
    return plan_configurations({collective}, {parse_algorithm_spec(spec)}, {}, catalog);
}

// Their algorithms, in plan order.
std::vector<std::string> algorithms_of(const CvarCatalog& catalog, const std::string& collective,
                                       const std::string& spec) {
    std::vector<std::string> names;
    for (const Configuration& c : configurations_of(catalog, collective, spec)) names.push_back(c.algorithm);
    return names;
}

// scan, exscan and their non-blocking forms: MPICH's algorithms are the items of their own
// variables (those of the MPICH built against: no list of names here), the plugin's hier
// and tsp_hier left out of stock; sized like allreduce (0 bytes is a valid call).
TEST(Plan, ScanAndExscanSweepTheirVariablesItems) {
    CvarCatalog catalog = test_catalog();
    catalog.add(enum_cvar("MPIR_CVAR_SCAN_INTRA_ALGORITHM", {"auto", "smp", "recursive_doubling", "nb", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_EXSCAN_INTRA_ALGORITHM", {"auto", "recursive_doubling", "nb", "hier"}));
    catalog.add(enum_cvar(
        "MPIR_CVAR_ISCAN_INTRA_ALGORITHM",
        {"auto", "sched_auto", "sched_smp", "sched_recursive_doubling", "tsp_recursive_doubling", "tsp_hier"}));
    catalog.add(
        enum_cvar("MPIR_CVAR_IEXSCAN_INTRA_ALGORITHM", {"auto", "sched_auto", "sched_recursive_doubling", "tsp_hier"}));
    EXPECT_EQ(algorithm_cvar("iexscan"), "MPIR_CVAR_IEXSCAN_INTRA_ALGORITHM");
    EXPECT_EQ(algorithms_of(catalog, "scan", "stock"),
              (std::vector<std::string>{"default", "smp", "recursive_doubling", "nb"}));
    EXPECT_EQ(algorithms_of(catalog, "exscan", "all"),
              (std::vector<std::string>{"default", "recursive_doubling", "nb", "hier"}));
    EXPECT_EQ(algorithms_of(catalog, "iscan", "stock"),
              (std::vector<std::string>{"default", "sched_smp", "sched_recursive_doubling", "tsp_recursive_doubling"}));
    EXPECT_EQ(algorithms_of(catalog, "iexscan", "all"),
              (std::vector<std::string>{"default", "sched_recursive_doubling", "tsp_hier"}));
    EXPECT_EQ(plan_points({{"exscan", "default", {}}}, {0, 8}).size(), 2u);
    EXPECT_EQ(plan_points({{"iscan", "default", {}}}, {8}).front().msg_bytes, 8u);
}

// reduce_scatter, reduce_scatter_block and their non-blocking forms: MPICH's algorithms
// are the items of their own variables (not reduce's), the plugin's hier and tsp_hier left
// out of stock; hier's one parameter through its own variable; sized per rank (each
// rank's block), 0 bytes a valid call; no segment size, so no two hier runs alike.
TEST(Plan, ReduceScattersSweepTheirVariablesItems) {
    CvarCatalog catalog = test_catalog();
    catalog.add(
        enum_cvar("MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM",
                  {"auto", "noncommutative", "pairwise", "recursive_doubling", "recursive_halving", "nb", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM", {"auto", "pairwise", "nb", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
                          {"auto", "sched_auto", "sched_pairwise", "tsp_recexch", "tsp_hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM", {"linear"}));
    catalog.add(typed_cvar("MPIR_CVAR_REDUCE_SCATTER_DEVICE_COLLECTIVE", CvarType::int_));
    EXPECT_EQ(algorithm_cvar("ireduce_scatter_block"), "MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM");
    EXPECT_EQ(algorithms_of(catalog, "reduce_scatter", "stock"),
              (std::vector<std::string>{"default", "noncommutative", "pairwise", "recursive_doubling",
                                        "recursive_halving", "nb"}));
    EXPECT_EQ(algorithms_of(catalog, "reduce_scatter_block", "all"),
              (std::vector<std::string>{"default", "pairwise", "nb", "hier"}));
    EXPECT_EQ(algorithms_of(catalog, "ireduce_scatter_block", "stock"),
              (std::vector<std::string>{"default", "sched_pairwise", "tsp_recexch"}));
    EXPECT_EQ(configurations_of(catalog, "reduce_scatter", "hier:reduce_scatter_hier_inter_algorithm=linear"),
              (std::vector<Configuration>{
                  {"reduce_scatter", "hier", {{"MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM", "linear"}}}}));
    EXPECT_NE(usage_error([&] {
                  configurations_of(catalog, "reduce_scatter", "hier:reduce_scatter_hier_inter_algorithm=tsp_kary");
              }).find("tsp_kary"),
              std::string::npos);
    EXPECT_EQ(plan_points({{"reduce_scatter_block", "default", {}}}, {0, 8}).size(), 2u);
    EXPECT_EQ(plan_points({{"ireduce_scatter", "default", {}}}, {8}).front().msg_bytes, 8u);
    const Params linear{{"MPIR_CVAR_REDUCE_SCATTER_HIER_INTER_ALGORITHM", "linear"}};
    EXPECT_FALSE(same_run(PointKey{"reduce_scatter", 1024, "hier", linear},
                          PointKey{"reduce_scatter", 1024, "hier", linear}, 2));  // nothing cut
}

// allgatherv and iallgatherv: MPICH's algorithms are the items of their own variables
// (not allgather's), the plugin's hier and tsp_hier left out of stock; hier's one
// parameter through its own variable; sized per rank (each rank's block), 0 bytes a valid
// call; no segment size, so no two hier runs alike.
TEST(Plan, AllgathervSweepsItsVariablesItems) {
    CvarCatalog catalog = test_catalog();
    catalog.add(enum_cvar("MPIR_CVAR_ALLGATHERV_INTRA_ALGORITHM",
                          {"auto", "brucks", "recursive_doubling", "ring", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_IALLGATHERV_INTRA_ALGORITHM",
                          {"auto", "sched_auto", "sched_brucks", "sched_recursive_doubling", "sched_ring",
                           "tsp_recexch_doubling", "tsp_recexch_halving", "tsp_ring", "tsp_brucks", "tsp_hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM", {"linear"}));
    catalog.add(typed_cvar("MPIR_CVAR_ALLGATHERV_DEVICE_COLLECTIVE", CvarType::int_));
    EXPECT_EQ(algorithm_cvar("iallgatherv"), "MPIR_CVAR_IALLGATHERV_INTRA_ALGORITHM");
    EXPECT_EQ(algorithms_of(catalog, "allgatherv", "stock"),
              (std::vector<std::string>{"default", "brucks", "recursive_doubling", "ring"}));
    EXPECT_EQ(algorithms_of(catalog, "allgatherv", "all"),
              (std::vector<std::string>{"default", "brucks", "recursive_doubling", "ring", "hier"}));
    EXPECT_EQ(algorithms_of(catalog, "iallgatherv", "stock"),
              (std::vector<std::string>{"default", "sched_brucks", "sched_recursive_doubling", "sched_ring",
                                        "tsp_recexch_doubling", "tsp_recexch_halving", "tsp_ring", "tsp_brucks"}));
    EXPECT_EQ(configurations_of(catalog, "allgatherv", "hier:allgatherv_hier_inter_algorithm=linear"),
              (std::vector<Configuration>{
                  {"allgatherv", "hier", {{"MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM", "linear"}}}}));
    // allgather's inter-node steps are not allgatherv's
    EXPECT_NE(usage_error([&] {
                  configurations_of(catalog, "allgatherv", "hier:allgatherv_hier_inter_algorithm=ring");
              }).find("ring"),
              std::string::npos);
    EXPECT_EQ(plan_points({{"allgatherv", "default", {}}}, {0, 8}).size(), 2u);
    EXPECT_EQ(plan_points({{"iallgatherv", "default", {}}}, {8}).front().msg_bytes, 8u);
    const Params linear{{"MPIR_CVAR_ALLGATHERV_HIER_INTER_ALGORITHM", "linear"}};
    EXPECT_FALSE(same_run(PointKey{"allgatherv", 1024, "hier", linear}, PointKey{"allgatherv", 1024, "hier", linear},
                          2));  // nothing cut
}

// alltoall and ialltoall: MPICH's algorithms are the items of their own variables (not
// alltoallv's), the plugin's hier and tsp_hier left out of stock; hier's one parameter,
// each item of its own list, through its own variable; sized per pair (the block each
// rank sends each rank), 0 bytes a valid call; no segment size, so no two hier runs alike.
TEST(Plan, AlltoallSweepsItsVariablesItems) {
    CvarCatalog catalog = test_catalog();
    catalog.add(enum_cvar("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", {"auto", "brucks", "k_brucks", "nb", "pairwise",
                                                                 "pairwise_sendrecv_replace", "scattered", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM",
                          {"auto", "sched_auto", "sched_brucks", "sched_inplace", "sched_pairwise",
                           "sched_permuted_sendrecv", "tsp_ring", "tsp_brucks", "tsp_scattered", "tsp_hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", {"linear", "brucks", "direct", "by_size"}));
    catalog.add(typed_cvar("MPIR_CVAR_ALLTOALL_COMPOSITION", CvarType::int_));
    catalog.add(typed_cvar("MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE", CvarType::int_));
    EXPECT_EQ(algorithm_cvar("ialltoall"), "MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM");
    EXPECT_EQ(algorithms_of(catalog, "alltoall", "stock"),
              (std::vector<std::string>{"default", "brucks", "k_brucks", "nb", "pairwise", "pairwise_sendrecv_replace",
                                        "scattered"}));
    EXPECT_EQ(algorithms_of(catalog, "alltoall", "all").back(), "hier");
    EXPECT_EQ(algorithms_of(catalog, "ialltoall", "stock"),
              (std::vector<std::string>{"default", "sched_brucks", "sched_inplace", "sched_pairwise",
                                        "sched_permuted_sendrecv", "tsp_ring", "tsp_brucks", "tsp_scattered"}));
    EXPECT_EQ(configurations_of(catalog, "alltoall", "hier:alltoall_hier_inter_algorithm=linear/direct"),
              (std::vector<Configuration>{
                  {"alltoall", "hier", {{"MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", "linear"}}},
                  {"alltoall", "hier", {{"MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", "direct"}}}}));
    EXPECT_EQ(configurations_of(catalog, "alltoall", "default:MPIR_CVAR_ALLTOALL_COMPOSITION=2"),
              (std::vector<Configuration>{{"alltoall", "default", {{"MPIR_CVAR_ALLTOALL_COMPOSITION", "2"}}}}));
    // allgather's inter-node steps are not alltoall's
    EXPECT_NE(usage_error([&] {
                  configurations_of(catalog, "alltoall", "hier:alltoall_hier_inter_algorithm=ring");
              }).find("ring"),
              std::string::npos);
    EXPECT_EQ(plan_points({{"alltoall", "default", {}}}, {0, 8}).size(), 2u);
    EXPECT_EQ(plan_points({{"ialltoall", "default", {}}}, {8}).front().msg_bytes, 8u);
    const Params brucks{{"MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM", "brucks"}};
    EXPECT_FALSE(same_run(PointKey{"alltoall", 1024, "hier", brucks}, PointKey{"alltoall", 1024, "hier", brucks},
                          2));  // nothing cut
}

// alltoallv and ialltoallv: MPICH's algorithms are the items of their own variables (not
// alltoall's), the plugin's hier and tsp_hier left out of stock; hier's one parameter, the
// one item of its own list (direct: not alltoall's brucks), through its own variable;
// sized per pair as alltoall, 0 bytes a valid call; no segment size.
TEST(Plan, AlltoallvSweepsItsVariablesItems) {
    CvarCatalog catalog = test_catalog();
    catalog.add(enum_cvar("MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM",
                          {"auto", "nb", "pairwise_sendrecv_replace", "scattered", "hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM",
                          {"auto", "sched_auto", "sched_blocked", "sched_inplace", "tsp_scattered", "tsp_blocked",
                           "tsp_inplace", "tsp_hier"}));
    catalog.add(enum_cvar("MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM", {"direct"}));
    catalog.add(enum_cvar("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", {"auto", "brucks", "hier"}));
    EXPECT_EQ(algorithm_cvar("alltoallv"), "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM");
    EXPECT_EQ(algorithm_cvar("ialltoallv"), "MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM");
    EXPECT_EQ(algorithms_of(catalog, "alltoallv", "stock"),
              (std::vector<std::string>{"default", "nb", "pairwise_sendrecv_replace", "scattered"}));
    EXPECT_EQ(algorithms_of(catalog, "alltoallv", "all").back(), "hier");
    EXPECT_EQ(algorithms_of(catalog, "ialltoallv", "stock"),
              (std::vector<std::string>{"default", "sched_blocked", "sched_inplace", "tsp_scattered", "tsp_blocked",
                                        "tsp_inplace"}));
    EXPECT_EQ(configurations_of(catalog, "alltoallv", "hier:alltoallv_hier_inter_algorithm=direct"),
              (std::vector<Configuration>{
                  {"alltoallv", "hier", {{"MPIR_CVAR_ALLTOALLV_HIER_INTER_ALGORITHM", "direct"}}}}));
    // alltoall's inter-node steps are not alltoallv's
    EXPECT_NE(usage_error([&] {
                  configurations_of(catalog, "alltoallv", "hier:alltoallv_hier_inter_algorithm=brucks");
              }).find("brucks"),
              std::string::npos);
    EXPECT_EQ(plan_points({{"alltoallv", "default", {}}}, {0, 8}).size(), 2u);
    EXPECT_EQ(plan_points({{"ialltoallv", "default", {}}}, {8}).front().msg_bytes, 8u);
}

// gatherv, scatterv and their schedules: MPICH's algorithms are the items of their own
// variables (not gather's or scatter's), the plugin's hier and tsp_hier left out of stock;
// hier's one parameter, the one item of its own list (linear: not gather's binomial),
// through its own variable; sized per rank as gather (the mean of bench's uneven
// blocks), 0 bytes a valid call; no segment size, so no two hier runs alike.
TEST(Plan, GathervAndScattervSweepTheirVariablesItems) {
    CvarCatalog catalog = test_catalog();
    const std::pair<std::string, std::string> kNames[] = {{"gatherv", "GATHERV"}, {"scatterv", "SCATTERV"}};
    for (const auto& [coll, name] : kNames) {
        catalog.add(enum_cvar("MPIR_CVAR_" + name + "_INTRA_ALGORITHM", {"auto", "linear", "nb", "hier"}));
        catalog.add(enum_cvar("MPIR_CVAR_I" + name + "_INTRA_ALGORITHM",
                              {"auto", "sched_auto", "sched_linear", "tsp_linear", "tsp_hier"}));
        catalog.add(enum_cvar("MPIR_CVAR_" + name + "_HIER_INTER_ALGORITHM", {"linear"}));
    }
    catalog.add(enum_cvar("MPIR_CVAR_GATHER_INTRA_ALGORITHM", {"auto", "binomial", "hier"}));
    for (const auto& [coll, name] : kNames) {
        EXPECT_EQ(algorithms_of(catalog, coll, "stock"), (std::vector<std::string>{"default", "linear", "nb"}));
        EXPECT_EQ(algorithms_of(catalog, coll, "all").back(), "hier");
        EXPECT_EQ(algorithms_of(catalog, "i" + coll, "stock"),
                  (std::vector<std::string>{"default", "sched_linear", "tsp_linear"}));
        EXPECT_EQ(algorithms_of(catalog, "i" + coll, "all").back(), "tsp_hier");
        const std::string cvar = "MPIR_CVAR_" + name + "_HIER_INTER_ALGORITHM";
        EXPECT_EQ(configurations_of(catalog, coll, "hier:" + coll + "_hier_inter_algorithm=linear"),
                  (std::vector<Configuration>{{coll, "hier", {{cvar, "linear"}}}}));
        EXPECT_EQ(plan_points({{coll, "default", {}}}, {0, 8}).size(), 2u) << coll;
        EXPECT_FALSE(same_run(PointKey{coll, 1024, "hier", {{cvar, "linear"}}},
                              PointKey{coll, 1024, "hier", {{cvar, "linear"}}}, 2));  // nothing cut
    }
    EXPECT_EQ(algorithm_cvar("igatherv"), "MPIR_CVAR_IGATHERV_INTRA_ALGORITHM");
    // gather's inter-node steps are not gatherv's
    EXPECT_NE(usage_error([&] {
                  configurations_of(catalog, "gatherv", "hier:gatherv_hier_inter_algorithm=binomial");
              }).find("binomial"),
              std::string::npos);
    EXPECT_EQ(algorithms_of(catalog, "gather", "stock"), (std::vector<std::string>{"default", "binomial"}));
}

// hiertune overlap's operations: MPI_Ibcast's algorithms through MPIR_CVAR_IBCAST_INTRA_ALGORITHM
TEST(Plan, OtherOperationListsAndItemsMpichAbortsOn) {
    const CvarCatalog catalog = test_catalog();
    const std::vector<std::string> known{"isend", "ibcast"};
    EXPECT_EQ(plan_configurations({"ibcast"}, {parse_algorithm_spec("all")}, {}, catalog, known, "operation"),
              (std::vector<Configuration>{{"ibcast", "default", {}},
                                          {"ibcast", "tsp_tree", {}},
                                          {"ibcast", "sched_binomial", {}}}));  // no sched_auto
    EXPECT_NE(usage_error([&] {
                  plan_configurations({"ibcast"}, {parse_algorithm_spec("sched_auto")}, {}, catalog, known,
                                      "operation");
              }).find("MPICH aborts when it is forced"),
              std::string::npos);
    EXPECT_EQ(usage_error([&] { plan_configurations({"bcast"}, {}, {}, catalog, known, "operation"); }),
              "unknown operation 'bcast' (isend or ibcast)");
    EXPECT_NE(usage_error([&] {
                  plan_configurations({"ibcast"}, {}, {{"ibcast_intra_algorithm", {"tsp_tree"}}}, catalog, known,
                                      "operation");
              }).find("use -a"),
              std::string::npos);
}

TEST(Plan, BarrierTakesSizeZeroOnly) {
    const std::vector<Configuration> barrier{{"barrier", "default", {}}};
    const Sizes zero = message_sizes("", {"0"});  // --sizes 0
    EXPECT_EQ(zero, (Sizes{0}));
    EXPECT_EQ(plan_points(barrier, zero), (std::vector<PointKey>{{"barrier", 0, "default", {}}}));
    EXPECT_EQ(usage_error([&] { plan_points(barrier, {0, 1024}); }),
              "barrier takes no message size: use --sizes 0 (got 1024; time the sized collectives in another run)");
    EXPECT_THROW(plan_points(barrier, message_sizes("", {})), UsageError);  // the default range
    // size 0 is fine for the others too
    EXPECT_EQ(plan_points({{"gather", "default", {}}}, zero).size(), 1u);
}

TEST(Plan, RejectsParametersGivenTwiceOrSelectingTheAlgorithm) {
    EXPECT_NE(usage_error([] { plan({"bcast"}, {"hier:bcast_hier_segsize=1,BCAST_HIER_SEGSIZE=2"}); })
                  .find("given twice"),
              std::string::npos);
    EXPECT_THROW(plan({"bcast"}, {"hier:bcast_hier_segsize=1"}, {"bcast_hier_segsize=2"}), UsageError);
    EXPECT_NE(usage_error([] { plan({"bcast"}, {}, {"bcast_intra_algorithm=hier"}); }).find("use -a"),
              std::string::npos);
    EXPECT_THROW(plan({"bcast"}, {}, {"reduce_device_collective=0"}), UsageError);
}

TEST(Text, ListsAsASentenceSaysThem) {
    EXPECT_EQ(spoken({}, "or"), "");
    EXPECT_EQ(spoken({"a"}, "or"), "a");
    EXPECT_EQ(spoken({"a", "b"}, "and"), "a and b");
    EXPECT_EQ(spoken({"a", "b", "c"}, "and"), "a, b and c");
    EXPECT_EQ(name_list({"bcast", "reduce", "barrier"}), "bcast, reduce or barrier");
}

// Hier configurations whose segment sizes both cut the message into one segment run the
// same plan: bench --same-runs-once times the one with the smallest segment size.
TEST(Plan, SameRunsAreTimedOnce) {
    const auto point = [](std::uint64_t bytes, const std::string& segsize, const std::string& inter = "tsp_ring") {
        return PointKey{"bcast", bytes, "hier",
                        {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", segsize}, {"MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM", inter}}};
    };
    EXPECT_TRUE(same_run(point(16384, "16384"), point(16384, "65536"), 2));
    EXPECT_TRUE(same_run(point(100, "0"), point(100, "4096"), 2));  // 0: one segment
    EXPECT_FALSE(same_run(point(32768, "16384"), point(32768, "65536"), 2));  // two segments against one
    EXPECT_FALSE(same_run(point(16384, "16384"), point(16384, "65536", "tsp_kary"), 2));
    EXPECT_FALSE(same_run(point(16384, "16384"), point(8192, "65536"), 2));
    EXPECT_TRUE(same_run(point(16384, "16384"), point(16384, "65536"), 8));  // the message: ppn plays no part
    const PointKey binomial{"bcast", 1024, "binomial", {}};
    EXPECT_FALSE(same_run(binomial, binomial, 2));
    EXPECT_TRUE(same_run("reduce", 1024, 2, {{"segsize", "4096"}, {"inter_algo", "tsp_ring"}},
                         {{"segsize", "1024"}, {"inter_algo", "tsp_ring"}}, "segsize"));
    EXPECT_FALSE(same_run("reduce", 1024, 2, {{"segsize", "4096"}}, {{"segsize", "x"}}, "segsize"));
    EXPECT_FALSE(same_run("gather", 1024, 2, {{"segsize", "4096"}}, {{"segsize", "8192"}}, "segsize"));

    const std::vector<PointKey> points{point(16384, "65536"), point(16384, "16384"), point(16384, "262144"),
                                       point(32768, "16384"), point(32768, "65536"), point(32768, "262144"),
                                       binomial};
    EXPECT_EQ(distinct_runs(points, 2),
              (std::vector<PointKey>{point(16384, "16384"), point(32768, "16384"), point(32768, "65536"), binomial}));
}

// The hier allgather's segment size cuts each node's block (ppn x the bytes per rank):
// sizes at or above the fullest node's block are one piece per node, the same run.
TEST(Plan, AllgatherSameRunsAreTheirNodeBlocks) {
    const auto allgather = [](std::uint64_t bytes, const std::string& segsize) {
        return PointKey{"allgather", bytes, "hier",
                        {{"MPIR_CVAR_ALLGATHER_HIER_SEGSIZE", segsize},
                         {"MPIR_CVAR_ALLGATHER_HIER_INTER_ALGORITHM", "ring"}}};
    };
    // 2 KiB per rank: a 2-rank node's block is 4 KiB, a 4-rank node's 8 KiB
    EXPECT_TRUE(same_run(allgather(2048, "4096"), allgather(2048, "8192"), 2));
    EXPECT_FALSE(same_run(allgather(2048, "4096"), allgather(2048, "8192"), 4));  // two pieces against one
    EXPECT_TRUE(same_run(allgather(2048, "0"), allgather(2048, "8192"), 4));
    EXPECT_FALSE(same_run(allgather(2048, "1024"), allgather(2048, "8192"), 1));  // 1 KiB cuts a 2 KiB block
    EXPECT_TRUE(same_run(allgather(2048, "2048"), allgather(2048, "8192"), 1));
    EXPECT_FALSE(same_run("allgather", 1024, 2, {{"segsize", "1024"}}, {{"segsize", "4096"}}, "segsize"));
    EXPECT_TRUE(same_run("allgather", 1024, 2, {{"segsize", "2048"}}, {{"segsize", "4096"}}, "segsize"));
    EXPECT_THROW(same_run("allgather", 1024, 0, {{"segsize", "2048"}}, {{"segsize", "4096"}}, "segsize"),
                 std::invalid_argument);
    EXPECT_EQ(distinct_runs({allgather(2048, "4096"), allgather(2048, "8192"), allgather(2048, "2048")}, 2),
              (std::vector<PointKey>{allgather(2048, "4096"), allgather(2048, "2048")}));
}

// Of a class of same-run configurations, the smallest segment size is the one timed;
// the others' figures stand on it (bench --same-runs-once and the report agree).
TEST(Plan, TheSameRunIsTimedUnderItsSmallestSegmentSize) {
    const std::vector<std::uint64_t> segsizes{65536, 16384, 262144, 0};
    EXPECT_EQ(same_run_representative("bcast", 16384, 2, 65536, segsizes), std::optional<std::uint64_t>(0));
    EXPECT_EQ(same_run_representative("bcast", 16384, 2, 0, segsizes), std::nullopt);  // timed itself
    EXPECT_EQ(same_run_representative("reduce", 16384, 2, 262144, {65536, 16384, 262144}),
              std::optional<std::uint64_t>(16384));
    EXPECT_EQ(same_run_representative("reduce", 32768, 2, 16384, segsizes), std::nullopt);  // two segments
    EXPECT_EQ(same_run_representative("reduce", 32768, 2, 262144, {16384, 65536, 262144}),
              std::optional<std::uint64_t>(65536));  // 16 KiB cuts 32 KiB in two
    EXPECT_EQ(same_run_representative("allgather", 1024, 2, 65536, segsizes),
              std::optional<std::uint64_t>(0));  // a 2 KiB node block: one piece under each
    EXPECT_EQ(same_run_representative("allgather", 16384, 2, 262144, {16384, 65536, 262144}),
              std::optional<std::uint64_t>(65536));  // 16 KiB cuts the 32 KiB block in two
    EXPECT_EQ(same_run_representative("allgather", 16384, 8, 262144, {16384, 65536, 262144}),
              std::nullopt);  // an 8-rank node's block is 128 KiB: 65536 cuts it in two
    EXPECT_EQ(same_run_representative("gather", 1024, 2, 65536, segsizes), std::nullopt);  // no segments
    EXPECT_EQ(same_run_representative("allreduce", 1024, 2, 4096, {}), std::nullopt);
}

TEST(Plan, PointsAreConfigurationMajorWithSizesAscending) {
    const std::vector<Configuration> configurations{{"bcast", "binomial", {}}, {"bcast", "hier", {}}};
    const std::vector<PointKey> points = plan_points(configurations, {8, 1024});
    ASSERT_EQ(points.size(), 4u);
    EXPECT_EQ(points[0], (PointKey{"bcast", 8, "binomial", {}}));
    EXPECT_EQ(points[1], (PointKey{"bcast", 1024, "binomial", {}}));
    EXPECT_EQ(points[2], (PointKey{"bcast", 8, "hier", {}}));
    EXPECT_EQ(configuration_of(points[3]), configurations[1]);
    EXPECT_EQ(plan_points({configurations[0], configurations[0]}, {8}).size(), 1u);
}

TEST(Plan, GroupsAreTheConfigurationsOfOneSizeInPlanOrder) {
    const std::vector<Configuration> configurations{
        {"bcast", "default", {}}, {"bcast", "hier", {}}, {"allreduce", "default", {}}, {"allreduce", "hier", {}}};
    const std::vector<PointKey> points = plan_points(configurations, {8, 1024});
    // points: bcast default 8, 1024; bcast hier 8, 1024; allreduce default 8, 1024; allreduce hier 8, 1024
    const std::vector<std::vector<std::size_t>> expected{{0, 2}, {1, 3}, {4, 6}, {5, 7}};
    EXPECT_EQ(point_groups(points), expected);
    // sizes ascending whatever the order of the points; a configuration alone makes groups of one
    const std::vector<PointKey> unsorted{{"reduce", 4096, "default", {}}, {"reduce", 8, "default", {}}};
    EXPECT_EQ(point_groups(unsorted), (std::vector<std::vector<std::size_t>>{{1}, {0}}));
    EXPECT_TRUE(point_groups({}).empty());
}

TEST(Plan, TouchedVariablesIncludeDeviceSwitchesAndParameters) {
    const auto configurations = plan({"bcast", "reduce"}, {"binomial"}, {"polls_before_yield=0"});
    EXPECT_EQ(touched_cvars(configurations, test_catalog()),
              (std::set<std::string>{"MPIR_CVAR_BCAST_DEVICE_COLLECTIVE", "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
                                     "MPIR_CVAR_POLLS_BEFORE_YIELD", "MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE",
                                     "MPIR_CVAR_REDUCE_INTRA_ALGORITHM"}));
}

TEST(Plan, DefaultOnlyTouchesNoSelector) {
    const auto configurations = plan({"bcast", "allreduce"}, {"default"}, {"polls_before_yield=0"});
    EXPECT_EQ(touched_cvars(configurations, test_catalog()),
              (std::set<std::string>{"MPIR_CVAR_POLLS_BEFORE_YIELD"}));
    const std::map<std::string, CvarValue> initial{
        {"MPIR_CVAR_POLLS_BEFORE_YIELD", cvar_value_from_integer(test_catalog().lookup("polls_before_yield"), 1000)}};
    EXPECT_EQ(cvar_assignment(configurations[1], initial, test_catalog()).at("MPIR_CVAR_POLLS_BEFORE_YIELD").integer,
              0);
}

TEST(Plan, AssignmentForcesTheAlgorithmAtTheMpirLevel) {
    const CvarCatalog catalog = test_catalog();
    const auto configurations = plan({"bcast"}, {"default", "hier:bcast_hier_segsize=4096"});
    std::map<std::string, CvarValue> initial;
    for (const std::string& name : touched_cvars(configurations, catalog))
        initial[name] = cvar_value_from_integer(catalog.lookup(name), name.find("DEVICE") != std::string::npos);
    initial["MPIR_CVAR_BCAST_HIER_SEGSIZE"] = cvar_value_from_integer(catalog.lookup("bcast_hier_segsize"), 65536);

    const auto hier = cvar_assignment(configurations[1], initial, catalog);
    EXPECT_EQ(hier.at("MPIR_CVAR_BCAST_INTRA_ALGORITHM").text, "hier");
    EXPECT_EQ(hier.at("MPIR_CVAR_BCAST_INTRA_ALGORITHM").integer, 3);
    EXPECT_EQ(hier.at("MPIR_CVAR_BCAST_DEVICE_COLLECTIVE").integer, 0);
    EXPECT_EQ(hier.at("MPIR_CVAR_BCAST_HIER_SEGSIZE").integer, 4096);

    // default restores what the previous configuration changed
    const auto default_selection = cvar_assignment(configurations[0], initial, catalog);
    EXPECT_EQ(default_selection.at("MPIR_CVAR_BCAST_INTRA_ALGORITHM").text, "auto");
    EXPECT_EQ(default_selection.at("MPIR_CVAR_BCAST_DEVICE_COLLECTIVE").integer, 1);
    EXPECT_EQ(default_selection.at("MPIR_CVAR_BCAST_HIER_SEGSIZE").integer, 65536);
    EXPECT_EQ(default_selection.size(), initial.size());
}

// ---------------------------------------------------------------- resume

class ResumeTest : public test::TempDirTest {};

Summary some_summary(double median) { return test::exact_summary(median, 12); }

TEST_F(ResumeTest, RerunMeasuresOnlyWhatIsMissingInPlanOrder) {
    const auto configurations = plan({"bcast"}, {"binomial", "hier:bcast_hier_segsize=8K/64K"});
    const std::vector<PointKey> sweep = plan_points(configurations, message_sizes("1:8", {"1000"}));
    ASSERT_EQ(sweep.size(), 15u);  // 3 configurations x 5 sizes

    const std::string path = (dir_ / "sweep.sqlite").string();
    JobDescription job{"box", 4, 2, 2, "round-robin", "MPICH 4.0.2"};
    {
        MeasureDb db = MeasureDb::open(path);
        const JobId id = db.find_or_create_job(job);
        for (std::size_t i = 0; i < 6; ++i) db.record_point(id, sweep[i], some_summary(1e-5 * (i + 1)));
    }  // "killed" here

    MeasureDb db = MeasureDb::open(path);
    const JobId id = db.find_or_create_job(job);  // same command, same job
    ASSERT_EQ(db.jobs().size(), 1u);
    const std::vector<PointKey> pending = db.pending(id, sweep);
    EXPECT_EQ(pending, std::vector<PointKey>(sweep.begin() + 6, sweep.end()));
    for (const PointKey& key : pending) EXPECT_TRUE(db.record_point(id, key, some_summary(2e-5)));
    EXPECT_TRUE(db.pending(id, sweep).empty());
    EXPECT_EQ(db.count_points(id), sweep.size());
    EXPECT_FALSE(db.record_point(id, sweep[0], some_summary(9.0)));  // never twice
}

}  // namespace
}  // namespace hiertune
