// Errors in what the user asked for (options, sizes, algorithms, parameters, files).
//
// `hiertune` reports bad input as one line "hiertune: error: <message>" and exits
// with kBadInputStatus; it is never a crash and never replaced by a silent default.
#pragma once

#include <stdexcept>

namespace hiertune {

// The exit status of bad input: the command line, a missing or unreadable file, a
// database or tree hiertune cannot use (tools/README.md).  Status 1 stays for a job,
// a measurement or a check that failed, so that a script can tell the two apart.
constexpr int kBadInputStatus = 2;

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace hiertune
