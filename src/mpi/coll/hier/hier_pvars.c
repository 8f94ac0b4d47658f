/*
 * mpich-hier: the plugin's MPI_T performance variables (class COUNTER, category
 * COLLECTIVE), registered at MPI_Init by MPII_Hier_init.
 */

#include "hier_impl.h"

unsigned long long MPII_Hier_pvars[MPII_HIER_PVAR_COUNT];

static const struct {
    const char *name;
    const char *desc;
} pvar_info[MPII_HIER_PVAR_COUNT] = {
#define CALLS_INFO_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    [MPII_HIER_PVAR_CALLS(coll_, algo_)] = {"coll_hier_" #coll_ "_" #algo_ "_count", \
                                           "number of MPI_" #Coll_ " calls run by MPIR_" \
                                           #Coll_ "_intra_" #algo_},
    MPII_HIER_ALGORITHMS(CALLS_INFO_)
#undef CALLS_INFO_
#define SCHED_CALLS_INFO_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    [MPII_HIER_PVAR_CALLS(icoll_, algo_)] = {"coll_hier_" #icoll_ "_" #algo_ "_count", \
                                            "number of schedules (MPI_" #Icoll_ " calls, " \
                                            "persistent inits) built by MPIR_TSP_" #Icoll_ \
                                            "_sched_intra_hier"},
    MPII_HIER_SCHED_ALGORITHMS(SCHED_CALLS_INFO_)
#undef SCHED_CALLS_INFO_
    [MPII_HIER_PVAR_BCAST_HIER_SEGMENTS] = {"coll_hier_bcast_hier_segments",
                                            "pipeline segments moved by MPIR_Bcast_intra_hier"},
    [MPII_HIER_PVAR_REDUCE_HIER_SEGMENTS] = {"coll_hier_reduce_hier_segments",
                                             "pipeline segments moved by MPIR_Reduce_intra_hier"},
    [MPII_HIER_PVAR_ALLREDUCE_HIER_SEGMENTS] = {"coll_hier_allreduce_hier_segments",
                                                "pipeline segments moved by MPIR_Allreduce_intra_hier"},
    [MPII_HIER_PVAR_ALLGATHER_HIER_SEGMENTS] = {"coll_hier_allgather_hier_segments",
                                                "pieces of node blocks the leaders of "
                                                "MPIR_Allgather_intra_hier received (ring)"},
    [MPII_HIER_PVAR_FLAT_FALLBACKS] = {"coll_hier_flat_fallbacks",
                                       "hier calls on several nodes run flat (non-commutative op, "
                                       "nodes not blocks of consecutive ranks; gatherv, "
                                       "scatterv: intercomms)"},
    [MPII_HIER_PVAR_MPIR_ROUTED] = {"coll_hier_mpir_routed",
                                    "MPI_Bcast/Reduce/Allreduce/Barrier calls on multi-node comms "
                                    "that the device handed to the MPIR level because a plugin algorithm "
                                    "was selected there (forced CVAR, the user's or site's tree) or one of "
                                    "MPICH's marked whole_comm=1 in that tree"},
    [MPII_HIER_PVAR_BCAST_SEG_SEGMENTS] = {"coll_hier_bcast_seg_segments",
                                           "segments of the calling rank's part of the "
                                           "payload in the MPIR_Bcast_intra_seg_* algorithms"},
    [MPII_HIER_PVAR_REDUCE_SEG_SEGMENTS] = {"coll_hier_reduce_seg_segments",
                                            "segments of the MPIR_Reduce_intra_seg_* algorithms"},
    [MPII_HIER_PVAR_REDUCE_SEG_IN_ORDER_SUBST] = {"coll_hier_reduce_seg_in_order_subst",
                                                  "seg reduces (blocking or hier inter-node) with a "
                                                  "non-commutative op that ran the in-order binary "
                                                  "tree instead of the tree asked for"},
    [MPII_HIER_PVAR_SEGSIZE_RAISED] = {"coll_hier_segsize_raised",
                                       "plans of the hier and seg algorithms whose segment or "
                                       "pipeline chunk size was raised so as to cut the payload "
                                       "into at most 1024 pieces (MPII_HIER_SEG_MAX)"},
    [MPII_HIER_PVAR_BY_SIZE_LATENCY] = {"coll_hier_by_size_latency",
                                        "inter-node steps of hier algorithms (each time a "
                                        "rank resolved one) that the by_size submodule sent "
                                        "to the latency algorithm (hier_by_size.h)"},
    [MPII_HIER_PVAR_BY_SIZE_BANDWIDTH] = {"coll_hier_by_size_bandwidth",
                                          "inter-node steps of hier algorithms that the "
                                          "by_size submodule sent to the bandwidth algorithm"},
};

int MPII_Hier_init(void)
{
    MPII_Hier_init_errno = MPII_Hier_check_topology_file();
    /* before MPID_Init reads it, so that every rank has said what is wrong with it before
     * the first one fails */
    MPII_Hier_check_ch4_tuning_file();
    MPII_Hier_route_init();
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
