// The MPI-free core of `hiertune learn`: an active-learning tuner after
// ACCLAiM (Wilkins et al., "ACCLAiM: Advancing the Practicality of MPI
// Collective Communication Autotuning Using Machine Learning", CLUSTER 2022).
//
// One random forest regressor per collective learns the (normalised) runtime
// over the whole space the plugin offers: nodes x ranks per node x message
// size x configuration (algorithm and its parameters).  Training points are
// not a random sample: each iteration retrains the forest on every point
// measured so far and measures next the unmeasured points whose prediction the
// trees disagree on most (jackknife variance, section IV-A), every fifth one
// moved to a nearby non-power-of-two size (IV-B).  Training stops when the
// variance summed over the space stops changing (IV-C), so no test set is
// collected, or at a time budget.  When the allocation has more nodes than a
// point needs, several points run at once on disjoint node sets (IV-D).
//
// Nothing here talks to MPI; the command measures the points and calls back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "hiertune/tune/sweep.hpp"

namespace hiertune {

// ---------------------------------------------------------------------------
// The learned space.

// One point: where (nodes x ranks per node), how much, and what runs.
struct LearnPoint {
    int nodes = 0;
    int ppn = 0;
    std::uint64_t msg_bytes = 0;
    Configuration configuration;
};
bool operator==(const LearnPoint& a, const LearnPoint& b);
bool operator!=(const LearnPoint& a, const LearnPoint& b);
bool operator<(const LearnPoint& a, const LearnPoint& b);  // lexicographic, for sets/maps

// The candidates of the variance search.  Sizes are powers of two: IV-A
// computes the jackknife over power-of-two feature values only (the search
// stays small) and IV-B brings the non-powers-of-two in.  Node counts may be
// anything (a non-power-of-two allocation is common, section III-B).
struct LearnSpace {
    std::vector<int> nodes;
    std::vector<int> ppn;
    std::vector<std::uint64_t> sizes;
    std::vector<Configuration> configurations;  // all of one collective
};

// Every point of the space, configuration-major, then nodes, ppn and sizes in
// the order given.  Throws std::invalid_argument when a list is empty or has
// a duplicate, a node or ppn count is <= 0, a size is not a power of two or
// above kMaxMessageBytes, or the configurations name more than one collective
// (one forest per collective, section V).
std::vector<LearnPoint> candidate_points(const LearnSpace& space);

// ---------------------------------------------------------------------------
// Features and targets.

// A point as the forest's feature vector.  Section V: one forest per
// collective with the algorithm enumerated as a feature (not one forest per
// algorithm: the trees share what nodes, ppn and size do across algorithms).
// Beyond ACCLAiM, each parameter of the configurations is a feature of its own
// (the hier segment size, inter/intra submodules), so the trees can share what
// one segment size teaches about the next instead of treating every
// configuration as unrelated.  Features, in order:
//   log2(msg_bytes)  (fractional for non-powers of two; sizes span 2^0 to
//                    2^30, and split thresholds fall halfway between the
//                    measured values, so in log2 they are geometric means)
//   nodes, ppn
//   algorithm        index in order of first appearance
//   one per parameter name (sorted): a number when every configuration that
//   has it gives a number (the value itself), else the index of the value
//   among the parameter's distinct values (sorted); a configuration without
//   the parameter gets one below every value (-1 for indices).
class FeatureEncoder {
public:
    // Throws std::invalid_argument when configurations is empty.
    explicit FeatureEncoder(const std::vector<Configuration>& configurations);

    std::size_t dimension() const { return names_.size(); }
    // "log2_msg_bytes", "nodes", "ppn", "algorithm", then the parameter names.
    const std::vector<std::string>& feature_names() const { return names_; }

