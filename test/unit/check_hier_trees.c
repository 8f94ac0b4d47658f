/*
 * Unit tests of mpich-hier's tree shapes (hier_trees.c).
 *
 * Every kind is checked for every size 1..MAX_SIZE and every root.  The loops run
 * about a million node builds, so conditions are tested in plain C and check is
 * called only on failure (each ck_assert would otherwise log a mark point).
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "hier_trees.h"

#define MAX_SIZE 64
#define MAX_FANOUT 4

#define EXPECT(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

static const char *kind_name[MPII_HIER_TREE_NKINDS] = {
    "linear", "chain", "pipeline", "binary", "split_binary", "binomial", "in_order_binary"
};

static int rel_of(int rank, int size, int root)
{
    return (rank - root + size) % size;
}

static int rank_of(int rel, int size, int root)
{
    return (rel + root) % size;
}

static int floor_log2(int x)
{
    int l = 0;
    while (x > 1) {
        x /= 2;
        l++;
    }
    return l;
}

static int ceil_log2(int x)
{
    int l = 0;
    while ((1 << l) < x)
        l++;
    return l;
}

/* All ranks' views of one tree, plus what a walk from the top learned. */
typedef struct {
    MPII_Hier_tree_kind kind;
    int size, root, fanout, top;
    MPII_Hier_tree_node node[MAX_SIZE];
    int depth[MAX_SIZE];
    int subtree[MAX_SIZE];      /* ranks in the subtree of each rank */
    int max_depth;
} tree_t;

static void tree_build(tree_t * t, MPII_Hier_tree_kind kind, int size, int root, int fanout)
{
    t->kind = kind;
    t->size = size;
    t->root = root;
    t->fanout = fanout;
    t->top = MPII_Hier_tree_top(kind, size, root);
    EXPECT(t->top >= 0 && t->top < size, "%s size %d root %d: top %d",
           kind_name[kind], size, root, t->top);
    for (int rank = 0; rank < size; rank++) {
        int rc = MPII_Hier_tree_node_init(&t->node[rank], kind, size, root, fanout, rank);
        EXPECT(rc == 0, "%s size %d root %d fanout %d rank %d: init failed",
               kind_name[kind], size, root, fanout, rank);
    }
}

static void tree_free(tree_t * t)
{
    for (int rank = 0; rank < t->size; rank++)
        MPII_Hier_tree_node_free(&t->node[rank]);
}

static int subtree_size(tree_t * t, int rank)
{
    int n = 1;
    for (int i = 0; i < t->node[rank].nchildren; i++)
        n += subtree_size(t, t->node[rank].children[i]);
    t->subtree[rank] = n;
    return n;
}

/* Links agree, the walk from the top reaches every rank exactly once, depths known. */
static void check_links_and_walk(tree_t * t)
{
    int stack[MAX_SIZE], nstack = 0, visited[MAX_SIZE] = { 0 }, nvisited = 0;
    const char *kn = kind_name[t->kind];

    for (int rank = 0; rank < t->size; rank++) {
        const MPII_Hier_tree_node *nd = &t->node[rank];
        if (rank == t->top)
            EXPECT(nd->parent == -1, "%s size %d root %d: top's parent %d",
                   kn, t->size, t->root, nd->parent);
        else
            EXPECT(nd->parent >= 0 && nd->parent < t->size && nd->parent != rank,
                   "%s size %d root %d fanout %d: rank %d has parent %d",
                   kn, t->size, t->root, t->fanout, rank, nd->parent);
        EXPECT(nd->nchildren >= 0 && nd->nchildren < t->size,
               "%s size %d: rank %d has %d children", kn, t->size, rank, nd->nchildren);
        EXPECT((nd->nchildren == 0) == (nd->children == NULL),
               "%s size %d: rank %d children array vs count", kn, t->size, rank);
        for (int i = 0; i < nd->nchildren; i++) {
            int c = nd->children[i];
            EXPECT(c >= 0 && c < t->size, "%s size %d: child %d out of range", kn, t->size, c);
            EXPECT(t->node[c].parent == rank,
                   "%s size %d root %d fanout %d: child %d of %d names parent %d",
                   kn, t->size, t->root, t->fanout, c, rank, t->node[c].parent);
        }
    }

    t->depth[t->top] = 0;
    t->max_depth = 0;
    stack[nstack++] = t->top;
    while (nstack > 0) {
        int rank = stack[--nstack];
        EXPECT(!visited[rank], "%s size %d root %d fanout %d: rank %d reached twice",
               kn, t->size, t->root, t->fanout, rank);
        visited[rank] = 1;
        nvisited++;
        if (t->depth[rank] > t->max_depth)
            t->max_depth = t->depth[rank];
        for (int i = 0; i < t->node[rank].nchildren; i++) {
            int c = t->node[rank].children[i];
            EXPECT(nstack < MAX_SIZE, "%s size %d: walk overflows", kn, t->size);
            t->depth[c] = t->depth[rank] + 1;
            stack[nstack++] = c;
        }
    }
    EXPECT(nvisited == t->size, "%s size %d root %d fanout %d: walk reached %d ranks",
           kn, t->size, t->root, t->fanout, nvisited);
    subtree_size(t, t->top);
}

