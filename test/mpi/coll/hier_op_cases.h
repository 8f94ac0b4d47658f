/*
 * mpich-hier: the reductions the tests of the scan and reduce-scatter families share
 * (hier_scan, hier_reduce_scatter): MPI_SUM on int and on integer-valued double, MPI_MAX on
 * int, a non-commutative user op (composition of affine maps x -> a x + b mod a prime, a
 * pair of ints as MPI_Type_contiguous(2, MPI_INT): the result is f_0 o f_1 o ... in rank
 * order) and a commutative user sum on a vector with holes (MPI_Type_vector(3, 2, 3,
 * MPI_INT): MPICH takes no builtin op on derived types); every rank's input and the
 * combination of ranks 0 .. last in rank order, computed locally.
 */

#ifndef HIER_OP_CASES_H_INCLUDED
#define HIER_OP_CASES_H_INCLUDED

#include <mpi.h>

#define P 1000003LL             /* the affine maps' modulus */

/* ---- the cases ---- */
enum { C_SUM_INT, C_SUM_DOUBLE, C_MAX_INT, C_COMPOSE, C_VECTOR, NCASES };

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int is_double;              /* slots are doubles, else ints */
    int ext;                    /* slots per element */
    int ndata;                  /* data slots per element */
    int off[6];                 /* their slots in the element */
} op_case;

static op_case cases[NCASES];

/* inout = in o inout for affine maps (a, b): x -> a x + b mod P, not commutative */
static inline void compose(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *x = in, *y = inout;
    (void) dt;
    for (int i = 0; i < *len; i++) {
        long long a = (long long) x[2 * i] * y[2 * i] % P;
        long long b = ((long long) x[2 * i] * y[2 * i + 1] + x[2 * i + 1]) % P;
        y[2 * i] = (int) a;
        y[2 * i + 1] = (int) b;
    }
}

/* the sum of the 6 ints of the vector type; the holes are left alone */
static inline void vector_sum(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *x = in, *y = inout;
    (void) dt;
    for (int n = 0; n < *len; n++, x += 8, y += 8)
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 2; j++)
                y[3 * b + j] += x[3 * b + j];
}

static inline void make_cases(void)
{
    MPI_Datatype pair, vec;
    MPI_Op op_compose, op_vector;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(compose, 0, &op_compose);
    MPI_Op_create(vector_sum, 1, &op_vector);
    cases[C_SUM_INT] = (op_case) { "int SUM", MPI_INT, MPI_SUM, 0, 1, 1, {0} };
    cases[C_SUM_DOUBLE] = (op_case) { "double SUM", MPI_DOUBLE, MPI_SUM, 1, 1, 1, {0} };
    cases[C_MAX_INT] = (op_case) { "int MAX", MPI_INT, MPI_MAX, 0, 1, 1, {0} };
    cases[C_COMPOSE] = (op_case) { "affine compose (non-commutative)", pair, op_compose, 0,
        2, 2, {0, 1} };
    cases[C_VECTOR] = (op_case) { "vector user-sum", vec, op_vector, 0, 8, 6,
        {0, 1, 3, 4, 6, 7} };
}

static inline void free_cases(void)
{
    MPI_Type_free(&cases[C_COMPOSE].type);
    MPI_Op_free(&cases[C_COMPOSE].op);
    MPI_Type_free(&cases[C_VECTOR].type);
    MPI_Op_free(&cases[C_VECTOR].op);
}

/* data value k (k-th data slot of the buffer) of rank's input in round `seed` */
static inline long long input(int kind, int rank, long long k, int seed)
{
    switch (kind) {
        case C_MAX_INT:
            return (rank * 7919LL + k * 104729LL + seed * 31LL) % 2001 - 1000;
        case C_COMPOSE:
            return k % 2 == 0 ? (rank * 7 + k / 2 * 3 + seed) % 97 + 2 :
                (rank * 13 + k / 2 + seed * 5) % 89;
        default:
            return (rank * 7 + k * 13 + seed) % 1000 - 300;
    }
}

/* data value k of the combination of ranks 0 .. last, in rank order */
static inline long long prefix(int kind, int last, long long k, int seed)
{
    long long acc = input(kind, 0, k, seed), a = 1, b = 0;
    switch (kind) {
        case C_MAX_INT:
            for (int r = 1; r <= last; r++) {
                long long v = input(kind, r, k, seed);
                acc = v > acc ? v : acc;
            }
            return acc;
        case C_COMPOSE:    /* f_0 o f_1 o ... o f_last, innermost last */
            for (int r = last; r >= 0; r--) {
                long long ar = input(kind, r, k - k % 2, seed);
                long long br = input(kind, r, k - k % 2 + 1, seed);
                b = (ar * b + br) % P;
                a = ar * a % P;
            }
            return k % 2 == 0 ? a : b;
        default:
            for (int r = 1; r <= last; r++)
                acc += input(kind, r, k, seed);
            return acc;
    }
}

#endif /* HIER_OP_CASES_H_INCLUDED */
