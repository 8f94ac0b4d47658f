// The environment hiertune reads: what a cluster launcher (maint/emucluster
// run) exports into every rank, and MPICH's emulated nodes on one host.
#pragma once

#include <optional>
#include <string>

namespace hiertune {

// Exported by maint/emucluster run into every rank's environment.
constexpr const char* kMachineEnv = "HIERTUNE_MACHINE";     // machine name of the job in the database
constexpr const char* kClusterEnv = "HIERTUNE_CLUSTER";     // one line describing the cluster
constexpr const char* kLinkRateEnv = "HIERTUNE_LINK_RATE";  // node link rate in bytes/s
// MPICH: N emulated nodes ("cliques") sharing one host.
constexpr const char* kNumCliquesEnv = "MPIR_CVAR_NUM_CLIQUES";
// The flag that lets a performance command run on cliques anyway.
constexpr const char* kAllowCliquesFlag = "--allow-cliques";

// An environment value as text: "" when unset (null).
std::string env_text(const char* value);

// The machine name of a job: `given` (--machine) unless empty, else `env`
// (HIERTUNE_MACHINE) unless unset or empty, else "" (the caller falls back to
// rank 0's processor name).
std::string machine_name(const std::string& given, const char* env);

// The error of a performance command asked to time emulated cliques;
// `setting` names what asked for them ("MPIR_CVAR_NUM_CLIQUES=4", "--nodes 4").
std::string cliques_error(const std::string& setting);

// cliques_error when MPIR_CVAR_NUM_CLIQUES (`value`) asks for more than one
// clique; nullopt when it is unset, empty, 0, 1 or not a number.
std::optional<std::string> cliques_refusal(const char* value);

}  // namespace hiertune
