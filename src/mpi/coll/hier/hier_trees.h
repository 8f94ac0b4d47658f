/*
 * mpich-hier: tree shapes for segmented collectives (pure logic, no MPI).
 *
 * Ranks are communicator ranks 0..size-1; r = (rank - root + size) % size is the
 * relative rank, so the root is r = 0.  k is the fanout, n = size.  Children are
 * listed in the order the algorithm serves them.
 *
 *  kind          receives from        sends to                     depth          children
 *  ------------  -------------------  ---------------------------  -------------  -----------
 *  LINEAR        root                 root: r = 1..n-1, in order   1              root n-1,
 *                                                                                 others 0
 *  CHAIN (k)     run head: root;      root: the run heads;         ceil((n-1)/k)  root
 *                others: r-1          others: r+1 unless last      (k < n)        min(k, n-1),
 *                                     of its run                                  others 0-1
 *                (r = 1..n-1 cut into min(k, n-1) runs of consecutive r, lengths differing
 *                by at most 1, longer runs first)
 *  PIPELINE      r-1                  r+1                          n-1            0-1
 *  BINARY        (r-1)/2              2r+1, 2r+2 (those < n)       floor(log2 n)  0-2
 *  SPLIT_BINARY  as BINARY in the tree phase, then one pairwise exchange (below)
 *  BINOMIAL      r less its lowest    r + 2^i for each 2^i below   ceil(log2 n)   root up to
 *                set bit              r's lowest set bit (any                     ceil(log2 n)
 *                                     2^i for r = 0), largest
 *                                     2^i first (as MPICH; the
 *                                     subtree of r + 2^i holds
 *                                     2^i ranks unless n cuts it)
 *  IN_ORDER_     the node whose       tops of the left and right   floor(log2 n)  0-2
 *  BINARY        range holds this     parts of its range, left
 *                one; top: rank n-1   first
 *                (root unused)
 *
 * IN_ORDER_BINARY serves non-commutative reductions.  Every node covers a contiguous
 * range [lo, hi] of communicator ranks and is its highest rank hi.  The other hi-lo
 * ranks are split into a left range [lo, m] of ceil((hi-lo)/2) ranks and a right
 * range [m+1, hi-1]; the children are the tops (highest ranks) of the non-empty
 * ones.  Reducing (left result, right result, own data) in that order yields the
 * rank-order result of [lo, hi]; rank n-1 ends with the whole result and must hand
 * it to the root if the root is another rank.
 *
 * SPLIT_BINARY moves the payload in two halves, half 0 (the first part of the
 * buffer) and half 1 (the rest):
 *  1. tree phase: the root sends half 0 down the subtree of r = 1 (the left one) and
 *     half 1 down the subtree of r = 2 (the right one); every other rank receives
 *     its half from its parent and relays it to its children.
 *     MPII_Hier_tree_split_binary_half() says which half a rank carries.
 *  2. exchange phase: a left rank and a right rank at the same depth and position
 *     ("mirror" ranks: r and r + 2^(d-1), d = floor(log2(r+1))) swap halves.  This
 *     pairs the i-th left rank, in relative order, with the i-th right rank.  The
 *     left subtree is never smaller than the right one, so the only ranks without a
 *     mirror are left ranks on the last level; they receive half 1 from the root.
 *     MPII_Hier_tree_split_binary_partner() returns, for a non-root rank, the mirror
 *     rank (sendrecv: send own half, receive the other) or the root (receive half
 *     1 only).  The root gets -1 and sends half 1 to each rank listed by
 *     MPII_Hier_tree_split_binary_unmatched().  With n = 2 the single non-root rank
 *     is such an unmatched left rank; with n = 1 there is no exchange.
 *  After phase 2 every non-root rank holds both halves.
 */

#ifndef HIER_TREES_H_INCLUDED
#define HIER_TREES_H_INCLUDED

typedef enum {
    MPII_HIER_TREE_LINEAR,      /* root sends to everyone */
    MPII_HIER_TREE_CHAIN,       /* root fans out to `fanout` chains of nearly equal length */
    MPII_HIER_TREE_PIPELINE,    /* a single chain (chain with fanout 1) */
    MPII_HIER_TREE_BINARY,      /* complete binary tree on relative ranks */
    MPII_HIER_TREE_SPLIT_BINARY,        /* binary shape; data split between the two subtrees */
    MPII_HIER_TREE_BINOMIAL,    /* as MPIR_Bcast_intra_binomial */
    MPII_HIER_TREE_IN_ORDER_BINARY      /* rank-ordered, for non-commutative reduce */
} MPII_Hier_tree_kind;

