/*
 * mpich-hier: the plugin's grammar, written once.  Its algorithms, their Csel JSON
 * parameters and the values those take, as X-macro tables with no includes: the C
 * plugin (container ids, parameter blocks, CVAR checks, the parser), the C++ tools
 * (tools/lib/tree/grammar.cpp) and the test scripts (test/mpi/coll/make_hier_tree.py reads
 * this file) all take them from here.
 *
 * MPII_HIER_COLLECTIVES(X)          X(coll, Coll, COLL): a collective with plugin algorithms
 * MPII_HIER_ALGORITHMS_<COLL>(X)    X(coll, Coll, COLL, algo, PARAMS): container
 *                                   "MPIR_<Coll>_intra_<algo>", CVAR item
 *                                   MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<algo>, its JSON
 *                                   parameters MPII_HIER_PARAMS_<PARAMS>
 * MPII_HIER_SCHED_ALGORITHMS(X)     X(icoll, Icoll, ICOLL, algo, coll): the non-blocking and
 *                                   persistent form of coll's algorithm (MPI_I<coll>,
 *                                   MPI_<Coll>_init), the gentran schedule
 *                                   MPIR_TSP_<Icoll>_sched_intra_hier: MPICH's <icoll>-intra
 *                                   algorithm <algo> (a tsp_ name: gen_coll.py builds a
 *                                   gentran schedule for it), container
 *                                   "MPIR_<Icoll>_intra_<algo>", CVAR item
 *                                   MPIR_CVAR_<ICOLL>_INTRA_ALGORITHM=<algo>; no JSON
 *                                   parameters: it takes coll's hier parameters from their
 *                                   CVARs
 * MPII_HIER_PARAMS_<PARAMS>(INT, NAME)
 *                                   INT(param, min, CVAR): an integer in min..INT_MAX;
 *                                   NAME(param, LIST, CVAR): a name of MPII_HIER_<LIST>.
 *                                   A parameter left out follows its CVAR,
 *                                   MPIR_CVAR_<COLL>_<CVAR>, at call time.
 * MPII_HIER_INTER_ALGOS(ALL, OWN)   inter-node submodules of the tree collectives (bcast,
 *                                   reduce, allreduce), in CVAR order: ALL(name, NAME) of
 *                                   each, then OWN(coll, COLL, name, NAME), one
 *                                   collective's own last item
 * MPII_HIER_LISTED_COLLECTIVES(X)   X(coll, COLL): a collective whose inter-node submodules
 *                                   are a list of its own, MPII_HIER_INTER_ALGOS_<COLL>(X),
 *                                   X(name, NAME) in CVAR order (values
 *                                   MPII_HIER_<COLL>_INTER_<NAME>)
 * MPII_HIER_INTRA_ALGOS(X)          X(name, NAME): intra-node submodules, in CVAR order
 *
 * One entry per line: the scripts read the lines, not the C preprocessor.
 */

#ifndef HIER_GRAMMAR_H_INCLUDED
#define HIER_GRAMMAR_H_INCLUDED

#define MPII_HIER_COLLECTIVES(X) \
    X(bcast, Bcast, BCAST) \
    X(reduce, Reduce, REDUCE) \
    X(allreduce, Allreduce, ALLREDUCE) \
    X(allgather, Allgather, ALLGATHER) \
    X(gather, Gather, GATHER) \
    X(scatter, Scatter, SCATTER) \
    X(barrier, Barrier, BARRIER) \
    X(scan, Scan, SCAN) \
    X(exscan, Exscan, EXSCAN) \
    X(reduce_scatter, Reduce_scatter, REDUCE_SCATTER) \
    X(reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK) \
    X(allgatherv, Allgatherv, ALLGATHERV) \
    X(alltoall, Alltoall, ALLTOALL) \
    X(alltoallv, Alltoallv, ALLTOALLV) \
    X(gatherv, Gatherv, GATHERV) \
    X(scatterv, Scatterv, SCATTERV)

