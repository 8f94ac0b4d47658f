/*
 * mpich-hier: the critical path of a collective, counted in messages.  Pure: no MPI.
 *
 * A shape is nnodes nodes of ppn ranks; rank r is on node r / ppn (block placement) or
 * r % nnodes (cyclic).  A count is the number of sequential inter-node messages and of
 * intra-node steps on the longest path of the collective, a rank sending one message at
 * a time and receiving one at a time (one port each way):
 *  - a rank's k-th send leaves once its previous sends have arrived and once everything
 *    it received before that send (in its program order) has arrived;
 *  - a rank's k-th receive completes once its previous receive has completed, so that a
 *    binomial reduce costs what its mirror, the binomial bcast, costs (ceil(log2 n)
 *    messages, as hier_by_size.h counts both);
 *  - receives posted at once (MPI_Irecv, then MPI_Waitall: an alltoall's) hold none of the
 *    rank's sends before its next waitall; they complete in the order posted (posted in
 *    the order their messages arrive), and a blocking receive after them after them;
 *  - a shared-memory step (the device's release_gather: every rank of a node to or from
 *    its leader at once) is one intra-node step, not one message per rank.
 * The longest path weighs an inter-node message far more than an intra-node one (2^20 to
 * 1), so it is the path with the most inter-node messages and, among those, the most
 * intra-node ones; the count reports both numbers of that path.
 *
 * Two sources of counts:
 *  - hier's default plan (the by_size submodules): the algorithm of each step picked by
 *    hier_by_size.h as the plugin picks it, counted with its hops (MPII_Hier_sized_hops;
 *    the alltoall's exchange: simulated);
 *  - MPICH 5.0.1's algorithms on the same shape: their message pattern, as their source
 *    sends it, simulated on the nnodes * ppn ranks (root rank 0, commutative op; a
 *    message's size never changes the pattern of these).
 * MPII_Hier_cpath_compare sets one against the best of the other.
 */

#ifndef HIER_CRITICAL_PATH_H_INCLUDED
#define HIER_CRITICAL_PATH_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The simulator keeps every message: ring algorithms send 2 P^2 of them. */
#define MPII_HIER_CPATH_MAX_RANKS 1024

typedef enum {
    MPII_HIER_CPATH_BLOCK,      /* rank r on node r / ppn */
    MPII_HIER_CPATH_CYCLIC      /* rank r on node r % nnodes */
} MPII_Hier_cpath_placement;

typedef struct {
    int nnodes;
    int ppn;
    MPII_Hier_cpath_placement placement;
} MPII_Hier_cpath_shape;

typedef struct {
    int inter;                  /* sequential inter-node messages */
    int intra;                  /* intra-node steps */
} MPII_Hier_cpath_count;

typedef enum {
    MPII_HIER_CPATH_BCAST,
    MPII_HIER_CPATH_REDUCE,
    MPII_HIER_CPATH_ALLREDUCE,
    MPII_HIER_CPATH_ALLGATHER,
    MPII_HIER_CPATH_GATHER,
    MPII_HIER_CPATH_SCATTER,
    MPII_HIER_CPATH_BARRIER,
    MPII_HIER_CPATH_ALLTOALL,
    MPII_HIER_CPATH_GATHERV,
    MPII_HIER_CPATH_SCATTERV
} MPII_Hier_cpath_coll;

#define MPII_HIER_CPATH_NCOLLS (MPII_HIER_CPATH_SCATTERV + 1)

/* "bcast", ...; NULL outside the enum */
const char *MPII_Hier_cpath_coll_name(MPII_Hier_cpath_coll coll);
/* The collective named name, -1 when none is */
int MPII_Hier_cpath_coll_parse(const char *name);

/* 1 when nnodes, ppn and the placement make a shape of at most
 * MPII_HIER_CPATH_MAX_RANKS ranks */
int MPII_Hier_cpath_shape_valid(const MPII_Hier_cpath_shape * shape);
/* The node of rank; the rank of the i-th member (in rank order) of node */
int MPII_Hier_cpath_node_of(const MPII_Hier_cpath_shape * shape, int rank);
int MPII_Hier_cpath_member(const MPII_Hier_cpath_shape * shape, int node, int i);

/* ---- hier's default plan ---------------------------------------------------------- */

#define MPII_HIER_CPATH_MAX_STEPS 3
#define MPII_HIER_CPATH_NAME_LEN 40

typedef struct {
    int nsteps;
    char step[MPII_HIER_CPATH_MAX_STEPS][MPII_HIER_CPATH_NAME_LEN];  /* "shm", "binomial(4)" */
    MPII_Hier_cpath_count count;
    int intra_up;               /* intra-node steps before the inter-node step */
    int intra_down;             /* and after it */
} MPII_Hier_cpath_plan;

