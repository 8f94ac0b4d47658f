/*
 * Unit tests of mpich-hier's grammar (hier_grammar.c): the lookups of its table, and
 * the check of Csel trees that MPI_Init and hiertune check-tree run.  MPICH's shipped
 * trees must pass; each kind of problem must be found, all of them, with its place.
 * MPICH_HIER_BUILDDIR (set by make check) locates MPICH's shipped trees.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json.h>
#include "hier_grammar.h"

#define MAX_PROBLEMS 16

typedef struct {
    int n;
    char line[MAX_PROBLEMS][512];
} problems;

static void collect(void *ctx, const char *where, const char *what, const char *item)
{
    problems *p = ctx;
    if (p->n < MAX_PROBLEMS)
        snprintf(p->line[p->n], sizeof(p->line[0]), "%s | %s | %s", where, what, item);
    p->n++;
}

/* number of problems in a tree given as JSON text; their lines in *p */
static int check_text(const char *text, MPII_Hier_tree_level level, problems * p)
{
    memset(p, 0, sizeof(*p));
    struct json_object *tree = json_tokener_parse(text);
    ck_assert_msg(tree != NULL, "test tree is not JSON: %s", text);
    int n = MPII_Hier_check_tree(tree, level, collect, p);
    json_object_put(tree);
    ck_assert_int_eq(n, p->n);
    return n;
}

static int mentions(const problems * p, int i, const char *text)
{
    return i < p->n && strstr(p->line[i], text) != NULL;
}

static int param(const char *container, const char *name, const char *value, int *out)
{
    return MPII_Hier_grammar_param(MPII_Hier_grammar_algorithm(container), name, value, out);
}

START_TEST(algorithms_by_container)
{
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Bcast_intra_hier"), 0);
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Reduce_intra_seg_in_order_binary"), 0);
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Allreduce_intra_hier"), 0);
    ck_assert_int_eq(MPII_Hier_grammar_algorithm("MPIR_Allreduce_intra_seg_chain"), -1);
    ck_assert_int_eq(MPII_Hier_grammar_algorithm("MPIR_Bcast_intra_seg_in_order_binary"), -1);
    ck_assert_int_eq(MPII_Hier_grammar_algorithm("MPIR_Bcast_intra_binomial"), -1);
    ck_assert_int_eq(MPII_Hier_grammar_param_count(MPII_Hier_grammar_algorithm
                                                   ("MPIR_Bcast_intra_hier")), 11);
    ck_assert_int_eq(MPII_Hier_grammar_param_count(MPII_Hier_grammar_algorithm
                                                   ("MPIR_Reduce_intra_seg_chain")), 2);
    ck_assert_int_eq(MPII_Hier_grammar_param_count(-1), 0);
}
END_TEST

START_TEST(integer_parameters)
{
    int v = -7;
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "0", &v), 0);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "2147483647", &v), 0);
    ck_assert_int_eq(v, 2147483647);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "2147483648", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "-1", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "12k", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "segsize", "", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "inter_k", "0", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "inter_k", "3", &v), 2);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "inter_chunk", "4096", &v), 3);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "fanout", "2", &v), -1);
    /* the steps among switch groups: the inter-node three again */
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "up_inter_k", "0", &v), -1);
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "up_inter_k", "4", &v), 6);
    ck_assert_int_eq(v, 4);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "up_inter_chunk", "-1", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "up_inter_chunk", "8192", &v), 7);
    ck_assert_int_eq(v, 8192);
    ck_assert_int_eq(param("MPIR_Allgather_intra_hier", "up_inter_k", "2", &v), -1);
    /* the steps among package leaders inside a node: the three once more */
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "down_inter_k", "0", &v), -1);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "down_inter_k", "5", &v), 9);
    ck_assert_int_eq(v, 5);
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "down_inter_chunk", "1024", &v), 10);
    ck_assert_int_eq(v, 1024);
    ck_assert_int_eq(param("MPIR_Gather_intra_hier", "down_inter_chunk", "1024", &v), -1);
}
END_TEST

/* fanout belongs to seg_chain only: MPICH rejected a generated tree that wrote it for
 * every segmented tree */
