/*
 * mpich-hier: the Csel JSON grammar of the plugin's algorithms, and the check and
 * merge of a user's MPIR tuning file at MPI_Init.
 *
 *   "algorithm=MPIR_Bcast_intra_hier": {"segsize=131072":{}, "inter_algo=tsp_ring":{}}
 *   "algorithm=MPIR_Bcast_intra_seg_chain": {"segsize=4096":{}, "fanout=3":{}}
 *
 * MPICH 4.0.2 asserts on anything its parser does not know (a truncated file, a key
 * with a typo); the plugin reads the file first and fails MPI_Init with the place and
 * the item instead, and merges a tree that names only some collectives over MPICH's
 * built-in tree.
 */

#include "hier_impl.h"
#include <ctype.h>
#include <errno.h>
#include <json.h>

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


int MPII_Hier_csel_is_plugin_container(int id)
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

static int parse_int(const char *value, int min, int *out)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v < min || v > INT_MAX)
        return -1;
    *out = (int) v;
    return 0;
}

static int parse_name(const char *value, const name_value * table, const name_value * more,
                      int *out)
{
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, value)) {
            *out = table[i].value;
            return 0;
        }
    for (int i = 0; more && more[i].name; i++)
        if (!strcmp(more[i].name, value)) {
            *out = more[i].value;
            return 0;
        }
    return -1;
}

/* One "name=value" parameter into a hier parameter block; -1 when it is not one. */
static int parse_hier_param(const char *name, const char *value, const name_value * own,
                            int *segsize, int *inter_algo, int *inter_k, int *inter_chunk,
                            int *intra_algo)
{
    if (!strcmp(name, "segsize"))
        return parse_int(value, 0, segsize);
    if (!strcmp(name, "inter_algo"))
        return parse_name(value, inter_algos, own, inter_algo);
    if (!strcmp(name, "inter_k"))
        return parse_int(value, 1, inter_k);
    if (!strcmp(name, "inter_chunk"))
        return parse_int(value, 0, inter_chunk);
    if (!strcmp(name, "intra_algo"))
        return parse_name(value, intra_algos, NULL, intra_algo);
    return -1;
}

/* One parameter into a segmented tree's block (fanout: NULL for the trees without). */
static int parse_seg_param(const char *name, const char *value, int *segsize, int *fanout)
{
    if (!strcmp(name, "segsize"))
        return parse_int(value, 0, segsize);
    if (fanout && !strcmp(name, "fanout"))
        return parse_int(value, 1, fanout);
    return -1;
}

#define HIER_PARAM(name_, value_, own_, block_) \
    parse_hier_param((name_), (value_), (own_), &(block_).segsize, &(block_).inter_algo, \
                     &(block_).inter_k, &(block_).inter_chunk, &(block_).intra_algo)
#define SEG_PARAM(coll_, Coll_, algo_) \
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_: \
            return parse_seg_param(name, value, &cnt->u.coll_.intra_##algo_.segsize, NULL)

static int parse_param(const char *name, const char *value, MPII_Csel_container_s * cnt)
{
    switch (cnt->id) {
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier:
            return HIER_PARAM(name, value, bcast_inter_algos, cnt->u.bcast.intra_hier);
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_hier:
            return HIER_PARAM(name, value, reduce_inter_algos, cnt->u.reduce.intra_hier);
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier:
            return HIER_PARAM(name, value, allreduce_inter_algos, cnt->u.allreduce.intra_hier);
        SEG_PARAM(bcast, Bcast, seg_linear);
        SEG_PARAM(bcast, Bcast, seg_pipeline);
        SEG_PARAM(bcast, Bcast, seg_binary);
        SEG_PARAM(bcast, Bcast, seg_split_binary);
        SEG_PARAM(bcast, Bcast, seg_binomial);
        SEG_PARAM(reduce, Reduce, seg_linear);
        SEG_PARAM(reduce, Reduce, seg_pipeline);
        SEG_PARAM(reduce, Reduce, seg_binary);
        SEG_PARAM(reduce, Reduce, seg_binomial);
        SEG_PARAM(reduce, Reduce, seg_in_order_binary);
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_chain:
            return parse_seg_param(name, value, &cnt->u.bcast.intra_seg_chain.segsize,
                                   &cnt->u.bcast.intra_seg_chain.fanout);
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_chain:
            return parse_seg_param(name, value, &cnt->u.reduce.intra_seg_chain.segsize,
                                   &cnt->u.reduce.intra_seg_chain.fanout);
        default:
            return -1;
    }
}

/* Every parameter block of cnt unset (-1: follow the CVAR at call time), then its keys
 * in obj parsed.  Returns the first key that is not a valid parameter, NULL if none. */
static const char *parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    int *block = (int *) &cnt->u;
    for (size_t i = 0; i < sizeof(cnt->u) / sizeof(int); i++)
        block[i] = -1;
    json_object_object_foreach(obj, key, val) {
        char *ckey = MPL_strdup_no_spaces(key);
        char *eq = strchr(ckey, '=');
        int bad = !eq || !json_object_is_type(val, json_type_object) ||
            json_object_object_length(val) != 0;
        if (!bad) {
            *eq = '\0';
            bad = parse_param(ckey, eq + 1, cnt) != 0;
        }
        MPL_free(ckey);
        if (bad)
            return key;
    }
    return NULL;
}

