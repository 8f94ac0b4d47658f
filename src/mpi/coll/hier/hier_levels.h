/*
 * mpich-hier: level maps (pure logic, no MPI).
 *
 * Given the node of every rank of a communicator, group ranks by node (nodes numbered
 * in order of their lowest rank, members in rank order) and pick HAN-style column
 * leaders: for a root at local rank j, node n is led by its member (j mod size_n).
 * Every node thus has exactly one leader per column, whatever its size, and the
 * root is always the leader of its own node.
 */

#ifndef HIER_LEVELS_H_INCLUDED
#define HIER_LEVELS_H_INCLUDED

typedef struct {
    int nranks;
    int nnodes;
    int max_ppn;
    int *node_of;               /* [nranks] node index of each rank */
    int *local_of;              /* [nranks] rank within its node */
    int *node_start;            /* [nnodes + 1] where each node's members start */
    int *members;               /* [nranks] ranks grouped by node, ascending */
} MPII_Hier_levels;

/* Returns 0 on success, -1 on bad input or allocation failure (levels left empty). */
int MPII_Hier_levels_build(MPII_Hier_levels * levels, int nranks, const int *node_id);
void MPII_Hier_levels_free(MPII_Hier_levels * levels);

int MPII_Hier_levels_node_size(const MPII_Hier_levels * levels, int node);
/* local rank, within node, of the leader of column j */
int MPII_Hier_levels_column_local(const MPII_Hier_levels * levels, int node, int column);
/* communicator rank of the leader of column j on node */
int MPII_Hier_levels_column_leader(const MPII_Hier_levels * levels, int node, int column);
/* more than one node, and at least one node with more than one rank */
int MPII_Hier_levels_is_multilevel(const MPII_Hier_levels * levels);

/* every node's ranks are one consecutive block, so combining node by node, in node
 * order, is combining in rank order (what non-commutative reductions need) */
int MPII_Hier_levels_is_rank_ordered(const MPII_Hier_levels * levels);

/* Where each node's block starts when every rank's block is `block` bytes and the blocks
 * lie node after node from node `first` on (first, first + 1, ... modulo nnodes), each
 * node's in its members' order: offset[(n - first + nnodes) % nnodes] for node n, and
 * offset[nnodes] = the total.  offset has nnodes + 1 entries. */
void MPII_Hier_levels_node_offsets(const MPII_Hier_levels * levels, int first, long long block,
                                   long long *offset);

#endif /* HIER_LEVELS_H_INCLUDED */
