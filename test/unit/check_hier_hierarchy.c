/*
 * Unit tests of mpich-hier's N-level hierarchies (hier_hierarchy.h) against a brute-force
 * reading of the same keys: every layout of switches x nodes x packages x ranks, even and
 * uneven, by block and round-robin, random placements, HAN's two-level column rule as
 * the N = 2 case, the gathered layouts run as a gather; and the switch paths
 * (hier_topology.h) that give the levels above the node.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "hier_hierarchy.h"
#include "hier_topology.h"

/* ranks r and s share their first k + 1 keys */
static int same_prefix(const long *keys, int depth, int r, int s, int k)
{
    for (int i = 0; i <= k; i++)
        if (keys[r * depth + i] != keys[s * depth + i])
            return 0;
    return 1;
}

/* distinct prefixes of length k + 1 (k = -1: the communicator, 1) */
static int count_groups(const long *keys, int nranks, int depth, int k)
{
    int n = 0;
    for (int r = 0; r < nranks; r++) {
        int first = 1;
        for (int s = 0; s < r && first && k >= 0; s++)
            if (same_prefix(keys, depth, r, s, k))
                first = 0;
        n += first;
        if (k < 0)
            return 1;
    }
    return n;
}

/* The steps of every root, run as a bcast: each step instance has one member per position
 * (in rank order when the groups are blocks of ranks), its root already holds the data, and
 * after the last step every rank does. */
static void check_steps(const MPII_Hier_hierarchy * h)
{
    int n = h->nlevels, nranks = h->nranks;
    int *col = malloc(sizeof(int) * (n + 1));
    char *have = malloc(nranks), *had = malloc(nranks), *taken = malloc(nranks);
    int ordered = MPII_Hier_hierarchy_is_rank_ordered(h);
    MPII_Hier_step_place *place = malloc(sizeof(MPII_Hier_step_place) * nranks * (n + 1));
    for (int root = 0; root < nranks; root++) {
        MPII_Hier_hierarchy_columns(h, root, col);
        for (int r = 0; r < nranks; r++)
            MPII_Hier_hierarchy_steps(h, col, r, &place[r * (n + 1)]);
        memset(have, 0, nranks);
        have[root] = 1;
        for (int k = 0; k <= n; k++) {
            memcpy(had, have, nranks);
            for (int r = 0; r < nranks; r++) {
                const MPII_Hier_step_place *p = &place[r * (n + 1) + k];
                if (!p->in)
                    continue;
                ck_assert_int_gt(p->size, 1);
                ck_assert(p->pos >= 0 && p->pos < p->size);
                ck_assert(p->root >= 0 && p->root < p->size);
                int members = 0, roots = 0, pos = -1;
                memset(taken, 0, nranks);
                for (int s = 0; s < nranks; s++) {
                    const MPII_Hier_step_place *q = &place[s * (n + 1) + k];
                    if (!q->in || q->instance != p->instance)
                        continue;
                    ck_assert_int_eq(q->size, p->size);
                    ck_assert_int_eq(q->root, p->root);
                    ck_assert(!taken[q->pos]);  /* one member per position */
                    taken[q->pos] = 1;
                    /* in rank order where the groups are blocks (non-commutative ops) */
                    if (ordered)
                        ck_assert_int_gt(q->pos, pos);
                    pos = q->pos;
                    members++;
                    if (q->pos == q->root) {
                        roots++;
                        ck_assert(had[s]);      /* the data is where the step starts */
                    }
                }
                ck_assert_int_eq(members, p->size);
                ck_assert_int_eq(roots, 1);
                have[r] = 1;
            }
        }
        for (int r = 0; r < nranks; r++)
            ck_assert(have[r]);
    }
    free(place);
    free(taken);
    free(had);
    free(have);
    free(col);
}

/* The steps for root 0 as runs of ranks (rank-ordered hierarchies): each member's run
 * holds the ranks that reach the step through it (its group at the step's level, itself at
 * the finest step), runs follow each other in member order, and each rank is in the run of
 * its position at every step it takes part in. */
