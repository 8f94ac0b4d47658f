/*
 * mpich-hier: level maps (pure logic, no MPI).
 */

#include <stdlib.h>
#include <string.h>
#include "hier_levels.h"

int MPII_Hier_levels_build(MPII_Hier_levels * levels, int nranks, const int *node_id)
{
    int *first_rank_of_node = NULL;     /* node index -> distinct id, by first appearance */
    memset(levels, 0, sizeof(*levels));
    if (nranks < 1 || node_id == NULL)
        return -1;

    levels->nranks = nranks;
    levels->node_of = malloc(sizeof(int) * nranks);
    levels->local_of = malloc(sizeof(int) * nranks);
    levels->members = malloc(sizeof(int) * nranks);
    levels->node_start = malloc(sizeof(int) * (nranks + 1));
    first_rank_of_node = malloc(sizeof(int) * nranks);
    if (!levels->node_of || !levels->local_of || !levels->members || !levels->node_start ||
        !first_rank_of_node)
        goto fail;

    /* number nodes by their lowest rank; quadratic only in the number of nodes seen */
    for (int r = 0; r < nranks; r++) {
        int n;
        for (n = 0; n < levels->nnodes; n++)
            if (node_id[first_rank_of_node[n]] == node_id[r])
                break;
        if (n == levels->nnodes)
            first_rank_of_node[levels->nnodes++] = r;
        levels->node_of[r] = n;
    }

    /* counting sort of ranks by node keeps rank order inside a node */
    memset(levels->node_start, 0, sizeof(int) * (levels->nnodes + 1));
    for (int r = 0; r < nranks; r++)
        levels->node_start[levels->node_of[r] + 1]++;
    for (int n = 0; n < levels->nnodes; n++) {
        int size = levels->node_start[n + 1];
        if (size > levels->max_ppn)
            levels->max_ppn = size;
        levels->node_start[n + 1] += levels->node_start[n];
    }
    {
        int *fill = first_rank_of_node; /* reused as per-node fill counters */
        for (int n = 0; n < levels->nnodes; n++)
            fill[n] = 0;
        for (int r = 0; r < nranks; r++) {
            int n = levels->node_of[r];
            levels->local_of[r] = fill[n];
            levels->members[levels->node_start[n] + fill[n]] = r;
            fill[n]++;
        }
    }
    free(first_rank_of_node);
    return 0;

  fail:
    free(first_rank_of_node);
    MPII_Hier_levels_free(levels);
    return -1;
}

void MPII_Hier_levels_free(MPII_Hier_levels * levels)
{
    free(levels->node_of);
    free(levels->local_of);
    free(levels->members);
    free(levels->node_start);
    memset(levels, 0, sizeof(*levels));
}

int MPII_Hier_levels_node_size(const MPII_Hier_levels * levels, int node)
{
    return levels->node_start[node + 1] - levels->node_start[node];
}

int MPII_Hier_levels_column_local(const MPII_Hier_levels * levels, int node, int column)
{
    return column % MPII_Hier_levels_node_size(levels, node);
}

int MPII_Hier_levels_column_leader(const MPII_Hier_levels * levels, int node, int column)
{
    return levels->members[levels->node_start[node] +
                           MPII_Hier_levels_column_local(levels, node, column)];
}

int MPII_Hier_levels_is_multilevel(const MPII_Hier_levels * levels)
{
    return levels->nnodes > 1 && levels->max_ppn > 1;
}

int MPII_Hier_levels_is_rank_ordered(const MPII_Hier_levels * levels)
{
    /* members are grouped by node in node order: rank order iff they read 0, 1, 2, ... */
    for (int i = 0; i < levels->nranks; i++)
        if (levels->members[i] != i)
            return 0;
    return 1;
}

void MPII_Hier_levels_node_offsets(const MPII_Hier_levels * levels, int first, long long block,
                                   long long *offset)
{
    offset[0] = 0;
    for (int rel = 0; rel < levels->nnodes; rel++) {
        int node = (first + rel) % levels->nnodes;
        offset[rel + 1] = offset[rel] + block * MPII_Hier_levels_node_size(levels, node);
    }
}