static int depth_bound(MPII_Hier_tree_kind kind, int size, int fanout)
{
    switch (kind) {
        case MPII_HIER_TREE_LINEAR:
            return size > 1 ? 1 : 0;
        case MPII_HIER_TREE_CHAIN:
            return (size - 1 + fanout - 1) / fanout;
        case MPII_HIER_TREE_PIPELINE:
            return size - 1;
        case MPII_HIER_TREE_BINARY:
        case MPII_HIER_TREE_SPLIT_BINARY:
            return floor_log2(size);
        case MPII_HIER_TREE_BINOMIAL:
            return ceil_log2(size);
        case MPII_HIER_TREE_IN_ORDER_BINARY:
            return ceil_log2(size + 1);
        default:
            return -1;
    }
}

/* The exact shape each kind promises, on relative ranks. */
static void check_shape(const tree_t * t)
{
    const char *kn = kind_name[t->kind];
    int size = t->size, root = t->root;

    for (int rank = 0; rank < size; rank++) {
        const MPII_Hier_tree_node *nd = &t->node[rank];
        int r = rel_of(rank, size, root);
        int pr = nd->parent < 0 ? -1 : rel_of(nd->parent, size, root);

        switch (t->kind) {
            case MPII_HIER_TREE_LINEAR:
                EXPECT(r == 0 || pr == 0, "%s: rank %d not fed by root", kn, rank);
                if (r == 0)
                    for (int i = 0; i < nd->nchildren; i++)
                        EXPECT(rel_of(nd->children[i], size, root) == i + 1,
                               "%s size %d: root's child %d out of order", kn, size, i);
                break;
            case MPII_HIER_TREE_PIPELINE:
                EXPECT(r == 0 || pr == r - 1, "%s size %d root %d: rank %d parent %d",
                       kn, size, root, rank, nd->parent);
                break;
            case MPII_HIER_TREE_BINARY:
            case MPII_HIER_TREE_SPLIT_BINARY:
                EXPECT(r == 0 || pr == (r - 1) / 2, "%s size %d root %d: rank %d parent %d",
                       kn, size, root, rank, nd->parent);
                for (int i = 0; i < nd->nchildren; i++)
                    EXPECT(rel_of(nd->children[i], size, root) == 2 * r + 1 + i,
                           "%s size %d: children of %d out of order", kn, size, rank);
                break;
            case MPII_HIER_TREE_BINOMIAL:
                EXPECT(r == 0 || pr == (r & (r - 1)), "%s size %d root %d: rank %d parent %d",
                       kn, size, root, rank, nd->parent);
                /* largest subtree first, as MPICH: child r + 2^i heads a subtree of at
                 * most 2^i ranks (all 2^i unless cut by size), so 2^i must decrease */
                for (int i = 0; i < nd->nchildren; i++) {
                    int c = nd->children[i], step = rel_of(c, size, root) - r;
                    EXPECT(step > 0 && (step & (step - 1)) == 0 && t->subtree[c] <= step &&
                           (t->subtree[c] == step || rel_of(c, size, root) + t->subtree[c] == size),
                           "%s size %d root %d: child %d of %d heads %d ranks",
                           kn, size, root, c, rank, t->subtree[c]);
                    if (i > 0)
                        EXPECT(rel_of(nd->children[i - 1], size, root) > rel_of(c, size, root),
                               "%s size %d root %d: children of %d out of order",
                               kn, size, root, rank);
                }
                {
                    /* every child r + 2^i with 2^i below r's lowest set bit is there */
                    int low = r ? (r & -r) : 1 << ceil_log2(size), expect = 0;
                    for (int m = 1; m < low; m *= 2)
                        if (r + m < size)
                            expect++;
                    EXPECT(nd->nchildren == expect, "%s size %d: rank %d has %d children",
                           kn, size, rank, nd->nchildren);
                }
                break;
            default:
                break;
        }
    }
}

static void check_chain_runs(const tree_t * t)
{
    int size = t->size, root = t->root;
    int nchains = t->fanout < size - 1 ? t->fanout : size - 1;
    const MPII_Hier_tree_node *top = &t->node[root];
    int next_head = 1, prev_len = size;

    EXPECT(top->nchildren == nchains, "chain size %d fanout %d: root has %d children",
           size, t->fanout, top->nchildren);
    for (int j = 0; j < top->nchildren; j++) {
        /* runs are consecutive relative ranks, in order, each one fed by the one before */
        int rank = top->children[j], len = 0;
        EXPECT(rel_of(rank, size, root) == next_head,
               "chain size %d root %d fanout %d: run %d starts at %d", size, root,
               t->fanout, j, rel_of(rank, size, root));
        for (;;) {
            const MPII_Hier_tree_node *nd = &t->node[rank];
            EXPECT(rel_of(rank, size, root) == next_head + len, "chain: run %d not consecutive",
                   j);
            len++;
            EXPECT(nd->nchildren <= 1, "chain: rank %d has %d children", rank, nd->nchildren);
            if (nd->nchildren == 0)
                break;
            rank = nd->children[0];
        }
        EXPECT(len <= prev_len, "chain size %d fanout %d: run %d longer than the one before",
               size, t->fanout, j);
        EXPECT(len >= (size - 1) / nchains && len <= (size - 1 + nchains - 1) / nchains,
               "chain size %d fanout %d: run %d has length %d", size, t->fanout, j, len);
        prev_len = len;
        next_head += len;
    }
    EXPECT(size == 1 || next_head == size, "chain size %d: runs cover %d ranks", size,
           next_head - 1);
}

