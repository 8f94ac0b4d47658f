#include "db_cli.hpp"

#include <iostream>

#include "hiertune/db/db_commands.hpp"

namespace hiertune {

CLI::App* DbCli::add_query(CLI::App& db, const std::string& name, const std::string& description,
                           bool with_filters) {
    CLI::App* command = db.add_subcommand(name, description);
    command->add_option("--db", path_, "Measurement database")->required();
    if (with_filters) {
        command->add_option("-C,--collective", collectives_, "Only these collectives")->delimiter(',');
        command->add_option("--job", job_, "Only this job (see 'db list')");
    }
    add_output_flags(*command, output_);
    return command;
}

CLI::App* DbCli::bind(CLI::App& app) {
    CLI::App* db = app.add_subcommand("db", "Query a measurement database written by 'bench --db'");
    db->require_subcommand(1);
    list_ = add_query(*db, "list", "Jobs in the database and their point counts", false);
    best_ = add_query(*db, "best", "Best configuration (lowest median) per job, collective and size", true);
    points_ = add_query(*db, "points", "Every stored point", true);
    check_ = db->add_subcommand("check", "SQLite integrity check (exit 1 unless ok)");
    check_->add_option("--db", path_, "Measurement database")->required();
    return db;
}

int DbCli::run() {
    const MeasureDb measurements = open_existing_db(path_);
    DbQuery query;
    query.job = job_;
    query.collectives = collectives_;
    query.format = output_.format();
    if (list_->parsed()) print_jobs(measurements, output_.format(), std::cout);
    if (best_->parsed()) print_best(measurements, query, std::cout);
    if (points_->parsed()) print_points(measurements, query, std::cout);
    if (check_->parsed()) return print_check(measurements, std::cout) ? 0 : 1;
    return 0;
}

}  // namespace hiertune
