// The analytic models by name (no MPI): which configurations of `hiertune bench`
// (collective, MPIR_CVAR_<COLL>_INTRA_ALGORITHM item, parameters as full CVAR
// names) have a model in analytic_model.hpp, the model of each, the equations of
// `hiertune fit`'s experiments, the fit, and the pick of the fastest.
//
// Modelled: MPI_Bcast's binomial, scatter_recursive_doubling_allgather,
// scatter_ring_allgather and the plugin's seg_* trees; MPI_Reduce's binomial,
// reduce_scatter_gather and the seg_* trees.  A seg_* configuration names its
// segment size (MPIR_CVAR_<COLL>_SEG_SEGSIZE) and seg_chain its fanout
// (_SEG_FANOUT); any other parameter (the window, _SEG_WINDOW, included: the
// model has none) makes a configuration unmodelled.
//
// The experiment (section 4.2, Fig. 4): on P processes, the algorithm with an
// m-byte message from root 0, then a linear gather without synchronisation of
// g bytes from every other process to the root, timed at the root:
//   T = cost(algorithm, P, m) + (P - 1) * (alpha + beta * g)
// The gather varies with the experiment as the paper varies m_g with m: g_i =
// (i + 1) * base for the i-th size.  The gather is what separates alpha from
// beta for a segmented tree, whose own cost is a multiple of alpha + beta *
// segsize at every m >= segsize (one x for every equation): a reduce, which
// ends at the root anyway, runs the same experiment for that reason.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hiertune/models/analytic_fit.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune::analytic {

// gamma per segment size (bytes) at which it was measured.
struct Gammas {
    std::map<std::uint64_t, Gamma> by_segment;
    // The one measured at segsize, else at the nearest size in log scale (ties:
    // the smaller).  Throws std::invalid_argument when none is measured.
    const Gamma& at(std::uint64_t segsize) const;
};

struct ModelInputs {
    Gammas gammas;
    std::uint64_t elem_bytes = 1;  // reductions: bench reduces MPI_UNSIGNED_CHAR
    // The largest message MPI_Send returns from before the receiver has it (measured
    // by `hiertune fit`, eager_limit); 0: none measured.  A seg_* bcast whose
    // transfers are all this small is costed by the link model (tree_bcast_link_cost),
    // the others by the stages and gamma.
    std::uint64_t eager_bytes = 0;
};

// The collectives with modelled algorithms, by name.
std::vector<std::string> modelled_collectives();
// "bcast and reduce", for messages.
std::string modelled_collectives_text();
// The modelled algorithm items of a collective (empty for others).
std::vector<std::string> modelled_algorithms(const std::string& collective);

// Whether the configuration has a model: a modelled algorithm with the
// parameters its model needs and no others.
bool has_model(const Configuration& configuration);

// The configuration's time on `size` processes for an m-byte message as a linear
// form in alpha and beta.  reference: where the critical path depends on alpha
// and beta (the scatter of MPICH's scatter_* bcasts), the path latest at this
// line.  Throws std::invalid_argument unless has_model.
Cost algorithm_cost(const Configuration& configuration, int size, std::uint64_t msg_bytes, const ModelInputs& inputs,
                    const Line& reference);

// The experiment's time (file comment).
Cost experiment_cost(const Configuration& configuration, int size, std::uint64_t msg_bytes,
                     std::uint64_t gather_bytes, const ModelInputs& inputs, const Line& reference);

// One experiment's measured time at the root.
struct Measured {
    int procs = 0;
    std::uint64_t msg_bytes = 0;
    std::uint64_t gather_bytes = 0;
    double seconds = 0;
};

// alpha and beta of the configuration from its experiments (Huber fit of the
// equations for their relative error, fit_alpha_beta_relative; the paper scales
// them by a, which weights the large messages and, measured on the emulated
// cluster, picked 1.048x the best on average against 1.020x).  The critical paths are chosen at `first`, then
// at the line fitted, until the line stops changing (at most 8 rounds).  Throws
// std::invalid_argument as fit_alpha_beta and algorithm_cost do.
Line fit_experiments(const Configuration& configuration, const std::vector<Measured>& experiments,
                     const ModelInputs& inputs, const Line& first);