static void check_member_starts(const MPII_Hier_hierarchy * h)
{
    int n = h->nlevels, nranks = h->nranks;
    int *col = malloc(sizeof(int) * (n + 1)), *first = malloc(sizeof(int) * (nranks + 1));
    MPII_Hier_step_place *place = malloc(sizeof(MPII_Hier_step_place) * (n + 1));
    MPII_Hier_hierarchy_columns(h, 0, col);
    for (int r = 0; r < nranks; r++) {
        MPII_Hier_hierarchy_steps(h, col, r, place);
        for (int k = 0; k <= n; k++) {
            const MPII_Hier_step_place *p = &place[k];
            if (!p->in)
                continue;
            ck_assert_int_eq(MPII_Hier_hierarchy_member_starts(h, k, p->instance, first), p->size);
            for (int m = 0; m < p->size; m++) {
                ck_assert_int_lt(first[m], first[m + 1]);
                int weight = k == n ? 1 :
                    MPII_Hier_hierarchy_group_size(h, k, h->level[k].group_of[first[m]]);
                ck_assert_int_eq(first[m + 1] - first[m], weight);
            }
            ck_assert(first[p->pos] <= r && r < first[p->pos + 1]);
            /* the instance's ranks, no more: its first rank starts member 0's run */
            int lo = k == 0 ? 0 : h->level[k - 1].members[h->level[k - 1].group_start[p->instance]];
            int len = k == 0 ? nranks : MPII_Hier_hierarchy_group_size(h, k - 1, p->instance);
            ck_assert_int_eq(first[0], lo);
            ck_assert_int_eq(first[p->size], lo + len);
        }
    }
    free(col);
    free(first);
    free(place);
}

/* The gathered layout of every root, run as a gather with a LINEAR tree per step: each
 * rank's stage holds rank ids; the finest step gathers in rank order onto its leader, each
 * coarser step's members send the first `weight` blocks of their stage (their own group,
 * gathered at the finer steps) to the step's root, which puts them at offset[rel].  Then
 * the root holds rank r at block_at(r), a permutation of the ranks, and every group's
 * blocks are one run that starts where its leader stands, less its finest position. */
static void check_gathered_layout(const MPII_Hier_hierarchy * h)
{
    int n = h->nlevels, nranks = h->nranks;
    int *col = malloc(sizeof(int) * (n + 1));
    int *stage = malloc(sizeof(int) * nranks * nranks);        /* stage[r * nranks + i] */
    char *hit = malloc(nranks);
    long long *offset = malloc(sizeof(long long) * (nranks + 1));
    MPII_Hier_step_place *place = malloc(sizeof(MPII_Hier_step_place) * nranks * (n + 1));
    for (int root = 0; root < nranks; root++) {
        MPII_Hier_hierarchy_columns(h, root, col);
        memset(hit, 0, nranks);
        for (int r = 0; r < nranks; r++) {
            long long at = MPII_Hier_hierarchy_block_at(h, col, r);
            ck_assert(at >= 0 && at < nranks && !hit[at]);
            hit[at] = 1;
        }
        if (n == 0) {
            /* the one step: the comm's ranks from the root on */
            MPII_Hier_hierarchy_step_offsets(h, 0, 0, root, offset);
            for (int r = 0; r < nranks; r++) {
                ck_assert(MPII_Hier_hierarchy_block_at(h, col, r) == (r - root + nranks) % nranks);
                ck_assert(offset[r] == r);
            }
            continue;
        }
        for (int r = 0; r < nranks; r++)
            MPII_Hier_hierarchy_steps(h, col, r, &place[r * (n + 1)]);
        for (int i = 0; i < nranks * nranks; i++)
            stage[i] = -1;
        for (int r = 0; r < nranks; r++)
            stage[r * nranks + MPII_Hier_hierarchy_finest_pos(h, r)] = r;
        /* the finest step: rank order at the leader */
        for (int r = 0; r < nranks; r++) {
            const MPII_Hier_step_place *p = &place[r * (n + 1) + n];
            if (p->in && p->pos != p->root) {
                const MPII_Hier_level *fin = &h->level[n - 1];
                int leader = fin->members[fin->group_start[p->instance] + p->root];
                stage[leader * nranks + p->pos] = r;
            }
        }
        /* the tree steps, finest first */
        for (int k = n - 1; k >= 0; k--) {
            for (int r = 0; r < nranks; r++) {
                const MPII_Hier_step_place *p = &place[r * (n + 1) + k];
                if (!p->in || p->pos == p->root)
                    continue;
                int leader = -1;
                for (int s = 0; s < nranks && leader < 0; s++) {
                    const MPII_Hier_step_place *q = &place[s * (n + 1) + k];
                    if (q->in && q->instance == p->instance && q->pos == q->root)
                        leader = s;
                }
                ck_assert_int_ge(leader, 0);
                MPII_Hier_hierarchy_step_offsets(h, k, p->instance, p->root, offset);
                int rel = (p->pos - p->root + p->size) % p->size;
                long long len = offset[rel + 1] - offset[rel];
                ck_assert(len == MPII_Hier_hierarchy_group_size(h, k, h->level[k].group_of[r]));
                for (long long i = 0; i < len; i++) {
                    ck_assert_int_ge(stage[r * nranks + i], 0);   /* gathered below */
                    stage[leader * nranks + offset[rel] + i] = stage[r * nranks + i];
                }
            }
        }
        for (int r = 0; r < nranks; r++)
            ck_assert_int_eq(stage[root * nranks + MPII_Hier_hierarchy_block_at(h, col, r)], r);
        /* every group is one run, from where its leader stands less its finest position */
        for (int l = 0; l < n; l++) {
            const MPII_Hier_level *lv = &h->level[l];
            for (int g = 0; g < lv->ngroups; g++) {
                int leader = MPII_Hier_hierarchy_leader(h, l, g, col);
                long long first = MPII_Hier_hierarchy_finest_start(h, col, leader);
                int size = MPII_Hier_hierarchy_group_size(h, l, g);
                for (int i = 0; i < size; i++) {
                    long long at = MPII_Hier_hierarchy_block_at(h, col,
                                                                lv->members[lv->group_start[g] + i]);
                    ck_assert(at >= first && at < first + size);
                }
            }
        }
    }
    free(place);
    free(offset);
    free(hit);
    free(stage);
    free(col);
}

