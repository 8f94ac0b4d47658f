/*
 * mpich-hier: the N-level hierarchy of a communicator (hier_hierarchy.h over MPI): every
 * rank's keys (switches, node, hwloc levels below the node), gathered when first needed.
 * Its communicators are hier_comm.c's.
 */

#include "hier_impl.h"
#include "hier_topology.h"
#include "mpir_hwtopo.h"
#include <errno.h>

/* Key columns: the switch levels, the node, then the levels below the node. */
#define BELOW_NODE_LEVELS 3
static const char *const below_node_name[BELOW_NODE_LEVELS] = { "Package", "NUMANode", "L3Cache" };

static const MPIR_hwtopo_type_e below_node_type[BELOW_NODE_LEVELS] = {
    MPIR_HWTOPO_TYPE__PACKAGE, MPIR_HWTOPO_TYPE__DDR, MPIR_HWTOPO_TYPE__L3CACHE
};

/* A path no switch can have ('.' separates names): this rank failed to read its own. */
#define FAILED_PATH ".failed"

/* The text of MPIR_CVAR_HIER_TOPOLOGY_FILE in *text (MPL_free it), NULL where it cannot
 * be read (errno says why). */
static int read_topology_file(char **text)
{
    int mpi_errno = MPI_SUCCESS;
    FILE *f = fopen(MPIR_CVAR_HIER_TOPOLOGY_FILE, "r");

    *text = NULL;
    if (!f)
        goto fn_exit;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size >= 0)
        *text = MPL_malloc(size + 1, MPL_MEM_COLL);
    if (*text) {
        size = (long) fread(*text, 1, size, f);
        (*text)[size] = '\0';
    } else if (size >= 0) {
        MPIR_ERR_SET(mpi_errno, MPI_ERR_OTHER, "**nomem");
    } else {
        errno = EISDIR;         /* ftell of a directory */
    }
    fclose(f);
  fn_exit:
    return mpi_errno;
}

/* MPI_Init: a topology file that cannot be read or has a malformed line ends MPI_Init
 * with one line naming the variable (the file is read again when a comm's hierarchy is
 * built: only then is the host's own line looked up). */
int MPII_Hier_check_topology_file(void)
{
    int mpi_errno = MPI_SUCCESS, bad_line = 0;
    char path[MPII_HIER_SWITCH_PATH_MAX], *text = NULL;
    const char *file = MPIR_CVAR_HIER_TOPOLOGY_FILE;

    if (!file || !file[0])
        goto fn_exit;
    mpi_errno = read_topology_file(&text);
    MPIR_ERR_CHECK(mpi_errno);
    if (!text) {
        MPL_error_printf("mpich-hier: MPIR_CVAR_HIER_TOPOLOGY_FILE=%s cannot be read (%s): it "
                         "accepts a readable file of lines \"HOST SWITCH...\"\n", file,
                         strerror(errno));
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                             "MPIR_CVAR_HIER_TOPOLOGY_FILE cannot be read");
    }
    if (MPII_Hier_switch_path_from_file(text, "", path, sizeof(path), &bad_line) < 0) {
        MPL_error_printf("mpich-hier: MPIR_CVAR_HIER_TOPOLOGY_FILE=%s: line %d is malformed: "
                         "it accepts lines \"HOST SWITCH...\" (at most %d switches, no '.' in "
                         "a name), each host once\n", file, bad_line, MPII_HIER_SWITCH_LEVELS_MAX);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                             "MPIR_CVAR_HIER_TOPOLOGY_FILE has a malformed line");
    }
  fn_exit:
    MPL_free(text);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* This rank's switch path (hier_topology.h), from the topology file or Slurm. */
