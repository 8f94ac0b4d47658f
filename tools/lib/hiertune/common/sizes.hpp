// Message sizes of `hiertune bench`.
//
//   -m [MIN:]MAX     OSU style: MIN, 2*MIN, 4*MIN, ... <= MAX (MIN 0 gives 0, 1, 2, 4, ...)
//   --sizes A,B,...  explicit sizes, e.g. 3,1000,65537 (non-powers of two)
//
// A size is a byte count with an optional binary suffix: 4096, 64K, 4M, 1G.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hiertune {

// Largest message: 1 GiB, far below the int count limit of MPI calls.
constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 30;

// OSU's default range for the collective latency tests.
constexpr const char* kDefaultSizeRange = "1:1048576";

// One size, e.g. "65537", "64K", "4M".  Throws UsageError.
std::uint64_t parse_size(std::string_view text);

// "[MIN:]MAX" (MIN defaults to 1) expanded OSU style.  Throws UsageError.
std::vector<std::uint64_t> osu_size_range(std::string_view spec);

// "3,1000,65537": comma-separated sizes, none empty.  Throws UsageError.
std::vector<std::uint64_t> parse_size_list(std::string_view list);

// The sizes to measure, ascending and without duplicates: the union of the
// range (if not empty) and the explicit size lists; kDefaultSizeRange when
// both are empty.  Throws UsageError.
std::vector<std::uint64_t> message_sizes(const std::string& range,
                                         const std::vector<std::string>& size_lists);

// Rank `rank`'s block of MPI_Gatherv and MPI_Scatterv (and their non-blocking forms) as
// bench, verify and overlap call them with a size of `bytes` per rank on `size` ranks:
// the ranks of each pair (2k, 2k + 1) hold bytes + bytes / 2 and bytes - bytes / 2, the
// last rank of an odd size `bytes`, so that the counts differ (from 2 bytes on: a call
// that takes every count alike fails the data check) while they add up to size x bytes,
// as gather's blocks do; rank 0's is the largest.
std::uint64_t uneven_block(int rank, int size, std::uint64_t bytes);

}  // namespace hiertune
