/*
 * mpich-hier: internal interface of the plugin (MPICH internal API).
 */

#ifndef HIER_IMPL_H_INCLUDED
#define HIER_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "hier_levels.h"
#include "hier_segment.h"
#include "hier_trees.h"
#include "hier_grammar.h"

/* Per-communicator levels, built on first use and freed with the communicator. */
typedef struct {
    int building;               /* sub-communicators under construction */
    int reentered;              /* single-node hier running on this comm */
    MPII_Hier_levels levels;
    int my_node;
    int my_local;
    MPIR_Comm *node_comm;       /* NULL when my node has one rank */
    int own_node_comm;          /* node_comm was split by us, not comm->node_comm */
    MPIR_Comm **column_comm;    /* [max_ppn]: leaders of column j, NULL if not a member */
    int own_column0;            /* column_comm[0] was split by us, not comm->node_roots_comm */
    char *column_ready;         /* [max_ppn] */
} MPII_Hier_comm;

/* The levels of comm, built if needed.  Sets *hier to NULL while they are being built
 * (a collective issued by our own communicator creation): callers then run flat. */
int MPII_Hier_get(MPIR_Comm * comm, MPII_Hier_comm ** hier);
/* The leaders' communicator of column j (collective over comm on first use). */
int MPII_Hier_column_comm(MPIR_Comm * comm, MPII_Hier_comm * hier, int column,
                          MPIR_Comm ** column_comm);

/* Counters exposed as MPI_T pvars (class COUNTER, category COLLECTIVE): how often each
 * plugin algorithm ran, and how many pipeline segments it moved. */
enum {
    MPII_HIER_PVAR_BCAST_HIER,
    MPII_HIER_PVAR_BCAST_HIER_SEGMENTS,
    MPII_HIER_PVAR_REDUCE_HIER,
    MPII_HIER_PVAR_REDUCE_HIER_SEGMENTS,
    MPII_HIER_PVAR_ALLREDUCE_HIER,
    MPII_HIER_PVAR_ALLREDUCE_HIER_SEGMENTS,
    MPII_HIER_PVAR_FLAT_FALLBACKS,
    /* segmented trees (blocking MPIR_<Coll>_intra_seg_*): calls per algorithm as the
     * caller chose it, and segments moved */
    MPII_HIER_PVAR_BCAST_SEG_LINEAR,
    MPII_HIER_PVAR_BCAST_SEG_CHAIN,
    MPII_HIER_PVAR_BCAST_SEG_PIPELINE,
    MPII_HIER_PVAR_BCAST_SEG_BINARY,
    MPII_HIER_PVAR_BCAST_SEG_SPLIT_BINARY,
    MPII_HIER_PVAR_BCAST_SEG_BINOMIAL,
    MPII_HIER_PVAR_BCAST_SEG_SEGMENTS,
    MPII_HIER_PVAR_REDUCE_SEG_LINEAR,
    MPII_HIER_PVAR_REDUCE_SEG_CHAIN,
    MPII_HIER_PVAR_REDUCE_SEG_PIPELINE,
    MPII_HIER_PVAR_REDUCE_SEG_BINARY,
    MPII_HIER_PVAR_REDUCE_SEG_BINOMIAL,
    MPII_HIER_PVAR_REDUCE_SEG_IN_ORDER_BINARY,
    MPII_HIER_PVAR_REDUCE_SEG_SEGMENTS,
    /* seg reduces (blocking or inter-node submodule) with a non-commutative op that ran
     * the in-order binary tree instead of the tree asked for */
    MPII_HIER_PVAR_REDUCE_SEG_IN_ORDER_SUBST,
    MPII_HIER_PVAR_MPIR_ROUTED,
    MPII_HIER_PVAR_COUNT
};
extern unsigned long long MPII_Hier_pvars[MPII_HIER_PVAR_COUNT];
#define MPII_HIER_PVAR_ADD(which_, n_) (MPII_Hier_pvars[MPII_HIER_PVAR_##which_] += (n_))

/* Submodules of a hierarchical algorithm (HAN Table II): MPII_HIER_INTER_* and
 * MPII_HIER_INTRA_*, the values of their CVARs, come from the grammar (hier_grammar.h). */

/* Parameters of one call; a negative argument means "take the CVAR". */
typedef struct {
    int segsize;                /* pipeline segment fs, bytes, 0 = one segment */
    int inter_algo;
    int inter_k;                /* radix of tsp_kary / tsp_knomial */
    int inter_chunk;            /* bytes, pipelining inside one inter-node step, 0 = none */
    int intra_algo;
} MPII_Hier_params;

/* Fill prm from the call's arguments, each negative one from its CVAR, and check it;
 * n_inter_algos: the number of items of the collective's inter-node CVAR. */
int MPII_Hier_params_resolve(MPII_Hier_params * prm, const MPII_Hier_params * given,
                             const MPII_Hier_params * cvars, int n_inter_algos);