static int my_switch_path(char *path)
{
    int mpi_errno = MPI_SUCCESS, bad_line = 0, n;
    char *text = NULL;

    path[0] = '\0';
    if (MPIR_CVAR_HIER_EMULATE_SWITCH_NODES > 0)
        goto fn_exit;   /* keyed from the node index instead */
    if (MPIR_CVAR_HIER_TOPOLOGY_FILE[0] != '\0') {
        char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
        int len = 0;
        mpi_errno = read_topology_file(&text);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_ERR_CHKANDJUMP1(!text, mpi_errno, MPI_ERR_OTHER, "**arg", "**arg %s",
                             "MPIR_CVAR_HIER_TOPOLOGY_FILE cannot be opened");
        mpi_errno = MPID_Get_processor_name(host, MPI_MAX_PROCESSOR_NAME, &len);
        MPIR_ERR_CHECK(mpi_errno);
        n = MPII_Hier_switch_path_from_file(text, host, path, MPII_HIER_SWITCH_PATH_MAX, &bad_line);
        MPIR_ERR_CHKANDJUMP2(n < 0, mpi_errno, MPI_ERR_OTHER, "**argneg", "**argneg %s %d",
                             "MPIR_CVAR_HIER_TOPOLOGY_FILE: malformed line", bad_line);
    } else {
        n = MPII_Hier_switch_path_from_slurm(getenv("SLURM_TOPOLOGY_ADDR"),
                                             getenv("SLURM_TOPOLOGY_ADDR_PATTERN"), path,
                                             MPII_HIER_SWITCH_PATH_MAX);
        if (n < 0)
            path[0] = '\0';     /* an address we cannot read: no switch levels from it */
    }

  fn_exit:
    MPL_free(text);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Keys of the levels below the node: the hwloc object of each type holding this rank's
 * binding, -1 from the first type whose object the binding does not fit in (unbound
 * ranks have no level below the node); or the emulated packages. */
static int my_below_node_keys(long *keys)
{
    int mpi_errno = MPI_SUCCESS, bound = 1;
    for (int i = 0; i < BELOW_NODE_LEVELS; i++)
        keys[i] = -1;
    if (MPIR_CVAR_HIER_EMULATE_PACKAGES > 0) {
        /* by my place on my node in MPI_COMM_WORLD, so that every communicator sees the
         * same emulated packages */
        MPIR_Comm *world = MPIR_Process.comm_world;
        int mine, id, local = 0, node_size = 0;
        mpi_errno = MPID_Get_node_id(world, world->rank, &mine);
        for (int r = 0; r < world->local_size && !mpi_errno; r++) {
            mpi_errno = MPID_Get_node_id(world, r, &id);
            node_size += id == mine;
            local += id == mine && r < world->rank;
        }
        keys[0] = (long) local *MPIR_CVAR_HIER_EMULATE_PACKAGES / node_size;
        return mpi_errno;
    }
    if (!MPIR_hwtopo_is_initialized())
        return MPI_SUCCESS;
    for (int i = 0; i < BELOW_NODE_LEVELS && bound; i++) {
        MPIR_hwtopo_gid_t gid = MPIR_hwtopo_get_obj_by_type(below_node_type[i]);
        bound = gid != MPIR_HWTOPO_GID_ROOT;
        if (bound)
            keys[i] = MPIR_hwtopo_get_lid(gid);
    }
    return MPI_SUCCESS;
}

/* A key column's type: "Switch" above the node, then "Node", then the hwloc types. */
const char *MPII_Hier_column_type(const MPII_Hier_comm * hier, int column)
{
    if (column < hier->switch_levels)
        return "Switch";
    if (column == hier->switch_levels)
        return "Node";
    return MPIR_CVAR_HIER_EMULATE_PACKAGES > 0 ? "Package" :
        below_node_name[column - hier->switch_levels - 1];
}

const char *MPII_Hier_level_type(const MPII_Hier_comm * hier, int level)
{
    return MPII_Hier_column_type(hier, hier->hierarchy.level[level].source);
}

static void dump(MPIR_Comm * comm, MPII_Hier_comm * hier)
{
    const MPII_Hier_hierarchy *h = &hier->hierarchy;
    int *col = MPL_malloc(sizeof(int) * (h->nlevels + 1), MPL_MEM_COLL);
    if (!col)
        return;
    fprintf(stderr, "mpich-hier: comm %x (%d ranks): %d level%s\n", comm->handle, h->nranks,
            h->nlevels, h->nlevels == 1 ? "" : "s");
    if (h->nlevels > 0)
        MPII_Hier_hierarchy_columns(h, 0, col);
    for (int l = 0; l < h->nlevels; l++) {
        const MPII_Hier_level *lv = &h->level[l];
        int emulated = MPIR_CVAR_HIER_EMULATE_PACKAGES > 0 && lv->source > hier->switch_levels;
        fprintf(stderr, "mpich-hier:   level %d %s%s: %d groups\n", l, MPII_Hier_level_type(hier, l),
                emulated ? " (emulated)" : "", lv->ngroups);
        for (int g = 0; g < lv->ngroups; g++) {
            fprintf(stderr, "mpich-hier:     group %d (in %d) leader %d ranks", g, lv->parent[g],
                    MPII_Hier_hierarchy_leader(h, l, g, col));
            for (int i = lv->group_start[g]; i < lv->group_start[g + 1]; i++)
                fprintf(stderr, " %d", lv->members[i]);
            fprintf(stderr, "\n");
        }
    }
    MPL_free(col);
}

/* What each rank contributes: its switch path and its keys below the node. */
typedef struct {
    char path[MPII_HIER_SWITCH_PATH_MAX];
    long below[BELOW_NODE_LEVELS];
} rank_record;

/* index_of_id[node id]: the node's index in MPI_COMM_WORLD, nodes numbered by their lowest
 * rank there, so that emulated switches group the same nodes in every communicator.
 * Returns the array (free it), NULL when allocating it failed. */
static int *world_node_indices(int *mpi_errno)
{
    MPIR_Comm *world = MPIR_Process.comm_world;
    int max_id, id, next = 0, *index_of_id = NULL;

    *mpi_errno = MPID_Get_max_node_id(world, &max_id);
    if (*mpi_errno)
        return NULL;
    index_of_id = MPL_malloc(sizeof(int) * (max_id + 1), MPL_MEM_COLL);
    if (!index_of_id)
        return NULL;
    for (int i = 0; i <= max_id; i++)
        index_of_id[i] = -1;
    for (int r = 0; r < world->local_size && !*mpi_errno; r++) {
        *mpi_errno = MPID_Get_node_id(world, r, &id);
        if (!*mpi_errno && index_of_id[id] < 0)
            index_of_id[id] = next++;
    }
    return index_of_id;
}

/* Every rank's nswitch switch keys: from the paths, or with
 * MPIR_CVAR_HIER_EMULATE_SWITCH_NODES, one key: its node's index / that many nodes */
static int fill_switch_keys(MPIR_Comm * comm, const char **path_of, int nswitch, long *keys)
{
    int mpi_errno = MPI_SUCCESS, id, *node_index;

    if (MPIR_CVAR_HIER_EMULATE_SWITCH_NODES <= 0) {
        MPII_Hier_switch_keys(comm->local_size, path_of, nswitch, keys);
        return MPI_SUCCESS;
    }
    node_index = world_node_indices(&mpi_errno);
    if (!mpi_errno && !node_index)
        mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                         MPI_ERR_OTHER, "**nomem", 0);
    for (int r = 0; r < comm->local_size && !mpi_errno; r++) {
        mpi_errno = MPID_Get_node_id(comm, r, &id);
        keys[r] = mpi_errno ? 0 : node_index[id] / MPIR_CVAR_HIER_EMULATE_SWITCH_NODES;
    }
    MPL_free(node_index);
    return mpi_errno;
}

