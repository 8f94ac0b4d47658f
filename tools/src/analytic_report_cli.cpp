#include "analytic_report_cli.hpp"

#include <iostream>

#include "hiertune/db/db_commands.hpp"
#include "tune_command.hpp"

namespace hiertune {

CLI::App* AnalyticReportCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "analytic-report", "Validate the fitted analytic models ('fit') against the exhaustive sweep in the same "
                           "database ('bench --db --account exhaustive', one job per comm size): picks, slowdowns, "
                           "predicted vs measured, fitting vs sweep time, MPICH's default (exit 1 if a target is missed)");
    command->add_option("--db", db_path_, "Measurement database")->required();
    command->add_option("--job", job_, "The job with the fitted models (see 'db list')")->required();
    command->add_option("-o,--output", report_dir_, "Directory of the report files")->required();
    return command;
}

int AnalyticReportCli::run() {
    open_existing_db(db_path_);  // a report never creates the database
    return run_analytic_report(db_path_, job_, report_dir_, std::cout);
}

}  // namespace hiertune
