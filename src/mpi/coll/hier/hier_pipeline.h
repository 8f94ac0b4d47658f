/*
 * mpich-hier: the HAN pipeline of the hier bcast, reduce and allreduce (pure logic, no MPI).
 *
 * An N-level collective has steps 0 .. N (hier_hierarchy.h: step k < N among the leaders
 * of level k's groups, step N inside a finest group).  Its message is cut into u
 * segments (hier_segment.h); a task moves one segment through one step in one direction,
 * down (bcast: from the step's root) or up (reduce: onto it), or all (the top step's
 * one-step allreduce ring).  Task i handles segment t in slot t + lag_i, so a segment
 * takes a step only after the step before it in the collective (the data dependency of
 * HAN's tasks), and each task holds one segment at a time (the in-flight bound).  The
 * tasks, in the order they are issued within a slot:
 *
 *   collective  task                        step  lag             issued
 *   ----------  --------------------------  ----  --------------  ------------------------
 *   bcast       down, k = 0 .. N-1          k     k               started, waited at the
 *               down                        N     N               slot's end; step N runs
 *   reduce      up, k = 0 .. N-1            k     N - k           in the slot (blocking)
 *               up                          N     0
 *   allreduce   down then up, k = 0 .. N-1  k     N+k+d, N-k      d = 1; with the ring
 *               (k = 0 with the ring: all)  0     N               (one_top) d = 0 and no
 *               down, then up               N     2N + d, 0       down/up at step 0
 *
 * With nodes only (N = 1) these are HAN's task sequences: bcast ib(0); sbib(1) ..
 * sbib(u-1); sb(u-1); reduce sr(0); irsr(1) .. irsr(u-1); ir(u-1); allreduce sr(0),
 * irsr(1), ibirsr(2), sbibirsr(3 .. u-1), sbibir, sbib, sb.
 */

#ifndef HIER_PIPELINE_H_INCLUDED
#define HIER_PIPELINE_H_INCLUDED

#include <stdint.h>

typedef enum {
    MPII_HIER_TASK_DOWN,        /* bcast from the step's root */
    MPII_HIER_TASK_UP,          /* reduce onto the step's root */
    MPII_HIER_TASK_ALL          /* allreduce among the step's members */
} MPII_Hier_task_dir;

typedef struct {
    int step;
    MPII_Hier_task_dir dir;
    int lag;                    /* slot of segment 0 */
    int blocking;               /* step N: runs in the slot, after every started task */
} MPII_Hier_task;

/* The most tasks a pipeline of nsteps steps has */
#define MPII_HIER_PIPELINE_MAX_TASKS(nsteps_) (2 * (nsteps_))

/* Fill tasks (MPII_HIER_PIPELINE_MAX_TASKS(nsteps) entries) for nsteps = N + 1 >= 1 steps;
 * returns how many, in the order of the table above. */
int MPII_Hier_pipeline_bcast(int nsteps, MPII_Hier_task * tasks);
int MPII_Hier_pipeline_reduce(int nsteps, MPII_Hier_task * tasks);
int MPII_Hier_pipeline_allreduce(int nsteps, int one_top, MPII_Hier_task * tasks);

/* Slots a pipeline of u = nsegs segments runs (0 when nsegs is 0) */
int64_t MPII_Hier_pipeline_nslots(const MPII_Hier_task * tasks, int ntasks, int64_t nsegs);
/* The segment a task handles in slot s, -1 when none */
int64_t MPII_Hier_pipeline_seg(const MPII_Hier_task * task, int64_t nsegs, int64_t slot);
/* How many tasks of the table run in slot s: the same on every rank, whatever steps it
 * takes part in.  A task alone in its slot overlaps nothing, and the members of its
 * step's comm agree on that (they then run the step's blocking form, whose messages are
 * tagged unlike the scheduled form's).  With one segment every slot holds one task. */
int MPII_Hier_pipeline_slot_tasks(const MPII_Hier_task * tasks, int ntasks, int64_t nsegs,
                                  int64_t slot);

#endif /* HIER_PIPELINE_H_INCLUDED */
