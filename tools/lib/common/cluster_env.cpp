#include "hiertune/common/cluster_env.hpp"

#include <cctype>
#include <cstdlib>

namespace hiertune {

std::string env_text(const char* value) { return value ? std::string(value) : std::string(); }

std::string machine_name(const std::string& given, const char* env) {
    if (!given.empty()) return given;
    return env_text(env);
}

std::string cliques_error(const std::string& setting) {
    return setting +
           ": emulated nodes share one host's cores, so timings measure the scheduler, not the network; run on "
           "the emulated cluster (maint/emucluster run) or a real one, or pass " +
           kAllowCliquesFlag + " for correctness runs";
}

std::optional<std::string> cliques_refusal(const char* value) {
    if (!value || !*value) return std::nullopt;
    char* end = nullptr;
    const long cliques = std::strtol(value, &end, 10);
    if (end == value) return std::nullopt;  // not a number: MPICH's business
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (*end != '\0') return std::nullopt;
    if (cliques <= 1) return std::nullopt;  // an overflow reads LONG_MAX: refused
    return cliques_error(std::string(kNumCliquesEnv) + "=" + value);
}

}  // namespace hiertune