static void check_tree(MPII_Hier_tree_kind kind, int size, int root, int fanout)
{
    tree_t t;
    int bound = depth_bound(kind, size, fanout);

    tree_build(&t, kind, size, root, fanout);
    check_links_and_walk(&t);
    EXPECT(t.max_depth <= bound, "%s size %d root %d fanout %d: depth %d > %d",
           kind_name[kind], size, root, fanout, t.max_depth, bound);
    check_shape(&t);
    if (kind == MPII_HIER_TREE_CHAIN)
        check_chain_runs(&t);
    tree_free(&t);
}

/* ---- every kind, every size, every root ---- */

START_TEST(trees_linear)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++)
            check_tree(MPII_HIER_TREE_LINEAR, size, root, 1);
}
END_TEST

START_TEST(trees_chain)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++)
            for (int fanout = 1; fanout <= MAX_FANOUT; fanout++)
                check_tree(MPII_HIER_TREE_CHAIN, size, root, fanout);
}
END_TEST

START_TEST(trees_chain_depth_is_exact)
{
    /* with k < n-1 runs the longest one sets the depth */
    for (int size = 2; size <= MAX_SIZE; size++)
        for (int fanout = 1; fanout <= MAX_FANOUT; fanout++) {
            tree_t t;
            tree_build(&t, MPII_HIER_TREE_CHAIN, size, size / 2, fanout);
            check_links_and_walk(&t);
            EXPECT(t.max_depth == (size - 1 + fanout - 1) / fanout,
                   "chain size %d fanout %d: depth %d", size, fanout, t.max_depth);
            tree_free(&t);
        }
}
END_TEST

START_TEST(trees_pipeline)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++) {
            tree_t t;
            check_tree(MPII_HIER_TREE_PIPELINE, size, root, 3);        /* fanout ignored */
            tree_build(&t, MPII_HIER_TREE_PIPELINE, size, root, 0);
            check_links_and_walk(&t);
            EXPECT(t.max_depth == size - 1, "pipeline size %d: depth %d", size, t.max_depth);
            tree_free(&t);
        }
}
END_TEST

START_TEST(trees_binary)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++) {
            check_tree(MPII_HIER_TREE_BINARY, size, root, 1);
            check_tree(MPII_HIER_TREE_SPLIT_BINARY, size, root, 1);
        }
}
END_TEST

START_TEST(trees_binomial)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++)
            check_tree(MPII_HIER_TREE_BINOMIAL, size, root, 1);
}
END_TEST

START_TEST(trees_binomial_small_example)
{
    /* size 6, root 2: relative 0 serves 4, 2, 1; relative 4 serves 5 */
    MPII_Hier_tree_node nd;
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, MPII_HIER_TREE_BINOMIAL, 6, 2, 0, 2), 0);
    ck_assert_int_eq(nd.parent, -1);
    ck_assert_int_eq(nd.nchildren, 3);
    ck_assert_int_eq(nd.children[0], 0);
    ck_assert_int_eq(nd.children[1], 4);
    ck_assert_int_eq(nd.children[2], 3);
    MPII_Hier_tree_node_free(&nd);
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, MPII_HIER_TREE_BINOMIAL, 6, 2, 0, 0), 0);
    ck_assert_int_eq(nd.parent, 2);
    ck_assert_int_eq(nd.nchildren, 1);
    ck_assert_int_eq(nd.children[0], 1);
    MPII_Hier_tree_node_free(&nd);
}
END_TEST

START_TEST(trees_fanout_ignored_outside_chain)
{
    for (int kind = 0; kind < MPII_HIER_TREE_NKINDS; kind++) {
        if (kind == MPII_HIER_TREE_CHAIN)
            continue;
        for (int size = 1; size <= MAX_SIZE; size += 7)
            for (int rank = 0; rank < size; rank++) {
                MPII_Hier_tree_node a, b;
                int root = size - 1 - rank / 2;
                ck_assert_int_eq(MPII_Hier_tree_node_init(&a, kind, size, root, 0, rank), 0);
                ck_assert_int_eq(MPII_Hier_tree_node_init(&b, kind, size, root, 5, rank), 0);
                ck_assert_int_eq(a.parent, b.parent);
                ck_assert_int_eq(a.nchildren, b.nchildren);
                for (int i = 0; i < a.nchildren; i++)
                    ck_assert_int_eq(a.children[i], b.children[i]);
                MPII_Hier_tree_node_free(&a);
                MPII_Hier_tree_node_free(&b);
            }
    }
}
END_TEST

