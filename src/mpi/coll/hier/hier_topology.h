/*
 * mpich-hier: switch levels above the node (pure logic, no MPI).
 *
 * A rank's switch path names the switches above its node, top-level switch first, joined
 * by '.' (Slurm's notation): "spine0.leaf3".  It comes from
 *
 *   source                        form
 *   ---------------------------   ------------------------------------------------------
 *   Slurm (topology/tree plugin)  SLURM_TOPOLOGY_ADDR="spine0.leaf3.node12" with
 *                                 SLURM_TOPOLOGY_ADDR_PATTERN="switch.switch.node"
 *   a topology file               one line per node: HOST SWITCH... (top first); '#' starts a
 *                                 comment; blank lines are skipped
 *
 * and the ranks' paths become the keys of hier_hierarchy.h: one key per switch level, equal
 * keys for equal path prefixes.  Paths of different lengths are aligned at the leaf (a
 * shorter path shares an unnamed top), so every node's leaf switch is the finest level.
 */

#ifndef HIER_TOPOLOGY_H_INCLUDED
#define HIER_TOPOLOGY_H_INCLUDED

#include <stddef.h>

/* Longest switch path kept (bytes, with the terminating NUL). */
#define MPII_HIER_SWITCH_PATH_MAX 256
/* Most switch levels. */
#define MPII_HIER_SWITCH_LEVELS_MAX 8

/* The switch components of a Slurm address, in order, joined by '.' into path[len].  Returns
 * the number of switches (0: none, e.g. no topology plugin), or -1 when the two variables do
 * not match (other counts of components, a type other than switch or node, an empty name, a
 * switch after the node, or a path that does not fit). */
int MPII_Hier_switch_path_from_slurm(const char *addr, const char *pattern, char *path, size_t len);

/* The switch path of `host` in a topology file's text.  Returns the number of switches,
 * 0 when the host has no line, or -1 for a malformed file (a host twice, a name with '.',
 * a host line without switches, too many levels, too long); *bad_line is then the line
 * number (1-based). */
int MPII_Hier_switch_path_from_file(const char *text, const char *host, char *path, size_t len,
                                    int *bad_line);

/* Number of components of a path ("" has none). */
int MPII_Hier_switch_path_depth(const char *path);

/* keys[r * depth + k] (k = 0 .. depth - 1, depth the longest path's) = the lowest rank
 * whose path, aligned at the leaf, has the same first k + 1 components; paths[r] is rank r's
 * path.  depth is MPII_Hier_switch_keys_depth(nranks, paths). */
int MPII_Hier_switch_keys_depth(int nranks, const char *const *paths);
void MPII_Hier_switch_keys(int nranks, const char *const *paths, int depth, long *keys);

#endif /* HIER_TOPOLOGY_H_INCLUDED */
