/*
 * Unit tests of the critical-path counts (hier_critical_path.c) and of the by_size model
 * they take hier's plan from (hier_by_size.c).
 *
 * The criterion: for each of the 8 collectives, at 8 B and 1 KiB, on every shape of
 * 2..64 nodes x 1..8 ranks per node, block and cyclic, hier's default plan sends no more
 * sequential inter-node messages than the best MPICH 5.0.1 algorithm.  Every failing
 * shape is printed, with its counts, before the test fails.  Beside it the intra-node
 * steps: every collective takes at most one per direction at these sizes (the device's
 * shared memory), but the allgather where all ranks' blocks do not fit one cell (1 KiB on
 * more than 8 ranks): there MPICH's gather and bcast run inside the node, and its steps
 * are reported only; and the alltoall, whose rows go through binomial trees inside the
 * node (no shared-memory step): reported only.  The alltoall has a test of its own beside
 * (alltoall_against_mpich): strictly fewer than what MPICH runs on five shapes.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hier_by_size.h"
#include "hier_critical_path.h"
#include "hier_segment.h"

#define EXPECT(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

static const MPII_Hier_cpath_placement placements[] = {
    MPII_HIER_CPATH_BLOCK, MPII_HIER_CPATH_CYCLIC
};

static const char *placement_name(MPII_Hier_cpath_placement p)
{
    return p == MPII_HIER_CPATH_BLOCK ? "block" : "cyclic";
}

static int ceil_log2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

static int floor_log2(int n)
{
    int l = 0;
    while ((2 << l) <= n)
        l++;
    return l;
}

static MPII_Hier_cpath_shape shape_of(int nnodes, int ppn, MPII_Hier_cpath_placement p)
{
    MPII_Hier_cpath_shape s = { nnodes, ppn, p };
    return s;
}

/* the count of MPICH's algorithm name of coll on shape */
static MPII_Hier_cpath_count mpich(MPII_Hier_cpath_coll coll, const char *name, int nnodes,
                                   int ppn, MPII_Hier_cpath_placement p)
{
    MPII_Hier_cpath_shape s = shape_of(nnodes, ppn, p);
    MPII_Hier_cpath_count c = { -1, -1 };
    int algo = MPII_Hier_cpath_algo_find(coll, name);
    ck_assert_msg(algo >= 0, "no algorithm %s", name);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(algo, &s, 8, &c), 0);
    return c;
}

#define ASSERT_COUNT(c, i, a) do { \
        MPII_Hier_cpath_count c_ = (c); \
        ck_assert_int_eq(c_.inter, (i)); ck_assert_int_eq(c_.intra, (a)); } while (0)

/* ---- the simulator on hand-built programs --------------------------------------------- */

static MPII_Hier_cpath_count run_sim(MPII_Hier_cpath_sim * sim)
{
    MPII_Hier_cpath_count c = { -1, -1 };
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), 0);
    MPII_Hier_cpath_sim_free(sim);
    return c;
}

static MPII_Hier_cpath_sim *new_sim(int nnodes, int ppn)
{
    MPII_Hier_cpath_shape s = shape_of(nnodes, ppn, MPII_HIER_CPATH_BLOCK);
    MPII_Hier_cpath_sim *sim = MPII_Hier_cpath_sim_create(&s);
    ck_assert_ptr_nonnull(sim);
    return sim;
}

START_TEST(sim_hand_built)
{
    /* 2 nodes x 2: ranks 0, 1 on node 0, ranks 2, 3 on node 1 */
    MPII_Hier_cpath_sim *sim = new_sim(2, 2);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 2);
    MPII_Hier_cpath_sim_add(sim, 2, MPII_HIER_CPATH_RECV, 0);
    ASSERT_COUNT(run_sim(sim), 1, 0);

    /* a rank's second send leaves after its first: intra, then inter */
    sim = new_sim(2, 2);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 2);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_RECV, 0);
    MPII_Hier_cpath_sim_add(sim, 2, MPII_HIER_CPATH_RECV, 0);
    ASSERT_COUNT(run_sim(sim), 1, 1);

    /* a send after a receive waits for it: 0 -> 2 -> 3 */
    sim = new_sim(2, 2);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 2);
    MPII_Hier_cpath_sim_add(sim, 2, MPII_HIER_CPATH_RECV, 0);
    MPII_Hier_cpath_sim_add(sim, 2, MPII_HIER_CPATH_SEND, 3);
    MPII_Hier_cpath_sim_add(sim, 3, MPII_HIER_CPATH_RECV, 2);
    ASSERT_COUNT(run_sim(sim), 1, 1);

    /* a rank receives one message at a time: two concurrent senders, one after the other */
    sim = new_sim(3, 1);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_SEND, 0);
    MPII_Hier_cpath_sim_add(sim, 2, MPII_HIER_CPATH_SEND, 0);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_RECV, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_RECV, 2);
    ASSERT_COUNT(run_sim(sim), 2, 0);

    /* a sendrecv's send does not wait for its receive */
    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_sendrecv(sim, 0, 1, 1);
    MPII_Hier_cpath_sim_sendrecv(sim, 1, 0, 0);
    ASSERT_COUNT(run_sim(sim), 1, 0);

    /* receives posted at once hold none of the rank's sends: 3 x 1, each rank to the two
     * others, its sends one after the other, its receives as they arrive */
    sim = new_sim(3, 1);
    for (int r = 0; r < 3; r++) {
        MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_IRECV, (r + 2) % 3);
        MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_IRECV, (r + 1) % 3);
        MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_SEND, (r + 1) % 3);
        MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_SEND, (r + 2) % 3);
        MPII_Hier_cpath_sim_waitall(sim, r);
    }
    ASSERT_COUNT(run_sim(sim), 2, 0);

    /* a send after the waitall waits for the posted receive: 0 -> 1 -> 0 */
    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_RECV, 1);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_IRECV, 0);
    MPII_Hier_cpath_sim_waitall(sim, 1);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_SEND, 0);
    ASSERT_COUNT(run_sim(sim), 2, 0);

    /* and one before it does not */
    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_RECV, 1);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_IRECV, 0);
    MPII_Hier_cpath_sim_add(sim, 1, MPII_HIER_CPATH_SEND, 0);
    MPII_Hier_cpath_sim_waitall(sim, 1);
    ASSERT_COUNT(run_sim(sim), 1, 0);

    /* a shared-memory step: 7 ranks to their leader at once, then back */
    sim = new_sim(1, 8);
    for (int i = 1; i < 8; i++) {
        MPII_Hier_cpath_sim_add(sim, i, MPII_HIER_CPATH_SHM_SEND, 0);
        MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SHM_RECV, i);
    }
    for (int i = 1; i < 8; i++) {
        MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SHM_SEND, i);
        MPII_Hier_cpath_sim_add(sim, i, MPII_HIER_CPATH_SHM_RECV, 0);
    }
    ASSERT_COUNT(run_sim(sim), 0, 2);
}
END_TEST

