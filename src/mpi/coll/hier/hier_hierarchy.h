/*
 * mpich-hier: N-level hierarchies (pure logic, no MPI).
 *
 * Every rank of a communicator has a path of keys, coarsest first: e.g. its leaf switch,
 * its node, its package.  Ranks with equal first k+1 keys form one group of input level
 * k, so each level's groups nest in the previous level's (the communicator itself is the
 * one group above level 0).  A level is kept only if it splits something:
 *
 *   dropped when            because
 *   ---------------------   ---------------------------------------------------------------
 *   every group equals its  nothing is split (one switch, or one package per node)
 *   parent group
 *   every group is 1 rank   nothing is left to do inside a group (one rank per node)
 *
 * Kept levels are numbered 0 (coarsest) .. nlevels - 1 (finest; its groups hold ranks).
 * Groups are numbered per level by their lowest rank, members in rank order, and a group's
 * subgroups (the groups of the next level inside it) by their lowest rank too.
 *
 * Leaders, HAN's columns generalised to N levels.  For a root, col[k] (k = 0 .. nlevels - 1)
 * is the position of the root's level-k group among its siblings (level 0: among all level-0
 * groups), and col[nlevels] the root's position in its finest group.  Then
 *
 *   finest group G:       leader = member (col[nlevels] mod |G|) of G
 *   group G of level k:   leader = leader of subgroup (col[k + 1] mod nsub(G)) of G
 *
 * so the root leads every group it is in, every group has exactly one leader per root, and
 * a group's leader also leads one of its subgroups: data that reached a level-k leader is
 * already where the level-(k+1) step starts.  Two levels (nodes only: the hierarchy of the
 * node key alone) give HAN's rule: for a root at local rank j, node n is led by its member
 * (j mod size_n).
 */

#ifndef HIER_HIERARCHY_H_INCLUDED
#define HIER_HIERARCHY_H_INCLUDED

typedef struct {
    int source;                 /* index of this level among the input keys */
    int ngroups;
    int *group_of;              /* [nranks] group of each rank */
    int *local_of;              /* [nranks] rank's position in its group */
    int *group_start;           /* [ngroups + 1] where each group's members start */
    int *members;               /* [nranks] ranks grouped by group, ascending */
    int *parent;                /* [ngroups] group of the level above (0 for level 0) */
    int *sub_start;             /* [ngroups + 1] where each group's subgroups start */
    int *subs;                  /* subgroups (groups of the next level) per group, by lowest rank;
                                 * empty for the finest level */
} MPII_Hier_level;

typedef struct {
    int nranks;
    int nlevels;                /* kept levels; 0 when no level splits anything */
    MPII_Hier_level *level;     /* [nlevels], coarsest first */
} MPII_Hier_hierarchy;

/* keys: nranks rows of depth keys, coarsest first (keys[r * depth + k]).  Returns 0, or -1
 * on bad input (nranks < 1, depth < 0, keys NULL with depth > 0) or allocation failure
 * (the hierarchy is then left empty). */
int MPII_Hier_hierarchy_build(MPII_Hier_hierarchy * h, int nranks, int depth, const long *keys);
void MPII_Hier_hierarchy_free(MPII_Hier_hierarchy * h);

int MPII_Hier_hierarchy_group_size(const MPII_Hier_hierarchy * h, int level, int group);
int MPII_Hier_hierarchy_nsubs(const MPII_Hier_hierarchy * h, int level, int group);

/* col[0 .. nlevels] for root, as in the comment above */
void MPII_Hier_hierarchy_columns(const MPII_Hier_hierarchy * h, int root, int *col);

/* communicator rank of the leader of `group` of `level` for the columns col */
int MPII_Hier_hierarchy_leader(const MPII_Hier_hierarchy * h, int level, int group, const int *col);

/* Position of `group` of `level` among its siblings: the subgroups of its parent (level 0:
 * among all level-0 groups, its index). */
int MPII_Hier_hierarchy_sibling(const MPII_Hier_hierarchy * h, int level, int group);

/* Every group of every level is one block of consecutive ranks, so combining group by
 * group in sibling order is combining in rank order (non-commutative reductions). */
int MPII_Hier_hierarchy_is_rank_ordered(const MPII_Hier_hierarchy * h);

/* The steps of a collective rooted where col says, seen from rank me.  A collective over N
 * = nlevels levels has N + 1 steps:
 *
 *   step k < N   the leaders of the level-k groups inside one level-(k - 1) group (k = 0:
 *                of all level-0 groups); rooted at that group's leader
 *   step N       the ranks of one finest group; rooted at its leader
 *
 * A bcast runs them 0 .. N (each step's root received the data in the step before), a
 * reduce N .. 0.  Per step: in (me takes part, and the step has more than one member),
 * instance (which of the step's disjoint member sets: the level-(k - 1) group, 0 for k =
 * 0, the finest group for k = N), pos (me's position in it: its level-k group's sibling
 * position, its rank in the finest group), size (members) and root (the root's
 * position).  Positions follow rank order within each instance. */
