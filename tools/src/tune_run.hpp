// `hiertune tune` (run WITHOUT mpiexec: it launches the MPI jobs itself), see
// lib/tune.hpp for the steps.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

#include "tune.hpp"

namespace hiertune {

// A step that failed; the message is one line naming the step.
class TuneError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs the steps; options.mpiexec (without a launcher) and stock_path must be
// resolved, options.machine may be empty (step 0's job names it).
// Returns 0; throws TuneError, UsageError, DbError, ValidationError.
int run_tune(TuneOptions options, const std::string& hiertune, std::ostream& out, std::ostream& err);

}  // namespace hiertune
