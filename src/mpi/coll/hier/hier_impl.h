/*
 * mpich-hier: internal interface of the plugin (MPICH internal API).
 */

#ifndef HIER_IMPL_H_INCLUDED
#define HIER_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "hier_hierarchy.h"
#include "hier_segment.h"
#include "hier_pipeline.h"
#include "hier_trees.h"
#include "hier_grammar.h"
#include "hier_by_size.h"

/* Per-communicator hierarchies and their comms (hier_comm.c), built on first use and freed
 * with the communicator. */
typedef struct {
    int nnodes;                 /* nodes comm's ranks are on */
    MPII_Hier_hierarchy nodes;  /* of the node key alone: HAN's two levels */
    MPIR_Comm *node_comm;       /* NULL when my node has one rank */
    int own_node_comm;          /* node_comm was split by us, not comm->node_comm */
    int roots_adopted;          /* comm->node_roots_comm is the nodes' column-0 step */
    int hierarchy_ready;        /* hierarchy built (MPII_Hier_hierarchy_get) */
    MPII_Hier_hierarchy hierarchy;      /* all levels: switches, node, below the node */
    int switch_levels;          /* key columns above the node's */
    int depth;                  /* key columns: switches, node, below the node */
    long *keys;                 /* [local_size * depth] every rank's keys, coarsest first */
    struct MPII_Hier_step_comm *step_comms;     /* the steps' comms made so far */
    int finest_ready;
    MPIR_Comm *finest_comm;     /* split by us: my finest group's comm when the finest level
                                 * is not the node's (NULL when it has one rank) */
    int flat_allreduce;         /* MPII_Hier_sized_allreduce_flat on the nodes */
} MPII_Hier_comm;

/* The plugin on this thread's stack (MPII_Hier_guard_enter .. _leave): while it creates
 * its comms, builds a schedule's steps, or runs an intra-node algorithm on a comm a
 * forced hier CVAR or a tuning file may route back here (MPICH's own selection, the
 * device's shm set-up).  A collective that comes back meanwhile runs flat: MPII_Hier_get
 * gives it no levels.  Per thread: under MPI_THREAD_MULTIPLE another thread's call on its
 * own comm is not nested in this one. */
void MPII_Hier_guard_enter(void);
void MPII_Hier_guard_leave(void);
int MPII_Hier_guard_held(void);

/* The hierarchies of comm, built if needed.  Sets *hier to NULL inside the guard (a
 * collective issued by the plugin's own work on this thread): callers then run flat. */
int MPII_Hier_get(MPIR_Comm * comm, MPII_Hier_comm ** hier);
/* The N-level hierarchy of comm (hier_hierarchy.h): switch levels (Slurm's address, or
 * MPIR_CVAR_HIER_TOPOLOGY_FILE, or MPIR_CVAR_HIER_EMULATE_SWITCH_NODES), the node, and the
 * hwloc levels of bound ranks (or MPIR_CVAR_HIER_EMULATE_PACKAGES); collective over comm
 * on first use (MPIR_CVAR_HIER_DUMP prints it then), cached with hier. */
int MPII_Hier_hierarchy_get(MPIR_Comm * comm, MPII_Hier_comm * hier,
                            const MPII_Hier_hierarchy ** hierarchy);
/* MPI_Init: MPIR_CVAR_HIER_TOPOLOGY_FILE, when set, is readable and well formed (one line
 * naming the variable otherwise) */
int MPII_Hier_check_topology_file(void);
/* MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE checked as MPID_Init reads it (each
 * problem said on every rank, MPI_Init's error set); MPII_Hier_ch4_tuning_file_refused
 * (maint/patches/08) then says so */
void MPII_Hier_check_ch4_tuning_file(void);
/* The error of MPI_Init's checks, MPI_Init's when MPI_COMM_WORLD is set up (hier_json.c) */
extern int MPII_Hier_init_errno;
/* "Switch", "Node", "Package", "NUMANode", "L3Cache": of a level of the hierarchy, of a
 * key column */
const char *MPII_Hier_level_type(const MPII_Hier_comm * hier, int level);
const char *MPII_Hier_column_type(const MPII_Hier_comm * hier, int column);
/* The steps of an N-level collective (hier_hierarchy.h, MPII_Hier_hierarchy_steps) for one
 * root, with this rank's communicator of each: steps 0 .. nsteps - 1, coarsest first.
 * Their comms are split from comm on first use (collectively: every rank asks for the
 * same steps in the same order, as they run the same collectives) and cached with hier;
 * a hierarchy of nodes only reuses MPICH's node comms where they fit. */
#define MPII_HIER_MAX_STEPS 16
typedef struct {
    MPIR_Comm *comm;            /* NULL: this rank takes no part */
    int root;                   /* the step's root, a rank of comm */
    int inter;                  /* the members are on different nodes */
    int up;                     /* the members lead switch groups: the up_inter_* parameters */
    int down;                   /* they lead groups inside a node (packages, ...) and this is
                                 * not the finest step: the down_inter_* parameters */
    int instance;               /* which of the step's member sets (MPII_Hier_step_place) */
    int mpich_comm;             /* comm is MPICH's (its node_comm or node_roots_comm, or the
                                 * parent comm itself), whose compositions tag their messages
                                 * there from the parent comm: so do the plugin's schedules */
} MPII_Hier_step;
typedef struct {
    int nsteps;                 /* levels of the hierarchy + 1 */
    MPII_Hier_step step[MPII_HIER_MAX_STEPS];
    MPIR_Comm *comm;            /* the parent comm */
    int mpich_comms;            /* some rank's step is on one of MPICH's comms (the same on
                                 * every rank) */
    const MPII_Hier_hierarchy *h;       /* the hierarchy they are the steps of */
    int col[MPII_HIER_MAX_STEPS];       /* the root's columns in it */
} MPII_Hier_steps;
/* The hierarchy the hier collectives run on: comm's, or with MPIR_CVAR_HIER_LEVELS=nodes
 * (and inside MPI_Init) the one of the node key alone; and its levels (0 when nothing
 * splits). */
const MPII_Hier_hierarchy *MPII_Hier_used(const MPII_Hier_comm * hier);
int MPII_Hier_nlevels(const MPII_Hier_comm * hier);
/* Needs the hierarchy (MPII_Hier_hierarchy_get) and more than one node.  Without levels
 * (MPII_Hier_nlevels 0: one rank per node) the steps are the whole comm and single
 * ranks. */
int MPII_Hier_steps_get(MPIR_Comm * comm, MPII_Hier_comm * hier, int root,
                        MPII_Hier_steps * steps);
