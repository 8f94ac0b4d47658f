/*
 * mpich-hier: segment plans (pure logic, no MPI).
 */

#include "hier_segment.h"

void MPII_Hier_seg_plan_init(MPII_Hier_seg_plan * plan, int64_t nbytes, int64_t segsize,
                             int64_t unit)
{
    if (unit < 1)
        unit = 1;
    plan->nbytes = nbytes > 0 ? nbytes : 0;
    if (plan->nbytes == 0) {
        plan->seg_bytes = 0;
        plan->nsegs = 0;
        return;
    }
    if (segsize <= 0 || segsize >= plan->nbytes) {
        plan->seg_bytes = plan->nbytes;
    } else {
        /* round down to whole units, but never below one unit */
        int64_t whole = (segsize / unit) * unit;
        plan->seg_bytes = whole > 0 ? whole : unit;
        if (plan->seg_bytes > plan->nbytes)
            plan->seg_bytes = plan->nbytes;
    }
    plan->nsegs = (plan->nbytes + plan->seg_bytes - 1) / plan->seg_bytes;
}

int64_t MPII_Hier_seg_bounded(int64_t segsize, int64_t nbytes, int64_t unit, int64_t slots,
                              int64_t limit)
{
    int64_t seg = segsize <= 0 || segsize > nbytes ? nbytes : segsize;
    if (unit < 1)
        unit = 1;
    if (limit <= 0 || slots < 1)
        return seg;
    int64_t cap = limit / slots / unit * unit;
    if (cap < unit)
        cap = unit;
    return seg < cap ? seg : cap;
}

int64_t MPII_Hier_seg_offset(const MPII_Hier_seg_plan * plan, int64_t seg)
{
    return seg * plan->seg_bytes;
}

int64_t MPII_Hier_seg_len(const MPII_Hier_seg_plan * plan, int64_t seg)
{
    int64_t off = seg * plan->seg_bytes;
    int64_t left = plan->nbytes - off;
    return left < plan->seg_bytes ? left : plan->seg_bytes;
}
