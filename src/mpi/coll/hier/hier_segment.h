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

/* At most MPII_HIER_SEG_MAX segments per payload: a segment size that would cut more is
 * raised to the smallest whole number of units that cuts at most that many.  A pipeline
 * step costs a collective start per level; 66,669 of them (800 KB in 12-byte segments)
 * run for minutes where 1024 cost what the bytes cost.  16 MiB in the default 16 KiB
 * segments is exactly 1024: no default plan up to there is changed. */
#define MPII_HIER_SEG_MAX 1024

typedef struct {
    int64_t nbytes;             /* whole payload */
    int64_t seg_bytes;          /* every segment but the last */
    int64_t nsegs;              /* 0 when nbytes == 0 */
    int raised;                 /* seg_bytes was raised above segsize by MPII_HIER_SEG_MAX */
} MPII_Hier_seg_plan;

/* segsize <= 0 or >= nbytes: one segment.  unit < 1 is taken as 1.  Every rank that
 * passes the same nbytes, segsize and unit gets the same plan. */
void MPII_Hier_seg_plan_init(MPII_Hier_seg_plan * plan, int64_t nbytes, int64_t segsize,
                             int64_t unit);
/* The segment (or pipeline chunk) size a plan of nbytes uses for segsize: segsize in
 * whole units, at least one unit, raised to cut at most MPII_HIER_SEG_MAX pieces
 * (*raised set then, when raised is not NULL); nbytes when segsize <= 0 or >= nbytes. */
int64_t MPII_Hier_seg_size(int64_t nbytes, int64_t segsize, int64_t unit, int *raised);
/* The segment size to plan with when `slots` segments are held at once in temporaries
 * of at most `limit` bytes: segsize (as plan_init reads it, <= 0 meaning nbytes) or
 * less, whole units, at least one unit.  limit <= 0: no bound.  A plan made with it still
 * cuts at most MPII_HIER_SEG_MAX segments (the bound on the count wins). */
int64_t MPII_Hier_seg_bounded(int64_t segsize, int64_t nbytes, int64_t unit, int64_t slots,
                              int64_t limit);
int64_t MPII_Hier_seg_offset(const MPII_Hier_seg_plan * plan, int64_t seg);
int64_t MPII_Hier_seg_len(const MPII_Hier_seg_plan * plan, int64_t seg);

/* The allgather's ring of ngroups groups, group g's blocks at bytes [offset[g] * block,
 * offset[g + 1] * block) of the stage: the pieces in the order every member of group
 * `mine` handles them, its own group's block, then those of groups mine - 1, mine - 2,
 * ..., mine + 1 (what its leader receives from the left, in turn), each cut by
 * MPII_Hier_seg_plan_init(len, segsize, 1).  A leader receives every piece from `own` on,
 * and sends every piece before the last `last` ones (its right neighbour's own block).
 * The plan holds counts only: a cursor walks its pieces, so running it needs no memory. */
typedef struct {
    int64_t first, len;         /* bytes of the stage */
} MPII_Hier_ring_piece;
typedef struct {
    const long long *offset;    /* the caller's, ngroups + 1 of them, for the plan's life */
    int ngroups, mine;
    int64_t block, segsize;
    int npieces, own, last;
    int raised;                 /* blocks whose segment size was raised */
} MPII_Hier_ring_plan;
void MPII_Hier_ring_plan_init(MPII_Hier_ring_plan * plan, const long long *offset, int ngroups,
                              int mine, int64_t block, int64_t segsize);

/* A place in a ring plan's order of pieces */
typedef struct {
    const MPII_Hier_ring_plan *plan;
    int turn;                   /* the group's: group mine - turn */
    int64_t seg;                /* the piece within the group's block */
    int64_t first;              /* the group's block in the stage */
    MPII_Hier_seg_plan group;   /* its pieces */
} MPII_Hier_ring_cursor;
/* At piece `from` (0 .. npieces) of the plan's order */
void MPII_Hier_ring_cursor_init(MPII_Hier_ring_cursor * c, const MPII_Hier_ring_plan * plan,
                                int from);
/* The piece c is at, and c on to the next; at most npieces - from times */
MPII_Hier_ring_piece MPII_Hier_ring_next(MPII_Hier_ring_cursor * c);

#endif /* HIER_SEGMENT_H_INCLUDED */
