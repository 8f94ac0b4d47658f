/*
 * mpich-hier: the HAN pipeline of the hier bcast, reduce and allreduce, run slot by slot
 * (the blocking loop) or written into one schedule (the non-blocking and persistent
 * forms), and a call prepared by its collective (MPII_Hier_prepared) run in either form.
 * Their tasks: hier_pipeline.h; what a task does: the collective's task function.
 */

#include "hier_impl.h"
#include "gentran_utils.h"      /* a step's gentran schedule polled by its vertex */

/* Tags for the tasks on MPICH's comms (MPII_Hier_tag_lend): a block of the parent's per
 * task, taken by every rank alike (steps->mpich_comms is the same on every rank), lent to
 * what the task builds or starts there, which may draw one per chunk (at most
 * MPII_HIER_SEG_MAX) or per window; a task's segments never overlap, so they share it. */
#define TASK_TAGS (MPII_HIER_SEG_MAX + 16)
static int task_tags(const MPII_Hier_steps * steps, int ntasks, int *tag)
{
    for (int i = 0; i < ntasks; i++)
        tag[i] = -1;
    if (!steps->mpich_comms)
        return MPI_SUCCESS;
    return MPII_Hier_tags_draw(steps->comm, ntasks, TASK_TAGS, tag);
}

/* segment t of task on st, with the task's tags lent where st's comm is MPICH's; a build
 * that drew more than its block is an error (it could meet the next task's) */
static int task_call(MPII_Hier_task_fn fn, void *ctx, const MPII_Hier_task * task,
                     const MPII_Hier_step * st, int64_t t, int tag, MPII_Hier_task_out * out)
{
    int saved = MPII_Hier_tag_lend(st, tag);
    int mpi_errno = fn(ctx, task, st, t, out);
    if (saved >= 0 && st->comm->next_sched_tag - tag > TASK_TAGS && !mpi_errno)
        MPIR_ERR_SET1(mpi_errno, MPI_ERR_OTHER, "**arg", "**arg %s",
                      "hier step drew more tags than its block");
    MPII_Hier_tag_return(st, saved);
    return mpi_errno;
}

/* The blocking form: runs the tasks over nsegs segments on this rank's steps, slot after
 * slot, the started tasks in table order, then the blocking ones, then waits for the
 * started ones.  A task whose step this rank takes no part in is skipped.  Errors are
 * recorded in *errflag (returned: the first recorded error) and the slots go on, so that
 * peers never hang. */
static int pipeline_run(const MPII_Hier_steps * steps, const MPII_Hier_task * tasks,
                        int ntasks, int64_t nsegs, MPII_Hier_task_fn run, void *ctx,
                        int coll_attr, int *errflag)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    MPIR_Request *req[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)] = { NULL };
    int tag[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int64_t nslots = MPII_Hier_pipeline_nslots(tasks, ntasks, nsegs);

    MPIR_Assert(ntasks <= MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS));
    mpi_errno = task_tags(steps, ntasks, tag);
    if (mpi_errno)
        return mpi_errno;
    for (int64_t s = 0; s < nslots; s++) {
        int alone = MPII_Hier_pipeline_slot_tasks(tasks, ntasks, nsegs, s) == 1;
        /* the started tasks, in table order, then the blocking ones: a blocking task that
         * starts a request (a finest step across nodes) is waited for at once */
        for (int blocking = 0; blocking < 2; blocking++) {
            for (int i = 0; i < ntasks; i++) {
                const MPII_Hier_step *st = &steps->step[tasks[i].step];
                int64_t t = MPII_Hier_pipeline_seg(&tasks[i], nsegs, s);
                if (tasks[i].blocking != blocking || !st->comm || t < 0)
                    continue;
                MPII_Hier_task_out out = { NULL, &req[i], coll_attr | *errflag, alone };
                mpi_errno = task_call(run, ctx, &tasks[i], st, t, tag[i], &out);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
                if (blocking) {
                    mpi_errno = MPII_Hier_wait(&req[i]);
                    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
                }
            }
        }
        for (int i = 0; i < ntasks; i++) {
            mpi_errno = MPII_Hier_wait(&req[i]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
        }
    }
    return mpi_errno_ret;
}