    // Throws std::invalid_argument when the point's configuration is not one
    // of the encoder's, or its size, nodes or ppn is <= 0.
    std::vector<double> encode(const LearnPoint& point) const;

private:
    struct ParamFeature {
        std::string name;
        bool numeric = false;
        std::vector<std::string> values;  // sorted distinct (enumerated ones)
        double absent = -1;
    };
    std::vector<std::string> names_;
    std::vector<Configuration> configurations_;
    std::vector<std::string> algorithms_;
    std::vector<ParamFeature> params_;
};

// The forest's target: ln(runtime per byte), ln(seconds / msg_bytes).
// The log: runtimes span orders of magnitude over the sizes (microseconds to
// seconds); on a linear scale the squared-error splits and the variance would
// see only the largest messages, on a log scale an error means a ratio
// wherever it is, which is what picking the fastest algorithm needs.  Per
// byte: the trees are piecewise constant in log2(size), so beyond the largest
// size a configuration was measured at the forest predicts its last target.
// For ln(seconds) that made the unmeasured large sizes as fast as the smaller
// ones, and the configurations not yet measured at the top sizes won the tree
// there (1.3-2.9x slower picks at 4 MiB on the emulated cluster, learn
// trained on the same points: doc/measurements/learn.md); per byte, the last value
// extrapolates as bandwidth-bound time, the regime of large messages.
// (Per-size normalisation against the best would need every configuration
// measured at each size, which active learning never has.)  Throws
// std::invalid_argument unless seconds is finite and > 0 and msg_bytes > 0.
double normalise_runtime(double seconds, std::uint64_t msg_bytes);
double denormalise_runtime(double target, std::uint64_t msg_bytes);  // exp(target) * msg_bytes

// ---------------------------------------------------------------------------
// The forest.

// dlib's random_forest_regression_trainer, set like scikit-learn's
// RandomForestRegressor (the paper's, section V) rather than dlib's defaults:
// every feature considered at each split, leaves down to one sample, so the
// trees differ through their bootstrap samples, which the jackknife measures.
struct ForestOptions {
    std::size_t trees = 100;
    std::size_t min_samples_per_leaf = 1;
    double feature_fraction = 1.0;  // (0, 1]
    std::string seed = "hiertune";  // the same seed and data give the same forest
};

class LearnForest {
public:
    // Trains on rows of features (all of one dimension) and their targets.
    // Throws std::invalid_argument when there are no rows, the counts differ,
    // a row is empty or of another dimension, a value is not finite, or an
    // option is out of range.
    LearnForest(const std::vector<std::vector<double>>& features, const std::vector<double>& targets,
                const ForestOptions& options = {});
    ~LearnForest();
    LearnForest(LearnForest&&) noexcept;
    LearnForest& operator=(LearnForest&&) noexcept;

    std::size_t tree_count() const;
    std::size_t dimension() const;