/* ---- in-order binary ---- */

START_TEST(trees_in_order_binary)
{
    for (int size = 1; size <= MAX_SIZE; size++) {
        for (int root = 0; root < size; root++) {
            tree_t t;
            check_tree(MPII_HIER_TREE_IN_ORDER_BINARY, size, root, 1);
            tree_build(&t, MPII_HIER_TREE_IN_ORDER_BINARY, size, root, 1);
            check_links_and_walk(&t);
            EXPECT(t.top == size - 1, "in-order size %d: top %d", size, t.top);
            EXPECT(t.max_depth == floor_log2(size), "in-order size %d: depth %d", size,
                   t.max_depth);
            for (int rank = 0; rank < size; rank++) {
                const MPII_Hier_tree_node *nd = &t.node[rank];
                int lo, hi, next;
                MPII_Hier_tree_in_order_range(size, rank, &lo, &hi);
                EXPECT(hi == rank && lo >= 0 && lo <= hi,
                       "in-order size %d: rank %d covers [%d, %d]", size, rank, lo, hi);
                EXPECT(hi - lo + 1 == t.subtree[rank],
                       "in-order size %d: rank %d range [%d, %d] vs subtree of %d",
                       size, rank, lo, hi, t.subtree[rank]);
                if (rank == size - 1)
                    EXPECT(lo == 0, "in-order size %d: top covers [%d, %d]", size, lo, hi);
                /* children's ranges, left then right, tile [lo, hi-1] */
                next = lo;
                for (int i = 0; i < nd->nchildren; i++) {
                    int clo, chi;
                    MPII_Hier_tree_in_order_range(size, nd->children[i], &clo, &chi);
                    EXPECT(clo == next && chi == nd->children[i],
                           "in-order size %d: child %d of %d covers [%d, %d], expected from %d",
                           size, nd->children[i], rank, clo, chi, next);
                    next = chi + 1;
                }
                EXPECT(next == hi, "in-order size %d: children of %d stop at %d", size, rank,
                       next - 1);
                /* split as evenly as possible, the left part not smaller */
                if (nd->nchildren == 2) {
                    int l = nd->children[0] - lo + 1, r = hi - 1 - nd->children[0];
                    EXPECT(l == r || l == r + 1, "in-order size %d: %d splits %d/%d", size,
                           rank, l, r);
                } else {
                    EXPECT(hi - lo <= 1, "in-order size %d: %d has %d children for %d ranks",
                           size, rank, nd->nchildren, hi - lo);
                }
            }
            tree_free(&t);
        }
    }
}
END_TEST

/* Reduce with a non-commutative "op": a partial result is a run of ranks [first, last],
 * and combining a then b is legal only if b starts right after a. */
static void in_order_reduce(const tree_t * t, int rank, int *first, int *last)
{
    const MPII_Hier_tree_node *nd = &t->node[rank];
    int have = 0;
    for (int i = 0; i < nd->nchildren; i++) {
        int cf, cl;
        in_order_reduce(t, nd->children[i], &cf, &cl);
        if (have)
            EXPECT(cf == *last + 1, "in-order size %d: at %d, [%d..] after [..%d]", t->size,
                   rank, cf, *last);
        else
            *first = cf;
        *last = cl;
        have = 1;
    }
    if (have)
        EXPECT(rank == *last + 1, "in-order size %d: own data of %d after [..%d]", t->size,
               rank, *last);
    else
        *first = rank;
    *last = rank;
}

START_TEST(trees_in_order_binary_reduces_in_rank_order)
{
    for (int size = 1; size <= MAX_SIZE; size++) {
        tree_t t;
        int first, last;
        tree_build(&t, MPII_HIER_TREE_IN_ORDER_BINARY, size, size / 3, 2);
        in_order_reduce(&t, t.top, &first, &last);
        EXPECT(first == 0 && last == size - 1, "in-order size %d: result [%d, %d]", size,
               first, last);
        tree_free(&t);
    }
}
END_TEST

/* ---- recursive doubling scan ---- */

/* A partial as the ranks [lo, hi] it combines; combining a then b is defined only when b
 * starts right after a ends (the op's order): -1 marks a combination out of order */
typedef struct {
    int lo, hi;
} span_t;

static span_t span_then(span_t a, span_t b)
{
    span_t bad = { -1, -1 };
    return a.lo < 0 || b.lo < 0 || b.lo != a.hi + 1 ? bad : (span_t) { a.lo, b.hi };
}

/* Every member's exclusive prefix (the combination of the partials its lower partners
 * sent, in the order the hier scan combines them) is [0, rank - 1] and member 0's partial
 * after the rounds is [0, size - 1], the group's total, for every size */