/* Inter-node steps: start a non-blocking bcast / reduce on the leaders' comm. */
int MPII_Hier_start_ibcast(void *buf, MPI_Aint count, MPI_Datatype datatype, int root,
                           MPIR_Comm * comm, const MPII_Hier_params * prm, MPIR_Request ** req);
int MPII_Hier_start_ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                            const MPII_Hier_params * prm, MPIR_Request ** req);
/* The one-step inter-node allreduce (tsp_allreduce_ring, commutative ops), in place. */
int MPII_Hier_start_iallreduce(void *buf, MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                               MPIR_Comm * comm, MPIR_Request ** req);
/* Intra-node steps: blocking bcast / reduce on the node comm.  Never MPIR_<Coll>_impl
 * directly: a forced hier CVAR would send it straight back to the plugin. */
int MPII_Hier_intra_bcast(void *buf, MPI_Aint count, MPI_Datatype datatype, int root,
                          MPIR_Comm * node_comm, int intra_algo, MPIR_Errflag_t * errflag);
int MPII_Hier_intra_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * node_comm,
                           int intra_algo, MPIR_Errflag_t * errflag);
/* Wait for a started inter-node step, if any, and release it. */
int MPII_Hier_wait(MPIR_Request ** req, MPIR_Errflag_t * errflag);

/* Segmented trees (bcast_intra_seg.c, reduce_intra_seg.c): one engine per collective,
 * driven by the tree shape.  segsize in bytes (0: one segment), fanout for CHAIN,
 * window: segments posted ahead (bounds the outstanding requests).  The reduce runs
 * IN_ORDER_BINARY instead of the shape asked for when op is not commutative. */
int MPII_Hier_seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                        MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize, int fanout,
                        int window, MPIR_Errflag_t * errflag);
int MPII_Hier_seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                         MPII_Hier_tree_kind kind, int segsize, int fanout, int window,
                         MPIR_Errflag_t * errflag);
/* The same trees as transport schedules (hier_seg_sched.c), the inter-node submodules:
 * segments of whole elements of datatype, receives and sends chained by vertex
 * dependencies so that segments pipeline with at most `window` in flight per peer. */
int MPII_Hier_seg_ibcast_sched(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                               MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize,
                               int fanout, int window, MPIR_TSP_sched_t sched);
int MPII_Hier_seg_ireduce_sched(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                                MPII_Hier_tree_kind kind, int segsize, int fanout, int window,
                                MPIR_TSP_sched_t sched);
/* The tree a reduce with op actually runs (IN_ORDER_BINARY for non-commutative ops),
 * counting a substitution in the pvar. */
MPII_Hier_tree_kind MPII_Hier_seg_reduce_kind(MPII_Hier_tree_kind kind, MPI_Op op);
/* SPLIT_BINARY: bytes (or elements) in the first half of n units, whole units. */
static inline MPI_Aint MPII_Hier_split_first_half(MPI_Aint n)
{
    return (n + 1) / 2;
}

/* Whether a device shm collective of an intra-node step is running (its set-up issues
 * collectives on the node comm that a forced hier brings back to the plugin). */
int MPII_Hier_shm_running(void);

/* The call counts in the algorithm's pvar: a user's call, not one MPICH issues while
 * the plugin creates its comms (hier NULL), sets up a device shm step, or re-enters
 * a single-node hier. */
static inline int MPII_Hier_is_user_call(const MPII_Hier_comm * hier)
{
    return hier && !hier->reentered && !MPII_Hier_shm_running();
}

/* Csel JSON (hier_json.c): whether a container id is one of the plugin's algorithms */
int MPII_Hier_csel_is_plugin_container(int id);

/* What an algorithm returns after its steps recorded their errors with
 * MPIR_ERR_COLL_CHECKANDCONT and went on (so one failed peer does not hang the others):
 * the recorded errors first, as MPICH's algorithms do. */
int MPII_Hier_final_errno(int mpi_errno, int mpi_errno_ret, MPIR_Errflag_t * errflag);

/* The payload of (buf, count, datatype) as contiguous bytes: buf itself when the
 * type is contiguous, else a packed copy that MPII_Hier_payload_finish unpacks.  Bcasts
 * cut it into segments by bytes: ranks may describe the same signature with different
 * datatypes (MPI_2INT at the root, twice as many MPI_INT elsewhere), so only byte
 * offsets are the same on every rank. */
typedef struct {
    char *bytes;
    MPI_Aint nbytes;
    void *packed;               /* temporary, NULL when contiguous */
} MPII_Hier_payload;

int MPII_Hier_payload_start(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                            MPI_Datatype datatype, int pack_now);
int MPII_Hier_payload_finish(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, int unpack);


#endif /* HIER_IMPL_H_INCLUDED */
