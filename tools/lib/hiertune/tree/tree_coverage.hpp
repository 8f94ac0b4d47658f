// Where a tuned tree's choices come from, kept beside the tree: `tune` writes it with
// every tree it makes, `install-tree` installs it with the tree, `show-tree` reads it
// and names the source of each row it prints.  No MPI.
//
// The file (TREE + kCoverageSuffix, JSON) holds the digest of the tree it describes
// (measure_db.hpp tree_digest: another tree's file is not read as this one's) and per
// tree position tuned (comm_size, ppn: generate.hpp tree_position) the shape, whether
// it was measured or predicted, and per collective the runs of tuned sizes with one
// source and choice (PickSource below, as tune_plan.hpp coverage finds it).
//
// A row of show-tree takes its source from the file: a row whose walk enters a tuned
// position (the keys comm_size<=N, comm_avg_ppn<=P right after comm_hierarchy, as
// csel_tree writes a tuned branch) takes the sources of the tuned sizes inside its byte
// range (several joined by "+"); between two tuned sizes the one below; above the
// largest the largest's (its choice holds there); below the smallest "stock (below the
// sizes tuned)".  A row at a tuned position's very comm size and ppn whose walk enters no
// tuned branch (every pick there MPICH's selection: the tree has none) takes that
// position's sources the same way.  Any other row is kNotTunedSource.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/tree/csel_show.hpp"

namespace hiertune {

constexpr const char* kCoverageSuffix = ".coverage";

// Where a tuned tree's choice at a size comes from (the report's coverage table):
// the HAN task model's hier pick (predicted, then timed against no tree), a pick by
// measurement alone (a measured collective's, one of MPICH's algorithms or CH4
// compositions measured faster than its selection, or a hier candidate of a close call
// timed faster than MPICH's best), MPICH's selection measured fastest, a pick step 5b
// put back to MPICH's selection, or, at a shape larger than the allocation, the
// analytic models' pick (predicted_shape.hpp; its other sizes are stock).
enum class PickSource { model, measured, stock, put_back, predicted };
std::string to_string(PickSource source);

// A row's source where the tree names nothing of the collective at its shape, and where
// the row lies below every size tuned there (row_source below).
constexpr const char* kNotTunedSource = "stock (not tuned)";
constexpr const char* kBelowTunedSource = "stock (below the sizes tuned)";

struct CoverageRange {
    std::string collective;
    std::uint64_t first_bytes = 0;
    std::uint64_t last_bytes = 0;
    std::string source;  // to_string(PickSource)
    std::string choice;
};

struct CoveragePosition {
    int comm_size = 0;
    int ppn = 0;
    std::string shape;  // "4x2"
    bool predicted = false;
    std::vector<CoverageRange> ranges;  // per collective in ascending sizes
};

struct TreeCoverage {
    std::string tree_digest;
    std::vector<CoveragePosition> positions;
};

// TREE + kCoverageSuffix.
std::filesystem::path coverage_path(const std::filesystem::path& tree);

// Written whole beside its place, then renamed over it.  Throws UsageError when it
// cannot be written.
void save_coverage(const TreeCoverage& coverage, const std::filesystem::path& path);

// nullopt when there is no file; throws UsageError when it does not read as one.
std::optional<TreeCoverage> load_coverage(const std::filesystem::path& path);

// The coverage file beside `tree` when it describes that very tree (tree_digest of its
// bytes): nullopt without one; with one of another tree, nullopt and a warning line on
// `warn` ending with `left_out` (what goes without it).
std::optional<TreeCoverage> coverage_of_tree(const std::filesystem::path& tree, std::ostream& warn,
                                             const std::string& left_out);

// The source of a row (see above).
std::string row_source(const TreeCoverage& coverage, const csel::TableRow& row);

// Whether a source names MPICH's own selection (kNotTunedSource, kBelowTunedSource, stock,
// put back): there the tree runs what no tree runs.
bool is_stock_source(const std::string& source);

// The source of the tree's choice for `collective` on comm_size ranks, ppn per node, at
// exactly msg_bytes: row_source of the show-tree row that holds that size, narrowed to it.
// Throws as csel::selection_table does.
std::string source_at(const csel::Json& tree, const TreeCoverage& coverage, const std::string& collective,
                      int comm_size, int ppn, std::uint64_t msg_bytes);

}  // namespace hiertune
