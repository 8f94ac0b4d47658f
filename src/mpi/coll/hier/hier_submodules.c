/*
 * mpich-hier: the submodules of the hierarchical algorithms (HAN Table II): the
 * non-blocking inter-node steps on the leaders and the blocking intra-node steps.
 */

#include "hier_impl.h"

/* the number of values of a NAME parameter's list */
#define N_VALUES_INTER_ALGOS n_inter_algos
#define N_VALUES_INTRA_ALGOS MPII_HIER_INTRA_COUNT

int MPII_Hier_params_resolve(MPII_Hier_params * prm, const MPII_Hier_params * given,
                             const MPII_Hier_params * cvars, int n_inter_algos)
{
    int mpi_errno = MPI_SUCCESS;

#define RESOLVE_(param_, min_or_list_, cvar_) \
    prm->param_ = given->param_ >= 0 ? given->param_ : cvars->param_;
    MPII_HIER_PARAMS_HIER(RESOLVE_, RESOLVE_)
#undef RESOLVE_

#define CHECK_INT_(param_, min_, cvar_) \
    MPIR_ERR_CHKANDJUMP1(prm->param_ < (min_), mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s", \
                         "hier " #param_ " must be >= " #min_);
#define CHECK_NAME_(param_, list_, cvar_) \
    MPIR_ERR_CHKANDJUMP1(prm->param_ < 0 || prm->param_ >= N_VALUES_##list_, mpi_errno, \
                         MPI_ERR_ARG, "**arg", "**arg %s", \
                         "hier " #param_ " is not one of this collective's submodules");
    MPII_HIER_PARAMS_HIER(CHECK_INT_, CHECK_NAME_)
#undef CHECK_INT_
#undef CHECK_NAME_

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* the CVAR, else what the site measured with the tree it installed, else a typical
 * cluster link's */
static int64_t latency_bytes(void)
{
    if (MPIR_CVAR_HIER_LATENCY_BYTES > 0)
        return MPIR_CVAR_HIER_LATENCY_BYTES;
    int64_t site = MPII_Hier_site_latency_bytes();
    return site > 0 ? site : MPII_HIER_LATENCY_BYTES_DEFAULT;
}

int MPII_Hier_by_size_latency(MPII_Hier_sized_op op, const MPII_Hier_seg_plan * plan, int n,
                              int inter_chunk)
{
    return MPII_Hier_sized_plan_latency(op, plan, n, inter_chunk, latency_bytes());
}

int MPII_Hier_by_size_scan_latency(int n, int64_t bytes)
{
    return MPII_Hier_sized_scan_latency(bytes, n, MPII_HIER_SEGSIZE_DEFAULT, latency_bytes());
}

int MPII_Hier_by_size_alltoall_aggregate(int64_t block, int size)
{
    return MPII_Hier_sized_alltoall_aggregate(block, size, latency_bytes());
}

int MPII_Hier_by_size_alltoall_brucks(int64_t piece, int n)
{
    return MPII_Hier_sized_alltoall_brucks(piece, n, latency_bytes());
}

int MPII_Hier_by_size_alltoall_node_rounds(int64_t block)
{
    return MPII_Hier_sized_alltoall_node_rounds(block, latency_bytes());
}

int64_t MPII_Hier_rooted_v_tree_bytes(int64_t block)
{
    return MPII_Hier_sized_rooted_v_direct(block, latency_bytes()) ? 0 : block;
}

int MPII_Hier_rooted_v_with_counts(int64_t run_bytes)
{
    return MPII_Hier_sized_rooted_v_with_counts(run_bytes, latency_bytes());
}

int64_t MPII_Hier_rooted_v_with_counts_room(void)
{
    return latency_bytes();
}

int MPII_Hier_by_size_rooted_latency(int n, int64_t group_bytes)
{
    return MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, group_bytes, 1, n, latency_bytes());
}

/* by_size's inter-node algorithm for a step of op among n members moving the segments of
 * plan; counted where it runs (counted) */
static void inter_by_size(MPII_Hier_params * p, MPII_Hier_sized_op op,
                          const MPII_Hier_seg_plan * plan, int n, int counted)
{
    int latency = MPII_Hier_by_size_latency(op, plan, n, p->inter_chunk);
    if (counted)
        MPII_Hier_pvars[latency ? MPII_HIER_PVAR_BY_SIZE_LATENCY :
                        MPII_HIER_PVAR_BY_SIZE_BANDWIDTH]++;
    if (latency) {
        p->inter_algo = op == MPII_HIER_SIZED_ALLREDUCE ? MPII_HIER_INTER_RECURSIVE_DOUBLING :
            MPII_HIER_INTER_SCHED_BINOMIAL;
        p->inter_chunk = 0;
    } else {
        p->inter_algo = op == MPII_HIER_SIZED_ALLREDUCE ? MPII_HIER_INTER_TSP_ALLREDUCE_RING :
            MPII_HIER_INTER_TSP_RING;
    }
}

const MPII_Hier_params *MPII_Hier_step_params(const MPII_Hier_params * prm,
                                              const MPII_Hier_step * step, int members,
                                              MPII_Hier_sized_op op,
                                              const MPII_Hier_seg_plan * plan,
                                              MPII_Hier_params * scratch)
{
    if (!step->up && !step->down && prm->inter_algo != MPII_HIER_INTER_BY_SIZE)
        return prm;
    *scratch = *prm;
    if (step->up || step->down) {
        scratch->inter_algo = step->up ? prm->up_inter_algo : prm->down_inter_algo;
        scratch->inter_k = step->up ? prm->up_inter_k : prm->down_inter_k;
        scratch->inter_chunk = step->up ? prm->up_inter_chunk : prm->down_inter_chunk;
    }
    if (scratch->inter_algo == MPII_HIER_INTER_BY_SIZE)
        inter_by_size(scratch, op, plan, members, step->comm && step->inter);
    return scratch;
}

/* the bytes of a release_gather cell of the device's reduce (op reduce) or bcast */
static int64_t intra_cell_bytes(MPII_Hier_sized_op op)
{
    return op == MPII_HIER_SIZED_REDUCE ?
        MPIR_CVAR_REDUCE_INTRANODE_BUFFER_TOTAL_SIZE / MPIR_CVAR_REDUCE_INTRANODE_NUM_CELLS :
        MPIR_CVAR_BCAST_INTRANODE_BUFFER_TOTAL_SIZE / MPIR_CVAR_BCAST_INTRANODE_NUM_CELLS;
}

int MPII_Hier_intra_off_device(int intra_algo)
{
    return intra_algo == MPII_HIER_INTRA_SHM || intra_algo == MPII_HIER_INTRA_BY_SIZE ?
        MPII_HIER_INTRA_AUTO : intra_algo;
}

int MPII_Hier_intra_resolve(int intra_algo, MPI_Aint bytes, MPII_Hier_sized_op op)
{
    if (intra_algo != MPII_HIER_INTRA_BY_SIZE)
        return intra_algo;
    return MPII_Hier_sized_intra_shm(bytes, intra_cell_bytes(op)) ? MPII_HIER_INTRA_SHM :
        MPII_HIER_INTRA_AUTO;
}

int MPII_Hier_allgather_inter_resolve(int inter_algo, MPI_Aint group_bytes, int ngroups)
{
    if (inter_algo != MPII_HIER_ALLGATHER_INTER_BY_SIZE)
        return inter_algo;
    int latency = MPII_Hier_sized_latency(MPII_HIER_SIZED_ALLGATHER, group_bytes, 1, ngroups,
                                          latency_bytes());
    MPII_Hier_pvars[latency ? MPII_HIER_PVAR_BY_SIZE_LATENCY :
                    MPII_HIER_PVAR_BY_SIZE_BANDWIDTH]++;
    return latency ? MPII_HIER_ALLGATHER_INTER_BRUCKS : MPII_HIER_ALLGATHER_INTER_RING;
}

/* The tsp tree of an inter-node algorithm: its type and radix. */
static void tsp_tree_of(const MPII_Hier_params * prm, int *tree_type, int *k)
{
    *tree_type = prm->inter_algo == MPII_HIER_INTER_TSP_KNOMIAL ?
        MPIR_TREE_TYPE_KNOMIAL_1 : MPIR_TREE_TYPE_KARY;
    *k = prm->inter_algo == MPII_HIER_INTER_TSP_RING ? 1 : prm->inter_k;
}

/* The pipeline chunk of a tsp inter-node step of count elements of datatype: chunk, or
 * raised to cut at most MPII_HIER_SEG_MAX chunks (counted in coll_hier_segsize_raised). */
static int tsp_chunk(int chunk, MPI_Aint count, MPI_Datatype datatype)
{
    MPI_Aint type_size;
    int raised;
    MPIR_Datatype_get_size_macro(datatype, type_size);
    int64_t bounded = MPII_Hier_seg_size((int64_t) count * type_size, chunk, 1, &raised);
    MPII_HIER_PVAR_ADD(SEGSIZE_RAISED, raised);
    return raised ? (int) bounded : chunk;
}

/* The tree of a seg_* inter-node algorithm (own_tree: the collective's own shape). */
static MPII_Hier_tree_kind seg_tree_of(int inter_algo, MPII_Hier_tree_kind own_tree)
{
    switch (inter_algo) {
        case MPII_HIER_INTER_SEG_LINEAR:
            return MPII_HIER_TREE_LINEAR;
        case MPII_HIER_INTER_SEG_CHAIN:
            return MPII_HIER_TREE_CHAIN;
        case MPII_HIER_INTER_SEG_PIPELINE:
            return MPII_HIER_TREE_PIPELINE;
        case MPII_HIER_INTER_SEG_BINARY:
            return MPII_HIER_TREE_BINARY;
        case MPII_HIER_INTER_SEG_BINOMIAL:
            return MPII_HIER_TREE_BINOMIAL;
        default:
            return own_tree;
    }
}

void MPII_Hier_sched_discard(MPII_Hier_sched * s)
{
    if (s->sched && s->type == MPIR_SCHED_GENTRAN)
        MPIR_TSP_sched_free(s->sched);
    else if (s->sched)
        MPIR_Sched_free(s->sched);
    s->sched = NULL;
}

int MPII_Hier_sched_new(MPII_Hier_sched * sub, enum MPIR_sched_type type, MPIR_Comm * comm,
                        bool is_persistent)
{
    int mpi_errno = MPI_SUCCESS;
    /* the names MPICH's schedule macros expect: is_persistent, sched_type_p, sched_p,
     * comm_ptr (and their own s) */
    enum MPIR_sched_type *sched_type_p = &sub->type;
    void **sched_p = &sub->sched;
    MPIR_Comm *comm_ptr = comm;

    sub->sched = NULL;
    if (type == MPIR_SCHED_GENTRAN)
        MPII_GENTRAN_CREATE_SCHED_P();
    else
        MPII_SCHED_CREATE_SCHED_P();

  fn_exit:
    return mpi_errno;
  fn_fail:
    sub->sched = NULL;
    goto fn_exit;
}

int MPII_Hier_sched_start(int build_errno, MPII_Hier_sched * s, MPIR_Comm * comm,
                          MPIR_Request ** req)
{
    int mpi_errno = build_errno;
    MPIR_Comm *comm_ptr = comm; /* named as MPII_SCHED_START expects */

    *req = NULL;
    if (mpi_errno) {
        MPII_Hier_sched_discard(s);
        goto fn_fail;
    }
    MPII_SCHED_START(s->type, s->sched, comm_ptr, req);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_sched_run(int build_errno, MPII_Hier_sched * s, MPIR_Comm * comm)
{
    MPIR_Request *req = NULL;
    int mpi_errno = MPII_Hier_sched_start(build_errno, s, comm, &req);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = MPII_Hier_wait(&req);
    return mpi_errno;
}

/* ---- the steps as schedules: one builder table ---- */

/* One step of a bcast, reduce or allreduce as its builder takes it */
typedef struct {
    MPII_Hier_sized_op kind;    /* MPII_HIER_SIZED_BCAST, _REDUCE or _ALLREDUCE */
    const void *sendbuf;        /* reduce: the contribution (MPI_IN_PLACE: in buf) */
    void *buf;                  /* bcast: the buffer; reduce: recvbuf; allreduce: in place */
    MPI_Aint count;
    MPI_Datatype datatype;
    MPI_Op op;                  /* reduce, allreduce */
    int root;                   /* bcast, reduce */
} step_call;

typedef int (*step_builder) (const step_call * c, const MPII_Hier_params * prm,
                             MPIR_Comm * comm, void *sched);

static int bcast_binomial(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                          void *sched)
{
    return MPIR_Ibcast_intra_sched_binomial(c->buf, c->count, c->datatype, c->root, comm, sched);
}

static int reduce_binomial(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                           void *sched)
{
    return MPIR_Ireduce_intra_sched_binomial(c->sendbuf, c->buf, c->count, c->datatype, c->op,
                                             c->root, comm, sched);
}

static int bcast_tsp_tree(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                          void *sched)
{
    int tree_type, k;
    tsp_tree_of(prm, &tree_type, &k);
    return MPIR_TSP_Ibcast_sched_intra_tree(c->buf, c->count, c->datatype, c->root, comm,
                                            tree_type, k,
                                            tsp_chunk(prm->inter_chunk, c->count, c->datatype),
                                            sched);
}

static int reduce_tsp_tree(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                           void *sched)
{
    int tree_type, k;
    tsp_tree_of(prm, &tree_type, &k);
    return MPIR_TSP_Ireduce_sched_intra_tree(c->sendbuf, c->buf, c->count, c->datatype, c->op,
                                             c->root, comm, tree_type, k,
                                             tsp_chunk(prm->inter_chunk, c->count, c->datatype),
                                             0, sched);
}

static int bcast_seg_tree(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                          void *sched)
{
    return MPII_Hier_seg_ibcast_sched(c->buf, c->count, c->datatype, c->root, comm,
                                      seg_tree_of(prm->inter_algo, MPII_HIER_TREE_SPLIT_BINARY),
                                      prm->inter_chunk, prm->inter_k, MPIR_CVAR_BCAST_SEG_WINDOW,
                                      NULL, sched);
}

/* a reduce's own tree: the in-order binary tree (rank order, whatever the op) */
static int reduce_seg_tree(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                           void *sched)
{
    return MPII_Hier_seg_ireduce_sched(c->sendbuf, c->buf, c->count, c->datatype, c->op,
                                       c->root, comm,
                                       seg_tree_of(prm->inter_algo,
                                                   MPII_HIER_TREE_IN_ORDER_BINARY),
                                       prm->inter_chunk, prm->inter_k,
                                       MPIR_CVAR_REDUCE_SEG_WINDOW, NULL, sched);
}

/* MPICH's recursive doubling combines in rank order */
static int allreduce_recursive_doubling(const step_call * c, const MPII_Hier_params * prm,
                                        MPIR_Comm * comm, void *sched)
{
    return MPIR_Iallreduce_intra_sched_recursive_doubling(MPI_IN_PLACE, c->buf, c->count,
                                                          c->datatype, c->op, comm, sched);
}

/* MPICH's ring reduces in ring order: registered for commutative ops only */
static int allreduce_ring(const step_call * c, const MPII_Hier_params * prm, MPIR_Comm * comm,
                          void *sched)
{
    MPIR_Assert(MPIR_Op_is_commutative(c->op));
    return MPIR_TSP_Iallreduce_sched_intra_ring(MPI_IN_PLACE, c->buf, c->count, c->datatype,
                                                c->op, comm, sched);
}

/* The blocking forms of the same algorithms (MPICH's), for a step that nothing overlaps:
 * the same messages, without a schedule to build, start and poll */
static int bcast_binomial_run(const step_call * c, MPIR_Comm * comm, int coll_attr)
{
    return MPIR_Bcast_intra_binomial(c->buf, c->count, c->datatype, c->root, comm, coll_attr);
}

static int reduce_binomial_run(const step_call * c, MPIR_Comm * comm, int coll_attr)
{
    return MPIR_Reduce_intra_binomial(c->sendbuf, c->buf, c->count, c->datatype, c->op, c->root,
                                      comm, coll_attr);
}

static int allreduce_recursive_doubling_run(const step_call * c, MPIR_Comm * comm,
                                            int coll_attr)
{
    return MPIR_Allreduce_intra_recursive_doubling(MPI_IN_PLACE, c->buf, c->count, c->datatype,
                                                   c->op, comm, coll_attr);
}

typedef int (*step_runner) (const step_call * c, MPIR_Comm * comm, int coll_attr);

/* The builders by family of algorithms, each with its schedule kind, per collective
 * (indexed by MPII_Hier_sized_op: bcast, reduce, allreduce), and their blocking forms
 * where MPICH has them */
typedef enum {
    FAMILY_BINOMIAL,            /* sched_binomial; the intra-node binomial and shm */
    FAMILY_TSP_TREE,            /* tsp_kary, tsp_knomial, tsp_ring */
    FAMILY_SEG_TREE,            /* seg_* */
    FAMILY_RECURSIVE_DOUBLING,  /* by_size's allreduce among the leaders */
    FAMILY_RING,                /* tsp_allreduce_ring */
    N_FAMILIES
} step_family;
static const struct {
    enum MPIR_sched_type type;
    step_builder build[3];
    step_runner run[3];
} builders[N_FAMILIES] = {
    [FAMILY_BINOMIAL] = {MPIR_SCHED_NORMAL, {bcast_binomial, reduce_binomial, NULL},
                         {bcast_binomial_run, reduce_binomial_run, NULL}},
    [FAMILY_TSP_TREE] = {MPIR_SCHED_GENTRAN, {bcast_tsp_tree, reduce_tsp_tree, NULL}},
    [FAMILY_SEG_TREE] = {MPIR_SCHED_GENTRAN, {bcast_seg_tree, reduce_seg_tree, NULL}},
    [FAMILY_RECURSIVE_DOUBLING] = {MPIR_SCHED_NORMAL, {NULL, NULL, allreduce_recursive_doubling},
                                   {NULL, NULL, allreduce_recursive_doubling_run}},
    [FAMILY_RING] = {MPIR_SCHED_GENTRAN, {NULL, NULL, allreduce_ring}},
};

static step_family family_of(MPII_Hier_sized_op kind, int inter_algo)
{
    if (kind == MPII_HIER_SIZED_ALLREDUCE)
        return inter_algo == MPII_HIER_INTER_RECURSIVE_DOUBLING ? FAMILY_RECURSIVE_DOUBLING :
            FAMILY_RING;
    switch (inter_algo) {
        case MPII_HIER_INTER_SCHED_BINOMIAL:
            return FAMILY_BINOMIAL;
        case MPII_HIER_INTER_TSP_KARY:
        case MPII_HIER_INTER_TSP_KNOMIAL:
        case MPII_HIER_INTER_TSP_RING:
            return FAMILY_TSP_TREE;
        default:
            return FAMILY_SEG_TREE;
    }
}

/* The inter-node algorithm a step of c runs: MPICH's tsp tree reduce is registered for
 * commutative ops only, and the binomial schedule combines in rank order, which the
 * leaders' comm follows; the seg trees run the in-order binary tree
 * (MPII_Hier_seg_ireduce_sched counts it). */
static int inter_algo_of(const step_call * c, int inter_algo)
{
    if (c->kind == MPII_HIER_SIZED_REDUCE && !MPIR_Op_is_commutative(c->op) &&
        inter_algo < MPII_HIER_INTER_SEG_LINEAR)
        return MPII_HIER_INTER_SCHED_BINOMIAL;
    return inter_algo;
}

/* A step as a schedule in *s (nothing left to free when it fails): MPII_HIER_INTER_AUTO
 * is MPICH's Csel pick on comm (bcast and reduce). */
static int build_step(const step_call * c, const MPII_Hier_params * prm, int inter_algo,
                      MPIR_Comm * comm, bool is_persistent, MPII_Hier_sched * s)
{
    int mpi_errno;

    s->sched = NULL;
    if (inter_algo == MPII_HIER_INTER_AUTO && c->kind == MPII_HIER_SIZED_BCAST)
        return MPIR_Ibcast_allcomm_sched_auto(c->buf, c->count, c->datatype, c->root, comm,
                                              is_persistent, &s->sched, &s->type);
    if (inter_algo == MPII_HIER_INTER_AUTO && c->kind == MPII_HIER_SIZED_REDUCE)
        return MPIR_Ireduce_allcomm_sched_auto(c->sendbuf, c->buf, c->count, c->datatype, c->op,
                                               c->root, comm, is_persistent, &s->sched,
                                               &s->type);
    step_family family = family_of(c->kind, inter_algo);
    mpi_errno = MPII_Hier_sched_new(s, builders[family].type, comm, is_persistent);
    if (!mpi_errno) {
        MPII_Hier_params with_algo = prm ? *prm : (MPII_Hier_params) { 0 };
        with_algo.inter_algo = inter_algo;
        mpi_errno = builders[family].build[c->kind] (c, &with_algo, comm, s->sched);
    }
    if (mpi_errno)
        MPII_Hier_sched_discard(s);
    return mpi_errno;
}

/* The intra-node submodule's algorithm as a schedule: no device shm step (release_gather
 * has none), so shm takes binomial; auto takes MPICH's Csel pick on the node comm. */
static int intra_sched_algo(const step_call * c, int intra_algo)
{
    intra_algo = MPII_Hier_intra_resolve(intra_algo, MPII_Hier_payload_bytes(c->count,
                                                                             c->datatype),
                                         c->kind);
    return intra_algo == MPII_HIER_INTRA_AUTO ? MPII_HIER_INTER_AUTO :
        MPII_HIER_INTER_SCHED_BINOMIAL;
}

int MPII_Hier_build_flat_ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm,
                                 MPII_Hier_sched * s)
{
    const step_call c = { MPII_HIER_SIZED_REDUCE, sendbuf, recvbuf, count, datatype, op, root };
    return build_step(&c, NULL, MPII_HIER_INTER_SCHED_BINOMIAL, comm, true, s);
}

/* A task's step, run: the intra-node submodule runs to its end; an inter-node one runs its
 * blocking form when nothing overlaps it and it has one, else is started (*out->req),
 * MPICH's MPIR_I<coll> with its CVARs for auto */
static int run_step(const step_call * c, const MPII_Hier_step * st, const MPII_Hier_params * prm,
                    int inter_algo, bool intra, MPII_Hier_task_out * out)
{
    MPII_Hier_sched s;

    *out->req = NULL;
    if (intra && c->kind == MPII_HIER_SIZED_BCAST)
        return MPII_Hier_intra_bcast(c->buf, c->count, c->datatype, st->root, st->comm,
                                     prm->intra_algo, out->coll_attr);
    if (intra)
        return MPII_Hier_intra_reduce(c->sendbuf, c->buf, c->count, c->datatype, c->op,
                                      st->root, st->comm, prm->intra_algo, out->coll_attr);
    if (inter_algo == MPII_HIER_INTER_AUTO && c->kind == MPII_HIER_SIZED_BCAST)
        return MPIR_Ibcast(c->buf, c->count, c->datatype, st->root, st->comm, out->req);
    if (inter_algo == MPII_HIER_INTER_AUTO && c->kind == MPII_HIER_SIZED_REDUCE)
        return MPIR_Ireduce(c->sendbuf, c->buf, c->count, c->datatype, c->op, st->root,
                            st->comm, out->req);
    step_runner runner = inter_algo == MPII_HIER_INTER_AUTO ? NULL :
        builders[family_of(c->kind, inter_algo)].run[c->kind];
    if (out->alone && runner)
        return runner(c, st->comm, out->coll_attr);
    int mpi_errno = build_step(c, prm, inter_algo, st->comm, false, &s);
    return MPII_Hier_sched_start(mpi_errno, &s, st->comm, out->req);
}

/* One step of one segment as a pipeline task does it: built into out->s (persistent: the
 * schedule form reruns its steps), or run */
static int task_step(const step_call * c, const MPII_Hier_step * st,
                     const MPII_Hier_params * prm, bool intra, MPII_Hier_task_out * out)
{
    int algo = intra ? intra_sched_algo(c, prm->intra_algo) : inter_algo_of(c, prm->inter_algo);
    if (out->s)
        return build_step(c, prm, algo, st->comm, true, out->s);
    return run_step(c, st, prm, algo, intra, out);
}

int MPII_Hier_step_bcast(void *buf, MPI_Aint count, MPI_Datatype datatype,
                         const MPII_Hier_step * st, const MPII_Hier_params * prm, bool intra,
                         MPII_Hier_task_out * out)
{
    const step_call c = { MPII_HIER_SIZED_BCAST, NULL, buf, count, datatype, MPI_OP_NULL,
        st->root
    };
    return task_step(&c, st, prm, intra, out);
}

int MPII_Hier_step_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, const MPII_Hier_step * st,
                          const MPII_Hier_params * prm, bool intra, MPII_Hier_task_out * out)
{
    const step_call c = { MPII_HIER_SIZED_REDUCE, sendbuf, recvbuf, count, datatype, op,
        st->root
    };
    return task_step(&c, st, prm, intra, out);
}

int MPII_Hier_step_allreduce(void *buf, MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                             const MPII_Hier_step * st, const MPII_Hier_params * prm,
                             MPII_Hier_task_out * out)
{
    const step_call c = { MPII_HIER_SIZED_ALLREDUCE, MPI_IN_PLACE, buf, count, datatype, op, 0 };
    return task_step(&c, st, prm, false, out);
}

int MPII_Hier_intra_bcast(void *buf, MPI_Aint count, MPI_Datatype datatype, int root,
                          MPIR_Comm * node_comm, int intra_algo, int coll_attr)
{
    intra_algo = MPII_Hier_intra_resolve(intra_algo, MPII_Hier_payload_bytes(count, datatype),
                                         MPII_HIER_SIZED_BCAST);
    if (intra_algo == MPII_HIER_INTRA_SHM) {
        int used, mpi_errno;
        MPII_Hier_guard_enter();
        mpi_errno = MPID_Hier_shm_bcast(buf, count, datatype, root, node_comm, &used,
                                        coll_attr);
        MPII_Hier_guard_leave();
        if (used)
            return mpi_errno;
    }
    if (intra_algo == MPII_HIER_INTRA_BINOMIAL)
        return MPIR_Bcast_intra_binomial(buf, count, datatype, root, node_comm, coll_attr);
    return MPIR_Bcast_allcomm_auto(buf, count, datatype, root, node_comm, coll_attr);
}

int MPII_Hier_intra_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * node_comm,
                           int intra_algo, int coll_attr)
{
    intra_algo = MPII_Hier_intra_resolve(intra_algo, MPII_Hier_payload_bytes(count, datatype),
                                         MPII_HIER_SIZED_REDUCE);
    if (intra_algo == MPII_HIER_INTRA_SHM) {
        int used, mpi_errno;
        MPII_Hier_guard_enter();
        mpi_errno = MPID_Hier_shm_reduce(sendbuf, recvbuf, count, datatype, op, root,
                                         node_comm, &used, coll_attr);
        MPII_Hier_guard_leave();
        if (used)
            return mpi_errno;
    }
    /* binomial combines in rank order: the one choice right for non-commutative ops */
    if (intra_algo == MPII_HIER_INTRA_BINOMIAL || !MPIR_Op_is_commutative(op))
        return MPIR_Reduce_intra_binomial(sendbuf, recvbuf, count, datatype, op, root,
                                          node_comm, coll_attr);
    return MPIR_Reduce_allcomm_auto(sendbuf, recvbuf, count, datatype, op, root, node_comm,
                                    coll_attr);
}

