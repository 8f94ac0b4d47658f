/*
 * mpich-hier: the record that vouches for a site's installed tree (hier_site.h).
 */

#include "hier_site.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json.h>

uint64_t MPII_Hier_fnv1a64(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

int MPII_Hier_site_digest(const char *path, char *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint64_t hash = MPII_HIER_FNV1A64_BASIS;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        hash = MPII_Hier_fnv1a64(hash, buf, n);
    const int failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    snprintf(out, MPII_HIER_SITE_DIGEST_SIZE, "%s%016llx", MPII_HIER_SITE_DIGEST_PREFIX,
             (unsigned long long) hash);
    return 0;
}

static const char *string_field(struct json_object *record, const char *name)
{
    struct json_object *value;
    if (!json_object_object_get_ex(record, name, &value) ||
        !json_object_is_type(value, json_type_string))
        return NULL;
    return json_object_get_string(value);
}

#define RECORD_PATH_SIZE 4096

/* the record of the tree at tree_path (its path in record_path), parsed; NULL: why says
 * why */
static struct json_object *read_record(const char *tree_path, char *record_path, char *why,
                                       size_t size)
{
    if (snprintf(record_path, RECORD_PATH_SIZE, "%s%s", tree_path,
                 MPII_HIER_SITE_RECORD_SUFFIX) >= RECORD_PATH_SIZE) {
        snprintf(why, size, "its path is too long");
        return NULL;
    }
    FILE *f = fopen(record_path, "r");
    if (!f) {
        snprintf(why, size, "its record %s cannot be read (%s): install trees with "
                 "'hiertune install-tree'", record_path, strerror(errno));
        return NULL;
    }
    fclose(f);
    struct json_object *record = json_object_from_file(record_path);
    if (record && json_object_is_type(record, json_type_object))
        return record;
    snprintf(why, size, "its record %s is not a JSON object", record_path);
    if (record)
        json_object_put(record);
    return NULL;
}

/* latency_bytes: absent (0), or an integer > 0 (its value); -1 for anything else */
static int64_t latency_field(struct json_object *record)
{
    struct json_object *value;
    if (!json_object_object_get_ex(record, MPII_HIER_SITE_KEY_LATENCY_BYTES, &value))
        return 0;
    if (!json_object_is_type(value, json_type_int) || json_object_get_int64(value) <= 0)
        return -1;
    return json_object_get_int64(value);
}

int MPII_Hier_site_record_problem(const char *tree_path, const char *mpich_version,
                                  char *why, size_t size)
{
    char record_path[RECORD_PATH_SIZE];
    struct json_object *record = read_record(tree_path, record_path, why, size);
    if (!record)
        return 1;
    int problem = 1;
    struct json_object *format;
    const char *version, *digest;
    char actual[MPII_HIER_SITE_DIGEST_SIZE];
    if (!json_object_object_get_ex(record, MPII_HIER_SITE_KEY_FORMAT, &format) ||
        !json_object_is_type(format, json_type_int) ||
        json_object_get_int(format) != MPII_HIER_SITE_RECORD_FORMAT)
        snprintf(why, size, "its record %s is not of format %d", record_path,
                 MPII_HIER_SITE_RECORD_FORMAT);
    else if (!(version = string_field(record, MPII_HIER_SITE_KEY_MPICH_VERSION)))
        snprintf(why, size, "its record %s names no mpich_version", record_path);
    else if (strcmp(version, mpich_version))
        snprintf(why, size, "it was measured on MPICH %s, this is MPICH %s: tune again and "
                 "install the new tree", version, mpich_version);
    else if (latency_field(record) < 0)
        snprintf(why, size, "its record %s: %s is not an integer > 0", record_path,
                 MPII_HIER_SITE_KEY_LATENCY_BYTES);
    else if (!(digest = string_field(record, MPII_HIER_SITE_KEY_TREE_DIGEST)))
        snprintf(why, size, "its record %s has no tree_digest", record_path);
    else if (MPII_Hier_site_digest(tree_path, actual))
        snprintf(why, size, "it cannot be read (%s)", strerror(errno));
    else if (strcmp(digest, actual))
        snprintf(why, size, "it changed after it was installed (digest %s, the record says "
                 "%s): install it again with 'hiertune install-tree'", actual, digest);
    else
        problem = 0;
    json_object_put(record);
    return problem;
}

int64_t MPII_Hier_site_record_latency_bytes(const char *tree_path)
{
    char record_path[RECORD_PATH_SIZE], why[RECORD_PATH_SIZE + 256];
    struct json_object *record = read_record(tree_path, record_path, why, sizeof(why));
    if (!record)
        return 0;
    int64_t bytes = latency_field(record);
    json_object_put(record);
    return bytes > 0 ? bytes : 0;
}
