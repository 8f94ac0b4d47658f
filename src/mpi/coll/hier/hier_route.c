/*
 * mpich-hier: the CH4 hook that lets MPIR-level choices reach parent comms whole
 * (maint/patches/04): a call goes to the MPIR level only when its selection is one of
 * the plugin's algorithms (forced CVAR, the user's or site's tree) or one of MPICH's own
 * that the tree marks whole_comm=1 (MPII_HIER_WHOLE_COMM_PARAM).
 */

#include "hier_impl.h"

/* The plugin's items of the MPIR_CVAR_<COLL>_INTRA_ALGORITHM enums come after MPICH's
 * own, from hier on (maint/patches/01). */
static int forced_plugin_algorithm(int coll_type, int *forced)
{
    switch (coll_type) {
#define FORCED_(coll_, Coll_, COLL_) \
        case MPIR_CSEL_COLL_TYPE__##COLL_: \
            *forced = MPIR_CVAR_##COLL_##_INTRA_ALGORITHM != \
                MPIR_CVAR_##COLL_##_INTRA_ALGORITHM_auto; \
            return MPIR_CVAR_##COLL_##_INTRA_ALGORITHM >= MPIR_CVAR_##COLL_##_INTRA_ALGORITHM_hier;
            MPII_HIER_COLLECTIVES(FORCED_)
#undef FORCED_
        default:
            *forced = 0;
            return 0;
    }
}

/* Whether the user or the site (MPII_Hier_route_mpir_tree) gave an MPIR tree and no CH4
 * tree, read once at MPI_Init: the trees are built then, and MPI_T_finalize frees the
 * CVARs' strings (MPIR_T_env_finalize) while the collectives go on. */
static int mpir_tree_only;

/* The containers of the given tree's leaves that name one of MPICH's algorithms with
 * whole_comm=1 (hiertune's tuned choices), recorded as MPICH's parser creates them: the
 * per-comm pruned trees share them. */
static const void **whole_comm_containers;
static int n_whole_comm, whole_comm_capacity;

static int ch4_tree_given(void)
{
    return MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE &&
        MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE[0];
}

static int free_whole_comm_containers(void *unused)
{
    (void) unused;
    MPL_free(whole_comm_containers);
    whole_comm_containers = NULL;
    n_whole_comm = whole_comm_capacity = 0;
    return MPI_SUCCESS;
}

void MPII_Hier_route_init(void)
{
    mpir_tree_only = MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE &&
        MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE[0] && !ch4_tree_given();
}

void MPII_Hier_route_mpir_tree(void)
{
    mpir_tree_only = !ch4_tree_given();
}

void *MPII_Hier_create_container(struct json_object *leaf)
{
    void *cnt = MPII_Create_container(leaf);
    if (cnt && MPII_Hier_whole_comm_leaf(leaf)) {
        if (n_whole_comm == whole_comm_capacity) {
            int capacity = whole_comm_capacity ? 2 * whole_comm_capacity : 16;
            const void **grown = MPL_realloc(whole_comm_containers, capacity * sizeof(*grown),
                                             MPL_MEM_COLL);
            /* without room the choice keeps the device's path: slower, never wrong */
            if (!grown)
                return cnt;
            if (!whole_comm_containers)
                MPIR_Add_finalize(free_whole_comm_containers, NULL, MPIR_FINALIZE_CALLBACK_PRIO - 1);
            whole_comm_containers = grown;
            whole_comm_capacity = capacity;
        }
        whole_comm_containers[n_whole_comm++] = cnt;
    }
    return cnt;
}

static int whole_comm_container(const void *cnt)
{
    for (int i = 0; i < n_whole_comm; i++)
        if (whole_comm_containers[i] == cnt)
            return 1;
    return 0;
}

int MPII_Hier_wants_mpir_level(MPIR_Comm * comm, MPIR_Csel_coll_sig_s * coll_sig)
{
    int forced, route = 0;

    if (!MPIR_Comm_is_parent_comm(comm))
        return 0;
    route = forced_plugin_algorithm(coll_sig->coll_type, &forced);
    /* a stock CVAR value keeps its stock meaning; without one, the user's (or site's)
     * MPIR tree decides: its plugin algorithms and MPICH's own marked whole_comm=1 go to
     * the MPIR level, unless a user CH4 tree is given: its choices (gamma: MPIR on the
     * whole comm) stand */
    if (!forced && mpir_tree_only && comm->csel_comm) {
        MPII_Csel_container_s *cnt = MPIR_Csel_search(comm->csel_comm, *coll_sig);
        route = cnt && (MPII_Hier_csel_is_plugin_container(cnt->id) ||
                        whole_comm_container(cnt));
    }
    if (route)
        MPII_HIER_PVAR_ADD(MPIR_ROUTED, 1);
    return route;
}
