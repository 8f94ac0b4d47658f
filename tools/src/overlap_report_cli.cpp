#include "overlap_report_cli.hpp"

#include <iostream>

#include "overlap.hpp"

namespace hiertune {

CLI::App* OverlapReportCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "overlap-report", "Runs of 'overlap --json' side by side (e.g. without and with MPIR_CVAR_ASYNC_PROGRESS=1 "
                          "in the environment): ratio tables, verdicts, and heat maps with --png-dir");
    command->add_option("files", files_, "Outputs of 'hiertune overlap --json'")->required();
    command->add_option("--png-dir", png_dir_,
                        "Write one heat map per configuration here (PNG via gnuplot, one panel per run)");
    return command;
}

int OverlapReportCli::run() { return run_overlap_report(files_, png_dir_, std::cout); }

}  // namespace hiertune