START_TEST(trees_scan_partners_give_prefixes_in_rank_order)
{
    for (int size = 1; size <= MAX_SIZE; size++) {
        span_t part[MAX_SIZE], sent[MAX_SIZE], excl[MAX_SIZE];
        int partner[MAX_SIZE][31], rounds = -1;
        for (int r = 0; r < size; r++) {
            part[r] = (span_t) { r, r };
            excl[r] = (span_t) { -2, -2 };      /* none yet */
            int n = MPII_Hier_scan_partners(size, r, partner[r]);
            EXPECT(r == 0 || n == rounds, "scan size %d: rank %d has %d rounds", size, r, n);
            rounds = n;
        }
        for (int i = 0; i < rounds; i++) {
            for (int r = 0; r < size; r++)
                sent[r] = part[r];
            for (int r = 0; r < size; r++) {
                int p = partner[r][i];
                if (p < 0)
                    continue;
                EXPECT(partner[p][i] == r, "scan size %d round %d: %d and %d disagree", size,
                       i, r, p);
                if (p < r) {
                    excl[r] = excl[r].lo == -2 ? sent[p] : span_then(sent[p], excl[r]);
                    part[r] = span_then(sent[p], part[r]);
                } else {
                    part[r] = span_then(part[r], sent[p]);
                }
            }
        }
        EXPECT(part[0].lo == 0 && part[0].hi == size - 1, "scan size %d: total [%d, %d]",
               size, part[0].lo, part[0].hi);
        for (int r = 1; r < size; r++)
            EXPECT(excl[r].lo == 0 && excl[r].hi == r - 1, "scan size %d rank %d: [%d, %d]",
                   size, r, excl[r].lo, excl[r].hi);
        EXPECT(excl[0].lo == -2, "scan size %d: rank 0 got a prefix", size);
    }
    EXPECT(MPII_Hier_scan_partners(0, 0, NULL) == -1 && MPII_Hier_scan_partners(3, 3, NULL) == -1,
           "scan partners accept bad input");
}
END_TEST

/* ---- split binary ---- */

static void mark_subtree(const tree_t * t, int rank, int mark, int *marks)
{
    marks[rank] = mark;
    for (int i = 0; i < t->node[rank].nchildren; i++)
        mark_subtree(t, t->node[rank].children[i], mark, marks);
}

static void check_split_binary(int size, int root)
{
    tree_t t;
    int side[MAX_SIZE], unmatched[MAX_SIZE], is_unmatched[MAX_SIZE] = { 0 };
    int left[MAX_SIZE], right[MAX_SIZE], nleft = 0, nright = 0, nunmatched;
    int have[MAX_SIZE][2];

    tree_build(&t, MPII_HIER_TREE_SPLIT_BINARY, size, root, 1);
    check_links_and_walk(&t);
    for (int rank = 0; rank < size; rank++)
        side[rank] = -1;
    if (size > 1)
        mark_subtree(&t, rank_of(1, size, root), 0, side);
    if (size > 2)
        mark_subtree(&t, rank_of(2, size, root), 1, side);

    EXPECT(MPII_Hier_tree_split_binary_partner(size, root, root) == -1,
           "split size %d root %d: root has a partner", size, root);
    for (int rank = 0; rank < size; rank++) {
        int h = MPII_Hier_tree_split_binary_half(size, root, rank);
        EXPECT(h == side[rank], "split size %d root %d: rank %d says half %d, is in %d",
               size, root, rank, h, side[rank]);
    }

    nunmatched = MPII_Hier_tree_split_binary_unmatched(size, root, unmatched);
    EXPECT(nunmatched == MPII_Hier_tree_split_binary_unmatched(size, root, NULL),
           "split size %d: unmatched count depends on the array", size);
    for (int i = 0; i < nunmatched; i++) {
        EXPECT(unmatched[i] >= 0 && unmatched[i] < size && unmatched[i] != root,
               "split size %d root %d: unmatched rank %d", size, root, unmatched[i]);
        EXPECT(!is_unmatched[unmatched[i]], "split: %d listed twice", unmatched[i]);
        if (i > 0)
            EXPECT(rel_of(unmatched[i - 1], size, root) < rel_of(unmatched[i], size, root),
                   "split size %d root %d: unmatched not in relative order", size, root);
        is_unmatched[unmatched[i]] = 1;
    }

    /* the rule: i-th left rank (relative order) with i-th right rank, extras with root */
    for (int r = 1; r < size; r++) {
        int rank = rank_of(r, size, root);
        if (side[rank] == 0)
            left[nleft++] = rank;
        else
            right[nright++] = rank;
    }
    EXPECT(nleft >= nright, "split size %d: left %d < right %d", size, nleft, nright);
    for (int i = 0; i < nleft; i++) {
        int p = MPII_Hier_tree_split_binary_partner(size, root, left[i]);
        int expect = i < nright ? right[i] : root;
        EXPECT(p == expect, "split size %d root %d: left rank %d pairs with %d, not %d",
               size, root, left[i], p, expect);
    }
    for (int i = 0; i < nright; i++) {
        int p = MPII_Hier_tree_split_binary_partner(size, root, right[i]);
        EXPECT(p == left[i], "split size %d root %d: right rank %d pairs with %d, not %d",
               size, root, right[i], p, left[i]);
    }

    /* play both phases: afterwards every non-root rank has both halves */
    for (int rank = 0; rank < size; rank++) {
        have[rank][0] = have[rank][1] = (rank == root);
        if (rank != root)
            have[rank][side[rank]] = 1;
    }
    for (int rank = 0; rank < size; rank++) {
        int p, h;
        if (rank == root)
            continue;
        p = MPII_Hier_tree_split_binary_partner(size, root, rank);
        h = side[rank];
        EXPECT(p >= 0 && p < size && p != rank, "split size %d root %d: rank %d partner %d",
               size, root, rank, p);
        if (p == root) {
            EXPECT(h == 0 && is_unmatched[rank],
                   "split size %d root %d: rank %d pairs with root but is not listed",
                   size, root, rank);
        } else {
            EXPECT(side[p] == 1 - h, "split size %d root %d: %d and %d carry the same half",
                   size, root, rank, p);
            EXPECT(MPII_Hier_tree_split_binary_partner(size, root, p) == rank,
                   "split size %d root %d: partner of %d is %d, but not back", size, root,
                   rank, p);
            EXPECT(!is_unmatched[rank], "split: matched rank %d listed as unmatched", rank);
        }
        have[rank][1 - h] = 1;  /* from p, which got exactly that half in the tree phase */
    }
    for (int rank = 0; rank < size; rank++)
        EXPECT(have[rank][0] && have[rank][1], "split size %d root %d: rank %d lacks a half",
               size, root, rank);
    tree_free(&t);
}

