#include "hiertune/common/cvars.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

constexpr std::string_view kPrefix = "MPIR_CVAR_";

std::string upper(std::string_view text) {
    std::string result(text);
    for (char& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return result;
}

bool iequal(std::string_view a, std::string_view b) { return upper(a) == upper(b); }

template <typename Integer>
bool parse_integer(std::string_view text, Integer& value) {
    const char* const end = text.data() + text.size();
    const auto [rest, error] = std::from_chars(text.data(), end, value);
    return error == std::errc() && rest == end && !text.empty();
}

[[noreturn]] void bad_value(const CvarInfo& info, std::string_view text, const std::string& expected) {
    throw UsageError("invalid value '" + std::string(text) + "' for " + info.name + ": expected " +
                     expected);
}

// Integer in [lo, hi], as int64.
std::int64_t parse_ranged(const CvarInfo& info, std::string_view text, std::int64_t lo,
                          std::uint64_t hi, const char* what) {
    if (info.type == CvarType::int_) {
        if (iequal(text, "true")) return 1;
        if (iequal(text, "false")) return 0;
    }
    // A binary suffix (64K, 4M, 1G) suits the many size variables.
    int shift = 0;
    if (!text.empty()) {
        const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
        shift = last == 'K' ? 10 : last == 'M' ? 20 : last == 'G' ? 30 : 0;
    }
    std::int64_t value = 0;
    const bool parsed = parse_integer(shift ? text.substr(0, text.size() - 1) : text, value) &&
                        (value >= 0 || !shift) &&
                        value <= (std::numeric_limits<std::int64_t>::max() >> shift);
    if (parsed) value <<= shift;  // non-negative when shifted, checked above
    if (!parsed || value < lo || (value > 0 && static_cast<std::uint64_t>(value) > hi)) {
        std::ostringstream expected;
        expected << what << " in [" << lo << ", " << hi << "]";
        bad_value(info, text, expected.str());
    }
    return value;
}

}  // namespace

bool operator==(const CvarValue& a, const CvarValue& b) {
    return a.text == b.text && a.integer == b.integer && a.real == b.real;
}

void CvarCatalog::add(CvarInfo info) {
    std::string name = info.name;
    by_name_[std::move(name)] = std::move(info);
}

const CvarInfo* CvarCatalog::find(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second;
}

const CvarInfo& CvarCatalog::lookup(std::string_view user_name) const {
    if (const CvarInfo* info = find(user_name)) return *info;
    std::string full = upper(user_name);
    if (full.compare(0, kPrefix.size(), kPrefix) != 0) full.insert(0, kPrefix);
    if (const CvarInfo* info = find(full)) return *info;

    // Close matches: names containing what was typed (without the prefix).
    std::string typed = upper(user_name);
    if (typed.compare(0, kPrefix.size(), kPrefix) == 0) typed.erase(0, kPrefix.size());
    std::vector<std::string> similar;
    if (!typed.empty())
        for (const auto& [name, info] : by_name_)
            if (name.find(typed) != std::string::npos && similar.size() < 6) similar.push_back(name);
    std::string message = "unknown MPI_T control variable '" + std::string(user_name) + "'";
    if (!similar.empty()) {
        message += " (similar: ";
        for (std::size_t i = 0; i < similar.size(); ++i) message += (i ? ", " : "") + similar[i];
        message += ")";
    }
    throw UsageError(message);
}

bool set_at_init_only(std::string_view cvar_name) {
    // the progress thread is started (or not) in MPI_Init; VCIs are created there
    static const std::vector<std::string_view> names{"MPIR_CVAR_ASYNC_PROGRESS", "MPIR_CVAR_CH4_NUM_VCIS"};
    return std::find(names.begin(), names.end(), cvar_name) != names.end();
}

void require_writable(const CvarInfo& info) {
    const std::string use_env = "; set it in the environment instead (" + info.name + "=V mpiexec ...)";
    if (info.type == CvarType::unsupported)
        throw UsageError(info.name + " cannot be set by hiertune (" + info.unsupported_why + ")");
    if (!info.writable)
        throw UsageError(info.name + " is read-only at run time (MPI_T scope constant or readonly)" + use_env);
    if (set_at_init_only(info.name))
        throw UsageError(info.name + " cannot be set at run time: MPICH reads it only in MPI_Init" + use_env);
}

std::string enum_item_list(const CvarInfo& info) {
    std::string list;
    for (const EnumItem& item : info.items) list += (list.empty() ? "" : ", ") + item.name;
    return list;
}