START_TEST(sim_chain_is_the_bandwidth_hops)
{
    /* the chain hier_by_size counts n - 1 hops for (bcast, bandwidth) */
    for (int n = 2; n <= 64; n++) {
        MPII_Hier_cpath_sim *sim = new_sim(n, 1);
        for (int r = 0; r < n; r++) {
            if (r > 0)
                MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_RECV, r - 1);
            if (r + 1 < n)
                MPII_Hier_cpath_sim_add(sim, r, MPII_HIER_CPATH_SEND, r + 1);
        }
        ASSERT_COUNT(run_sim(sim), MPII_Hier_sized_hops(MPII_HIER_SIZED_BCAST, 0, n), 0);
    }
}
END_TEST

START_TEST(sim_refuses_what_never_completes)
{
    MPII_Hier_cpath_count c;
    MPII_Hier_cpath_sim *sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_RECV, 1);   /* nobody sends */
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), -1);
    MPII_Hier_cpath_sim_free(sim);

    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 1);   /* nobody receives */
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), -1);
    MPII_Hier_cpath_sim_free(sim);

    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_IRECV, 1);  /* posted, nobody sends */
    MPII_Hier_cpath_sim_waitall(sim, 0);
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), -1);
    MPII_Hier_cpath_sim_free(sim);

    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_IRECV, 1);  /* and never waited for */
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), -1);
    MPII_Hier_cpath_sim_free(sim);

    sim = new_sim(2, 1);
    MPII_Hier_cpath_sim_add(sim, 0, MPII_HIER_CPATH_SEND, 2);   /* no rank 2 */
    ck_assert_int_eq(MPII_Hier_cpath_sim_run(sim, &c), -1);
    MPII_Hier_cpath_sim_free(sim);

    MPII_Hier_cpath_shape bad = shape_of(0, 4, MPII_HIER_CPATH_BLOCK);
    ck_assert_ptr_null(MPII_Hier_cpath_sim_create(&bad));
    bad = shape_of(1024, 2, MPII_HIER_CPATH_BLOCK);     /* over MPII_HIER_CPATH_MAX_RANKS */
    ck_assert_int_eq(MPII_Hier_cpath_shape_valid(&bad), 0);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(0, &bad, 8, &c), -1);
}
END_TEST

/* ---- MPICH's algorithms, hand-counted ------------------------------------------------- */

START_TEST(mpich_hand_counted)
{
    /* binomial bcast on 4 nodes x 2, block: 0 -> 4 -> 6 -> 7 (inter, inter, intra) */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "binomial", 4, 2, MPII_HIER_CPATH_BLOCK), 2, 1);
    /* 2 nodes x 4, block: 0 -> 4, then 0 -> 2 and 0 -> 1 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "binomial", 2, 4, MPII_HIER_CPATH_BLOCK), 1, 2);
    /* 4 nodes x 2, cyclic: 0 -> 4 stays on node 0, then 0 -> 2, 0 -> 1 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "binomial", 4, 2, MPII_HIER_CPATH_CYCLIC), 2, 1);
    /* ring allreduce on 2 x 2: rank 1 sends across the node boundary at all 2 (P - 1) steps */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "ring", 2, 2, MPII_HIER_CPATH_BLOCK), 6, 0);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLGATHER, "ring", 3, 2, MPII_HIER_CPATH_BLOCK), 5, 0);
    /* recursive doubling on 6 = 3 x 2, block: 0 -> 1 and 2 -> 3 fold in on their node,
     * 1-3 and 1-4 cross nodes, 1 -> 0 folds out */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling", 3, 2,
                       MPII_HIER_CPATH_BLOCK), 2, 2);
    /* on 3 nodes x 1 the fold in and out cross nodes too */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling", 3, 1,
                       MPII_HIER_CPATH_BLOCK), 3, 0);
    /* 5 x 1: fold 0 -> 1, two exchanges, fold out */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling", 5, 1,
                       MPII_HIER_CPATH_BLOCK), 4, 0);
    /* Bruck on 2 x 2: rank 2 sends to 1, then to 0 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLGATHER, "brucks", 2, 2, MPII_HIER_CPATH_BLOCK), 2, 0);
    /* dissemination on 2 x 2: rank 1 sends to 2, then to 3 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BARRIER, "k_dissemination", 2, 2,
                       MPII_HIER_CPATH_BLOCK), 2, 0);
    /* binomial gather on 2 x 3, block: 3 -> 2 -> 0, then 4 -> 0 waits for 0's receive of 2 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_GATHER, "binomial", 2, 3, MPII_HIER_CPATH_BLOCK), 2, 1);
    /* the compositions: leaders' tree plus one shared-memory step per direction */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "composition_alpha", 8, 4,
                       MPII_HIER_CPATH_CYCLIC), 3, 1);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "composition_alpha", 5, 4,
                       MPII_HIER_CPATH_BLOCK), 4, 2);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_BARRIER, "composition_alpha", 4, 8,
                       MPII_HIER_CPATH_BLOCK), 2, 2);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_REDUCE, "smp", 4, 4, MPII_HIER_CPATH_BLOCK), 2, 2);
    /* alltoall on 4 x 2, block: Bruck's 3 rounds each cross; pairwise (xor) first with the
     * node's other rank, then 6 across; scattered: rank 6 to itself, then to 5 and 4, whose
     * receives go on from 7, 0, 1, 2 and 3 */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "brucks", 4, 2, MPII_HIER_CPATH_BLOCK), 3, 0);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "pairwise", 4, 2, MPII_HIER_CPATH_BLOCK), 6, 1);
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "scattered", 4, 2, MPII_HIER_CPATH_BLOCK), 7,
                 1);
    /* 3 x 2 is no power of two: pairwise's shifts, 5 messages, all across on the path */
    ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "pairwise", 3, 2, MPII_HIER_CPATH_BLOCK), 5, 0);
}
END_TEST

