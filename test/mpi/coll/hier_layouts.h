/*
 * Datatype cases shared by the mpich-hier data tests (hier_bcast, hier_gather): int, a
 * vector with holes, a struct with gaps, and two pairs of different types with matching
 * signatures, each side's layout known byte by byte, so that a test fills and checks
 * every data byte and every hole.
 */

#ifndef HIER_LAYOUTS_H_INCLUDED
#define HIER_LAYOUTS_H_INCLUDED

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { T_INT, T_VECTOR, T_STRUCT, T_MIXED, T_PAIR, NTYPES };
static const char *type_names[NTYPES] = { "int", "vector", "struct", "vector-vs-int",
    "2int-vs-int"
};

#define GAP 0xA5
#define GARBAGE 0x5A

typedef struct {
    MPI_Datatype type;
    MPI_Aint extent;
    int ndata;                  /* data bytes per element */
    int offsets[32];            /* byte offset of each data byte in an element */
} layout;

static layout layouts[3];       /* int, vector, struct */
static layout pair_layout;      /* MPI_2INT */

static void add_run(layout * l, int off, int len)
{
    for (int i = 0; i < len; i++)
        l->offsets[l->ndata++] = off + i;
}

static void make_layouts(void)
{
    MPI_Datatype vec, st, st_raw;
    int blens[3] = { 1, 1, 1 };
    MPI_Aint displs[3] = { 0, 8, 20 };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };

    layouts[T_INT].type = MPI_INT;
    layouts[T_INT].extent = 4;
    add_run(&layouts[T_INT], 0, 4);
    /* 3 blocks of 2 ints, stride 3: ints 0,1,3,4,6,7 of an 8-int extent */
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    layouts[T_VECTOR].type = vec;
    layouts[T_VECTOR].extent = 32;
    for (int b = 0; b < 3; b++)
        add_run(&layouts[T_VECTOR], 12 * b, 8);
    /* char at 0, double at 8, int at 20, extent 32: mixed, with gaps */
    MPI_Type_create_struct(3, blens, displs, types, &st_raw);
    MPI_Type_create_resized(st_raw, 0, 32, &st);
    MPI_Type_commit(&st);
    MPI_Type_free(&st_raw);
    layouts[T_STRUCT].type = st;
    layouts[T_STRUCT].extent = 32;
    add_run(&layouts[T_STRUCT], 0, 1);
    add_run(&layouts[T_STRUCT], 8, 8);
    add_run(&layouts[T_STRUCT], 20, 4);
    pair_layout.type = MPI_2INT;
    pair_layout.extent = 8;
    add_run(&pair_layout, 0, 8);
}

static void free_layouts(void)
{
    MPI_Type_free(&layouts[T_VECTOR].type);
    MPI_Type_free(&layouts[T_STRUCT].type);
}

/* Type case t on the "wide" side (a bcast's or gather's root, allgather's receive side)
 * or the other, whose count is *factor times the wide side's (T_MIXED: a vector of 6
 * ints against 6 ints, T_PAIR: MPI_2INT against 2 ints). */
static const layout *layout_of(int t, int wide, long long *factor)
{
    *factor = 1;
    if (t == T_MIXED && !wide)
        *factor = 6;
    if (t == T_PAIR && !wide)
        *factor = 2;
    if (t == T_MIXED)
        return &layouts[wide ? T_VECTOR : T_INT];
    if (t == T_PAIR)
        return wide ? &pair_layout : &layouts[T_INT];
    return &layouts[t];
}

/* data byte k of a payload with this seed */
static unsigned char layout_byte(long long k, int seed)
{
    return (unsigned char) (k * 131 + seed);
}

/* count elements of l at buf: data bytes of the payload `seed` (GARBAGE if !data), holes GAP */
static void layout_fill(unsigned char *buf, const layout * l, long long count, int data, int seed)
{
    long long k = 0;
    memset(buf, GAP, l->extent * count);
    for (long long e = 0; e < count; e++)
        for (int i = 0; i < l->ndata; i++, k++)
            buf[e * l->extent + l->offsets[i]] = data ? layout_byte(k, seed) : GARBAGE;
}

/* wrong bytes: data bytes not of payload `seed`, holes written */
static long long layout_check(const unsigned char *buf, const layout * l, long long count,
                              int seed)
{
    long long k = 0, bad = 0;
    char *is_data = calloc(l->extent, 1);
    for (int i = 0; i < l->ndata; i++)
        is_data[l->offsets[i]] = 1;
    for (long long e = 0; e < count; e++) {
        for (int i = 0; i < l->ndata; i++, k++)
            if (buf[e * l->extent + l->offsets[i]] != layout_byte(k, seed))
                bad++;
        for (int b = 0; b < l->extent; b++)
            if (!is_data[b] && buf[e * l->extent + b] != GAP)
                bad++;
    }
    free(is_data);
    return bad;
}

#endif /* HIER_LAYOUTS_H_INCLUDED */
