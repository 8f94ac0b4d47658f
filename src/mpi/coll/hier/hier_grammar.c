/*
 * mpich-hier: the plugin's grammar (hier_grammar.h) as lookups, and the check of a Csel
 * tree against it and against the keys MPICH 5.0.1 knows (hier_mpich_keys.h, generated
 * from MPICH's source by maint/gen-mpich-keys.sh).  json-c only, no MPI: MPICH runs it
 * at MPI_Init on a user's tuning file, hiertune check-tree on any tree, and the unit
 * tests directly.
 */

#include "hier_grammar.h"
#include "hier_mpich_keys.h"
#if !defined(MPII_HIER_MPICH_ALGORITHM_PARAMS) || !defined(MPII_HIER_MPICH_ALGORITHM_CVARS) || \
    !defined(MPII_HIER_MPICH_UNREAD_PARAMS)
#error "hier_mpich_keys.h is older than maint/gen-mpich-keys.sh: generate it again"
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json.h>

/* ---- the plugin's algorithms and parameters ---- */

typedef enum { PARAM_INT, PARAM_NAME } param_kind;

typedef struct {
    const char *name;
    param_kind kind;
    int min;                    /* PARAM_INT */
    int names;                  /* PARAM_NAME: INTER_ALGOS or INTRA_ALGOS */
} param_spec;

enum { INTER_ALGOS, INTRA_ALGOS };

#define INT_PARAM_(name_, min_, cvar_) {#name_, PARAM_INT, min_, 0},
#define NAME_PARAM_(name_, list_, cvar_) {#name_, PARAM_NAME, 0, list_},
static const param_spec params_hier[] = { MPII_HIER_PARAMS_HIER(INT_PARAM_, NAME_PARAM_) };
static const param_spec params_hier_data[] = { MPII_HIER_PARAMS_HIER_DATA(INT_PARAM_, NAME_PARAM_) };
static const param_spec params_hier_steps[] = {
    MPII_HIER_PARAMS_HIER_STEPS(INT_PARAM_, NAME_PARAM_)
};
static const param_spec params_hier_top[] = {
    MPII_HIER_PARAMS_HIER_TOP(INT_PARAM_, NAME_PARAM_)
};
static const param_spec params_seg[] = { MPII_HIER_PARAMS_SEG(INT_PARAM_, NAME_PARAM_) };
static const param_spec params_seg_chain[] = {
    MPII_HIER_PARAMS_SEG_CHAIN(INT_PARAM_, NAME_PARAM_)
};

typedef struct {
    const char *container;
    const char *coll;
    const param_spec *params;
    int n_params;
} algorithm_spec;

