/*
 * mpich-hier: switch levels above the node (pure logic, no MPI).
 */

#include <ctype.h>
#include <string.h>
#include "hier_topology.h"

/* The next '.'-separated component of *s: start and length; advances *s past it. */
static size_t next_component(const char **s, const char **start)
{
    *start = *s;
    size_t n = strcspn(*s, ".");
    *s += n + ((*s)[n] == '.');
    return n;
}

/* Appends a component to path (joined by '.'); -1 when it does not fit. */
static int append(char *path, size_t len, const char *name, size_t n)
{
    size_t used = strlen(path);
    size_t need = used + (used > 0) + n + 1;
    if (need > len)
        return -1;
    if (used > 0)
        path[used++] = '.';
    memcpy(path + used, name, n);
    path[used + n] = '\0';
    return 0;
}

int MPII_Hier_switch_path_from_slurm(const char *addr, const char *pattern, char *path, size_t len)
{
    int nswitches = 0, seen_node = 0;
    if (len == 0)
        return -1;
    path[0] = '\0';
    if (addr == NULL || pattern == NULL || addr[0] == '\0' || pattern[0] == '\0')
        return 0;
    const char *a = addr, *p = pattern;
    while (*a || *p) {
        const char *name, *type;
        size_t na = next_component(&a, &name), np = next_component(&p, &type);
        if (na == 0 || np == 0)
            return -1;  /* an empty name, or one list shorter than the other */
        if (np == 6 && strncmp(type, "switch", 6) == 0) {
            if (seen_node || ++nswitches > MPII_HIER_SWITCH_LEVELS_MAX || append(path, len, name, na) != 0)
                return -1;
        } else if (np == 4 && strncmp(type, "node", 4) == 0) {
            seen_node = 1;
        } else {
            return -1;
        }
    }
    return nswitches;
}

int MPII_Hier_switch_path_from_file(const char *text, const char *host, char *path, size_t len,
                                    int *bad_line)
{
    int found = 0, line = 0;
    *bad_line = 0;
    if (len == 0)
        return -1;
    path[0] = '\0';
    for (const char *s = text; s && *s; line++) {
        const char *end = strchr(s, '\n');
        size_t n = end ? (size_t) (end - s) : strlen(s);
        const char *hash = memchr(s, '#', n);
        if (hash)
            n = (size_t) (hash - s);
        /* words of the line: the host, then its switches */
        const char *w = s, *stop = s + n;
        int word = 0, mine = 0, depth = 0;
        while (w < stop) {
            while (w < stop && isspace((unsigned char) *w))
                w++;
            const char *start = w;
            while (w < stop && !isspace((unsigned char) *w))
                w++;
            size_t nw = (size_t) (w - start);
            if (nw == 0)
                break;
            if (word++ == 0) {
                mine = strlen(host) == nw && strncmp(start, host, nw) == 0;
                if (mine && found++)
                    goto bad;   /* the host twice */
                continue;
            }
            if (memchr(start, '.', nw) || ++depth > MPII_HIER_SWITCH_LEVELS_MAX)
                goto bad;
            if (mine && append(path, len, start, nw) != 0)
                goto bad;
        }
        if (word == 1)
            goto bad;   /* a host without switches */
        s = end ? end + 1 : NULL;
    }
    return found ? MPII_Hier_switch_path_depth(path) : 0;

  bad:
    *bad_line = line + 1;
    path[0] = '\0';
    return -1;
}

int MPII_Hier_switch_path_depth(const char *path)
{
    if (path[0] == '\0')
        return 0;
    int n = 1;
    for (const char *c = path; *c; c++)
        n += *c == '.';
    return n;
}

int MPII_Hier_switch_keys_depth(int nranks, const char *const *paths)
{
    int depth = 0;
    for (int r = 0; r < nranks; r++) {
        int d = MPII_Hier_switch_path_depth(paths[r]);
        if (d > depth)
            depth = d;
    }
    return depth;
}

/* Bytes of path's first `take` components (0 for none). */
static size_t prefix_bytes(const char *path, int take)
{
    if (take <= 0)
        return 0;
    const char *c = path;
    for (int dots = 0; *c; c++)
        if (*c == '.' && ++dots == take)
            break;
    return (size_t) (c - path);
}

void MPII_Hier_switch_keys(int nranks, const char *const *paths, int depth, long *keys)
{
    for (int k = 0; k < depth; k++)
        for (int r = 0; r < nranks; r++) {
            /* aligned at the leaf: r's first `missing` levels are the unnamed top */
            int missing = depth - MPII_Hier_switch_path_depth(paths[r]);
            size_t n = prefix_bytes(paths[r], k + 1 - missing);
            keys[(long) r * depth + k] = r;
            for (int s = 0; s < r; s++) {
                int missing_s = depth - MPII_Hier_switch_path_depth(paths[s]);
                /* both still in the unnamed top, or the same levels named and equal */
                int same = (missing > k && missing_s > k) ||
                    (missing == missing_s && prefix_bytes(paths[s], k + 1 - missing) == n &&
                     strncmp(paths[s], paths[r], n) == 0);
                if (same) {
                    keys[(long) r * depth + k] = s;
                    break;
                }
            }
        }
}
