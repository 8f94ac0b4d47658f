/*
 * The MPIX hierarchical communicators (hierarchical-communicators paper, sections 3 and 5)
 * against the layout the test script sets up with emulated nodes, switches and packages:
 *
 *   mpix_split [-top TYPE] [-alone TYPE|-] TYPE:SIZE ...
 *
 * lists the levels, coarsest first, each a type and the size of its groups, which are
 * blocks of consecutive ranks of MPI_COMM_WORLD (cliques by block).  -top: the type of the
 * smallest level that holds every rank when no listed level does (default "System -
 * Cluster": the ranks span nodes); -alone: the type MPIX_Comm_get_min_hlevel gives for this
 * rank alone, its finest level (default: the last listed; "-": not checked, where the
 * host's own hwloc levels of unbound ranks lie below it).  Checked, on every rank:
 *   - section 5's loop, MPI_Comm_split_type(old, MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY, rank,
 *     ...) until MPI_COMM_NULL: one communicator per level, a strict subset of its parent
 *     (MPI_UNEQUAL), its members, and MPIX_Comm_get_hlevel_info (siblings, index, type), the
 *     same in MPI_Comm_get_info's keys MPI_COMM_HLEVEL_TYPE, _NUM, _RANK;
 *   - MPIX_Comm_get_min_hlevel on MPI_COMM_WORLD for this rank alone, with each other
 *     rank, and without this rank ("Unknown");
 *   - MPIX_Comm_hsplit_with_roots: newcomm as the split, rootscomm the ranks 0 of the
 *     first level's groups, MPI_COMM_NULL elsewhere;
 *   - errors: MPIX_Comm_get_hlevel_info on a communicator not made by the split, a rank
 *     out of range for MPIX_Comm_get_min_hlevel;
 *   - MPI_UNDEFINED as split type on the odd ranks: they get MPI_COMM_NULL, the even ones
 *     communicators of even ranks only.
 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 8

static int errors, wrank, wsize;
static int nlevels, group_size[MAX_LEVELS];
static const char *type_of[MAX_LEVELS], *top_type = "System - Cluster", *alone_type;

#define CHECK(cond_, ...) \
    do { \
        if (!(cond_)) { \
            fprintf(stderr, "rank %d: ", wrank); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            errors++; \
        } \
    } while (0)

/* the type of the smallest level whose group holds world ranks a and b */
static const char *expected_common(int a, int b)
{
    for (int l = nlevels - 1; l >= 0; l--)
        if (a / group_size[l] == b / group_size[l])
            return type_of[l];
    return top_type;
}

static void check_members(MPI_Comm comm, int size, const char *what)
{
    int *world = malloc(sizeof(int) * size);
    MPI_Allgather(&wrank, 1, MPI_INT, world, 1, MPI_INT, comm);
    for (int i = 0; i < size; i++)
        CHECK(world[i] == wrank - wrank % size + i, "%s: member %d is world rank %d, not %d", what,
              i, world[i], wrank - wrank % size + i);
    free(world);
}

static void section5_loop(void)
{
    MPI_Comm old = MPI_COMM_WORLD, newcomm;
    int parent_size = wsize;
    for (int l = 0;; l++) {
        int rank, size, num, index, cmp;
        char *type;
        MPI_Comm_rank(old, &rank);
        MPI_Comm_split_type(old, MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY, rank, MPI_INFO_NULL, &newcomm);
        if (l == nlevels) {
            CHECK(newcomm == MPI_COMM_NULL, "split %d: a communicator below the last level", l);
            if (newcomm != MPI_COMM_NULL)
                MPI_Comm_free(&newcomm);
            break;
        }
        CHECK(newcomm != MPI_COMM_NULL, "split %d (%s): MPI_COMM_NULL", l, type_of[l]);
        if (newcomm == MPI_COMM_NULL)
            break;
        MPI_Comm_size(newcomm, &size);
        CHECK(size == group_size[l], "split %d: size %d, not %d", l, size, group_size[l]);
        if (size == group_size[l])
            check_members(newcomm, size, type_of[l]);
        MPI_Comm_compare(old, newcomm, &cmp);
        CHECK(cmp == MPI_UNEQUAL, "split %d: not a strict subset (compare %d)", l, cmp);
        MPIX_Comm_get_hlevel_info(newcomm, &num, &index, &type);
        CHECK(num == parent_size / group_size[l], "split %d: %d siblings, not %d", l, num,
              parent_size / group_size[l]);
        CHECK(index == wrank % parent_size / group_size[l], "split %d: index %d, not %d", l,
              index, wrank % parent_size / group_size[l]);
        CHECK(strcmp(type, type_of[l]) == 0, "split %d: type %s, not %s", l, type, type_of[l]);
        /* the same in the info keys of the paper's section 4.1.1 */
        MPI_Info info;
        char value[64], want[64];
        int flag;
        MPI_Comm_get_info(newcomm, &info);
        const char *keys[3] = { "MPI_COMM_HLEVEL_TYPE", "MPI_COMM_HLEVEL_NUM", "MPI_COMM_HLEVEL_RANK" };
        for (int i = 0; i < 3; i++) {
            if (i == 0)
                snprintf(want, sizeof(want), "%s", type);
            else
                snprintf(want, sizeof(want), "%d", i == 1 ? num : index);
            MPI_Info_get(info, keys[i], (int) sizeof(value) - 1, value, &flag);
            CHECK(flag && strcmp(value, want) == 0, "split %d: info %s = %s, not %s", l, keys[i],
                  flag ? value : "(unset)", want);
        }
        MPI_Info_free(&info);
        if (old != MPI_COMM_WORLD)
            MPI_Comm_free(&old);
        old = newcomm;
        parent_size = size;
    }
    if (old != MPI_COMM_WORLD)
        MPI_Comm_free(&old);
}

