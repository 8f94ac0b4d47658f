// The parameter codec: an algorithm configuration's parameters as the one text
// column the measurement database stores them in ("k=v;k=v", keys sorted), and
// back.  The canonical text is part of the points' and tasks' primary keys, so
// equal parameter sets always encode to the same text.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace hiertune {

// Algorithm parameters, e.g. {"segsize", "65536"}, {"tree", "knomial"}.
// Keys must be non-empty; neither keys nor values may contain ';' or '='.
using Params = std::map<std::string, std::string>;

// "k=v;k=v" with keys sorted; "" for no parameters.  Throws std::invalid_argument.
std::string canonical_params(const Params& params);
// Inverse of canonical_params (accepts any key order).  Throws std::invalid_argument.
Params parse_params(std::string_view text);

}  // namespace hiertune