CvarValue parse_cvar_value(const CvarInfo& info, std::string_view text) {
    require_writable(info);
    CvarValue value;
    switch (info.type) {
        case CvarType::enumeration: {
            const auto it = std::find_if(info.items.begin(), info.items.end(),
                                         [&](const EnumItem& item) { return iequal(item.name, text); });
            if (it == info.items.end()) bad_value(info, text, "one of " + enum_item_list(info));
            value.text = it->name;
            value.integer = it->value;
            return value;
        }
        case CvarType::int_:
            value.integer = parse_ranged(info, text, std::numeric_limits<int>::min(),
                                         std::numeric_limits<int>::max(), "an integer");
            break;
        case CvarType::unsigned_:
            value.integer = parse_ranged(info, text, 0, std::numeric_limits<unsigned>::max(),
                                         "an unsigned integer");
            break;
        case CvarType::unsigned_long:
        case CvarType::unsigned_long_long:
            // int64 carries the value; larger settings are not meaningful here
            value.integer = parse_ranged(info, text, 0, std::numeric_limits<std::int64_t>::max(),
                                         "an unsigned integer");
            break;
        case CvarType::double_: {
            double real = 0;
            const char* const end = text.data() + text.size();
            const auto [rest, error] = std::from_chars(text.data(), end, real);
            if (error != std::errc() || rest != end || text.empty() || !std::isfinite(real))
                bad_value(info, text, "a number");
            return cvar_value_from_real(real);
        }
        case CvarType::unsupported:
            break;  // require_writable threw
    }
    value.text = std::to_string(value.integer);
    return value;
}

CvarValue cvar_value_from_integer(const CvarInfo& info, std::int64_t integer) {
    CvarValue value;
    value.integer = integer;
    value.text = std::to_string(integer);
    for (const EnumItem& item : info.items)
        if (item.value == integer) value.text = item.name;
    return value;
}

CvarValue cvar_value_from_real(double real) {
    CvarValue value;
    value.real = real;
    std::ostringstream text;
    text.precision(17);
    text << real;
    value.text = text.str();
    return value;
}

std::vector<std::string> expand_cvar_values(const CvarInfo& info, std::string_view text) {
    require_writable(info);
    if (info.type == CvarType::enumeration && iequal(text, "all")) {
        std::vector<std::string> names;
        for (const EnumItem& item : info.items) names.push_back(item.name);
        return names;
    }
    return {parse_cvar_value(info, text).text};
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Position just past the next "<identifier char><spaces>- " entry marker at
// or after `from` whose identifier ends with `name` (any name if empty), or npos.
std::size_t next_entry(std::string_view text, std::size_t from, std::string_view name) {
    for (std::size_t dash = text.find("- ", from); dash != std::string_view::npos;
         dash = text.find("- ", dash + 1)) {
        std::size_t end = dash;  // one past the identifier
        while (end > from && text[end - 1] == ' ') --end;
        if (end == dash || end == from || !identifier_char(text[end - 1])) continue;
        if (name.empty()) return dash + 2;
        // The description text before an item may be glued to it ("Treenb"),
        // but never by '_': "sched_binomial" is not "binomial".
        const std::size_t start = end - std::min(end - from, name.size());
        if (text.substr(start, end - start) == name && (start == 0 || text[start - 1] != '_'))
            return dash + 2;
    }
    return std::string_view::npos;
}

}  // namespace

std::map<std::string, std::vector<std::string>> parse_enum_table(std::string_view text) {
    std::map<std::string, std::vector<std::string>> table;
    std::istringstream lines{std::string(text)};
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string name;
        if (!(words >> name)) continue;  // blank line
        std::vector<std::string> items;
        for (std::string item; words >> item;) items.push_back(item);
        if (items.empty()) throw std::invalid_argument("enum table: no items for " + name);
        if (!table.emplace(name, std::move(items)).second)
            throw std::invalid_argument("enum table: " + name + " given twice");
    }
    return table;
}

bool description_lists_items(std::string_view description, const std::vector<std::string>& items) {
    std::size_t position = 0;
    for (const std::string& item : items) {
        position = next_entry(description, position, item);
        if (position == std::string_view::npos) return false;
    }
    std::size_t entries = 0;
    for (std::size_t at = next_entry(description, 0, ""); at != std::string_view::npos;
         at = next_entry(description, at, ""))
        ++entries;
    return entries == items.size();
}

}  // namespace hiertune