/* Everything hier_hierarchy.h promises, checked by brute force; returns the kept levels. */
static int check_hierarchy(int nranks, int depth, const long *keys)
{
    MPII_Hier_hierarchy h;
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, depth, keys), 0);
    ck_assert_int_eq(h.nranks, nranks);

    /* the kept levels: exactly those that split something */
    int l = 0;
    for (int k = 0; k < depth; k++) {
        int n = count_groups(keys, nranks, depth, k), above = count_groups(keys, nranks, depth, k - 1);
        if (n != above && n != nranks) {
            ck_assert_int_lt(l, h.nlevels);
            ck_assert_int_eq(h.level[l].source, k);
            ck_assert_int_eq(h.level[l].ngroups, n);
            l++;
        }
    }
    ck_assert_int_eq(l, h.nlevels);

    for (l = 0; l < h.nlevels; l++) {
        const MPII_Hier_level *lv = &h.level[l];
        int last_lowest = -1;
        for (int g = 0; g < lv->ngroups; g++) {
            int size = MPII_Hier_hierarchy_group_size(&h, l, g);
            ck_assert_int_gt(size, 0);
            /* numbered by lowest rank, members ascending and all of the same prefix */
            ck_assert_int_gt(lv->members[lv->group_start[g]], last_lowest);
            last_lowest = lv->members[lv->group_start[g]];
            for (int i = 0; i < size; i++) {
                int r = lv->members[lv->group_start[g] + i];
                ck_assert_int_eq(lv->group_of[r], g);
                ck_assert_int_eq(lv->local_of[r], i);
                if (i > 0)
                    ck_assert_int_gt(r, lv->members[lv->group_start[g] + i - 1]);
            }
            /* subgroups: the next level's groups inside g, ascending */
            if (l + 1 < h.nlevels) {
                const MPII_Hier_level *next = &h.level[l + 1];
                int nsubs = MPII_Hier_hierarchy_nsubs(&h, l, g), seen = 0;
                ck_assert_int_ge(nsubs, 1);
                for (int s = 0; s < next->ngroups; s++) {
                    if (next->parent[s] != g)
                        continue;
                    ck_assert_int_lt(seen, nsubs);
                    ck_assert_int_eq(lv->subs[lv->sub_start[g] + seen], s);
                    seen++;
                }
                ck_assert_int_eq(seen, nsubs);
            } else {
                ck_assert_int_eq(MPII_Hier_hierarchy_nsubs(&h, l, g), 0);
            }
        }
        /* same group iff same prefix up to the level's source */
        for (int r = 0; r < nranks; r++)
            for (int s = 0; s < nranks; s++)
                ck_assert_int_eq(lv->group_of[r] == lv->group_of[s],
                                 same_prefix(keys, depth, r, s, lv->source));
        /* nested: a group lies inside its parent */
        if (l > 0)
            for (int r = 0; r < nranks; r++)
                ck_assert_int_eq(lv->parent[lv->group_of[r]], h.level[l - 1].group_of[r]);
    }

    /* leaders, for every root */
    int *col = malloc(sizeof(int) * (h.nlevels + 1));
    for (int root = 0; root < nranks && h.nlevels > 0; root++) {
        MPII_Hier_hierarchy_columns(&h, root, col);
        for (l = 0; l < h.nlevels; l++) {
            const MPII_Hier_level *lv = &h.level[l];
            /* the root leads each of its groups */
            ck_assert_int_eq(MPII_Hier_hierarchy_leader(&h, l, lv->group_of[root], col), root);
            for (int g = 0; g < lv->ngroups; g++) {
                int leader = MPII_Hier_hierarchy_leader(&h, l, g, col);
                ck_assert_int_eq(lv->group_of[leader], g);
                /* and leads its own subgroup: the step below starts where the data is */
                if (l + 1 < h.nlevels) {
                    int sub = h.level[l + 1].group_of[leader];
                    ck_assert_int_eq(MPII_Hier_hierarchy_leader(&h, l + 1, sub, col), leader);
                }
            }
        }
    }
    free(col);
    if (h.nlevels > 0)
        check_steps(&h);
    if (h.nlevels > 0 && MPII_Hier_hierarchy_is_rank_ordered(&h))
        check_member_starts(&h);
    check_gathered_layout(&h);
    int nlevels = h.nlevels;
    MPII_Hier_hierarchy_free(&h);
    ck_assert_ptr_null(h.level);
    return nlevels;
}