/* Tags of comm's schedule tag space (hier_tags.c): n of them, stride apart (a block of
 * n * stride, wrapping as MPIR_Sched_next_tag does), the same on every rank that draws
 * them in the same order. */
int MPII_Hier_tags_draw(MPIR_Comm * comm, int n, int stride, int *tag);
/* A tag of every step comm this rank is in: one drawn on the parent comm (by every rank)
 * on MPICH's comms, where MPICH's own compositions tag their messages so; the step
 * comm's own on the plugin's (every member builds the same collectives in the same
 * order). */
int MPII_Hier_step_tags(const MPII_Hier_steps * steps, int *tag);
/* What the plugin builds or starts on one of MPICH's comms (MPII_Hier_step.mpich_comm)
 * draws the tag `tag`, one of the parent comm's taken by every rank, as MPICH's own
 * compositions tag their messages there: MPII_Hier_tag_lend before the build or start,
 * MPII_Hier_tag_return (with what lend returned) after it.  On the plugin's own comms the
 * comm's own tags. */
static inline int MPII_Hier_tag_lend(const MPII_Hier_step * st, int tag)
{
    if (!st->comm || !st->mpich_comm || tag < 0)
        return -1;
    int saved = st->comm->next_sched_tag;
    st->comm->next_sched_tag = tag;
    return saved;
}

static inline void MPII_Hier_tag_return(const MPII_Hier_step * st, int saved)
{
    if (saved >= 0)
        st->comm->next_sched_tag = saved;
}

/* The first step this rank takes part in (steps->nsteps when none). */
int MPII_Hier_steps_first(const MPII_Hier_steps * steps);
/* Whether comm is on one node that no level of the hierarchy in use splits: the hier
 * algorithms then run their intra-node submodule on comm itself. */
static inline int MPII_Hier_one_node(const MPII_Hier_comm * hier)
{
    return hier->nnodes == 1 && MPII_Hier_nlevels(hier) == 0;
}

/* Counters exposed as MPI_T pvars (class COUNTER, category COLLECTIVE, hier_pvars.c):
 * how often each plugin algorithm of the grammar ran (coll_hier_<coll>_<algo>_count),
 * and how many pipeline segments the algorithms moved. */
#define MPII_HIER_PVAR_CALLS(coll_, algo_) MPII_HIER_PVAR_CALLS_##coll_##_##algo_
#define MPII_HIER_PVAR_CALLS_ENUM_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    MPII_HIER_PVAR_CALLS(coll_, algo_),
#define MPII_HIER_PVAR_SCHED_CALLS_ENUM_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    MPII_HIER_PVAR_CALLS(icoll_, algo_),
enum {
    MPII_HIER_ALGORITHMS(MPII_HIER_PVAR_CALLS_ENUM_)
    MPII_HIER_SCHED_ALGORITHMS(MPII_HIER_PVAR_SCHED_CALLS_ENUM_)
    MPII_HIER_PVAR_BCAST_HIER_SEGMENTS,
    MPII_HIER_PVAR_REDUCE_HIER_SEGMENTS,
    MPII_HIER_PVAR_ALLREDUCE_HIER_SEGMENTS,
    MPII_HIER_PVAR_ALLGATHER_HIER_SEGMENTS,
    MPII_HIER_PVAR_FLAT_FALLBACKS,
    MPII_HIER_PVAR_BCAST_SEG_SEGMENTS,
    MPII_HIER_PVAR_REDUCE_SEG_SEGMENTS,
    MPII_HIER_PVAR_REDUCE_SEG_IN_ORDER_SUBST,
    MPII_HIER_PVAR_MPIR_ROUTED,
    MPII_HIER_PVAR_SEGSIZE_RAISED,
    MPII_HIER_PVAR_BY_SIZE_LATENCY,
    MPII_HIER_PVAR_BY_SIZE_BANDWIDTH,
    MPII_HIER_PVAR_COUNT
};
extern unsigned long long MPII_Hier_pvars[MPII_HIER_PVAR_COUNT];
#define MPII_HIER_PVAR_ADD(which_, n_) (MPII_Hier_pvars[MPII_HIER_PVAR_##which_] += (n_))
/* one more call of MPIR_<Coll>_intra_<algo> */
#define MPII_HIER_PVAR_CALL(coll_, algo_) (MPII_Hier_pvars[MPII_HIER_PVAR_CALLS(coll_, algo_)]++)

/* Submodules of a hierarchical algorithm (HAN Table II): MPII_HIER_INTER_* and
 * MPII_HIER_INTRA_*, the values of their CVARs, come from the grammar (hier_grammar.h). */

/* Parameters of one call of a hier algorithm, the grammar's MPII_HIER_PARAMS_HIER in
 * its order (segsize, inter_algo, inter_k, inter_chunk, intra_algo, then up_inter_* and
 * down_inter_*: algo, k, chunk). */
#define MPII_HIER_PARAM_FIELD_(param_, min_or_list_, cvar_) int param_;
typedef struct {
    MPII_HIER_PARAMS_HIER(MPII_HIER_PARAM_FIELD_, MPII_HIER_PARAM_FIELD_)
} MPII_Hier_params;
/* Initialisers: from the algorithm's arguments, named as the parameters (a negative one
 * means "take the CVAR"), and from the CVARs of MPII_HIER_COLL (the caller defines it,
 * e.g. BCAST). */
