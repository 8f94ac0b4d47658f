/*
 * mpich-hier: segment plans (pure logic, no MPI).
 *
 * A collective's payload of nbytes is cut into segments of seg_bytes, the last one
 * shorter.  seg_bytes is a whole multiple of the element unit, so a segment never
 * splits an element of the type signature.
 */

#ifndef HIER_SEGMENT_H_INCLUDED
#define HIER_SEGMENT_H_INCLUDED

#include <stdint.h>

typedef struct {
    int64_t nbytes;             /* whole payload */
    int64_t seg_bytes;          /* every segment but the last */
    int64_t nsegs;              /* 0 when nbytes == 0 */
} MPII_Hier_seg_plan;

/* segsize <= 0 or >= nbytes: one segment.  unit < 1 is taken as 1. */
void MPII_Hier_seg_plan_init(MPII_Hier_seg_plan * plan, int64_t nbytes, int64_t segsize,
                             int64_t unit);
/* The segment size to plan with when `slots` segments are held at once in temporaries
 * of at most `limit` bytes: segsize (as plan_init reads it, <= 0 meaning nbytes) or
 * less, whole units, at least one unit.  limit <= 0: no bound. */
int64_t MPII_Hier_seg_bounded(int64_t segsize, int64_t nbytes, int64_t unit, int64_t slots,
                              int64_t limit);
int64_t MPII_Hier_seg_offset(const MPII_Hier_seg_plan * plan, int64_t seg);
int64_t MPII_Hier_seg_len(const MPII_Hier_seg_plan * plan, int64_t seg);

#endif /* HIER_SEGMENT_H_INCLUDED */