/* A gather's or scatter's call on a node comm, and the bytes of one rank's block */
typedef struct {
    const void *sendbuf;
    MPI_Aint sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Aint recvcount;
    MPI_Datatype recvtype;
    int root;
    MPIR_Comm *comm;
    MPI_Aint block;
} rooted_call;

/* The node's gather through the device's shared memory: each rank zeroes a copy of all
 * the node's blocks and puts its own in its place; the release_gather reduce ors the
 * copies onto the root (MPI_BOR of 64-bit words: each block's bytes meet only zeros). */
static int rooted_shm_gather(const rooted_call * c, uint64_t * words, MPI_Aint nwords,
                             int *used, int coll_attr)
{
    int me = c->comm->rank, is_root = me == c->root, in_place = c->sendbuf == MPI_IN_PLACE;
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS, errflag = 0;
    char *at = (char *) words;
    MPI_Aint extent = 0;

    if (is_root)
        MPIR_Datatype_get_extent_macro(c->recvtype, extent);
    memset(words, 0, nwords * sizeof(*words));
    if (is_root && in_place)
        mpi_errno = MPIR_Localcopy((char *) c->recvbuf + me * c->recvcount * extent,
                                   c->recvcount, c->recvtype, at + me * c->block, c->block,
                                   MPIR_BYTE_INTERNAL);
    else
        mpi_errno = MPIR_Localcopy(c->sendbuf, c->sendcount, c->sendtype, at + me * c->block,
                                   c->block, MPIR_BYTE_INTERNAL);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    MPII_Hier_guard_enter();
    mpi_errno = MPID_Hier_shm_reduce(is_root ? MPI_IN_PLACE : words, is_root ? words : NULL,
                                     nwords, MPIR_UINT64, MPI_BOR, c->root, c->comm, used,
                                     coll_attr | errflag);
    MPII_Hier_guard_leave();
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    for (int r = 0; is_root && *used && r < c->comm->local_size; r++) {
        if (r == me && in_place)
            continue;
        mpi_errno = MPIR_Localcopy(at + r * c->block, c->block, MPIR_BYTE_INTERNAL,
                                   (char *) c->recvbuf + r * c->recvcount * extent,
                                   c->recvcount, c->recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* The node's scatter through the device's shared memory: the root's blocks, packed, in
 * one release_gather bcast; each rank keeps its own. */
static int rooted_shm_scatter(const rooted_call * c, uint64_t * words, int *used,
                              int coll_attr)
{
    int me = c->comm->rank, is_root = me == c->root;
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS, errflag = 0;
    char *at = (char *) words;
    MPI_Aint extent = 0;

    if (is_root)
        MPIR_Datatype_get_extent_macro(c->sendtype, extent);
    for (int r = 0; is_root && r < c->comm->local_size; r++) {
        mpi_errno = MPIR_Localcopy((const char *) c->sendbuf + r * c->sendcount * extent,
                                   c->sendcount, c->sendtype, at + r * c->block, c->block,
                                   MPIR_BYTE_INTERNAL);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    MPII_Hier_guard_enter();
    mpi_errno = MPID_Hier_shm_bcast(words, c->comm->local_size * c->block, MPIR_BYTE_INTERNAL,
                                    c->root, c->comm, used, coll_attr | errflag);
    MPII_Hier_guard_leave();
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    if (*used && !(is_root && c->recvbuf == MPI_IN_PLACE)) {
        mpi_errno = MPIR_Localcopy(at + me * c->block, c->block, MPIR_BYTE_INTERNAL, c->recvbuf,
                                   c->recvcount, c->recvtype);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* shm while the node's blocks fit, by_size where that also saves steps
 * (MPII_Hier_sized_rooted_shm): the device's shared memory (the same figures on every
 * rank, so all take it or none).  *used 0: not taken (too large, or the device cannot),
 * nothing done. */
static int intra_rooted_shm(int gathers, const rooted_call * c, int intra_algo, int *used,
                            int coll_attr)
{
    uint64_t words[MPII_HIER_SHM_ROOTED_MAX_BYTES / sizeof(uint64_t)];
    int size = c->comm->local_size;
    MPI_Aint node_bytes = size * c->block;
    int64_t cell = intra_cell_bytes(gathers ? MPII_HIER_SIZED_REDUCE : MPII_HIER_SIZED_BCAST);

    *used = 0;
    if (c->block == 0 ||
        !(intra_algo == MPII_HIER_INTRA_SHM ? MPII_Hier_sized_rooted_shm_fits(node_bytes, cell) :
          intra_algo == MPII_HIER_INTRA_BY_SIZE &&
          MPII_Hier_sized_rooted_shm(size, node_bytes, cell)))
        return MPI_SUCCESS;
    if (gathers)
        return rooted_shm_gather(c, words, (node_bytes + sizeof(uint64_t) - 1) /
                                 sizeof(uint64_t), used, coll_attr);
    return rooted_shm_scatter(c, words, used, coll_attr);
}

int MPII_Hier_intra_rooted(int gathers, const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                           MPI_Datatype recvtype, int root, MPIR_Comm * node_comm,
                           int intra_algo, int coll_attr)
{
    /* a rank's block from its own side: the root's holds the node's blocks (a gather's
     * receive side, a scatter's send side), every other rank's its own block */
    int own_is_send = gathers != (node_comm->rank == root), used;
    const rooted_call c = { sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
        node_comm, own_is_send ? MPII_Hier_payload_bytes(sendcount, sendtype) :
            MPII_Hier_payload_bytes(recvcount, recvtype)
    };
    int mpi_errno = intra_rooted_shm(gathers, &c, intra_algo, &used, coll_attr);
    if (used)
        return mpi_errno;
    int pick = intra_algo == MPII_HIER_INTRA_AUTO || intra_algo == MPII_HIER_INTRA_BY_SIZE;
    MPII_Hier_rooted_fn fn = gathers ?
        (pick ? MPIR_Gather_allcomm_auto : MPIR_Gather_intra_binomial) :
        (pick ? MPIR_Scatter_allcomm_auto : MPIR_Scatter_intra_binomial);
    return fn(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, node_comm,
              coll_attr);
}

/* Empty messages over the binomial tree of node_comm rooted at 0: up from the leaves
 * (fan_in) or down from rank 0.  Errors are recorded and the step goes on. */
static int binomial_fan(MPIR_Comm * node_comm, int fan_in, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;
    MPII_Hier_tree_node node;

    MPIR_ERR_CHKANDJUMP(MPII_Hier_tree_node_init(&node, MPII_HIER_TREE_BINOMIAL,
                                                 node_comm->local_size, 0, 1,
                                                 node_comm->rank) != 0, mpi_errno,
                        MPI_ERR_OTHER, "**nomem");
    if (!fan_in && node.parent >= 0) {
        mpi_errno = MPIC_Recv(NULL, 0, MPIR_BYTE_INTERNAL, node.parent, MPIR_BARRIER_TAG,
                              node_comm, MPI_STATUS_IGNORE);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    for (int c = 0; c < node.nchildren; c++) {
        if (fan_in)
            mpi_errno = MPIC_Recv(NULL, 0, MPIR_BYTE_INTERNAL, node.children[c],
                                  MPIR_BARRIER_TAG, node_comm, MPI_STATUS_IGNORE);
        else
            mpi_errno = MPIC_Send(NULL, 0, MPIR_BYTE_INTERNAL, node.children[c],
                                  MPIR_BARRIER_TAG, node_comm, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    if (fan_in && node.parent >= 0) {
        mpi_errno = MPIC_Send(NULL, 0, MPIR_BYTE_INTERNAL, node.parent, MPIR_BARRIER_TAG,
                              node_comm, coll_attr | errflag);
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    }
    MPII_Hier_tree_node_free(&node);

  fn_exit:
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_intra_fan(MPIR_Comm * node_comm, int fan_in, int intra_algo, int coll_attr)
{
    intra_algo = MPII_Hier_intra_resolve(intra_algo, 1, MPII_HIER_SIZED_BCAST);
    if (intra_algo == MPII_HIER_INTRA_BINOMIAL)
        return binomial_fan(node_comm, fan_in, coll_attr);
    if (!fan_in) {
        /* a release from rank 0: a bcast of one byte (one phase, a barrier has two) */
        char token = 0;
        return MPII_Hier_intra_bcast(&token, 1, MPIR_BYTE_INTERNAL, 0, node_comm, intra_algo,
                                     coll_attr);
    }
    if (intra_algo == MPII_HIER_INTRA_SHM) {
        int used, mpi_errno;
        MPII_Hier_guard_enter();
        mpi_errno = MPID_Hier_shm_barrier(node_comm, &used, coll_attr);
        MPII_Hier_guard_leave();
        if (used)
            return mpi_errno;
        return MPIR_Barrier_intra_dissemination(node_comm, coll_attr);
    }
    return MPIR_Barrier_allcomm_auto(node_comm, coll_attr);
}

int MPII_Hier_wait(MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;

    if (*req) {
        mpi_errno = MPIC_Wait(*req);
        /* a schedule's failed step is reported in its request's status only */
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = (*req)->status.MPI_ERROR;
        MPIR_Request_free(*req);
        *req = NULL;
    }
    return mpi_errno;
}

int MPII_Hier_final_errno(int mpi_errno, int mpi_errno_ret, int errflag)
{
    if (mpi_errno_ret)
        return mpi_errno_ret;
    if (mpi_errno)
        return mpi_errno;
    /* errflag holds MPIR_COLL_ATTR bits, not error classes */
    if (errflag & MPIR_ERR_PROC_FAILED)
        MPIR_ERR_SET(mpi_errno, MPIX_ERR_PROC_FAILED, "**coll_fail");
    else if (errflag & MPIR_ERR_OTHER)
        MPIR_ERR_SET(mpi_errno, MPI_ERR_OTHER, "**coll_fail");
    return mpi_errno;
}
