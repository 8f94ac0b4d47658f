/*
 * mpich-hier: the plugin's algorithms in MPICH's Csel containers (ids, parameter
 * blocks, from the grammar table of hier_grammar.h), and the check and merge of a
 * user's MPIR tuning file at MPI_Init.
 *
 *   "algorithm=MPIR_Bcast_intra_hier": {"segsize=131072":{}, "inter_algo=tsp_ring":{}}
 *   "algorithm=MPIR_Bcast_intra_seg_chain": {"segsize=4096":{}, "fanout=3":{}}
 *
 * MPICH's parser asserts on anything it does not know (a truncated file, a key with a
 * typo); the plugin reads the file first and fails MPI_Init with the place and
 * the item instead, and merges a tree that names only some collectives over MPICH's
 * built-in tree.  Without a user's file, the tree the site installed
 * (MPII_Hier_load_site_tree) and the CH4 tree installed with it
 * (MPII_Hier_load_site_ch4_tree, at MPID_Init), each refused with a message and never
 * fatal when it is bad.
 */

#include "hier_impl.h"
#include "hier_site.h"
#include <json.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* MPICH's CVARs list the grammar's items in its order (their descriptions are in MPICH's
 * CVAR format; these checks keep them in step with the table). */
#define CAT3_(a_, b_, c_) a_##b_##c_
#define CAT3(a_, b_, c_) CAT3_(a_, b_, c_)
#define CHECK_PARAM_CVAR_(param_, arg_, cvar_) \
    _Static_assert(sizeof(CAT3(MPIR_CVAR_, CHECKED_COLL, _##cvar_)) == sizeof(int), "");
#define CHECK_ALGORITHM_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    _Static_assert(MPIR_CVAR_##COLL_##_INTRA_ALGORITHM_##algo_ >= \
                   MPIR_CVAR_##COLL_##_INTRA_ALGORITHM_hier, \
                   "the plugin's INTRA_ALGORITHM items come after MPICH's, from hier on");
/* the inter-node submodule CVARs of the three kinds of non-blocking step */
#define CHECK_INTER_(name_, NAME_) \
    _Static_assert((int) CAT3(MPIR_CVAR_, CHECKED_COLL, _HIER_INTER_ALGORITHM_##name_) == \
                   (int) MPII_HIER_INTER_##NAME_, "HIER_INTER_ALGORITHM CVAR in grammar order"); \
    _Static_assert((int) CAT3(MPIR_CVAR_, CHECKED_COLL, _HIER_UP_INTER_ALGORITHM_##name_) == \
                   (int) MPII_HIER_INTER_##NAME_, \
                   "HIER_UP_INTER_ALGORITHM CVAR in grammar order"); \
    _Static_assert((int) CAT3(MPIR_CVAR_, CHECKED_COLL, _HIER_DOWN_INTER_ALGORITHM_##name_) == \
                   (int) MPII_HIER_INTER_##NAME_, \
                   "HIER_DOWN_INTER_ALGORITHM CVAR in grammar order");
#define CHECK_INTRA_(name_, NAME_) \
    _Static_assert((int) CAT3(MPIR_CVAR_, CHECKED_COLL, _HIER_INTRA_ALGORITHM_##name_) == \
                   (int) MPII_HIER_INTRA_##NAME_, "HIER_INTRA_ALGORITHM CVAR in grammar order");
#define CHECK_OWN_(coll_, COLL_, name_, NAME_) \
    _Static_assert((int) MPIR_CVAR_##COLL_##_HIER_INTER_ALGORITHM_##name_ == \
                   (int) MPII_HIER_INTER_##NAME_, \
                   "HIER_INTER_ALGORITHM CVAR ends with the collective's own item"); \
    _Static_assert((int) MPIR_CVAR_##COLL_##_HIER_UP_INTER_ALGORITHM_##name_ == \
                   (int) MPII_HIER_INTER_##NAME_, "so does HIER_UP_INTER_ALGORITHM"); \
    _Static_assert((int) MPIR_CVAR_##COLL_##_HIER_DOWN_INTER_ALGORITHM_##name_ == \
                   (int) MPII_HIER_INTER_##NAME_, "so does HIER_DOWN_INTER_ALGORITHM");
#define SKIP_ALL_(name_, NAME_)
#define SKIP_OWN_(coll_, COLL_, name_, NAME_)
MPII_HIER_ALGORITHMS(CHECK_ALGORITHM_)
MPII_HIER_INTER_ALGOS(SKIP_ALL_, CHECK_OWN_)
#define CHECKED_COLL BCAST
MPII_HIER_INTER_ALGOS(CHECK_INTER_, SKIP_OWN_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
MPII_HIER_PARAMS_SEG_CHAIN(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
#define CHECKED_COLL REDUCE
MPII_HIER_INTER_ALGOS(CHECK_INTER_, SKIP_OWN_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
MPII_HIER_PARAMS_SEG_CHAIN(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
#define CHECKED_COLL ALLREDUCE
MPII_HIER_INTER_ALGOS(CHECK_INTER_, SKIP_OWN_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
/* the listed collectives: their own inter-node lists */
#define CHECK_LISTED_(name_, NAME_) \
    _Static_assert((int) CAT3(MPIR_CVAR_, CHECKED_COLL, _HIER_INTER_ALGORITHM_##name_) == \
                   (int) CAT3(MPII_HIER_, CHECKED_COLL, _INTER_##NAME_), \
                   "HIER_INTER_ALGORITHM CVAR in the order of the collective's list");
#define CHECKED_COLL ALLGATHER
MPII_HIER_INTER_ALGOS_ALLGATHER(CHECK_LISTED_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER_DATA(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
#define CHECKED_COLL GATHER
MPII_HIER_INTER_ALGOS_GATHER(CHECK_LISTED_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER_STEPS(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
#define CHECKED_COLL SCATTER
MPII_HIER_INTER_ALGOS_SCATTER(CHECK_LISTED_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER_STEPS(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL
#define CHECKED_COLL BARRIER
MPII_HIER_INTER_ALGOS_BARRIER(CHECK_LISTED_) MPII_HIER_INTRA_ALGOS(CHECK_INTRA_)
MPII_HIER_PARAMS_HIER_STEPS(CHECK_PARAM_CVAR_, CHECK_PARAM_CVAR_)
#undef CHECKED_COLL

/* container id -> name, from the grammar table */
#define CONTAINER_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    {MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_, "MPIR_" #Coll_ "_intra_" #algo_},
static const struct {
    int id;
    const char *name;
} containers[] = {
    MPII_HIER_ALGORITHMS(CONTAINER_)
#define SCHED_CONTAINER_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    CONTAINER_(icoll_, Icoll_, ICOLL_, algo_, NONE)
    MPII_HIER_SCHED_ALGORITHMS(SCHED_CONTAINER_)
#undef SCHED_CONTAINER_
    {-1, NULL}
};

int MPII_Hier_csel_is_plugin_container(int id)
{
    for (int i = 0; containers[i].name; i++)
        if (containers[i].id == id)
            return 1;
    return 0;
}

int MPII_Hier_csel_container_id(const char *ckey)
{
    if (strncmp(ckey, "algorithm=", 10) || MPII_Hier_grammar_algorithm(ckey + 10) < 0)
        return -1;
    for (int i = 0; containers[i].name; i++)
        if (!strcmp(ckey + 10, containers[i].name))
            return containers[i].id;
    return -1;
}

/* The parameter block of cnt (ints in the grammar's parameter order) and its length. */
#define BLOCK_(coll_, Coll_, COLL_, algo_, PARAMS_) \
        case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_: \
            *n = sizeof(cnt->u.coll_.intra_##algo_) / sizeof(int); \
            return (int *) &cnt->u.coll_.intra_##algo_;
static int *param_block(MPII_Csel_container_s * cnt, int *n)
{
    switch (cnt->id) {
            MPII_HIER_ALGORITHMS(BLOCK_)
        default:
            *n = 0;
            return NULL;
    }
}

static const char *container_name(int id)
{
    for (int i = 0; containers[i].name; i++)
        if (containers[i].id == id)
            return containers[i].name;
    return NULL;
}

/* Every parameter of cnt unset (-1: follow the CVAR at call time), then its keys in obj
 * parsed.  Returns the first key that is not a valid parameter, NULL if none. */
static const char *parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    int n;
    int *block = param_block(cnt, &n);
    if (!block)
        return NULL;    /* one of MPICH's algorithms without parameters */
    int algo = MPII_Hier_grammar_algorithm(container_name(cnt->id));
    MPIR_Assert(n == MPII_Hier_grammar_param_count(algo));
    for (int i = 0; i < n; i++)
        block[i] = -1;
    json_object_object_foreach(obj, key, val) {
        char *ckey = MPL_strdup_no_spaces(key);
        char *eq = strchr(ckey, '=');
        int field = -1, value;
        if (eq && json_object_is_type(val, json_type_object) &&
            json_object_object_length(val) == 0) {
            *eq = '\0';
            field = MPII_Hier_grammar_param(algo, ckey, eq + 1, &value);
        }
        MPL_free(ckey);
        if (field < 0)
            return key;
        block[field] = value;
    }
    return NULL;
}

void MPII_Hier_csel_parse_params(struct json_object *obj, MPII_Csel_container_s * cnt)
{
    const char *bad ATTRIBUTE((unused)) = parse_params(obj, cnt);
    /* MPII_Hier_load_tuning_file checked every parameter of a user tree */
    MPIR_Assert(bad == NULL);
}

/* The error of MPI_Init's checks (a bad user tree, a bad topology file), returned when
 * MPI_COMM_WORLD is set up: MPI_Init makes them before MPID_Init, whose PMI exchange and
 * barrier every rank reaches only after making them, so each rank has reported the
 * problems before the first one fails (and the job's abort kills the others). */
int MPII_Hier_init_errno = MPI_SUCCESS;

/* A tree the user names, and by which CVAR */
typedef struct {
    const char *cvar;
    const char *path;
    const char *invalid;        /* MPI_Init's error */
} user_tree;

/* Each problem of a user tree on its own line, on every rank alike (MPI_Init fails on
 * all of them: MPII_Hier_comm_init). */
static void report_problem(void *ctx, const char *where, const char *what, const char *item)
{
    const user_tree *t = ctx;
    if (*where)
        MPL_error_printf("mpich-hier: %s=%s: at %s: %s \"%s\"\n", t->cvar, t->path, where, what,
                         item);
    else
        MPL_error_printf("mpich-hier: %s=%s: %s\n", t->cvar, t->path, what);
}

/* The tree at path read and checked at its level, each problem through fn: NULL when it
 * cannot be read or has one */
static struct json_object *read_checked_tree(const char *path, MPII_Hier_tree_level level,
                                             MPII_Hier_problem_fn fn, void *ctx)
{
    struct json_object *tree = MPII_Hier_read_tree(path, fn, ctx);
    if (tree && MPII_Hier_check_tree(tree, level, fn, ctx)) {
        json_object_put(tree);
        tree = NULL;
    }
    return tree;
}

/* The user's tree at the level MPICH reads it from, checked: NULL when it is not valid
 * (each problem said; MPI_Init then fails after its barrier on the built-in tree) */
static struct json_object *user_tree_read(const user_tree * t, MPII_Hier_tree_level level)
{
    struct json_object *tree = read_checked_tree(t->path, level, report_problem, (void *) t);
    if (!tree)
        MPIR_ERR_SET1(MPII_Hier_init_errno, MPI_ERR_ARG, "**arg", "**arg %s", t->invalid);
    return tree;
}

int MPII_Hier_comm_init(MPIR_Comm * comm)
{
    return comm == MPIR_Process.comm_world ? MPII_Hier_init_errno : MPI_SUCCESS;
}

/* The collectives tree leaves out keep MPICH's built-in choices: tree merged over
 * builtin, as a string in *json. */
static int merged_over_builtin(struct json_object *tree, const char *builtin, char **json)
{
    int mpi_errno = MPI_SUCCESS;
    struct json_object *base = json_tokener_parse(builtin);
    MPIR_Assert(base);
    json_object_object_foreach(base, key, val) {
        if (!json_object_object_get_ex(tree, key, NULL))
            json_object_object_add(tree, key, json_object_get(val));
    }
    *json = MPL_strdup(json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN));
    MPIR_ERR_CHKANDJUMP(!*json, mpi_errno, MPI_ERR_OTHER, "**nomem");
  fn_exit:
    json_object_put(base);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_Hier_load_tuning_file(const char *path, const char *builtin, char **json)
{
    int mpi_errno = MPI_SUCCESS;
    const user_tree t = { "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", path,
        "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE is not a valid tree"
    };
    struct json_object *tree = user_tree_read(&t, MPII_HIER_TREE_MPIR);

    *json = NULL;
    if (!tree) {
        /* MPI_Init goes on to its barrier on the built-in tree, then fails */
        *json = MPL_strdup(builtin);
        MPIR_ERR_CHKANDJUMP(!*json, mpi_errno, MPI_ERR_OTHER, "**nomem");
        goto fn_exit;
    }

    mpi_errno = merged_over_builtin(tree, builtin, json);

  fn_exit:
    if (tree)
        json_object_put(tree);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Whether the user's CH4 tree was refused (MPID_Init then builds the built-in one) */
static int ch4_tree_refused;

void MPII_Hier_check_ch4_tuning_file(void)
{
    const char *path = MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE;
    if (!path || !path[0])
        return;
    const user_tree t = { "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", path,
        "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE is not a valid tree"
    };
    struct json_object *tree = user_tree_read(&t, MPII_HIER_TREE_CH4);
    ch4_tree_refused = !tree;
    if (tree)
        json_object_put(tree);
}

int MPII_Hier_ch4_tuning_file_refused(void)
{
    return ch4_tree_refused;
}

/* ---- the site's tree (hier_site.h) ---- */

/* MPICH reads a CVAR under any of these names (mpir_cvars.c) */
static int user_names_mpir_tree(void)
{
    return getenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE") ||
        getenv("MPICH_COLL_SELECTION_TUNING_JSON_FILE") ||
        getenv("MPIR_PARAM_COLL_SELECTION_TUNING_JSON_FILE");
}

/* MPICH reads a CVAR under any of these names (mpir_cvars.c) */
static int user_names_ch4_tree(void)
{
    return getenv("MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE") ||
        getenv("MPICH_CH4_COLL_SELECTION_TUNING_JSON_FILE") ||
        getenv("MPIR_PARAM_CH4_COLL_SELECTION_TUNING_JSON_FILE");
}

/* One of the site's trees: "the site tree" (MPIR) or "the site's CH4 tree" */
typedef struct {
    const char *what;
    const char *path;
    MPII_Hier_tree_level level;
    const char *builtin;        /* what the job uses instead */
} site_tree;

static void report_site_problem(void *ctx, const char *where, const char *what, const char *item)
{
    const site_tree *t = ctx;
    if (*where)
        MPL_error_printf("mpich-hier: %s %s: at %s: %s \"%s\"\n", t->what, t->path, where, what,
                         item);
    else
        MPL_error_printf("mpich-hier: %s %s: %s\n", t->what, t->path, what);
}

static void refuse_site_tree(const site_tree * t, const char *why)
{
    MPL_error_printf("mpich-hier: %s %s is refused: %s; this job uses %s\n", t->what, t->path,
                     why, t->builtin);
}

/* The site's tree t, checked and merged over builtin into *json; *json NULL when it is
 * refused (each problem said, never fatal: every rank says it, and the job goes on with
 * MPICH's built-in tree) */
static int site_tree_load(const site_tree * t, const char *builtin, char **json)
{
    char why[1024];
    struct json_object *tree;
    int mpi_errno;

    *json = NULL;
    if (access(t->path, R_OK)) {
        snprintf(why, sizeof(why), "it cannot be read (%s)", strerror(errno));
        refuse_site_tree(t, why);
        return MPI_SUCCESS;
    }
    if (MPII_Hier_site_record_problem(t->path, MPICH_VERSION, why, sizeof(why))) {
        refuse_site_tree(t, why);
        return MPI_SUCCESS;
    }
    tree = read_checked_tree(t->path, t->level, report_site_problem, (void *) t);
    if (!tree) {
        refuse_site_tree(t, "it is not a valid tree (the problems above)");
        return MPI_SUCCESS;
    }
    mpi_errno = merged_over_builtin(tree, builtin, json);
    json_object_put(tree);
    return mpi_errno;
}

/* the site's MPIR tree this job loaded ("": none), and its record's latency_bytes */
static char site_source[4096];
static int64_t site_latency_bytes;
static char site_ch4_source[sizeof(site_source) + sizeof(MPII_HIER_SITE_CH4_SUFFIX)];

int64_t MPII_Hier_site_latency_bytes(void)
{
    return site_latency_bytes;
}

int MPII_Hier_load_site_tree(const char *builtin, char **json, const char **source)
{
    site_tree t = { "the site tree", MPIR_CVAR_HIER_SITE_TREE, MPII_HIER_TREE_MPIR,
        "MPICH's built-in selection"
    };

    *json = NULL;
    if (user_names_mpir_tree() || !strcmp(t.path, "0"))
        return MPI_SUCCESS;
    if (!t.path[0]) {
        t.path = MPII_HIER_PREFIX "/" MPII_HIER_SITE_TREE_DIR "/" MPII_HIER_SITE_TREE_NAME;
        /* none installed: MPICH's built-in tree, as stock MPICH */
        if (access(t.path, F_OK))
            return MPI_SUCCESS;
    }
    if (strlen(t.path) >= sizeof(site_source)) {
        refuse_site_tree(&t, "its path is too long");
        return MPI_SUCCESS;
    }
    int mpi_errno = site_tree_load(&t, builtin, json);
    if (*json) {
        strcpy(site_source, t.path);
        *source = site_source;
        site_latency_bytes = MPII_Hier_site_record_latency_bytes(t.path);
        MPII_Hier_route_mpir_tree();
    }
    return mpi_errno;
}

int MPII_Hier_load_site_ch4_tree(const char *builtin, char **json, const char **source)
{
    site_tree t = { "the site's CH4 tree", site_ch4_source, MPII_HIER_TREE_CH4,
        "MPICH's built-in CH4 selection"
    };

    *json = NULL;
    /* only with the MPIR tree it was tuned with, and never over the user's own */
    if (!site_source[0] || user_names_ch4_tree())
        return MPI_SUCCESS;
    snprintf(site_ch4_source, sizeof(site_ch4_source), "%s%s", site_source,
             MPII_HIER_SITE_CH4_SUFFIX);
    if (access(t.path, F_OK))
        return MPI_SUCCESS;
    int mpi_errno = site_tree_load(&t, builtin, json);
    if (*json)
        *source = site_ch4_source;
    return mpi_errno;
}
