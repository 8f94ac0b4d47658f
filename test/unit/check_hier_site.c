/*
 * Unit tests of the record that vouches for a site's installed tree (hier_site.c): the
 * digest (FNV-1a 64, its published test vectors), and each reason a tree is refused.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hier_site.h"

static char dir[] = "/tmp/check_hier_site.XXXXXX";
static char tree[256], record[272];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* a record of format 1 for MPICH version, with digest (NULL: the tree's own) */
static void write_record(const char *version, const char *digest)
{
    char own[MPII_HIER_SITE_DIGEST_SIZE], text[512];
    ck_assert_int_eq(MPII_Hier_site_digest(tree, own), 0);
    snprintf(text, sizeof(text), "{\"format\": 1, \"mpich_version\": \"%s\", \"tree_digest\": "
             "\"%s\", \"machine\": \"m\"}", version, digest ? digest : own);
    write_file(record, text);
}

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(tree, sizeof(tree), "%s/%s", dir, MPII_HIER_SITE_TREE_NAME);
    snprintf(record, sizeof(record), "%s%s", tree, MPII_HIER_SITE_RECORD_SUFFIX);
    write_file(tree, "{\"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomial\": {}}}\n");
}

static void teardown(void)
{
    unlink(record);
    unlink(tree);
    rmdir(dir);
    strcpy(dir, "/tmp/check_hier_site.XXXXXX");
}

START_TEST(fnv1a64_vectors)
{
    ck_assert_uint_eq(MPII_Hier_fnv1a64(MPII_HIER_FNV1A64_BASIS, "", 0), 0xcbf29ce484222325ULL);
    ck_assert_uint_eq(MPII_Hier_fnv1a64(MPII_HIER_FNV1A64_BASIS, "a", 1), 0xaf63dc4c8601ec8cULL);
    ck_assert_uint_eq(MPII_Hier_fnv1a64(MPII_HIER_FNV1A64_BASIS, "foobar", 6),
                      0x85944171f73967e8ULL);
    /* in pieces as at once */
    uint64_t h = MPII_Hier_fnv1a64(MPII_HIER_FNV1A64_BASIS, "foo", 3);
    ck_assert_uint_eq(MPII_Hier_fnv1a64(h, "bar", 3), 0x85944171f73967e8ULL);
}
END_TEST

START_TEST(digest_of_a_file)
{
    char digest[MPII_HIER_SITE_DIGEST_SIZE];
    write_file(tree, "foobar");
    ck_assert_int_eq(MPII_Hier_site_digest(tree, digest), 0);
    ck_assert_str_eq(digest, "fnv1a64:85944171f73967e8");
    unlink(tree);
    ck_assert_int_eq(MPII_Hier_site_digest(tree, digest), -1);
}
END_TEST

START_TEST(record_vouches)
{
    char why[512] = "";
    write_record("5.0.1", NULL);
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 0);
}
END_TEST

START_TEST(refusals)
{
    char why[512];
    /* no record */
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "cannot be read"));
    ck_assert_ptr_nonnull(strstr(why, "hiertune install-tree"));
    /* not JSON, another format, no version */
    write_file(record, "{\"format\": 1, \"mpich_version\":");
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "not a JSON object"));
    write_file(record, "{\"format\": 2, \"mpich_version\": \"5.0.1\"}");
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "not of format 1"));
    write_file(record, "{\"format\": 1}");
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "no mpich_version"));
    /* measured on another MPICH */
    write_record("4.0.2", NULL);
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "measured on MPICH 4.0.2, this is MPICH 5.0.1"));
    /* the tree changed (cut short) after its install */
    write_record("5.0.1", NULL);
    write_file(tree, "{\"collective=bcast\": {\"algorithm=MPIR_Bcast");
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "changed after it was installed"));
    /* a digest of the wrong form */
    write_record("5.0.1", "md5:0");
    ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "changed after it was installed"));
}
END_TEST

START_TEST(latency_bytes)
{
    char why[512], text[512], digest[MPII_HIER_SITE_DIGEST_SIZE];
    /* no record, none in it */
    ck_assert_int_eq(MPII_Hier_site_record_latency_bytes(tree), 0);
    write_record("5.0.1", NULL);
    ck_assert_int_eq(MPII_Hier_site_record_latency_bytes(tree), 0);
    /* a positive integer vouches and is taken; anything else refuses the tree */
    ck_assert_int_eq(MPII_Hier_site_digest(tree, digest), 0);
    const char *values[] = { "465", "0", "-3", "\"465\"", "4.5" };
    for (int i = 0; i < 5; i++) {
        snprintf(text, sizeof(text), "{\"format\": 1, \"mpich_version\": \"5.0.1\", "
                 "\"tree_digest\": \"%s\", \"%s\": %s}", digest,
                 MPII_HIER_SITE_KEY_LATENCY_BYTES, values[i]);
        write_file(record, text);
        ck_assert_int_eq(MPII_Hier_site_record_problem(tree, "5.0.1", why, sizeof(why)), i > 0);
        ck_assert_int_eq(MPII_Hier_site_record_latency_bytes(tree), i == 0 ? 465 : 0);
        if (i > 0)
            ck_assert_ptr_nonnull(strstr(why, "latency_bytes is not an integer > 0"));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpich-hier site tree");
    TCase *tc = tcase_create("site");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fnv1a64_vectors);
    tcase_add_test(tc, digest_of_a_file);
    tcase_add_test(tc, record_vouches);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, latency_bytes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