START_TEST(fanout_only_for_chain)
{
    int v;
    ck_assert_int_eq(param("MPIR_Bcast_intra_seg_chain", "fanout", "3", &v), 1);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(param("MPIR_Reduce_intra_seg_chain", "fanout", "0", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_seg_binary", "fanout", "2", &v), -1);
    ck_assert_int_eq(param("MPIR_Reduce_intra_seg_linear", "fanout", "2", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_seg_binary", "segsize", "1024", &v), 0);
}
END_TEST

/* each collective's own inter-node submodule is valid for it alone */
START_TEST(own_inter_algos)
{
    int v = -1;
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "inter_algo", "seg_split_binary", &v), 1);
    ck_assert_int_eq(v, MPII_HIER_INTER_SEG_SPLIT_BINARY);
    ck_assert_int_eq(v, MPII_HIER_INTER_OWN);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "inter_algo", "seg_split_binary", &v), -1);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "inter_algo", "seg_in_order_binary", &v), 1);
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "inter_algo", "seg_in_order_binary", &v),
                     -1);
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "inter_algo", "tsp_allreduce_ring", &v),
                     1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "inter_algo", "tsp_allreduce_ring", &v), -1);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "inter_algo", "tsp_ring", &v), 1);
    ck_assert_int_eq(v, MPII_HIER_INTER_TSP_RING);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "intra_algo", "shm", &v), 4);
    ck_assert_int_eq(v, MPII_HIER_INTRA_SHM);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "intra_algo", "tsp_ring", &v), -1);
    /* above the node: the collective's own list too */
    ck_assert_int_eq(param("MPIR_Allreduce_intra_hier", "up_inter_algo", "tsp_allreduce_ring", &v),
                     5);
    ck_assert_int_eq(v, MPII_HIER_INTER_TSP_ALLREDUCE_RING);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "up_inter_algo", "tsp_allreduce_ring", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "up_inter_algo", "seg_split_binary", &v), 5);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "up_inter_algo", "shm", &v), -1);
    ck_assert_int_eq(param("MPIR_Reduce_intra_hier", "down_inter_algo", "seg_in_order_binary", &v),
                     8);
    ck_assert_int_eq(v, MPII_HIER_INTER_SEG_IN_ORDER_BINARY);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "down_inter_algo", "seg_in_order_binary", &v),
                     -1);
    ck_assert_int_eq(MPII_HIER_INTER_COUNT, MPII_HIER_INTER_OWN + 1);
}
END_TEST

/* allgather, gather, scatter, barrier: their own lists, values by position */
START_TEST(listed_inter_algos)
{
    int v = -1;
    ck_assert_int_eq(param("MPIR_Gather_intra_hier", "inter_algo", "binomial", &v), 0);
    ck_assert_int_eq(v, MPII_HIER_GATHER_INTER_BINOMIAL);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(param("MPIR_Scatter_intra_hier", "inter_algo", "linear", &v), 0);
    ck_assert_int_eq(v, MPII_HIER_SCATTER_INTER_LINEAR);
    ck_assert_int_eq(param("MPIR_Allgather_intra_hier", "inter_algo", "ring", &v), 1);
    ck_assert_int_eq(v, MPII_HIER_ALLGATHER_INTER_RING);
    ck_assert_int_eq(param("MPIR_Barrier_intra_hier", "inter_algo", "dissemination", &v), 0);
    ck_assert_int_eq(v, MPII_HIER_BARRIER_INTER_DISSEMINATION);
    /* the reduce-scatters' and allgatherv's one item; no other list's */
    ck_assert_int_eq(param("MPIR_Reduce_scatter_intra_hier", "inter_algo", "linear", &v), 0);
    ck_assert_int_eq(v, MPII_HIER_REDUCE_SCATTER_INTER_LINEAR);
    ck_assert_int_eq(param("MPIR_Reduce_scatter_block_intra_hier", "inter_algo", "ring", &v), -1);
    ck_assert_int_eq(param("MPIR_Allgatherv_intra_hier", "inter_algo", "linear", &v), 0);
    ck_assert_int_eq(v, MPII_HIER_ALLGATHERV_INTER_LINEAR);
    ck_assert_int_eq(param("MPIR_Allgatherv_intra_hier", "inter_algo", "by_size", &v), -1);
    ck_assert_int_eq(param("MPIR_Allgatherv_intra_hier", "segsize", "4096", &v), -1);
    /* the tree collectives' items are not theirs, nor each other's */
    ck_assert_int_eq(param("MPIR_Gather_intra_hier", "inter_algo", "tsp_ring", &v), -1);
    ck_assert_int_eq(param("MPIR_Gather_intra_hier", "inter_algo", "auto", &v), -1);
    ck_assert_int_eq(param("MPIR_Barrier_intra_hier", "inter_algo", "ring", &v), -1);
    ck_assert_int_eq(param("MPIR_Bcast_intra_hier", "inter_algo", "dissemination", &v), -1);
    ck_assert_int_eq(param("MPIR_Barrier_intra_hier", "intra_algo", "shm", &v), 1);
    ck_assert_int_eq(v, MPII_HIER_INTRA_SHM);
    ck_assert_int_eq(param("MPIR_Gather_intra_hier", "segsize", "1024", &v), -1);
    ck_assert_int_eq(param("MPIR_Allgather_intra_hier", "segsize", "1024", &v), 0);
    ck_assert_str_eq(MPII_Hier_grammar_listed_inter("allgather", 1), "ring");
    ck_assert_str_eq(MPII_Hier_grammar_listed_inter("allgather", 2), "by_size");
    ck_assert_ptr_null(MPII_Hier_grammar_listed_inter("allgather", 3));
    ck_assert_ptr_null(MPII_Hier_grammar_listed_inter("bcast", 0));
}
END_TEST

