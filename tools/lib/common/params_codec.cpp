#include "hiertune/common/params_codec.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hiertune {

namespace {

void check_param_token(const std::string& token, bool is_key) {
    if (is_key && token.empty()) throw std::invalid_argument("empty parameter name");
    if (token.find_first_of(";=") != std::string::npos)
        throw std::invalid_argument("parameter " + std::string(is_key ? "name" : "value") + " '" +
                                    token + "' contains ';' or '='");
}

}  // namespace

std::string canonical_params(const Params& params) {
    std::string text;
    for (const auto& [key, value] : params) {  // std::map iterates in key order
        check_param_token(key, true);
        check_param_token(value, false);
        if (!text.empty()) text += ';';
        text += key + '=' + value;
    }
    return text;
}

Params parse_params(std::string_view text) {
    Params params;
    if (text.empty()) return params;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(text.find(';', start), text.size());
        const std::string_view item = text.substr(start, end - start);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw std::invalid_argument("parameter '" + std::string(item) + "' has no '='");
        std::string key(item.substr(0, eq));
        std::string value(item.substr(eq + 1));
        check_param_token(key, true);
        check_param_token(value, false);
        if (!params.emplace(std::move(key), std::move(value)).second)
            throw std::invalid_argument("parameter '" + std::string(item.substr(0, eq)) +
                                        "' given twice");
        if (end == text.size()) break;
        start = end + 1;
    }
    return params;
}

}  // namespace hiertune