START_TEST(mpich_power_of_two_only)
{
    MPII_Hier_cpath_shape s = shape_of(3, 2, MPII_HIER_CPATH_BLOCK);
    MPII_Hier_cpath_count c;
    int rd = MPII_Hier_cpath_algo_find(MPII_HIER_CPATH_ALLGATHER, "recursive_doubling");
    int srd = MPII_Hier_cpath_algo_find(MPII_HIER_CPATH_BCAST,
                                        "scatter_recursive_doubling_allgather");
    ck_assert_int_eq(MPII_Hier_cpath_mpich(rd, &s, 8, &c), 1);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(srd, &s, 8, &c), 1);
    s = shape_of(4, 2, MPII_HIER_CPATH_BLOCK);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(rd, &s, 8, &c), 0);
    ASSERT_COUNT(c, 2, 1);
    ck_assert_int_eq(MPII_Hier_cpath_algo_find(MPII_HIER_CPATH_GATHER, "ring"), -1);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(-1, &s, 8, &c), -1);
    ck_assert_int_eq(MPII_Hier_cpath_mpich(MPII_Hier_cpath_nalgos(), &s, 8, &c), -1);
}
END_TEST

/* One rank per node: the simulated algorithms take the hops hier_by_size counts for the
 * same algorithm among the leaders, so that hier's counts and MPICH's are alike. */
START_TEST(mpich_one_rank_per_node_is_the_hops)
{
    for (int n = 2; n <= 64; n++) {
        MPII_Hier_cpath_placement b = MPII_HIER_CPATH_BLOCK;
        int tree = MPII_Hier_sized_hops(MPII_HIER_SIZED_BCAST, 1, n);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "binomial", n, 1, b), tree, 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_REDUCE, "binomial", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_REDUCE, 1, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_GATHER, "binomial", n, 1, b), tree, 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_SCATTER, "binomial", n, 1, b), tree, 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLREDUCE, 1, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLREDUCE, "ring", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLREDUCE, 0, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLGATHER, "brucks", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, 1, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLGATHER, "ring", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, 0, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_BARRIER, "k_dissemination", n, 1, b), tree, 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "brucks", n, 1, b),
                     MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, 1, n), 0);
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "pairwise", n, 1, b), n - 1, 0);
        /* and its message to itself: one intra-node step, across its batches of 32 too */
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_ALLTOALL, "scattered", n, 1, b), n - 1, 1);
    }
}
END_TEST

/* MPICH's bcast algorithms inside one node: the steps hier's plan counts where by_size
 * hands the node's bcast to MPICH (binomial, scatter + recursive doubling, scatter + ring) */
START_TEST(mpich_bcast_inside_a_node)
{
    for (int n = 2; n <= 64; n++) {
        MPII_Hier_cpath_placement b = MPII_HIER_CPATH_BLOCK;
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "binomial", 1, n, b), 0, ceil_log2(n));
        ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "scatter_ring_allgather", 1, n, b), 0,
                     ceil_log2(n) + n - 1);
        if ((n & (n - 1)) == 0)
            ASSERT_COUNT(mpich(MPII_HIER_CPATH_BCAST, "scatter_recursive_doubling_allgather", 1,
                               n, b), 0, 2 * ceil_log2(n));
    }
}
END_TEST

/* ---- hier_by_size ------------------------------------------------------------------------- */

START_TEST(by_size_choices)
{
    const int64_t a = MPII_HIER_LATENCY_BYTES_DEFAULT;
    const MPII_Hier_sized_op ops[] = { MPII_HIER_SIZED_BCAST, MPII_HIER_SIZED_REDUCE,
        MPII_HIER_SIZED_ALLREDUCE, MPII_HIER_SIZED_ALLGATHER
    };
    for (int n = 2; n <= 64; n++) {
        for (int k = 0; k < 4; k++) {
            /* one piece of 8 B: the latency algorithm */
            EXPECT(MPII_Hier_sized_latency(ops[k], 8, 1, n, a) == 1, "op %d n %d", k, n);
            EXPECT(MPII_Hier_sized_latency(ops[k], 1024, 1, n, a) == 1, "op %d n %d", k, n);
        }
        /* pieces the bandwidth algorithm pipelines: never the latency one */
        for (int k = 0; k < 3; k++)
            EXPECT(MPII_Hier_sized_latency(ops[k], 16384, 2, n, a) == 0, "op %d n %d", k, n);
        /* allgather: the latency algorithm only while a block is no longer than alpha */
        EXPECT(MPII_Hier_sized_latency(MPII_HIER_SIZED_ALLGATHER, a, 1, n, a) == 1, "n %d", n);
        EXPECT(MPII_Hier_sized_latency(MPII_HIER_SIZED_ALLGATHER, a + 1, 1, n, a) == 0, "n %d", n);
    }
}
END_TEST

/* gather and scatter: binomial while the blocks its D - 1 forwarding levels add cost no
 * more than the n - 1 - L start-ups linear adds */
/* The scan's top step: recursive doubling while the message is one segment or the
 * leaders are 2 (one exchange), the pipelined chain for a long message among more; the
 * crossover moves up with alpha */
