/*
 * mpich-hier: the tags the plugin's schedules and steps draw.
 */

#include "hier_impl.h"

int MPII_Hier_tags_draw(MPIR_Comm * comm, int n, int stride, int *tag)
{
    int need = n * stride;

    if (need == 1)
        return MPIR_Sched_next_tag(comm, tag);
    if (comm->next_sched_tag + need >= MPIR_Process.attrs.tag_ub)
        comm->next_sched_tag = MPIR_FIRST_NBC_TAG;
    for (int i = 0; i < n; i++)
        tag[i] = comm->next_sched_tag + i * stride;
    comm->next_sched_tag += need;
    return MPI_SUCCESS;
}

int MPII_Hier_step_tags(const MPII_Hier_steps * steps, int *tag)
{
    int parent_tag;
    int mpi_errno = MPII_Hier_tags_draw(steps->comm, 1, 1, &parent_tag);

    for (int k = 0; k < steps->nsteps && !mpi_errno; k++) {
        const MPII_Hier_step *st = &steps->step[k];
        if (st->comm && st->mpich_comm)
            tag[k] = parent_tag;
        else if (st->comm)
            mpi_errno = MPII_Hier_tags_draw(st->comm, 1, 1, &tag[k]);
    }
    return mpi_errno;
}
