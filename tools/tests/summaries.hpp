// Summaries for the tests: every statistic one time, as if each sample took it.
#pragma once

#include <cstddef>

#include "hiertune/common/stats.hpp"

namespace hiertune::test {

// A converged summary of n samples of `seconds` each.
inline Summary exact_summary(double seconds, std::size_t n) {
    Summary s;
    s.n = n;
    s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = seconds;
    s.converged = true;
    return s;
}

}  // namespace hiertune::test
