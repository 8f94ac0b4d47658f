// `hiertune analytic-report`: the fitted analytic models against the exhaustive sweep
// (tune_command.cpp's run_analytic_report).
#pragma once

#include <string>

#include "command.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

class AnalyticReportCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::string db_path_;
    JobId job_ = 0;
    std::string report_dir_;
};

}  // namespace hiertune