void MPII_Hier_csel_parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    const char *bad ATTRIBUTE((unused)) = parse_params(obj, cnt);
    /* MPII_Hier_load_tuning_file checked every parameter of a user tree */
    MPIR_Assert(bad == NULL);
}

/* ---- the check of a tree: MPICH 4.0.2's Csel grammar (src/mpi/coll/src/csel.c) ---- */

static const char *const collectives[] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "exscan", "gather", "gatherv", "iallgather", "iallgatherv", "iallreduce",
    "ialltoall", "ialltoallv", "ialltoallw", "ibarrier", "ibcast", "iexscan", "igather",
    "igatherv", "ineighbor_allgather", "ineighbor_allgatherv", "ineighbor_alltoall",
    "ineighbor_alltoallv", "ineighbor_alltoallw", "ireduce", "ireduce_scatter",
    "ireduce_scatter_block", "iscan", "iscatter", "iscatterv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
    "reduce", "reduce_scatter", "reduce_scatter_block", "scan", "scatter", "scatterv", NULL
};

static const char *const condition_keys[] = {
    "is_multi_threaded=yes", "is_multi_threaded=no", "comm_type=intra", "comm_type=inter",
    "comm_size=pow2", "comm_size=node_comm_size", "comm_size=any", "count<pow2", "count=any",
    "avg_msg_size=any", "total_msg_size=any", "is_commutative=yes", "is_commutative=no",
    "is_sendbuf_inplace=yes", "is_sendbuf_inplace=no", "is_op_built_in=yes",
    "is_op_built_in=no", "is_block_regular=yes", "is_block_regular=no",
    "is_node_consecutive=yes", "is_node_consecutive=no", "comm_hierarchy=parent",
    "comm_hierarchy=node_roots", "comm_hierarchy=node", "comm_hierarchy=flat",
    "comm_hierarchy=any", NULL
};

/* keys with a number: the longer prefix first ("<=" before "<") */
static const char *const number_prefixes[] = {
    "comm_size<=", "comm_size<", "count<=", "avg_msg_size<=", "avg_msg_size<",
    "total_msg_size<=", "total_msg_size<", "comm_avg_ppn<=", NULL
};

static int in_list(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], s))
            return 1;
    return 0;
}

static int is_condition(const char *ckey)
{
    if (in_list(condition_keys, ckey))
        return 1;
    for (int i = 0; number_prefixes[i]; i++) {
        size_t n = strlen(number_prefixes[i]);
        if (!strncmp(ckey, number_prefixes[i], n)) {
            const char *v = ckey + n;
            if (*v == '\0')
                return 0;
            for (; *v; v++)
                if (*v < '0' || *v > '9')
                    return 0;
            return 1;
        }
    }
    return 0;
}

typedef struct {
    char path[384];             /* keys from the top down to the node being checked */
    char *problem;
    size_t problem_len;
} tree_check;

static int tree_problem(tree_check * tc, const char *what, const char *item)
{
    snprintf(tc->problem, tc->problem_len, "at %s: %s \"%s\"",
             tc->path[0] ? tc->path : "the top", what, item);
    return -1;
}

/* An algorithm leaf of collective coll: MPIR_<Coll>_... with the plugin's parameters
 * checked (MPICH's own algorithm names are checked by MPICH). */
static int check_algorithm(tree_check * tc, const char *ckey, const char *key,
                           struct json_object *params, const char *coll)
{
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "algorithm=MPIR_%s", coll);
    prefix[15] = (char) toupper((unsigned char) prefix[15]);
    size_t n = strlen(prefix);
    if (strncmp(ckey, prefix, n) || ckey[n] != '_')
        return tree_problem(tc, "not an algorithm of this collective", key);
    int id = MPII_Hier_csel_container_id(ckey);
    if (id >= 0) {
        MPII_Csel_container_s scratch;
        scratch.id = id;
        const char *bad = parse_params(params, &scratch);
        if (bad) {
            char what[160];
            snprintf(what, sizeof(what), "invalid parameter of %s:", ckey + 10);
            return tree_problem(tc, what, bad);
        }
    }
    return 0;
}