#define MPII_HIER_PARAM_ARG_(param_, min_or_list_, cvar_) param_,
#define MPII_HIER_CAT3_(a_, b_, c_) a_##b_##c_
#define MPII_HIER_CAT3(a_, b_, c_) MPII_HIER_CAT3_(a_, b_, c_)
#define MPII_HIER_PARAM_CVAR_(param_, min_or_list_, cvar_) \
    MPII_HIER_CAT3(MPIR_CVAR_, MPII_HIER_COLL, _##cvar_),
#define MPII_HIER_PARAMS_OF_ARGS { MPII_HIER_PARAMS_HIER(MPII_HIER_PARAM_ARG_, MPII_HIER_PARAM_ARG_) }
#define MPII_HIER_PARAMS_OF_CVARS \
    { MPII_HIER_PARAMS_HIER(MPII_HIER_PARAM_CVAR_, MPII_HIER_PARAM_CVAR_) }

/* given and cvars of the algorithms with fewer parameters (MPII_HIER_PARAMS_HIER_DATA,
 * _STEPS): the ones they lack take values every check accepts. */
#define MPII_HIER_PARAMS_DATA(segsize_, inter_algo_, intra_algo_) \
    { .segsize = (segsize_), .inter_algo = (inter_algo_), .inter_k = 1, .inter_chunk = 0, \
      .intra_algo = (intra_algo_), .up_inter_algo = 0, .up_inter_k = 1, .up_inter_chunk = 0, \
      .down_inter_algo = 0, .down_inter_k = 1, .down_inter_chunk = 0 }
#define MPII_HIER_PARAMS_STEPS(inter_algo_, intra_algo_) \
    MPII_HIER_PARAMS_DATA(0, inter_algo_, intra_algo_)

/* The parameters of a step: prm, with the up_inter_* ones as inter_* for a step among
 * switch groups (step->up), the down_inter_* ones for a step among the leaders of groups
 * inside a node (step->down), and by_size resolved for a step of op among `members`
 * moving plan's segments; *scratch holds them then.  Every member of a step passes the
 * same members and plan, so they agree on its algorithm. */
const MPII_Hier_params *MPII_Hier_step_params(const MPII_Hier_params * prm,
                                              const MPII_Hier_step * step, int members,
                                              MPII_Hier_sized_op op,
                                              const MPII_Hier_seg_plan * plan,
                                              MPII_Hier_params * scratch);
/* Whether by_size takes the latency algorithm for a step of op among n members moving
 * plan's segments (each cut in inter_chunk pieces when set) */
int MPII_Hier_by_size_latency(MPII_Hier_sized_op op, const MPII_Hier_seg_plan * plan, int n,
                              int inter_chunk);
/* The alpha / beta (bytes) of the site tree this job loaded (its record's latency_bytes);
 * 0: none loaded, or its record names none */
int64_t MPII_Hier_site_latency_bytes(void);
/* Whether by_size takes the binomial tree (else linear) for the gather's or scatter's
 * steps among n groups of group_bytes each (every rank passes the same) */
int MPII_Hier_by_size_rooted_latency(int n, int64_t group_bytes);
/* Whether by_size takes recursive doubling (else the pipelined chain) for the scan's step
 * among the n top leaders moving bytes (every rank passes the same) */
int MPII_Hier_by_size_scan_latency(int n, int64_t bytes);
/* Whether by_size aggregates an alltoall of blocks of block bytes among size ranks
 * through the groups' leaders, whether n top leaders then exchange pieces of at most
 * piece bytes by Bruck's algorithm, and whether a direct exchange of blocks of block bytes
 * runs in node rounds (hier_by_size.h; every rank passes the same) */
int MPII_Hier_by_size_alltoall_aggregate(int64_t block, int size);
int MPII_Hier_by_size_alltoall_brucks(int64_t piece, int n);
int MPII_Hier_by_size_alltoall_node_rounds(int64_t block);
/* The bytes of a gatherv's or scatterv's block of block bytes that go through the leaders:
 * 0 where it goes straight between its rank and the root (MPII_Hier_sized_rooted_v_direct
 * with MPIR_CVAR_HIER_LATENCY_BYTES), else all of them */
int64_t MPII_Hier_rooted_v_tree_bytes(int64_t block);
/* MPII_Hier_sized_rooted_v_with_counts with MPIR_CVAR_HIER_LATENCY_BYTES, and the room
 * a leader leaves for such a run after its counts */
int MPII_Hier_rooted_v_with_counts(int64_t run_bytes);
int64_t MPII_Hier_rooted_v_with_counts_room(void);
/* by_size's allreduce algorithm among the leaders for a message of one piece: MPICH's
 * recursive doubling, one step (no CVAR item: by_size picks it) */
#define MPII_HIER_INTER_RECURSIVE_DOUBLING MPII_HIER_INTER_COUNT
/* An intra-node submodule with by_size resolved for a step of op moving bytes: shm when
 * they fit one of the device's release_gather cells, auto otherwise. */
int MPII_Hier_intra_resolve(int intra_algo, MPI_Aint bytes, MPII_Hier_sized_op op);
/* An intra-node submodule for a step on the call's own comm (one node): never the
 * device's shm there (its release_gather set-up on a comm broadcasts on that comm, and a
 * forced hier would enter it again half-initialised), so shm and by_size take auto. */
int MPII_Hier_intra_off_device(int intra_algo);
/* by_size's allgather among the leaders for small blocks: MPICH's Bruck allgatherv (no
 * CVAR item: by_size picks it) */
#define MPII_HIER_ALLGATHER_INTER_BRUCKS MPII_HIER_ALLGATHER_INTER_COUNT
/* The allgather's step among ngroups leaders with by_size resolved for blocks of
 * group_bytes: MPII_HIER_ALLGATHER_INTER_BRUCKS or ring. */
int MPII_Hier_allgather_inter_resolve(int inter_algo, MPI_Aint group_bytes, int ngroups);
/* Fill prm from the call's arguments, each negative one from its CVAR, and check it;
 * n_inter_algos: the number of items of the collective's inter-node CVAR. */
int MPII_Hier_params_resolve(MPII_Hier_params * prm, const MPII_Hier_params * given,
                             const MPII_Hier_params * cvars, int n_inter_algos);

/* The start every hier algorithm shares: prm resolved from given and cvars, and comm's
 * levels in *hier (NULL inside the plugin's guard, MPII_Hier_guard_enter: the caller
 * runs flat), the call counted in the pvar `calls_pvar` when it is the user's.
 * n_inter_algos as for MPII_Hier_params_resolve.  The algorithms with fewer parameters
 * (MPII_HIER_PARAMS_HIER_DATA, _STEPS) pass the ones they lack as 0 in given and cvars. */
int MPII_Hier_begin(MPIR_Comm * comm, const MPII_Hier_params * given,
                    const MPII_Hier_params * cvars, int n_inter_algos, int calls_pvar,
                    MPII_Hier_params * prm, MPII_Hier_comm ** hier);
/* Whether a reduction on hier runs flat instead: no levels (see MPII_Hier_begin), one
 * node that no level splits, or an op that is not commutative on ranks whose groups are
 * not blocks of consecutive ranks at every level (a flat fallback, counted in
 * coll_hier_flat_fallbacks). */
int MPII_Hier_reduction_runs_flat(const MPII_Hier_comm * hier, MPI_Op op);

/* What one task of the pipeline (hier_pipeline.h) does with a segment: run it, or build
 * it as a schedule (the pipeline's schedule form). */
typedef struct {
    struct MPII_Hier_sched_s *s;        /* build into *s (persistent: the schedule form
                                         * reruns its steps); NULL: run */
    MPIR_Request **req;         /* run: a started step's request, else left NULL */
    int coll_attr;              /* run: carries the errors recorded so far */
    int alone;                  /* run: the only task of its slot (on every rank): a step
                                 * with a blocking form runs it */
} MPII_Hier_task_out;
/* Segment t of task on step st: started among leaders; a blocking task runs to its end
 * (or starts a request, waited for at once). */
typedef int (*MPII_Hier_task_fn) (void *ctx, const MPII_Hier_task * task,
                                  const MPII_Hier_step * st, int64_t t,
                                  MPII_Hier_task_out * out);
/* A vertex of sched that starts the built sub (on comm; the vertex owns it from now on)
 * after the n_in vertices in. */
int MPII_Hier_sched_add_step(struct MPII_Hier_sched_s *sub, MPIR_Comm * comm, int n_in,
                             int *in, MPIR_TSP_sched_t sched, int *vtx);
/* A vertex of sched, after the n_in vertices in, whose gentran sub-schedule build(ctx, sub)
 * fills when the vertex is first issued: from what those vertices received (the counts
 * of a v-collective that only the root knows), which shape its messages.  It is built
 * once; a persistent request's later starts rerun it (their counts are the ones of
 * MPI_<Coll>_init).  ctx lives as long as sched (MPIR_TSP_sched_malloc); build draws no
 * tags (only some ranks build, at different times: the tags come with ctx). */
typedef int (*MPII_Hier_deferred_fn) (void *ctx, MPIR_TSP_sched_t sub);
/* types: the call's datatypes build will use (MPI_DATATYPE_NULL: none), held with the
 * vertex */
int MPII_Hier_sched_add_deferred(MPIR_Comm * comm, MPII_Hier_deferred_fn build, void *ctx,
                                 const MPI_Datatype types[2], int n_in, int *in,
                                 MPIR_TSP_sched_t sched, int *vtx);
/* One call of a hier collective as its schedule builder takes it */
typedef struct {
    const void *sendbuf;        /* all but bcast and barrier */
    void *buf;                  /* bcast: the buffer; the others: recvbuf */
    MPI_Aint count;             /* bcast, reductions: of datatype; gathers, scatter: recvcount;
                                 * reduce_scatter_block: recvcount */
    const MPI_Aint *counts;     /* reduce_scatter, allgatherv: recvcounts (NULL: the block
                                 * variant of reduce_scatter) */
    const MPI_Aint *displs;     /* allgatherv */
    MPI_Datatype datatype;      /* (gathers, scatter: recvtype) */
    MPI_Op op;                  /* reduce, allreduce, scan, exscan */
    int root;                   /* bcast, reduce, gather, scatter */
    MPIR_Comm *comm;
    const MPII_Hier_params *given;      /* the call's parameters, negative: the CVAR's */
    int calls_pvar;             /* the pvar that counts the call */
    MPI_Aint sendcount;         /* gather, scatter, allgather */
    MPI_Datatype sendtype;
    const MPI_Aint *sendcounts, *sdispls;       /* alltoallv (counts, displs: the receive's) */
} MPII_Hier_call;
typedef int (*MPII_Hier_sched_fn) (const MPII_Hier_call * call, MPIR_TSP_sched_t sched);
/* A local copy of a prepared call (count 0: none); from or to NULL: its buf */
typedef struct {
    const void *from;
    void *to;
    MPI_Aint from_count, to_count;
    MPI_Datatype from_type, to_type;
} MPII_Hier_copy;
/* A pipelined hier collective (bcast, reduce, allreduce) prepared for one call: what its
 * prepare step writes and both its forms run, the blocking one slot by slot
 * (MPII_Hier_prepared_run) and the schedule (MPII_Hier_prepared_sched).  `task` runs
 * one task of one segment, reading the prepared call.  The executor gives the call a
 * temporary of temp_bytes in buf (none when 0; buf = its start - temp_lb, as a type's
 * true lower bound wants), copies `in` before the first task and `out` after the last. */
typedef struct MPII_Hier_prepared_s {
    MPII_Hier_steps steps;
    MPII_Hier_seg_plan plan;
    MPII_Hier_task tasks[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int ntasks;
    MPII_Hier_task_fn task;
    const void *sendbuf;        /* reductions: the contributions */
    char *buf;                  /* bcast: the payload's bytes; reduce: where this rank forms
                                 * its groups' results; allreduce: recvbuf */
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Aint type_size, extent;
    const MPII_Hier_params *prm;        /* the call's */
    MPII_Hier_params step_prm[MPII_HIER_MAX_STEPS];     /* allreduce: each step's */
    MPI_Aint temp_bytes, temp_lb;
    MPII_Hier_copy in, out;
} MPII_Hier_prepared;
/* What every prepare step writes first: call's buffers and type, prm, task, no temporary
 * and no copy, and the steps to root (MPII_Hier_steps_get) */
int MPII_Hier_prepare_begin(const MPII_Hier_call * call, MPII_Hier_comm * hier, int root,
                            const MPII_Hier_params * prm, MPII_Hier_task_fn task,
                            MPII_Hier_prepared * prep);
int MPII_Hier_prepared_run(MPII_Hier_prepared * prep, int coll_attr, int *errflag);
int MPII_Hier_prepared_sched(MPII_Hier_prepared * prep, MPIR_TSP_sched_t sched);
/* The start of a schedule builder: MPII_Hier_begin with the call's parameters (cvars for
 * those it leaves negative); *hier NULL when the build is nested in the plugin's guard
 * (the caller then builds its simple form). */
int MPII_Hier_sched_begin(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                          MPII_Hier_params * prm, MPII_Hier_comm ** hier);
/* A reduce or allreduce with nothing to combine (no data, or one rank): *done, and the
 * contribution copied to call->buf (recvbuf) by a vertex of sched. */
int MPII_Hier_sched_trivial_reduction(const MPII_Hier_call * call, MPIR_TSP_sched_t sched,
                                      int *done);
/* From how many bytes (as bench/sched-ab.sh counts them: per rank for allgather, gather
 * and scatter, 0 for the barrier) MPIR_CVAR_HIER_SCHEDULE_BLOCKING=auto runs a blocking
 * hier collective as its schedule; -1: never.  Each is where bench/sched-ab.sh put the
 * schedule within 3 % of the loop at every size from there on (the figures:
 * doc/measurements/sched-blocking-5.0.1.md). */
#define MPII_HIER_SCHED_FROM_BCAST      0
#define MPII_HIER_SCHED_FROM_REDUCE     (-1)
#define MPII_HIER_SCHED_FROM_ALLREDUCE  (-1)
#define MPII_HIER_SCHED_FROM_ALLGATHER  65536
#define MPII_HIER_SCHED_FROM_GATHER     65536
#define MPII_HIER_SCHED_FROM_SCATTER    65536
#define MPII_HIER_SCHED_FROM_BARRIER    0
/* How a blocking hier call runs (MPII_Hier_enter decides it alike on every rank) */
typedef enum {
    MPII_HIER_RUN_NOTHING,      /* one rank, or no byte to move: the caller's local copy */
    MPII_HIER_RUN_DONE,         /* it ran as its schedule (or failed before it could run) */
    MPII_HIER_RUN_FLAT,         /* the caller's flat algorithm: while the plugin creates its
                                 * comms; reductions also on one node and for an order no
                                 * hierarchy keeps (MPII_Hier_reduction_runs_flat) */
    MPII_HIER_RUN_ONE_NODE,     /* one node that nothing splits: the intra-node submodule
                                 * on comm itself, inside MPII_Hier_guard_enter/leave */
    MPII_HIER_RUN_STEPS         /* the steps of the hierarchy */
} MPII_Hier_run;
/* What the entry knows of a collective besides the call */
typedef struct {
    const MPII_Hier_params *cvars;      /* the parameters' CVARs */
    int n_inter_algos;          /* as for MPII_Hier_params_resolve */
    MPII_Hier_sched_fn sched;   /* the builder of its schedule */
    MPI_Aint sched_from;        /* MPII_HIER_SCHED_FROM_* */
    int moves_data;             /* 0: the barrier, which runs with no bytes */
    int reduction;              /* a reduction: runs flat where MPII_Hier_reduction_runs_flat */
} MPII_Hier_entry;
/* The one entry of the blocking hier collectives: prm resolved, and *run says what the
 * caller does; the call ran already for MPII_HIER_RUN_DONE (the return value says how).
 * bytes: what decides the schedule (MPIR_CVAR_HIER_SCHEDULE_BLOCKING, auto from
 * coll->sched_from when the call leaves the intra-node algorithm to auto) and, 0 where the
 * collective moves data, that there is nothing to move. */
int MPII_Hier_enter(const MPII_Hier_call * call, const MPII_Hier_entry * coll,
                    MPI_Aint bytes, MPII_Hier_params * prm, MPII_Hier_comm ** hier,
                    MPII_Hier_run * run);
/* A pipelined collective (bcast, reduce, allreduce) as its two forms take it: its prepare
 * step, and what runs where the steps do not */
typedef struct {
    int (*prepare) (const MPII_Hier_call * call, MPII_Hier_comm * hier,
                    MPII_Hier_params * prm, MPII_Hier_prepared * prep);
    int (*flat) (const MPII_Hier_call * call, int coll_attr);   /* MPII_HIER_RUN_FLAT */
    /* MPII_HIER_RUN_ONE_NODE (NULL for reductions, which run flat there) */
    int (*one_node) (MPII_Hier_comm * hier, const MPII_Hier_call * call, int intra_algo,
                     int coll_attr);
    /* the schedule where it runs flat (hier NULL while the plugin's comms are created) */
    int (*flat_sched) (const MPII_Hier_call * call, const MPII_Hier_comm * hier,
                       MPIR_TSP_sched_t sched);
    /* where the collective's plan is the flat algorithm, which both forms then run (NULL:
     * nowhere) */
    int (*plans_flat) (const MPII_Hier_call * call, const MPII_Hier_comm * hier,
                       const MPII_Hier_params * prm);
} MPII_Hier_pipelined;
/* The blocking form of a pipelined collective: MPII_Hier_enter, then what it says (a
 * reduction with nothing to combine copies sendbuf to recvbuf) */
int MPII_Hier_pipelined_run(const MPII_Hier_call * call, const MPII_Hier_entry * coll,
                            const MPII_Hier_pipelined * ops, int coll_attr);
/* The schedule of a pipelined collective, with the collective's CVARs where the call
 * gives no parameter (reduction: as MPII_Hier_entry's) */
int MPII_Hier_pipelined_sched(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                              int reduction, const MPII_Hier_pipelined * ops,
                              MPIR_TSP_sched_t sched);
/* The finest step's layout: member p's block lies p blocks into its group's stage */
static inline char *MPII_Hier_finest_block(char *group_stage, long long p, MPI_Aint block)
{
    return group_stage + p * block;
}

/* Every rank's block from its place in the stage (the gathered layout of h for the
 * root's columns col; rank order without h) to recvbuf; skip: a rank whose block is there
 * already (-1: none).  Errors are recorded in *errflag and the copies go on. */
int MPII_Hier_rooted_unstage(const char *stage, MPI_Aint block, const MPII_Hier_hierarchy * h,
                             const int *col, void *recvbuf, MPI_Aint recvcount,
                             MPI_Datatype recvtype, int size, int skip, int *errflag);
/* The schedules of the hier allgather, gather, scatter and barrier (hier_rooted_sched.c):
 * the builders of MPIR_TSP_I<coll>_sched_intra_hier, taking the call's parameters. */
int MPII_Hier_allgather_sched(const MPII_Hier_call * call, MPIR_TSP_sched_t sched);
int MPII_Hier_gather_sched(const MPII_Hier_call * call, MPIR_TSP_sched_t sched);
int MPII_Hier_scatter_sched(const MPII_Hier_call * call, MPIR_TSP_sched_t sched);
int MPII_Hier_barrier_sched(const MPII_Hier_call * call, MPIR_TSP_sched_t sched);
/* The blocking form as its schedule: build(call, sched) fills a new gentran schedule on
 * call->comm, which is started and waited for. */
int MPII_Hier_sched_wait(MPII_Hier_sched_fn build, const MPII_Hier_call * call);
/* The hier scan (exclusive: exscan) as one schedule (scan_intra_hier.c): the builder of
 * its three forms, with the call's inter_algo (negative: the CVAR's) */
int MPII_Hier_scan_sched(const MPII_Hier_call * call, int exclusive, MPIR_TSP_sched_t sched);
/* The four entries of the hier scan and exscan: the call with inter_algo (negative: the
 * CVAR's), counted in calls_pvar, built into sched (the non-blocking and persistent forms)
 * or, sched NULL, run as its schedule and waited for (the blocking form) */
int MPII_Hier_scan_entry(int exclusive, const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm, int inter_algo,
                         int calls_pvar, MPIR_TSP_sched_t sched);
/* One step of a schedule whose groups' data are runs of ranks (hier_run_steps.c),
 * coarsest first: its comm (NULL: this rank takes no part), the tag of its messages, and
 * first[m] (m = 0 .. members) the lowest rank of the parent comm whose data reaches the
 * step through member m (MPII_Hier_hierarchy_member_starts; member m is that rank); the
 * top step's first and members on every rank, the others' where comm is set */
typedef struct {
    MPIR_Comm *comm;
    int tag;
    int *first;
    int members;
} MPII_Hier_run_step;
/* Whether a call with the resolved parameters prm runs on the whole comm as one step by
 * choice (every rank decides alike) */
typedef int (*MPII_Hier_run_flat_fn) (const MPII_Hier_call * call, const MPII_Hier_params * prm);
/* The steps of call->comm's hierarchy for root 0 (each group's leader its first rank, so a
 * group's data is the run of its ranks), or the whole comm as one step: where flat (NULL:
 * never) says so, while the plugin creates its comms, on one node that nothing splits, and
 * where some group is not a block of consecutive ranks (a flat fallback, counted).
 * MPII_Hier_begin with cvars and n_inter_algos first (*inter_algo: the inter_algo it
 * resolved); st[0 .. *n - 1], freed by MPII_Hier_run_steps_free. */
int MPII_Hier_run_steps_plan(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                             int n_inter_algos, MPII_Hier_run_flat_fn flat,
                             MPII_Hier_run_step * st, int *n, int *inter_algo);
void MPII_Hier_run_steps_free(MPII_Hier_run_step * st, int n);
/* The part of a vector that members m .. m + len - 1 of st hold between them, where rank r's
 * part starts at at[r]: its start in *lo, its length returned */
MPI_Aint MPII_Hier_run_span(const MPII_Hier_run_step * st, const MPI_Aint * at, int m, int len,
                            MPI_Aint * lo);
/* The members of member's subtree in st's binomial tree rooted at member 0, the tree these
 * collectives gather, reduce, scatter and broadcast along */
int MPII_Hier_run_subtree(const MPII_Hier_run_step * st, int member);
/* A vector of packed blocks, one per rank of the parent comm, that one rank's schedule
 * moves along run steps: rank r's block at packed + at[r] (at[r + 1] where it ends); at
 * needs entries only for the ranks this rank's steps move (its subtrees' runs), and may
 * count from any rank (negative before it) */
typedef struct {
    char *packed;
    const MPI_Aint *at;
    MPIR_TSP_sched_t sched;
} MPII_Hier_run_vector;
typedef struct {
    char *buf;
    MPI_Aint n;
} MPII_Hier_run_piece;
/* The packed bytes of the ranks that reach step st through members m .. m + len - 1 */
MPII_Hier_run_piece MPII_Hier_run_members(const MPII_Hier_run_vector * v,
                                          const MPII_Hier_run_step * st, int m, int len);
/* Up step st after *front: a binomial gather onto member 0, each child's subtree's run
 * into its place, then (below member 0) this member's subtree's run to its parent; *front
 * becomes the last vertex.  Runs of no bytes move no message. */
int MPII_Hier_run_gather_up(const MPII_Hier_run_vector * v, const MPII_Hier_run_step * st,
                            int *front);
/* Down step st after *front: below member 0, this member's subtree's run from its parent
 * (then *front), then each child's subtree's run to it. */
int MPII_Hier_run_scatter_down(const MPII_Hier_run_vector * v, const MPII_Hier_run_step * st,
                               int *front);
/* The ranks whose blocks a rank of steps st[0 .. n - 1] moves below the top step: me ..
 * the returned end - 1, its largest subtree's run (its window: the runs of its subtrees
 * at every step all start with it) */
int MPII_Hier_run_window_end(const MPII_Hier_run_step * st, int n, int me);
/* st[0 .. n - 1] (with their first arrays, size + 1 each) copied into sched's memory, for
 * vertices built after the plan is freed; NULL when there is no room */
MPII_Hier_run_step *MPII_Hier_run_steps_keep(const MPII_Hier_run_step * st, int n, int size,
                                             MPIR_TSP_sched_t sched);
/* The offsets of a run of packed blocks, in sched's memory: at[from] = 0, at[r + 1] =
 * at[r] + bytes[r - base] for r = from .. to - 1 (at has to + 1 entries; those below from
 * are not set) */
MPI_Aint *MPII_Hier_run_offsets(const MPI_Aint * bytes, int from, int to, int base,
                                MPIR_TSP_sched_t sched);
/* The offsets of a run of blocks of each bytes for ranks lo .. end - 1, in sched's memory
 * (at[lo] = 0 .. at[end]; NULL when there is no room) */
MPI_Aint *MPII_Hier_run_uniform_offsets(int lo, int end, MPI_Aint each, MPIR_TSP_sched_t sched);
/* A vector of one count (MPI_Aint) per rank lo .. end - 1 in sched's memory, returned,
 * and *v moving it along run steps; NULL when there is no room */
MPI_Aint *MPII_Hier_run_counts(int lo, int end, MPIR_TSP_sched_t sched, MPII_Hier_run_vector * v);
/* a[0 .. n - 1] copied into sched's memory (NULL when there is no room): a call's count
 * and displacement arrays that vertices built later read, as MPICH's bindings free the
 * ones they pass (converted from int) when the call returns */
const MPI_Aint *MPII_Hier_keep_array(const MPI_Aint * a, int n, MPIR_TSP_sched_t sched);
/* The four entries of the hier reduce-scatter and reduce-scatter-block
 * (reduce_scatter_intra_hier.c): recvcounts, or NULL and every block recvcount elements;
 * inter_algo, calls_pvar and sched as for MPII_Hier_scan_entry */
int MPII_Hier_reduce_scatter_entry(const void *sendbuf, void *recvbuf,
                                   const MPI_Aint * recvcounts, MPI_Aint recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm,
                                   int inter_algo, int calls_pvar, MPIR_TSP_sched_t sched);

/* One rank's blocks of an alltoall, one per rank of the comm: block i is counts[i]
 * elements of type at buf + displs[i] extents (alltoallv); counts and displs NULL: count
 * elements at buf + i * count extents (alltoall) */
typedef struct {
    const void *buf;
    const MPI_Aint *counts, *displs;
    MPI_Aint count;
    MPI_Datatype type;
} MPII_Hier_blocks;
/* The direct exchange of the alltoalls (hier_direct.c), onto sched: every block of send
 * straight to its place in recv of its rank (send NULL: in place, the receive blocks are
 * copied out first), posted in node rounds (MPII_Hier_alltoall_node_rounds): in round j
 * this rank's node sends to the j-th node after it and receives from the j-th before it.
 * chained: each round after the one before (round 1 with round 0, this node's), so each
 * node's link carries one node pair's flows at a time; else all at once.  tag: one the
 * comm's ranks drew alike. */
int MPII_Hier_direct_exchange(MPIR_Comm * comm, int tag, const MPII_Hier_blocks * send,
                              const MPII_Hier_blocks * recv, int chained, MPIR_TSP_sched_t sched);

/* The gathered layout (hier_hierarchy.h) over the steps, with a LINEAR or BINOMIAL tree of
 * each step's members (hier_rooted.c); blocks of `block` packed bytes.  A leader's stage
 * holds its subtree's blocks at its coarsest step, its own first. */
/* One message of a tree step: this member and `peer` (a rank of the step's comm) move
 * `len` blocks at block `at` of this member's stage (from the start of its subtree). */
typedef struct {
    int peer;
    int sends;                  /* 1: this member sends them, 0: it receives them */
    long long at, len;
} MPII_Hier_piece;
/* The messages of tree step k < N for this member, the one description both forms run
 * (the blocking MPII_Hier_rooted_gather/_scatter, the schedules' vertices): gathering,
 * each child's subtree in, then this member's subtree out to its parent; scattering, this
 * member's subtree in from its parent, then each child's piece out, the largest subtree
 * first (the sends share this member's link: the piece that goes furthest leaves first).
 * Every receive comes before every send; a send goes after the receives (the blocking
 * form completes them, the schedule depends on them) and after the send before it.
 * *pieces (freed by the caller) holds *n; MPI_ERR_NO_MEM when there is no room. */
int MPII_Hier_rooted_pieces(const MPII_Hier_steps * steps, int k, MPII_Hier_tree_kind kind,
                            int gathering, MPII_Hier_piece ** pieces, int *n);
/* Up the steps from the finest to step `last`: the finest step gathers (sendbuf, sendcount,
 * sendtype) of the others onto its leader's stage (whose own block is in place there, at
 * its finest position), each coarser one the pieces of the tree.  Errors are recorded in
 * *errflag and the steps go on. */
int MPII_Hier_rooted_gather(const MPII_Hier_steps * steps, int last, MPII_Hier_tree_kind kind,
                            const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                            char *stage, MPI_Aint block, int intra_algo, int coll_attr,
                            int *errflag);
/* Down all steps: the root's stage holds every block in the layout; each rank receives its
 * own into recvbuf (MPI_IN_PLACE: the root's stays where it is). */
int MPII_Hier_rooted_scatter(const MPII_Hier_steps * steps, MPII_Hier_tree_kind kind,
                             char *stage, MPI_Aint block, void *recvbuf, MPI_Aint recvcount,
                             MPI_Datatype recvtype, int intra_algo, int coll_attr, int *errflag);

/* The intra-node gather (gathers) or scatter of a finest group, blocking, on the node
 * comm: the root's buffer holds the blocks in node-comm rank order (MPI_IN_PLACE at the
 * root: its own block is in place there).  shm and by_size move the node's blocks through
 * the device's shared memory while they fit (MPII_Hier_sized_rooted_shm: a bitwise-or
 * reduce of zero-padded copies onto the root, a bcast from it); beyond, by_size and auto
 * take MPICH's pick on the node comm, shm and binomial its binomial tree. */
int MPII_Hier_intra_rooted(int gathers, const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                           MPI_Datatype recvtype, int root, MPIR_Comm * node_comm,
                           int intra_algo, int coll_attr);
/* The gather's and scatter's blocking form, written once (hier_rooted.c): MPII_Hier_enter,
 * then what does not take the steps runs there (the local copy, the flat binomial, the
 * intra-node submodule on one node), and the collective's steps function the rest. */
typedef int (*MPII_Hier_rooted_fn) (const void *sendbuf, MPI_Aint sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                    MPI_Datatype recvtype, int root, MPIR_Comm * comm,
                                    int coll_attr);
/* What the steps function gets: the call's parameters, the steps for the root and the
 * tree of their inter-node steps, a leader's stage (MPII_Hier_rooted_plan_tree; NULL
 * elsewhere), the packed bytes per rank, the extent of the root's buffer, and whether
 * the root's own block is in place */
typedef struct {
    MPII_Hier_params prm;
    MPII_Hier_steps steps;
    MPII_Hier_tree_kind kind;
    char *stage;
    MPI_Aint block, extent;
    int in_place;
} MPII_Hier_rooted_plan;
/* The prepare step both forms run, in two parts.  Before the entry: the block (the root's
 * receive signature's bytes when gathering, its send signature's when scattering: every
 * rank's), the extent of the root's type (0 elsewhere), whether the root's own block is in
 * place, no stage.  Once the entry set p->prm and p->steps: the tree of the steps (items:
 * the collective's inter_algo items that name the linear tree and by_size; by_size
 * decides from the coarsest level's groups, the same tree at every level) and how many
 * blocks this rank's stage holds (0: it leads nothing, -1: out of memory). */
typedef struct {
    int linear;
    int by_size;
} MPII_Hier_rooted_items;
void MPII_Hier_rooted_prepare(const MPII_Hier_call * a, int gathering,
                              MPII_Hier_rooted_plan * p);
long long MPII_Hier_rooted_plan_tree(MPII_Hier_rooted_plan * p, MPII_Hier_rooted_items items);
/* A gather leader's own block, for both forms' copy into its stage (p->stage): from its
 * place in recvbuf at a root in place (p->in_place, p->extent), else from sendbuf; to its
 * place in its finest group */
typedef struct {
    const void *buf;
    MPI_Aint count;
    MPI_Datatype type;
    char *at;
} MPII_Hier_own_copy;
MPII_Hier_own_copy MPII_Hier_gather_own_copy(const MPII_Hier_call * a,
                                             const MPII_Hier_rooted_plan * p);
/* The steps functions of the gather and the scatter (gather_intra_hier.c,
 * scatter_intra_hier.c) */
int MPII_Hier_gather_steps(const MPII_Hier_call * call, const MPII_Hier_rooted_plan * plan,
                           int coll_attr, int *errflag);
int MPII_Hier_scatter_steps(const MPII_Hier_call * call, const MPII_Hier_rooted_plan * plan,
                            int coll_attr, int *errflag);
/* MPIR_Gather_intra_hier (gathers) and MPIR_Scatter_intra_hier */
int MPII_Hier_rooted_run(int gathers, const void *sendbuf, MPI_Aint sendcount,
                         MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                         MPI_Datatype recvtype, int root, MPIR_Comm * comm, int inter_algo,
                         int intra_algo, int coll_attr);
/* Intra-node step of the barrier, fan-in (no rank of the node leaves before all came
 * in, node comm rank 0 last) or fan-out (none leaves before rank 0 came in): binomial
 * sends empty messages up or down the binomial tree; shm fans in with the device's
 * barrier (dissemination where it cannot), auto with MPICH's selection on the node comm,
 * and both fan out with a bcast of one byte from rank 0 (MPII_Hier_intra_bcast). */
int MPII_Hier_intra_fan(MPIR_Comm * node_comm, int fan_in, int intra_algo, int coll_attr);

/* Intra-node steps: blocking bcast / reduce on the node comm.  Never MPIR_<Coll>_impl
 * directly: a forced hier CVAR would send it straight back to the plugin. */
int MPII_Hier_intra_bcast(void *buf, MPI_Aint count, MPI_Datatype datatype, int root,
                          MPIR_Comm * node_comm, int intra_algo, int coll_attr);
int MPII_Hier_intra_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * node_comm,
                           int intra_algo, int coll_attr);
/* A schedule of one of MPICH's two kinds, for a non-blocking step. */
typedef struct MPII_Hier_sched_s {
    enum MPIR_sched_type type;
    void *sched;                /* NULL when creating it failed */
} MPII_Hier_sched;
/* A new schedule of kind type (MPIR_SCHED_NORMAL or MPIR_SCHED_GENTRAN) on comm. */
int MPII_Hier_sched_new(MPII_Hier_sched * s, enum MPIR_sched_type type, MPIR_Comm * comm,
                        bool is_persistent);
/* Free a schedule (of either kind, or none: s->sched NULL) that will not be started again. */
void MPII_Hier_sched_discard(MPII_Hier_sched * s);
/* Start a schedule the caller built (build_errno: how building it went), or free it
 * when building failed: nobody else would, it never reaches a request. */
int MPII_Hier_sched_start(int build_errno, MPII_Hier_sched * s, MPIR_Comm * comm,
                          MPIR_Request ** req);

/* MPICH's binomial reduce on comm as a persistent schedule in *s (nothing left to free
 * when it fails): the reduce schedule's flat fallback, in rank order. */
int MPII_Hier_build_flat_ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                                 MPII_Hier_sched * s);
/* One step of one segment as a pipeline task does it (out: run or build): a bcast,
 * reduce or the one-step allreduce on st's comm, the intra-node submodule when intra
 * (blocking when run; as a schedule shm takes binomial, release_gather has none), else
 * the inter-node one of prm (auto: MPICH's own pick; the allreduce's: tsp_allreduce_ring
 * for commutative ops, or MPII_HIER_INTER_RECURSIVE_DOUBLING).  One builder table
 * (hier_submodules.c) makes the schedules of all of them. */