static void min_levels(void)
{
    char *type;
    int ranks[2] = { wrank, 0 };
    MPIX_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, ranks, &type);
    const char *alone = alone_type ? alone_type : nlevels > 0 ? type_of[nlevels - 1] : top_type;
    if (strcmp(alone, "-") != 0)
        CHECK(strcmp(type, alone) == 0, "min level of myself: %s, not %s", type, alone);
    for (int other = 0; other < wsize; other++) {
        if (other == wrank)
            continue;
        ranks[1] = other;
        MPIX_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, ranks, &type);
        const char *want = expected_common(wrank, other);
        CHECK(strcmp(type, want) == 0, "min level with %d: %s, not %s", other, type, want);
    }
    ranks[0] = (wrank + 1) % wsize;
    if (ranks[0] != wrank) {
        MPIX_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, ranks, &type);
        CHECK(strcmp(type, "Unknown") == 0, "min level without me: %s, not Unknown", type);
    }
}

static void with_roots(void)
{
    MPI_Comm newcomm, rootscomm;
    MPIX_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &newcomm, &rootscomm);
    int is_root = wrank % group_size[0] == 0;
    CHECK(newcomm != MPI_COMM_NULL, "hsplit: no newcomm");
    CHECK((rootscomm != MPI_COMM_NULL) == is_root, "hsplit: rootscomm %s on a %s",
          rootscomm == MPI_COMM_NULL ? "null" : "valid", is_root ? "root" : "non-root");
    if (newcomm != MPI_COMM_NULL) {
        int size;
        MPI_Comm_size(newcomm, &size);
        CHECK(size == group_size[0], "hsplit: newcomm of %d, not %d", size, group_size[0]);
        check_members(newcomm, size, "hsplit newcomm");
        MPI_Comm_free(&newcomm);
    }
    if (rootscomm != MPI_COMM_NULL) {
        int size, rank;
        MPI_Comm_size(rootscomm, &size);
        MPI_Comm_rank(rootscomm, &rank);
        CHECK(size == wsize / group_size[0], "hsplit: %d roots, not %d", size, wsize / group_size[0]);
        CHECK(rank == wrank / group_size[0], "hsplit: root rank %d, not %d", rank,
              wrank / group_size[0]);
        MPI_Comm_free(&rootscomm);
    }
}

static void bad_calls(void)
{
    int num, index, rank = wsize, eclass;
    char *type;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int rc = MPIX_Comm_get_hlevel_info(dup, &num, &index, &type);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_COMM, "hlevel info of a plain dup: class %d, not MPI_ERR_COMM", eclass);
    MPI_Barrier(dup);   /* dup's levels, for the query below */
    rc = MPIX_Comm_get_min_hlevel(dup, 1, &rank, &type);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_RANK, "min level of rank %d: class %d, not MPI_ERR_RANK", rank, eclass);
    MPI_Comm_free(&dup);
}

static void undefined_ranks(void)
{
    MPI_Comm newcomm;
    int odd = wrank % 2;
    MPI_Comm_split_type(MPI_COMM_WORLD, odd ? MPI_UNDEFINED : MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY,
                        0, MPI_INFO_NULL, &newcomm);
    if (odd) {
        CHECK(newcomm == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    } else if (newcomm != MPI_COMM_NULL) {
        int size, *world;
        MPI_Comm_size(newcomm, &size);
        world = malloc(sizeof(int) * size);
        MPI_Allgather(&wrank, 1, MPI_INT, world, 1, MPI_INT, newcomm);
        for (int i = 0; i < size; i++)
            CHECK(world[i] % 2 == 0, "a communicator of even ranks holds rank %d", world[i]);
        free(world);
        MPI_Comm_free(&newcomm);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-top") == 0 && i + 1 < argc) {
            top_type = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "-alone") == 0 && i + 1 < argc) {
            alone_type = argv[++i];
            continue;
        }
        char *colon = strchr(argv[i], ':');
        if (!colon || nlevels == MAX_LEVELS) {
            fprintf(stderr, "usage: mpix_split [-top TYPE] [-alone TYPE|-] TYPE:SIZE ...\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        *colon = '\0';
        type_of[nlevels] = argv[i];
        group_size[nlevels++] = atoi(colon + 1);
    }

    section5_loop();
    min_levels();
    if (nlevels > 0)
        with_roots();
    bad_calls();
    undefined_ranks();

    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return total != 0;
}
