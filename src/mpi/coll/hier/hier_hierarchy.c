/*
 * mpich-hier: N-level hierarchies (pure logic, no MPI).
 */

#include <stdlib.h>
#include <string.h>
#include "hier_hierarchy.h"

/* A rank's place in the refinement of one input level: its group one level up and its key. */
typedef struct {
    int parent;
    long key;
    int rank;
} refine_entry;

static int compare_entries(const void *a, const void *b)
{
    const refine_entry *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* group[r] := the lowest rank with r's parent group and key: sorting by (parent, key, rank)
 * puts each group's ranks together, its lowest first.  Returns the number of groups. */
static int refine(int nranks, const int *parent_group, const long *keys, int depth, int k,
                  refine_entry * scratch, int *group)
{
    int ngroups = 0;
    for (int r = 0; r < nranks; r++) {
        scratch[r].parent = parent_group[r];
        scratch[r].key = keys[(long) r * depth + k];
        scratch[r].rank = r;
    }
    qsort(scratch, nranks, sizeof(*scratch), compare_entries);
    for (int i = 0; i < nranks; i++) {
        int first = i == 0 || scratch[i].parent != scratch[i - 1].parent ||
            scratch[i].key != scratch[i - 1].key;
        if (first)
            ngroups++;
        group[scratch[i].rank] = first ? scratch[i].rank : group[scratch[i - 1].rank];
    }
    return ngroups;
}

/* Numbers the groups of `lowest` (each rank's group named by its lowest rank) 0, 1, ... in
 * order of that rank, and fills the level's member lists.  index: scratch of nranks. */
static void number_groups(MPII_Hier_level * lv, int nranks, const int *lowest, int *index)
{
    int n = 0;
    for (int r = 0; r < nranks; r++)
        if (lowest[r] == r)
            index[r] = n++;
    lv->ngroups = n;
    memset(lv->group_start, 0, sizeof(int) * (n + 1));
    for (int r = 0; r < nranks; r++) {
        lv->group_of[r] = index[lowest[r]];
        lv->group_start[lv->group_of[r] + 1]++;
    }
    for (int g = 0; g < n; g++)
        lv->group_start[g + 1] += lv->group_start[g];
    for (int g = 0; g < n; g++)
        index[g] = 0;           /* reused as fill counters */
    for (int r = 0; r < nranks; r++) {
        int g = lv->group_of[r];
        lv->local_of[r] = index[g];
        lv->members[lv->group_start[g] + index[g]++] = r;
    }
}

static int alloc_level(MPII_Hier_level * lv, int nranks)
{
    lv->group_of = malloc(sizeof(int) * nranks);
    lv->local_of = malloc(sizeof(int) * nranks);
    lv->group_start = malloc(sizeof(int) * (nranks + 1));
    lv->members = malloc(sizeof(int) * nranks);
    lv->parent = malloc(sizeof(int) * nranks);
    lv->sub_start = malloc(sizeof(int) * (nranks + 1));
    lv->subs = malloc(sizeof(int) * nranks);
    return lv->group_of && lv->local_of && lv->group_start && lv->members && lv->parent &&
        lv->sub_start && lv->subs ? 0 : -1;
}

int MPII_Hier_hierarchy_build(MPII_Hier_hierarchy * h, int nranks, int depth, const long *keys)
{
    int rc = -1;
    int *prev = NULL, *cur = NULL, *index = NULL;
    refine_entry *scratch = NULL;
    memset(h, 0, sizeof(*h));
    if (nranks < 1 || depth < 0 || (depth > 0 && keys == NULL))
        return -1;
    h->nranks = nranks;
    if (depth == 0)
        return 0;

    prev = calloc(nranks, sizeof(int)); /* above level 0: one group, named by rank 0 */
    cur = malloc(sizeof(int) * nranks);
    index = malloc(sizeof(int) * (nranks + 1));
    scratch = malloc(sizeof(*scratch) * nranks);
    h->level = calloc(depth, sizeof(*h->level));
    if (!prev || !cur || !index || !scratch || !h->level)
        goto fn_exit;

    int prev_ngroups = 1;
    for (int k = 0; k < depth; k++) {
        int ngroups = refine(nranks, prev, keys, depth, k, scratch, cur);
        /* a level equal to the one above splits nothing; all single ranks: nothing inside */
        if (ngroups != prev_ngroups && ngroups != nranks) {
            MPII_Hier_level *lv = &h->level[h->nlevels++];
            if (alloc_level(lv, nranks) != 0)
                goto fn_exit;
            lv->source = k;
            number_groups(lv, nranks, cur, index);
        }
        prev_ngroups = ngroups;
        int *swap = prev;
        prev = cur;
        cur = swap;
    }

    /* parents and subgroups: level l + 1's groups, in index (= lowest rank) order, under the
     * level-l group of their lowest rank */
    for (int l = 0; l < h->nlevels; l++) {
        MPII_Hier_level *lv = &h->level[l];
        memset(lv->sub_start, 0, sizeof(int) * (lv->ngroups + 1));
        if (l == 0)
            for (int g = 0; g < lv->ngroups; g++)
                lv->parent[g] = 0;
        if (l + 1 == h->nlevels)
            continue;
        MPII_Hier_level *next = &h->level[l + 1];
        for (int g = 0; g < next->ngroups; g++) {
            next->parent[g] = lv->group_of[next->members[next->group_start[g]]];
            lv->sub_start[next->parent[g] + 1]++;
        }
        for (int g = 0; g < lv->ngroups; g++) {
            lv->sub_start[g + 1] += lv->sub_start[g];
            index[g] = 0;
        }
        for (int g = 0; g < next->ngroups; g++) {
            int p = next->parent[g];
            lv->subs[lv->sub_start[p] + index[p]++] = g;
        }
    }
    rc = 0;

  fn_exit:
    free(prev);
    free(cur);
    free(index);
    free(scratch);
    if (rc != 0)
        MPII_Hier_hierarchy_free(h);
    return rc;
}

void MPII_Hier_hierarchy_free(MPII_Hier_hierarchy * h)
{
    if (h->level) {
        for (int l = 0; l < h->nlevels; l++) {  /* a level that failed to allocate is counted */
            MPII_Hier_level *lv = &h->level[l];
            free(lv->group_of);
            free(lv->local_of);
            free(lv->group_start);
            free(lv->members);
            free(lv->parent);
            free(lv->sub_start);
            free(lv->subs);
        }
        free(h->level);
    }
    memset(h, 0, sizeof(*h));
}

int MPII_Hier_hierarchy_group_size(const MPII_Hier_hierarchy * h, int level, int group)
{
    const MPII_Hier_level *lv = &h->level[level];
    return lv->group_start[group + 1] - lv->group_start[group];
}

int MPII_Hier_hierarchy_nsubs(const MPII_Hier_hierarchy * h, int level, int group)
{
    const MPII_Hier_level *lv = &h->level[level];
    return level + 1 == h->nlevels ? 0 : lv->sub_start[group + 1] - lv->sub_start[group];
}

int MPII_Hier_hierarchy_sibling(const MPII_Hier_hierarchy * h, int level, int group)
{
    if (level == 0)
        return group;
    const MPII_Hier_level *up = &h->level[level - 1];
    int parent = h->level[level].parent[group];
    for (int i = up->sub_start[parent]; i < up->sub_start[parent + 1]; i++)
        if (up->subs[i] == group)
            return i - up->sub_start[parent];
    return -1;  /* not reached: every group is among its parent's subgroups */
}

void MPII_Hier_hierarchy_columns(const MPII_Hier_hierarchy * h, int root, int *col)
{
    if (h->nlevels == 0) {
        col[0] = root;
        return;
    }
    for (int l = 0; l < h->nlevels; l++)
        col[l] = MPII_Hier_hierarchy_sibling(h, l, h->level[l].group_of[root]);
    col[h->nlevels] = h->level[h->nlevels - 1].local_of[root];
}

int MPII_Hier_hierarchy_is_rank_ordered(const MPII_Hier_hierarchy * h)
{
    for (int l = 0; l < h->nlevels; l++) {
        const MPII_Hier_level *lv = &h->level[l];
        for (int g = 0; g < lv->ngroups; g++) {
            int first = lv->members[lv->group_start[g]];
            int last = lv->members[lv->group_start[g + 1] - 1];
            if (last - first + 1 != lv->group_start[g + 1] - lv->group_start[g])
                return 0;
        }
    }
    return 1;
}

void MPII_Hier_hierarchy_steps(const MPII_Hier_hierarchy * h, const int *col, int me,
                               MPII_Hier_step_place * place)
{
    int n = h->nlevels;
    for (int k = 0; k < n; k++) {
        const MPII_Hier_level *lv = &h->level[k];
        int g = lv->group_of[me];
        int parent = k == 0 ? 0 : lv->parent[g];
        MPII_Hier_step_place *p = &place[k];
        p->instance = parent;
        p->size = k == 0 ? lv->ngroups : MPII_Hier_hierarchy_nsubs(h, k - 1, parent);
        p->in = p->size > 1 && MPII_Hier_hierarchy_leader(h, k, g, col) == me;
        p->pos = MPII_Hier_hierarchy_sibling(h, k, g);
        /* the parent's leader is the leader of its subgroup col[k] mod nsubs */
        p->root = col[k] % p->size;
    }
    const MPII_Hier_level *finest = &h->level[n - 1];
    MPII_Hier_step_place *p = &place[n];
    p->instance = finest->group_of[me];
    p->size = MPII_Hier_hierarchy_group_size(h, n - 1, p->instance);
    p->in = p->size > 1;
    p->pos = finest->local_of[me];
    p->root = col[n] % p->size;
}

MPII_Hier_phase MPII_Hier_barrier_phase(int nsteps, int i, int *step)
{
    int n = nsteps - 1;
    *step = -1;
    if (nsteps < 1 || i < 0 || i > 2 * n)
        return MPII_HIER_PHASE_NONE;
    *step = i < n ? n - i : i - n;
    return i < n ? MPII_HIER_PHASE_IN : i == n ? MPII_HIER_PHASE_TOP : MPII_HIER_PHASE_OUT;
}

int MPII_Hier_hierarchy_leader(const MPII_Hier_hierarchy * h, int level, int group, const int *col)
{
    for (; level + 1 < h->nlevels; level++) {
        const MPII_Hier_level *lv = &h->level[level];
        group = lv->subs[lv->sub_start[group] + col[level + 1] % MPII_Hier_hierarchy_nsubs(h, level, group)];
    }
    const MPII_Hier_level *finest = &h->level[h->nlevels - 1];
    return finest->members[finest->group_start[group] +
                           col[h->nlevels] % MPII_Hier_hierarchy_group_size(h, h->nlevels - 1, group)];
}

/* the level-`level` group at position pos of step `level`'s instance */
static int step_member_group(const MPII_Hier_hierarchy * h, int level, int instance, int pos)
{
    if (level == 0)
        return pos;
    const MPII_Hier_level *up = &h->level[level - 1];
    return up->subs[up->sub_start[instance] + pos];
}

static int step_size(const MPII_Hier_hierarchy * h, int level, int instance)
{
    return level == 0 ? h->level[0].ngroups : MPII_Hier_hierarchy_nsubs(h, level - 1, instance);
}

void MPII_Hier_hierarchy_step_offsets(const MPII_Hier_hierarchy * h, int level, int instance,
                                      int root, long long *offset)
{
    int size = h->nlevels == 0 ? h->nranks : step_size(h, level, instance);
    offset[0] = 0;
    for (int rel = 0; rel < size; rel++) {
        int pos = (root + rel) % size;
        offset[rel + 1] = offset[rel] + (h->nlevels == 0 ? 1 :
                                         MPII_Hier_hierarchy_group_size(h, level,
                                                                        step_member_group(h, level,
                                                                                          instance,
                                                                                          pos)));
    }
}

int MPII_Hier_hierarchy_member_starts(const MPII_Hier_hierarchy * h, int step, int instance,
                                      int *first)
{
    if (h->nlevels == 0) {
        for (int m = 0; m <= h->nranks; m++)
            first[m] = m;
        return h->nranks;
    }
    if (step == h->nlevels) {
        const MPII_Hier_level *f = &h->level[step - 1];
        int size = f->group_start[instance + 1] - f->group_start[instance];
        for (int m = 0; m < size; m++)
            first[m] = f->members[f->group_start[instance] + m];
        first[size] = first[size - 1] + 1;
        return size;
    }
    const MPII_Hier_level *l = &h->level[step];
    int size = step_size(h, step, instance), g = 0;
    for (int m = 0; m < size; m++) {
        g = step_member_group(h, step, instance, m);
        first[m] = l->members[l->group_start[g]];
    }
    first[size] = first[size - 1] + MPII_Hier_hierarchy_group_size(h, step, g);
    return size;
}

int MPII_Hier_hierarchy_finest_pos(const MPII_Hier_hierarchy * h, int rank)
{
    return h->nlevels == 0 ? 0 : h->level[h->nlevels - 1].local_of[rank];
}

long long MPII_Hier_hierarchy_block_at(const MPII_Hier_hierarchy * h, const int *col, int rank)
{
    if (h->nlevels == 0)
        return (rank - col[0] + h->nranks) % h->nranks;
    long long at = 0;
    for (int k = 0; k < h->nlevels; k++) {
        int g = h->level[k].group_of[rank];
        int instance = k == 0 ? 0 : h->level[k].parent[g];
        int size = step_size(h, k, instance);
        int root = col[k] % size;
        int rel = (MPII_Hier_hierarchy_sibling(h, k, g) - root + size) % size;
        /* the members before rel in the step's relative order */
        for (int before = 0; before < rel; before++)
            at += MPII_Hier_hierarchy_group_size(h, k, step_member_group(h, k, instance,
                                                                        (root + before) % size));
    }
    return at + MPII_Hier_hierarchy_finest_pos(h, rank);
}

long long MPII_Hier_hierarchy_finest_start(const MPII_Hier_hierarchy * h, const int *col,
                                           int rank)
{
    return MPII_Hier_hierarchy_block_at(h, col, rank) - MPII_Hier_hierarchy_finest_pos(h, rank);
}

/* ranks r and s share their first column + 1 keys */
static int same_prefix(int depth, const long *keys, int r, int s, int column)
{
    for (int k = 0; k <= column; k++)
        if (keys[(long) r * depth + k] != keys[(long) s * depth + k])
            return 0;
    return 1;
}

int MPII_Hier_keys_split(int nranks, int depth, const long *keys, int *group_of, int *ngroups)
{
    int column = -1;
    for (int k = 0; k < depth && column < 0; k++)
        for (int r = 1; r < nranks && column < 0; r++)
            if (!same_prefix(depth, keys, 0, r, k))
                column = k;
    *ngroups = 0;
    for (int r = 0; r < nranks; r++) {
        group_of[r] = -1;
        if (column < 0 || keys[(long) r * depth + column] < 0)
            continue;
        /* the group of the lowest rank with the same prefix, or a new one */
        for (int s = 0; s < r && group_of[r] < 0; s++)
            if (group_of[s] >= 0 && same_prefix(depth, keys, r, s, column))
                group_of[r] = group_of[s];
        if (group_of[r] < 0)
            group_of[r] = (*ngroups)++;
    }
    return column;
}

int MPII_Hier_keys_common(int depth, const long *keys, int n, const int *ranks)
{
    int column = -1;
    for (int k = 0; k < depth; k++) {
        for (int i = 0; i < n; i++)
            if (keys[(long) ranks[i] * depth + k] < 0 || !same_prefix(depth, keys, ranks[0], ranks[i], k))
                return column;
        column = k;
    }
    return column;
}
