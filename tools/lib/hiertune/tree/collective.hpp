// A collective as MPICH's selection trees and CVARs name it ("collective=bcast",
// MPIR_CVAR_IBCAST_INTRA_ALGORITHM): one the plugin has algorithms for, blocking or its
// non-blocking form.  The kinds come from hier_grammar.h's MPII_HIER_COLLECTIVES, where each
// name is written once; the tools branch on this type, not on names typed as strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hier_grammar.h"

namespace hiertune::grammar {

class Collective {
public:
#define HIERTUNE_COLLECTIVE_KIND_(coll_, Coll_, COLL_) coll_,
    enum Kind { MPII_HIER_COLLECTIVES(HIERTUNE_COLLECTIVE_KIND_) };
#undef HIERTUNE_COLLECTIVE_KIND_

    // Implicit from a kind, so that Collective::bcast is the blocking MPI_Bcast.
    constexpr Collective(Kind kind, bool nonblocking = false) : kind_(kind), nonblocking_(nonblocking) {}

    // "bcast" or "ibcast" (MPI's I prefix) of a kind; nullopt for any other name.
    static std::optional<Collective> find(std::string_view name);
    // The same; throws std::invalid_argument that lists the names for any other.
    static Collective parse(std::string_view name);

    constexpr Kind kind() const { return kind_; }
    constexpr bool nonblocking() const { return nonblocking_; }
    // Its blocking form: the buffers, data and message size of both forms.
    constexpr Collective blocking() const { return Collective(kind_); }
    // The name in trees and CVARs: "bcast", "ibcast".
    std::string name() const;
    // MPI's function: "MPI_Bcast", "MPI_Ibcast".
    std::string mpi_function() const;

    friend constexpr bool operator==(Collective a, Collective b) {
        return a.kind_ == b.kind_ && a.nonblocking_ == b.nonblocking_;
    }
    friend constexpr bool operator!=(Collective a, Collective b) { return !(a == b); }
    // A name held as text (a database row, a command-line word) is the collective when
    // it is its exact name ("ibcast" is not Collective::bcast).
    friend bool operator==(const std::string& name, Collective c) { return name == c.name(); }
    friend bool operator!=(const std::string& name, Collective c) { return !(name == c); }
    // to_string(Collective::allgather) where a function takes the name as text
    friend std::string to_string(Collective c) { return c.name(); }

private:
    Kind kind_;
    bool nonblocking_;
};

// Whether a name held as text is a collective of this kind in either form ("ibcast" and
// "bcast" are bcast's; is_kind(name, Collective::barrier): no message size); false for a
// name that is no collective's.
bool is_kind(const std::string& name, Collective::Kind kind);

}  // namespace hiertune::grammar
