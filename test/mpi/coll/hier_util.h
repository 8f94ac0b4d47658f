/*
 * Helpers shared by the mpich-hier MPI tests: MPI_T cvar writes and pvar reads.
 */

#ifndef HIER_UTIL_H_INCLUDED
#define HIER_UTIL_H_INCLUDED

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIER_FAIL(...) \
    do { \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
        MPI_Abort(MPI_COMM_WORLD, 1); \
    } while (0)

/* MPICH test-suite verdict: every rank's error count summed, printed by rank 0 */
static inline void hier_report_errors(int errors)
{
    int rank, total;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf(" Found %d errors\n", total);
        else
            printf(" No Errors\n");
    }
}

static inline void hier_cvar_write_int(const char *name, int value)
{
    int index, count;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
        HIER_FAIL("no MPI_T cvar %s: is this MPICH built with mpich-hier?", name);
    MPI_T_cvar_handle_alloc(index, NULL, &handle, &count);
    if (MPI_T_cvar_write(handle, &value) != MPI_SUCCESS)
        HIER_FAIL("cannot write MPI_T cvar %s", name);
    MPI_T_cvar_handle_free(&handle);
}

static inline int hier_cvar_read_int(const char *name)
{
    int index, count, value;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
        HIER_FAIL("no MPI_T cvar %s: is this MPICH built with mpich-hier?", name);
    MPI_T_cvar_handle_alloc(index, NULL, &handle, &count);
    MPI_T_cvar_read(handle, &value);
    MPI_T_cvar_handle_free(&handle);
    return value;
}

/* The key columns of comm's hierarchy as the plugin builds them on one host
 * (hier_hierarchy.h): per rank, emulated switch, node, emulated package, from MPI's view
 * of nodes and the emulation CVARs (MPIR_CVAR_HIER_EMULATE_SWITCH_NODES, _PACKAGES: both
 * by the rank's node and place in MPI_COMM_WORLD).  *first .. *last: the columns the hier
 * reductions use (the node only under MPIR_CVAR_HIER_LEVELS=nodes).  Returns keys[3 *
 * size] (free it).  Collective over comm. */
/* The switches above my node as Slurm's topology/tree plugin gives them
 * (SLURM_TOPOLOGY_ADDR "spine.leaf.node", pattern "switch.switch.node"): one key for the
 * whole switch path, equal on two ranks exactly when their paths are (a hash: the tests'
 * topologies have a handful of switches); 0 without switches. */
static inline int hier_slurm_switch_key(void)
{
    const char *addr = getenv("SLURM_TOPOLOGY_ADDR");
    const char *pattern = getenv("SLURM_TOPOLOGY_ADDR_PATTERN");
    if (!addr || !pattern || !strstr(pattern, "switch"))
        return 0;
    const char *node = strrchr(addr, '.');
    unsigned hash = 2166136261u;
    for (const char *c = addr; node && c < node; c++)
        hash = (hash ^ (unsigned char) *c) * 16777619u;
    return (int) (hash & 0x7fffffff);
}

static inline int *hier_comm_keys(MPI_Comm comm, int *first, int *last)
{
    MPI_Comm node;
    int wrank, wsize, size, node_rank, node_size, lowest;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_size(comm, &size);
    /* my node in MPI_COMM_WORLD: its index (nodes numbered by lowest world rank), my place */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Allreduce(&wrank, &lowest, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    int *lowest_of = malloc(sizeof(int) * wsize), *keys = malloc(sizeof(int) * 3 * size);
    MPI_Allgather(&lowest, 1, MPI_INT, lowest_of, 1, MPI_INT, MPI_COMM_WORLD);
    int node_index = 0;
    for (int r = 0; r < lowest; r++)
        node_index += lowest_of[r] == r;        /* r is the lowest rank of a node before mine */
    free(lowest_of);
    int sw = hier_cvar_read_int("MPIR_CVAR_HIER_EMULATE_SWITCH_NODES");
    int pkg = hier_cvar_read_int("MPIR_CVAR_HIER_EMULATE_PACKAGES");
    int mine[3] = { sw > 0 ? node_index / sw : hier_slurm_switch_key(), node_index,
                    pkg > 0 ? node_rank * pkg / node_size : 0 };
    MPI_Allgather(mine, 3, MPI_INT, keys, 3, MPI_INT, comm);
    int nodes_only = hier_cvar_read_int("MPIR_CVAR_HIER_LEVELS") == 1;
    *first = nodes_only ? 1 : 0;
    *last = nodes_only ? 1 : 2;
    return keys;
}

/* ranks q and r share their keys of columns first .. k */
static inline int hier_same_prefix(const int *keys, int first, int k, int q, int r)
{
    for (int i = first; i <= k; i++)
        if (keys[3 * q + i] != keys[3 * r + i])
            return 0;
    return 1;
}

/* The number of groups of column k (with the columns from first before it). */
static inline int hier_groups(const int *keys, int size, int first, int k)
{
    int groups = 0;
    for (int r = 0; r < size; r++) {
        int new_group = 1;
        for (int q = 0; q < r && new_group; q++)
            new_group = !hier_same_prefix(keys, first, k, q, r);
        groups += new_group;
    }
    return groups;
}

/* The levels the plugin keeps among columns first .. last: a column is dropped when every
 * group equals its parent or every group is one rank (hier_hierarchy.h). */
static inline int hier_kept_levels(const int *keys, int size, int first, int last)
{
    int kept = 0, above = 1;    /* groups of the level above: the comm */
    for (int k = first; k <= last; k++) {
        int groups = hier_groups(keys, size, first, k);
        kept += groups != above && groups != size;
        above = groups;
    }
    return kept;
}

/* Every group of columns first .. last is one block of consecutive ranks: what the hier
 * reductions need for non-commutative ops. */
static inline int hier_groups_are_blocks(const int *keys, int size, int first, int last)
{
    for (int k = first; k <= last; k++)
        for (int r = 1; r < size; r++)
            if (!hier_same_prefix(keys, first, k, r - 1, r))
                for (int q = 0; q < r - 1; q++)
                    if (hier_same_prefix(keys, first, k, q, r))
                        return 0;       /* r's group came back after another one */
    return 1;
}

/* Whether comm has a single level for the plugin: no level of its hierarchy splits
 * anything (one node that no emulated package splits, or one rank on each node and no
 * emulated switch groups nodes).  Collective over comm. */
static inline int hier_comm_is_one_level(MPI_Comm comm)
{
    int size, first, last;
    MPI_Comm_size(comm, &size);
    int *keys = hier_comm_keys(comm, &first, &last);
    int kept = hier_kept_levels(keys, size, first, last);
    free(keys);
    return kept == 0;
}

/* An invocation counter of the plugin (e.g. "coll_hier_bcast_hier_count"). */
typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
} hier_pvar;

static inline void hier_pvar_open(hier_pvar * pv, const char *name)
{
    int index, count;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS)
        HIER_FAIL("no MPI_T pvar %s: is this MPICH built with mpich-hier?", name);
    MPI_T_pvar_session_create(&pv->session);
    MPI_T_pvar_handle_alloc(pv->session, index, NULL, &pv->handle, &count);
}

static inline unsigned long long hier_pvar_read(hier_pvar * pv)
{
    unsigned long long value = 0;
    MPI_T_pvar_read(pv->session, pv->handle, &value);
    return value;
}

static inline void hier_pvar_close(hier_pvar * pv)
{
    MPI_T_pvar_handle_free(pv->session, &pv->handle);
    MPI_T_pvar_session_free(&pv->session);
}

#endif /* HIER_UTIL_H_INCLUDED */
