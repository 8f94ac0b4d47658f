/*
 * Side-by-side latency of one collective under several configurations, e.g. MPICH's
 * default selection vs the plugin's algorithms.
 *
 * A configuration is a list of MPI_T cvar writes (enum cvars by item name, int cvars
 * by number), applied at run time: repetitions of all configurations alternate so they
 * see the same machine state.  One repetition's time is the max over ranks (barrier
 * before each); the table shows medians and each configuration's speedup over the
 * first.  Cvars a configuration does not name are reset to their values at start.
 *
 *   mpiexec -n 8 coll_compare -coll allreduce -sizes 8,65536,4194304 \
 *       -config default: -config hier:MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=hier [-reps N]
 *
 * With HIERTUNE_LINK_RATE (bytes/s of each node's link; maint/emucluster run sets it)
 * the table adds the link bound: the bytes the busiest node link must carry in one
 * direction (bcast, reduce: the message; allreduce over N nodes: 2(N-1)/N of it, the
 * reduce-scatter + allgather minimum) divided by the rate, and each configuration's
 * ratio to it.
 *
 * MPICH 4.0.2 registers its enum cvars without an MPI_T enum; their item names come
 * from the MPICH build (cvar_enums.h, tools/gen-cvar-enums.sh -c) and are used only
 * when the library's description of the cvar names every one of them.
 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIGS 8
#define MAX_WRITES 8
#define MAX_SIZES 64

typedef struct {
    int index;
    int value;
    int initial;
} cvar_write;

typedef struct {
    char name[64];
    int nwrites;
    cvar_write writes[MAX_WRITES];
} config;

static int rank;

/* "MPIR_CVAR_NAME item0 item1 ...\n" per enum cvar, item i having value i */
static const char build_enums[] =
#include "cvar_enums.h"
    "";

static void die(const char *msg, const char *what)
{
    if (rank == 0)
        fprintf(stderr, "coll_compare: %s%s\n", msg, what ? what : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int cvar_read(int index)
{
    MPI_T_cvar_handle h;
    int count, value = 0;
    MPI_T_cvar_handle_alloc(index, NULL, &h, &count);
    MPI_T_cvar_read(h, &value);
    MPI_T_cvar_handle_free(&h);
    return value;
}

static void cvar_set(int index, int value)
{
    MPI_T_cvar_handle h;
    int count;
    MPI_T_cvar_handle_alloc(index, NULL, &h, &count);
    if (MPI_T_cvar_write(h, &value) != MPI_SUCCESS)
        die("cannot write a cvar", NULL);
    MPI_T_cvar_handle_free(&h);
}

/* The value of item `item` of enum cvar `cvar` in the MPICH build's table, or -1. */
static int build_enum_value(const char *cvar, const char *desc, const char *item)
{
    size_t len = strlen(cvar);
    for (const char *line = build_enums; *line;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, cvar, len) && line[len] == ' ') {
            int value = 0, found = -1;
            for (const char *p = line + len + 1; p < end; value++) {
                const char *q = memchr(p, ' ', end - p);
                size_t n = (q ? q : end) - p;
                char name[256];
                snprintf(name, sizeof(name), "%.*s", (int) n, p);
                if (!strstr(desc, name))
                    die("this library is not the MPICH build the bench was compiled with: ",
                        cvar);
                if (strlen(item) == n && !strncmp(p, item, n))
                    found = value;
                p += n + (q != NULL);
            }
            return found;
        }
        line = end + 1;
    }
    return -1;
}

