#include "hiertune/common/sizes.hpp"

#include <algorithm>
#include <charconv>

#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

[[noreturn]] void bad_size(std::string_view text, const std::string& why) {
    throw UsageError("message size '" + std::string(text) + "': " + why);
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    std::uint64_t value = 0;
    // from_chars accepts neither signs nor spaces, which is what we want.
    const auto [rest, error] = std::from_chars(begin, end, value);
    if (error == std::errc::result_out_of_range) bad_size(text, "too large");
    if (error != std::errc() || rest == begin)
        bad_size(text, "expected a byte count such as 4096, 64K or 4M");

    const std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
    unsigned shift = 0;
    if (suffix == "K" || suffix == "k")
        shift = 10;
    else if (suffix == "M" || suffix == "m")
        shift = 20;
    else if (suffix == "G" || suffix == "g")
        shift = 30;
    else if (!suffix.empty())
        bad_size(text, "unknown suffix '" + std::string(suffix) + "' (K, M or G)");

    if (value > (kMaxMessageBytes >> shift))
        bad_size(text, "larger than the maximum " + std::to_string(kMaxMessageBytes) + " bytes (1G)");
    return value << shift;
}

std::vector<std::uint64_t> osu_size_range(std::string_view spec) {
    std::uint64_t min = 1;
    std::string_view max_text = spec;
    if (const std::size_t colon = spec.find(':'); colon != std::string_view::npos) {
        if (spec.find(':', colon + 1) != std::string_view::npos)
            throw UsageError("message size range '" + std::string(spec) + "': expected [MIN:]MAX");
        min = parse_size(spec.substr(0, colon));
        max_text = spec.substr(colon + 1);
    }
    const std::uint64_t max = parse_size(max_text);
    if (min > max)
        throw UsageError("message size range '" + std::string(spec) + "': MIN is larger than MAX");

    std::vector<std::uint64_t> sizes;
    if (min == 0) {  // as OSU: 0, then the powers of two from 1
        sizes.push_back(0);
        min = 1;
    }
    for (std::uint64_t size = min; size <= max; size *= 2) sizes.push_back(size);
    return sizes;
}

std::vector<std::uint64_t> parse_size_list(std::string_view list) {
    std::vector<std::uint64_t> sizes;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        if (end == start)
            throw UsageError("message size list '" + std::string(list) + "': empty entry");
        sizes.push_back(parse_size(list.substr(start, end - start)));
        if (end == list.size()) return sizes;
        start = end + 1;
    }
}

std::vector<std::uint64_t> message_sizes(const std::string& range,
                                         const std::vector<std::string>& size_lists) {
    std::vector<std::uint64_t> sizes;
    if (!range.empty() || size_lists.empty())
        sizes = osu_size_range(range.empty() ? kDefaultSizeRange : range);
    for (const std::string& list : size_lists)
        for (std::uint64_t size : parse_size_list(list)) sizes.push_back(size);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::uint64_t uneven_block(int rank, int size, std::uint64_t bytes) {
    if (rank % 2 == 0 && rank == size - 1) return bytes;  // an odd size's last rank has no pair
    return rank % 2 == 0 ? bytes + bytes / 2 : bytes - bytes / 2;
}

}  // namespace hiertune
