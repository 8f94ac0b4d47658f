#include "commands.hpp"

#include "analytic_report_cli.hpp"
#include "bench_cli.hpp"
#include "calibrate_cli.hpp"
#include "check_tree_cli.hpp"
#include "compare_tuners_cli.hpp"
#include "critical_path_cli.hpp"
#include "db_cli.hpp"
#include "fit_cli.hpp"
#include "generate_cli.hpp"
#include "install_tree_cli.hpp"
#include "learn_cli.hpp"
#include "link_bound_cli.hpp"
#include "overlap_cli.hpp"
#include "overlap_report_cli.hpp"
#include "show_tree_cli.hpp"
#include "tasks_cli.hpp"
#include "tree_timing_cli.hpp"
#include "tune_cli.hpp"
#include "verify_cli.hpp"

namespace hiertune {

std::vector<std::unique_ptr<Command>> hiertune_commands(const std::string& self) {
    std::vector<std::unique_ptr<Command>> table;
    table.push_back(std::make_unique<BenchCli>());
    table.push_back(std::make_unique<DbCli>());
    table.push_back(std::make_unique<TasksCli>());
    table.push_back(std::make_unique<CalibrateCli>());
    table.push_back(std::make_unique<OverlapCli>());
    table.push_back(std::make_unique<OverlapReportCli>());
    table.push_back(std::make_unique<FitCli>());
    table.push_back(std::make_unique<GenerateCli>());
    table.push_back(std::make_unique<AnalyticReportCli>());
    table.push_back(std::make_unique<TuneCli>(self));
    table.push_back(std::make_unique<TreeTimingCli>(self));
    table.push_back(std::make_unique<LearnCli>(self));
    table.push_back(std::make_unique<ShowTreeCli>());
    table.push_back(std::make_unique<CheckTreeCli>());
    table.push_back(std::make_unique<CompareTunersCli>());
    table.push_back(std::make_unique<InstallTreeCli>());
    table.push_back(std::make_unique<VerifyCli>());
    table.push_back(std::make_unique<LinkBoundCli>());
    table.push_back(std::make_unique<CriticalPathCli>());
    return table;
}

}  // namespace hiertune
