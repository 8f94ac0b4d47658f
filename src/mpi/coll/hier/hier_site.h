/*
 * mpich-hier: the tree a site installs for every job (hiertune install-tree), written
 * once for the plugin (MPI_Init loads it), the tools (install-tree writes it, show-tree
 * reads it) and the modulefile (maint/modulefile.sh reads the path from here).
 *
 *   PREFIX/share/mpich-hier/tuning.json          an MPIR Csel tree, as generate writes it
 *   PREFIX/share/mpich-hier/tuning.json.record   where and when it was measured (JSON):
 *     format         MPII_HIER_SITE_RECORD_FORMAT
 *     mpich_version  the MPICH it was measured on (MPICH_VERSION): another one refuses it
 *     tree_digest    "fnv1a64:" and 16 hex digits of the tree file's bytes: a tree changed
 *                    or cut short after the install is refused (FNV-1a detects accidents,
 *                    not tampering)
 *     latency_bytes  optional: the inter-node links' alpha / beta in bytes, as hiertune tune
 *                    measured them and ran hier with; the by_size crossovers of every
 *                    job that loads the tree take it while MPIR_CVAR_HIER_LATENCY_BYTES is 0
 *                    (an integer > 0; anything else refuses the tree)
 *     machine, cluster, measured, installed, source: for the admin (show-tree prints them)
 *   PREFIX/share/mpich-hier/tuning.json.ch4      optional: a CH4 Csel tree (MPICH's
 *                                                compositions) tuned with it, and its
 *   PREFIX/share/mpich-hier/tuning.json.ch4.record  record; loaded only with the MPIR
 *                                                tree beside it (the pair is one tuning)
 *
 * Pure: json-c and the C library, no MPI (unit-tested by test/unit/check_hier_site).
 */

#ifndef HIER_SITE_H_INCLUDED
#define HIER_SITE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPII_HIER_SITE_TREE_DIR "share/mpich-hier"
#define MPII_HIER_SITE_TREE_NAME "tuning.json"
#define MPII_HIER_SITE_RECORD_SUFFIX ".record"
/* the CH4 tree of an MPIR tree at PATH: PATH + this (a tree file of `hiertune tune` too) */
#define MPII_HIER_SITE_CH4_SUFFIX ".ch4"
#define MPII_HIER_SITE_RECORD_FORMAT 1
/* the record's keys that MPI_Init checks */
#define MPII_HIER_SITE_KEY_FORMAT "format"
#define MPII_HIER_SITE_KEY_MPICH_VERSION "mpich_version"
#define MPII_HIER_SITE_KEY_TREE_DIGEST "tree_digest"
#define MPII_HIER_SITE_KEY_LATENCY_BYTES "latency_bytes"
#define MPII_HIER_SITE_DIGEST_PREFIX "fnv1a64:"
/* "fnv1a64:" + 16 hex digits + NUL */
#define MPII_HIER_SITE_DIGEST_SIZE 25

/* FNV-1a, 64 bits, continuing from hash (start with MPII_HIER_FNV1A64_BASIS) */
#define MPII_HIER_FNV1A64_BASIS 0xcbf29ce484222325ULL
uint64_t MPII_Hier_fnv1a64(uint64_t hash, const void *data, size_t size);

/* The digest of a file's bytes, "fnv1a64:<16 hex>", in out (MPII_HIER_SITE_DIGEST_SIZE
 * bytes); 0, or -1 with errno when the file cannot be read. */
int MPII_Hier_site_digest(const char *path, char *out);

/* Why the tree at tree_path may not be used by MPICH mpich_version, as a sentence in why
 * (size bytes): its record is missing, not a record, of another format or version, or
 * its digest is not the tree's.  0 when the record vouches for the tree.  The tree's
 * content is the tree check's (MPII_Hier_check_tree). */
int MPII_Hier_site_record_problem(const char *tree_path, const char *mpich_version,
                                  char *why, size_t size);

/* The latency_bytes of the record of the tree at tree_path; 0 when the record has none
 * or cannot be read (MPII_Hier_site_record_problem says why). */
int64_t MPII_Hier_site_record_latency_bytes(const char *tree_path);

#ifdef __cplusplus
}
#endif

#endif /* HIER_SITE_H_INCLUDED */
