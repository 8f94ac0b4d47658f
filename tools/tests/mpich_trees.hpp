// MPICH's shipped MPIR tree for the tests that read it, when a build is around:
// MPICH_GENERIC_JSON, else the usual places of the build tree; "" if none.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hiertune::test {

inline std::string generic_json() {
    if (const char* env = std::getenv("MPICH_GENERIC_JSON")) return env;
    for (const char* path : {"build/mpich-4.0.2/maint/tuning/coll/mpir/generic.json",
                             "../build/mpich-4.0.2/maint/tuning/coll/mpir/generic.json"})
        if (std::filesystem::exists(path)) return path;
    return "";
}

}  // namespace hiertune::test
