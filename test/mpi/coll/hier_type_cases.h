/*
 * mpich-hier: the four type cases of the matrix tests that move blocks of data
 * (hier_allgatherv, hier_alltoall, hier_alltoallv, hier_gatherv, hier_scatterv): MPI_INT
 * both sides; MPI_DOUBLE; ints sent as MPI_INT and received as pairs
 * (MPI_Type_contiguous(2, MPI_INT): different but matching signatures; hier_scatterv's
 * root sends the pairs); a vector with holes both sides (MPI_Type_vector(3, 2, 3, MPI_INT)).
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

/* The three runs of a typed matrix test over its operation type op_t (fields tc and seed;
 * op_init(o, type, tc, count, in_place), op_blocking, op_free and HIER_MATRIX_DRIVERS(op_t)
 * before; NPERS and the test's pers_spec[NPERS][4] = {type, comm, count, in place};
 * large_count(type, tc) and nb_large_count(type), the large counts of the blocking and the
 * outstanding runs):
 *   run_blocking(tc, light): every type, counts 0, 1, 17, 1000 and the large one (int and
 *     the pairs only, unless -full), in place on alternate calls (count 1: both); light
 *     (the odd ranks, the dup): counts 1 and 1000 only; -full: every count both ways;
 *   run_outstanding(batch, use_test): NB ops over the comms and types, counts 1, 17, 1000
 *     and the large one, in place on alternate pairs (matrix_outstanding);
 *   run_persistent(): pers_spec's ops, and one more never started (matrix_persistent). */
#define HIER_TYPED_MATRIX_RUNS(op_t, what)                                                  \
static void run_blocking(test_comm * tc, int light)                                         \
{                                                                                           \
    int iter = 0;                                                                           \
    if (tc->comm == MPI_COMM_NULL)                                                          \
        return;                                                                             \
    light = light && !full;                                                                 \
    for (int type = 0; type < NTYPES; type++) {                                             \
        const long long counts[5] = { 0, 1, 17, 1000, large_count(type, tc) };              \
        for (int n = 0; n < 5; n++) {                                                       \
            if ((n == 4 && !full && type != T_INT && type != T_PAIR) ||                     \
                (light && n != 1 && n != 3))                                                \
                continue;                                                                   \
            for (int in_place = 0; in_place < 2; in_place++) {                              \
                int both = full || (n == 1 && !light);                                      \
                if (!both && in_place != (n + type) % 2)                                    \
                    continue;                                                               \
                op_t o;                                                                     \
                op_init(&o, type, tc, counts[n], in_place);                                 \
                o.seed = iter++;                                                            \
                op_blocking(&o);                                                            \
                op_free(&o);                                                                \
            }                                                                               \
        }                                                                                   \
    }                                                                                       \
}                                                                                           \
                                                                                            \
static void run_outstanding(int batch, int use_test)                                        \
{                                                                                           \
    op_t ops[NB];                                                                           \
    for (int i = 0; i < NB; i++) {                                                          \
        int type = (i + batch) % NTYPES;                                                    \
        const long long counts[4] = { 1, 17, 1000, nb_large_count(type) };                  \
        op_init(&ops[i], type, &comms[(i + batch / 2) % NCOMMS], counts[(i + batch) % 4],   \
                (i / 2 + batch) % 2);                                                       \
    }                                                                                       \
    matrix_outstanding(ops, batch, use_test);                                               \
}                                                                                           \
                                                                                            \
static void run_persistent(void)                                                            \
{                                                                                           \
    op_t ops[NPERS], never;                                                                 \
    int n = 0;                                                                              \
    for (int i = 0; i < NPERS; i++)                                                         \
        if (comms[pers_spec[i][1]].comm != MPI_COMM_NULL)                                   \
            op_init(&ops[n++], pers_spec[i][0], &comms[pers_spec[i][1]], pers_spec[i][2],   \
                    pers_spec[i][3]);                                                       \
    op_init(&never, T_INT, &comms[W_WORLD], 17, 0);                                         \
    matrix_persistent(ops, n, &never, what);                                                \
}

#endif /* HIER_TYPE_CASES_H_INCLUDED */
