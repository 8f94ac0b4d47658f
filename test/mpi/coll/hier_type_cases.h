/*
 * mpich-hier: the four type cases of the matrix tests that move blocks of data
 * (hier_allgatherv, hier_alltoall, hier_alltoallv): MPI_INT both sides; MPI_DOUBLE; ints
 * sent as MPI_INT and received as pairs (MPI_Type_contiguous(2, MPI_INT): different but
 * matching signatures); a vector with holes both sides (MPI_Type_vector(3, 2, 3, MPI_INT)).
 * A buffer is slots of ints or doubles; an element of the receive type spans `ext` slots,
 * `ndata` of them data at `off`.
 */

#ifndef HIER_TYPE_CASES_H_INCLUDED
#define HIER_TYPE_CASES_H_INCLUDED

#include <mpi.h>

enum { T_INT, T_DOUBLE, T_PAIR, T_VECTOR, NTYPES };

typedef struct {
    const char *name;
    MPI_Datatype send, recv;
    int send_per_recv;          /* send elements per receive element */
    int is_double;              /* slots are doubles, else ints */
    int ext;                    /* slots per receive element */
    int ndata;                  /* data slots per receive element */
    int off[6];                 /* their slots in the element */
} type_case;

static type_case types[NTYPES];

static inline void make_type_cases(void)
{
    MPI_Datatype pair, vec;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    types[T_INT] = (type_case) { "int", MPI_INT, MPI_INT, 1, 0, 1, 1, {0} };
    types[T_DOUBLE] = (type_case) { "double", MPI_DOUBLE, MPI_DOUBLE, 1, 1, 1, 1, {0} };
    types[T_PAIR] = (type_case) { "ints as pairs", MPI_INT, pair, 2, 0, 2, 2, {0, 1} };
    types[T_VECTOR] = (type_case) { "vector with holes", vec, vec, 1, 0, 8, 6,
        {0, 1, 3, 4, 6, 7} };
}

static inline void free_type_cases(void)
{
    MPI_Type_free(&types[T_PAIR].recv);
    MPI_Type_free(&types[T_VECTOR].recv);
}

#endif /* HIER_TYPE_CASES_H_INCLUDED */