START_TEST(trees_split_binary_halves_and_partners)
{
    for (int size = 1; size <= MAX_SIZE; size++)
        for (int root = 0; root < size; root++)
            check_split_binary(size, root);
}
END_TEST

START_TEST(trees_split_binary_small_cases)
{
    int ranks[4];
    /* size 2: rank 1 carries half 0 and gets half 1 from the root */
    ck_assert_int_eq(MPII_Hier_tree_split_binary_half(2, 0, 1), 0);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(2, 0, 1), 0);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_unmatched(2, 0, ranks), 1);
    ck_assert_int_eq(ranks[0], 1);
    /* size 3: the two children swap */
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(3, 1, 2), 0);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(3, 1, 0), 2);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_unmatched(3, 1, ranks), 0);
    /* size 1: nothing to exchange */
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(1, 0, 0), -1);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_unmatched(1, 0, ranks), 0);
}
END_TEST

/* ---- invalid input ---- */

/* the widest node of every tree, as the seg reduces bound their temporaries with it */
START_TEST(trees_max_children_is_the_widest_node)
{
    for (int kind = 0; kind < MPII_HIER_TREE_NKINDS; kind++)
        for (int size = 1; size <= MAX_SIZE; size++)
            for (int fanout = 1; fanout <= MAX_FANOUT; fanout++) {
                int widest = 0;
                for (int root = 0; root < size; root += (size > 8 ? 7 : 1))
                    for (int rank = 0; rank < size; rank++) {
                        MPII_Hier_tree_node node;
                        EXPECT(MPII_Hier_tree_node_init(&node, kind, size, root, fanout, rank) == 0,
                               "node_init failed");
                        if (node.nchildren > widest)
                            widest = node.nchildren;
                        MPII_Hier_tree_node_free(&node);
                    }
                EXPECT(MPII_Hier_tree_max_children(kind, size, fanout) == widest,
                       "%s size %d fanout %d: max_children %d, widest node %d", kind_name[kind],
                       size, fanout, MPII_Hier_tree_max_children(kind, size, fanout), widest);
            }
    ck_assert_int_eq(MPII_Hier_tree_max_children(MPII_HIER_TREE_LINEAR, 0, 1), -1);
    ck_assert_int_eq(MPII_Hier_tree_max_children(MPII_HIER_TREE_CHAIN, 4, 0), -1);
}
END_TEST