/* keys of a layout: nsw switches, node n under switch (n mod nsw) or in blocks, node n
 * holding ppn[n] ranks, npkg packages per node; ranks placed by block (node after node) or
 * round-robin over the nodes.  Returns nranks. */
static int layout(int nsw, int nnodes, const int *ppn, int npkg, int round_robin, long *keys)
{
    int nranks = 0, left[16], place[16] = { 0 };
    for (int n = 0; n < nnodes; n++)
        nranks += left[n] = ppn[n];
    for (int r = 0, n = 0; r < nranks; r++) {
        if (round_robin)
            while (left[n] == 0)
                n = (n + 1) % nnodes;
        else
            while (left[n] == 0)
                n++;
        keys[r * 3 + 0] = 100 + n % nsw;
        keys[r * 3 + 1] = n;
        keys[r * 3 + 2] = place[n] % npkg;
        place[n]++;
        left[n]--;
        if (round_robin)
            n = (n + 1) % nnodes;
    }
    return nranks;
}

START_TEST(hierarchy_every_layout)
{
    long keys[3 * 16 * 4];
    int ppn[16];
    for (int nsw = 1; nsw <= 3; nsw++)
        for (int nnodes = 1; nnodes <= 6; nnodes++)
            for (int shape = 0; shape < 4; shape++)     /* even 1, 2, 3; uneven */
                for (int npkg = 1; npkg <= 2; npkg++)
                    for (int rr = 0; rr <= 1; rr++) {
                        for (int n = 0; n < nnodes; n++)
                            ppn[n] = shape < 3 ? shape + 1 : 1 + (n * 7) % 4;
                        int nranks = layout(nsw, nnodes, ppn, npkg, rr, keys);
                        int nlevels = check_hierarchy(nranks, 3, keys);
                        ck_assert_int_le(nlevels, 3);
                    }
}
END_TEST

/* block placements keep rank order at every level unless switches interleave the nodes
 * (layout puts node n under switch n mod nsw; packages, which it deals out round-robin,
 * are left out); round-robin over nodes with two or more ranks
 * on some node never does */
START_TEST(hierarchy_rank_order)
{
    long keys[3 * 16 * 4];
    int ppn[16];
    for (int nsw = 1; nsw <= 3; nsw++)
        for (int nnodes = 2; nnodes <= 6; nnodes++)
            for (int shape = 1; shape < 4; shape++)     /* even 2, 3; uneven (by block only:
                                                         * dealt out, it may end in blocks) */
                for (int rr = 0; rr <= (shape < 3); rr++) {
                    for (int n = 0; n < nnodes; n++)
                        ppn[n] = shape < 3 ? shape + 1 : 1 + (n * 7) % 4;
                    int nranks = layout(nsw, nnodes, ppn, 1, rr, keys);
                    MPII_Hier_hierarchy h;
                    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 3, keys), 0);
                    ck_assert_int_eq(MPII_Hier_hierarchy_is_rank_ordered(&h), !rr && (nsw == 1 || nnodes <= nsw));
                    MPII_Hier_hierarchy_free(&h);
                }
}
END_TEST

/* The hierarchical-communicators paper's section 5.1: 32 processes on 4 nodes, rank x bound
 * to core i = x mod 8 of node x / 8; per node 2 packages (= NUMA node = L3 cache) of 4
 * cores.  Key columns: node, package, NUMA node, L3 cache. */
