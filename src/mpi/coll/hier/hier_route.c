/*
 * mpich-hier: the CH4 hook that lets MPIR-level choices of plugin algorithms reach
 * parent comms (maint/patches/04): a call goes to the MPIR level only when its
 * selection, the forced CVAR or the user's tree, is one of the plugin's algorithms.
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

/* Whether the user (or the site: MPII_Hier_route_mpir_tree) gave an MPIR tree and no CH4
 * tree, read once at MPI_Init: the trees are built then, and MPI_T_finalize frees the
 * CVARs' strings (MPIR_T_env_finalize) while the collectives go on. */
static int mpir_tree_only;

static int ch4_tree_given(void)
{
    return MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE &&
        MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE[0];
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

int MPII_Hier_wants_mpir_level(MPIR_Comm * comm, MPIR_Csel_coll_sig_s * coll_sig)
{
    int forced, route = 0;

    if (!MPIR_Comm_is_parent_comm(comm))
        return 0;
    route = forced_plugin_algorithm(coll_sig->coll_type, &forced);
    /* a stock CVAR value keeps its stock meaning; without one, the user's (or site's)
     * MPIR tree decides (MPICH's built-in MPIR tree names no plugin algorithm), unless a user CH4
     * tree is given: its choices (gamma: MPIR on the whole comm) stand */
    if (!forced && mpir_tree_only && comm->csel_comm) {
        MPII_Csel_container_s *cnt = MPIR_Csel_search(comm->csel_comm, *coll_sig);
        route = cnt && MPII_Hier_csel_is_plugin_container(cnt->id);
    }
    if (route)
        MPII_HIER_PVAR_ADD(MPIR_ROUTED, 1);
    return route;
}