typedef struct {
    int in;
    int instance;
    int pos;
    int size;
    int root;
} MPII_Hier_step_place;

/* place: [nlevels + 1]; nothing to do when nlevels is 0 */
void MPII_Hier_hierarchy_steps(const MPII_Hier_hierarchy * h, const int *col, int me,
                               MPII_Hier_step_place * place);

/* The barrier's phases over nsteps = N + 1 steps, the order both of its forms run: phase
 * i = 0 .. 2N - fan in at steps N .. 1 (finest first), the barrier among the top step's
 * members (step 0), fan out at steps 1 .. N.  Sets *step to the phase's step (-1 and
 * returns MPII_HIER_PHASE_NONE for i outside 0 .. 2N or nsteps < 1). */
typedef enum {
    MPII_HIER_PHASE_NONE,
    MPII_HIER_PHASE_IN,
    MPII_HIER_PHASE_TOP,
    MPII_HIER_PHASE_OUT
} MPII_Hier_phase;
#define MPII_HIER_BARRIER_NPHASES(nsteps) (2 * (nsteps) - 1)
MPII_Hier_phase MPII_Hier_barrier_phase(int nsteps, int i, int *step);

/* Gathered layouts (the hier gather, scatter and allgather): every rank's block, one after
 * the other, in the stages of the steps' members.  At step k < N a member's stage holds the
 * blocks of its own level-k group first, then those of the other members of its subtree in
 * the step's tree, members in relative order from the step's root (position (root + rel)
 * mod size), so that any run of consecutive relative positions (a subtree of a LINEAR or
 * BINOMIAL tree) is one piece; a member leads its group at every finer step, where it
 * stands first, so what it gathered there is already in place.  The finest step keeps its
 * group's blocks in rank order (MPICH's gather and scatter on the group's comm).  With no
 * levels the one step is the whole comm, ranks in relative order from the root.
 *
 * MPII_Hier_hierarchy_step_offsets: offset[rel] (rel = 0 .. size, in blocks) where the
 * member at relative position rel starts, for step `level` < N of `instance` rooted at
 * position root: each member weighs the ranks of its level-`level` group. */
void MPII_Hier_hierarchy_step_offsets(const MPII_Hier_hierarchy * h, int level, int instance,
                                      int root, long long *offset);
/* Where rank's block lies (in blocks) in the stage of the root given by col */
long long MPII_Hier_hierarchy_block_at(const MPII_Hier_hierarchy * h, const int *col, int rank);
/* Step `step` (0 .. N) of `instance` as runs of consecutive ranks, for a hierarchy whose
 * groups are blocks of consecutive ranks (MPII_Hier_hierarchy_is_rank_ordered): first[m]
 * (m = 0 .. size) the lowest rank of member m's group (step N: member m itself), first[size]
 * one past the last member's; returns size, the step's members.  With no levels the one
 * step is every rank.  first: room for size + 1. */
int MPII_Hier_hierarchy_member_starts(const MPII_Hier_hierarchy * h, int step, int instance,
                                      int *first);
/* rank's position in its finest group (0 with no levels) */
int MPII_Hier_hierarchy_finest_pos(const MPII_Hier_hierarchy * h, int rank);
/* Where rank's finest group starts (in blocks) in that stage: its block less its finest
 * position; for a rank that leads its level-k group, where that group starts too. */
long long MPII_Hier_hierarchy_finest_start(const MPII_Hier_hierarchy * h, const int *col,
                                           int rank);

/* The hierarchical communicators of the MPIX API (hierarchical-communicators paper,
 * section 3) on the same key paths as MPII_Hier_hierarchy_build, where a negative key
 * below the node means "not bound that deep".
 *
 * MPII_Hier_keys_split: MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY's split, the first column whose
 * prefixes do not keep every rank in one group (returned; -1 when there is none: the
 * bottom).  group_of[r] (nranks entries): r's group there, groups numbered from 0 by
 * lowest rank, or -1 when r's key there is negative (no communicator: its binding does
 * not go that deep); *ngroups the groups.  Unlike the levels of the collectives, a column
 * that splits the ranks into single ranks is a split here. */
int MPII_Hier_keys_split(int nranks, int depth, const long *keys, int *group_of, int *ngroups);

/* MPIX_Comm_get_min_hlevel: the finest column whose prefix the n listed ranks share, with
 * no negative key in it; -1 when they share not even the first. */
int MPII_Hier_keys_common(int depth, const long *keys, int n, const int *ranks);

#endif /* HIER_HIERARCHY_H_INCLUDED */