#define ALGORITHM_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    {"MPIR_" #Coll_ "_intra_" #algo_, #coll_, params_##PARAMS_, \
     (int) (sizeof(params_##PARAMS_) / sizeof(param_spec))},
#define params_HIER params_hier
#define params_HIER_DATA params_hier_data
#define params_HIER_STEPS params_hier_steps
#define params_HIER_TOP params_hier_top
#define params_SEG params_seg
#define params_SEG_CHAIN params_seg_chain
/* the schedules take no JSON parameters */
#define SCHED_ALGORITHM_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    {"MPIR_" #Icoll_ "_intra_" #algo_, #icoll_, NULL, 0},
static const algorithm_spec algorithms[] = {
    MPII_HIER_ALGORITHMS(ALGORITHM_)
    MPII_HIER_SCHED_ALGORITHMS(SCHED_ALGORITHM_)
};
#define N_ALGORITHMS ((int) (sizeof(algorithms) / sizeof(algorithms[0])))

typedef struct {
    const char *name;
    const char *coll;           /* NULL: every hier collective */
    int value;
} named_value;

#define INTER_ALL_(name_, NAME_) {#name_, NULL, MPII_HIER_INTER_##NAME_},
#define INTER_OWN_(coll_, COLL_, name_, NAME_) {#name_, #coll_, MPII_HIER_INTER_##NAME_},
#define INTRA_(name_, NAME_) {#name_, NULL, MPII_HIER_INTRA_##NAME_},
static const named_value inter_algos[] = { MPII_HIER_INTER_ALGOS(INTER_ALL_, INTER_OWN_) {0} };
static const named_value intra_algos[] = { MPII_HIER_INTRA_ALGOS(INTRA_) {0} };

/* the listed collectives' own inter-node lists: a name's value is its position */
#define LISTED_NAME_(name_, NAME_) #name_,
#define LISTED_ARRAY_(coll_, COLL_) \
    static const char *const inter_##coll_[] = { MPII_HIER_INTER_ALGOS_##COLL_(LISTED_NAME_) NULL };
MPII_HIER_LISTED_COLLECTIVES(LISTED_ARRAY_)
#define LISTED_ENTRY_(coll_, COLL_) {#coll_, inter_##coll_},
static const struct {
    const char *coll;
    const char *const *names;
} listed_inter_algos[] = { MPII_HIER_LISTED_COLLECTIVES(LISTED_ENTRY_) {0} };

const char *MPII_Hier_grammar_listed_inter(const char *coll, int i)
{
    for (int c = 0; listed_inter_algos[c].coll; c++)
        if (!strcmp(listed_inter_algos[c].coll, coll)) {
            for (int v = 0; listed_inter_algos[c].names[v]; v++)
                if (v == i)
                    return listed_inter_algos[c].names[v];
            return NULL;
        }
    return NULL;
}

/* The value of an inter-node submodule name for coll, -1 if it is not one of coll's. */
static int inter_algo_value(const char *coll, const char *name)
{
    for (int i = 0; listed_inter_algos[i].coll; i++) {
        if (strcmp(listed_inter_algos[i].coll, coll))
            continue;
        for (int v = 0; listed_inter_algos[i].names[v]; v++)
            if (!strcmp(listed_inter_algos[i].names[v], name))
                return v;
        return -1;
    }
    for (const named_value * v = inter_algos; v->name; v++)
        if (!strcmp(v->name, name) && (!v->coll || !strcmp(v->coll, coll)))
            return v->value;
    return -1;
}

int MPII_Hier_grammar_algorithm(const char *container)
{
    for (int i = 0; i < N_ALGORITHMS; i++)
        if (!strcmp(container, algorithms[i].container))
            return i;
    return -1;
}

int MPII_Hier_grammar_param_count(int i)
{
    return i >= 0 && i < N_ALGORITHMS ? algorithms[i].n_params : 0;
}

/* a decimal integer in min..INT_MAX, nothing else */
static int parse_int(const char *text, int min, int *out)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || errno || v < min || v > INT_MAX)
        return -1;
    *out = (int) v;
    return 0;
}

int MPII_Hier_grammar_param(int i, const char *name, const char *value, int *value_out)
{
    if (i < 0 || i >= N_ALGORITHMS)
        return -1;
    const algorithm_spec *a = &algorithms[i];
    for (int p = 0; p < a->n_params; p++) {
        const param_spec *s = &a->params[p];
        if (strcmp(s->name, name))
            continue;
        if (s->kind == PARAM_INT)
            return parse_int(value, s->min, value_out) ? -1 : p;
        if (s->names == INTER_ALGOS) {
            int v = inter_algo_value(a->coll, value);
            if (v < 0)
                return -1;
            *value_out = v;
            return p;
        }
        for (const named_value * v = intra_algos; v->name; v++)
            if (!strcmp(v->name, value)) {
                *value_out = v->value;
                return p;
            }
        return -1;
    }
    return -1;
}

/* ---- MPICH's keys ---- */

