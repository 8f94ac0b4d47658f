#include "command_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include "hiertune/common/cluster_env.hpp"
#include "hiertune/common/usage_error.hpp"
#include "hiertune/tree/csel_tree.hpp"

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

std::string mpich_ch4_generic_json() { return csel::ch4_generic_beside(mpich_generic_json()); }

namespace {

CLI::Validator number_check(const std::function<bool(double)>& ok, const std::string& what) {
    return CLI::Validator(
        [ok, what](std::string& text) {
            double value = 0;
            if (CLI::detail::lexical_cast(text, value) && ok(value)) return std::string();
            return "'" + text + "' is not a number " + what;
        },
        what);
}

std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

}  // namespace

CLI::Validator positive_number() {
    return number_check([](double value) { return value > 0; }, "> 0");
}

CLI::Validator non_negative_number() {
    return number_check([](double value) { return value >= 0; }, ">= 0");
}

CLI::Validator number_between(double min, double max) {
    return number_check([min, max](double value) { return value >= min && value <= max; },
                        "from " + number_text(min) + " to " + number_text(max));
}

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
        ->check(non_negative_number())  // CLI11 reads "-3" into a size_t as 2^64 - 3
        ->capture_default_str();
    command.add_option("--min-reps", args.min_reps, "Repetitions before a " + what + " may stop")
        ->check(positive_number())
        ->capture_default_str();
    command.add_option("-i,--max-reps", args.max_reps, "Cap on repetitions per " + what)
        ->check(positive_number())
        ->capture_default_str();
    command.add_option("--precision", args.precision_percent,
                       "Stop when the 95% CI half-width of the median is within this percentage of it")
        ->check(number_between(0.001, 100))
        ->capture_default_str();
    command.add_option("--max-time", args.max_time, time_help)->check(non_negative_number())->capture_default_str();
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

void require_stock_path(const std::string& path, const std::string& option) {
    if (path.empty())
        throw UsageError(option + ": this hiertune knows no MPICH build tree; name MPICH's maint/tuning/coll/" +
                         (option == "--stock" ? "mpir" : "ch4") + "/generic.json");
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

std::string one_line(const std::string& text) {
    std::string line;
    bool next_line = false;
    for (const char c : text) {
        if (c == '\n' || c == '\r') {
            next_line = true;
            continue;
        }
        if (next_line) {  // its indentation dropped, joined by "; " unless the last one ends in ':' or ';'
            if (c == ' ' || c == '\t') continue;
            while (!line.empty() && line.back() == ' ') line.pop_back();
            if (!line.empty()) line += line.back() == ':' || line.back() == ';' ? " " : "; ";
            next_line = false;
        }
        line += c;
    }
    return line;
}

void write_error_line(std::ostream& out, const std::string& message) {
    out << "hiertune: error: " << one_line(message) << '\n';
}

int print_error(const std::string& message) {
    write_error_line(std::cerr, message);
    return kBadInputStatus;
}

int print_failure(const std::string& message) {
    write_error_line(std::cerr, message);
    return 1;
}

}  // namespace hiertune