START_TEST(trees_invalid_input)
{
    MPII_Hier_tree_node nd;
    int lo, hi;

    for (int kind = 0; kind < MPII_HIER_TREE_NKINDS; kind++) {
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, 0, 0, 1, 0), -1);
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, -3, 0, 1, 0), -1);
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, 4, 4, 1, 0), -1);
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, 4, -1, 1, 0), -1);
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, 4, 0, 1, 4), -1);
        ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, kind, 4, 0, 1, -1), -1);
        /* a failed init leaves an empty node that is safe to free */
        ck_assert_int_eq(nd.nchildren, 0);
        ck_assert_ptr_null(nd.children);
        MPII_Hier_tree_node_free(&nd);
        ck_assert_int_eq(MPII_Hier_tree_top(kind, 0, 0), -1);
        ck_assert_int_eq(MPII_Hier_tree_top(kind, 4, 4), -1);
        ck_assert_int_eq(MPII_Hier_tree_top(kind, 4, -1), -1);
    }
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, MPII_HIER_TREE_CHAIN, 4, 0, 0, 1), -1);
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, MPII_HIER_TREE_CHAIN, 4, 0, -2, 1), -1);
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, MPII_HIER_TREE_CHAIN, 1, 0, 0, 0), -1);
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, (MPII_Hier_tree_kind) MPII_HIER_TREE_NKINDS,
                                              4, 0, 1, 0), -1);
    ck_assert_int_eq(MPII_Hier_tree_node_init(&nd, (MPII_Hier_tree_kind) - 1, 4, 0, 1, 0), -1);

    ck_assert_int_eq(MPII_Hier_tree_split_binary_half(4, 4, 1), -1);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_half(4, 0, 4), -1);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(0, 0, 0), -1);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_partner(4, 0, -1), -1);
    ck_assert_int_eq(MPII_Hier_tree_split_binary_unmatched(0, 0, NULL), 0);
    MPII_Hier_tree_in_order_range(4, 4, &lo, &hi);
    ck_assert_int_eq(lo, -1);
    ck_assert_int_eq(hi, -1);
    MPII_Hier_tree_in_order_range(0, 0, &lo, &hi);
    ck_assert_int_eq(hi, -1);
}
END_TEST

/* the subtree of every rank, found by walking each rank's parents up, is the run of
 * relative ranks the function says */
START_TEST(trees_subtree_size_is_the_run_of_descendants)
{
    const MPII_Hier_tree_kind kinds[] = { MPII_HIER_TREE_LINEAR, MPII_HIER_TREE_PIPELINE,
        MPII_HIER_TREE_BINOMIAL
    };
    for (int k = 0; k < 3; k++)
        for (int size = 1; size <= 40; size++)
            for (int root = 0; root < size; root++) {
                int *parent = malloc(sizeof(int) * size);
                for (int r = 0; r < size; r++) {
                    MPII_Hier_tree_node node;
                    ck_assert_int_eq(MPII_Hier_tree_node_init(&node, kinds[k], size, root, 1, r),
                                     0);
                    parent[r] = node.parent;
                    MPII_Hier_tree_node_free(&node);
                }
                for (int r = 0; r < size; r++) {
                    int n = MPII_Hier_tree_subtree_size(kinds[k], size, root, r);
                    int rel = (r - root + size) % size, count = 0;
                    for (int d = 0; d < size; d++) {
                        int in = 0;
                        for (int a = d; a >= 0 && !in; a = parent[a])
                            in = a == r;
                        if (!in)
                            continue;
                        count++;
                        int drel = (d - root + size) % size;
                        ck_assert_msg(drel >= rel && drel < rel + n,
                                      "kind %d size %d root %d: %d under %d, outside its run",
                                      kinds[k], size, root, d, r);
                    }
                    ck_assert_int_eq(count, n);
                }
                free(parent);
            }
    ck_assert_int_eq(MPII_Hier_tree_subtree_size(MPII_HIER_TREE_BINARY, 4, 0, 1), -1);
    ck_assert_int_eq(MPII_Hier_tree_subtree_size(MPII_HIER_TREE_BINOMIAL, 4, 4, 1), -1);
    /* hand-computed: binomial of 6 from root 2: relative 4 holds 4 and 5 */
    ck_assert_int_eq(MPII_Hier_tree_subtree_size(MPII_HIER_TREE_BINOMIAL, 6, 2, 0), 2);
    ck_assert_int_eq(MPII_Hier_tree_subtree_size(MPII_HIER_TREE_BINOMIAL, 6, 2, 3), 1);
}
END_TEST

/* The alltoall's node rounds, on block, cyclic and uneven placements with scattered node
 * ids: every rank sends to and receives from every rank once; in round j a rank of node a
 * talks only to node (a + j) % n (sends) and (a - j) % n (receives), nodes numbered by
 * their lowest rank; the send and receive lists match (r sends to p in the round p
 * receives from r); round 0 is this rank's own node, started at itself */
