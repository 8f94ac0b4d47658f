/*
 * mpich-hier: the HAN pipeline's tasks (pure logic, no MPI): hier_pipeline.h.
 */

#include "hier_pipeline.h"

static void task_set(MPII_Hier_task * task, int step, MPII_Hier_task_dir dir, int lag,
                     int blocking)
{
    task->step = step;
    task->dir = dir;
    task->lag = lag;
    task->blocking = blocking;
}

int MPII_Hier_pipeline_bcast(int nsteps, MPII_Hier_task * tasks)
{
    int n = nsteps - 1;
    for (int k = 0; k <= n; k++)
        task_set(&tasks[k], k, MPII_HIER_TASK_DOWN, k, k == n);
    return nsteps;
}

int MPII_Hier_pipeline_reduce(int nsteps, MPII_Hier_task * tasks)
{
    int n = nsteps - 1;
    for (int k = 0; k <= n; k++)
        task_set(&tasks[k], k, MPII_HIER_TASK_UP, n - k, k == n);
    return nsteps;
}

int MPII_Hier_pipeline_allreduce(int nsteps, int one_top, MPII_Hier_task * tasks)
{
    int n = nsteps - 1, d = !one_top, ntasks = 0;
    for (int k = 0; k < n; k++) {
        if (k == 0 && one_top) {
            task_set(&tasks[ntasks++], 0, MPII_HIER_TASK_ALL, n, 0);
            continue;
        }
        task_set(&tasks[ntasks++], k, MPII_HIER_TASK_DOWN, n + k + d, 0);
        task_set(&tasks[ntasks++], k, MPII_HIER_TASK_UP, n - k, 0);
    }
    task_set(&tasks[ntasks++], n, MPII_HIER_TASK_DOWN, 2 * n + d, 1);
    task_set(&tasks[ntasks++], n, MPII_HIER_TASK_UP, 0, 1);
    return ntasks;
}

int64_t MPII_Hier_pipeline_nslots(const MPII_Hier_task * tasks, int ntasks, int64_t nsegs)
{
    int max_lag = 0;
    if (nsegs <= 0)
        return 0;
    for (int i = 0; i < ntasks; i++)
        if (tasks[i].lag > max_lag)
            max_lag = tasks[i].lag;
    return nsegs + max_lag;
}

int64_t MPII_Hier_pipeline_seg(const MPII_Hier_task * task, int64_t nsegs, int64_t slot)
{
    int64_t t = slot - task->lag;
    return t >= 0 && t < nsegs ? t : -1;
}

int MPII_Hier_pipeline_slot_tasks(const MPII_Hier_task * tasks, int ntasks, int64_t nsegs,
                                  int64_t slot)
{
    int n = 0;
    for (int i = 0; i < ntasks; i++)
        n += MPII_Hier_pipeline_seg(&tasks[i], nsegs, slot) >= 0;
    return n;
}
