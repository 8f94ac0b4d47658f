/*
 * mpich-hier: segment plans (pure logic, no MPI).
 */

#include "hier_segment.h"

#include <stdlib.h>
#include <string.h>

int64_t MPII_Hier_seg_size(int64_t nbytes, int64_t segsize, int64_t unit, int *raised)
{
    if (unit < 1)
        unit = 1;
    if (raised)
        *raised = 0;
    if (nbytes <= 0)
        return 0;
    if (segsize <= 0 || segsize >= nbytes)
        return nbytes;
    /* round down to whole units, but never below one unit */
    int64_t seg = (segsize / unit) * unit;
    if (seg < unit)
        seg = unit;
    /* the smallest whole-unit size that cuts at most MPII_HIER_SEG_MAX pieces */
    int64_t per = (nbytes + MPII_HIER_SEG_MAX - 1) / MPII_HIER_SEG_MAX;
    int64_t floor = (per + unit - 1) / unit * unit;
    if (seg < floor) {
        seg = floor;
        if (raised)
            *raised = 1;
    }
    return seg < nbytes ? seg : nbytes;
}

void MPII_Hier_seg_plan_init(MPII_Hier_seg_plan * plan, int64_t nbytes, int64_t segsize,
                             int64_t unit)
{
    plan->nbytes = nbytes > 0 ? nbytes : 0;
    plan->seg_bytes = MPII_Hier_seg_size(plan->nbytes, segsize, unit, &plan->raised);
    plan->nsegs = plan->nbytes ? (plan->nbytes + plan->seg_bytes - 1) / plan->seg_bytes : 0;
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

/* the pieces of group g's block from piece n on (filled when p is not NULL); returns n
 * past them */
static int ring_block(MPII_Hier_ring_piece * p, int n, int64_t first, int64_t len,
                      int64_t segsize, int *raised)
{
    int r;
    int64_t seg = MPII_Hier_seg_size(len, segsize, 1, &r);
    *raised += r;
    for (int64_t at = 0; at < len; at += seg, n++)
        if (p) {
            p[n].first = first + at;
            p[n].len = len - at < seg ? len - at : seg;
        }
    return n;
}

int MPII_Hier_ring_plan_init(MPII_Hier_ring_plan * plan, const long long *offset, int ngroups,
                             int mine, int64_t block, int64_t segsize)
{
    memset(plan, 0, sizeof(*plan));
    for (int pass = 0; pass < 2; pass++) {
        int n = 0, raised = 0;
        for (int k = 0; k < ngroups; k++) {
            int g = (mine - k + ngroups) % ngroups, before = n;
            n = ring_block(plan->piece, n, offset[g] * block, (offset[g + 1] - offset[g]) * block,
                           segsize, &raised);
            if (k == 0)
                plan->own = n;
            if (k == ngroups - 1)
                plan->last = n - before;
        }
        plan->npieces = n;
        plan->raised = raised;
        if (pass == 0 && !(plan->piece = malloc(sizeof(MPII_Hier_ring_piece) * (n > 0 ? n : 1))))
            return -1;
    }
    return 0;
}

void MPII_Hier_ring_plan_free(MPII_Hier_ring_plan * plan)
{
    free(plan->piece);
    plan->piece = NULL;
}