#define MPII_HIER_TREE_NKINDS (MPII_HIER_TREE_IN_ORDER_BINARY + 1)

typedef struct {
    int parent;                 /* -1 at the tree's top */
    int nchildren;
    int *children;              /* [nchildren] in serving order; NULL when none */
} MPII_Hier_tree_node;

/* One rank's view of the tree.  fanout is used only by CHAIN.  Returns 0 on success,
 * -1 on invalid input (size < 1, root or rank outside [0, size), CHAIN with
 * fanout < 1, unknown kind) or allocation failure; the node is then left empty. */
int MPII_Hier_tree_node_init(MPII_Hier_tree_node * node, MPII_Hier_tree_kind kind,
                             int size, int root, int fanout, int rank);
void MPII_Hier_tree_node_free(MPII_Hier_tree_node * node);

/* The rank whose parent is -1: root, or size-1 for IN_ORDER_BINARY; -1 on bad input. */
int MPII_Hier_tree_top(MPII_Hier_tree_kind kind, int size, int root);
/* The most children any rank has (the "children" column above), -1 on invalid input. */
int MPII_Hier_tree_max_children(MPII_Hier_tree_kind kind, int size, int fanout);

/* The number of ranks in rank's subtree for the shapes whose subtrees are runs of
 * consecutive relative ranks (rank and the next ones): LINEAR, PIPELINE, BINOMIAL.  A
 * collective that keeps its data in relative-rank order then moves each subtree's data
 * as one contiguous piece.  -1 on bad input or for the other shapes. */
int MPII_Hier_tree_subtree_size(MPII_Hier_tree_kind kind, int size, int root, int rank);

/* SPLIT_BINARY: -1 for the root, 0 in the subtree of r = 1, 1 in the subtree of r = 2.
 * This and the two functions below return -1 (or 0 ranks) on bad input. */
int MPII_Hier_tree_split_binary_half(int size, int root, int rank);
/* SPLIT_BINARY exchange partner of rank: its mirror rank in the other subtree, the
 * root when the mirror does not exist, -1 for the root itself (see above). */
int MPII_Hier_tree_split_binary_partner(int size, int root, int rank);
/* Fills ranks (may be NULL; room for size ints is enough) with the ranks whose
 * partner is the root, in relative order, and returns how many there are. */
int MPII_Hier_tree_split_binary_unmatched(int size, int root, int *ranks);
/* SPLIT_BINARY: units (bytes or elements) of half 0 of a message of n units, the larger
 * half (half 1 is the rest). */
static inline long long MPII_Hier_tree_split_binary_first(long long n)
{
    return (n + 1) / 2;
}

/* IN_ORDER_BINARY: the range [*lo, *hi] the subtree of rank covers (*hi == rank);
 * both -1 on bad input. */
void MPII_Hier_tree_in_order_range(int size, int rank, int *lo, int *hi);

/* Recursive doubling scan (the hier scan's and exscan's step, as MPICH's scan): in round
 * i member rank of size exchanges its partial with rank ^ 2^i, partner[i], or sits out
 * (partner[i] = -1) when that is not below size; returns the number of rounds (0 for
 * size 1, -1 on bad input).  A partner below rank sent the partial of the ranks just below
 * those rank has combined (it goes first in the op's order), one above of the ranks just
 * after them; after the last round member 0's partial is the whole group's.  partner:
 * room for 31. */
int MPII_Hier_scan_partners(int size, int rank, int *partner);

/* The direct alltoall's exchange in node rounds: with the size ranks on the nodes node[r]
 * (ids from 0 to below nids, any placement; nodes numbered 0..n-1 by their lowest rank),
 * in round j every rank of node a sends its blocks to the ranks of node (a + j) % n and
 * receives from those of node (a - j) % n, so each node's link carries one other node's
 * blocks each way a round.  Fills, for rank me, to[] and from[] (size entries each, me
 * among them in round 0) in round order, a round's peers in rank order starting at me's
 * place in its node (the ranks of a node do not all send to the same rank first); round j
 * is to[to_round[j]] .. to[to_round[j + 1] - 1], likewise from (to_round, from_round:
 * room for size + 1).  Returns n, -1 on bad input or no memory. */
int MPII_Hier_alltoall_node_rounds(const int *node, int nids, int size, int me, int *to,
                                   int *from, int *to_round, int *from_round);

#endif /* HIER_TREES_H_INCLUDED */
