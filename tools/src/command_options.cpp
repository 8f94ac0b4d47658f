#include "command_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "hiertune/cluster_env.hpp"
#include "hiertune/usage_error.hpp"

// Set by Makefile.am; read only here, so that the defaults in the headers (mpich_prefix())
// are the same in every file that includes them.
#ifndef HIERTUNE_MPICH_PREFIX
#define HIERTUNE_MPICH_PREFIX ""
#endif
#ifndef HIERTUNE_GENERIC_JSON
#define HIERTUNE_GENERIC_JSON ""
#endif

namespace hiertune {

std::string mpich_prefix() { return HIERTUNE_MPICH_PREFIX; }

std::string mpich_generic_json() { return HIERTUNE_GENERIC_JSON; }

void add_output_flags(CLI::App& command, OutputFlags& flags) {
    auto* json = command.add_flag("--json", flags.json, "JSON Lines: one object per point");
    auto* csv = command.add_flag("--csv", flags.csv, "CSV with a header line");
    json->excludes(csv);
}

StoppingRule StoppingArgs::rule(bool min_reps_given) const {
    if (min_reps_given && min_reps > max_reps) throw UsageError("--min-reps must not exceed --max-reps");
    StoppingRule rule;
    rule.warmup_reps = warmup;
    rule.min_reps = std::min(min_reps, max_reps);  // a small -i lowers the default
    rule.max_reps = max_reps;
    rule.precision = precision_percent / 100;
    return rule;
}

void add_stopping_options(CLI::App& command, StoppingArgs& args, const std::string& what,
                          const std::string& time_help) {
    command.add_option("-x,--warmup", args.warmup, "Warm-up repetitions per " + what + " (not recorded)")
        ->capture_default_str();
    command.add_option("--min-reps", args.min_reps, "Repetitions before a " + what + " may stop")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    command.add_option("-i,--max-reps", args.max_reps, "Cap on repetitions per " + what)
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    command.add_option("--precision", args.precision_percent,
                       "Stop when the 95% CI half-width of the median is within this percentage of it")
        ->check(CLI::Range(0.001, 100.0))
        ->capture_default_str();
    command.add_option("--max-time", args.max_time, time_help)->check(CLI::NonNegativeNumber)->capture_default_str();
}

void refuse_cliques(bool allowed) {
    if (allowed) return;
    if (const std::optional<std::string> why = cliques_refusal(std::getenv(kNumCliquesEnv))) throw UsageError(*why);
}

void add_allow_cliques_flag(CLI::App& command, bool& allowed) {
    command.add_flag(kAllowCliquesFlag, allowed,
                     std::string("Run even on emulated nodes (") + kNumCliquesEnv +
                         " > 1): their timings measure the scheduler, for correctness runs only");
}

std::string machine_help() {
    return std::string("Machine name of the job in the database (default: ") + kMachineEnv +
           ", else rank 0's processor name)";
}

void require_stock_path(const std::string& path) {
    if (path.empty())
        throw UsageError("--stock: this hiertune knows no MPICH build tree; name MPICH's "
                         "maint/tuning/coll/mpir/generic.json");
}

std::string mpiexec_or_default(const std::string& given, bool launcher_given) {
    return given.empty() && !launcher_given ? mpich_prefix() + "/bin/mpiexec" : given;
}

std::string own_path(const char* argv0) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) return self.string();
    return std::filesystem::absolute(argv0).string();
}

int print_error(const std::string& message) {
    std::cerr << "hiertune: error: " << message << '\n';
    return 1;
}

}  // namespace hiertune
