/*
 * mpich-hier: hierarchical barrier.
 */

#include "hier_impl.h"

/* The barrier among the top step's members: MPICH's (auto, on MPICH's comm with a tag of
 * the parent's) or dissemination */
static int barrier_top(const MPII_Hier_steps * steps, const MPII_Hier_params * prm, int tag,
                       int coll_attr)
{
    const MPII_Hier_step *top = &steps->step[0];
    MPIR_Request *req = NULL;
    if (prm->inter_algo != MPII_HIER_BARRIER_INTER_AUTO)
        return MPIR_Barrier_intra_dissemination(top->comm, coll_attr);
    int saved = MPII_Hier_tag_lend(top, tag);
    int mpi_errno = MPIR_Ibarrier_impl(top->comm, &req);
    MPII_Hier_tag_return(top, saved);
    return mpi_errno ? mpi_errno : MPII_Hier_wait(&req);
}

/* the phases of MPII_Hier_barrier_phase: fan in up the steps, the top step's barrier, fan
 * out down them */
static int barrier_steps(const MPII_Hier_steps * steps, const MPII_Hier_params * prm,
                         int coll_attr, int *errflag)
{
    int mpi_errno = MPI_SUCCESS, mpi_errno_ret = MPI_SUCCESS;
    int n = steps->nsteps - 1, tag = -1;

    if (prm->inter_algo == MPII_HIER_BARRIER_INTER_AUTO) {
        mpi_errno = MPII_Hier_tags_draw(steps->comm, 1, 1, &tag);
        if (mpi_errno)
            return mpi_errno;
    }
    for (int i = 0; i < MPII_HIER_BARRIER_NPHASES(steps->nsteps); i++) {
        int k;
        MPII_Hier_phase phase = MPII_Hier_barrier_phase(steps->nsteps, i, &k);
        const MPII_Hier_step *st = &steps->step[k];
        if (!st->comm)
            continue;
        if (phase == MPII_HIER_PHASE_TOP) {
            mpi_errno = barrier_top(steps, prm, tag, coll_attr | *errflag);
        } else {
            MPIR_Assert(st->root == 0);
            mpi_errno = MPII_Hier_intra_fan(st->comm, phase == MPII_HIER_PHASE_IN,
                                            k == n && !st->inter ? prm->intra_algo :
                                            MPII_HIER_INTRA_BINOMIAL, coll_attr | *errflag);
        }
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, *errflag, mpi_errno_ret);
    }
    return mpi_errno_ret;
}

/* Algorithm: hierarchical barrier over the N levels
 *
 *     fan-in up the steps (finest first: onto each step's rank 0, the group's leader);
 *     barrier among the level-0 leaders; fan-out down the steps
 *
 * No rank leaves before every rank came in: a rank leaves the fan-out only after its
 * leader entered it, which is after the leaders' barrier, which every leader entered
 * after its whole group came in.  The finest step inside a node runs the intra-node
 * submodule (auto and shm fan in with a whole barrier and fan out with a bcast of one
 * byte from the leader, as MPICH's own smp composition does), the steps between binomial
 * fans.  One node that nothing splits: the intra step on comm itself; one rank per node:
 * the leaders' barrier on comm.
 */
int MPIR_Barrier_intra_hier(MPIR_Comm * comm_ptr, int inter_algo, int intra_algo, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_STEPS(inter_algo, intra_algo);
    const MPII_Hier_params cvars = MPII_HIER_PARAMS_STEPS(MPIR_CVAR_BARRIER_HIER_INTER_ALGORITHM,
                                                          MPIR_CVAR_BARRIER_HIER_INTRA_ALGORITHM);
    const MPII_Hier_call call = { .comm = comm_ptr, .given = &given,
        .calls_pvar = MPII_HIER_PVAR_CALLS(barrier, hier) };
    const MPII_Hier_entry coll = { &cvars, MPII_HIER_BARRIER_INTER_COUNT,
        MPII_Hier_barrier_sched, MPII_HIER_SCHED_FROM_BARRIER, 0, 0 };
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_run run;
    MPII_Hier_steps steps;

    MPIR_FUNC_ENTER;

    mpi_errno = MPII_Hier_enter(&call, &coll, 0, &prm, &hier, &run);
    MPIR_ERR_CHECK(mpi_errno);
    if (run == MPII_HIER_RUN_FLAT) {
        mpi_errno = MPIR_Barrier_intra_dissemination(comm_ptr, coll_attr);
    } else if (run == MPII_HIER_RUN_ONE_NODE) {
        /* binomial fans in and out on comm itself; the others run dissemination, what
         * MPICH runs there in the end (its tree picks smp for a one-node parent comm,
         * which only issues the barrier again on its node comm, back into a forced hier),
         * and never the device's shm path on comm itself (see the hier bcast) */
        if (prm.intra_algo == MPII_HIER_INTRA_BINOMIAL) {
            mpi_errno = MPII_Hier_intra_fan(comm_ptr, 1, prm.intra_algo, coll_attr);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            mpi_errno = MPII_Hier_intra_fan(comm_ptr, 0, prm.intra_algo, coll_attr | errflag);
        } else {
            mpi_errno = MPIR_Barrier_intra_dissemination(comm_ptr, coll_attr);
        }
    } else if (run == MPII_HIER_RUN_STEPS) {
        /* root 0: every step is rooted at its rank 0 */
        mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = barrier_steps(&steps, &prm, coll_attr, &errflag);
    }
    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);

  fn_exit:
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
