// `hiertune compare-tuners`: every tuner's tree against one exhaustive sweep (no MPI).
#pragma once

#include <string>
#include <vector>

#include "command.hpp"
#include "command_options.hpp"

namespace hiertune {

class CompareTunersCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    CLI::App* command_ = nullptr;
    std::string db_path_;
    std::vector<std::string> trees_;       // NAME=FILE
    std::vector<std::string> tuning_dbs_;  // NAME=DB
    std::vector<std::string> collectives_;
    std::string machine_;
    std::string stock_path_ = mpich_generic_json();
    OutputFlags output_;
};

}  // namespace hiertune
