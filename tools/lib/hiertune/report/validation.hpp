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
//
// And the tree as loaded (issue 13): per (collective, size) R rounds of two
// alternating jobs timing MPICH's selection, one with the tree loaded and one
// without it; the ratio no-tree / tree, the noise of the rounds and whether
// the tree is slower than no tree beyond the noise (a failure of the report).
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
    std::optional<double> noise{};    // the median's 95 % CI half-width / median; nullopt: unknown
    // the label of the configuration whose run this one is at this size (tune's
    // same_run): its measurement is this one's; empty: none
    std::string same_run_as{};
};

// The search space at one size and the model's pick in it.
struct SizeCase {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::string pick;                 // one of configs[].config
    std::vector<ConfigTime> configs;  // every one must be measured
    bool measured_pick = false;       // picked by measurement alone (tune's measured collectives), not a model
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
    // the pick's and the best's noise added: a slowdown up to 1 + noise is
    // within the two medians' confidence intervals; nullopt where neither is known
    std::optional<double> noise;
    bool beyond_noise() const { return slowdown > 1 + noise.value_or(0); }
};

struct ValidationTargets {
    double max_average_slowdown = 1.05;
    double max_task_share = 0.25;  // task time / exhaustive time
    std::optional<double> max_worst_slowdown;  // none: reported, not a target
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
    // What the text and the plot call the tuner and its measuring step.
    std::string title = "hiertune tune: model picks vs exhaustive sweep";
    std::string tuning_step = "task benchmarks";
    std::string share_name = "task share";  // tuning time / exhaustive time
    // false: the text gives the slowdowns without targets and no time line (picks
    // made from the measurements themselves, tune's measured collectives)
    bool targets_apply = true;

    bool slowdown_target_met() const { return average_slowdown <= targets.max_average_slowdown; }
    std::optional<bool> worst_target_met() const;
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

// Human-readable report: the per-size table (with the noise of the slowdown
// where known), average and worst slowdown, how many slowdowns lie beyond the
// noise, the time comparison and whether each target is met.
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

// ---- the tree as loaded vs no tree

// Per round (in round order), the time of the job with the tree and of the one
// without: each the job's median over repetitions of the max-over-ranks time.
struct TreeTimingCase {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    std::vector<double> tree;
    std::vector<double> no_tree;
};

// faster: every round with the tree faster than every round without it and
// ratio > 1 + tolerance; slower: the mirror (ratio < 1 - tolerance), a
// failure; else within the noise.
enum class TreeVerdict { faster, within_noise, slower };

struct TreeTimingRow {
    std::string collective;
    std::uint64_t msg_bytes = 0;
    double tree = 0;     // median over rounds, seconds
    double no_tree = 0;  // median over rounds, seconds
    double ratio = 1;    // no_tree / tree: > 1 where the tree is faster
    double noise = 0;    // the larger (max - min) / median of the two jobs' rounds
    std::size_t rounds = 0;
    TreeVerdict verdict = TreeVerdict::within_noise;
    // The tree runs MPICH's own selection here, as no tree does (tune's pick is stock), so
    // a slower verdict is the verdict's chance rate, not the tree's doing: not counted.
    bool same_choice = false;
    // Step 5b put the timed pick back to MPICH's selection: the figures are of a choice
    // the tree written no longer makes (it runs what no tree runs): not counted.
    bool put_back = false;
};

struct TreeTimingReport {
    std::vector<TreeTimingRow> rows;  // as the cases were given
    double tolerance = 0.05;
    bool allow_slower = false;  // --allow-tree-slower: failures reported, accepted

    // Rows with the verdict slower, in order, but the same_choice and put_back ones.
    std::vector<const TreeTimingRow*> slower() const;
    bool failed() const { return !slower().empty() && !allow_slower; }
};

// Evaluates the cases.  Throws ValidationError for no cases, a (collective,
// size) given twice, fewer than 2 rounds or unequal round counts of the two
// jobs (one round has no noise), a time not finite and > 0, or a tolerance
// not in [0, 1).
TreeTimingReport evaluate_tree_timings(const std::vector<TreeTimingCase>& cases, double tolerance = 0.05,
                                       bool allow_slower = false);

// The definition of the table (header lines), a row per size, and the verdict
// line: "tree vs no tree: N of M sizes slower beyond the noise: ok|FAILED|accepted ...".
void write_tree_timing_text(const TreeTimingReport& report, std::ostream& out);

// CSV: collective,msg_bytes,rounds,tree_us,no_tree_us,ratio,noise,verdict
// (verdict faster, within_noise, slower).
void write_tree_timing_csv(const TreeTimingReport& report, std::ostream& out);

// "faster", "within_noise", "slower".
std::string to_string(TreeVerdict verdict);

}  // namespace hiertune