START_TEST(good_trees)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": {"
                                "\"avg_msg_size<=65536\": {\"algorithm=MPIR_Bcast_intra_binomial\":{}},"
                                "\"avg_msg_size=any\": {\"algorithm=MPIR_Bcast_intra_hier\":"
                                " {\"segsize=65536\":{}, \"inter_algo=tsp_ring\":{}}}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* spaces in keys are MPICH's to strip */
    ck_assert_int_eq(check_text("{\"collective = reduce\": {\"comm_hierarchy=parent\": {"
                                "\"is_commutative = yes\": {\"algorithm=MPIR_Reduce_intra_smp\":{}},"
                                "\"is_commutative=no\": {\"algorithm=MPIR_Reduce_intra_seg_chain\":"
                                " {\"fanout=2\":{}}}}, \"comm_hierarchy=any\": "
                                "{\"algorithm=MPIR_Reduce_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
}
END_TEST

/* the schedules: named under their non-blocking collective, without parameters */
START_TEST(schedules)
{
    problems p;
    int v;
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Ibcast_intra_tsp_hier"), 0);
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Iallreduce_intra_tsp_hier"), 0);
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Igather_intra_tsp_hier"), 0);
    ck_assert_int_ge(MPII_Hier_grammar_algorithm("MPIR_Igatherv_intra_tsp_hier"), 0);
    ck_assert_int_eq(MPII_Hier_grammar_algorithm("MPIR_Ialltoallw_intra_tsp_hier"), -1);
    ck_assert_int_eq(MPII_Hier_grammar_param_count(MPII_Hier_grammar_algorithm
                                                   ("MPIR_Ireduce_intra_tsp_hier")), 0);
    ck_assert_int_eq(param("MPIR_Ibcast_intra_tsp_hier", "segsize", "1024", &v), -1);
    ck_assert_int_eq(check_text("{\"collective=ibcast\": {\"comm_hierarchy=parent\": "
                                "{\"algorithm=MPIR_Ibcast_intra_tsp_hier\":{}}, "
                                "\"comm_hierarchy=any\": {\"algorithm=MPIR_Ibcast_intra_sched_binomial\":{}}},"
                                " \"collective=iallreduce\": {\"algorithm=MPIR_Iallreduce_intra_tsp_hier\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=ibcast\": {\"algorithm=MPIR_Ibcast_intra_tsp_hier\":"
                                " {\"segsize=1024\":{}}}}", MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "invalid parameter of MPIR_Ibcast_intra_tsp_hier: | segsize=1024"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Ibcast_intra_tsp_hier\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not an algorithm of this collective"));
}
END_TEST

/* MPICH aborts on avg_msg_size under allgather, is_commutative under bcast, ...; but
 * "avg_msg_size=any" is the ANY operator, which 5.0.1 never evaluates (csel.c 533, 1348) */
START_TEST(keys_of_other_collectives)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=allgather\": {\"comm_type=intra\": {"
                                "\"avg_msg_size<=65536\": {\"algorithm=MPIR_Allgather_intra_ring\":{}},"
                                "\"avg_msg_size=any\": {\"algorithm=MPIR_Allgather_intra_hier\":{}}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "comm_type=intra | a key MPICH does not define for this collective"));
    ck_assert(mentions(&p, 0, "| avg_msg_size<=65536"));
    ck_assert_int_eq(check_text("{\"collective=allgather\": {\"comm_type=intra\": {"
                                "\"total_msg_size<=65536\": {\"algorithm=MPIR_Allgather_intra_ring\":{}},"
                                "\"total_msg_size=any\": {\"algorithm=MPIR_Allgather_intra_hier\":{}}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"is_commutative=yes\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"is_commutative=no\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 2);
    ck_assert_int_eq(check_text("{\"collective=gather\": {\"count<=8\": "
                                "{\"algorithm=MPIR_Gather_intra_binomial\":{}}, \"comm_size=any\": "
                                "{\"algorithm=MPIR_Gather_intra_hier\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
}
END_TEST

START_TEST(unknown_names)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomal\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "collective=bcast | an algorithm MPICH does not know"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Reduce_intra_binomial\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not an algorithm of this collective"));
    /* a longer collective's algorithm: MPICH would assert in the reduce dispatch */
    ck_assert_int_eq(check_text("{\"collective=reduce\": "
                                "{\"algorithm=MPIR_Reduce_scatter_intra_pairwise\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not an algorithm of this collective"));
    ck_assert_int_eq(check_text("{\"collective=bcst\": {\"algorithm=MPIR_Bcast_intra_binomial\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not a collective"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_sise<=4\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "an unknown key | comm_sise<=4"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=8x\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"comm_size=any\":"
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not an integer"));
}
END_TEST

START_TEST(bad_parameters)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_seg_binary\":"
                                " {\"segsize=1024\":{}, \"fanout=2\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "invalid parameter of MPIR_Bcast_intra_seg_binary: | fanout=2"));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"algorithm=MPIR_Allreduce_intra_hier\":"
                                " {\"inter_algo=seg_split_binary\":{}, \"segsize\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 2);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomial\":"
                                " {\"segsize=1\":{}}}}", MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "parameters for an algorithm without parameters"));
}
END_TEST

/* MPICH's own algorithms read the parameters csel_container.c names for them (5.0.1's
 * shipped tree: MPIR_Barrier_intra_k_dissemination with "k=2") and ignore the others */
START_TEST(mpich_parameters)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=barrier\": {\"comm_type=intra\": "
                                "{\"algorithm=MPIR_Barrier_intra_k_dissemination\": {\"k=2\":{}}},"
                                "\"comm_type=inter\": "
                                "{\"algorithm=MPIR_Barrier_inter_bcast\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_tree\":"
                                " {\"tree_type = knomial_1\":{}, \"k=4\":{}, "
                                "\"is_non_blocking=1\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=barrier\": "
                                "{\"algorithm=MPIR_Barrier_intra_k_dissemination\":"
                                " {\"radix=2\":{}, \"k\":{}}}}", MPII_HIER_TREE_MPIR, &p), 3);
    ck_assert(mentions(&p, 0, "collective=barrier | a parameter MPICH does not read for "
                       "MPIR_Barrier_intra_k_dissemination (it ignores it): | radix=2"));
    ck_assert(mentions(&p, 1, "| k"));
    /* "k" without a value gives no k: MPICH would read its container's garbage */
    ck_assert(mentions(&p, 2, "MPIR_Barrier_intra_k_dissemination without its parameter "
                       "(MPICH leaves it uninitialised): | k"));
    /* another algorithm's parameter, and none of its own */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_tree\":"
                                " {\"chunk_size=8192\":{}}}}", MPII_HIER_TREE_MPIR, &p), 4);
}
END_TEST

