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

int MPII_Hier_wants_mpir_level(int coll_type, MPIR_Comm * comm)
{
    if (comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__PARENT)
        return 0;
    /* a user MPIR tree decides for the collectives the plugin serves */
    int user_mpir_tree = MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE[0] &&
        !MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE[0];
    switch (coll_type) {
        case MPIR_CSEL_COLL_TYPE__BCAST:
            return user_mpir_tree ||
                MPIR_CVAR_BCAST_INTRA_ALGORITHM != MPIR_CVAR_BCAST_INTRA_ALGORITHM_auto;
        case MPIR_CSEL_COLL_TYPE__REDUCE:
            return user_mpir_tree ||
                MPIR_CVAR_REDUCE_INTRA_ALGORITHM != MPIR_CVAR_REDUCE_INTRA_ALGORITHM_auto;
        case MPIR_CSEL_COLL_TYPE__ALLREDUCE:
            return user_mpir_tree ||
                MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM != MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM_auto;
        default:
            return 0;
    }
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
    {NULL, 0}
};

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
                      const name_value * table)
{
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, value))
            return table[i].value;
    bad_param(algo, param);
    return -1;
}

/* "segsize=131072" etc. into a hierarchical algorithm's parameter block */
static void parse_hier_params(struct json_object *obj, const char *algo, int *segsize,
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
            *inter_algo = parse_name(algo, key, value, inter_algos);
        else if (!strcmp(ckey, "inter_k"))
            *inter_k = parse_int(algo, key, value, 1);
        else if (!strcmp(ckey, "inter_chunk"))
            *inter_chunk = parse_int(algo, key, value, 0);
        else if (!strcmp(ckey, "intra_algo"))
            *intra_algo = parse_name(algo, key, value, intra_algos);
        else
            bad_param(algo, key);
        MPL_free(ckey);
    }
}

#define PARSE_HIER_PARAMS(obj_, algo_, block_) \
    parse_hier_params((obj_), (algo_), &(block_).segsize, &(block_).inter_algo, \
                      &(block_).inter_k, &(block_).inter_chunk, &(block_).intra_algo)

void MPII_Hier_csel_parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    switch (cnt->id) {
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Bcast_intra_hier", cnt->u.bcast.intra_hier);
            break;
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Reduce_intra_hier", cnt->u.reduce.intra_hier);
            break;
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier:
            PARSE_HIER_PARAMS(obj, "MPIR_Allreduce_intra_hier", cnt->u.allreduce.intra_hier);
            break;
        default:
            break;
    }
}
