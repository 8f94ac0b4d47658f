/*
 * mpich-hier: how a blocking hier collective runs, decided in one place for all of
 * them (MPII_Hier_enter): nothing to move, as the schedule of its non-blocking form,
 * flat, on one node, or over the hierarchy's steps.
 */

#include "hier_impl.h"

int MPII_Hier_begin(MPIR_Comm * comm, const MPII_Hier_params * given,
                    const MPII_Hier_params * cvars, int n_inter_algos, int calls_pvar,
                    MPII_Hier_params * prm, MPII_Hier_comm ** hier)
{
    int mpi_errno = MPI_SUCCESS;

    *hier = NULL;
    /* a tuning file that names it where intercomms reach it (no comm_type=intra on the
     * path): an error, not an intracommunicator's pattern on an intercomm */
    MPIR_ERR_CHKANDJUMP(comm->comm_kind != MPIR_COMM_KIND__INTRACOMM, mpi_errno, MPI_ERR_COMM,
                        "**commnotintra");
    mpi_errno = MPII_Hier_params_resolve(prm, given, cvars, n_inter_algos);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_get(comm, hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (*hier)                  /* a user's call: MPICH's inside the plugin's guard get none */
        MPII_Hier_pvars[calls_pvar]++;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_reduction_runs_flat(const MPII_Hier_comm * hier, MPI_Op op)
{
    if (!hier || MPII_Hier_one_node(hier))
        return 1;
    if (!MPIR_Op_is_commutative(op) &&
        !MPII_Hier_hierarchy_is_rank_ordered(MPII_Hier_used(hier))) {
        MPII_HIER_PVAR_ADD(FLAT_FALLBACKS, 1);
        return 1;
    }
    return 0;
}

/* Whether a blocking hier collective of `bytes` runs as its schedule
 * (MPIR_CVAR_HIER_SCHEDULE_BLOCKING): auto from `from` (MPII_HIER_SCHED_FROM_*) when the
 * call leaves the intra-node algorithm to auto.  Every rank decides alike: the bytes and
 * the parameters are the same on all. */
static int blocking_scheduled(const MPII_Hier_params * given, const MPII_Hier_params * cvars,
                              MPI_Aint bytes, MPI_Aint from)
{
    int intra_algo = MPII_Hier_intra_resolve(given->intra_algo >= 0 ? given->intra_algo :
                                             cvars->intra_algo, bytes, MPII_HIER_SIZED_BCAST);
    switch (MPIR_CVAR_HIER_SCHEDULE_BLOCKING) {
        case MPIR_CVAR_HIER_SCHEDULE_BLOCKING_schedule:
            return 1;
        case MPIR_CVAR_HIER_SCHEDULE_BLOCKING_loop:
            return 0;
        default:
            return from >= 0 && bytes >= from && intra_algo == MPII_HIER_INTRA_AUTO;
    }
}

int MPII_Hier_sched_wait(MPII_Hier_sched_fn build, const MPII_Hier_call * call)
{
    MPIR_Comm *comm = call->comm;
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_sched s;
    MPIR_Request *req = NULL;

    mpi_errno = MPII_Hier_sched_new(&s, MPIR_SCHED_GENTRAN, comm, false);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_sched_start(build(call, s.sched), &s, comm, &req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPII_Hier_wait(&req);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_enter(const MPII_Hier_call * call, const MPII_Hier_entry * coll,
                    MPI_Aint bytes, MPII_Hier_params * prm, MPII_Hier_comm ** hier,
                    MPII_Hier_run * run)
{
    int mpi_errno;

    *hier = NULL;
    *run = MPII_HIER_RUN_DONE;
    if (call->comm->local_size == 1 || (coll->moves_data && bytes == 0)) {
        *run = MPII_HIER_RUN_NOTHING;
        return MPII_Hier_params_resolve(prm, call->given, coll->cvars, coll->n_inter_algos);
    }
    if (blocking_scheduled(call->given, coll->cvars, bytes, coll->sched_from))
        return MPII_Hier_sched_wait(coll->sched, call);
    mpi_errno = MPII_Hier_begin(call->comm, call->given, coll->cvars, coll->n_inter_algos,
                                call->calls_pvar, prm, hier);
    if (mpi_errno)
        return mpi_errno;
    if (coll->reduction ? MPII_Hier_reduction_runs_flat(*hier, call->op) : !*hier)
        *run = MPII_HIER_RUN_FLAT;
    else if (MPII_Hier_one_node(*hier))
        *run = MPII_HIER_RUN_ONE_NODE;
    else
        *run = MPII_HIER_RUN_STEPS;
    return MPI_SUCCESS;
}

static MPL_TLS int guard_depth;

void MPII_Hier_guard_enter(void)
{
    guard_depth++;
}

void MPII_Hier_guard_leave(void)
{
    guard_depth--;
}

int MPII_Hier_guard_held(void)
{
    return guard_depth > 0;
}

int MPII_Hier_pipelined_run(const MPII_Hier_call * call, const MPII_Hier_entry * coll,
                            const MPII_Hier_pipelined * ops, int coll_attr)
{
    int mpi_errno, mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPI_Aint bytes = MPII_Hier_payload_bytes(call->count, call->datatype);
    MPII_Hier_params prm;
    MPII_Hier_comm *hier;
    MPII_Hier_run run;
    MPII_Hier_prepared prep;

    mpi_errno = MPII_Hier_enter(call, coll, bytes, &prm, &hier, &run);
    if (mpi_errno || run == MPII_HIER_RUN_DONE)
        return mpi_errno;
    if (run == MPII_HIER_RUN_STEPS && ops->plans_flat && ops->plans_flat(call, hier, &prm))
        run = MPII_HIER_RUN_FLAT;
    if (run == MPII_HIER_RUN_NOTHING)
        return coll->reduction && bytes > 0 && call->sendbuf != MPI_IN_PLACE ?
            MPIR_Localcopy(call->sendbuf, call->count, call->datatype, call->buf, call->count,
                           call->datatype) : MPI_SUCCESS;
    if (run == MPII_HIER_RUN_FLAT)
        return ops->flat(call, coll_attr);
    if (run == MPII_HIER_RUN_ONE_NODE) {
        MPII_Hier_guard_enter();
        mpi_errno = ops->one_node(hier, call, prm.intra_algo, coll_attr);
        MPII_Hier_guard_leave();
        return mpi_errno;
    }

    mpi_errno = ops->prepare(call, hier, &prm, &prep);
    if (mpi_errno)
        return mpi_errno;
    mpi_errno = MPII_Hier_prepared_run(&prep, coll_attr, &errflag);
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
}

int MPII_Hier_pipelined_sched(const MPII_Hier_call * call, const MPII_Hier_params * cvars,
                              int reduction, const MPII_Hier_pipelined * ops,
                              MPIR_TSP_sched_t sched)
{
    int mpi_errno, nothing;
    MPII_Hier_params prm;
    MPII_Hier_comm *hier;
    MPII_Hier_prepared prep;

    if (reduction) {
        mpi_errno = MPII_Hier_sched_trivial_reduction(call, sched, &nothing);
        if (mpi_errno || nothing)
            return mpi_errno;
    } else if (call->comm->local_size == 1 ||
               !MPII_Hier_payload_bytes(call->count, call->datatype)) {
        return MPI_SUCCESS;     /* a count of 0, or of a type of size 0: nothing on any rank */
    }
    mpi_errno = MPII_Hier_sched_begin(call, cvars, &prm, &hier);
    if (mpi_errno)
        return mpi_errno;
    if (reduction ? MPII_Hier_reduction_runs_flat(hier, call->op) :
        !hier || MPII_Hier_one_node(hier))
        return ops->flat_sched(call, hier, sched);
    if (ops->plans_flat && ops->plans_flat(call, hier, &prm))
        return ops->flat_sched(call, hier, sched);
    mpi_errno = ops->prepare(call, hier, &prm, &prep);
    if (mpi_errno)
        return mpi_errno;
    return MPII_Hier_prepared_sched(&prep, sched);
}