/* hier's default plan of coll for a message of bytes (allgather, gather, scatter,
 * gatherv, scatterv: per rank; alltoall: the block each rank sends to each rank) on shape, latency_bytes the
 * links' alpha / beta (MPII_HIER_LATENCY_BYTES_DEFAULT as the plugin's default).  Returns
 * 0, -1 on an invalid shape or collective, or no memory (alltoall simulates its exchange). */
int MPII_Hier_cpath_hier_plan(MPII_Hier_cpath_coll coll, const MPII_Hier_cpath_shape * shape,
                              int64_t bytes, int64_t latency_bytes, MPII_Hier_cpath_plan * plan);
/* The steps joined by " > " ("shm > recursive_doubling(4) > shm"), "-" for none;
 * truncated to len. */
void MPII_Hier_cpath_plan_text(const MPII_Hier_cpath_plan * plan, char *buf, size_t len);

/* ---- MPICH 5.0.1's algorithms ------------------------------------------------------- */

/* The algorithms are numbered 0 .. MPII_Hier_cpath_nalgos() - 1. */
int MPII_Hier_cpath_nalgos(void);
const char *MPII_Hier_cpath_algo_name(int algo);
MPII_Hier_cpath_coll MPII_Hier_cpath_algo_coll(int algo);
/* The algorithm of coll named name, -1 when none is */
int MPII_Hier_cpath_algo_find(MPII_Hier_cpath_coll coll, const char *name);
/* The count of algo on shape for bytes (only the compositions' shared-memory steps look
 * at it).  Returns 0; 1 when the algorithm does not run on this shape (recursive doubling
 * of allgather, scatter + recursive doubling of bcast: power-of-two sizes only); -1 on an
 * invalid shape or algorithm, or no memory. */
int MPII_Hier_cpath_mpich(int algo, const MPII_Hier_cpath_shape * shape, int64_t bytes,
                          MPII_Hier_cpath_count * count);

/* ---- hier against MPICH ------------------------------------------------------------ */

typedef struct {
    MPII_Hier_cpath_plan hier;
    int best;                   /* MPICH's algorithm with the fewest inter-node messages,
                                 * ties: the fewest intra-node steps, then the first */
    MPII_Hier_cpath_count best_count;
} MPII_Hier_cpath_row;

/* Returns 0, -1 as MPII_Hier_cpath_mpich. */
int MPII_Hier_cpath_compare(MPII_Hier_cpath_coll coll, const MPII_Hier_cpath_shape * shape,
                            int64_t bytes, int64_t latency_bytes, MPII_Hier_cpath_row * row);

/* ---- the simulator, for any message pattern ---------------------------------------- */

typedef enum {
    MPII_HIER_CPATH_SEND,
    MPII_HIER_CPATH_RECV,
    MPII_HIER_CPATH_SHM_SEND,   /* one shared-memory step: no serialization with the others */
    MPII_HIER_CPATH_SHM_RECV,
    MPII_HIER_CPATH_IRECV       /* a receive posted at once with the rank's others */
} MPII_Hier_cpath_op;

typedef struct MPII_Hier_cpath_sim MPII_Hier_cpath_sim;

/* NULL on an invalid shape or no memory */
MPII_Hier_cpath_sim *MPII_Hier_cpath_sim_create(const MPII_Hier_cpath_shape * shape);
void MPII_Hier_cpath_sim_free(MPII_Hier_cpath_sim * sim);
/* Appends op with peer to rank's program; a receive matches the oldest message of its
 * kind from peer not yet received. */
void MPII_Hier_cpath_sim_add(MPII_Hier_cpath_sim * sim, int rank, MPII_Hier_cpath_op op, int peer);
/* MPIC_Sendrecv: the send, then the receive (which the send does not wait for) */
void MPII_Hier_cpath_sim_sendrecv(MPII_Hier_cpath_sim * sim, int rank, int dst, int src);
/* MPI_Waitall of rank's posted receives (MPII_HIER_CPATH_IRECV): its later sends wait for
 * them */
void MPII_Hier_cpath_sim_waitall(MPII_Hier_cpath_sim * sim, int rank);
/* Runs the programs; returns 0 with the count of the longest path, -1 when a rank or
 * peer is out of range, a program blocks for ever or a message is never received, or no
 * memory. */
int MPII_Hier_cpath_sim_run(MPII_Hier_cpath_sim * sim, MPII_Hier_cpath_count * count);

#ifdef __cplusplus
}
#endif

#endif /* HIER_CRITICAL_PATH_H_INCLUDED */
