#include "compare_tuners_cli.hpp"

#include <filesystem>
#include <iostream>
#include <set>
#include <utility>

#include "hiertune/report/compare_tuners.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/db/db_commands.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

std::pair<std::string, std::string> name_and_path(const std::string& text, const char* option) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError(std::string(option) + " wants NAME=FILE, not '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace

CLI::App* CompareTunersCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "compare-tuners",
        "One table for all tuners: each tree's picks (walked as MPICH 5.0.1 walks it) against an exhaustive sweep "
        "('bench --db --account exhaustive'): cases, not measured, average and worst slowdown, points measured and "
        "tuning time; the sweep and MPICH's default as rows");
    command->add_option("--db", db_path_, "The exhaustive sweep's measurement database")->required();
    command->add_option("--tree", trees_, "NAME=FILE: a tuner's Csel tree (repeatable)")->required();
    command->add_option("--tuning-db", tuning_dbs_,
                        "NAME=DB: the database the tuner of tree NAME measured into (its points and step times)");
    command->add_option("-C,--collective", collectives_,
                        "Collectives (repeatable or comma-separated; default: every one the sweep has)")
        ->delimiter(',');
    command->add_option("--machine", machine_, "The sweep's machine (default: the only one with points)");
    command->add_option("--stock", stock_path_,
                        "MPICH's generic.json, to tell a pick of the stock subtree (default: the MPICH build's)");
    add_output_flags(*command, output_);
    command_ = command;
    return command;
}

int CompareTunersCli::run() {
    const MeasureDb sweep = open_existing_db(db_path_);
    std::vector<TunerTree> trees;
    for (const std::string& text : trees_) {
        const auto [name, path] = name_and_path(text, "--tree");
        trees.push_back(TunerTree{name, csel::load_mpir_tree(path, "--tree")});
    }
    CompareOptions options;
    options.collectives = collectives_;
    options.machine = machine_;
    std::error_code error;
    const bool stock_given = command_->count("--stock") > 0;
    if (!stock_path_.empty() && (stock_given || std::filesystem::exists(stock_path_, error)))
        options.stock = csel::load_mpir_tree(stock_path_, "--stock");
    TunerComparison comparison = compare_tuners(sweep, trees, options);
    for (const std::string& text : tuning_dbs_) {
        const auto [name, path] = name_and_path(text, "--tuning-db");
        const MeasureDb db = open_existing_db(path);
        // a tuner filed in the sweep's own file: the sweep's points are not its
        const bool same = std::filesystem::equivalent(path, db_path_, error);
        set_cost(comparison, name, tuning_cost(db, same ? sweep_jobs(comparison) : std::set<JobId>{}));
    }
    if (output_.json)
        write_comparison_json(comparison, std::cout);
    else if (output_.csv)
        write_comparison_csv(comparison, std::cout);
    else
        write_comparison_text(comparison, std::cout);
    return 0;
}

}  // namespace hiertune