START_TEST(by_size_scan)
{
    const int64_t seg = MPII_HIER_SEGSIZE_DEFAULT, a = MPII_HIER_LATENCY_BYTES_DEFAULT;
    for (int n = 2; n <= 64; n *= 2) {
        EXPECT(MPII_Hier_sized_scan_latency(8, n, seg, a) == 1, "n %d: 8 B chained", n);
        EXPECT(MPII_Hier_sized_scan_latency(seg, n, seg, a) == 1, "n %d: one segment", n);
        EXPECT(MPII_Hier_sized_scan_latency(1 << 22, n, seg, a) == (n == 2), "n %d: 4 MiB", n);
    }
    /* 4 leaders, 2 rounds: 2 (a + B) against (2 + B / seg)(a + seg), equal at 4 segments */
    EXPECT(MPII_Hier_sized_scan_latency(4 * seg, 4, seg, a) == 1, "4 leaders, 4 segments");
    EXPECT(MPII_Hier_sized_scan_latency(8 * seg, 4, seg, a) == 0, "4 leaders, 8 segments");
    EXPECT(MPII_Hier_sized_scan_latency(8 * seg, 4, seg, 16 * seg) == 1, "high alpha");
}
END_TEST

/* The alltoall: aggregated through the leaders while a rank's row of blocks is no longer
 * than a start-up nor than MPII_HIER_ALLTOALL_AGGREGATE_MAX_ROW; among n members Bruck's
 * while its L (a + ceil(n/2) p) costs no more than (n - 1)(a + p); the direct exchange in
 * node rounds from blocks of MPII_HIER_ALLTOALL_ROUNDS_MIN_ALPHAS start-ups */
START_TEST(by_size_alltoall)
{
    const int64_t a = MPII_HIER_LATENCY_BYTES_DEFAULT, row = MPII_HIER_ALLTOALL_AGGREGATE_MAX_ROW;
    EXPECT(MPII_Hier_sized_alltoall_aggregate(8, 8, a) == 1, "8 B blocks");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(a / 8, 8, a) == 1, "a row of a start-up");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(a / 8 + 1, 8, a) == 0, "one byte more a block");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(a, 8, a) == 0, "blocks of a start-up");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(1, 1024, 4 * row) == 1, "a short row, a slow link");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(row / 1024, 1024, 4 * row) == 1, "a full row");
    EXPECT(MPII_Hier_sized_alltoall_aggregate(row / 1024, 1025, 4 * row) == 0, "a row too long");
    const int64_t rounds_from = MPII_HIER_ALLTOALL_ROUNDS_MIN_ALPHAS * a;
    EXPECT(MPII_Hier_sized_alltoall_node_rounds(rounds_from, a) == 1, "blocks of the crossover");
    EXPECT(MPII_Hier_sized_alltoall_node_rounds(rounds_from - 1, a) == 0, "one byte less");
    EXPECT(MPII_Hier_sized_alltoall_node_rounds(rounds_from, 2 * a) == 0, "a slower start-up");
    EXPECT(MPII_Hier_sized_rooted_v_direct(a, a) == 0, "v: a block of a start-up");
    EXPECT(MPII_Hier_sized_rooted_v_direct(a + 1, a) == 1, "v: one byte more");
    EXPECT(MPII_Hier_sized_rooted_v_direct(0, a) == 0, "v: no bytes");
    EXPECT(MPII_Hier_sized_rooted_v_direct(a + 1, 2 * a) == 0, "v: a slower start-up");
    EXPECT(MPII_Hier_sized_rooted_v_with_counts(a, a) == 1, "v: a run of a start-up");
    EXPECT(MPII_Hier_sized_rooted_v_with_counts(a + 1, a) == 0, "v: a run one byte longer");
    EXPECT(MPII_Hier_sized_rooted_v_with_counts(0, a) == 1, "v: an empty run");
    for (int n = 2; n <= 256; n *= 2) {
        int64_t L = ceil_log2(n);
        EXPECT(MPII_Hier_sized_alltoall_brucks(1, n, a) == 1, "n %d: 1 B pieces", n);
        EXPECT(MPII_Hier_sized_alltoall_brucks(a, n, a) == (n <= 4), "n %d: pieces of a", n);
        for (int64_t p = 1; p <= 4 * a; p *= 2)
            EXPECT(MPII_Hier_sized_alltoall_brucks(p, n, a) ==
                   (L * (a + n / 2 * p) <= (n - 1) * (a + p)), "n %d, %lld B", n, (long long) p);
    }
    /* two members: one round either way */
    EXPECT(MPII_Hier_sized_alltoall_brucks(1 << 30, 2, a) == 1, "two members");
}
END_TEST

START_TEST(by_size_rooted)
{
    const int64_t a = MPII_HIER_LATENCY_BYTES_DEFAULT;
    for (int n = 2; n <= 64; n++) {
        int forwards = floor_log2(n) - 1, extra_startups = n - 1 - ceil_log2(n);
        /* no forwarding (2 and 3 groups): the two trees send the same; binomial */
        if (forwards == 0) {
            EXPECT(MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, 1 << 30, 1, n, a) == 1,
                   "n %d", n);
            continue;
        }
        int64_t last = extra_startups * a / forwards;   /* the largest binomial block */
        EXPECT(MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, last, 1, n, a) == 1, "n %d", n);
        EXPECT(MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, last + 1, 1, n, a) == 0,
               "n %d", n);
    }
    /* 4 groups: binomial up to one start-up's bytes, linear beyond */
    ck_assert_int_eq(MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, a, 1, 4, a), 1);
    ck_assert_int_eq(MPII_Hier_sized_latency(MPII_HIER_SIZED_ROOTED, a + 1, 1, 4, a), 0);
    ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ROOTED, 0, 4), 3);
    ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ROOTED, 1, 4), 2);
}
END_TEST

START_TEST(by_size_hops)
{
    for (int n = 1; n <= 64; n++) {
        int pof2 = (n & (n - 1)) == 0;
        int l = n > 1 ? ceil_log2(n) : 0;
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_BCAST, 1, n), l);
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_REDUCE, 1, n), l);
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, 1, n), l);
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_BCAST, 0, n), n - 1);
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLGATHER, 0, n), n - 1);
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLREDUCE, 0, n), 2 * (n - 1));
        ck_assert_int_eq(MPII_Hier_sized_hops(MPII_HIER_SIZED_ALLREDUCE, 1, n),
                         n > 1 ? floor_log2(n) + (pof2 ? 0 : 2) : 0);
    }
    ck_assert_int_eq(MPII_Hier_sized_intra_shm(MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT,
                                               MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT), 1);
    ck_assert_int_eq(MPII_Hier_sized_intra_shm(MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT + 1,
                                               MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT), 0);
}
END_TEST

