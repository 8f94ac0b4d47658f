// `hiertune calibrate` (under mpiexec): its options, then calibrate.cpp's runner.
#pragma once

#include <cstdint>
#include <string>

#include "calibrate.hpp"
#include "command.hpp"
#include "command_options.hpp"

namespace hiertune {

class CalibrateCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    bool needs_mpi() const override { return true; }
    void prepare() override { prepared_ = options(); }
    int run() override;

    // The parsed options as the runner takes them, with the environment's machine name,
    // link rate (unless --expect-rate) and cluster.  Throws UsageError.
    CalibrateOptions options() const;

private:
    CLI::App* command_ = nullptr;
    StoppingArgs stopping_{1};
    std::string bw_size_ = "1M";
    std::uint64_t bw_window_ = 8;
    OutputFlags output_;
    std::string db_path_;
    std::string machine_;
    bool if_missing_ = false;
    std::string expect_rate_;
    double tolerance_percent_ = kDefaultRateTolerancePercent;
    bool allow_cliques_ = false;
    CalibrateOptions prepared_;
};

}  // namespace hiertune
