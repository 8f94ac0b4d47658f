/*
 * mpich-hier: hierarchical barrier.
 */

#include "hier_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_BARRIER_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : dissemination
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Barrier among the leaders of the top level of the hier barrier (the nodes' with
        two levels; the levels between fan in and out on binomial trees)
        auto          - MPIR_Ibarrier and a wait (MPICH's own selection)
        dissemination - MPIR_Barrier_intra_dissemination

    - name        : MPIR_CVAR_BARRIER_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : shm
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Fan-in and fan-out of the hier barrier in the finest groups inside a node
        auto     - MPIR_Barrier_allcomm_auto on the node communicator, then
                   MPIR_Bcast_allcomm_auto of one byte
        binomial - empty messages up and down a binomial tree
        shm      - the device's shared-memory barrier, then its bcast of one byte
                   (CH4 POSIX release_gather); MPIR where the device cannot
        by_size  - as shm

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


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
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_steps steps;
    MPIR_Request *req = NULL;

    MPIR_FUNC_ENTER;

    if (comm_ptr->local_size == 1) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_BARRIER_INTER_COUNT);
        goto fn_exit;
    }
    if (MPII_Hier_blocking_scheduled(&given, &cvars, 0, MPII_HIER_SCHED_FROM_BARRIER)) {
        const MPII_Hier_call call = { .comm = comm_ptr, .given = &given,
            .calls_pvar = MPII_HIER_PVAR_CALLS(barrier, hier) };
        mpi_errno = MPII_Hier_sched_wait(MPII_Hier_barrier_sched, &call);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_BARRIER_INTER_COUNT,
                                MPII_HIER_PVAR_CALLS(barrier, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (!hier) {
        /* issued while our own sub-communicators are being created */
        mpi_errno = MPIR_Barrier_intra_dissemination(comm_ptr, coll_attr);
        goto fn_exit;
    }

    if (MPII_Hier_one_node(hier)) {
        /* one node: binomial fans in and out on comm itself; the others run dissemination,
         * what MPICH runs there in the end (its tree picks smp for a one-node parent comm,
         * which only issues the barrier again on its node comm, back into a forced hier),
         * and never the device's shm path on comm itself (see the hier bcast) */
        if (prm.intra_algo == MPII_HIER_INTRA_BINOMIAL) {
            mpi_errno = MPII_Hier_intra_fan(comm_ptr, 1, prm.intra_algo, coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            mpi_errno = MPII_Hier_intra_fan(comm_ptr, 0, prm.intra_algo, coll_attr | errflag);
        } else {
            mpi_errno = MPIR_Barrier_intra_dissemination(comm_ptr, coll_attr | errflag);
        }
        MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        goto fn_exit;
    }

    /* root 0: every step is rooted at its rank 0 */
    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    int n = steps.nsteps - 1, tag = -1;
    if (prm.inter_algo == MPII_HIER_BARRIER_INTER_AUTO) {
        /* the top step's MPICH barrier, on MPICH's comm: a tag of the parent's */
        mpi_errno = MPIR_Sched_next_tag(comm_ptr, &tag);
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (int fan_in = 1; fan_in >= 0; fan_in--) {
        for (int i = 0; i < n; i++) {
            int k = fan_in ? n - i : i + 1;
            const MPII_Hier_step *st = &steps.step[k];
            if (!st->comm)
                continue;
            MPIR_Assert(st->root == 0);
            mpi_errno = MPII_Hier_intra_fan(st->comm, fan_in, k == n && !st->inter ?
                                            prm.intra_algo : MPII_HIER_INTRA_BINOMIAL,
                                            coll_attr | errflag);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        if (fan_in && steps.step[0].comm) {
            MPIR_Comm *top_comm = steps.step[0].comm;
            if (prm.inter_algo == MPII_HIER_BARRIER_INTER_AUTO) {
                int saved = MPII_Hier_tag_lend(&steps.step[0], tag);
                mpi_errno = MPIR_Ibarrier_impl(top_comm, &req);
                MPII_Hier_tag_return(&steps.step[0], saved);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
                mpi_errno = MPII_Hier_wait(&req);
            } else {
                mpi_errno = MPIR_Barrier_intra_dissemination(top_comm, coll_attr | errflag);
            }
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