static void check_node_rounds(const int *node, int nids, int size)
{
    int to[64], from[64], tr[65], fr[65], index[64], seen[64], n = 0, j_of[64][64];
    for (int id = 0; id < nids; id++)
        index[id] = -1;
    for (int r = 0; r < size; r++)
        if (index[node[r]] < 0)
            index[node[r]] = n++;
    for (int me = 0; me < size; me++) {
        int rounds = MPII_Hier_alltoall_node_rounds(node, nids, size, me, to, from, tr, fr);
        int a = index[node[me]];
        EXPECT(rounds == n, "size %d rank %d: %d rounds, %d nodes", size, me, rounds, n);
        EXPECT(tr[n] == size && fr[n] == size && to[0] == me && from[0] == me,
               "size %d rank %d: %d sends, %d receives, first %d %d", size, me, tr[n], fr[n],
               to[0], from[0]);
        memset(seen, 0, sizeof(seen));
        for (int j = 0; j < n; j++)
            for (int i = tr[j]; i < tr[j + 1]; i++) {
                EXPECT(index[node[to[i]]] == (a + j) % n, "rank %d round %d sends to %d", me,
                       j, to[i]);
                seen[to[i]]++;
                j_of[me][to[i]] = j;
            }
        for (int r = 0; r < size; r++)
            EXPECT(seen[r] == 1, "rank %d sends to %d %d times", me, r, seen[r]);
    }
    for (int me = 0; me < size; me++) {
        MPII_Hier_alltoall_node_rounds(node, nids, size, me, to, from, tr, fr);
        for (int j = 0; j < n; j++)
            for (int i = fr[j]; i < fr[j + 1]; i++)
                EXPECT(j_of[from[i]][me] == j, "rank %d receives from %d in round %d, sent in %d",
                       me, from[i], j, j_of[from[i]][me]);
    }
}

START_TEST(trees_alltoall_node_rounds)
{
    int node[64];
    for (int nodes = 1; nodes <= 8; nodes++)
        for (int ppn = 1; ppn <= 8; ppn++) {
            for (int r = 0; r < nodes * ppn; r++)
                node[r] = 3 * (r / ppn) + 1;     /* block, ids with gaps */
            check_node_rounds(node, 3 * nodes + 1, nodes * ppn);
            for (int r = 0; r < nodes * ppn; r++)
                node[r] = (nodes - 1 - r % nodes) * 2;  /* cyclic, ids descending */
            check_node_rounds(node, 2 * nodes, nodes * ppn);
        }
    /* uneven: 3, 1 and 2 ranks, interleaved */
    const int uneven[] = { 4, 0, 4, 2, 2, 4 };
    check_node_rounds(uneven, 5, 6);
    int to[6], from[6], tr[7], fr[7];
    EXPECT(MPII_Hier_alltoall_node_rounds(uneven, 5, 6, 5, to, from, tr, fr) == 3, "3 nodes");
    /* rank 5, third of id 4 (node 0: 0, 2, 5): round 0 its node from itself on (5, 0, 2);
     * round 1 to id 0 (node 1: rank 1), from id 2 (node 2: 3, 4, from its place 2 % 2 = 0);
     * round 2 to node 2, from node 1 */
    EXPECT(to[0] == 5 && to[1] == 0 && to[2] == 2 && to[3] == 1 && to[4] == 3 && to[5] == 4,
           "to %d %d %d %d %d %d", to[0], to[1], to[2], to[3], to[4], to[5]);
    EXPECT(tr[1] == 3 && tr[2] == 4 && fr[1] == 3 && fr[2] == 5, "rounds %d %d, %d %d", tr[1],
           tr[2], fr[1], fr[2]);
    EXPECT(MPII_Hier_alltoall_node_rounds(uneven, 4, 6, 0, to, from, tr, fr) == -1, "id 4 of 4");
    EXPECT(MPII_Hier_alltoall_node_rounds(uneven, 5, 6, 6, to, from, tr, fr) == -1, "rank 6");
    EXPECT(MPII_Hier_alltoall_node_rounds(NULL, 5, 6, 0, to, from, tr, fr) == -1, "no nodes");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier trees");
    TCase *shape = tcase_create("shapes");
    TCase *inorder = tcase_create("in-order binary");
    TCase *split = tcase_create("split binary");
    TCase *bad = tcase_create("invalid input");
    SRunner *sr;
    int failed;

    tcase_set_timeout(shape, 60);
    tcase_set_timeout(inorder, 60);
    tcase_set_timeout(split, 60);
    tcase_set_timeout(bad, 60);
    tcase_add_test(shape, trees_linear);
    tcase_add_test(shape, trees_chain);
    tcase_add_test(shape, trees_chain_depth_is_exact);
    tcase_add_test(shape, trees_pipeline);
    tcase_add_test(shape, trees_binary);
    tcase_add_test(shape, trees_binomial);
    tcase_add_test(shape, trees_binomial_small_example);
    tcase_add_test(shape, trees_fanout_ignored_outside_chain);
    tcase_add_test(shape, trees_max_children_is_the_widest_node);
    tcase_add_test(shape, trees_subtree_size_is_the_run_of_descendants);
    tcase_add_test(inorder, trees_in_order_binary);
    tcase_add_test(inorder, trees_in_order_binary_reduces_in_rank_order);
    tcase_add_test(inorder, trees_scan_partners_give_prefixes_in_rank_order);
    tcase_add_test(inorder, trees_alltoall_node_rounds);
    tcase_add_test(split, trees_split_binary_halves_and_partners);
    tcase_add_test(split, trees_split_binary_small_cases);
    tcase_add_test(bad, trees_invalid_input);
    suite_add_tcase(s, shape);
    suite_add_tcase(s, inorder);
    suite_add_tcase(s, split);
    suite_add_tcase(s, bad);

    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