    // Each tree's prediction at x (dlib gives only their mean, so the trees
    // are walked here as dlib walks them).  Throws std::invalid_argument for
    // a row of another dimension.
    std::vector<double> tree_predictions(const std::vector<double>& x) const;
    // The forest's prediction: the mean of tree_predictions.
    double predict(const std::vector<double>& x) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------
// Jackknife variance (section IV-A), after Wager et al.

// p = the n trees' predictions at one point, x_p = mean(p), x_i = mean of p
// without p_i, and
//     sigma^2 = sum_{i=1..n} (x_p - x_i)^2 / (n - 1)
// exactly as the paper writes it (it equals sum (p_i - x_p)^2 / (n - 1)^3).
// Throws std::invalid_argument when n < 2 or a prediction is not finite.
double jackknife_variance(const std::vector<double>& tree_predictions);

// jackknife_variance of each row (a point's predictions, one per tree).
std::vector<double> jackknife_variances(const std::vector<std::vector<double>>& tree_predictions);

// ---------------------------------------------------------------------------
// Point selection (sections IV-A, IV-B).

// Every non_p2_every-th selected point is moved to a non-power-of-two size.
constexpr std::size_t kNonP2Every = 5;

// IV-B's "nearby": the sizes whose closest power of two is p2, the example's
// 6..12 for 8, i.e. [ceil(3 p2 / 4), floor(3 p2 / 2)] (the ends are as close
// to the neighbouring power of two; the paper counts them in), capped at
// kMaxMessageBytes.  Throws std::invalid_argument unless p2 is a power of two
// <= kMaxMessageBytes.
struct SizeRange {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
};
SizeRange non_p2_range(std::uint64_t p2);

// A random size of non_p2_range(p2) other than p2 (uniform) that is not in
// `taken`; none when there is no such size (1 and 2 have none or one).
// Throws std::invalid_argument as non_p2_range.
std::optional<std::uint64_t> non_p2_size(std::uint64_t p2, const std::set<std::uint64_t>& taken,
                                         std::mt19937_64& rng);

// Candidate indices by variance, highest first (ties in candidate order),
// without the measured ones.  Throws std::invalid_argument when the lengths
// differ or a variance is not finite.
std::vector<std::size_t> rank_by_variance(const std::vector<LearnPoint>& candidates,
                                          const std::vector<double>& variances,
                                          const std::set<LearnPoint>& measured);

// The next `count` distinct points to measure (fewer when fewer are left):
// the unmeasured candidates by variance, highest first (IV-A); the points
// whose ordinal (already_selected + 1, + 2, ...) is a multiple of
// non_p2_every become the same point at a non_p2_size of its size that is
// neither measured nor chosen (IV-B; kept at the power of two when there is
// none).  count > 1 is the batch of a parallel round (IV-D).  Throws
// std::invalid_argument as rank_by_variance, or when non_p2_every is 0.
std::vector<LearnPoint> select_points(const std::vector<LearnPoint>& candidates,
                                      const std::vector<double>& variances,
                                      const std::set<LearnPoint>& measured, std::size_t count,
                                      std::size_t already_selected, std::mt19937_64& rng,
                                      std::size_t non_p2_every = kNonP2Every);

// ---------------------------------------------------------------------------
// Convergence without a test set (section IV-C, VI-C).

// The paper stops once four consecutive iterations each change the summed
// variance by less than 1e-9 (VI-C: an absolute difference, on the scale of
// its unstated runtime unit).  On ln-runtimes the sum grows with the size of
// the space, so the default here is a relative change
// |S_t - S_{t-1}| / S_{t-1} (S_{t-1} = 0: absolute); relative = false,
// threshold = 1e-9 is the paper's rule.  Why 10 %: every retrain draws new
// bootstrap samples, so once the model has settled the sum still jitters by
// several per cent from one iteration to the next, even on noiseless data
// (the synthetic test, 100 trees); a tighter threshold needs more trees.
struct ConvergenceRule {
    double threshold = 0.1;
    bool relative = true;
    std::size_t iterations = 4;  // consecutive changes below threshold
    double time_budget_s = 0;    // 0: none
};

// Throws std::invalid_argument unless threshold is finite and >= 0,
// iterations > 0 and time_budget_s finite and >= 0.
void check_rule(const ConvergenceRule& rule);

// Whether the last rule.iterations changes of `summed` (one entry per
// iteration, oldest first: so iterations + 1 entries at least) are all below
// the threshold.  Throws std::invalid_argument as check_rule or for a
// negative or non-finite entry.
bool variance_converged(const std::vector<double>& summed, const ConvergenceRule& rule);

enum class LearnStop { running, converged, time_budget };
std::string to_string(LearnStop stop);

// The rule over a run: one add() per iteration.
class ConvergenceTracker {
public:
    explicit ConvergenceTracker(ConvergenceRule rule);  // throws as check_rule
    // Records the iteration's summed variance; converged as
    // variance_converged, else time_budget once elapsed_s >= the budget (if
    // any).  Once stopped, stays stopped.  Throws std::invalid_argument for a
    // negative or non-finite value.
    LearnStop add(double summed_variance, double elapsed_s);
    LearnStop state() const { return state_; }
    const std::vector<double>& history() const { return history_; }

private:
    ConvergenceRule rule_;
    std::vector<double> history_;
    LearnStop state_ = LearnStop::running;
};

// ---------------------------------------------------------------------------
// Parallel collection (section IV-D).

// One benchmark of a round: nodes first_node .. first_node + node_count - 1
// of the allocation (sequential, as the paper places them).
struct ScheduledRun {
    std::size_t point = 0;  // index into the node_needs given
    std::size_t first_node = 0;
    std::size_t node_count = 0;
};
using ScheduleRound = std::vector<ScheduledRun>;

// The paper's greedy round: points in priority order (variance, highest
// first), each on the next node_needs[i] unused sequential nodes; the rest of
// every rack (rack_nodes consecutive nodes, the network's first layer) it
// touches is then unused too, so no two benchmarks share a rack; the round
// ends at the first point that does not fit (a later point would jump the
// variance order).  rack_nodes 1: no shared layer to keep apart;
// rack_nodes = allocation_nodes: one benchmark at a time.  Throws
// std::invalid_argument when allocation_nodes or rack_nodes is 0, a need is
// <= 0 or a need is larger than allocation_nodes.
ScheduleRound schedule_round(const std::vector<int>& node_needs, std::size_t allocation_nodes,
                             std::size_t rack_nodes = 1);

// The node count each point needs (its `nodes`), for the two schedules.
std::vector<int> node_needs(const std::vector<LearnPoint>& points);

// Every point, in rounds: first fit, each point in the earliest round where
// it fits after that round's runs (same rack rule), else in a new round.
// For a batch that will be measured whole, it needs fewer rounds than
// repeating schedule_round.  Throws as schedule_round.
std::vector<ScheduleRound> schedule_rounds(const std::vector<int>& node_needs,
                                           std::size_t allocation_nodes, std::size_t rack_nodes = 1);

// ---------------------------------------------------------------------------
// The loop.

struct LearnOptions {
    ForestOptions forest;
    ConvergenceRule convergence;
    std::size_t non_p2_every = kNonP2Every;
    // Points picked at random before the first forest: with one point every
    // tree predicts the same and the variance ranks nothing (section VI-A:
    // at least one point must be collected before the model says anything).
    std::size_t initial_points = 4;
    // Beyond ACCLAiM: first measure every configuration at both ends of the
    // size range (start_points): the smallest size on every shape, the
    // largest on the largest shape.  Regression trees do not extrapolate: a
    // configuration measured only at some sizes is predicted beyond them with
    // the time per byte of the nearest one, all trees agree on that, and the
    // variance never asks for the point.  On the emulated cluster
    // (doc/measurements/learn.md) a pipeline of 16 KiB segments measured only at
    // large sizes won 8-32 KiB on 3-4 nodes, where it costs three hops per
    // byte (1.7-1.9x the best), and a split-binary tree measured only at small
    // sizes won 64 KiB - 4 MiB (1.4-1.6x).  Small messages are where shapes
    // differ most (eager queueing, latency) and cost little to measure, so
    // they are measured on every shape; large ones scale with the shape and
    // cost the most, so once.
    bool start_at_both_ends = true;
    std::uint64_t seed = 1;  // random initial points and non-P2 sizes
};

// Drives one collective's training: record() what was measured, iterate() to
// retrain and test convergence, next_points() for what to measure next.
class ActiveLearner {
public:
    // Throws std::invalid_argument as candidate_points, or for options out of
    // range (initial_points 0, non_p2_every 0, the forest's or rule's).
    ActiveLearner(LearnSpace space, LearnOptions options = {});

