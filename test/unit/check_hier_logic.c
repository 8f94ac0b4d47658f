/*
 * Unit tests of mpich-hier's pure logic: segment plans and pipelines.
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hier_segment.h"
#include "hier_pipeline.h"

/* ---- segment plans ---- */

START_TEST(seg_empty_payload_has_no_segments)
{
    MPII_Hier_seg_plan p;
    MPII_Hier_seg_plan_init(&p, 0, 1024, 4);
    ck_assert_int_eq(p.nsegs, 0);
}
END_TEST

START_TEST(seg_zero_segsize_is_one_segment)
{
    MPII_Hier_seg_plan p;
    MPII_Hier_seg_plan_init(&p, 5000, 0, 4);
    ck_assert_int_eq(p.nsegs, 1);
    ck_assert_int_eq(MPII_Hier_seg_len(&p, 0), 5000);
}
END_TEST

START_TEST(seg_exact_multiple)
{
    MPII_Hier_seg_plan p;
    MPII_Hier_seg_plan_init(&p, 4096, 1024, 4);
    ck_assert_int_eq(p.nsegs, 4);
    for (int s = 0; s < 4; s++) {
        ck_assert_int_eq(MPII_Hier_seg_offset(&p, s), 1024 * s);
        ck_assert_int_eq(MPII_Hier_seg_len(&p, s), 1024);
    }
}
END_TEST

START_TEST(seg_not_a_multiple_has_short_last_segment)
{
    MPII_Hier_seg_plan p;
    MPII_Hier_seg_plan_init(&p, 4100, 1024, 4);
    ck_assert_int_eq(p.nsegs, 5);
    ck_assert_int_eq(MPII_Hier_seg_len(&p, 4), 4);
}
END_TEST

START_TEST(seg_rounds_down_to_whole_elements)
{
    MPII_Hier_seg_plan p;
    MPII_Hier_seg_plan_init(&p, 8000, 1001, 8);
    ck_assert_int_eq(p.seg_bytes, 1000);
    MPII_Hier_seg_plan_init(&p, 8000, 5, 8);    /* smaller than one element */
    ck_assert_int_eq(p.seg_bytes, 8);
    MPII_Hier_seg_plan_init(&p, 24, 16, 12);    /* e.g. MPI_DOUBLE_INT-like units */
    ck_assert_int_eq(p.seg_bytes, 12);
    ck_assert_int_eq(p.nsegs, 2);
}
END_TEST

/* a seg_linear root of 1024 ranks with window 4 and 64 KiB segments would hold 256 MiB */
START_TEST(seg_bounded_temporaries)
{
    const int64_t limit = 8 << 20;
    int64_t seg = MPII_Hier_seg_bounded(65536, 1 << 30, 4, 4 * 1023, limit);
    ck_assert_int_le(seg * 4 * 1023, limit);
    ck_assert_int_eq(seg % 4, 0);
    ck_assert_int_eq(seg, limit / (4 * 1023) / 4 * 4);
    /* narrow trees keep the segment asked for */
    ck_assert_int_eq(MPII_Hier_seg_bounded(65536, 1 << 30, 4, 4 * 2, limit), 65536);
    /* one segment (segsize 0) is bounded too, and never beyond the payload */
    ck_assert_int_eq(MPII_Hier_seg_bounded(0, 1000, 8, 2, limit), 1000);
    ck_assert_int_eq(MPII_Hier_seg_bounded(0, 1 << 30, 8, 2, limit), limit / 2);
    /* at least one unit, however tight */
    ck_assert_int_eq(MPII_Hier_seg_bounded(65536, 1 << 20, 24, 1000, 100), 24);
    /* no limit */
    ck_assert_int_eq(MPII_Hier_seg_bounded(65536, 1 << 30, 4, 4 * 1023, 0), 65536);
    /* a bounded plan still tiles the payload in whole units */
    MPII_Hier_seg_plan plan;
    MPII_Hier_seg_plan_init(&plan, 1000003 * 4, MPII_Hier_seg_bounded(0, 1000003 * 4, 4, 12, 1 << 20), 4);
    ck_assert_int_le(plan.seg_bytes * 12, 1 << 20);
    ck_assert_int_eq(plan.seg_bytes % 4, 0);
    ck_assert_int_ge(plan.seg_bytes * plan.nsegs, plan.nbytes);
}
END_TEST

/* the hier bcast of 100003 x MPI_2INT in 12-byte segments: 66,669 pipeline steps before
 * the bound, at most MPII_HIER_SEG_MAX after it */