/* whole_comm=1: the plugin's mark on MPICH's algorithms (the whole comm, as measured) */
START_TEST(whole_comm)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomial\":"
                                " {\"whole_comm = 1\":{}}}}", MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomial\":"
                                " {\"whole_comm=2\":{}}}}", MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "| whole_comm=2"));
    /* the plugin's own algorithms take only their grammar's parameters */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_hier\":"
                                " {\"whole_comm=1\":{}}}}", MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "invalid parameter of MPIR_Bcast_intra_hier"));

    struct json_object *leaf =
        json_tokener_parse("{\"algorithm=MPIR_Allreduce_allcomm_nb\": {\"whole_comm=1\": {}}}");
    ck_assert(MPII_Hier_whole_comm_leaf(leaf));
    json_object_put(leaf);
    leaf = json_tokener_parse("{\"algorithm=MPIR_Allreduce_allcomm_nb\": {}}");
    ck_assert(!MPII_Hier_whole_comm_leaf(leaf));
    json_object_put(leaf);
    leaf = json_tokener_parse("{\"algorithm=MPIR_Bcast_intra_hier\": {\"whole_comm=1\": {}}}");
    ck_assert(!MPII_Hier_whole_comm_leaf(leaf));
    json_object_put(leaf);
}
END_TEST