#define MPII_HIER_ALGORITHMS_BCAST(X) \
    X(bcast, Bcast, BCAST, hier, HIER) \
    X(bcast, Bcast, BCAST, seg_linear, SEG) \
    X(bcast, Bcast, BCAST, seg_chain, SEG_CHAIN) \
    X(bcast, Bcast, BCAST, seg_pipeline, SEG) \
    X(bcast, Bcast, BCAST, seg_binary, SEG) \
    X(bcast, Bcast, BCAST, seg_split_binary, SEG) \
    X(bcast, Bcast, BCAST, seg_binomial, SEG)

#define MPII_HIER_ALGORITHMS_REDUCE(X) \
    X(reduce, Reduce, REDUCE, hier, HIER) \
    X(reduce, Reduce, REDUCE, seg_linear, SEG) \
    X(reduce, Reduce, REDUCE, seg_chain, SEG_CHAIN) \
    X(reduce, Reduce, REDUCE, seg_pipeline, SEG) \
    X(reduce, Reduce, REDUCE, seg_binary, SEG) \
    X(reduce, Reduce, REDUCE, seg_binomial, SEG) \
    X(reduce, Reduce, REDUCE, seg_in_order_binary, SEG)

#define MPII_HIER_ALGORITHMS_ALLREDUCE(X) \
    X(allreduce, Allreduce, ALLREDUCE, hier, HIER)

#define MPII_HIER_ALGORITHMS_ALLGATHER(X) \
    X(allgather, Allgather, ALLGATHER, hier, HIER_DATA)

#define MPII_HIER_ALGORITHMS_GATHER(X) \
    X(gather, Gather, GATHER, hier, HIER_STEPS)

#define MPII_HIER_ALGORITHMS_SCATTER(X) \
    X(scatter, Scatter, SCATTER, hier, HIER_STEPS)

#define MPII_HIER_ALGORITHMS_BARRIER(X) \
    X(barrier, Barrier, BARRIER, hier, HIER_STEPS)

