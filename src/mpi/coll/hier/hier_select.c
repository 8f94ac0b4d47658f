/*
 * mpich-hier: what MPICH's selection needs from the plugin: pvars, Csel JSON names and
 * parameters, and the CH4 hook that lets MPIR-level choices reach parent comms.
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
    int mpi_errno = MPI_SUCCESS;
    const char *tuning_file = MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE;

    for (int i = 0; i < MPII_HIER_PVAR_COUNT; i++) {
        MPII_Hier_pvars[i] = 0;
        MPIR_T_PVAR_REGISTER_impl(MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG,
                                  pvar_info[i].name, &MPII_Hier_pvars[i], 1,
                                  MPI_T_ENUM_NULL, MPI_T_VERBOSITY_USER_BASIC,
                                  MPI_T_BIND_NO_OBJECT,
                                  MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS,
                                  NULL, NULL, "COLLECTIVE", pvar_info[i].desc);
    }

    /* MPICH 4.0.2 dereferences a NULL FILE* for a missing tuning file: fail clearly */
    if (tuning_file && tuning_file[0]) {
        FILE *f = fopen(tuning_file, "r");
        MPIR_ERR_CHKANDJUMP1(f == NULL, mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                             "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE names a file that cannot be read");
        fclose(f);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_error_printf("mpich-hier: cannot read MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=%s\n",
                     tuning_file);
    goto fn_exit;
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

static int is_plugin_container(int id);

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
        route = cnt && is_plugin_container(cnt->id);
    }
    if (route)
        MPII_HIER_PVAR_ADD(MPIR_ROUTED, 1);
    return route;
}

/* ---- Csel JSON: "algorithm=MPIR_Bcast_intra_hier": {"segsize=131072":{}, ...} ---- */

typedef struct {
    const char *name;
    int value;
} name_value;

/* the plugin's submodule numbers are its CVAR enums' values (hier_impl.h) */
static const name_value inter_algos[] = {
    {"auto", MPII_HIER_INTER_AUTO},
    {"sched_binomial", MPII_HIER_INTER_SCHED_BINOMIAL},
    {"tsp_kary", MPII_HIER_INTER_TSP_KARY},
    {"tsp_knomial", MPII_HIER_INTER_TSP_KNOMIAL},
    {"tsp_ring", MPII_HIER_INTER_TSP_RING},
    {"seg_linear", MPII_HIER_INTER_SEG_LINEAR},
    {"seg_chain", MPII_HIER_INTER_SEG_CHAIN},
    {"seg_pipeline", MPII_HIER_INTER_SEG_PIPELINE},
    {"seg_binary", MPII_HIER_INTER_SEG_BINARY},
    {"seg_binomial", MPII_HIER_INTER_SEG_BINOMIAL},
    {NULL, 0}
};
/* each collective's own tree, after the common ones */
static const name_value bcast_inter_algos[] = {
    {"seg_split_binary", MPII_HIER_INTER_SEG_SPLIT_BINARY},
    {NULL, 0}
};
static const name_value reduce_inter_algos[] = {
    {"seg_in_order_binary", MPII_HIER_INTER_SEG_IN_ORDER_BINARY},
    {NULL, 0}
};
static const name_value allreduce_inter_algos[] = {
    {"tsp_allreduce_ring", MPII_HIER_INTER_TSP_ALLREDUCE_RING},
    {NULL, 0}
};

static const name_value intra_algos[] = {
    {"auto", MPII_HIER_INTRA_AUTO},
    {"binomial", MPII_HIER_INTRA_BINOMIAL},
    {"shm", MPII_HIER_INTRA_SHM},
    {NULL, 0}
};

static const name_value containers[] = {
    {"MPIR_Bcast_intra_hier", MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier},
    {"MPIR_Reduce_intra_hier", MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_hier},
    {"MPIR_Allreduce_intra_hier",
     MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier},
#define SEG_CONTAINER(Coll_, algo_) \
    {"MPIR_" #Coll_ "_intra_" #algo_, MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_}
    SEG_CONTAINER(Bcast, seg_linear),
    SEG_CONTAINER(Bcast, seg_chain),
    SEG_CONTAINER(Bcast, seg_pipeline),
    SEG_CONTAINER(Bcast, seg_binary),
    SEG_CONTAINER(Bcast, seg_split_binary),
    SEG_CONTAINER(Bcast, seg_binomial),
    SEG_CONTAINER(Reduce, seg_linear),
    SEG_CONTAINER(Reduce, seg_chain),
    SEG_CONTAINER(Reduce, seg_pipeline),
    SEG_CONTAINER(Reduce, seg_binary),
    SEG_CONTAINER(Reduce, seg_binomial),
    SEG_CONTAINER(Reduce, seg_in_order_binary),
#undef SEG_CONTAINER
    {NULL, 0}
};

static int is_plugin_container(int id)
{
    for (int i = 0; containers[i].name; i++)
        if (containers[i].value == id)
            return 1;
    return 0;
}

int MPII_Hier_csel_container_id(const char *ckey)
{
    if (strncmp(ckey, "algorithm=", 10))
        return -1;
    for (int i = 0; containers[i].name; i++)
        if (!strcmp(ckey + 10, containers[i].name))
            return containers[i].value;
    return -1;
}
/* The tuning file is read once at MPI_Init: a bad entry is a configuration error. */
static void bad_param(const char *algo, const char *param)
{
    MPL_error_printf("mpich-hier: invalid parameter \"%s\" for %s in the Csel JSON tree\n",
                     param, algo);
    MPIR_Assert_fail("valid mpich-hier JSON parameter", __FILE__, __LINE__);
    abort();
}

static int parse_int(const char *algo, const char *param, const char *value, int min)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v < min || v > INT_MAX)
        bad_param(algo, param);
    return (int) v;
}