#define STRING_(s_) s_,
static const char *const mpich_collectives[] = { MPII_HIER_MPICH_COLLECTIVES(STRING_) NULL };
static const char *const mpich_conditions[] = { MPII_HIER_MPICH_CONDITIONS(STRING_) NULL };
static const char *const mpich_bounds[] = { MPII_HIER_MPICH_BOUNDS(STRING_) NULL };
static const char *const mpich_algorithms[] = { MPII_HIER_MPICH_ALGORITHMS(STRING_) NULL };
static const char *const mpich_compositions[] = { MPII_HIER_MPICH_COMPOSITIONS(STRING_) NULL };

#define ALGORITHM_PARAM_(container_, param_) {container_, param_},
static const struct {
    const char *container;
    const char *param;
} mpich_algorithm_params[] = { MPII_HIER_MPICH_ALGORITHM_PARAMS(ALGORITHM_PARAM_) {0} };

/* the parameters MPICH passes on to the algorithm without initialising them */
#define ALGORITHM_CVAR_(container_, param_, cvar_, default_) {container_, param_},
static const struct {
    const char *container;
    const char *param;
} mpich_call_params[] = { MPII_HIER_MPICH_ALGORITHM_CVARS(ALGORITHM_CVAR_) {0} };

/* the parameters MPICH passes on to the algorithm that its parser never reads from a tree */
static const struct {
    const char *container;
    const char *param;
} mpich_unread_params[] = { MPII_HIER_MPICH_UNREAD_PARAMS(ALGORITHM_PARAM_) {0} };

#define REQUIREMENT_(container_, condition_) {#container_, #condition_},
static const struct {
    const char *container;
    const char *condition;
} requirements[] = { MPII_HIER_MPICH_REQUIREMENTS(REQUIREMENT_) {0} };

#define KEY_COLLECTIVE_(key_, coll_) {key_, coll_},
static const struct {
    const char *key;
    const char *coll;
} key_collectives[] = { MPII_HIER_MPICH_KEY_COLLECTIVES(KEY_COLLECTIVE_) {0} };

/* Whether MPICH evaluates the condition key ckey ("avg_msg_size<=N", "is_commutative=yes",
 * ...) for coll: the keys it defines per collective abort on the others. */
static int key_defined_for(const char *ckey, const char *coll)
{
    size_t n = strcspn(ckey, "<=");
    int restricted = 0;
    for (int i = 0; key_collectives[i].key; i++) {
        if (strlen(key_collectives[i].key) != n || strncmp(key_collectives[i].key, ckey, n))
            continue;
        restricted = 1;
        if (!strcmp(key_collectives[i].coll, coll))
            return 1;
    }
    return !restricted;
}

static int in_list(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], s))
            return 1;
    return 0;
}

/* How MPICH 5.0.1 reads a key (csel.c parse_json_tree, validate_tree):
 *   KEY_TEST   a yes/no test (is_*, comm_type, comm_hierarchy): it may end its chain;
 *   KEY_BOUND  a comparison (comm_size<=N, comm_avg_ppn<N, comm_size=pow2, count<pow2,
 *              ...): validate_tree asserts unless another key follows it in its chain;
 *   KEY_ANY    the ANY operator, "any" or "<name>=any" whatever the name: always true,
 *              and validate_tree asserts unless it ends its chain. */
typedef enum { KEY_UNKNOWN, KEY_TEST, KEY_BOUND, KEY_ANY, KEY_BAD_BOUND } key_kind;

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* the length of a key's name: "comm_size" of "comm_size<=8" and of "comm_size=pow2" */
static size_t name_length(const char *ckey)
{
    return strcspn(ckey, "<=");
}

/* whether MPICH compares a number under this key's name (it has bounds: "comm_size",
 * "count"), which makes "comm_size=pow2" and "count<pow2" comparisons too */
static int names_a_quantity(const char *ckey)
{
    size_t n = name_length(ckey);
    for (int i = 0; mpich_bounds[i]; i++)
        if (name_length(mpich_bounds[i]) == n && !strncmp(mpich_bounds[i], ckey, n))
            return 1;
    return 0;
}

