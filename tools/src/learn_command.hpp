// `hiertune learn` (run WITHOUT mpiexec: it launches `hiertune bench` jobs
// itself): ACCLAiM's active learning over nodes x ppn x size x configuration,
// one collective after the other, then the Csel tree of the learned
// predictions.  The MPI-free parts are lib/hiertune/models/learn.hpp (the learner)
// and lib/hiertune/tune/learn_run.hpp (jobs, read-back, resume, tree input).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "hiertune/tune/learn_run.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

// The configurations of each collective, as bench plans them
// (plan_configurations over the MPI_T catalogue: MPI_T is initialised in this
// process, MPI is not; once, as MPICH 4.0.2 could not set MPI_T up again after
// MPI_T_finalize).  Throws UsageError as plan_configurations.
std::vector<std::vector<Configuration>> plan_learn_configurations(const std::vector<std::string>& collectives,
                                                                  const std::vector<AlgorithmSpec>& algorithms,
                                                                  const std::vector<ParamSpec>& params);

// Learns each collective of options.collectives over its configurations
// (`configurations[i]` for collectives[i]), then writes the tree (unless
// collect_only).  Per iteration one line (iteration_line); the bench jobs'
// command lines as "$ ..." (their tables are not shown: the medians are read
// from the database).  Returns 0; throws UsageError, TuneError (a job that
// failed), DbError, csel::TreeError.
int run_learn(const LearnRunOptions& options, const std::vector<std::vector<Configuration>>& configurations,
              const std::string& hiertune, std::ostream& out);

}  // namespace hiertune