    // A measured point (seconds > 0), in or near the space: its configuration
    // must be one of the space's; sizes may be non-powers of two.  Measuring a
    // point again replaces its time.  Throws std::invalid_argument otherwise.
    void record(const LearnPoint& point, double seconds);
    std::size_t measured_count() const { return measured_.size(); }

    // Retrains on every recorded point, computes every candidate's variance
    // and gives their sum (measured candidates included: the model's
    // uncertainty over the whole space, IV-C) to the convergence rule.
    // Throws std::logic_error before any point is recorded.
    LearnStop iterate(double elapsed_s);
    double summed_variance() const { return summed_variance_; }
    const ConvergenceTracker& convergence() const { return tracker_; }

    // The start design still to measure: with start_at_both_ends, every
    // configuration at the smallest size on every shape (nodes, then ppn, in
    // the space's order), then every one at the largest size on the largest
    // nodes and ppn, in configuration order, those not recorded yet; else none.
    std::vector<LearnPoint> start_points() const;
    // How many points the start still wants before the variance takes over:
    // start_points, then random ones up to initial_points recorded.
    std::size_t start_wanted() const;

    // Up to `count` distinct unmeasured points: start_points first (filled up
    // with random candidates while fewer than initial_points would be
    // recorded), then select_points over the last
    // iterate()'s variances (every point returned, random ones included,
    // counts towards the every-fifth rule).  For a parallel round (IV-D) ask
    // for more than one and keep what schedule_round(node_needs(points), ...)
    // places: the rest stay unmeasured and rank again next iteration.
    // Throws std::logic_error when points were recorded since the last
    // iterate() (the variances are stale).
    std::vector<LearnPoint> next_points(std::size_t count);

    // The last forest's runtime at a point (seconds).  Throws
    // std::logic_error before iterate().
    double predicted_seconds(const LearnPoint& point) const;

    const std::vector<LearnPoint>& candidates() const { return candidates_; }
    const std::vector<double>& variances() const { return variances_; }

private:
    LearnSpace space_;
    LearnOptions options_;
    std::vector<LearnPoint> candidates_;  // before encoder_: checks the space first
    FeatureEncoder encoder_;
    std::map<LearnPoint, double> measured_;  // seconds
    std::set<LearnPoint> measured_set_;
    std::unique_ptr<LearnForest> forest_;
    std::vector<double> variances_;
    double summed_variance_ = 0;
    bool stale_ = true;
    std::size_t selected_ = 0;
    std::mt19937_64 rng_;
    ConvergenceTracker tracker_;
};

}  // namespace hiertune