/* every parameter MPICH passes from the container to the algorithm must be in the tree
 * (coll_algorithms.txt's extra_params): MPICH allocates containers uninitialised */
START_TEST(mpich_parameters_required)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"is_commutative=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_multiplying\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Allreduce_intra_recursive_multiplying "
                       "without its parameter (MPICH leaves it uninitialised): | k"));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": "
                                "{\"is_commutative=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_multiplying\":"
                                " {\"k=4\":{}}}}}", MPII_HIER_TREE_MPIR, &p), 0);
    /* the tree's parameters that MPICH parses but never passes on may be left out */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_tree\":"
                                " {\"tree_type=kary\":{}, \"is_non_blocking=0\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Bcast_intra_tree without its parameter "
                       "(MPICH leaves it uninitialised): | k"));
}
END_TEST

/* a parameter MPICH passes on but its parser never reads cannot come from a tree: the
 * container is refused whatever the tree gives */
START_TEST(mpich_parameters_unread)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=barrier\": {\"algorithm=MPIR_Barrier_intra_recexch\":"
                                " {\"k=2\":{}}}}", MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Barrier_intra_recexch, whose parameter MPICH never reads "
                       "from a tree (it reaches the algorithm uninitialised): | single_phase_recv"));
    ck_assert_int_eq(check_text("{\"collective=igather\": "
                                "{\"algorithm=MPIR_Igather_intra_tsp_tree\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Igather_intra_tsp_tree, whose parameter MPICH never reads "
                       "from a tree (it reaches the algorithm uninitialised): | k"));
    ck_assert_int_eq(check_text("{\"collective=igather\": "
                                "{\"algorithm=MPIR_Igather_intra_sched_binomial\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
}
END_TEST

START_TEST(chains)
{
    problems p;
    /* a bound that ends its chain: 5.0.1's validate_tree asserts when it loads the tree
     * (no failure path, csel.c 285-301), whatever the tree's level */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"avg_msg_size<=1024\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "collective=bcast | a bound that ends its chain"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"avg_msg_size<=1024\": "
                                "{\"composition=MPIDI_Bcast_intra_composition_gamma\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert(mentions(&p, 0, "a bound that ends its chain"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size=pow2\": "
                                "{\"composition=MPIDI_Bcast_intra_composition_gamma\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert(mentions(&p, 0, "| comm_size=pow2"));
    /* every bound can fail and the test after them too: MPIR finds no algorithm and
     * asserts at the call; CH4 falls back to MPIR */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"avg_msg_size<=1024\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"comm_type=intra\":"
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "collective=bcast | a chain of bounds that can all fail"));
    ck_assert(mentions(&p, 0, "| comm_type=intra"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"avg_msg_size<=1024\": "
                                "{\"composition=MPIDI_Bcast_intra_composition_gamma\":{}}, "
                                "\"comm_type=intra\": "
                                "{\"composition=MPIDI_Bcast_intra_composition_gamma\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"comm_size<=4\":"
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 2);
    ck_assert(mentions(&p, 0, "always-true key before the end"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": {}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "collective=bcast > comm_type=intra | an empty object"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": 5}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}, \"count=any\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "must be alone"));
}
END_TEST

/* 5.0.1's ANY operator (csel.c 310-319, 533): "any" alone or any "<name>=any", read
 * after every other key, always true, and the last of its chain (validate_tree) */