static int check_node(tree_check * tc, struct json_object *obj, const char *coll)
{
    if (!json_object_is_type(obj, json_type_object))
        return tree_problem(tc, "a value that is not a JSON object:",
                            json_object_to_json_string(obj));
    if (json_object_object_length(obj) == 0)
        return tree_problem(tc, "an empty object: no algorithm chosen", "{}");
    size_t len = strlen(tc->path);
    json_object_object_foreach(obj, key, val) {
        char *ckey = MPL_strdup_no_spaces(key);
        int rc = 0;
        snprintf(tc->path + len, sizeof(tc->path) - len, "%s%s", len ? " > " : "", key);
        if (!coll) {
            if (strncmp(ckey, "collective=", 11) || !in_list(collectives, ckey + 11)) {
                tc->path[len] = '\0';
                rc = tree_problem(tc, "not a collective (\"collective=NAME\")", key);
            } else {
                rc = check_node(tc, val, ckey + 11);
            }
        } else if (!strncmp(ckey, "algorithm=", 10) || !strncmp(ckey, "composition=", 12)) {
            tc->path[len] = '\0';
            if (strncmp(ckey, "algorithm=", 10))
                rc = tree_problem(tc, "a CH4 composition in an MPIR tree", key);
            else if (json_object_object_length(obj) != 1)
                rc = tree_problem(tc, "an algorithm beside other keys (it must be alone):", key);
            else if (!json_object_is_type(val, json_type_object))
                rc = tree_problem(tc, "algorithm parameters that are not an object:", key);
            else
                rc = check_algorithm(tc, ckey, key, val, coll);
        } else if (is_condition(ckey)) {
            rc = check_node(tc, val, coll);
        } else {
            tc->path[len] = '\0';
            rc = tree_problem(tc, "an unknown key", key);
        }
        MPL_free(ckey);
        if (rc)
            return rc;
    }
    tc->path[len] = '\0';
    return 0;
}

/* The file as JSON, or a problem naming the line and column of a syntax error. */
static struct json_object *read_tree(const char *path, char *problem, size_t problem_len)
{
    struct json_object *tree = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(problem, problem_len, "cannot be read (%s)", strerror(errno));
        return NULL;
    }
    struct json_tokener *tok = json_tokener_new();
    char buf[4096];
    size_t n, offset = 0;
    int line = 1, col = 1;
    enum json_tokener_error jerr = json_tokener_continue;
    while (!tree && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        tree = json_tokener_parse_ex(tok, buf, (int) n);
        jerr = json_tokener_get_error(tok);
        size_t upto = jerr == json_tokener_continue || jerr == json_tokener_success ? n :
            (size_t) json_tokener_get_parse_end(tok);
        for (size_t i = 0; i < upto; i++, col++)
            if (buf[i] == '\n') {
                line++;
                col = 0;
            }
        offset += upto;
        if (jerr != json_tokener_continue && jerr != json_tokener_success)
            break;
    }
    if (!tree && offset == 0)
        snprintf(problem, problem_len, "not valid JSON: the file is empty");
    else if (!tree && jerr == json_tokener_continue)
        snprintf(problem, problem_len, "not valid JSON: the file ends inside a value "
                 "(after %zu bytes)", offset);
    else if (!tree)
        snprintf(problem, problem_len, "not valid JSON at line %d, column %d: %s", line, col,
                 json_tokener_error_desc(jerr));
    json_tokener_free(tok);
    fclose(f);
    return tree;
}

int MPII_Hier_load_tuning_file(const char *path, const char *builtin, char **json)
{
    int mpi_errno = MPI_SUCCESS;
    char problem[512] = "";
    struct json_object *tree = read_tree(path, problem, sizeof(problem));
    struct json_object *base = NULL;

    *json = NULL;
    if (tree) {
        tree_check tc = { "", problem, sizeof(problem) };
        if (check_node(&tc, tree, NULL) != 0) {
            json_object_put(tree);
            tree = NULL;
        }
    }
    if (!tree) {
        MPL_error_printf("mpich-hier: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=%s: %s\n", path,
                         problem);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_ARG, "**arg", "**arg %s",
                             "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE is not a valid tree");
    }

    /* collectives the user's tree leaves out keep MPICH's built-in choices */
    base = json_tokener_parse(builtin);
    MPIR_Assert(base);
    json_object_object_foreach(base, key, val) {
        if (!json_object_object_get_ex(tree, key, NULL))
            json_object_object_add(tree, key, json_object_get(val));
    }
    *json = MPL_strdup(json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN));
    MPIR_ERR_CHKANDJUMP(!*json, mpi_errno, MPI_ERR_OTHER, "**nomem");

  fn_exit:
    if (base)
        json_object_put(base);
    if (tree)
        json_object_put(tree);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