/* In MPICH's order: its whole keys, then its bounds (the prefix that leaves only digits:
 * "comm_size<=8" is "comm_size<=" and 8), then ANY, which it tests last, so that
 * "comm_size<=any" is a bound (atoi reads 0: a bad one here) and "collective=any" an
 * unknown collective. */
static key_kind classify(const char *ckey)
{
    if (!strncmp(ckey, "collective=", 11))
        return KEY_UNKNOWN;     /* collectives are the top level's (check_node) */
    if (in_list(mpich_conditions, ckey))
        return names_a_quantity(ckey) ? KEY_BOUND : KEY_TEST;
    for (int i = 0; mpich_bounds[i]; i++) {
        size_t n = strlen(mpich_bounds[i]);
        if (strncmp(ckey, mpich_bounds[i], n) || ckey[n] == '=')
            continue;
        int bound;
        return parse_int(ckey + n, 0, &bound) ? KEY_BAD_BOUND : KEY_BOUND;
    }
    if (!strcmp(ckey, "any") || ends_with(ckey, "=any"))
        return KEY_ANY;
    return KEY_UNKNOWN;
}

/* Whether two tests together hold for every call: "X=yes" and "X=no", "comm_type=intra"
 * and "comm_type=inter", "comm_hierarchy=parent" and any other comm_hierarchy key (MPICH
 * 5.0.1 reads node, node_roots and flat alike: not a parent comm). */
static int complementary(const char *a, const char *b)
{
    size_t n = name_length(a);
    if (a[n] != '=' || strncmp(a, b, n + 1) || !strcmp(a, b))
        return 0;
    if (!strncmp(a, "comm_hierarchy=", n + 1))
        return !strcmp(a + n + 1, "parent") != !strcmp(b + n + 1, "parent");
    return 1;
}

/* ---- the tree check ---- */

#define MAX_DEPTH 32

typedef struct {
    MPII_Hier_tree_level level;
    MPII_Hier_problem_fn fn;
    void *ctx;
    int problems;
    const char *path[MAX_DEPTH];        /* keys from the top */
    struct json_object *parent[MAX_DEPTH];      /* the object each key of path is in */
    int depth;
} tree_check;

static void problem(tree_check * tc, const char *what, const char *item)
{
    char where[1024] = "the top";
    size_t len = 0;
    for (int i = 0; i < tc->depth && len < sizeof(where); i++)
        len += snprintf(where + len, sizeof(where) - len, "%s%s", i ? " > " : "", tc->path[i]);
    tc->problems++;
    if (tc->fn)
        tc->fn(tc->ctx, where, what, item);
}

/* MPICH strips spaces from keys (MPL_strdup_no_spaces) */
static void without_spaces(const char *key, char *out, size_t size)
{
    size_t len = 0;
    for (const char *s = key; *s && len + 1 < size; s++)
        if (*s != ' ')
            out[len++] = *s;
    out[len] = '\0';
}

/* whether key (without spaces) is on the path, whose keys are as written */
static int on_path(const tree_check * tc, const char *key)
{
    for (int i = 0; i < tc->depth; i++) {
        const char *a = tc->path[i], *b = key;
        for (;; a++, b++) {
            while (*a == ' ')
                a++;
            if (*a != *b)
                break;
            if (!*a)
                return 1;
        }
    }
    return 0;
}

/* whether the path takes the failure branch of the test key (without spaces): an
 * object on the path has it before the path's key */
static int failed_on_path(const tree_check * tc, const char *key)
{
    for (int i = 0; i < tc->depth; i++) {
        json_object_object_foreach(tc->parent[i], k, v) {
            (void) v;
            if (k == tc->path[i])
                break;
            char ck[256];
            without_spaces(k, ck, sizeof(ck));
            if (!strcmp(ck, key))
                return 1;
        }
    }
    return 0;
}