START_TEST(seg_count_is_bounded)
{
    MPII_Hier_seg_plan p;
    const int64_t nbytes = 100003 * 8;
    MPII_Hier_seg_plan_init(&p, nbytes, 12, 1);
    ck_assert_int_eq(p.raised, 1);
    ck_assert_int_eq(p.seg_bytes, (nbytes + 1023) / 1024);      /* 782 */
    ck_assert_int_eq(p.nsegs, 1024);
    /* whole units: 8-byte elements round the floor up to 784 */
    MPII_Hier_seg_plan_init(&p, nbytes, 12, 8);
    ck_assert_int_eq(p.seg_bytes, 784);
    ck_assert_int_eq(p.nsegs, (nbytes + 783) / 784);
    ck_assert_int_le(p.nsegs, MPII_HIER_SEG_MAX);
    /* the defaults up to 16 MiB (16 KiB segments) are left alone, one byte more is not */
    MPII_Hier_seg_plan_init(&p, 16 << 20, 16384, 4);
    ck_assert_int_eq(p.raised, 0);
    ck_assert_int_eq(p.nsegs, 1024);
    MPII_Hier_seg_plan_init(&p, (16 << 20) + 4, 16384, 4);
    ck_assert_int_eq(p.raised, 1);
    ck_assert_int_le(p.nsegs, MPII_HIER_SEG_MAX);
    /* one segment is never "raised" */
    MPII_Hier_seg_plan_init(&p, 1 << 30, 0, 4);
    ck_assert_int_eq(p.raised, 0);
    ck_assert_int_eq(p.nsegs, 1);
    /* chunks: the same bound, and a size that needs none comes back as given */
    int raised = -1;
    ck_assert_int_eq(MPII_Hier_seg_size(1 << 20, 100, 1, &raised), 1024);
    ck_assert_int_eq(raised, 1);
    ck_assert_int_eq(MPII_Hier_seg_size(1 << 20, 4096, 1, &raised), 4096);
    ck_assert_int_eq(raised, 0);
    ck_assert_int_eq(MPII_Hier_seg_size(1 << 20, 1 << 21, 1, NULL), 1 << 20);
    ck_assert_int_eq(MPII_Hier_seg_size(0, 100, 1, &raised), 0);
    /* the bound on the count wins over the bound on temporaries */
    MPII_Hier_seg_plan_init(&p, 1LL << 30, MPII_Hier_seg_bounded(65536, 1LL << 30, 4, 4 * 1023,
                                                                 8 << 20), 4);
    ck_assert_int_le(p.nsegs, MPII_HIER_SEG_MAX);
    ck_assert_int_eq(p.raised, 1);
}
END_TEST

/* any payload, segment size and unit: tiled in whole units, at most MPII_HIER_SEG_MAX
 * segments, a raised plan as fine as the bound allows */
START_TEST(seg_bounded_plans_tile_every_payload)
{
    const int64_t units[] = { 1, 3, 8, 12 };
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t unit = units[x % 4];
        int64_t nbytes = (int64_t) ((x >> 8) % (64 << 20) / unit + 1) * unit;
        int64_t segsize = (int64_t) ((x >> 36) % 70000);
        MPII_Hier_seg_plan p;
        MPII_Hier_seg_plan_init(&p, nbytes, segsize, unit);
        ck_assert_int_le(p.nsegs, MPII_HIER_SEG_MAX);
        ck_assert_int_ge(p.nsegs, 1);
        ck_assert_int_eq(p.seg_bytes % unit == 0 || p.nsegs == 1, 1);
        ck_assert_int_ge(p.seg_bytes * p.nsegs, nbytes);
        ck_assert_int_lt(p.seg_bytes * (p.nsegs - 1), nbytes);
        if (p.raised) {
            /* one unit less would cut more than the bound */
            int64_t less = p.seg_bytes - unit;
            ck_assert_int_gt(less, 0);
            ck_assert_int_gt((nbytes + less - 1) / less, MPII_HIER_SEG_MAX);
        }
        else if (segsize > 0 && segsize < nbytes)
            ck_assert_int_eq(p.seg_bytes, segsize >= unit ? segsize / unit * unit : unit);
    }
}
END_TEST

