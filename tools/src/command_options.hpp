// What several command modules (*_cli.cpp) bind or check alike: output format
// flags, the stopping rule of a measurement, the refusal of emulated cliques,
// the MPICH this hiertune is built against, and how errors are reported.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/common/stats.hpp"

namespace hiertune {

// Checks of numeric options, for CLI11's check(): CLI::Range lets "nan" through (every
// comparison with it is false) and CLI::PositiveNumber names DBL_MAX in all its digits.
// A failed check reads "--OPTION: 'TEXT' is not a number > 0".
CLI::Validator positive_number();
CLI::Validator non_negative_number();
CLI::Validator number_between(double min, double max);

// --json / --csv (default: the OSU table).
struct OutputFlags {
    bool json = false;
    bool csv = false;
    OutputFormat format() const { return json ? OutputFormat::json : csv ? OutputFormat::csv : OutputFormat::osu; }
};
void add_output_flags(CLI::App& command, OutputFlags& flags);

// The stopping rule of a measurement (bench's points, calibrate's measurements): the
// same five options, parsed into lib/stats' StoppingRule and a time cap.
struct StoppingArgs {
    std::size_t warmup;
    std::size_t min_reps = 10;
    std::size_t max_reps = 1000;
    double precision_percent = 2.5;
    double max_time = 5;

    explicit StoppingArgs(std::size_t default_warmup) : warmup(default_warmup) {}

    // min_reps_given: --min-reps was on the command line (else a small -i lowers it).
    // Throws UsageError.
    StoppingRule rule(bool min_reps_given) const;
};
// `what`: "point", "measurement"; `time_help`: the --max-time help.
void add_stopping_options(CLI::App& command, StoppingArgs& args, const std::string& what,
                          const std::string& time_help);

// Performance commands refuse emulated cliques unless --allow-cliques.  Throws UsageError.
void refuse_cliques(bool allowed);
void add_allow_cliques_flag(CLI::App& command, bool& allowed);

// The MPICH this hiertune is built against (Makefile.am): its prefix, and its build's
// stock tree maint/tuning/coll/mpir/generic.json ("" for a hiertune built without one).
std::string mpich_prefix();
std::string mpich_generic_json();
// Its CH4 stock tree, maint/tuning/coll/ch4/generic.json beside the MPIR one ("" likewise).
std::string mpich_ch4_generic_json();

// The --machine help of the MPI commands.
std::string machine_help();

// --stock of tune and learn (and tune's --ch4-stock): the default is the MPICH build's
// generic.json, which a hiertune built without that tree does not know.  Throws
// UsageError when empty.
void require_stock_path(const std::string& path, const std::string& option = "--stock");

// The mpiexec of the jobs of tune, tree-timing and learn: the given one, else (without
// a launcher) the one of the MPICH this hiertune is built against.
std::string mpiexec_or_default(const std::string& given, bool launcher_given);

// This program's path, for the jobs it launches (/proc/self/exe, else argv[0] made absolute).
std::string own_path(const char* argv0);

// Errors end a command with one line, which a script's `tail -1` or a grep finds whole:
// text with its line breaks joined ("a:\n  b" -> "a: b", "a\nb" -> "a; b").
std::string one_line(const std::string& text);

// The error line, "hiertune: error: MESSAGE" (one_line), on out.
void write_error_line(std::ostream& out, const std::string& message);
// The error line on stderr for bad input; returns kBadInputStatus.
int print_error(const std::string& message);
// The same line for a job, measurement or check that failed; returns the exit status 1.
int print_failure(const std::string& message);

}  // namespace hiertune
