// `hiertune verify` (under mpiexec; run by tune): its cases, then verify.cpp's runner.
#pragma once

#include <string>
#include <vector>

#include "command.hpp"
#include "hiertune/tune/tune_steps.hpp"

namespace hiertune {

class VerifyCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = cases(); }
    int run() override;

    // The parsed --case options.  Throws UsageError.
    std::vector<VerifyCase> cases() const;

private:
    std::vector<std::string> case_texts_;
    std::vector<VerifyCase> prepared_;
};

}  // namespace hiertune