/* a requirement: "KEY" holds on the path, "!KEY" fails on it */
static int requirement_met(const tree_check * tc, const char *condition)
{
    return condition[0] == '!' ? failed_on_path(tc, condition + 1) : on_path(tc, condition);
}

/* Whether the leaf is on a branch no call takes: under comm_type=inter for a scan or
 * exscan, which MPI defines on intracommunicators only (MPICH's shipped tree names its smp
 * scan there) */
static int never_runs(const tree_check * tc, const char *name)
{
    return (!strncmp(name, "MPIR_Scan_", 10) || !strncmp(name, "MPIR_Exscan_", 12)) &&
        on_path(tc, "comm_type=inter");
}

/* MPIR_<Coll>_..., or MPIDI_<Coll>_... for a composition */
static int names_collective(const char *name, const char *prefix, const char *coll)
{
    size_t p = strlen(prefix), c = strlen(coll);
    if (strncmp(name, prefix, p) || strlen(name) <= p + c || name[p + c] != '_')
        return 0;
    for (size_t i = 0; i < c; i++)
        if ((i == 0 ? coll[i] - 'a' + 'A' : coll[i]) != name[p + i])
            return 0;
    /* the kind follows the collective: MPIR_Reduce_scatter_... is not a reduce */
    const char *kind = name + p + c + 1;
    return !strncmp(kind, "intra_", 6) || !strncmp(kind, "inter_", 6) ||
        !strncmp(kind, "allcomm_", 8);
}

static void check_params(tree_check * tc, int algo, const char *name, struct json_object *params)
{
    char what[200];
    snprintf(what, sizeof(what), "invalid parameter of %s:", name);
    json_object_object_foreach(params, key, val) {
        char param[256];
        snprintf(param, sizeof(param), "%s", key);
        char *eq = strchr(param, '=');
        int value;
        if (eq)
            *eq = '\0';
        if (!eq || !json_object_is_type(val, json_type_object) ||
            json_object_object_length(val) != 0 ||
            MPII_Hier_grammar_param(algo, param, eq + 1, &value) < 0)
            problem(tc, what, key);
    }
}

/* MPICH's own algorithm: it reads the "param=VALUE" keys it knows for the container
 * (csel_container.c, values by atoi or a name) and ignores the others */
static void check_mpich_params(tree_check * tc, const char *name, struct json_object *params)
{
    int has_params = 0;
    for (int i = 0; mpich_algorithm_params[i].container; i++)
        has_params |= !strcmp(mpich_algorithm_params[i].container, name);
    char what[200];
    snprintf(what, sizeof(what), "a parameter MPICH does not read for %s (it ignores it):", name);
    json_object_object_foreach(params, key, val) {
        (void) val;
        char param[256];
        without_spaces(key, param, sizeof(param));
        char *eq = strchr(param, '=');
        int known = 0;
        if (eq) {
            *eq = '\0';
            for (int i = 0; mpich_algorithm_params[i].container; i++)
                known |= !strcmp(mpich_algorithm_params[i].container, name) &&
                    !strcmp(mpich_algorithm_params[i].param, param);
            known |= !strcmp(param, MPII_HIER_WHOLE_COMM_PARAM) && !strcmp(eq + 1, "1");
        }
        if (!known)
            problem(tc, has_params ? what : "parameters for an algorithm without parameters:", key);
    }
    /* MPICH allocates the container uninitialised: a parameter the tree leaves out
     * reaches the algorithm as garbage */
    for (int i = 0; mpich_call_params[i].container; i++) {
        if (strcmp(mpich_call_params[i].container, name))
            continue;
        int given = 0;
        json_object_object_foreach(params, key2, val2) {
            (void) val2;
            char param[256];
            without_spaces(key2, param, sizeof(param));
            char *eq = strchr(param, '=');
            given |= eq && (*eq = '\0', !strcmp(param, mpich_call_params[i].param));
        }
        if (!given) {
            snprintf(what, sizeof(what), "%s without its parameter (MPICH leaves it uninitialised):",
                     name);
            problem(tc, what, mpich_call_params[i].param);
        }
    }
    for (int i = 0; mpich_unread_params[i].container; i++)
        if (!strcmp(mpich_unread_params[i].container, name)) {
            snprintf(what, sizeof(what), "%s, whose parameter MPICH never reads from a tree "
                     "(it reaches the algorithm uninitialised):", name);
            problem(tc, what, mpich_unread_params[i].param);
        }
}

