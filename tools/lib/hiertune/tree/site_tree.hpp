// The tree a site installs for every job (src/mpi/coll/hier/hier_site.h says where and
// what its record holds; MPI_Init loads it when the user names no tree).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hiertune {

// Where and when a tree was measured: the record beside the installed tree.
struct SiteRecord {
    std::string mpich_version;  // the MPICH it was measured on: another one refuses it
    std::string tree_digest;    // of the installed file's bytes (MPII_Hier_site_digest)
    std::string machine;
    std::string cluster;
    std::string measured;   // when, ISO 8601 UTC
    std::string installed;  // when, ISO 8601 UTC
    std::string source;     // the tree file it was copied from
    // the inter-node links' alpha / beta that tune measured and ran hier with (its
    // by_size crossovers in every job that loads the tree); 0: none, not written
    std::int64_t latency_bytes = 0;
};

// PREFIX/share/mpich-hier/tuning.json, its record's path, and the CH4 tree tuned with it
// (TREE.ch4: tune writes it beside its MPIR tree, MPID_Init loads it with the MPIR tree).
std::filesystem::path site_tree_path(const std::filesystem::path& prefix);
std::filesystem::path site_record_path(const std::filesystem::path& tree);
std::filesystem::path ch4_tree_path(const std::filesystem::path& tree);

// TREE.latency_bytes: the alpha / beta tune ran hier with, beside its tree (one integer);
// install_site_tree records it unless the record names one.  Writing 0 removes it;
// reading gives 0 without one and throws UsageError for anything but an integer > 0.
std::filesystem::path latency_bytes_path(const std::filesystem::path& tree);
void write_tree_latency_bytes(const std::filesystem::path& tree, std::int64_t bytes);
std::int64_t read_tree_latency_bytes(const std::filesystem::path& tree);

// Checks the tree as MPI_Init checks an MPIR tree (and TREE.ch4, if there is one, as a
// CH4 tree) and copies each, with its record, into the prefix (each written beside its
// place and renamed over it; an installed CH4 tree of an earlier tree is removed); throws
// UsageError with the problems of a tree MPI_Init would refuse, installing nothing.
// record.tree_digest and .installed are filled in; returns the MPIR tree's record.
SiteRecord install_site_tree(const std::string& tree, const std::filesystem::path& prefix, SiteRecord record);

// The record beside an installed tree, if it reads as one (fields it lacks stay empty).
std::optional<SiteRecord> read_site_record(const std::filesystem::path& tree);

// Why MPI_Init of MPICH mpich_version refuses the installed tree (its record, its digest,
// its content), one line each; empty when it loads it.
std::vector<std::string> site_tree_problems(const std::filesystem::path& tree, const std::string& mpich_version);
// The same for the CH4 tree installed with it (ch4_tree_path(tree)), which must exist.
std::vector<std::string> site_ch4_tree_problems(const std::filesystem::path& tree, const std::string& mpich_version);

// Now, or a file's modification time, as ISO 8601 UTC ("2026-11-26T21:08:00Z").
std::string utc_now();
std::string utc_mtime(const std::filesystem::path& file);

}  // namespace hiertune
