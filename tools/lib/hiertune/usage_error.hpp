// Errors in what the user asked for (options, sizes, algorithms, parameters).
//
// `hiertune` reports them as "hiertune: error: <message>" and exits with
// status 1; they are never a crash and never replaced by a silent default.
#pragma once

#include <stdexcept>

namespace hiertune {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace hiertune
