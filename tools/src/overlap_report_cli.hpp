// `hiertune overlap-report`: runs of `overlap --json` side by side (overlap.cpp's report).
#pragma once

#include <string>
#include <vector>

#include "command.hpp"

namespace hiertune {

class OverlapReportCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

private:
    std::vector<std::string> files_;
    std::string png_dir_;
};

}  // namespace hiertune