START_TEST(seg_segments_tile_the_payload)
{
    const int64_t units[] = { 1, 2, 4, 8, 12, 16 };
    for (int u = 0; u < 6; u++) {
        for (int64_t n = 1; n < 120; n += 1) {
            int64_t nbytes = n * units[u];
            for (int64_t segsize = 0; segsize < 70; segsize += 5) {
                MPII_Hier_seg_plan p;
                int64_t expect = 0;
                MPII_Hier_seg_plan_init(&p, nbytes, segsize, units[u]);
                ck_assert_int_ge(p.nsegs, 1);
                for (int64_t s = 0; s < p.nsegs; s++) {
                    int64_t len = MPII_Hier_seg_len(&p, s);
                    ck_assert_int_eq(MPII_Hier_seg_offset(&p, s), expect);
                    ck_assert_int_gt(len, 0);
                    /* never splits an element */
                    ck_assert_int_eq(MPII_Hier_seg_offset(&p, s) % units[u], 0);
                    ck_assert_int_eq(len % units[u], 0);
                    expect += len;
                }
                ck_assert_int_eq(expect, nbytes);
            }
        }
    }
}
END_TEST

/* ---- the allgather's ring ---- */

/* the plan's pieces from `from` on, as a cursor walks them; returns how many */
static int ring_walk(const MPII_Hier_ring_plan * p, int from, MPII_Hier_ring_piece * out)
{
    MPII_Hier_ring_cursor c;
    MPII_Hier_ring_cursor_init(&c, p, from);
    for (int j = from; j < p->npieces; j++)
        out[j - from] = MPII_Hier_ring_next(&c);
    return p->npieces - from;
}

START_TEST(ring_pieces_own_block_first_then_from_the_left)
{
    /* 3 groups of 2, 1 and 3 blocks of 10 bytes, pieces of 15: group 1 sees its own
     * block, then group 0's, then group 2's (its right neighbour's, which it never sends) */
    const long long offset[] = { 0, 2, 3, 6 };
    const int64_t want[][2] = { {20, 10}, {0, 15}, {15, 5}, {30, 15}, {45, 15} };
    MPII_Hier_ring_plan p;
    MPII_Hier_ring_piece pc[8];
    MPII_Hier_ring_plan_init(&p, offset, 3, 1, 10, 15);
    ck_assert_int_eq(p.npieces, 5);
    ck_assert_int_eq(p.own, 1);
    ck_assert_int_eq(p.last, 2);
    ck_assert_int_eq(p.raised, 0);
    ck_assert_int_eq(ring_walk(&p, 0, pc), 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(pc[i].first, want[i][0]);
        ck_assert_int_eq(pc[i].len, want[i][1]);
    }
    /* a cursor started inside the order is where one walked from the start is */
    for (int from = 0; from <= 5; from++) {
        MPII_Hier_ring_piece later[8];
        ck_assert_int_eq(ring_walk(&p, from, later), 5 - from);
        for (int i = 0; i < 5 - from; i++)
            ck_assert_int_eq(later[i].first, want[from + i][0]);
    }
    /* segsize 0: one piece per group's block */
    MPII_Hier_ring_plan_init(&p, offset, 3, 0, 10, 0);
    ck_assert_int_eq(ring_walk(&p, 0, pc), 3);
    ck_assert_int_eq(pc[0].first, 0);
    ck_assert_int_eq(pc[1].first, 30);  /* group 2, on the left of group 0 */
    ck_assert_int_eq(p.own, 1);
    ck_assert_int_eq(p.last, 1);
}
END_TEST

/* groups with no block (a leader whose ranks all gave 0 bytes) have no piece: the cursor
 * steps over them, wherever they stand in the order */
START_TEST(ring_pieces_skip_empty_groups)
{
    const long long offset[] = { 0, 0, 2, 2, 3, 3 };
    MPII_Hier_ring_plan p;
    MPII_Hier_ring_piece pc[8];
    MPII_Hier_ring_plan_init(&p, offset, 5, 0, 10, 0);
    ck_assert_int_eq(p.npieces, 2);
    ck_assert_int_eq(p.own, 0);
    ck_assert_int_eq(p.last, 1);
    ck_assert_int_eq(ring_walk(&p, 0, pc), 2);
    ck_assert_int_eq(pc[0].first, 20);  /* group 3 (turn 2), after empty group 4 */
    ck_assert_int_eq(pc[1].first, 0);   /* group 1 */
    ck_assert_int_eq(pc[1].len, 20);
}
END_TEST

/* what a leader sends (pieces before the last block) is what its right neighbour
 * receives (pieces from its own on), piece for piece; every byte once per plan */