static void paper_keys(long *keys, int unbound_rank)
{
    for (int x = 0; x < 32; x++) {
        keys[x * 4 + 0] = x / 8;
        for (int k = 1; k < 4; k++)
            keys[x * 4 + k] = x == unbound_rank ? -1 : (x % 8) / 4;
    }
}

/* the keys of the listed ranks, as a communicator of them sees them */
static void sub_keys(const long *keys, int depth, int n, const int *ranks, long *out)
{
    for (int i = 0; i < n; i++)
        memcpy(&out[i * depth], &keys[ranks[i] * depth], sizeof(long) * depth);
}

START_TEST(mpix_split_paper_example)
{
    long keys[32 * 4], sub[32 * 4];
    int group_of[32], ngroups, ranks[32];
    paper_keys(keys, -1);
    /* step 1: MPI_COMM_WORLD -> the nodes, {p8k .. p8k+7} */
    ck_assert_int_eq(MPII_Hier_keys_split(32, 4, keys, group_of, &ngroups), 0);
    ck_assert_int_eq(ngroups, 4);
    for (int x = 0; x < 32; x++)
        ck_assert_int_eq(group_of[x], x / 8);
    /* step 2: node 0 -> its packages, {p4i .. p4i+3} */
    for (int i = 0; i < 8; i++)
        ranks[i] = i;
    sub_keys(keys, 4, 8, ranks, sub);
    ck_assert_int_eq(MPII_Hier_keys_split(8, 4, sub, group_of, &ngroups), 1);
    ck_assert_int_eq(ngroups, 2);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(group_of[i], i / 4);
    /* step 3: a package: NUMA node and L3 cache are the package again, nothing splits: the
     * bottom (MPI_COMM_NULL) */
    sub_keys(keys, 4, 4, ranks, sub);
    ck_assert_int_eq(MPII_Hier_keys_split(4, 4, sub, group_of, &ngroups), -1);
    ck_assert_int_eq(ngroups, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(group_of[i], -1);
    /* one rank per node: the nodes split it into single ranks, still a split */
    for (int i = 0; i < 4; i++)
        ranks[i] = i * 8;
    sub_keys(keys, 4, 4, ranks, sub);
    ck_assert_int_eq(MPII_Hier_keys_split(4, 4, sub, group_of, &ngroups), 0);
    ck_assert_int_eq(ngroups, 4);
    /* an unbound rank on node 0 gets no package communicator (3.2.4); the others keep
     * theirs, numbered without it */
    paper_keys(keys, 1);
    for (int i = 0; i < 8; i++)
        ranks[i] = i;
    sub_keys(keys, 4, 8, ranks, sub);
    ck_assert_int_eq(MPII_Hier_keys_split(8, 4, sub, group_of, &ngroups), 1);
    ck_assert_int_eq(ngroups, 2);
    ck_assert_int_eq(group_of[0], 0);
    ck_assert_int_eq(group_of[1], -1);
    ck_assert_int_eq(group_of[2], 0);
    ck_assert_int_eq(group_of[4], 1);
}
END_TEST

START_TEST(mpix_min_level_paper_example)
{
    long keys[32 * 4];
    paper_keys(keys, 9);
    int cores[] = { 0, 1 }, packages[] = { 0, 5 }, nodes[] = { 2, 12 }, unbound[] = { 9, 10 };
    int cluster[] = { 3, 30, 31 }, alone[] = { 17 };
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 2, cores), 3);      /* their L3 cache */
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 2, packages), 0);   /* the node */
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 2, nodes), -1);     /* the cluster */
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 3, cluster), -1);
    /* an unbound rank shares no level below the node, even with itself */
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 2, unbound), 0);
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 1, unbound), 0);
    ck_assert_int_eq(MPII_Hier_keys_common(4, keys, 1, alone), 3);
}
END_TEST

