// `hiertune verify` (under mpiexec, run by `hiertune tune` with the tuned tree
// in MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): each case's collective is
// called on a duplicate of MPI_COMM_WORLD with the library's own selection,
// and the plugin's MPI_T counters (coll_hier_<coll>_hier_count, _segments)
// show whether hier ran, with how many segments; the data is checked.
#pragma once

#include <ostream>
#include <vector>

#include "hiertune/tune/tune_steps.hpp"

namespace hiertune {

// Runs on every rank; returns the exit status (same on all ranks): 0 when
// every case ran as expected with the right data, 1 otherwise.
int run_verify(const std::vector<VerifyCase>& cases, std::ostream& out, std::ostream& err);

}  // namespace hiertune
