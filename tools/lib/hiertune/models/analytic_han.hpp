// The fitted analytic models as the inter-node stages of the HAN task model
// (issue 17): hier candidates with a seg_* inter-node submodule, which `hiertune
// tasks` cannot time, derived from a measured candidate of the same segment size
// and intra-node submodule.  No MPI.
//
// A seg_* inter-node stage runs the plugin's segmented tree among the N node
// leaders (hier_submodules.c: MPII_Hier_seg_ibcast_sched / _ireduce_sched with
// inter_chunk as its segment size and inter_k as seg_chain's fanout), so its
// cost on one fs-byte HAN segment is the tree's analytic model at P = N,
// m = fs, fitted on one rank per node (`hiertune fit`): ib for the bcast tree,
// ir for the reduce tree.  The intra-node stages (sb, sr) are the measured
// candidate's.  A task running several stages at once (sbib, irsr, ...) keeps
// the measured candidate's overlap: per leader,
//
//   T'(task) = T(task) * max over its stages of T'(stage) / max over its stages of T(stage)
//
// (the stages' costs T from the measured single-stage tasks), which is exact
// for the single-stage tasks and keeps the measured ratio between a combined
// task and its slowest stage.  The one-step allreduce (inter_algo
// tsp_allreduce_ring) has no seg_* form.
#pragma once

#include <cstdint>
#include <vector>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/models/han_model.hpp"

namespace hiertune::analytic {

// Per (segment size, intra_algo) the first measured candidate (in the order
// given) with ib and sb (bcast) or sr, ir, ib and sb (allreduce) measured and a
// two-level inter stage, and from it one candidate per target configuration
// with that intra_algo: a seg_* inter_algo whose fitted model(s) exist
// (allreduce: the bcast and the reduce tree of that name), inter_chunk (absent:
// 0, the HAN segment in one piece) below the segment size, and inter_k as
// seg_chain's fanout (absent: 2).  The candidate's config is the target's.
// nodes >= 2; targets that are not seg_* are ignored.
std::vector<han::Candidate> seg_inter_candidates(han::Collective collective, const std::vector<han::Candidate>& measured,
                                                 const std::vector<FittedModel>& models, const ModelInputs& inputs,
                                                 int nodes, const std::vector<Params>& targets);

// Targets for seg_inter_candidates without a search space: every seg_* inter-node
// submodule of the collective (the grammar's) x chunks x (seg_chain) fanouts x
// the intra_algo values of the measured candidates.
std::vector<Params> seg_inter_targets(han::Collective collective, const std::vector<han::Candidate>& measured,
                                      const std::vector<std::uint64_t>& chunks, const std::vector<int>& chain_fanouts);

// Whether a configuration's inter-node submodule is a seg_* tree.
bool is_seg_inter(const Params& config);

// A task's stages: "sbibir" -> {"sb", "ib", "ir"}.  Throws std::invalid_argument
// for a name that is not a sequence of sb, ib, ia, ir, sr.
std::vector<std::string> task_stages(const std::string& task);

}  // namespace hiertune::analytic
