/*
 * mpich-hier: tree shapes for segmented collectives (pure logic, no MPI).
 */

#include <stdlib.h>
#include <string.h>
#include "hier_trees.h"

/* highest power of two <= x, for x >= 1 */
static int floor_pow2(int x)
{
    int p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

static int to_rank(int rel, int size, int root)
{
    return (rel + root) % size;
}

static int valid(int size, int root, int rank)
{
    return size >= 1 && root >= 0 && root < size && rank >= 0 && rank < size;
}

/* CHAIN: which of the nchains runs relative rank r (>= 1) is in, and where */
static void chain_locate(int size, int nchains, int r, int *pos, int *len)
{
    int q = (size - 1) / nchains;
    int rem = (size - 1) % nchains;
    int long_part = rem * (q + 1);      /* ranks held by the longer runs, which come first */
    int i = r - 1;

    if (i < long_part) {
        *pos = i % (q + 1);
        *len = q + 1;
    } else {
        *pos = (i - long_part) % q;
        *len = q;
    }
}

/* Children of relative rank r, as relative ranks; returns how many (at most 2 for the
 * binary kinds, min(k, size-1) for chains, ceil(log2 size) for binomial). */
static int rel_children(MPII_Hier_tree_kind kind, int size, int fanout, int r, int *kids)
{
    int n = 0;

    switch (kind) {
        case MPII_HIER_TREE_LINEAR:
            if (r == 0)
                for (int c = 1; c < size; c++)
                    kids[n++] = c;
            break;
        case MPII_HIER_TREE_PIPELINE:
            fanout = 1;
            /* fall through */
        case MPII_HIER_TREE_CHAIN:
            if (size == 1)
                break;
            {
                int nchains = fanout < size - 1 ? fanout : size - 1;
                if (r == 0) {
                    int q = (size - 1) / nchains, rem = (size - 1) % nchains;
                    int head = 1;
                    for (int j = 0; j < nchains; j++) {
                        kids[n++] = head;
                        head += j < rem ? q + 1 : q;
                    }
                } else {
                    int pos, len;
                    chain_locate(size, nchains, r, &pos, &len);
                    if (pos + 1 < len)
                        kids[n++] = r + 1;
                }
            }
            break;
        case MPII_HIER_TREE_BINARY:
        case MPII_HIER_TREE_SPLIT_BINARY:
            for (int c = 2 * r + 1; c <= 2 * r + 2 && c < size; c++)
                kids[n++] = c;
            break;
        case MPII_HIER_TREE_BINOMIAL:
            {
                /* masks below r's lowest set bit; for the root, all that fit */
                int mask = r ? (r & -r) / 2 : floor_pow2(size - 1);
                for (; mask > 0; mask /= 2)
                    if (r + mask < size)
                        kids[n++] = r + mask;
            }
            break;
        default:
            break;
    }
    return n;
}

static int rel_parent(MPII_Hier_tree_kind kind, int size, int fanout, int r)
{
    if (r == 0)
        return -1;
    switch (kind) {
        case MPII_HIER_TREE_LINEAR:
            return 0;
        case MPII_HIER_TREE_PIPELINE:
            return r - 1;
        case MPII_HIER_TREE_CHAIN:
            {
                int nchains = fanout < size - 1 ? fanout : size - 1;
                int pos, len;
                chain_locate(size, nchains, r, &pos, &len);
                return pos == 0 ? 0 : r - 1;
            }
        case MPII_HIER_TREE_BINARY:
        case MPII_HIER_TREE_SPLIT_BINARY:
            return (r - 1) / 2;
        case MPII_HIER_TREE_BINOMIAL:
            return r & (r - 1);
        default:
            return -1;
    }
}

/* IN_ORDER_BINARY: the left part of [lo, hi] (hi excluded) is [lo, *m]; the halves
 * differ by at most one rank, the left one being the larger. */
static int in_order_split(int lo, int hi)
{
    int nleft = (hi - lo + 1) / 2;
    return lo + nleft - 1;
}

/* Descends from the top to rank; fills its range and returns its parent. */
static int in_order_find(int size, int rank, int *lo, int *hi)
{
    int parent = -1;
    *lo = 0;
    *hi = size - 1;
    while (*hi != rank) {
        int m = in_order_split(*lo, *hi);
        parent = *hi;
        if (rank <= m) {
            *hi = m;
        } else {
            *lo = m + 1;
            *hi = *hi - 1;
        }
    }
    return parent;
}

int MPII_Hier_tree_node_init(MPII_Hier_tree_node * node, MPII_Hier_tree_kind kind,
                             int size, int root, int fanout, int rank)
{
    int kids_max, n;

    memset(node, 0, sizeof(*node));
    node->parent = -1;
    if (!valid(size, root, rank) || (int) kind < 0 || kind >= MPII_HIER_TREE_NKINDS)
        return -1;
    if (kind == MPII_HIER_TREE_CHAIN && fanout < 1)
        return -1;

    if (kind == MPII_HIER_TREE_IN_ORDER_BINARY) {
        int lo, hi, m, kids[2];
        node->parent = in_order_find(size, rank, &lo, &hi);
        m = in_order_split(lo, hi);
        n = 0;
        if (m >= lo)
            kids[n++] = m;
        if (hi - 1 >= m + 1)
            kids[n++] = hi - 1;
        if (n > 0) {
            node->children = malloc(sizeof(int) * n);
            if (!node->children)
                goto fail;
            memcpy(node->children, kids, sizeof(int) * n);
        }
        node->nchildren = n;
        return 0;
    }

    /* no shape here has more children than linear's root */
    kids_max = size - 1;
    if (kids_max > 0) {
        int r = (rank - root + size) % size;
        node->children = malloc(sizeof(int) * kids_max);
        if (!node->children)
            goto fail;
        n = rel_children(kind, size, fanout, r, node->children);
        for (int i = 0; i < n; i++)
            node->children[i] = to_rank(node->children[i], size, root);
        node->nchildren = n;
        if (n == 0) {
            free(node->children);
            node->children = NULL;
        }
        node->parent = rel_parent(kind, size, fanout, r);
        if (node->parent >= 0)
            node->parent = to_rank(node->parent, size, root);
    }
    return 0;

  fail:
    MPII_Hier_tree_node_free(node);
    return -1;
}

int MPII_Hier_tree_subtree_size(MPII_Hier_tree_kind kind, int size, int root, int rank)
{
    if (!valid(size, root, rank))
        return -1;
    int r = (rank - root + size) % size;
    switch (kind) {
        case MPII_HIER_TREE_LINEAR:
            return r == 0 ? size : 1;
        case MPII_HIER_TREE_PIPELINE:
            return size - r;
        case MPII_HIER_TREE_BINOMIAL:
            /* r's children are r + 1, r + 2, ... below its lowest set bit */
            return r == 0 ? size : ((r & -r) < size - r ? (r & -r) : size - r);
        default:
            return -1;
    }
}

void MPII_Hier_tree_node_free(MPII_Hier_tree_node * node)
{
    free(node->children);
    memset(node, 0, sizeof(*node));
    node->parent = -1;
}

int MPII_Hier_tree_top(MPII_Hier_tree_kind kind, int size, int root)
{
    if (!valid(size, root, root))
        return -1;
    return kind == MPII_HIER_TREE_IN_ORDER_BINARY ? size - 1 : root;
}

int MPII_Hier_tree_max_children(MPII_Hier_tree_kind kind, int size, int fanout)
{
    if (size < 1 || (kind == MPII_HIER_TREE_CHAIN && fanout < 1))
        return -1;
    if (size == 1)
        return 0;
    switch (kind) {
        case MPII_HIER_TREE_LINEAR:
            return size - 1;
        case MPII_HIER_TREE_CHAIN:
            return fanout < size - 1 ? fanout : size - 1;
        case MPII_HIER_TREE_PIPELINE:
            return 1;
        case MPII_HIER_TREE_BINOMIAL:{
                int levels = 0;
                while ((1 << levels) < size)
                    levels++;
                return levels;      /* the root's: ceil(log2 size) */
            }
        default:       /* the binary shapes */
            return size == 2 ? 1 : 2;
    }
}

int MPII_Hier_tree_split_binary_half(int size, int root, int rank)
{
    int r;
    if (!valid(size, root, rank) || rank == root)
        return -1;
    /* in heap order the second-highest bit of r+1 tells left (0) from right (1) */
    r = (rank - root + size) % size;
    return ((r + 1) & (floor_pow2(r + 1) / 2)) ? 1 : 0;
}

int MPII_Hier_tree_split_binary_partner(int size, int root, int rank)
{
    int r, half_level;
    if (!valid(size, root, rank) || rank == root)
        return -1;
    r = (rank - root + size) % size;
    /* left and right halves of a level are half_level ranks apart */
    half_level = floor_pow2(r + 1) / 2;
    if (MPII_Hier_tree_split_binary_half(size, root, rank) == 1)
        return to_rank(r - half_level, size, root);
    if (r + half_level < size)
        return to_rank(r + half_level, size, root);
    return root;
}

int MPII_Hier_tree_split_binary_unmatched(int size, int root, int *ranks)
{
    int first_last_level, half_level, lo, hi, n = 0;
    if (!valid(size, root, root) || size < 2)
        return 0;
    /* only left ranks of the last level can lack a mirror */
    first_last_level = floor_pow2(size) - 1;
    half_level = (first_last_level + 1) / 2;
    lo = size - half_level;
    if (lo < first_last_level)
        lo = first_last_level;
    hi = first_last_level + half_level - 1;
    if (hi > size - 1)
        hi = size - 1;
    for (int r = lo; r <= hi; r++) {
        if (ranks)
            ranks[n] = to_rank(r, size, root);
        n++;
    }
    return n;
}

void MPII_Hier_tree_in_order_range(int size, int rank, int *lo, int *hi)
{
    if (!valid(size, 0, rank)) {
        *lo = *hi = -1;
        return;
    }
    in_order_find(size, rank, lo, hi);
}

int MPII_Hier_scan_partners(int size, int rank, int *partner)
{
    int rounds = 0;
    if (size < 1 || rank < 0 || rank >= size)
        return -1;
    for (int mask = 1; mask < size; mask <<= 1)
        partner[rounds++] = (rank ^ mask) < size ? rank ^ mask : -1;
    return rounds;
}

/* The ranks of node k (members[at[k]] .. members[at[k + 1] - 1]) to out, in rank order
 * from the one at offset shift among them; returns how many */
static int node_members(const int *members, const int *at, int k, int shift, int *out)
{
    int n = at[k + 1] - at[k];
    for (int i = 0; i < n; i++)
        out[i] = members[at[k] + (i + shift) % n];
    return n;
}

/* Nodes numbered by their lowest rank: index[id] of each id, members by node in rank
 * order with node k's from at[k]; returns the number of nodes, -1 on a bad id */
static int node_table(const int *node, int nids, int size, int *index, int *members, int *at)
{
    int n = 0;
    for (int id = 0; id < nids; id++)
        index[id] = -1;
    for (int r = 0; r < size; r++) {
        if (node[r] < 0 || node[r] >= nids)
            return -1;
        if (index[node[r]] < 0)
            index[node[r]] = n++;
    }
    memset(at, 0, sizeof(int) * (n + 1));
    for (int r = 0; r < size; r++)
        at[index[node[r]] + 1]++;
    for (int k = 0; k < n; k++)
        at[k + 1] += at[k];
    for (int r = 0, *fill = at; r < size; r++)
        members[fill[index[node[r]]]++] = r;
    for (int k = n; k > 0; k--)
        at[k] = at[k - 1];
    at[0] = 0;
    return n;
}

int MPII_Hier_alltoall_node_rounds(const int *node, int nids, int size, int me, int *to,
                                   int *from, int *to_round, int *from_round)
{
    int n, *index, *members, *at, sent = 0, got = 0, mine, shift;
    if (!node || nids < 1 || size < 1 || me < 0 || me >= size || !to || !from || !to_round ||
        !from_round)
        return -1;
    index = malloc(sizeof(int) * ((size_t) nids + 2 * size + 1));
    if (!index)
        return -1;
    members = index + nids, at = members + size;
    n = node_table(node, nids, size, index, members, at);
    if (n > 0) {
        mine = index[node[me]];
        for (shift = 0; members[at[mine] + shift] != me; shift++);
        for (int j = 0; j < n; j++) {
            to_round[j] = sent, from_round[j] = got;
            sent += node_members(members, at, (mine + j) % n, shift, to + sent);
            got += node_members(members, at, (mine - j + n) % n, shift, from + got);
        }
        to_round[n] = sent, from_round[n] = got;
    }
    free(index);
    return n;
}