int MPII_Hier_step_bcast(void *buf, MPI_Aint count, MPI_Datatype datatype,
                         const MPII_Hier_step * st, const MPII_Hier_params * prm, bool intra,
                         MPII_Hier_task_out * out);
int MPII_Hier_step_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, const MPII_Hier_step * st,
                          const MPII_Hier_params * prm, bool intra, MPII_Hier_task_out * out);
int MPII_Hier_step_allreduce(void *buf, MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                             const MPII_Hier_step * st, const MPII_Hier_params * prm,
                             MPII_Hier_task_out * out);
/* Wait for a started schedule, if any, and release it. */
int MPII_Hier_wait(MPIR_Request ** req);
/* Start a built schedule and wait for it: the blocking algorithms. */
int MPII_Hier_sched_run(int build_errno, MPII_Hier_sched * s, MPIR_Comm * comm);

/* Segmented trees, written once as transport schedules (hier_seg_sched.c): segments of
 * whole elements of datatype, receives and sends chained by vertex dependencies so that
 * segments pipeline with at most `window` in flight per peer.  segsize in bytes (0: one
 * segment), fanout for CHAIN.  The reduce runs IN_ORDER_BINARY instead of the shape
 * asked for when op is not commutative.  *nsegs (may be NULL): segments of the calling
 * rank's part.  Two uses: the blocking algorithms MPIR_<Coll>_intra_seg_*
 * (MPII_Hier_seg_bcast / _reduce: started and waited for) and the seg_* inter-node
 * submodules of the hier algorithms. */