/* ---- hier's plan --------------------------------------------------------------------------- */

static MPII_Hier_cpath_plan plan_of(MPII_Hier_cpath_coll coll, int nnodes, int ppn,
                                    int64_t bytes, char *text, size_t len)
{
    MPII_Hier_cpath_shape s = shape_of(nnodes, ppn, MPII_HIER_CPATH_BLOCK);
    MPII_Hier_cpath_plan plan;
    ck_assert_int_eq(MPII_Hier_cpath_hier_plan(coll, &s, bytes, MPII_HIER_LATENCY_BYTES_DEFAULT,
                                               &plan), 0);
    MPII_Hier_cpath_plan_text(&plan, text, len);
    return plan;
}

START_TEST(hier_plans)
{
    char t[128];
    MPII_Hier_cpath_plan p = plan_of(MPII_HIER_CPATH_ALLREDUCE, 4, 8, 8, t, sizeof(t));
    ck_assert_str_eq(t, "shm > recursive_doubling(4) > shm");
    ASSERT_COUNT(p.count, 2, 2);
    p = plan_of(MPII_HIER_CPATH_BCAST, 5, 1, 1024, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(5)");
    ASSERT_COUNT(p.count, 3, 0);
    /* 7 pieces of 16 KiB: the chain, n - 1 + 6 hops; the node's bcast above a cell is
     * MPICH's: binomial below 8 ranks */
    p = plan_of(MPII_HIER_CPATH_BCAST, 4, 4, 100000, t, sizeof(t));
    ck_assert_str_eq(t, "chain(4) > binomial(4)");
    ASSERT_COUNT(p.count, 9, 2);
    p = plan_of(MPII_HIER_CPATH_REDUCE, 4, 2, 8, t, sizeof(t));
    ck_assert_str_eq(t, "shm > binomial(4)");
    /* allgather 1 KiB x 8 per node on 4 nodes: 32 KiB to broadcast, MPICH's scatter +
     * recursive doubling on the 8 ranks */
    p = plan_of(MPII_HIER_CPATH_ALLGATHER, 4, 8, 1024, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(8) > brucks(4) > scatter_rd_allgather(8)");
    ASSERT_COUNT(p.count, 2, 9);
    /* a node block above alpha: by_size's ring, each leader sending the 3 other nodes'
     * blocks of 16 KiB in pieces of the default size, one after the other */
    p = plan_of(MPII_HIER_CPATH_ALLGATHER, 4, 8, 2048, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(8) > ring(4) > scatter_rd_allgather(8)");
    ck_assert_int_eq(p.count.inter, 3 * ((8 * 2048 + MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT - 1) /
                                         MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT));
    p = plan_of(MPII_HIER_CPATH_ALLGATHER, 2, 1, 1 << 30, t, sizeof(t));
    ck_assert_int_eq(p.count.inter, MPII_HIER_SEG_MAX);     /* the pieces' cap */
    p = plan_of(MPII_HIER_CPATH_BARRIER, 1, 1, 0, t, sizeof(t));
    ck_assert_str_eq(t, "-");
    ASSERT_COUNT(p.count, 0, 0);
    /* the node's blocks fit a cell: one shm step each way */
    p = plan_of(MPII_HIER_CPATH_SCATTER, 8, 4, 8, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(8) > shm");
    ck_assert_int_eq(p.intra_down, 1);
    p = plan_of(MPII_HIER_CPATH_GATHER, 4, 8, 1024, t, sizeof(t));
    ck_assert_str_eq(t, "shm > binomial(4)");
    ASSERT_COUNT(p.count, 2, 1);
    /* two ranks a node: binomial is one message, the device's flags no fewer steps */
    p = plan_of(MPII_HIER_CPATH_GATHER, 4, 2, 8, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(2) > binomial(4)");
    ASSERT_COUNT(p.count, 2, 1);
    p = plan_of(MPII_HIER_CPATH_GATHER, 4, 8, 1025, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(8) > linear(4)");
    p = plan_of(MPII_HIER_CPATH_ALLGATHER, 4, 8, 8, t, sizeof(t));
    ck_assert_str_eq(t, "shm > brucks(4) > shm");
    ASSERT_COUNT(p.count, 2, 2);
    /* 8 nodes of 4 ranks at 8 KiB: a node's 32 KiB is above the 2 alpha up to which 8
     * groups keep binomial, so linear */
    p = plan_of(MPII_HIER_CPATH_GATHER, 8, 4, 8192, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(4) > linear(8)");
    ASSERT_COUNT(p.count, 7, 2);
    /* truncated text stays a string */
    MPII_Hier_cpath_plan_text(&p, t, 5);
    ck_assert_str_eq(t, "bino");
}
END_TEST

START_TEST(names)
{
    for (int c = 0; c < MPII_HIER_CPATH_NCOLLS; c++)
        ck_assert_int_eq(MPII_Hier_cpath_coll_parse(MPII_Hier_cpath_coll_name(c)), c);
    ck_assert_int_eq(MPII_Hier_cpath_coll_parse("alltoall"), MPII_HIER_CPATH_ALLTOALL);
    ck_assert_int_eq(MPII_Hier_cpath_coll_parse("alltoallv"), -1);
    ck_assert_int_eq(MPII_Hier_cpath_coll_parse("scatterv"), MPII_HIER_CPATH_SCATTERV);
    ck_assert_ptr_null(MPII_Hier_cpath_coll_name(MPII_HIER_CPATH_NCOLLS));
    for (int a = 0; a < MPII_Hier_cpath_nalgos(); a++)
        ck_assert_int_eq(MPII_Hier_cpath_algo_find(MPII_Hier_cpath_algo_coll(a),
                                                   MPII_Hier_cpath_algo_name(a)), a);
}
END_TEST

/* by_size's alltoall: rows through the node leaders while a rank's row is no longer than
 * a start-up, the leaders' pieces (ppn^2 blocks) by Bruck's while they are no longer than
 * one, else all at once; else every rank with every other, itself a group */
START_TEST(alltoall_plans)
{
    char t[128];
    MPII_Hier_cpath_plan p = plan_of(MPII_HIER_CPATH_ALLTOALL, 4, 2, 8, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(2) > brucks(4) > binomial(2)");
    ASSERT_COUNT(p.count, 2, 2);
    ck_assert_int_eq(p.intra_up, 1);
    ck_assert_int_eq(p.intra_down, 1);
    /* rows of 12 x 512 B, pieces of 16 x 512 B: the leaders send them all at once, 2 one
     * after the other */
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 3, 4, 512, t, sizeof(t));
    ck_assert_str_eq(t, "binomial(4) > linear(3) > binomial(4)");
    ASSERT_COUNT(p.count, 2, 4);
    /* rows of 16 x 1 KiB: longer than a start-up, Bruck's among all ranks */
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 4, 4, 1024, t, sizeof(t));
    ck_assert_str_eq(t, "brucks(16)");
    ASSERT_COUNT(p.count, 4, 0);
    /* 64 KiB blocks: direct, each rank's P - 1 sends one after the other; on the path,
     * rank 1's to 2 and 3, then 3's receives from 0, 7, 6, 5 and 4: all across nodes */
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 4, 2, 65536, t, sizeof(t));
    ck_assert_str_eq(t, "direct(8)");
    ck_assert_int_eq(p.nsteps, 1);
    ck_assert_int_eq(p.count.inter + p.count.intra, 8 - 1);
    ASSERT_COUNT(p.count, 7, 0);
    ck_assert_int_eq(p.intra_up + p.intra_down, 0);
    /* groups of one rank, one node: Bruck's among all ranks */
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 8, 1, 8, t, sizeof(t));
    ck_assert_str_eq(t, "brucks(8)");
    ASSERT_COUNT(p.count, 3, 0);
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 1, 8, 8, t, sizeof(t));
    ck_assert_str_eq(t, "brucks(8)");
    ASSERT_COUNT(p.count, 0, 3);
    /* a row of 256 x 8 KiB is over by_size's 1 MiB: no aggregation, and 8 KiB pieces are
     * too long for Bruck's rounds of 128 of them */
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 64, 4, 8192, t, sizeof(t));
    ck_assert_str_eq(t, "direct(256)");
    ck_assert_int_eq(p.count.inter + p.count.intra, 256 - 1);
    p = plan_of(MPII_HIER_CPATH_ALLTOALL, 4, 2, 0, t, sizeof(t));
    ck_assert_str_eq(t, "-");

    /* cyclic: the nodes are no runs of ranks, the plugin's exchange among all ranks; the
     * round of distance 4 stays on the node */
    MPII_Hier_cpath_shape s = shape_of(4, 2, MPII_HIER_CPATH_CYCLIC);
    ck_assert_int_eq(MPII_Hier_cpath_hier_plan(MPII_HIER_CPATH_ALLTOALL, &s, 8,
                                               MPII_HIER_LATENCY_BYTES_DEFAULT, &p), 0);
    MPII_Hier_cpath_plan_text(&p, t, sizeof(t));
    ck_assert_str_eq(t, "brucks(8)");
    ASSERT_COUNT(p.count, 2, 1);
}
END_TEST

/* the plugin's count of MPICH's flat recursive doubling (by_size's flat allreduce) is the
 * simulator's, on every shape */
START_TEST(recursive_doubling_inter_is_simulated)
{
    int algo = MPII_Hier_cpath_algo_find(MPII_HIER_CPATH_ALLREDUCE, "recursive_doubling");
    int node_of[MPII_HIER_CPATH_MAX_RANKS], flat_somewhere = 0;
    for (int nnodes = 1; nnodes <= 24; nnodes++)
        for (int ppn = 1; ppn <= 8; ppn++)
            for (int p = 0; p < 2; p++) {
                MPII_Hier_cpath_shape s = shape_of(nnodes, ppn, placements[p]);
                MPII_Hier_cpath_count count;
                for (int r = 0; r < nnodes * ppn; r++)
                    node_of[r] = MPII_Hier_cpath_node_of(&s, r);
                ck_assert_int_eq(MPII_Hier_cpath_mpich(algo, &s, 8, &count), 0);
                ck_assert_msg(MPII_Hier_recursive_doubling_inter(node_of, nnodes * ppn) ==
                              count.inter, "%dx%d %s: %d, simulated %d", nnodes, ppn,
                              placement_name(s.placement),
                              MPII_Hier_recursive_doubling_inter(node_of, nnodes * ppn),
                              count.inter);
                flat_somewhere |= MPII_Hier_sized_allreduce_flat(node_of, nnodes * ppn, nnodes);
            }
    ck_assert(flat_somewhere);
    /* 3 nodes x 2, block: the extra ranks fold inside nodes 0 and 1 (2 crossings), where 3
     * leaders fold across nodes (3) */
    const int three_by_two[] = { 0, 0, 1, 1, 2, 2 }, one_each[] = { 0, 1, 2 };
    ck_assert_int_eq(MPII_Hier_recursive_doubling_inter(three_by_two, 6), 2);
    ck_assert_int_eq(MPII_Hier_recursive_doubling_inter(one_each, 3), 3);
    ck_assert_int_eq(MPII_Hier_sized_allreduce_flat(three_by_two, 6, 3), 1);
    ck_assert_int_eq(MPII_Hier_recursive_doubling_inter(NULL, 3), -1);
}
END_TEST

/* ---- THE criterion ---------------------------------------------------------------------- */

static const int64_t criterion_bytes[] = { 8, 1024 };

typedef struct {
    int shapes, failed, intra_over, unbounded;
    int hier_intra_max, best_intra_max, hier_intra_more;
} tally;

static void print_row(const char *what, MPII_Hier_cpath_coll coll,
                      const MPII_Hier_cpath_shape * s, int64_t bytes,
                      const MPII_Hier_cpath_row * row)
{
    char plan[160];
    MPII_Hier_cpath_plan_text(&row->hier, plan, sizeof(plan));
    printf("%s: %s %dx%d %s %lld B: hier %s %d/%d, MPICH %s %d/%d\n", what,
           MPII_Hier_cpath_coll_name(coll), s->nnodes, s->ppn, placement_name(s->placement),
           (long long) bytes, plan, row->hier.count.inter, row->hier.count.intra,
           MPII_Hier_cpath_algo_name(row->best), row->best_count.inter, row->best_count.intra);
}

static void check_shape(MPII_Hier_cpath_coll coll, const MPII_Hier_cpath_shape * s,
                        int64_t bytes, tally * t)
{
    MPII_Hier_cpath_row row;
    EXPECT(MPII_Hier_cpath_compare(coll, s, bytes, MPII_HIER_LATENCY_BYTES_DEFAULT, &row) == 0,
           "compare failed: %s %dx%d", MPII_Hier_cpath_coll_name(coll), s->nnodes, s->ppn);
    t->shapes++;
    if (row.hier.count.inter > row.best_count.inter) {
        t->failed++;
        print_row("criterion FAILED", coll, s, bytes, &row);
    }
    /* shared memory in the node: at most one step each way */
    /* the alltoall's rows and the v-collectives' counts and blocks go along binomial trees */
    int tree = coll == MPII_HIER_CPATH_ALLTOALL || coll == MPII_HIER_CPATH_GATHERV ||
        coll == MPII_HIER_CPATH_SCATTERV;
    int bounded = tree ? 0 : coll != MPII_HIER_CPATH_ALLGATHER ||
        MPII_Hier_sized_intra_shm(bytes * s->nnodes * s->ppn,
                                  MPII_HIER_SHM_CELL_BYTES_MPICH_DEFAULT);
    if (!bounded)
        t->unbounded++;
    if (bounded && (row.hier.intra_up > 1 || row.hier.intra_down > 1)) {
        t->intra_over++;
        print_row("intra steps over 1 per direction", coll, s, bytes, &row);
    }
    if (row.hier.count.intra > t->hier_intra_max)
        t->hier_intra_max = row.hier.count.intra;
    if (row.best_count.intra > t->best_intra_max)
        t->best_intra_max = row.best_count.intra;
    if (row.hier.count.intra > row.best_count.intra)
        t->hier_intra_more++;
}

/* one collective per iteration (_i), each with its own timeout */
START_TEST(criterion_inter_node_messages)
{
    MPII_Hier_cpath_coll coll = (MPII_Hier_cpath_coll) _i;
    tally t = { 0 };
    for (int b = 0; b < 2; b++)
        for (int nnodes = 2; nnodes <= 64; nnodes++)
            for (int ppn = 1; ppn <= 8; ppn++)
                for (int p = 0; p < 2; p++) {
                    MPII_Hier_cpath_shape s = shape_of(nnodes, ppn, placements[p]);
                    check_shape(coll, &s, criterion_bytes[b], &t);
                }
    printf("%s: %d shapes, criterion failed on %d; intra steps: hier at most %d, best MPICH "
           "at most %d, hier more than best MPICH on %d; not bounded (too large for a cell) "
           "on %d\n", MPII_Hier_cpath_coll_name(coll), t.shapes, t.failed, t.hier_intra_max,
           t.best_intra_max, t.hier_intra_more, t.unbounded);
    fflush(stdout);
    EXPECT(t.failed == 0, "%s: hier sends more sequential inter-node messages than the best "
           "MPICH algorithm on %d of %d shapes (listed above)", MPII_Hier_cpath_coll_name(coll),
           t.failed, t.shapes);
    EXPECT(t.intra_over == 0, "%s: more than one intra-node step per direction on %d shapes",
           MPII_Hier_cpath_coll_name(coll), t.intra_over);
}
END_TEST

/* The gatherv and scatterv (MPICH has only linear for them): where blocks no longer than a
 * start-up go through the leaders (block placement, several ranks a node), the root
 * exchanges one message with each other leader, N - 1 in a row, where MPICH's linear
 * exchanges one with every rank off its node, P - ppn; the same where every rank is a
 * node, or the placement is cyclic (flat).  The scatterv's runs ride with their counts
 * while a run is no longer than a start-up, else follow them (twice N - 1). */
START_TEST(rooted_v_against_mpich)
{
    const int shapes[][2] = { {4, 2}, {8, 2}, {4, 4}, {16, 4}, {8, 8}, {3, 16}, {8, 1} };
    const MPII_Hier_cpath_coll colls[2] = { MPII_HIER_CPATH_GATHERV, MPII_HIER_CPATH_SCATTERV };
    for (int k = 0; k < 7; k++)
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < 2; b++) {
                int n = shapes[k][0], ppn = shapes[k][1];
                MPII_Hier_cpath_shape s = shape_of(n, ppn, MPII_HIER_CPATH_BLOCK);
                MPII_Hier_cpath_count linear = mpich(colls[c], "linear", n, ppn,
                                                     MPII_HIER_CPATH_BLOCK);
                MPII_Hier_cpath_row row;
                ck_assert_int_eq(MPII_Hier_cpath_compare(colls[c], &s, criterion_bytes[b],
                                                         MPII_HIER_LATENCY_BYTES_DEFAULT,
                                                         &row), 0);
                int twice = c == 1 && criterion_bytes[b] * ppn > MPII_HIER_LATENCY_BYTES_DEFAULT;
                ck_assert_int_eq(linear.inter, n * ppn - ppn);
                ck_assert_int_eq(row.hier.count.inter, (twice ? 2 : 1) * (n - 1));
                if (ppn > 1)
                    ck_assert_int_lt(row.hier.count.inter, linear.inter);
                s.placement = MPII_HIER_CPATH_CYCLIC;
                ck_assert_int_eq(MPII_Hier_cpath_compare(colls[c], &s, criterion_bytes[b],
                                                         MPII_HIER_LATENCY_BYTES_DEFAULT,
                                                         &row), 0);
                ck_assert_int_eq(row.hier.count.inter, linear.inter);
            }
    static const struct {
        MPII_Hier_cpath_coll coll;
        int n, ppn;
        int64_t bytes;
        const char *plan;
    } plans[] = {
        {MPII_HIER_CPATH_SCATTERV, 4, 2, 8, "linear with runs(4) > binomial counts(2) > binomial(2)"},
        {MPII_HIER_CPATH_SCATTERV, 3, 16, 1024, "linear, twice(3) > binomial counts(16) > binomial(16)"},
        {MPII_HIER_CPATH_SCATTERV, 4, 2, 65536, "linear counts(4) > binomial counts(2) > direct(8)"},
        {MPII_HIER_CPATH_GATHERV, 4, 2, 8, "binomial counts(2) > binomial(2) > linear(4)"},
        {MPII_HIER_CPATH_GATHERV, 4, 2, 65536, "binomial counts(2) > direct(8)"},
        {MPII_HIER_CPATH_GATHERV, 8, 1, 8, "linear(8)"},
    };
    for (size_t k = 0; k < sizeof(plans) / sizeof(plans[0]); k++) {
        char t[160];
        plan_of(plans[k].coll, plans[k].n, plans[k].ppn, plans[k].bytes, t, sizeof(t));
        ck_assert_str_eq(t, plans[k].plan);
    }
}
END_TEST

/* What MPICH 5.0.1's auto selection runs for an out-of-place alltoall of block bytes to
 * each rank on size ranks: maint/tuning/coll/mpir/generic.json, "collective=alltoall",
 * "is_sendbuf_inplace=no" (avg_msg_size is the block, csel.c): below 8 ranks scattered up
 * to 32768 B, pairwise beyond; from 8 ranks brucks up to 256 B, scattered up to 32768 B,
 * pairwise beyond */
static const char *mpich_alltoall_pick(int size, int64_t block)
{
    if (size < 8)
        return block <= 32768 ? "scattered" : "pairwise";
    if (block <= 256)
        return "brucks";
    return block <= 32768 ? "scattered" : "pairwise";
}

/* hier crosses nodes strictly fewer times than what MPICH runs, on block placement; at 8 B
 * strictly fewer than MPICH's best too (at 1 KiB, rows longer than a start-up from 16
 * ranks, the same Bruck's as MPICH's best) */
START_TEST(alltoall_against_mpich)
{
    const int shapes[][2] = { {4, 2}, {8, 2}, {4, 4}, {16, 4}, {8, 8} };
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < 2; b++) {
            MPII_Hier_cpath_shape s = shape_of(shapes[k][0], shapes[k][1], MPII_HIER_CPATH_BLOCK);
            const char *pick = mpich_alltoall_pick(s.nnodes * s.ppn, criterion_bytes[b]);
            MPII_Hier_cpath_count picked = mpich(MPII_HIER_CPATH_ALLTOALL, pick, s.nnodes, s.ppn,
                                                 MPII_HIER_CPATH_BLOCK);
            MPII_Hier_cpath_row row;
            ck_assert_int_eq(MPII_Hier_cpath_compare(MPII_HIER_CPATH_ALLTOALL, &s,
                                                     criterion_bytes[b],
                                                     MPII_HIER_LATENCY_BYTES_DEFAULT, &row), 0);
            char plan[160];
            MPII_Hier_cpath_plan_text(&row.hier, plan, sizeof(plan));
            printf("alltoall %dx%d block %lld B: hier %s %d/%d, MPICH's pick %s %d/%d, best %s "
                   "%d/%d\n", s.nnodes, s.ppn, (long long) criterion_bytes[b], plan,
                   row.hier.count.inter, row.hier.count.intra, pick, picked.inter, picked.intra,
                   MPII_Hier_cpath_algo_name(row.best), row.best_count.inter,
                   row.best_count.intra);
            EXPECT(row.hier.count.inter < picked.inter, "alltoall %dx%d %lld B: hier %d, "
                   "MPICH's %s %d", s.nnodes, s.ppn, (long long) criterion_bytes[b],
                   row.hier.count.inter, pick, picked.inter);
            if (criterion_bytes[b] == 8)
                EXPECT(row.hier.count.inter < row.best_count.inter, "alltoall %dx%d 8 B: hier "
                       "%d, MPICH's best %s %d", s.nnodes, s.ppn, row.hier.count.inter,
                       MPII_Hier_cpath_algo_name(row.best), row.best_count.inter);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier critical path");
    TCase *sim = tcase_create("simulator");
    TCase *model = tcase_create("by_size and hier's plan");
    TCase *criterion = tcase_create("criterion");
    SRunner *sr;
    int failed;

    tcase_set_timeout(sim, 120);
    tcase_set_timeout(model, 60);
    tcase_set_timeout(criterion, 600);
    tcase_add_test(sim, sim_hand_built);
    tcase_add_test(sim, sim_chain_is_the_bandwidth_hops);
    tcase_add_test(sim, sim_refuses_what_never_completes);
    tcase_add_test(sim, mpich_hand_counted);
    tcase_add_test(sim, mpich_power_of_two_only);
    tcase_add_test(sim, mpich_one_rank_per_node_is_the_hops);
    tcase_add_test(sim, mpich_bcast_inside_a_node);
    tcase_add_test(model, by_size_choices);
    tcase_add_test(model, by_size_hops);
    tcase_add_test(model, by_size_rooted);
    tcase_add_test(model, by_size_scan);
    tcase_add_test(model, by_size_alltoall);
    tcase_add_test(model, hier_plans);
    tcase_add_test(model, recursive_doubling_inter_is_simulated);
    tcase_add_test(model, names);
    tcase_add_test(model, alltoall_plans);
    tcase_add_loop_test(criterion, criterion_inter_node_messages, 0, MPII_HIER_CPATH_NCOLLS);
    tcase_add_test(criterion, alltoall_against_mpich);
    tcase_add_test(criterion, rooted_v_against_mpich);
    suite_add_tcase(s, sim);
    suite_add_tcase(s, model);
    suite_add_tcase(s, criterion);

    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