START_TEST(hierarchy_levels_that_split_nothing_are_dropped)
{
    long keys[3 * 16 * 4];
    int ppn[4] = { 2, 2, 2, 2 };
    /* 2 switches x 2 nodes x 2 ranks, one package: switch and node levels */
    int nranks = layout(2, 4, ppn, 1, 0, keys);
    MPII_Hier_hierarchy h;
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 3, keys), 0);
    ck_assert_int_eq(h.nlevels, 2);
    ck_assert_int_eq(h.level[0].source, 0);
    ck_assert_int_eq(h.level[0].ngroups, 2);
    ck_assert_int_eq(h.level[1].source, 1);
    ck_assert_int_eq(h.level[1].ngroups, 4);
    MPII_Hier_hierarchy_free(&h);
    /* one switch: the node level only */
    nranks = layout(1, 4, ppn, 1, 0, keys);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 3, keys), 0);
    ck_assert_int_eq(h.nlevels, 1);
    ck_assert_int_eq(h.level[0].source, 1);
    MPII_Hier_hierarchy_free(&h);
    /* one rank per node under 2 switches: the switch level only (nodes would be single ranks) */
    int one[4] = { 1, 1, 1, 1 };
    nranks = layout(2, 4, one, 1, 0, keys);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 3, keys), 0);
    ck_assert_int_eq(h.nlevels, 1);
    ck_assert_int_eq(h.level[0].source, 0);
    MPII_Hier_hierarchy_free(&h);
    /* 2 packages per node of 2 ranks: single ranks, dropped; 4 ranks per node: kept */
    int four[2] = { 4, 4 };
    nranks = layout(1, 2, four, 2, 0, keys);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 3, keys), 0);
    ck_assert_int_eq(h.nlevels, 2);
    ck_assert_int_eq(h.level[1].source, 2);
    ck_assert_int_eq(h.level[1].ngroups, 4);
    MPII_Hier_hierarchy_free(&h);
}
END_TEST

START_TEST(hierarchy_degenerate_inputs)
{
    long same[8] = { 7, 7, 7, 7, 7, 7, 7, 7 }, distinct[4] = { 1, 2, 3, 4 };
    MPII_Hier_hierarchy h;
    ck_assert_int_eq(check_hierarchy(1, 1, same), 0);   /* one rank */
    ck_assert_int_eq(check_hierarchy(8, 1, same), 0);   /* one group */
    ck_assert_int_eq(check_hierarchy(4, 1, distinct), 0);       /* every rank alone */
    ck_assert_int_eq(check_hierarchy(4, 2, same), 0);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, 3, 0, NULL), 0);     /* no keys at all */
    ck_assert_int_eq(h.nlevels, 0);
    MPII_Hier_hierarchy_free(&h);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, 0, 1, same), -1);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, 2, -1, same), -1);
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, 2, 1, NULL), -1);
}
END_TEST

/* random paths: up to 4 levels, each key drawn from a small range, so that some levels
 * split, some do not, and groups of one level reuse the keys of another's */
START_TEST(hierarchy_random_placements)
{
    srand(12345);
    for (int trial = 0; trial < 300; trial++) {
        int nranks = 1 + rand() % 24, depth = 1 + rand() % 4;
        long keys[24 * 4];
        int range[4];
        for (int k = 0; k < depth; k++)
            range[k] = 1 + rand() % 3;
        for (int r = 0; r < nranks; r++)
            for (int k = 0; k < depth; k++)
                keys[r * depth + k] = rand() % range[k];
        check_hierarchy(nranks, depth, keys);
    }
}
END_TEST

/* nodes only (the node key alone): HAN's column rule, by brute force.  Nodes numbered by
 * lowest rank, members in rank order; for a root at local rank j, node n is led by its
 * member j mod size_n.  The level is kept unless comm is one node or one rank per node. */
/* The barrier's phases: every step below the top fanned in once (finest first) before the
 * top, and out once after it (coarsest first); nothing outside 0 .. 2N */
START_TEST(barrier_phases_in_top_out)
{
    for (int nsteps = 1; nsteps <= 5; nsteps++) {
        int n = nsteps - 1, in_seen = 0, out_seen = 0, top_at = -1, prev = -1, step;
        ck_assert_int_eq(MPII_HIER_BARRIER_NPHASES(nsteps), 2 * n + 1);
        for (int i = 0; i < MPII_HIER_BARRIER_NPHASES(nsteps); i++) {
            MPII_Hier_phase ph = MPII_Hier_barrier_phase(nsteps, i, &step);
            ck_assert_int_ge(step, 0);
            ck_assert_int_le(step, n);
            if (ph == MPII_HIER_PHASE_IN) {
                ck_assert_int_eq(top_at, -1);
                ck_assert(prev < 0 || step == prev - 1);
                ck_assert_int_eq(step, n - in_seen);
                in_seen++;
            } else if (ph == MPII_HIER_PHASE_TOP) {
                ck_assert_int_eq(step, 0);
                ck_assert_int_eq(top_at, -1);
                top_at = i;
            } else {
                ck_assert_int_eq(ph, MPII_HIER_PHASE_OUT);
                ck_assert_int_ge(top_at, 0);
                ck_assert_int_eq(step, ++out_seen);
            }
            prev = step;
        }
        ck_assert_int_eq(in_seen, n);
        ck_assert_int_eq(out_seen, n);
        ck_assert_int_eq(top_at, n);
        ck_assert_int_eq(MPII_Hier_barrier_phase(nsteps, -1, &step), MPII_HIER_PHASE_NONE);
        ck_assert_int_eq(step, -1);
        ck_assert_int_eq(MPII_Hier_barrier_phase(nsteps, 2 * n + 1, &step),
                         MPII_HIER_PHASE_NONE);
    }
    int step;
    ck_assert_int_eq(MPII_Hier_barrier_phase(0, 0, &step), MPII_HIER_PHASE_NONE);
}