#define MPII_HIER_ALGORITHMS_SCAN(X) \
    X(scan, Scan, SCAN, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_EXSCAN(X) \
    X(exscan, Exscan, EXSCAN, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_REDUCE_SCATTER(X) \
    X(reduce_scatter, Reduce_scatter, REDUCE_SCATTER, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_REDUCE_SCATTER_BLOCK(X) \
    X(reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_ALLGATHERV(X) \
    X(allgatherv, Allgatherv, ALLGATHERV, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_ALLTOALL(X) \
    X(alltoall, Alltoall, ALLTOALL, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_ALLTOALLV(X) \
    X(alltoallv, Alltoallv, ALLTOALLV, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_GATHERV(X) \
    X(gatherv, Gatherv, GATHERV, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS_SCATTERV(X) \
    X(scatterv, Scatterv, SCATTERV, hier, HIER_TOP)

#define MPII_HIER_ALGORITHMS(X) \
    MPII_HIER_ALGORITHMS_BCAST(X) \
    MPII_HIER_ALGORITHMS_REDUCE(X) \
    MPII_HIER_ALGORITHMS_ALLREDUCE(X) \
    MPII_HIER_ALGORITHMS_ALLGATHER(X) \
    MPII_HIER_ALGORITHMS_GATHER(X) \
    MPII_HIER_ALGORITHMS_SCATTER(X) \
    MPII_HIER_ALGORITHMS_BARRIER(X) \
    MPII_HIER_ALGORITHMS_SCAN(X) \
    MPII_HIER_ALGORITHMS_EXSCAN(X) \
    MPII_HIER_ALGORITHMS_REDUCE_SCATTER(X) \
    MPII_HIER_ALGORITHMS_REDUCE_SCATTER_BLOCK(X) \
    MPII_HIER_ALGORITHMS_ALLGATHERV(X) \
    MPII_HIER_ALGORITHMS_ALLTOALL(X) \
    MPII_HIER_ALGORITHMS_ALLTOALLV(X) \
    MPII_HIER_ALGORITHMS_GATHERV(X) \
    MPII_HIER_ALGORITHMS_SCATTERV(X)

#define MPII_HIER_SCHED_ALGORITHMS(X) \
    X(ibcast, Ibcast, IBCAST, tsp_hier, bcast) \
    X(ireduce, Ireduce, IREDUCE, tsp_hier, reduce) \
    X(iallreduce, Iallreduce, IALLREDUCE, tsp_hier, allreduce) \
    X(iallgather, Iallgather, IALLGATHER, tsp_hier, allgather) \
    X(igather, Igather, IGATHER, tsp_hier, gather) \
    X(iscatter, Iscatter, ISCATTER, tsp_hier, scatter) \
    X(ibarrier, Ibarrier, IBARRIER, tsp_hier, barrier) \
    X(iscan, Iscan, ISCAN, tsp_hier, scan) \
    X(iexscan, Iexscan, IEXSCAN, tsp_hier, exscan) \
    X(ireduce_scatter, Ireduce_scatter, IREDUCE_SCATTER, tsp_hier, reduce_scatter) \
    X(ireduce_scatter_block, Ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, tsp_hier, reduce_scatter_block) \
    X(iallgatherv, Iallgatherv, IALLGATHERV, tsp_hier, allgatherv) \
    X(ialltoall, Ialltoall, IALLTOALL, tsp_hier, alltoall) \
    X(ialltoallv, Ialltoallv, IALLTOALLV, tsp_hier, alltoallv) \
    X(igatherv, Igatherv, IGATHERV, tsp_hier, gatherv) \
    X(iscatterv, Iscatterv, ISCATTERV, tsp_hier, scatterv)

/* HAN Table II: segment size (bytes, 0 = one segment), inter-node submodule, its radix
 * (tsp_kary, tsp_knomial; fanout of seg_chain), its pipeline chunk (bytes, 0 = none),
 * intra-node submodule; then the same three of the inter-node submodule for the steps
 * among the leaders of switch groups, the levels above the node, and for the steps among
 * the leaders of packages, NUMA nodes or L3 caches, the levels inside the node above the
 * finest (doc/multilevel.md) */
#define MPII_HIER_PARAMS_HIER(INT, NAME) \
    INT(segsize, 0, HIER_SEGSIZE) \
    NAME(inter_algo, INTER_ALGOS, HIER_INTER_ALGORITHM) \
    INT(inter_k, 1, HIER_INTER_KVAL) \
    INT(inter_chunk, 0, HIER_INTER_CHUNK_SIZE) \
    NAME(intra_algo, INTRA_ALGOS, HIER_INTRA_ALGORITHM) \
    NAME(up_inter_algo, INTER_ALGOS, HIER_UP_INTER_ALGORITHM) \
    INT(up_inter_k, 1, HIER_UP_INTER_KVAL) \
    INT(up_inter_chunk, 0, HIER_UP_INTER_CHUNK_SIZE) \
    NAME(down_inter_algo, INTER_ALGOS, HIER_DOWN_INTER_ALGORITHM) \
    INT(down_inter_k, 1, HIER_DOWN_INTER_KVAL) \
    INT(down_inter_chunk, 0, HIER_DOWN_INTER_CHUNK_SIZE)

/* allgather: segment size (bytes, 0 = one segment per node's block) of the leaders'
 * exchange, inter-node submodule, intra-node submodule */
#define MPII_HIER_PARAMS_HIER_DATA(INT, NAME) \
    INT(segsize, 0, HIER_SEGSIZE) \
    NAME(inter_algo, INTER_ALGOS, HIER_INTER_ALGORITHM) \
    NAME(intra_algo, INTRA_ALGOS, HIER_INTRA_ALGORITHM)

/* gather, scatter, barrier: inter-node submodule, intra-node submodule */
#define MPII_HIER_PARAMS_HIER_STEPS(INT, NAME) \
    NAME(inter_algo, INTER_ALGOS, HIER_INTER_ALGORITHM) \
    NAME(intra_algo, INTRA_ALGOS, HIER_INTRA_ALGORITHM)

/* scan, exscan, reduce_scatter, reduce_scatter_block, allgatherv, alltoall, alltoallv,
 * gatherv, scatterv: the algorithm among the top leaders (the steps below it run their
 * own: the scan's recursive doubling, the reduce-scatter's binomial reduce and scatter,
 * the allgatherv's, the alltoall's, the alltoallv's, the gatherv's and the scatterv's
 * binomial gather and scatter or bcast; the alltoallv's direct exchange has no leaders) */
#define MPII_HIER_PARAMS_HIER_TOP(INT, NAME) \
    NAME(inter_algo, INTER_ALGOS, HIER_INTER_ALGORITHM)

/* the segmented trees: segment size in bytes (0 = one segment); seg_chain's number of
 * chains */
#define MPII_HIER_PARAMS_SEG(INT, NAME) \
    INT(segsize, 0, SEG_SEGSIZE)

#define MPII_HIER_PARAMS_SEG_CHAIN(INT, NAME) \
    INT(segsize, 0, SEG_SEGSIZE) \
    INT(fanout, 1, SEG_FANOUT)

#define MPII_HIER_INTER_ALGOS(ALL, OWN) \
    ALL(auto, AUTO) \
    ALL(sched_binomial, SCHED_BINOMIAL) \
    ALL(tsp_kary, TSP_KARY) \
    ALL(tsp_knomial, TSP_KNOMIAL) \
    ALL(tsp_ring, TSP_RING) \
    ALL(seg_linear, SEG_LINEAR) \
    ALL(seg_chain, SEG_CHAIN) \
    ALL(seg_pipeline, SEG_PIPELINE) \
    ALL(seg_binary, SEG_BINARY) \
    ALL(seg_binomial, SEG_BINOMIAL) \
    ALL(by_size, BY_SIZE) \
    OWN(bcast, BCAST, seg_split_binary, SEG_SPLIT_BINARY) \
    OWN(reduce, REDUCE, seg_in_order_binary, SEG_IN_ORDER_BINARY) \
    OWN(allreduce, ALLREDUCE, tsp_allreduce_ring, TSP_ALLREDUCE_RING)

/* The list item that runs one of its list's others, chosen by the message's size
 * (hier_by_size.h), as the CVARs and JSON spell it: its runs are those of the others */
#define MPII_HIER_BY_SIZE_ITEM "by_size"

#define MPII_HIER_LISTED_COLLECTIVES(X) \
    X(allgather, ALLGATHER) \
    X(gather, GATHER) \
    X(scatter, SCATTER) \
    X(barrier, BARRIER) \
    X(scan, SCAN) \
    X(exscan, EXSCAN) \
    X(reduce_scatter, REDUCE_SCATTER) \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK) \
    X(allgatherv, ALLGATHERV) \
    X(alltoall, ALLTOALL) \
    X(alltoallv, ALLTOALLV) \
    X(gatherv, GATHERV) \
    X(scatterv, SCATTERV)

#define MPII_HIER_INTER_ALGOS_ALLGATHER(X) \
    X(auto, AUTO) \
    X(ring, RING) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_GATHER(X) \
    X(linear, LINEAR) \
    X(binomial, BINOMIAL) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_SCATTER(X) \
    X(linear, LINEAR) \
    X(binomial, BINOMIAL) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_BARRIER(X) \
    X(auto, AUTO) \
    X(dissemination, DISSEMINATION)

#define MPII_HIER_INTER_ALGOS_SCAN(X) \
    X(recursive_doubling, RECURSIVE_DOUBLING) \
    X(linear, LINEAR) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_EXSCAN(X) \
    X(recursive_doubling, RECURSIVE_DOUBLING) \
    X(linear, LINEAR) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_REDUCE_SCATTER(X) \
    X(linear, LINEAR)

#define MPII_HIER_INTER_ALGOS_REDUCE_SCATTER_BLOCK(X) \
    X(linear, LINEAR)

#define MPII_HIER_INTER_ALGOS_ALLGATHERV(X) \
    X(linear, LINEAR)

#define MPII_HIER_INTER_ALGOS_ALLTOALL(X) \
    X(linear, LINEAR) \
    X(brucks, BRUCKS) \
    X(direct, DIRECT) \
    X(by_size, BY_SIZE)

#define MPII_HIER_INTER_ALGOS_ALLTOALLV(X) \
    X(direct, DIRECT) \
    X(linear, LINEAR)

#define MPII_HIER_INTER_ALGOS_GATHERV(X) \
    X(linear, LINEAR)

#define MPII_HIER_INTER_ALGOS_SCATTERV(X) \
    X(linear, LINEAR)

#define MPII_HIER_INTRA_ALGOS(X) \
    X(auto, AUTO) \
    X(binomial, BINOMIAL) \
    X(shm, SHM) \
    X(by_size, BY_SIZE)

/* The parameter the plugin reads on MPICH's own algorithms in an MPIR tree: with
 * "whole_comm=1" the algorithm runs on the whole of a multi-node comm (the MPIR level,
 * as hiertune measures a forced algorithm, device step off), not inside MPICH's CH4
 * composition on its node and leader comms.  hiertune writes it on every tuned leaf that
 * names one of MPICH's algorithms; MPICH's container parser ignores it. */
#define MPII_HIER_WHOLE_COMM_PARAM "whole_comm"

/* What MPICH's own algorithms need from the branch that selects them (they assert, move
 * no data, or combine in the wrong order otherwise): X(container, condition), where the
 * condition is a key that must be on the path, or !KEY: a test whose failure branch the
 * path takes (a key after it in its object, as the shipped tree guards count >= pof2).
 * One row per condition.  Read off MPICH 5.0.1's algorithm files (their MPIR_Assert calls),
 * ch4_coll.h's checks before a forced composition (a composition that reduces on the
 * node first combines out of rank order) and coll_algorithms.txt's "commutative" restrictions (ring and smp allreduce reduce in
 * arrival order; the shipped tree selects smp under is_commutative=yes).  Its other
 * restrictions are stricter than the code (they decide a forced CVAR's fallback:
 * MPIR_Allreduce_intra_smp runs on any comm, and the shipped tree selects it without
 * comm_hierarchy=parent). */
#define MPII_HIER_MPICH_REQUIREMENTS(X) \
    X(MPIR_Bcast_intra_smp, comm_hierarchy=parent) \
    X(MPIR_Barrier_intra_smp, comm_hierarchy=parent) \
    X(MPIR_Reduce_intra_smp, is_commutative=yes) \
    X(MPIR_Reduce_intra_reduce_scatter_gather, is_op_built_in=yes) \
    X(MPIR_Reduce_intra_reduce_scatter_gather, !count<pow2) \
    X(MPIR_Allreduce_intra_reduce_scatter_allgather, is_op_built_in=yes) \
    X(MPIR_Allreduce_intra_reduce_scatter_allgather, !count<pow2) \
    X(MPIR_Allreduce_intra_k_reduce_scatter_allgather, is_commutative=yes) \
    X(MPIR_Allreduce_intra_recursive_multiplying, is_commutative=yes) \
    X(MPIR_Allreduce_intra_ring, is_commutative=yes) \
    X(MPIR_Allreduce_intra_smp, is_commutative=yes) \
    X(MPIR_Allgather_intra_recursive_doubling, comm_size=pow2) \
    X(MPIR_Allgatherv_intra_recursive_doubling, comm_size=pow2) \
    X(MPIR_Iallgather_intra_sched_recursive_doubling, comm_size=pow2) \
    X(MPIR_Iallgatherv_intra_sched_recursive_doubling, comm_size=pow2) \
    X(MPIR_Scan_intra_smp, is_node_consecutive=yes) \
    X(MPIR_Reduce_scatter_intra_noncommutative, comm_size=pow2) \
    X(MPIR_Reduce_scatter_block_intra_noncommutative, comm_size=pow2) \
    X(MPIR_Reduce_scatter_intra_pairwise, is_commutative=yes) \
    X(MPIR_Reduce_scatter_intra_recursive_halving, is_commutative=yes) \
    X(MPIR_Reduce_scatter_block_intra_pairwise, is_commutative=yes) \
    X(MPIR_Reduce_scatter_block_intra_recursive_halving, is_commutative=yes) \
    X(MPIR_Alltoall_intra_brucks, is_sendbuf_inplace=no) \
    X(MPIR_Alltoall_intra_pairwise, is_sendbuf_inplace=no) \
    X(MPIR_Alltoall_intra_scattered, is_sendbuf_inplace=no) \
    X(MPIR_Alltoall_intra_pairwise_sendrecv_replace, is_sendbuf_inplace=yes) \
    X(MPIR_Ialltoall_intra_sched_brucks, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoall_intra_sched_pairwise, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoall_intra_sched_permuted_sendrecv, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoall_intra_sched_inplace, is_sendbuf_inplace=yes) \
    X(MPIR_Alltoallv_intra_scattered, is_sendbuf_inplace=no) \
    X(MPIR_Alltoallv_intra_pairwise_sendrecv_replace, is_sendbuf_inplace=yes) \
    X(MPIR_Ialltoallv_intra_sched_blocked, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoallv_intra_sched_inplace, is_sendbuf_inplace=yes) \
    X(MPIR_Ialltoallv_intra_tsp_scattered, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoallv_intra_tsp_blocked, is_sendbuf_inplace=no) \
    X(MPIR_Ialltoallv_intra_tsp_inplace, is_sendbuf_inplace=yes) \
    X(MPIR_Alltoallw_intra_scattered, is_sendbuf_inplace=no) \
    X(MPIDI_Bcast_intra_composition_alpha, comm_hierarchy=parent) \
    X(MPIDI_Bcast_intra_composition_beta, comm_hierarchy=parent) \
    X(MPIDI_Reduce_intra_composition_alpha, comm_hierarchy=parent) \
    X(MPIDI_Reduce_intra_composition_alpha, is_commutative=yes) \
    X(MPIDI_Reduce_intra_composition_beta, comm_hierarchy=parent) \
    X(MPIDI_Reduce_intra_composition_beta, is_commutative=yes) \
    X(MPIDI_Allreduce_intra_composition_alpha, comm_hierarchy=parent) \
    X(MPIDI_Allreduce_intra_composition_alpha, is_commutative=yes) \
    X(MPIDI_Barrier_intra_composition_alpha, comm_hierarchy=parent) \
    X(MPIDI_Allreduce_intra_composition_gamma, comm_size=node_comm_size)

/* The composition of each collective CH4 composes that runs MPIR_<Coll>_impl on a
 * multi-node comm whole (its netmod step, ch4_coll.h): where a CH4 tree leaves the call to
 * the MPIR tree.  maint/patches/04 asks MPII_Hier_wants_mpir_level before CH4's selection
 * of each of these collectives, so a whole_comm=1 leaf of them is routed and counted.
 * X(collective, container) */
#define MPII_HIER_CH4_WHOLE_COMM_COMPOSITIONS(X) \
    X(bcast, MPIDI_Bcast_intra_composition_gamma) \
    X(reduce, MPIDI_Reduce_intra_composition_gamma) \
    X(allreduce, MPIDI_Allreduce_intra_composition_beta) \
    X(allgather, MPIDI_Allgather_intra_composition_beta) \
    X(barrier, MPIDI_Barrier_intra_composition_beta) \
    X(scan, MPIDI_Scan_intra_composition_beta) \
    X(reduce_scatter, MPIDI_Reduce_scatter_intra_composition_alpha) \
    X(reduce_scatter_block, MPIDI_Reduce_scatter_block_intra_composition_alpha) \
    X(allgatherv, MPIDI_Allgatherv_intra_composition_alpha) \
    X(alltoall, MPIDI_Alltoall_intra_composition_beta) \
    X(alltoallv, MPIDI_Alltoallv_intra_composition_alpha) \
    X(gatherv, MPIDI_Gatherv_intra_composition_alpha) \
    X(scatterv, MPIDI_Scatterv_intra_composition_alpha)

/* ---- derived from the tables ---- */

/* Submodule numbers: the values of MPIR_CVAR_<COLL>_HIER_INTER_ALGORITHM and
 * _INTRA_ALGORITHM (checked at compile time in hier_json.c).  Each collective's own
 * inter-node submodule takes the slot after the common ones. */
#define MPII_HIER_INTER_ENUM_ALL_(name_, NAME_) MPII_HIER_INTER_##NAME_,
#define MPII_HIER_INTER_ENUM_OWN_(coll_, COLL_, name_, NAME_) \
    MPII_HIER_INTER_##NAME_ = MPII_HIER_INTER_OWN,
#define MPII_HIER_INTER_ENUM_SKIP_ALL_(name_, NAME_)
#define MPII_HIER_INTER_ENUM_SKIP_OWN_(coll_, COLL_, name_, NAME_)
enum {
    MPII_HIER_INTER_ALGOS(MPII_HIER_INTER_ENUM_ALL_, MPII_HIER_INTER_ENUM_SKIP_OWN_)
    MPII_HIER_INTER_OWN,
    MPII_HIER_INTER_ALGOS(MPII_HIER_INTER_ENUM_SKIP_ALL_, MPII_HIER_INTER_ENUM_OWN_)
    MPII_HIER_INTER_COUNT = MPII_HIER_INTER_OWN + 1     /* items of each collective's CVAR */
};
/* MPII_HIER_<COLL>_INTER_<NAME>, MPII_HIER_<COLL>_INTER_COUNT of the listed collectives */
#define MPII_HIER_ALLGATHER_ENUM_(name_, NAME_) MPII_HIER_ALLGATHER_INTER_##NAME_,
#define MPII_HIER_GATHER_ENUM_(name_, NAME_) MPII_HIER_GATHER_INTER_##NAME_,
#define MPII_HIER_SCATTER_ENUM_(name_, NAME_) MPII_HIER_SCATTER_INTER_##NAME_,
#define MPII_HIER_BARRIER_ENUM_(name_, NAME_) MPII_HIER_BARRIER_INTER_##NAME_,
#define MPII_HIER_SCAN_ENUM_(name_, NAME_) MPII_HIER_SCAN_INTER_##NAME_,
#define MPII_HIER_EXSCAN_ENUM_(name_, NAME_) MPII_HIER_EXSCAN_INTER_##NAME_,
#define MPII_HIER_REDUCE_SCATTER_ENUM_(name_, NAME_) MPII_HIER_REDUCE_SCATTER_INTER_##NAME_,
#define MPII_HIER_REDUCE_SCATTER_BLOCK_ENUM_(name_, NAME_) \
    MPII_HIER_REDUCE_SCATTER_BLOCK_INTER_##NAME_,
#define MPII_HIER_ALLGATHERV_ENUM_(name_, NAME_) MPII_HIER_ALLGATHERV_INTER_##NAME_,
#define MPII_HIER_ALLTOALL_ENUM_(name_, NAME_) MPII_HIER_ALLTOALL_INTER_##NAME_,
#define MPII_HIER_ALLTOALLV_ENUM_(name_, NAME_) MPII_HIER_ALLTOALLV_INTER_##NAME_,
#define MPII_HIER_GATHERV_ENUM_(name_, NAME_) MPII_HIER_GATHERV_INTER_##NAME_,
#define MPII_HIER_SCATTERV_ENUM_(name_, NAME_) MPII_HIER_SCATTERV_INTER_##NAME_,
enum { MPII_HIER_INTER_ALGOS_ALLGATHER(MPII_HIER_ALLGATHER_ENUM_) MPII_HIER_ALLGATHER_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_GATHER(MPII_HIER_GATHER_ENUM_) MPII_HIER_GATHER_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_SCATTER(MPII_HIER_SCATTER_ENUM_) MPII_HIER_SCATTER_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_BARRIER(MPII_HIER_BARRIER_ENUM_) MPII_HIER_BARRIER_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_SCAN(MPII_HIER_SCAN_ENUM_) MPII_HIER_SCAN_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_EXSCAN(MPII_HIER_EXSCAN_ENUM_) MPII_HIER_EXSCAN_INTER_COUNT };
enum {
    MPII_HIER_INTER_ALGOS_REDUCE_SCATTER(MPII_HIER_REDUCE_SCATTER_ENUM_)
    MPII_HIER_REDUCE_SCATTER_INTER_COUNT
};
enum {
    MPII_HIER_INTER_ALGOS_REDUCE_SCATTER_BLOCK(MPII_HIER_REDUCE_SCATTER_BLOCK_ENUM_)
    MPII_HIER_REDUCE_SCATTER_BLOCK_INTER_COUNT
};
enum { MPII_HIER_INTER_ALGOS_ALLGATHERV(MPII_HIER_ALLGATHERV_ENUM_) MPII_HIER_ALLGATHERV_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_ALLTOALL(MPII_HIER_ALLTOALL_ENUM_) MPII_HIER_ALLTOALL_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_ALLTOALLV(MPII_HIER_ALLTOALLV_ENUM_) MPII_HIER_ALLTOALLV_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_GATHERV(MPII_HIER_GATHERV_ENUM_) MPII_HIER_GATHERV_INTER_COUNT };
enum { MPII_HIER_INTER_ALGOS_SCATTERV(MPII_HIER_SCATTERV_ENUM_) MPII_HIER_SCATTERV_INTER_COUNT };
#define MPII_HIER_INTRA_ENUM_(name_, NAME_) MPII_HIER_INTRA_##NAME_,
enum {
    MPII_HIER_INTRA_ALGOS(MPII_HIER_INTRA_ENUM_)
    MPII_HIER_INTRA_COUNT
};

/* ---- pure functions (hier_grammar.c; json-c only, no MPI) ---- */

#ifdef __cplusplus
extern "C" {
#endif

struct json_object;

/* The plugin algorithm a container name ("MPIR_Bcast_intra_hier") names: its index in
 * MPII_HIER_ALGORITHMS order, -1 if none. */
int MPII_Hier_grammar_algorithm(const char *container);
/* Parameter "name=value" of algorithm i: its field (position in the algorithm's
 * parameter list) with *value_out set, or -1 when it is not a valid one. */
int MPII_Hier_grammar_param(int i, const char *name, const char *value, int *value_out);
/* Item i of the inter-node submodule list of a listed collective (MPII_HIER_LISTED_COLLECTIVES),
 * NULL past its end or for a collective without a list of its own. */
const char *MPII_Hier_grammar_listed_inter(const char *coll, int i);
/* The number of parameters of algorithm i. */
int MPII_Hier_grammar_param_count(int i);

/* Problems in a tree, one call each: where (keys from the top, " > " between them),
 * what is wrong, and the item. */
typedef void (*MPII_Hier_problem_fn) (void *ctx, const char *where, const char *what,
                                      const char *item);

/* Which tree: MPIR's (algorithm=MPIR_... leaves, MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)
 * or CH4's (composition=MPIDI_... leaves, MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE). */
typedef enum { MPII_HIER_TREE_MPIR, MPII_HIER_TREE_CH4 } MPII_Hier_tree_level;

/* Checks a tree as MPICH 5.0.1 reads and evaluates it (csel.c): every key known, values
 * objects, no empty subtree, an algorithm alone in its object with valid parameters (the
 * plugin's by its grammar, MPICH's by the names MPICH reads), the ANY operator ("any" or
 * "<name>=any") last in its chain and no bound last in its chain (csel.c's validate_tree
 * asserts on both), bounds that fit an int, MPICH's algorithms only where their
 * requirements hold, and in an MPIR tree a chain of bounds ended by an ANY key or holding
 * two tests that leave no call out (MPIR asserts when nothing matches; CH4 falls back to
 * MPIR).  Reports each problem through fn; returns their number. */
int MPII_Hier_check_tree(struct json_object *tree, MPII_Hier_tree_level level,
                         MPII_Hier_problem_fn fn, void *ctx);
/* Reads a JSON file; on failure reports (where = "") why, with line and column of a
 * syntax error, and returns NULL. */
struct json_object *MPII_Hier_read_tree(const char *path, MPII_Hier_problem_fn fn, void *ctx);

/* Whether a leaf of a tree ({"algorithm=MPIR_...": {params}}, as MPICH's parser hands it
 * to its container callback) names one of MPICH's algorithms with "whole_comm=1". */
int MPII_Hier_whole_comm_leaf(struct json_object *leaf);

#ifdef __cplusplus
}
#endif

#endif /* HIER_GRAMMAR_H_INCLUDED */
