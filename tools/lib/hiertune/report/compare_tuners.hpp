// `hiertune compare-tuners` (issue 18, "one table for all tuners"; no MPI): on
// one exhaustive sweep, how good each tuner's tree is and what it cost.
//
// The cases are the sweep's (collective, job, message size) where it has points:
// the jobs of one machine in the sweep database (one per comm size / shape),
// their stored points.  At a case the exhaustive best is the configuration with
// the lowest median; MPICH's default is the configuration "default" (bench's
// kDefaultAlgorithm, no parameters) as measured there.
//
// A tree's pick at a case is what MPICH 5.0.1 selects (csel::select at the
// job's comm size, nodes and the message size) mapped back to one of the
// configurations measured at that case, the inverse of generate's
// choice_of_point: a walk ending in a copy of the stock intra subtree (the
// stock tree's `comm_type=intra` of the collective, as is or as build_tree puts
// it below tuned keys) is "default", a container with parameters is the
// measured configuration whose choice_of_point is that container with those
// parameters.  A selection no measured configuration of the case runs (another
// algorithm, another segment size, a walk that matches nothing) makes the case
// "not measured" for that tree: reported, left out of its averages.
//
// Slowdown = median(pick) / median(best), per tree through validate()
// (validation.hpp) over its measured cases; average and worst (and where).
// Rows: "exhaustive" (slowdown 1 by definition), one per tree, "MPICH default"
// (no cost).  The cost of a tuner: the points it measured and the seconds its
// steps took, from its own database (tuning_cost), and for the sweep its
// points and its steps "exhaustive" (bench --account exhaustive), "bench" and
// "stock" (tune's steps 6 and 1's stock reference).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "hiertune/tree/csel_show.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

// The steps of a sweep database counted as the exhaustive sweep's time.
const std::vector<std::string>& exhaustive_steps();
// The steps never counted as a tuner's time: the sweep's and tune's tree
// timing (step 5, a check of the tree after tuning).
const std::vector<std::string>& non_tuning_steps();

// What a tuner measured: points (bench points, task benchmarks and fit
// measurements) and seconds (its steps' step_times, summed).
struct TuningCost {
    std::optional<std::size_t> points;
    std::optional<double> seconds;
    std::string detail;  // e.g. "learn.sqlite: 40 bench points; learn 61.0 s"
};

// The cost recorded in a tuner's database: over all its jobs, the bench
// points (except those of the jobs in skip_points_of: the sweep's own jobs
// when the tuner shares the sweep's file), task benchmarks and fit points,
// and the seconds of every step but non_tuning_steps().  seconds is nullopt
// when no step time is stored.
TuningCost tuning_cost(const MeasureDb& db, const std::set<JobId>& skip_points_of = {});

struct TunerTree {
    std::string name;
    csel::Json tree;
};

struct CompareOptions {
    std::vector<std::string> collectives;  // empty: every collective the sweep has
    std::string machine;                   // empty: the one machine with points
    std::optional<csel::Json> stock;       // MPICH's generic.json: needed to see a stock pick
};

// One case of the sweep.
struct SweepCase {
    std::string collective;
    JobId job = 0;
    int ranks = 0;
    int nodes = 0;
    int ppn = 0;
    std::uint64_t msg_bytes = 0;
    std::string label;  // "bcast P=4 (4x1)", with the size: label + " " + bytes + " B"
    std::map<std::string, double> measured;  // configuration (describe_configuration) -> median s
    std::map<std::string, PointKey> keys;    // configuration -> its key
    std::string best;
    double best_seconds = 0;
};

enum class PickStatus { measured, not_measured };

struct CasePick {
    std::size_t case_index = 0;
    PickStatus status = PickStatus::measured;
    std::string config;     // the configuration ("default" for the stock subtree) or, not measured, ""
    std::string selection;  // what the tree selects (Selection::describe(), "stock subtree: ...")
    double seconds = 0;     // measured: median(pick)
    double slowdown = 1;    // measured: median(pick) / median(best)
};

struct TunerRow {
    std::string name;  // "exhaustive", the tree's name, "MPICH default"
    std::size_t cases = 0;
    std::size_t not_measured = 0;
    std::optional<double> average_slowdown;  // over the measured cases
    std::optional<double> worst_slowdown;
    std::string worst_case;  // "bcast P=4 (4x1) 65536 B"
    TuningCost cost;         // none for MPICH's default
    std::vector<CasePick> picks;  // one per case, in case order
};

struct TunerComparison {
    std::string machine;
    std::vector<SweepCase> cases;  // by collective, comm size, job, size
    std::vector<TunerRow> rows;    // exhaustive, the trees in order, MPICH default
    std::vector<std::string> notes;
};

// The configuration of the case that `selection` runs: "default" where the
// walk went through the stock subtree (stock given), else the measured
// configuration whose choice_of_point equals the container and its
// parameters; nullopt when none.
std::optional<std::string> configuration_of_selection(const csel::Json& tree, const csel::Selection& selection,
                                                      const SweepCase& sweep_case,
                                                      const std::optional<csel::Json>& stock);

// The table, the exhaustive row's cost included (sweep_cost); the trees'
// costs are set with set_cost.  Throws UsageError for no trees, a tree name
// given twice, empty or reserved ("exhaustive", "MPICH default"), a collective
// the sweep has no points of, several machines without options.machine or an
// unknown one; csel::TreeError for a tree MPICH would refuse on the way.
TunerComparison compare_tuners(const MeasureDb& sweep, const std::vector<TunerTree>& trees,
                               const CompareOptions& options);

// The jobs the cases come from (the sweep's jobs).
std::set<JobId> sweep_jobs(const TunerComparison& comparison);

// The cost of the exhaustive sweep in `sweep`: the points of the compared
// jobs and collectives, and the seconds of exhaustive_steps() of those jobs.
TuningCost sweep_cost(const MeasureDb& sweep, const TunerComparison& comparison);

// Sets the cost of the tree row `name`.  Throws UsageError when no tree has
// that name.
void set_cost(TunerComparison& comparison, const std::string& name, const TuningCost& cost);

// Aligned table (tuner, cases, not measured, average, worst, worst at, points,
// tuning time), then the notes, each row's cost detail and the not-measured
// cases of each tree.
void write_comparison_text(const TunerComparison& comparison, std::ostream& out);
// tuner,cases,not_measured,average_slowdown,worst_slowdown,worst_case,points,seconds
void write_comparison_csv(const TunerComparison& comparison, std::ostream& out);
// {"machine", "cases", "rows": [{"tuner", "cases", "not_measured",
//  "average_slowdown", "worst_slowdown", "worst_case", "points", "seconds",
//  "cost", "picks": [{"case", "msg_bytes", "pick", "selection", "measured",
//  "slowdown"}]}], "notes"}; unknown values are null.
void write_comparison_json(const TunerComparison& comparison, std::ostream& out);

}  // namespace hiertune
