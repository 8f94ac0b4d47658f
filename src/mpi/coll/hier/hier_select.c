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
    if (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE[0] &&
        !MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE[0])
        return coll_type == MPIR_CSEL_COLL_TYPE__BCAST;
    switch (coll_type) {
        case MPIR_CSEL_COLL_TYPE__BCAST:
            return MPIR_CVAR_BCAST_INTRA_ALGORITHM != MPIR_CVAR_BCAST_INTRA_ALGORITHM_auto;
        default:
            return 0;
    }
}

/* ---- Csel JSON: "algorithm=MPIR_Bcast_intra_hier": {"segsize=131072":{}, ...} ---- */

typedef struct {
    const char *name;
    int value;
} name_value;

static const name_value bcast_inter_algos[] = {
    {"auto", MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM_auto},
    {"sched_binomial", MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM_sched_binomial},
    {"tsp_kary", MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM_tsp_kary},
    {"tsp_knomial", MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM_tsp_knomial},
    {"tsp_ring", MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM_tsp_ring},
    {NULL, 0}
};

static const name_value bcast_intra_algos[] = {
    {"auto", MPIR_CVAR_BCAST_HIER_INTRA_ALGORITHM_auto},
    {"binomial", MPIR_CVAR_BCAST_HIER_INTRA_ALGORITHM_binomial},
    {NULL, 0}
};

int MPII_Hier_csel_container_id(const char *ckey)
{
    if (!strcmp(ckey, "algorithm=MPIR_Bcast_intra_hier"))
        return MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier;
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

void MPII_Hier_csel_parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    if (cnt->id == MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier) {
        const char *algo = "MPIR_Bcast_intra_hier";
        /* unset parameters follow their CVARs at call time */
        cnt->u.bcast.intra_hier.segsize = -1;
        cnt->u.bcast.intra_hier.inter_algo = -1;
        cnt->u.bcast.intra_hier.inter_k = -1;
        cnt->u.bcast.intra_hier.inter_chunk = -1;
        cnt->u.bcast.intra_hier.intra_algo = -1;
        json_object_object_foreach(obj, key, val) {
            char *ckey = MPL_strdup_no_spaces(key);
            char *eq = strchr(ckey, '=');
            const char *value;
            if (!eq)
                bad_param(algo, key);
            *eq = '\0';
            value = eq + 1;
            if (!strcmp(ckey, "segsize"))
                cnt->u.bcast.intra_hier.segsize = parse_int(algo, key, value, 0);
            else if (!strcmp(ckey, "inter_algo"))
                cnt->u.bcast.intra_hier.inter_algo =
                    parse_name(algo, key, value, bcast_inter_algos);
            else if (!strcmp(ckey, "inter_k"))
                cnt->u.bcast.intra_hier.inter_k = parse_int(algo, key, value, 1);
            else if (!strcmp(ckey, "inter_chunk"))
                cnt->u.bcast.intra_hier.inter_chunk = parse_int(algo, key, value, 0);
            else if (!strcmp(ckey, "intra_algo"))
                cnt->u.bcast.intra_hier.intra_algo =
                    parse_name(algo, key, value, bcast_intra_algos);
            else
                bad_param(algo, key);
            MPL_free(ckey);
        }
    }
}
