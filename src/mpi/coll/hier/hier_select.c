/*
 * mpich-hier: what MPICH's selection needs from the plugin: pvars, the check of the
 * tuning file at MPI_Init, and the CH4 hook that lets MPIR-level choices of plugin
 * algorithms reach parent comms (the Csel JSON grammar is in hier_json.c).
 */

#include "hier_impl.h"

unsigned long long MPII_Hier_pvars[MPII_HIER_PVAR_COUNT];

static const struct {
    const char *name;
    const char *desc;
} pvar_info[MPII_HIER_PVAR_COUNT] = {
    [MPII_HIER_PVAR_BCAST_HIER] = {"coll_hier_bcast_hier_count",
                                   "number of MPI_Bcast calls run by MPIR_Bcast_intra_hier"},
    [MPII_HIER_PVAR_BCAST_HIER_SEGMENTS] = {"coll_hier_bcast_hier_segments",
                                            "pipeline segments moved by MPIR_Bcast_intra_hier"},
    [MPII_HIER_PVAR_REDUCE_HIER] = {"coll_hier_reduce_hier_count",
                                    "number of MPI_Reduce calls run by MPIR_Reduce_intra_hier"},
    [MPII_HIER_PVAR_REDUCE_HIER_SEGMENTS] = {"coll_hier_reduce_hier_segments",
                                             "pipeline segments moved by MPIR_Reduce_intra_hier"},
    [MPII_HIER_PVAR_ALLREDUCE_HIER] = {"coll_hier_allreduce_hier_count",
                                       "number of MPI_Allreduce calls run by MPIR_Allreduce_intra_hier"},
    [MPII_HIER_PVAR_ALLREDUCE_HIER_SEGMENTS] = {"coll_hier_allreduce_hier_segments",
                                                "pipeline segments moved by MPIR_Allreduce_intra_hier"},
    [MPII_HIER_PVAR_FLAT_FALLBACKS] = {"coll_hier_flat_fallbacks",
                                       "hier reduce/allreduce calls on several nodes run flat "
                                       "(non-commutative op, nodes not blocks of consecutive ranks)"},
    [MPII_HIER_PVAR_MPIR_ROUTED] = {"coll_hier_mpir_routed",
                                    "MPI_Bcast/Reduce/Allreduce calls on multi-node comms that the "
                                    "device handed to the MPIR level because a plugin algorithm "
                                    "was selected there (forced CVAR or the user's tree)"},
#define SEG_PVAR(ID_, coll_, algo_) \
    [MPII_HIER_PVAR_##ID_] = {"coll_hier_" #coll_ "_" #algo_ "_count", \
                              "number of MPI_" #coll_ " calls run by MPIR_" #coll_ "_intra_" #algo_}
    SEG_PVAR(BCAST_SEG_LINEAR, bcast, seg_linear),
    SEG_PVAR(BCAST_SEG_CHAIN, bcast, seg_chain),
    SEG_PVAR(BCAST_SEG_PIPELINE, bcast, seg_pipeline),
    SEG_PVAR(BCAST_SEG_BINARY, bcast, seg_binary),
    SEG_PVAR(BCAST_SEG_SPLIT_BINARY, bcast, seg_split_binary),
    SEG_PVAR(BCAST_SEG_BINOMIAL, bcast, seg_binomial),
    [MPII_HIER_PVAR_BCAST_SEG_SEGMENTS] = {"coll_hier_bcast_seg_segments",
                                           "segments of the calling rank's part of the "
                                           "payload in the MPIR_Bcast_intra_seg_* algorithms"},
    SEG_PVAR(REDUCE_SEG_LINEAR, reduce, seg_linear),
    SEG_PVAR(REDUCE_SEG_CHAIN, reduce, seg_chain),
    SEG_PVAR(REDUCE_SEG_PIPELINE, reduce, seg_pipeline),
    SEG_PVAR(REDUCE_SEG_BINARY, reduce, seg_binary),
    SEG_PVAR(REDUCE_SEG_BINOMIAL, reduce, seg_binomial),
    SEG_PVAR(REDUCE_SEG_IN_ORDER_BINARY, reduce, seg_in_order_binary),
#undef SEG_PVAR
    [MPII_HIER_PVAR_REDUCE_SEG_SEGMENTS] = {"coll_hier_reduce_seg_segments",
                                            "segments of the MPIR_Reduce_intra_seg_* algorithms"},
    [MPII_HIER_PVAR_REDUCE_SEG_IN_ORDER_SUBST] = {"coll_hier_reduce_seg_in_order_subst",
                                                  "seg reduces (blocking or hier inter-node) with a "
                                                  "non-commutative op that ran the in-order binary "
                                                  "tree instead of the tree asked for"},
};

int MPII_Hier_init(void)
{
    for (int i = 0; i < MPII_HIER_PVAR_COUNT; i++) {
        MPII_Hier_pvars[i] = 0;
        MPIR_T_PVAR_REGISTER_impl(MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG,
                                  pvar_info[i].name, &MPII_Hier_pvars[i], 1,
                                  MPI_T_ENUM_NULL, MPI_T_VERBOSITY_USER_BASIC,
                                  MPI_T_BIND_NO_OBJECT,
                                  MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS,
                                  NULL, NULL, "COLLECTIVE", pvar_info[i].desc);
    }
    return MPI_SUCCESS;
}

/* The plugin's items of the MPIR_CVAR_<COLL>_INTRA_ALGORITHM enums come after MPICH's
 * own, from hier on (maint/patches/01). */
static int forced_plugin_algorithm(int coll_type, int *forced)
{
    switch (coll_type) {
        case MPIR_CSEL_COLL_TYPE__BCAST:
            *forced = MPIR_CVAR_BCAST_INTRA_ALGORITHM != MPIR_CVAR_BCAST_INTRA_ALGORITHM_auto;
            return MPIR_CVAR_BCAST_INTRA_ALGORITHM >= MPIR_CVAR_BCAST_INTRA_ALGORITHM_hier;
        case MPIR_CSEL_COLL_TYPE__REDUCE:
            *forced = MPIR_CVAR_REDUCE_INTRA_ALGORITHM != MPIR_CVAR_REDUCE_INTRA_ALGORITHM_auto;
            return MPIR_CVAR_REDUCE_INTRA_ALGORITHM >= MPIR_CVAR_REDUCE_INTRA_ALGORITHM_hier;
        case MPIR_CSEL_COLL_TYPE__ALLREDUCE:
            *forced = MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM !=
                MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM_auto;
            return MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM >= MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM_hier;
        default:
            *forced = 0;
            return 0;
    }
}

int MPII_Hier_wants_mpir_level(MPIR_Comm * comm, MPIR_Csel_coll_sig_s * coll_sig)
{
    int forced, route = 0;

    if (comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__PARENT)
        return 0;
    route = forced_plugin_algorithm(coll_sig->coll_type, &forced);
    /* a stock CVAR value keeps its stock meaning; without one, the user's MPIR tree
     * decides (MPICH's built-in MPIR tree names no plugin algorithm), unless a user CH4
     * tree is given: its choices (gamma: MPIR on the whole comm) stand */
    if (!forced && MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE[0] &&
        !MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE[0]) {
        MPII_Csel_container_s *cnt = MPIR_Csel_search(comm->csel_comm, *coll_sig);
        route = cnt && MPII_Hier_csel_is_plugin_container(cnt->id);
    }
    if (route)
        MPII_HIER_PVAR_ADD(MPIR_ROUTED, 1);
    return route;
}
