// hiertune: number formatting shared by the reports and tables.
#pragma once

#include <cstdio>
#include <string>

namespace hiertune {

// value with `digits` digits after the point: fixed(1.25, 1) == "1.2" (printf rounding)
inline std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

}  // namespace hiertune