static void check_container(tree_check * tc, const char *key, struct json_object *params,
                            const char *coll)
{
    const int mpir = !strncmp(key, "algorithm=", 10);
    const char *name = strchr(key, '=') + 1;
    if (mpir != (tc->level == MPII_HIER_TREE_MPIR)) {
        problem(tc, mpir ? "an MPIR algorithm in a CH4 tree" : "a CH4 composition in an MPIR tree",
                key);
        return;
    }
    if (!names_collective(name, mpir ? "MPIR_" : "MPIDI_", coll)) {
        problem(tc, "not an algorithm of this collective", key);
        return;
    }
    int algo = mpir ? MPII_Hier_grammar_algorithm(name) : -1;
    if (algo < 0 && !in_list(mpir ? mpich_algorithms : mpich_compositions, name)) {
        problem(tc, "an algorithm MPICH does not know", key);
        return;
    }
    if (!json_object_is_type(params, json_type_object)) {
        problem(tc, "algorithm parameters that are not an object:", key);
        return;
    }
    if (algo >= 0)
        check_params(tc, algo, name, params);
    else if (mpir)
        check_mpich_params(tc, name, params);
    for (int i = 0; requirements[i].container; i++)
        if (!strcmp(requirements[i].container, name) && !never_runs(tc, name) &&
            !requirement_met(tc, requirements[i].condition)) {
            const char *c = requirements[i].condition;
            char what[200];
            snprintf(what, sizeof(what), "%s selected where \"%s\" %s:", name,
                     c + (c[0] == '!'), c[0] == '!' ? "has not failed" : "does not hold");
            problem(tc, what, key);
        }
}

static void check_node(tree_check * tc, struct json_object *obj, const char *coll);

/* whether two keys of a chain are complementary tests: the chain cannot fail */
static int has_complementary_tests(struct json_object *obj)
{
    json_object_object_foreach(obj, a, va) {
        (void) va;
        char ca[256];
        without_spaces(a, ca, sizeof(ca));
        if (classify(ca) != KEY_TEST)
            continue;
        json_object_object_foreach(obj, b, vb) {
            (void) vb;
            char cb[256];
            without_spaces(b, cb, sizeof(cb));
            if (classify(cb) == KEY_TEST && complementary(ca, cb))
                return 1;
        }
    }
    return 0;
}

static void check_child(tree_check * tc, struct json_object *obj, const char *key,
                        struct json_object *val, const char *coll)
{
    if (tc->depth == MAX_DEPTH) {
        problem(tc, "a tree nested too deep:", key);
        return;
    }
    tc->parent[tc->depth] = obj;
    tc->path[tc->depth++] = key;
    check_node(tc, val, coll);
    tc->depth--;
}