START_TEST(any_operator)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": {"
                                "\"avg_msg_size<=65536\": {\"algorithm=MPIR_Bcast_intra_binomial\":{}},"
                                "\"any\": {\"algorithm=MPIR_Bcast_intra_hier\":{}}},"
                                "\"any\": "
                                "{\"algorithm=MPIR_Bcast_inter_remote_send_local_bcast\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* the name of an ANY key does not matter: comm_avg_ppn had no "=any" in 4.0.2 */
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"comm_avg_ppn<=2\": {"
                                "\"is_commutative=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_ring\":{}},"
                                "\"is_commutative=any\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}},"
                                "\"comm_avg_ppn=any\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recexch\":"
                                " {\"k=2\":{}, \"single_phase_recv=0\":{}}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=4\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"nosuchkey=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* always true: nothing after it is ever reached */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"comm_size<=4\":"
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 2);
    ck_assert(mentions(&p, 0, "collective=bcast | an always-true key before the end of its "
                       "chain: | any"));
    ck_assert(mentions(&p, 1, "a bound that ends its chain"));
    /* the keys MPICH reads before ANY win: a bound (atoi: 0), an unknown collective */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"any\":"
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "a bound that is not an integer"));
    ck_assert_int_eq(check_text("{\"collective=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not a collective"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"collective=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "an unknown key | collective=any"));
    /* "any" is no key at the top: mpich-hier merges collectives by their top-level keys */
    ck_assert_int_eq(check_text("{\"any\": {\"collective=bcast\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not a collective"));
}
END_TEST

/* comm_avg_ppn<N, new in 5.0.1 beside comm_avg_ppn<=N (csel.c 515-520) */
START_TEST(avg_ppn_less_than)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_avg_ppn<2\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_avg_ppn<=8\": "
                                "{\"algorithm=MPIR_Bcast_intra_hier\":{}}, \"any\": "
                                "{\"algorithm=MPIR_Bcast_intra_scatter_ring_allgather\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_avg_ppn<2x\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, \"any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "not an integer in 0..INT_MAX: | comm_avg_ppn<2x"));
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_avg_ppn<2\": "
                                "{\"composition=MPIDI_Bcast_intra_composition_gamma\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert(mentions(&p, 0, "a bound that ends its chain"));
}
END_TEST

/* 5.0.1 reads comm_hierarchy=node, =node_roots and =flat alike, "not a parent comm"
 * (csel.c 521-532, 641): with comm_hierarchy=parent they leave no comm out, with each
 * other they do */
START_TEST(hierarchy_tests)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=8\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_hierarchy=parent\": "
                                "{\"algorithm=MPIR_Bcast_intra_smp\":{}}, "
                                "\"comm_hierarchy=flat\": "
                                "{\"algorithm=MPIR_Bcast_intra_scatter_ring_allgather\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=8\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_hierarchy=node_roots\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_hierarchy = parent\": "
                                "{\"algorithm=MPIR_Bcast_intra_smp\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* node and flat: a parent comm of more than 8 ranks matches neither */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=8\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_hierarchy=node\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_hierarchy=flat\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "can all fail"));
    /* yes and no of one test, intra and inter */
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"count<=8\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}, "
                                "\"is_commutative=no\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}, "
                                "\"is_commutative=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_ring\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"count<=8\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}, "
                                "\"is_commutative=no\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}, "
                                "\"is_op_built_in=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_size<=8\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}, "
                                "\"comm_type=inter\": "
                                "{\"algorithm=MPIR_Bcast_inter_remote_send_local_bcast\":{}}, "
                                "\"comm_type=intra\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* only comm_hierarchy=parent makes MPIR_Bcast_intra_smp safe */
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_hierarchy=node\": "
                                "{\"algorithm=MPIR_Bcast_intra_smp\":{}}, \"any\": "
                                "{\"algorithm=MPIR_Bcast_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "where \"comm_hierarchy=parent\" does not hold"));
}
END_TEST

/* MPICH's algorithms where their requirements do not hold (MPICH issue 7456: a shipped
 * CH4 tree selected the single-node allreduce on multi-node comms) */
