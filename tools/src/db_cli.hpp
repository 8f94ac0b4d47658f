// `hiertune db list|best|points|check`: queries of a measurement database.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

class DbCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    // list, best, points: the database, the output format and (with_filters) the filters.
    CLI::App* add_query(CLI::App& db, const std::string& name, const std::string& description, bool with_filters);

    CLI::App* list_ = nullptr;
    CLI::App* best_ = nullptr;
    CLI::App* points_ = nullptr;
    CLI::App* check_ = nullptr;
    std::string path_;
    std::vector<std::string> collectives_;
    std::optional<JobId> job_;
    OutputFlags output_;
};

}  // namespace hiertune
