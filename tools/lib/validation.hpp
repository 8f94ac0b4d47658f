// The validation report of `hiertune tune` (no MPI): how good the model's
// picks are against the exhaustive sweep over the same configuration space.
//
// Per (collective, message size): the model's pick, the exhaustive best (the
// configuration with the lowest measured median), the measured time of the
// pick and the slowdown measured(pick) / measured(best) (>= 1; 1 when the
// model picked the best).  Over all sizes: the average and the worst
// slowdown.  Per (size, configuration): predicted vs measured time.  And the
// wall time of the task benchmarks against that of the exhaustive sweep.
//
// Targets (issue 6, after HAN section IV): average slowdown <= 1.05 and task
// benchmarking time <= 25 % of the exhaustive sweep's.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hiertune {

// Incomplete or inconsistent input: a configuration of the search space not
// measured, a pick outside the search space, a size given twice, ...
class ValidationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One configuration at one size.  Times in seconds.
struct ConfigTime {
    std::string config;               // label, e.g. "segsize=4096 inter_algo=tsp_kary" or "stock"
    std::optional<double> predicted;  // the model's time; nullopt: not predictable (tasks missing)
    std::optional<double> measured;   // median of the exhaustive sweep; nullopt: not measured
};

// The search space at one size and the model's pick in it.
struct SizeCase {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::string pick;                 // one of configs[].config
    std::vector<ConfigTime> configs;  // every one must be measured
};

struct SizeVerdict {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::string pick;
    std::optional<double> predicted_pick;
    double measured_pick = 0;
    std::string best;  // lowest measured median (ties: the pick, then the first given)
    double measured_best = 0;
    double slowdown = 1;  // measured_pick / measured_best
};

struct ValidationTargets {
    double max_average_slowdown = 1.05;
    double max_task_share = 0.25;  // task time / exhaustive time
};

struct ValidationReport {
    std::vector<SizeCase> cases;       // as given (for the prediction table)
    std::vector<SizeVerdict> verdicts;  // one per case, same order
    double average_slowdown = 1;
    double worst_slowdown = 1;
    std::size_t worst = 0;  // index into verdicts
    std::optional<double> task_seconds;
    std::optional<double> exhaustive_seconds;
    ValidationTargets targets;

    bool slowdown_target_met() const { return average_slowdown <= targets.max_average_slowdown; }
    // task_seconds / exhaustive_seconds, when both are known and the latter > 0.
    std::optional<double> task_share() const;
    std::optional<bool> time_target_met() const;
};

// Evaluates the cases.  Throws ValidationError for no cases, a (collective,
// size) given twice, a case without configurations, a configuration given
// twice in a case, a pick that is not among the configurations, a
// configuration without measurement (names it, the size and how many are
// missing), or a measured/predicted time that is not finite and > 0, or
// negative step times.
ValidationReport validate(const std::vector<SizeCase>& cases, std::optional<double> task_seconds,
                          std::optional<double> exhaustive_seconds, const ValidationTargets& targets = {});

// Human-readable report: the per-size table, average and worst slowdown, the
// time comparison and whether each target is met.
void write_report_text(const ValidationReport& report, std::ostream& out);

// CSV, one row per size: collective,msg_bytes,pick,predicted_pick_us,
// measured_pick_us,best,measured_best_us,slowdown.
void write_summary_csv(const ValidationReport& report, std::ostream& out);

// CSV, one row per (size, configuration): collective,msg_bytes,config,
// predicted_us,measured_us,predicted_over_measured,pick,best (empty fields
// where unknown; pick/best are 0/1).
void write_predictions_csv(const ValidationReport& report, std::ostream& out);

// A gnuplot script writing png_path from the predictions CSV: measured vs
// predicted time per configuration (log-log, one point style per collective,
// the line y = x), and per collective the measured time of the pick and of
// the best against the message size.
std::string gnuplot_script(const ValidationReport& report, const std::string& predictions_csv,
                           const std::string& png_path);

}  // namespace hiertune