int MPII_Hier_seg_ibcast_sched(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                               MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize,
                               int fanout, int window, int64_t * nsegs, MPIR_TSP_sched_t sched);
int MPII_Hier_seg_ireduce_sched(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                                MPII_Hier_tree_kind kind, int segsize, int fanout, int window,
                                int64_t * nsegs, MPIR_TSP_sched_t sched);
int MPII_Hier_seg_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                        MPIR_Comm * comm, MPII_Hier_tree_kind kind, int segsize, int fanout,
                        int window);
int MPII_Hier_seg_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                         MPII_Hier_tree_kind kind, int segsize, int fanout, int window);

/* The route's view of the tuning files, taken at MPI_Init (hier_route.c). */
void MPII_Hier_route_init(void);
void MPII_Hier_route_mpir_tree(void);

/* Csel JSON (hier_json.c): whether a container id is one of the plugin's algorithms */
int MPII_Hier_csel_is_plugin_container(int id);

/* What an algorithm returns after its steps recorded their errors with
 * MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret) and went on, passing
 * coll_attr | errflag to the later steps so that peers learn of it (one failed peer must
 * not hang the others): the recorded errors first, as MPICH's algorithms do, else an
 * error of errflag's kind (its MPIR_ERR_PROC_FAILED or MPIR_ERR_OTHER bit). */
int MPII_Hier_final_errno(int mpi_errno, int mpi_errno_ret, int errflag);

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

/* The bytes of (count, datatype): 0 for count 0 or an empty type alike. */
MPI_Aint MPII_Hier_payload_bytes(MPI_Aint count, MPI_Datatype datatype);
/* Whether (buf, count, datatype) is one block of bytes; *bytes and *nbytes (when not NULL):
 * where it starts, how long it is (the packed size either way). */
int MPII_Hier_payload_contig(void *buf, MPI_Aint count, MPI_Datatype datatype, char **bytes,
                             MPI_Aint * nbytes);
int MPII_Hier_payload_start(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                            MPI_Datatype datatype, int pack_now);
int MPII_Hier_payload_finish(MPII_Hier_payload * payload, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, int unpack);


#endif /* HIER_IMPL_H_INCLUDED */