END_TEST

START_TEST(hierarchy_two_levels_are_the_column_rule)
{
    srand(777);
    for (int trial = 0; trial < 300; trial++) {
        int nranks = 1 + rand() % 16, nnodes = 1 + rand() % 5;
        long keys[16];
        int node_of[16], local_of[16], size_of[16], first_of[16], found = 0;
        for (int r = 0; r < nranks; r++)
            keys[r] = 100 + rand() % nnodes;    /* non-consecutive ids */
        for (int r = 0; r < nranks; r++) {
            int n = 0;
            while (n < found && keys[first_of[n]] != keys[r])
                n++;
            if (n == found) {
                first_of[found++] = r;
                size_of[n] = 0;
            }
            node_of[r] = n;
            local_of[r] = size_of[n]++;
        }
        int max_ppn = 0;
        for (int n = 0; n < found; n++)
            max_ppn = size_of[n] > max_ppn ? size_of[n] : max_ppn;
        MPII_Hier_hierarchy h;
        ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, nranks, 1, keys), 0);
        ck_assert_int_eq(h.nlevels, found > 1 && max_ppn > 1 ? 1 : 0);
        for (int r = 0; r < nranks && h.nlevels == 1; r++) {
            ck_assert_int_eq(h.level[0].group_of[r], node_of[r]);
            ck_assert_int_eq(h.level[0].local_of[r], local_of[r]);
        }
        for (int root = 0; root < nranks && h.nlevels == 1; root++) {
            int col[2];
            MPII_Hier_hierarchy_columns(&h, root, col);
            ck_assert_int_eq(col[1], local_of[root]);
            for (int n = 0; n < found; n++) {
                int leader = MPII_Hier_hierarchy_leader(&h, 0, n, col);
                ck_assert_int_eq(node_of[leader], n);
                ck_assert_int_eq(local_of[leader], local_of[root] % size_of[n]);
            }
        }
        MPII_Hier_hierarchy_free(&h);
    }
}
END_TEST

START_TEST(topology_slurm_addresses)
{
    char path[MPII_HIER_SWITCH_PATH_MAX];
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("s0.s3.n12", "switch.switch.node", path, sizeof path), 2);
    ck_assert_str_eq(path, "s0.s3");
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("leaf1.n2", "switch.node", path, sizeof path), 1);
    ck_assert_str_eq(path, "leaf1");
    /* no topology plugin: no switches */
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("n2", "node", path, sizeof path), 0);
    ck_assert_str_eq(path, "");
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm(NULL, NULL, path, sizeof path), 0);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("", "", path, sizeof path), 0);
    /* mismatches */
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("s0.n1", "switch.switch.node", path, sizeof path), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("s0.s1.n1", "switch.node", path, sizeof path), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("s0.n1", "rack.node", path, sizeof path), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("s0..n1", "switch.switch.node", path, sizeof path), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("n1.s0", "node.switch", path, sizeof path), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("spine.leaf.n1", "switch.switch.node", path, 6), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_slurm("a.b.c.d.e.f.g.h.i.n",
                                                      "switch.switch.switch.switch.switch.switch.switch.switch.switch.node",
                                                      path, sizeof path), -1);  /* 9 levels */
}
END_TEST

START_TEST(topology_files)
{
    const char *text = "# leaf switches under one spine\n"
        "node1 spine leafA   # two levels\n"
        "\n"
        "node10\tspine leafB\n" "node2 spine leafA\n";
    char path[MPII_HIER_SWITCH_PATH_MAX];
    int bad = 0;
    ck_assert_int_eq(MPII_Hier_switch_path_from_file(text, "node1", path, sizeof path, &bad), 2);
    ck_assert_str_eq(path, "spine.leafA");
    ck_assert_int_eq(MPII_Hier_switch_path_from_file(text, "node10", path, sizeof path, &bad), 2);
    ck_assert_str_eq(path, "spine.leafB");      /* not node1's line */
    ck_assert_int_eq(MPII_Hier_switch_path_from_file(text, "node3", path, sizeof path, &bad), 0);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("", "node1", path, sizeof path, &bad), 0);
    /* malformed, with the line */
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("a s\nb s\na t\n", "a", path, sizeof path, &bad), -1);
    ck_assert_int_eq(bad, 3);
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("a s.t\n", "b", path, sizeof path, &bad), -1);
    ck_assert_int_eq(bad, 1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("a s\n\nb\n", "a", path, sizeof path, &bad), -1);
    ck_assert_int_eq(bad, 3);
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("a 1 2 3 4 5 6 7 8 9\n", "a", path, sizeof path, &bad), -1);
    ck_assert_int_eq(MPII_Hier_switch_path_from_file("a spine leaf\n", "a", path, 8, &bad), -1);
}
END_TEST