/* "NAME=value": an enum item name or an integer */
static void parse_write(const char *text, cvar_write * w)
{
    char name[256], desc[16384];
    int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    const char *eq = strchr(text, '=');
    char cvar[256];

    if (!eq || eq - text >= (long) sizeof(cvar))
        die("a configuration entry is not NAME=value: ", text);
    memcpy(cvar, text, eq - text);
    cvar[eq - text] = '\0';
    if (MPI_T_cvar_get_index(cvar, &w->index) != MPI_SUCCESS)
        die("no such MPI_T cvar: ", cvar);
    MPI_T_cvar_get_info(w->index, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope);
    w->initial = cvar_read(w->index);
    if (en != MPI_T_ENUM_NULL) {
        int count;
        MPI_T_enum_get_info(en, &count, name, &(int) {sizeof(name)});
        for (int i = 0; i < count; i++) {
            char item[256];
            int ilen = sizeof(item);
            MPI_T_enum_get_item(en, i, &w->value, item, &ilen);
            if (!strcmp(item, eq + 1))
                return;
        }
        die("unknown value in ", text);
    } else {
        char *end;
        w->value = (int) strtol(eq + 1, &end, 10);
        if (eq[1] == '\0' || *end != '\0') {
            w->value = build_enum_value(cvar, desc, eq + 1);
            if (w->value < 0)
                die("not an integer value nor an item of the cvar: ", text);
        }
    }
}

/* "name:CVAR=v,CVAR=v" */
static void parse_config(const char *text, config * c)
{
    const char *colon = strchr(text, ':');
    char list[1024], *tok, *save;
    if (!colon || colon - text >= (long) sizeof(c->name))
        die("a -config is not name:CVAR=value,...: ", text);
    memcpy(c->name, text, colon - text);
    c->name[colon - text] = '\0';
    snprintf(list, sizeof(list), "%s", colon + 1);
    c->nwrites = 0;
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (c->nwrites == MAX_WRITES)
            die("too many cvars in ", text);
        parse_write(tok, &c->writes[c->nwrites++]);
    }
}