static void check_node(tree_check * tc, struct json_object *obj, const char *coll)
{
    if (!json_object_is_type(obj, json_type_object)) {
        problem(tc, "a value that is not a JSON object:", json_object_to_json_string(obj));
        return;
    }
    int n = json_object_object_length(obj), i = 0;
    if (n == 0) {
        problem(tc, "an empty object: no algorithm chosen", "{}");
        return;
    }
    int bounded = 0;
    const char *last = NULL;
    key_kind last_kind = KEY_UNKNOWN;
    json_object_object_foreach(obj, key, val) {
        char ckey[256];
        without_spaces(key, ckey, sizeof(ckey));
        i++;
        if (!coll) {
            if (strncmp(ckey, "collective=", 11) || !in_list(mpich_collectives, ckey + 11))
                problem(tc, "not a collective (\"collective=NAME\")", key);
            else
                check_child(tc, obj, key, val, ckey + 11);
            continue;
        }
        if (!strncmp(ckey, "algorithm=", 10) || !strncmp(ckey, "composition=", 12)) {
            if (n != 1)
                problem(tc, "an algorithm beside other keys (it must be alone):", key);
            else
                check_container(tc, ckey, val, coll);
            return;
        }
        key_kind kind = classify(ckey);
        if (kind == KEY_UNKNOWN)
            problem(tc, "an unknown key", key);
        else if (kind == KEY_BAD_BOUND)
            problem(tc, "a bound that is not an integer in 0..INT_MAX:", key);
        else if (kind == KEY_ANY && i != n)
            problem(tc, "an always-true key before the end of its chain:", key);
        else if (kind == KEY_BOUND && i == n)
            problem(tc, "a bound that ends its chain (MPICH asserts when it loads the tree: an "
                    "ANY key must follow it):", key);
        else if (kind != KEY_ANY && !key_defined_for(ckey, coll))
            problem(tc, "a key MPICH does not define for this collective (it aborts on it):",
                    key);
        bounded |= kind == KEY_BOUND;
        last = key;
        last_kind = kind;
        check_child(tc, obj, key, val, coll);
    }
    /* MPIR asserts when no algorithm matches (MPIR_Csel_search returns no container); CH4
     * falls back to MPIR.  A chain of bounds needs an ANY key at its end, unless two of
     * its tests leave no call out. */
    if (bounded && last_kind == KEY_TEST && tc->level == MPII_HIER_TREE_MPIR &&
        !has_complementary_tests(obj))
        problem(tc, "a chain of bounds that can all fail (MPICH asserts): it ends with", last);
}

int MPII_Hier_whole_comm_leaf(struct json_object *leaf)
{
    if (!json_object_is_type(leaf, json_type_object) || json_object_object_length(leaf) != 1)
        return 0;
    json_object_object_foreach(leaf, key, params) {
        char ckey[256];
        without_spaces(key, ckey, sizeof(ckey));
        if (strncmp(ckey, "algorithm=", 10) || MPII_Hier_grammar_algorithm(ckey + 10) >= 0 ||
            !json_object_is_type(params, json_type_object))
            return 0;
        json_object_object_foreach(params, pkey, pval) {
            (void) pval;
            char cparam[256];
            without_spaces(pkey, cparam, sizeof(cparam));
            if (!strcmp(cparam, MPII_HIER_WHOLE_COMM_PARAM "=1"))
                return 1;
        }
    }
    return 0;
}

int MPII_Hier_check_tree(struct json_object *tree, MPII_Hier_tree_level level,
                         MPII_Hier_problem_fn fn, void *ctx)
{
    tree_check tc = { level, fn, ctx, 0, {0}, {0}, 0 };
    check_node(&tc, tree, NULL);
    return tc.problems;
}

struct json_object *MPII_Hier_read_tree(const char *path, MPII_Hier_problem_fn fn, void *ctx)
{
    struct json_object *tree = NULL;
    char what[256];
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(what, sizeof(what), "cannot be read (%s)", strerror(errno));
        fn(ctx, "", what, path);
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
    what[0] = '\0';
    if (!tree && offset == 0)
        snprintf(what, sizeof(what), "not valid JSON: the file is empty");
    else if (!tree && jerr == json_tokener_continue)
        snprintf(what, sizeof(what), "not valid JSON: the file ends inside a value "
                 "(after %zu bytes)", offset);
    else if (!tree)
        snprintf(what, sizeof(what), "not valid JSON at line %d, column %d: %s", line, col,
                 json_tokener_error_desc(jerr));
    if (!tree)
        fn(ctx, "", what, path);
    json_tokener_free(tok);
    fclose(f);
    return tree;
}