START_TEST(requirements)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_hierarchy=any\": "
                                "{\"algorithm=MPIR_Bcast_intra_smp\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "where \"comm_hierarchy=parent\" does not hold"));
    /* ring allreduce combines in arrival order: commutative ops only */
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"is_commutative=no\": "
                                "{\"algorithm=MPIR_Allreduce_intra_ring\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Allreduce_intra_ring selected where \"is_commutative=yes\""));
    /* MPICH's recursive doubling allgather(v) asserts a power-of-two comm, blocking and not */
    ck_assert_int_eq(check_text("{\"collective=iallgatherv\": {\"comm_size=any\": "
                                "{\"algorithm=MPIR_Iallgatherv_intra_sched_recursive_doubling\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "where \"comm_size=pow2\" does not hold"));
    ck_assert_int_eq(check_text("{\"collective=allgatherv\": {\"comm_size=pow2\": "
                                "{\"algorithm=MPIR_Allgatherv_intra_recursive_doubling\":{}},"
                                "\"comm_size=any\": {\"algorithm=MPIR_Allgatherv_intra_ring\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* the smp scan combines node by node: only where nodes hold consecutive ranks; an
     * intercomm branch of a scan is never taken (MPI has no scan on intercomms) */
    ck_assert_int_eq(check_text("{\"collective=scan\": {\"comm_type=intra\": "
                                "{\"algorithm=MPIR_Scan_intra_smp\":{}},"
                                "\"comm_type=inter\": {\"algorithm=MPIR_Scan_intra_smp\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "collective=scan > comm_type=intra |"));
    ck_assert(mentions(&p, 0, "where \"is_node_consecutive=yes\" does not hold"));
    ck_assert_int_eq(check_text("{\"collective=scan\": {\"is_node_consecutive=yes\": "
                                "{\"algorithm=MPIR_Scan_intra_smp\":{}},"
                                "\"is_node_consecutive=no\": "
                                "{\"algorithm=MPIR_Scan_intra_recursive_doubling\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* reduce_scatter_allgather asserts count >= pof2: only after "count<pow2" failed */
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"is_op_built_in=yes\": "
                                "{\"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather\":{}},"
                                "\"is_op_built_in=no\": {\"algorithm=MPIR_Allreduce_intra_ring\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 2);
    ck_assert(mentions(&p, 0, "reduce_scatter_allgather selected where \"count<pow2\" has not failed"));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"is_op_built_in=yes\": "
                                "{\"count < pow2\": {\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}},"
                                "\"count=any\": "
                                "{\"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather\":{}}},"
                                "\"is_op_built_in=no\": "
                                "{\"algorithm=MPIR_Allreduce_intra_recursive_doubling\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 0);
    /* the success branch of the test is not its failure */
    ck_assert_int_eq(check_text("{\"collective=reduce\": {\"is_op_built_in=yes\": "
                                "{\"count<pow2\": {\"algorithm=MPIR_Reduce_intra_reduce_scatter_gather\":{}},"
                                "\"count=any\": {\"algorithm=MPIR_Reduce_intra_binomial\":{}}},"
                                "\"is_op_built_in=no\": {\"algorithm=MPIR_Reduce_intra_binomial\":{}}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "MPIR_Reduce_intra_reduce_scatter_gather selected where \"count<pow2\""));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"comm_type=intra\": {\"comm_size=any\": "
                                "{\"composition=MPIDI_Allreduce_intra_composition_gamma\":{}}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert(mentions(&p, 0, "comm_size=node_comm_size"));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"comm_size=node_comm_size\": "
                                "{\"composition=MPIDI_Allreduce_intra_composition_gamma\":{}},"
                                "\"comm_size=any\": "
                                "{\"composition=MPIDI_Allreduce_intra_composition_beta\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 0);
    /* the node-first compositions reduce out of rank order: commutative ops only, as
     * MPICH's own CH4 tree guards them */
    ck_assert_int_eq(check_text("{\"collective=reduce\": {\"comm_hierarchy=parent\": "
                                "{\"composition=MPIDI_Reduce_intra_composition_beta\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert(mentions(&p, 0, "where \"is_commutative=yes\" does not hold"));
    ck_assert_int_eq(check_text("{\"collective=reduce\": {\"comm_hierarchy=parent\": "
                                "{\"is_commutative=yes\": "
                                "{\"composition=MPIDI_Reduce_intra_composition_alpha\":{}},"
                                "\"is_commutative=no\": "
                                "{\"composition=MPIDI_Reduce_intra_composition_gamma\":{}}}}}",
                                MPII_HIER_TREE_CH4, &p), 0);
    ck_assert_int_eq(check_text("{\"collective=allreduce\": {\"comm_hierarchy=parent\": "
                                "{\"composition=MPIDI_Allreduce_intra_composition_alpha\":{}}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
    ck_assert_int_eq(check_text("{\"collective=allreduce\": "
                                "{\"composition=MPIDI_Allreduce_intra_composition_beta\":{}}}",
                                MPII_HIER_TREE_MPIR, &p), 1);
    ck_assert(mentions(&p, 0, "a CH4 composition in an MPIR tree"));
    ck_assert_int_eq(check_text("{\"collective=allreduce\": "
                                "{\"algorithm=MPIR_Allreduce_intra_hier\":{}}}",
                                MPII_HIER_TREE_CH4, &p), 1);
}
END_TEST

/* every problem is reported, each with its own place */
START_TEST(all_problems)
{
    problems p;
    ck_assert_int_eq(check_text("{\"collective=bcast\": {\"comm_type=intra\": {"
                                "\"count<=x\": {\"algorithm=MPIR_Bcast_intra_hier\": {\"k=1\":{}}},"
                                "\"count=any\": {\"algorithm=MPIR_Bcast_intra_nope\":{}}}},"
                                "\"collective=reduce\": {\"algorithm=MPIR_Reduce_intra_hier\":"
                                " {\"intra_algo=ring\":{}}}}", MPII_HIER_TREE_MPIR, &p), 4);
    ck_assert(mentions(&p, 0, "collective=bcast > comm_type=intra | a bound"));
    ck_assert(mentions(&p, 1, "collective=bcast > comm_type=intra > count<=x | invalid parameter"));
    ck_assert(mentions(&p, 2, "collective=bcast > comm_type=intra > count=any | an algorithm MPICH"));
    ck_assert(mentions(&p, 3, "collective=reduce | invalid parameter of MPIR_Reduce_intra_hier"));
}
END_TEST

static int check_file(const char *path, MPII_Hier_tree_level level, problems * p)
{
    memset(p, 0, sizeof(*p));
    struct json_object *tree = MPII_Hier_read_tree(path, collect, p);
    if (!tree)
        return -1;
    int n = MPII_Hier_check_tree(tree, level, collect, p);
    json_object_put(tree);
    return n;
}

START_TEST(unreadable_files)
{
    problems p;
    char path[] = "/tmp/check_hier_grammar_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"collective=bcast\": ", f);
    fclose(f);
    ck_assert_int_eq(check_file(path, MPII_HIER_TREE_MPIR, &p), -1);
    ck_assert(mentions(&p, 0, "ends inside a value"));
    f = fopen(path, "w");
    fputs("{\"collective=bcast\":\n  {\"comm_type=intra\" {}}}\n", f);
    fclose(f);
    ck_assert_int_eq(check_file(path, MPII_HIER_TREE_MPIR, &p), -1);
    ck_assert(mentions(&p, 0, "at line 2, column"));
    f = fopen(path, "w");
    fclose(f);
    ck_assert_int_eq(check_file(path, MPII_HIER_TREE_MPIR, &p), -1);
    ck_assert(mentions(&p, 0, "the file is empty"));
    unlink(path);
    ck_assert_int_eq(check_file(path, MPII_HIER_TREE_MPIR, &p), -1);
    ck_assert(mentions(&p, 0, "cannot be read"));
}
END_TEST

/* the trees MPICH ships pass: the check knows MPICH's whole grammar */
START_TEST(mpich_trees)
{
    const char *builddir = getenv("MPICH_HIER_BUILDDIR");
    if (!builddir)
        return;
    const struct {
        const char *file;
        MPII_Hier_tree_level level;
    } trees[] = {
        {"maint/tuning/coll/mpir/generic.json", MPII_HIER_TREE_MPIR},
        {"maint/tuning/coll/ch4/generic.json", MPII_HIER_TREE_CH4},
    };
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        char path[4096];
        problems p;
        snprintf(path, sizeof(path), "%s/mpich-5.0.1/%s", builddir, trees[i].file);
        int n = check_file(path, trees[i].level, &p);
        ck_assert_msg(n == 0, "%s: %d problems, first: %s", path, n, p.line[0]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier grammar");
    TCase *tc = tcase_create("grammar");
    tcase_add_test(tc, algorithms_by_container);
    tcase_add_test(tc, schedules);
    tcase_add_test(tc, integer_parameters);
    tcase_add_test(tc, fanout_only_for_chain);
    tcase_add_test(tc, own_inter_algos);
    tcase_add_test(tc, listed_inter_algos);
    tcase_add_test(tc, keys_of_other_collectives);
    tcase_add_test(tc, good_trees);
    tcase_add_test(tc, unknown_names);
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, mpich_parameters);
    tcase_add_test(tc, mpich_parameters_required);
    tcase_add_test(tc, whole_comm);
    tcase_add_test(tc, chains);
    tcase_add_test(tc, any_operator);
    tcase_add_test(tc, avg_ppn_less_than);
    tcase_add_test(tc, hierarchy_tests);
    tcase_add_test(tc, requirements);
    tcase_add_test(tc, mpich_parameters_unread);
    tcase_add_test(tc, all_problems);
    tcase_add_test(tc, unreadable_files);
    tcase_add_test(tc, mpich_trees);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
