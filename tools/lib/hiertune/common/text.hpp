// hiertune: number and list formatting shared by the reports, tables and command lines.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace hiertune {

// value with `digits` digits after the point: fixed(1.25, 1) == "1.2" (printf rounding)
inline std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

// seconds in microseconds with `digits` digits after the point: microseconds(1.5e-5, 1) == "15.0"
inline std::string microseconds(double seconds, int digits = 2) { return fixed(seconds * 1e6, digits); }

// items with `separator` between them: join({"a", "b"}, ", ") == "a, b"
inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
    return text;
}

// items as a sentence lists them: spoken({"a", "b", "c"}, "or") == "a, b or c"
inline std::string spoken(const std::vector<std::string>& items, const std::string& conjunction) {
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i)
        text += (i == 0 ? "" : i + 1 == items.size() ? " " + conjunction + " " : ", ") + items[i];
    return text;
}

}  // namespace hiertune