static void apply(config * configs, int nconfigs, int which)
{
    /* reset what the others set, then set ours */
    for (int c = 0; c < nconfigs; c++)
        for (int w = 0; w < configs[c].nwrites; w++)
            cvar_set(configs[c].writes[w].index, configs[c].writes[w].initial);
    for (int w = 0; w < configs[which].nwrites; w++)
        cvar_set(configs[which].writes[w].index, configs[which].writes[w].value);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double timed(const char *coll, char *sendbuf, char *recvbuf, long bytes)
{
    double t, tmax;
    int count = (int) (bytes / sizeof(float));
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (!strcmp(coll, "bcast"))
        MPI_Bcast(recvbuf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce"))
        MPI_Reduce(sendbuf, recvbuf, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(sendbuf, recvbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* Number of nodes (MPI_COMM_TYPE_SHARED groups) of MPI_COMM_WORLD. */
static int count_nodes(void)
{
    MPI_Comm node;
    int node_rank, leaders;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    int is_leader = node_rank == 0;
    MPI_Allreduce(&is_leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return leaders;
}

/* Seconds the busiest node link needs for one call (see the header), 0 if unknown. */
static double link_bound(const char *coll, long bytes, int nodes, double rate)
{
    if (rate <= 0 || nodes < 2)
        return 0;
    double through = !strcmp(coll, "allreduce") ? 2.0 * (nodes - 1) / nodes * bytes : bytes;
    return through / rate;
}

int main(int argc, char **argv)
{
    int provided, size, reps = 31, nconfigs = 0, nsizes = 0;
    const char *coll = "bcast";
    const char *config_text[MAX_CONFIGS];
    long sizes[MAX_SIZES], max_bytes = 0;
    config configs[MAX_CONFIGS];

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int i = 1; i < argc; i++) {
        if (i + 1 == argc)
            die("missing value after ", argv[i]);
        if (!strcmp(argv[i], "-reps")) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-coll")) {
            coll = argv[++i];
        } else if (!strcmp(argv[i], "-config")) {
            if (nconfigs == MAX_CONFIGS)
                die("too many -config", NULL);
            config_text[nconfigs++] = argv[++i];
        } else if (!strcmp(argv[i], "-sizes")) {
            char *s = argv[++i], *end;
            while (*s && nsizes < MAX_SIZES) {
                sizes[nsizes] = strtol(s, &end, 10);
                if (end == s || sizes[nsizes] < 4)
                    die("sizes are byte counts >= 4, comma-separated: ", argv[i]);
                nsizes++;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                    die("sizes are byte counts >= 4, comma-separated: ", argv[i]);
            }
        } else {
            die("unknown option ", argv[i]);
        }
    }
    if (strcmp(coll, "bcast") && strcmp(coll, "reduce") && strcmp(coll, "allreduce"))
        die("-coll must be bcast, reduce or allreduce, not ", coll);
    if (nconfigs == 0)
        die("give at least one -config name:CVAR=value,...", NULL);
    if (reps < 1)
        die("-reps must be >= 1", NULL);
    if (nsizes == 0) {
        static const long dflt[] = { 8, 65536, 4194304 };
        memcpy(sizes, dflt, sizeof(dflt));
        nsizes = 3;
    }
    for (int c = 0; c < nconfigs; c++)
        parse_config(config_text[c], &configs[c]);
    for (int s = 0; s < nsizes; s++)
        if (sizes[s] > max_bytes)
            max_bytes = sizes[s];

    char *sendbuf = malloc(max_bytes), *recvbuf = malloc(max_bytes);
    memset(sendbuf, 0, max_bytes);
    memset(recvbuf, 0, max_bytes);
    double *t = malloc(sizeof(double) * reps * nconfigs);
    const char *rate_text = getenv("HIERTUNE_LINK_RATE");
    double rate = rate_text ? atof(rate_text) : 0;
    int nodes = count_nodes();

    if (rank == 0) {
        printf("# MPI_%s, %d ranks on %d nodes, median of %d repetitions (max over ranks), us\n",
               coll, size, nodes, reps);
        if (rate > 0)
            printf("# links %.0f B/s (%s)\n", rate,
                   getenv("HIERTUNE_CLUSTER") ? getenv("HIERTUNE_CLUSTER") : "HIERTUNE_LINK_RATE");
        printf("# %-10s", "Size");
        for (int c = 0; c < nconfigs; c++)
            printf(" %14s", configs[c].name);
        for (int c = 1; c < nconfigs; c++)
            printf(" %8s/%-8s", configs[0].name, configs[c].name);
        if (rate > 0) {
            printf(" %14s", "link bound");
            for (int c = 0; c < nconfigs; c++)
                printf(" %8s/bound", configs[c].name);
        }
        printf("\n");
    }
    for (int s = 0; s < nsizes; s++) {
        int r = sizes[s] >= (1L << 20) ? (reps + 1) / 2 : reps;
        for (int w = 0; w < 3; w++)     /* warm-up: builds sub-communicators too */
            for (int c = 0; c < nconfigs; c++) {
                apply(configs, nconfigs, c);
                timed(coll, sendbuf, recvbuf, sizes[s]);
            }
        for (int i = 0; i < r; i++)
            for (int c = 0; c < nconfigs; c++) {
                apply(configs, nconfigs, c);
                t[c * reps + i] = timed(coll, sendbuf, recvbuf, sizes[s]);
            }
        if (rank == 0) {
            double med[MAX_CONFIGS];
            printf("  %-10ld", sizes[s]);
            for (int c = 0; c < nconfigs; c++) {
                med[c] = median(t + c * reps, r) * 1e6;
                printf(" %14.1f", med[c]);
            }
            for (int c = 1; c < nconfigs; c++)
                printf(" %17.2f", med[0] / med[c]);
            double bound = link_bound(coll, sizes[s], nodes, rate) * 1e6;
            if (bound > 0) {
                printf(" %14.1f", bound);
                for (int c = 0; c < nconfigs; c++)
                    printf(" %14.2f", med[c] / bound);
            }
            printf("\n");
            fflush(stdout);
        }
    }
    apply(configs, nconfigs, 0);
    free(t);
    free(sendbuf);
    free(recvbuf);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