/* ---- the pipeline as one schedule (non-blocking and persistent forms) ----
 *
 * Each task of each segment is a vertex of the caller's gentran schedule whose
 * sub-schedule (the step's bcast, reduce or allreduce of that segment, on the step's
 * comm) is built once, with the schedule, and run each time the schedule reaches the
 * vertex: at every start of a persistent request the same sub-schedules run again.
 * Gentran's own sub-schedule vertex cannot carry the step's comm (it starts them on no
 * comm), hence a vertex type of our own.  A gentran sub-schedule is polled by its
 * vertex, not queued: the vertex runs inside gentran's progress hook, which holds the
 * queue's lock (MPI_THREAD_MULTIPLE); an MPICH schedule of the other kind is started. */

typedef struct {
    MPII_Hier_sched s;          /* built persistent: rerun, freed with the vertex */
    MPIR_Comm *comm;
    MPIR_Request *started;      /* MPIR_SCHED_NORMAL: the running schedule's request */
    MPIR_Request *record;       /* MPIR_SCHED_GENTRAN: where the schedule records errors */
    MPII_Hier_deferred_fn build;        /* deferred: builds s (gentran) when first issued */
    void *ctx;
    MPI_Datatype held[2];       /* deferred: the call's types, held until it is built */
} step_vertex;

/* poll a gentran sub-schedule; its errors are in v->record */
static int step_vertex_poke(step_vertex * v, int *done)
{
    MPII_Genutil_sched_t *g = v->s.sched;
    int progress, mpi_errno = MPI_SUCCESS;

    if (g->total_vtcs == 0) {
        *done = 1;
        return MPI_SUCCESS;
    }
    mpi_errno = MPII_Genutil_sched_poke(g, done, &progress);
    if (mpi_errno == MPI_SUCCESS && *done)
        mpi_errno = v->record->status.MPI_ERROR;
    return mpi_errno;
}

/* A deferred vertex's schedule, built at its first issue (a persistent request's later
 * starts rerun it: the data it was built from are the same at every start) */
static int step_vertex_build(step_vertex * v)
{
    int mpi_errno = MPII_Hier_sched_new(&v->s, MPIR_SCHED_GENTRAN, v->comm, true);

    if (!mpi_errno)
        mpi_errno = v->build(v->ctx, v->s.sched);
    v->build = NULL;
    return mpi_errno;
}

static int step_vertex_issue(void *data, int *done)
{
    step_vertex *v = data;
    int mpi_errno = MPI_SUCCESS;

    *done = 0;
    if (v->build)
        mpi_errno = step_vertex_build(v);
    if (mpi_errno)
        return mpi_errno;
    if (v->s.type == MPIR_SCHED_GENTRAN) {
        MPII_Genutil_sched_t *g = v->s.sched;
        MPIR_TSP_sched_reset(g);
        v->record->u.nbc.coll_attr = 0;
        v->record->status.MPI_ERROR = MPI_SUCCESS;
        g->req = v->record;
        mpi_errno = step_vertex_poke(v, done);
    } else {
        mpi_errno = MPIR_Sched_reset(v->s.sched);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = MPIR_Sched_start(v->s.sched, v->comm, &v->started);
    }
    return mpi_errno;
}

static int step_vertex_complete(void *data, int *is_completed)
{
    step_vertex *v = data;
    int mpi_errno = MPI_SUCCESS;

    if (v->s.type == MPIR_SCHED_GENTRAN)
        return step_vertex_poke(v, is_completed);
    *is_completed = v->started && MPIR_Request_is_complete(v->started);
    if (*is_completed) {
        /* a failed step is reported in its request's status only */
        mpi_errno = v->started->status.MPI_ERROR;
        MPIR_Request_free(v->started);
        v->started = NULL;
    }
    return mpi_errno;
}

static int step_vertex_free(void *data)
{
    step_vertex *v = data;

    MPII_Hier_sched_discard(&v->s);
    if (v->record)
        MPIR_Request_free(v->record);
    for (int i = 0; i < 2; i++)
        if (v->held[i] != MPI_DATATYPE_NULL)
            MPIR_Datatype_release_if_not_builtin(v->held[i]);
    MPL_free(v);
    return MPI_SUCCESS;
}

int MPII_Hier_sched_begin(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                          MPII_Hier_params * prm, MPII_Hier_comm ** hier)
{
    return MPII_Hier_begin(call->comm, call->given, cvars, MPII_HIER_INTER_COUNT,
                           call->calls_pvar, prm, hier);
}

