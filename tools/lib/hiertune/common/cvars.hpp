// MPI_T control variables as `hiertune` sees them, independent of MPI.
//
// The MPI side (tools/src/mpi_cvars.cpp) fills a CvarCatalog from MPI_T at
// run time; everything that validates user input against it lives here, so
// it is unit-tested with hand-made catalogues.  Nothing about algorithms or
// parameters is hard-coded: a new algorithm is a new item of an enum cvar, a
// new parameter a new cvar.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hiertune {

// The MPI_T datatypes hiertune reads and writes (count 1, no object binding).
enum class CvarType {
    int_,                // MPI_INT (also MPICH's booleans)
    unsigned_,           // MPI_UNSIGNED
    unsigned_long,       // MPI_UNSIGNED_LONG
    unsigned_long_long,  // MPI_UNSIGNED_LONG_LONG
    double_,             // MPI_DOUBLE
    enumeration,         // MPI_INT with an MPI_T enum
    unsupported,         // strings, ranges, bound to objects, ...: readable by name only
};

struct EnumItem {
    std::string name;
    int value = 0;
};

struct CvarInfo {
    std::string name;
    CvarType type = CvarType::unsupported;
    std::string unsupported_why;  // for messages, when type is unsupported
    std::vector<EnumItem> items;  // enumeration only, in MPI_T order
    bool writable = true;         // false for MPI_T_SCOPE_CONSTANT / READONLY
    int index = -1;               // MPI_T index; opaque here
};

// A value ready to write: canonical text plus its binary form.
struct CvarValue {
    std::string text;           // enum item name, or the decimal number
    std::int64_t integer = 0;   // every type but double_
    double real = 0;            // double_
};
bool operator==(const CvarValue& a, const CvarValue& b);

class CvarCatalog {
public:
    void add(CvarInfo info);  // replaces a variable of the same name
    std::size_t size() const { return by_name_.size(); }

    // Exact MPI_T name, or nullptr.
    const CvarInfo* find(std::string_view name) const;

    // The variable a user means: its exact name, or the name without the
    // MPIR_CVAR_ prefix in any case (bcast_hier_segsize).  Throws UsageError
    // naming close matches when there is none.
    const CvarInfo& lookup(std::string_view user_name) const;

private:
    std::map<std::string, CvarInfo, std::less<>> by_name_;
};

// Control variables MPI_T lists as writable but MPICH reads only in MPI_Init
// (a run-time write changes nothing): they must come from the environment.
bool set_at_init_only(std::string_view cvar_name);

// Throws UsageError unless hiertune can write the variable at run time (and
// the write takes effect); the message says to set it in the environment
// where MPICH would read it there.
void require_writable(const CvarInfo& info);

// Parses a user's value: enum item names (any case), integers in the
// type's range with an optional binary suffix (64K, 4M, 1G; true/false
// accepted as 1/0 for MPI_INT), finite doubles.
// Throws UsageError naming the variable and, for enums, the valid items.
CvarValue parse_cvar_value(const CvarInfo& info, std::string_view text);

// The value as read from MPI_T, with canonical text (item name for enums).
CvarValue cvar_value_from_integer(const CvarInfo& info, std::int64_t integer);
CvarValue cvar_value_from_real(double real);

// The values a user's value text stands for: "all" on an enum gives every
// item, anything else itself (canonicalised).  Throws UsageError.
std::vector<std::string> expand_cvar_values(const CvarInfo& info, std::string_view text);

// "a, b, c" of the item names.
std::string enum_item_list(const CvarInfo& info);

// Enum items where MPI_T has none (MPICH 5.0.1, as 4.0.2, registers its enum variables
// with MPI_T_ENUM_NULL).  The table comes from the MPICH build hiertune is
// compiled against (tools/gen-cvar-enums.sh): one "NAME item item ..." line
// per variable, items in value order 0, 1, ...  Throws std::invalid_argument
// on a malformed line or a name given twice.
std::map<std::string, std::vector<std::string>> parse_enum_table(std::string_view text);

// Whether an MPICH control-variable description ("<header>item   - meaning
// item2 - meaning ...", the lines glued without separators) lists exactly
// these items in this order: each is followed by spaces and "- ", and there
// are no other such entries.  Guards against a table from another build.
bool description_lists_items(std::string_view description, const std::vector<std::string>& items);

}  // namespace hiertune
