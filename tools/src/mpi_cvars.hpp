// The running MPI library's control variables, through MPI_T.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <mpi.h>

#include "hiertune/common/cvars.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

// Needs MPI_T initialised for its whole lifetime.
class MpiCvars {
public:
    MpiCvars();  // discovers every variable into catalog()
    ~MpiCvars();
    MpiCvars(const MpiCvars&) = delete;
    MpiCvars& operator=(const MpiCvars&) = delete;

    const CvarCatalog& catalog() const { return catalog_; }

    // Allocates handles for the variables; throws UsageError unless each is
    // a writable scalar hiertune supports.
    void prepare(const std::set<std::string>& names);
    // Prepared variables only.  Throw std::runtime_error on MPI_T failures.
    CvarValue read(const std::string& name) const;
    // Any single-valued variable hiertune can represent, writable or not
    // (those MPICH reads only in MPI_Init included), without preparing it.
    CvarValue read_once(const std::string& name) const;
    void write(const std::string& name, const CvarValue& value);
    // Writes the variables of `wanted` whose value differs from `current` (what was
    // last written, or found), and updates `current`: switching configurations
    // touches only what changes.
    void write_changed(const std::map<std::string, CvarValue>& wanted,
                       std::map<std::string, CvarValue>& current);
    // The same on every rank (collective), where MPI_T may refuse a value (e.g. a
    // negative segment size): "" when every rank wrote everything, else this rank's
    // error or "refused on another rank", alike on all, so that they stop together.
    std::string write_changed_on_all(const std::map<std::string, CvarValue>& wanted,
                                     std::map<std::string, CvarValue>& current);

private:
    const CvarInfo& info(const std::string& name) const;
    CvarValue read_handle(const CvarInfo& cvar, MPI_T_cvar_handle handle) const;

    CvarCatalog catalog_;
    std::map<std::string, MPI_T_cvar_handle> handles_;
};

// Prepares the variables the configurations touch and returns their values
// now (what to put back at the end).  Every configuration's assignment is
// checked here, before anything is measured: throws UsageError on a bad one.
std::map<std::string, CvarValue> prepare_configurations(MpiCvars& cvars,
                                                        const std::vector<Configuration>& configurations);

}  // namespace hiertune