START_TEST(ring_pieces_match_between_neighbours)
{
    const long long offset[] = { 0, 3, 4, 9, 11 };
    for (int64_t segsize = 0; segsize < 50; segsize += 7) {
        for (int g = 0; g < 4; g++) {
            MPII_Hier_ring_plan me, right;
            MPII_Hier_ring_piece sent[64], received[64];
            MPII_Hier_ring_plan_init(&me, offset, 4, g, 4, segsize);
            MPII_Hier_ring_plan_init(&right, offset, 4, (g + 1) % 4, 4, segsize);
            ck_assert_int_eq(me.npieces - me.last, right.npieces - right.own);
            ring_walk(&me, 0, sent);
            ring_walk(&right, right.own, received);
            for (int j = 0; j < me.npieces - me.last; j++) {
                ck_assert_int_eq(sent[j].first, received[j].first);
                ck_assert_int_eq(sent[j].len, received[j].len);
            }
            int64_t bytes = 0;
            for (int j = 0; j < me.npieces; j++)
                bytes += sent[j].len;
            ck_assert_int_eq(bytes, offset[4] * 4);
        }
    }
}
END_TEST

/* ---- the HAN pipeline's tasks ---- */

static const MPII_Hier_task *find_task(const MPII_Hier_task * tasks, int n, int step,
                                       MPII_Hier_task_dir dir)
{
    for (int i = 0; i < n; i++)
        if (tasks[i].step == step && tasks[i].dir == dir)
            return &tasks[i];
    return NULL;
}

/* every task handles every segment exactly once, in order, within the slots */
static void check_every_segment_once(const MPII_Hier_task * tasks, int n, int64_t nsegs)
{
    int64_t nslots = MPII_Hier_pipeline_nslots(tasks, n, nsegs);
    for (int i = 0; i < n; i++) {
        int64_t next = 0;
        for (int64_t s = 0; s < nslots; s++) {
            int64_t t = MPII_Hier_pipeline_seg(&tasks[i], nsegs, s);
            if (t >= 0)
                ck_assert_int_eq(t, next++);
        }
        ck_assert_int_eq(next, nsegs);
        ck_assert_int_eq(tasks[i].blocking, tasks[i].step == tasks[n - 1].step);
    }
}

/* a segment takes each step after the step before it (HAN's task dependencies) */
START_TEST(pipeline_segments_follow_the_steps)
{
    MPII_Hier_task t[MPII_HIER_PIPELINE_MAX_TASKS(8)];
    for (int nsteps = 2; nsteps <= 8; nsteps++) {
        int n = nsteps - 1;
        int nb = MPII_Hier_pipeline_bcast(nsteps, t);
        ck_assert_int_eq(nb, nsteps);
        for (int k = 1; k <= n; k++)
            ck_assert_int_gt(find_task(t, nb, k, MPII_HIER_TASK_DOWN)->lag,
                             find_task(t, nb, k - 1, MPII_HIER_TASK_DOWN)->lag);
        check_every_segment_once(t, nb, 5);
        ck_assert_int_eq(MPII_Hier_pipeline_nslots(t, nb, 5), 5 + n);

        int nr = MPII_Hier_pipeline_reduce(nsteps, t);
        for (int k = 0; k < n; k++)
            ck_assert_int_gt(find_task(t, nr, k, MPII_HIER_TASK_UP)->lag,
                             find_task(t, nr, k + 1, MPII_HIER_TASK_UP)->lag);
        ck_assert_int_eq(find_task(t, nr, n, MPII_HIER_TASK_UP)->lag, 0);
        check_every_segment_once(t, nr, 5);

        for (int one_top = 0; one_top < 2; one_top++) {
            int na = MPII_Hier_pipeline_allreduce(nsteps, one_top, t);
            ck_assert_int_le(na, MPII_HIER_PIPELINE_MAX_TASKS(nsteps));
            /* up from the finest to the top, then down from the top to the finest */
            int prev = -1;
            for (int k = n; k >= 0; k--) {
                const MPII_Hier_task *up = find_task(t, na, k, k == 0 && one_top ?
                                                     MPII_HIER_TASK_ALL : MPII_HIER_TASK_UP);
                ck_assert_ptr_nonnull(up);
                ck_assert_int_gt(up->lag, prev);
                prev = up->lag;
            }
            ck_assert_int_eq(find_task(t, na, 0, MPII_HIER_TASK_DOWN) != NULL, !one_top);
            for (int k = one_top; k <= n; k++) {
                const MPII_Hier_task *down = find_task(t, na, k, MPII_HIER_TASK_DOWN);
                ck_assert_int_eq(down->lag, prev + 1);  /* no slot lost between steps */
                prev = down->lag;
            }
            ck_assert_int_eq(find_task(t, na, 0, MPII_HIER_TASK_ALL) != NULL, one_top);
            check_every_segment_once(t, na, 5);
        }
    }
}
END_TEST

/* HAN's sequences for nodes only (N = 1), u = 4 segments, by hand: per slot the segment
 * of each task, -1 for none */