int MPII_Hier_hierarchy_get(MPIR_Comm * comm, MPII_Hier_comm * hier,
                            const MPII_Hier_hierarchy ** hierarchy)
{
    int mpi_errno = MPI_SUCCESS;
    int size = comm->local_size;
    rank_record *rec = NULL;
    const char **path_of = NULL;
    long *switch_keys = NULL, *keys = NULL;

    if (hier->hierarchy_ready) {
        *hierarchy = &hier->hierarchy;
        return MPI_SUCCESS;
    }

    /* every rank's record, one allgather; a rank that failed to read its own still takes
     * part (nobody waits for it) and marks its path */
    rec = MPL_calloc(size, sizeof(rank_record), MPL_MEM_COLL);
    path_of = MPL_malloc(sizeof(char *) * size, MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!rec || !path_of, mpi_errno, MPI_ERR_OTHER, "**nomem");
    rank_record *mine = &rec[comm->rank];
    int my_errno = my_switch_path(mine->path);
    if (my_errno == MPI_SUCCESS)
        my_errno = my_below_node_keys(mine->below);
    if (my_errno != MPI_SUCCESS)
        strcpy(mine->path, FAILED_PATH);
    MPII_Hier_guard_enter();
    mpi_errno = MPIR_Allgather_impl(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rec, sizeof(rank_record),
                                    MPIR_BYTE_INTERNAL, comm, MPIR_COLL_ATTR_SYNC);
    MPII_Hier_guard_leave();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = my_errno;
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; r < size; r++) {
        path_of[r] = rec[r].path;
        MPIR_ERR_CHKANDJUMP1(strcmp(path_of[r], FAILED_PATH) == 0, mpi_errno, MPI_ERR_OTHER,
                             "**arg", "**arg %s", "another rank could not read its switch path");
    }
    int nswitch = MPIR_CVAR_HIER_EMULATE_SWITCH_NODES > 0 ? 1 :
        MPII_Hier_switch_keys_depth(size, path_of);
    hier->switch_levels = nswitch;

    /* the key columns, the same on every rank from what all ranks sent */
    int depth = nswitch + 1 + BELOW_NODE_LEVELS;
    keys = MPL_malloc(sizeof(long) * size * depth, MPL_MEM_COLL);
    switch_keys = MPL_malloc(sizeof(long) * size * (nswitch > 0 ? nswitch : 1), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(!keys || !switch_keys, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = fill_switch_keys(comm, path_of, nswitch, switch_keys);
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; r < size; r++) {
        long *row = &keys[(long) r * depth];
        for (int k = 0; k < nswitch; k++)
            row[k] = switch_keys[(long) r * nswitch + k];
        int node_id;
        mpi_errno = MPID_Get_node_id(comm, r, &node_id);
        MPIR_ERR_CHECK(mpi_errno);
        row[nswitch] = node_id;
        for (int i = 0; i < BELOW_NODE_LEVELS; i++)
            row[nswitch + 1 + i] = rec[r].below[i];
    }

    MPIR_ERR_CHKANDJUMP(MPII_Hier_hierarchy_build(&hier->hierarchy, size, depth, keys) != 0,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    hier->keys = keys;          /* kept for the MPIX queries */
    keys = NULL;
    hier->depth = depth;
    hier->hierarchy_ready = 1;
    if (MPIR_CVAR_HIER_DUMP && comm->rank == 0)
        dump(comm, hier);
    *hierarchy = &hier->hierarchy;

  fn_exit:
    MPL_free(rec);
    MPL_free(path_of);
    MPL_free(switch_keys);
    MPL_free(keys);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