// What `hiertune fit` runs for a collective: an -a spec per algorithm (every
// modelled one when `algorithms` is empty; an unmodelled name throws
// std::invalid_argument), seg_* at `segsize`, seg_chain with `chain_fanout`
// chains.  bench's plan_configurations turns them into configurations.
std::vector<AlgorithmSpec> fit_algorithm_specs(const std::string& collective, const std::vector<std::string>& algorithms,
                                               std::uint64_t segsize, int chain_fanout);

// The gather of the experiment at the index-th size: (index + 1) * base.
std::uint64_t experiment_gather_bytes(std::uint64_t base, std::size_t index);

// `count` message sizes from `lo` to `hi` bytes with a constant step in log scale
// (section 5.2), rounded to whole bytes, distinct.  Throws std::invalid_argument
// for lo = 0, hi < lo or count < 2 (count 1: {lo}).
std::vector<std::uint64_t> log_spaced_sizes(std::uint64_t lo, std::uint64_t hi, std::size_t count);

// The eager limit of a job's eager measurements: the largest size up to which every
// measured size has a median below kEagerRatio; 0 when the smallest does not, or none
// is measured.  A send that waits for its receiver returns after the whole one-way
// trip (ratio about 1: 0.99-1.04 on the emulated cluster from 32 KiB); an eager one
// after its own overhead, which at 1-2 KiB is a good part of a short trip (0.42 and
// 0.64 there, 0.03-0.10 at 4-16 KiB): 3/4 tells them apart.
constexpr double kEagerRatio = 0.75;
std::uint64_t eager_limit(const std::vector<StoredEagerPoint>& points);

// Everything fitted from a job's fit points: gamma per segment size (the
// medians of the gamma points), the eager limit and, per (collective, algorithm), alpha and
// beta from all its experiments.  first: the line the critical paths are first
// chosen at (default: 10 us, 1 ns/B).  A configuration whose fit fails is left out with a note.
struct FitResult {
    ModelInputs inputs;
    std::vector<FittedModel> models;
    std::vector<std::string> notes;
};
FitResult fit_points(const std::vector<StoredFitPoint>& points, const std::vector<StoredEagerPoint>& eager,
                     const Line& first = Line{10e-6, 1e-9});

// The model inputs of stored fit points alone (gamma per segment size, the eager
// limit), for predictions with the stored models; a note per segment size without a
// gamma.
ModelInputs inputs_of(const std::vector<StoredFitPoint>& points, const std::vector<StoredEagerPoint>& eager,
                      std::vector<std::string>* notes = nullptr);

// The model of a stored fit as a candidate configuration.
Configuration configuration_of(const FittedModel& model);

// A configuration that selection may pick, with its algorithm's fitted line.
struct Candidate {
    Configuration configuration;
    Line alpha_beta;
};
struct Pick {
    const Candidate* candidate = nullptr;
    double seconds = 0;
};
// The candidates of a collective from its fitted models: each MPICH algorithm as
// fitted, each seg_* tree at every segment size (and seg_chain at every fanout)
// with its algorithm's fitted line.
std::vector<Candidate> candidates_of(const std::vector<FittedModel>& models, const std::string& collective,
                                     const std::vector<std::uint64_t>& segsizes, const std::vector<int>& chain_fanouts);

// The predicted time of a candidate.
double predict(const Candidate& candidate, int size, std::uint64_t msg_bytes, const ModelInputs& inputs);
// nullopt where the model does not apply (MPICH runs another algorithm there,
// e.g. reduce_scatter_gather below pof2 elements) or lacks an input.
std::optional<double> predict_if_modelled(const Candidate& candidate, int size, std::uint64_t msg_bytes,
                                          const ModelInputs& inputs);
// The candidate with the least predicted time where its model applies (ties:
// the first given); nullopt when there is none.
std::optional<Pick> best_candidate(const std::vector<Candidate>& candidates, int size, std::uint64_t msg_bytes,
                                   const ModelInputs& inputs);

// The smallest message size of the experiments (0: none).  Below it the models
// extrapolate a line whose start-up cost the fit may have clamped at 0: the trees
// they make keep MPICH's own selection there.
std::uint64_t smallest_fitted_size(const std::vector<StoredFitPoint>& points);

// The CVAR of a seg_* parameter of the collective ("segsize" -> MPIR_CVAR_BCAST_SEG_SEGSIZE),
// from the plugin's grammar.
std::string seg_param_cvar(const std::string& collective, const std::string& param);

}  // namespace hiertune::analytic