START_TEST(pipeline_is_hans_for_two_levels)
{
    MPII_Hier_task t[4];
    static const int bcast[5][2] = {    /* ib, sb: ib(0); sbib(1..3); sb(3) */
        {0, -1}, {1, 0}, {2, 1}, {3, 2}, {-1, 3}
    };
    static const int reduce[5][2] = {   /* ir, sr: sr(0); irsr(1..3); ir(3) */
        {-1, 0}, {0, 1}, {1, 2}, {2, 3}, {3, -1}
    };
    static const int allreduce[7][4] = {        /* ib, ir, sb, sr */
        {-1, -1, -1, 0}, {-1, 0, -1, 1}, {0, 1, -1, 2}, {1, 2, 0, 3},
        {2, 3, 1, -1}, {3, -1, 2, -1}, {-1, -1, 3, -1}
    };
    int n = MPII_Hier_pipeline_bcast(2, t);
    ck_assert_int_eq(MPII_Hier_pipeline_nslots(t, n, 4), 5);
    for (int s = 0; s < 5; s++)
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(MPII_Hier_pipeline_seg(&t[i], 4, s), bcast[s][i]);
    n = MPII_Hier_pipeline_reduce(2, t);
    for (int s = 0; s < 5; s++)
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(MPII_Hier_pipeline_seg(&t[i], 4, s), reduce[s][i]);
    n = MPII_Hier_pipeline_allreduce(2, 0, t);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(MPII_Hier_pipeline_nslots(t, n, 4), 7);
    for (int s = 0; s < 7; s++)
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(MPII_Hier_pipeline_seg(&t[i], 4, s), allreduce[s][i]);
    /* no segments, no slots */
    ck_assert_int_eq(MPII_Hier_pipeline_nslots(t, n, 0), 0);
}
END_TEST

/* one segment: every slot of every table holds one task (all run alone, in their
 * blocking forms where they have one); more: the slots of the full pipeline hold more */
START_TEST(pipeline_one_segment_runs_tasks_alone)
{
    MPII_Hier_task t[MPII_HIER_PIPELINE_MAX_TASKS(8)];
    for (int nsteps = 2; nsteps <= 8; nsteps++) {
        int n[4] = { MPII_Hier_pipeline_bcast(nsteps, t) };
        MPII_Hier_task tables[4][MPII_HIER_PIPELINE_MAX_TASKS(8)];
        memcpy(tables[0], t, sizeof(t));
        n[1] = MPII_Hier_pipeline_reduce(nsteps, tables[1]);
        n[2] = MPII_Hier_pipeline_allreduce(nsteps, 0, tables[2]);
        n[3] = MPII_Hier_pipeline_allreduce(nsteps, 1, tables[3]);
        for (int c = 0; c < 4; c++) {
            int64_t nslots = MPII_Hier_pipeline_nslots(tables[c], n[c], 1);
            int most = 0;
            ck_assert_int_eq(nslots, n[c]);     /* no slot without a task */
            for (int64_t s = 0; s < nslots; s++)
                ck_assert_int_eq(MPII_Hier_pipeline_slot_tasks(tables[c], n[c], 1, s), 1);
            for (int64_t s = 0; s < MPII_Hier_pipeline_nslots(tables[c], n[c], 4); s++) {
                int here = MPII_Hier_pipeline_slot_tasks(tables[c], n[c], 4, s);
                most = here > most ? here : most;
            }
            ck_assert_int_eq(most, n[c] < 4 ? n[c] : 4);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier logic");
    TCase *seg = tcase_create("segment plans");
    SRunner *sr;
    int failed;

    tcase_set_timeout(seg, 60);
    tcase_add_test(seg, seg_empty_payload_has_no_segments);
    tcase_add_test(seg, seg_zero_segsize_is_one_segment);
    tcase_add_test(seg, seg_exact_multiple);
    tcase_add_test(seg, seg_not_a_multiple_has_short_last_segment);
    tcase_add_test(seg, seg_rounds_down_to_whole_elements);
    tcase_add_test(seg, seg_segments_tile_the_payload);
    tcase_add_test(seg, seg_bounded_temporaries);
    tcase_add_test(seg, seg_count_is_bounded);
    tcase_add_test(seg, seg_bounded_plans_tile_every_payload);
    tcase_add_test(seg, pipeline_segments_follow_the_steps);
    tcase_add_test(seg, pipeline_is_hans_for_two_levels);
    tcase_add_test(seg, pipeline_one_segment_runs_tasks_alone);
    tcase_add_test(seg, ring_pieces_own_block_first_then_from_the_left);
    tcase_add_test(seg, ring_pieces_skip_empty_groups);
    tcase_add_test(seg, ring_pieces_match_between_neighbours);
    suite_add_tcase(s, seg);

    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