static int parse_name(const char *algo, const char *param, const char *value,
                      const name_value * table, const name_value * more)
{
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, value))
            return table[i].value;
    for (int i = 0; more && more[i].name; i++)
        if (!strcmp(more[i].name, value))
            return more[i].value;
    bad_param(algo, param);
    return -1;
}

/* "segsize=131072" etc. into a hierarchical algorithm's parameter block */
static void parse_hier_params(struct json_object *obj, const char *algo,
                              const name_value * own_inter_algos, int *segsize,
                              int *inter_algo, int *inter_k, int *inter_chunk, int *intra_algo)
{
    /* unset parameters follow their CVARs at call time */
    *segsize = *inter_algo = *inter_k = *inter_chunk = *intra_algo = -1;
    json_object_object_foreach(obj, key, val) {
        char *ckey = MPL_strdup_no_spaces(key);
        char *eq = strchr(ckey, '=');
        const char *value;
        if (!eq)
            bad_param(algo, key);
        *eq = '\0';
        value = eq + 1;
        if (!strcmp(ckey, "segsize"))
            *segsize = parse_int(algo, key, value, 0);
        else if (!strcmp(ckey, "inter_algo"))
            *inter_algo = parse_name(algo, key, value, inter_algos, own_inter_algos);
        else if (!strcmp(ckey, "inter_k"))
            *inter_k = parse_int(algo, key, value, 1);
        else if (!strcmp(ckey, "inter_chunk"))
            *inter_chunk = parse_int(algo, key, value, 0);
        else if (!strcmp(ckey, "intra_algo"))
            *intra_algo = parse_name(algo, key, value, intra_algos, NULL);
        else
            bad_param(algo, key);
        MPL_free(ckey);
    }
}

#define PARSE_HIER_PARAMS(obj_, algo_, own_, block_) \
    parse_hier_params((obj_), (algo_), (own_), &(block_).segsize, &(block_).inter_algo, \
                      &(block_).inter_k, &(block_).inter_chunk, &(block_).intra_algo)

/* "segsize=8192", "fanout=3" (fanout: NULL for the trees without one) into a segmented
 * tree's parameter block */
static void parse_seg_params(struct json_object *obj, const char *algo, int *segsize,
                             int *fanout)
{
    /* unset parameters follow their CVARs at call time */
    *segsize = -1;
    if (fanout)
        *fanout = -1;
    json_object_object_foreach(obj, key, val) {
        char *ckey = MPL_strdup_no_spaces(key);
        char *eq = strchr(ckey, '=');
        if (!eq)
            bad_param(algo, key);
        *eq = '\0';
        if (!strcmp(ckey, "segsize"))
            *segsize = parse_int(algo, key, eq + 1, 0);
        else if (fanout && !strcmp(ckey, "fanout"))
            *fanout = parse_int(algo, key, eq + 1, 1);
        else
            bad_param(algo, key);
        MPL_free(ckey);
    }
}

#define PARSE_SEG(coll_, Coll_, algo_) \
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_: \
            parse_seg_params(obj, "MPIR_" #Coll_ "_intra_" #algo_, \
                             &cnt->u.coll_.intra_##algo_.segsize, NULL); \
            break

void MPII_Hier_csel_parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    switch (cnt->id) {
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Bcast_intra_hier", bcast_inter_algos,
                              cnt->u.bcast.intra_hier);
            break;
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Reduce_intra_hier", reduce_inter_algos,
                              cnt->u.reduce.intra_hier);
            break;
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Allreduce_intra_hier", allreduce_inter_algos,
                              cnt->u.allreduce.intra_hier);
            break;
        PARSE_SEG(bcast, Bcast, seg_linear);
        PARSE_SEG(bcast, Bcast, seg_pipeline);
        PARSE_SEG(bcast, Bcast, seg_binary);
        PARSE_SEG(bcast, Bcast, seg_split_binary);
        PARSE_SEG(bcast, Bcast, seg_binomial);
        PARSE_SEG(reduce, Reduce, seg_linear);
        PARSE_SEG(reduce, Reduce, seg_pipeline);
        PARSE_SEG(reduce, Reduce, seg_binary);
        PARSE_SEG(reduce, Reduce, seg_binomial);
        PARSE_SEG(reduce, Reduce, seg_in_order_binary);
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_chain:
            parse_seg_params(obj, "MPIR_Bcast_intra_seg_chain",
                             &cnt->u.bcast.intra_seg_chain.segsize,
                             &cnt->u.bcast.intra_seg_chain.fanout);
            break;
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_chain:
            parse_seg_params(obj, "MPIR_Reduce_intra_seg_chain",
                             &cnt->u.reduce.intra_seg_chain.segsize,
                             &cnt->u.reduce.intra_seg_chain.fanout);
            break;
        default:
            break;
    }
}
