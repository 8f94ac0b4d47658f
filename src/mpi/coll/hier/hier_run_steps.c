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
        st[0] = (MPII_Hier_run_step) { a->comm, 0, MPL_malloc(sizeof(int) * (size + 1), MPL_MEM_COLL), size };
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
        st[(*n)++] = (MPII_Hier_run_step) { comm, tag[k], NULL, 0 };
        if (!comm && k > 0)
            continue;
        /* the top step's runs on every rank: the rooted v-collectives' root needs them */
        st[k].first = MPL_malloc(sizeof(int) * (size + 1), MPL_MEM_COLL);
        if (!st[k].first)
            return MPI_ERR_NO_MEM;
        st[k].members = MPII_Hier_hierarchy_member_starts(steps.h, k,
                                                          comm ? steps.step[k].instance : 0,
                                                          st[k].first);
        if (comm && st[k].members != comm->local_size)
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

MPII_Hier_run_piece MPII_Hier_run_members(const MPII_Hier_run_vector * v,
                                          const MPII_Hier_run_step * st, int m, int len)
{
    MPI_Aint lo, n = MPII_Hier_run_span(st, v->at, m, len, &lo);
    return (MPII_Hier_run_piece) { v->packed + lo, n };
}

int MPII_Hier_run_gather_up(const MPII_Hier_run_vector * v, const MPII_Hier_run_step * st,
                            int *front)
{
    MPII_Hier_tree_node tree;
    int in[33], n_in = 0, me = st->comm->rank, mpi_errno = MPI_SUCCESS;

    if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0, 1, me))
        return MPI_ERR_NO_MEM;
    in[n_in++] = *front;
    for (int i = 0; i < tree.nchildren && !mpi_errno; i++) {
        int child = tree.children[i];
        MPII_Hier_run_piece r = MPII_Hier_run_members(v, st, child,
                                                      MPII_Hier_run_subtree(st, child));
        if (r.n > 0)
            mpi_errno = MPIR_TSP_sched_irecv(r.buf, r.n, MPIR_BYTE_INTERNAL, child, st->tag,
                                             st->comm, v->sched, 0, NULL, &in[n_in++]);
    }
    if (!mpi_errno && tree.parent >= 0) {
        MPII_Hier_run_piece r = MPII_Hier_run_members(v, st, me, MPII_Hier_run_subtree(st, me));
        mpi_errno = r.n == 0 ? MPIR_TSP_sched_selective_sink(v->sched, n_in, in, front) :
            MPIR_TSP_sched_isend(r.buf, r.n, MPIR_BYTE_INTERNAL, tree.parent, st->tag, st->comm,
                                 v->sched, n_in, in, front);
    } else if (!mpi_errno) {
        mpi_errno = MPIR_TSP_sched_selective_sink(v->sched, n_in, in, front);
    }
    MPII_Hier_tree_node_free(&tree);
    return mpi_errno;
}

int MPII_Hier_run_scatter_down(const MPII_Hier_run_vector * v, const MPII_Hier_run_step * st,
                               int *front)
{
    MPII_Hier_tree_node tree;
    int me = st->comm->rank, mpi_errno = MPI_SUCCESS;

    if (MPII_Hier_tree_node_init(&tree, MPII_HIER_TREE_BINOMIAL, st->comm->local_size, 0, 1, me))
        return MPI_ERR_NO_MEM;
    if (tree.parent >= 0) {
        int after = *front;
        MPII_Hier_run_piece r = MPII_Hier_run_members(v, st, me, MPII_Hier_run_subtree(st, me));
        if (r.n > 0)
            mpi_errno = MPIR_TSP_sched_irecv(r.buf, r.n, MPIR_BYTE_INTERNAL, tree.parent,
                                             st->tag, st->comm, v->sched, 1, &after, front);
    }
    for (int i = 0; i < tree.nchildren && !mpi_errno; i++) {
        int child = tree.children[i], after = *front, vtx;
        MPII_Hier_run_piece r = MPII_Hier_run_members(v, st, child,
                                                      MPII_Hier_run_subtree(st, child));
        if (r.n > 0)
            mpi_errno = MPIR_TSP_sched_isend(r.buf, r.n, MPIR_BYTE_INTERNAL, child, st->tag,
                                             st->comm, v->sched, 1, &after, &vtx);
    }
    MPII_Hier_tree_node_free(&tree);
    return mpi_errno;
}

int MPII_Hier_run_window_end(const MPII_Hier_run_step * st, int n, int me)
{
    int end = me + 1;

    for (int k = 1; k < n; k++)
        if (st[k].comm) {
            int m = st[k].comm->rank;
            end = MPL_MAX(end, st[k].first[m + MPII_Hier_run_subtree(&st[k], m)]);
        }
    return end;
}

MPII_Hier_run_step *MPII_Hier_run_steps_keep(const MPII_Hier_run_step * st, int n, int size,
                                             MPIR_TSP_sched_t sched)
{
    MPII_Hier_run_step *kept = MPIR_TSP_sched_malloc(sizeof(MPII_Hier_run_step) * n, sched);

    for (int k = 0; kept && k < n; k++) {
        kept[k] = st[k];
        if (!st[k].first)
            continue;
        kept[k].first = MPIR_TSP_sched_malloc(sizeof(int) * (size + 1), sched);
        if (!kept[k].first)
            return NULL;
        memcpy(kept[k].first, st[k].first, sizeof(int) * (size + 1));
    }
    return kept;
}

MPI_Aint *MPII_Hier_run_offsets(const MPI_Aint * bytes, int from, int to, int base,
                                MPIR_TSP_sched_t sched)
{
    MPI_Aint *at = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (to + 1), sched);

    if (!at)
        return NULL;
    at[from] = 0;
    for (int r = from; r < to; r++)
        at[r + 1] = at[r] + bytes[r - base];
    return at;
}

MPI_Aint *MPII_Hier_run_uniform_offsets(int lo, int end, MPI_Aint each, MPIR_TSP_sched_t sched)
{
    MPI_Aint *at = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (end + 1), sched);

    for (int r = lo; at && r <= end; r++)
        at[r] = (r - lo) * each;
    return at;
}

MPI_Aint *MPII_Hier_run_counts(int lo, int end, MPIR_TSP_sched_t sched, MPII_Hier_run_vector * v)
{
    MPI_Aint *counts = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * (end - lo), sched);
    MPI_Aint *at = MPII_Hier_run_uniform_offsets(lo, end, sizeof(MPI_Aint), sched);

    if (!counts || !at)
        return NULL;
    *v = (MPII_Hier_run_vector) { (char *) counts, at, sched };
    return counts;
}

const MPI_Aint *MPII_Hier_keep_array(const MPI_Aint * a, int n, MPIR_TSP_sched_t sched)
{
    MPI_Aint *kept = MPIR_TSP_sched_malloc(sizeof(MPI_Aint) * n, sched);

    if (kept)
        memcpy(kept, a, sizeof(MPI_Aint) * n);
    return kept;
}
