#include "hiertune/tree/collective.hpp"

#include <stdexcept>

namespace hiertune::grammar {

namespace {

struct KindNames {
    const char* name;  // "bcast"
    const char* mpi;   // "Bcast", as in MPI_Bcast
};

#define HIERTUNE_KIND_NAMES_(coll_, Coll_, COLL_) {#coll_, #Coll_},
constexpr KindNames kNames[] = {MPII_HIER_COLLECTIVES(HIERTUNE_KIND_NAMES_)};
#undef HIERTUNE_KIND_NAMES_

constexpr char kNonblockingPrefix[] = "i";  // MPI_Ibcast is "ibcast" in trees and CVARs

const KindNames& names_of(Collective::Kind kind) { return kNames[static_cast<int>(kind)]; }

}  // namespace

std::optional<Collective> Collective::find(std::string_view name) {
    const bool nonblocking = name.rfind(kNonblockingPrefix, 0) == 0;
    for (int k = 0; k < static_cast<int>(std::size(kNames)); ++k) {
        if (name == kNames[k].name) return Collective(static_cast<Kind>(k));
        if (nonblocking && name.substr(std::size(kNonblockingPrefix) - 1) == kNames[k].name)
            return Collective(static_cast<Kind>(k), true);
    }
    return std::nullopt;
}

Collective Collective::parse(std::string_view name) {
    if (const std::optional<Collective> found = find(name)) return *found;
    std::string known;
    for (const KindNames& names : kNames) known += std::string(known.empty() ? "" : ", ") + names.name;
    throw std::invalid_argument("'" + std::string(name) + "' is not a collective of the plugin (" + known +
                                ", or their non-blocking forms: i" + kNames[0].name + ", ...)");
}

std::string Collective::name() const {
    return (nonblocking_ ? std::string(kNonblockingPrefix) : std::string()) + names_of(kind_).name;
}

std::string Collective::mpi_function() const {
    return nonblocking_ ? "MPI_I" + std::string(names_of(kind_).name) : "MPI_" + std::string(names_of(kind_).mpi);
}

bool is_kind(const std::string& name, Collective::Kind kind) {
    const std::optional<Collective> found = Collective::find(name);
    return found && found->kind() == kind;
}

}  // namespace hiertune::grammar
