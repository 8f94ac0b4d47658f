/*
 * mpich-hier: the steps of the collectives whose groups' data are runs of ranks (the
 * reduce-scatters, the allgatherv): each step's members as runs of consecutive ranks.
 */

#include "hier_impl.h"

int MPII_Hier_run_steps_plan(const MPII_Hier_call * a, const MPII_Hier_params * cvars,
                             int n_inter_algos, MPII_Hier_run_flat_fn flat,
                             MPII_Hier_run_step * st, int *n, int *inter_algo)
{
    MPII_Hier_params prm;
    MPII_Hier_comm *hier;
    MPII_Hier_steps steps;
    int tag[MPII_HIER_MAX_STEPS], size = a->comm->local_size;
    int mpi_errno = MPII_Hier_begin(a->comm, a->given, cvars, n_inter_algos, a->calls_pvar,
                                    &prm, &hier);

    *n = 0;
    if (mpi_errno)
        return mpi_errno;
    *inter_algo = prm.inter_algo;
    if (hier && flat && flat(a, &prm))
        hier = NULL;
    else if (hier && !MPII_Hier_one_node(hier) &&
        !MPII_Hier_hierarchy_is_rank_ordered(MPII_Hier_used(hier))) {
        MPII_HIER_PVAR_ADD(FLAT_FALLBACKS, 1);
        hier = NULL;
    }
    if (!hier || MPII_Hier_one_node(hier)) {
        st[0] = (MPII_Hier_run_step) { a->comm, 0, MPL_malloc(sizeof(int) * (size + 1), MPL_MEM_COLL) };
        *n = 1;
        if (!st[0].first)
            return MPI_ERR_NO_MEM;
        for (int m = 0; m <= size; m++)
            st[0].first[m] = m;
        return MPII_Hier_tags_draw(a->comm, 1, 1, &st[0].tag);
    }
    mpi_errno = MPII_Hier_steps_get(a->comm, hier, 0, &steps);
    if (!mpi_errno)
        mpi_errno = MPII_Hier_step_tags(&steps, tag);
    for (int k = 0; k < steps.nsteps && !mpi_errno; k++) {
        MPIR_Comm *comm = steps.step[k].comm;
        st[(*n)++] = (MPII_Hier_run_step) { comm, tag[k], NULL };
        if (!comm)
            continue;
        st[k].first = MPL_malloc(sizeof(int) * (size + 1), MPL_MEM_COLL);
        if (!st[k].first)
            return MPI_ERR_NO_MEM;
        if (MPII_Hier_hierarchy_member_starts(steps.h, k, steps.step[k].instance, st[k].first)
            != comm->local_size)
            mpi_errno = MPI_ERR_INTERN;
    }
    return mpi_errno;
}

void MPII_Hier_run_steps_free(MPII_Hier_run_step * st, int n)
{
    for (int k = 0; k < n; k++)
        MPL_free(st[k].first);
}

MPI_Aint MPII_Hier_run_span(const MPII_Hier_run_step * st, const MPI_Aint * at, int m, int len,
                            MPI_Aint * lo)
{
    *lo = at[st->first[m]];
    return at[st->first[m + len]] - *lo;
}

int MPII_Hier_run_subtree(const MPII_Hier_run_step * st, int member)
{
    return MPII_Hier_tree_subtree_size(MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0, member);
}
