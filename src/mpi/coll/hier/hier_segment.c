/*
 * mpich-hier: segment plans (pure logic, no MPI).
 */

#include "hier_segment.h"

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

/* the pieces of the block of the group at `turn` */
static void ring_group(const MPII_Hier_ring_plan * p, int turn, MPII_Hier_seg_plan * group,
                       int64_t * first)
{
    int g = (p->mine - turn + p->ngroups) % p->ngroups;
    MPII_Hier_seg_plan_init(group, (p->offset[g + 1] - p->offset[g]) * p->block, p->segsize, 1);
    *first = p->offset[g] * p->block;
}

void MPII_Hier_ring_plan_init(MPII_Hier_ring_plan * plan, const long long *offset, int ngroups,
                              int mine, int64_t block, int64_t segsize)
{
    memset(plan, 0, sizeof(*plan));
    plan->offset = offset;
    plan->ngroups = ngroups;
    plan->mine = mine;
    plan->block = block;
    plan->segsize = segsize;
    for (int turn = 0; turn < ngroups; turn++) {
        MPII_Hier_seg_plan group;
        int64_t first;
        ring_group(plan, turn, &group, &first);
        plan->npieces += (int) group.nsegs;
        plan->raised += group.raised;
        if (turn == 0)
            plan->own = (int) group.nsegs;
        if (turn == ngroups - 1)
            plan->last = (int) group.nsegs;
    }
}

/* c past `skip` pieces from where it is, and past groups with no piece left */
static void ring_advance(MPII_Hier_ring_cursor * c, int64_t skip)
{
    const MPII_Hier_ring_plan *p = c->plan;
    while (c->turn < p->ngroups && c->seg + skip >= c->group.nsegs) {
        skip -= c->group.nsegs - c->seg;
        c->seg = 0;
        if (++c->turn < p->ngroups)
            ring_group(p, c->turn, &c->group, &c->first);
    }
    c->seg += skip;
}

void MPII_Hier_ring_cursor_init(MPII_Hier_ring_cursor * c, const MPII_Hier_ring_plan * plan,
                                int from)
{
    c->plan = plan;
    c->turn = 0;
    c->seg = 0;
    ring_group(plan, 0, &c->group, &c->first);
    ring_advance(c, from);
}

MPII_Hier_ring_piece MPII_Hier_ring_next(MPII_Hier_ring_cursor * c)
{
    MPII_Hier_ring_piece piece = { c->first + MPII_Hier_seg_offset(&c->group, c->seg),
        MPII_Hier_seg_len(&c->group, c->seg)
    };
    ring_advance(c, 1);
    return piece;
}