int MPII_Hier_sched_trivial_reduction(const MPII_Hier_call * call, MPIR_TSP_sched_t sched,
                                      int *done)
{
    MPI_Aint type_size;
    int vtx;

    MPIR_Datatype_get_size_macro(call->datatype, type_size);
    *done = call->count == 0 || type_size == 0 || call->comm->local_size == 1;
    if (!*done || call->count == 0 || type_size == 0 || call->sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return MPIR_TSP_sched_localcopy(call->sendbuf, call->count, call->datatype, call->buf,
                                    call->count, call->datatype, sched, 0, NULL, &vtx);
}

static int step_vertex_add(step_vertex * v, int n_in, int *in, MPIR_TSP_sched_t sched, int *vtx)
{
    int mpi_errno = MPI_SUCCESS;
    int type_id = MPIR_TSP_sched_new_type(sched, step_vertex_issue, step_vertex_complete,
                                          step_vertex_free);

    if (v->s.type == MPIR_SCHED_GENTRAN) {
        v->record = MPIR_Request_create(MPIR_REQUEST_KIND__COLL);
        if (!v->record) {
            step_vertex_free(v);
            MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**nomem");
        }
    }
    mpi_errno = MPIR_TSP_sched_generic(type_id, v, sched, n_in, in, vtx);
    if (mpi_errno)
        step_vertex_free(v);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_sched_add_step(MPII_Hier_sched * sub, MPIR_Comm * comm, int n_in, int *in,
                             MPIR_TSP_sched_t sched, int *vtx)
{
    step_vertex *v = MPL_calloc(1, sizeof(step_vertex), MPL_MEM_COLL);

    if (!v) {
        MPII_Hier_sched_discard(sub);
        return MPI_ERR_NO_MEM;
    }
    v->held[0] = v->held[1] = MPI_DATATYPE_NULL;
    v->s = *sub;
    v->comm = comm;
    sub->sched = NULL;  /* the vertex owns it now */
    return step_vertex_add(v, n_in, in, sched, vtx);
}

int MPII_Hier_sched_add_deferred(MPIR_Comm * comm, MPII_Hier_deferred_fn build, void *ctx,
                                 const MPI_Datatype types[2], int n_in, int *in,
                                 MPIR_TSP_sched_t sched, int *vtx)
{
    step_vertex *v = MPL_calloc(1, sizeof(step_vertex), MPL_MEM_COLL);

    if (!v)
        return MPI_ERR_NO_MEM;
    v->s = (MPII_Hier_sched) { MPIR_SCHED_GENTRAN, NULL };
    v->comm = comm;
    v->build = build;
    v->ctx = ctx;
    /* the user may free them once the call returns */
    for (int i = 0; i < 2; i++) {
        v->held[i] = types[i];
        if (types[i] != MPI_DATATYPE_NULL)
            MPIR_Datatype_add_ref_if_not_builtin(types[i]);
    }
    return step_vertex_add(v, n_in, in, sched, vtx);
}

/* The schedule form: every task of every segment this rank takes part in becomes a vertex
 * of sched (its step built by `build` once, persistent, and started each time the
 * schedule runs: every start of a persistent request), after the same task's previous
 * segment and after the task before it in the segment's way (by lag; the first one after
 * the vertex *first, when there is one). */
static int pipeline_sched(const MPII_Hier_steps * steps, const MPII_Hier_task * tasks,
                          int ntasks, int64_t nsegs, MPII_Hier_task_fn build, void *ctx,
                          const int *first, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    int order[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int prev[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int tag[MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS)];
    int n = 0;

    MPIR_Assert(ntasks <= MPII_HIER_PIPELINE_MAX_TASKS(MPII_HIER_MAX_STEPS));
    mpi_errno = task_tags(steps, ntasks, tag);
    if (mpi_errno)
        return mpi_errno;
    /* a nested build (MPICH's pick of a step's algorithm on a sub-comm came back to the
     * plugin) takes its simple form */
    MPII_Hier_guard_enter();
    /* the tasks this rank takes part in, in the order a segment takes them (by lag) */
    for (int i = 0; i < ntasks; i++) {
        if (!steps->step[tasks[i].step].comm)
            continue;
        int j = n++;
        while (j > 0 && tasks[order[j - 1]].lag > tasks[i].lag) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int i = 0; i < ntasks; i++)
        prev[i] = -1;

    /* segment t of a task after segment t - 1 of the same task (one segment in flight per
     * task, as in the slots) and after the task before it in t's way (the data) */
    for (int64_t t = 0; t < nsegs; t++) {
        int data = -1;
        for (int j = 0; j < n; j++) {
            const MPII_Hier_task *task = &tasks[order[j]];
            const MPII_Hier_step *st = &steps->step[task->step];
            MPII_Hier_sched sub = { MPIR_SCHED_GENTRAN, NULL };
            MPII_Hier_task_out out = { &sub, NULL, 0, 0 };
            int in[2], n_in = 0, vtx;

            mpi_errno = task_call(build, ctx, task, st, t, tag[order[j]], &out);
            MPIR_ERR_CHECK(mpi_errno);
            if (prev[order[j]] >= 0)
                in[n_in++] = prev[order[j]];
            if (data >= 0)
                in[n_in++] = data;
            else if (first)
                in[n_in++] = *first;
            mpi_errno = MPII_Hier_sched_add_step(&sub, st->comm, n_in, in, sched, &vtx);
            MPIR_ERR_CHECK(mpi_errno);
            prev[order[j]] = data = vtx;
        }
    }

  fn_exit:
    MPII_Hier_guard_leave();
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}


int MPII_Hier_prepare_begin(const MPII_Hier_call * call, MPII_Hier_comm * hier, int root,
                            const MPII_Hier_params * prm, MPII_Hier_task_fn task,
                            MPII_Hier_prepared * prep)
{
    prep->task = task;
    prep->sendbuf = call->sendbuf;
    prep->buf = call->buf;
    prep->datatype = call->datatype;
    prep->op = call->op;
    MPIR_Datatype_get_size_macro(call->datatype, prep->type_size);
    MPIR_Datatype_get_extent_macro(call->datatype, prep->extent);
    prep->prm = prm;
    prep->temp_bytes = prep->temp_lb = 0;
    prep->in = prep->out = (MPII_Hier_copy) { 0 };
    return MPII_Hier_steps_get(call->comm, hier, root, &prep->steps);
}

/* c's ends, prep's buf where c names none */
static void copy_ends(const MPII_Hier_prepared * prep, const MPII_Hier_copy * c,
                      const void **from, void **to)
{
    *from = c->from ? c->from : prep->buf;
    *to = c->to ? c->to : prep->buf;
}

int MPII_Hier_prepared_run(MPII_Hier_prepared * prep, int coll_attr, int *errflag)
{
    int mpi_errno = MPI_SUCCESS;
    void *temp = NULL, *to;
    const void *from;

    if (prep->temp_bytes) {
        temp = MPL_malloc(prep->temp_bytes, MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(!temp, mpi_errno, MPI_ERR_OTHER, "**nomem");
        prep->buf = (char *) temp - prep->temp_lb;
    }
    if (prep->in.from_count) {
        copy_ends(prep, &prep->in, &from, &to);
        mpi_errno = MPIR_Localcopy(from, prep->in.from_count, prep->in.from_type, to,
                                   prep->in.to_count, prep->in.to_type);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = pipeline_run(&prep->steps, prep->tasks, prep->ntasks, prep->plan.nsegs,
                             prep->task, prep, coll_attr, errflag);
    if (!mpi_errno && prep->out.from_count) {
        copy_ends(prep, &prep->out, &from, &to);
        mpi_errno = MPIR_Localcopy(from, prep->out.from_count, prep->out.from_type, to,
                                   prep->out.to_count, prep->out.to_type);
    }

  fn_exit:
    MPL_free(temp);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_prepared_sched(MPII_Hier_prepared * prep, MPIR_TSP_sched_t sched)
{
    int mpi_errno = MPI_SUCCESS;
    int first = -1, sink, vtx;
    void *to;
    const void *from;

    if (prep->temp_bytes) {
        char *temp = MPIR_TSP_sched_malloc(prep->temp_bytes, sched);
        MPIR_ERR_CHKANDJUMP(!temp, mpi_errno, MPI_ERR_OTHER, "**nomem");
        prep->buf = temp - prep->temp_lb;
    }
    if (prep->in.from_count) {
        copy_ends(prep, &prep->in, &from, &to);
        mpi_errno = MPIR_TSP_sched_localcopy(from, prep->in.from_count, prep->in.from_type, to,
                                             prep->in.to_count, prep->in.to_type, sched, 0, NULL,
                                             &first);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = pipeline_sched(&prep->steps, prep->tasks, prep->ntasks, prep->plan.nsegs,
                               prep->task, prep, first >= 0 ? &first : NULL, sched);
    MPIR_ERR_CHECK(mpi_errno);
    if (prep->out.from_count) {
        mpi_errno = MPIR_TSP_sched_sink(sched, &sink);
        MPIR_ERR_CHECK(mpi_errno);
        copy_ends(prep, &prep->out, &from, &to);
        mpi_errno = MPIR_TSP_sched_localcopy(from, prep->out.from_count, prep->out.from_type, to,
                                             prep->out.to_count, prep->out.to_type, sched, 1,
                                             &sink, &vtx);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