START_TEST(topology_keys_from_paths)
{
    const char *paths[] = { "a.x", "a.x", "a.y", "b.z", "a.y" };
    long keys[10];
    ck_assert_int_eq(MPII_Hier_switch_keys_depth(5, paths), 2);
    MPII_Hier_switch_keys(5, paths, 2, keys);
    long want[10] = { 0, 0, 0, 0, 0, 2, 3, 3, 0, 2 };
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(keys[i], want[i]);
    /* aligned at the leaf: "x" has an unnamed top, so it is not under "a" */
    const char *mixed[] = { "x", "a.x", "x", "" };
    ck_assert_int_eq(MPII_Hier_switch_keys_depth(4, mixed), 2);
    MPII_Hier_switch_keys(4, mixed, 2, keys);
    long want_mixed[8] = { 0, 0, 1, 1, 0, 0, 0, 3 };
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(keys[i], want_mixed[i]);
    /* a prefix of a name is not the name */
    const char *names[] = { "ab", "a" };
    MPII_Hier_switch_keys(2, names, 1, keys);
    ck_assert_int_eq(keys[1], 1);
}
END_TEST

/* 2 leaf switches x 2 nodes x 2 ranks from a topology file: switch and node levels */
START_TEST(topology_switch_levels_feed_the_hierarchy)
{
    const char *text = "n0 spine leaf0\nn1 spine leaf0\nn2 spine leaf1\nn3 spine leaf1\n";
    const char *host[8] = { "n0", "n2", "n1", "n3", "n0", "n2", "n1", "n3" };  /* round-robin */
    char storage[8][MPII_HIER_SWITCH_PATH_MAX];
    const char *paths[8];
    int bad;
    for (int r = 0; r < 8; r++) {
        ck_assert_int_eq(MPII_Hier_switch_path_from_file(text, host[r], storage[r], MPII_HIER_SWITCH_PATH_MAX,
                                                         &bad), 2);
        paths[r] = storage[r];
    }
    int depth = MPII_Hier_switch_keys_depth(8, paths);
    long switch_keys[16], keys[24];
    MPII_Hier_switch_keys(8, paths, depth, switch_keys);
    for (int r = 0; r < 8; r++) {
        keys[r * 3 + 0] = switch_keys[r * 2 + 0];       /* the spine: splits nothing */
        keys[r * 3 + 1] = switch_keys[r * 2 + 1];
        keys[r * 3 + 2] = host[r][1] - '0';     /* the node */
    }
    MPII_Hier_hierarchy h;
    ck_assert_int_eq(MPII_Hier_hierarchy_build(&h, 8, 3, keys), 0);
    ck_assert_int_eq(h.nlevels, 2);
    ck_assert_int_eq(h.level[0].source, 1);
    ck_assert_int_eq(h.level[0].ngroups, 2);
    ck_assert_int_eq(h.level[1].ngroups, 4);
    /* leaf0 holds n0 and n1: ranks 0, 2, 4, 6 */
    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(h.level[0].group_of[r], r % 2);
    MPII_Hier_hierarchy_free(&h);
    check_hierarchy(8, 3, keys);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier hierarchies");
    TCase *tc = tcase_create("hierarchy");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hierarchy_every_layout);
    tcase_add_test(tc, hierarchy_rank_order);
    tcase_add_test(tc, mpix_split_paper_example);
    tcase_add_test(tc, mpix_min_level_paper_example);
    tcase_add_test(tc, hierarchy_levels_that_split_nothing_are_dropped);
    tcase_add_test(tc, hierarchy_degenerate_inputs);
    tcase_add_test(tc, hierarchy_random_placements);
    tcase_add_test(tc, hierarchy_two_levels_are_the_column_rule);
    tcase_add_test(tc, barrier_phases_in_top_out);
    tcase_add_test(tc, topology_slurm_addresses);
    tcase_add_test(tc, topology_files);
    tcase_add_test(tc, topology_keys_from_paths);
    tcase_add_test(tc, topology_switch_levels_feed_the_hierarchy);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
