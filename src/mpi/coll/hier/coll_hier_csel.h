/*
 * mpich-hier: Csel container ids and parameter blocks of the plugin's algorithms, from
 * the grammar table (hier_grammar.h).  Included by MPICH's csel_container.h.
 */

#ifndef COLL_HIER_CSEL_H_INCLUDED
#define COLL_HIER_CSEL_H_INCLUDED

#include "hier_grammar.h"

/* Enum entries appended to MPII_Csel_container_type_e. */
#define MPII_HIER_CSEL_CONTAINER_ID_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Coll_##_intra_##algo_,
#define MPII_HIER_CSEL_SCHED_ID_(icoll_, Icoll_, ICOLL_, algo_, coll_) \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_##Icoll_##_intra_##algo_,
#define MPII_HIER_CSEL_CONTAINER_IDS MPII_HIER_ALGORITHMS(MPII_HIER_CSEL_CONTAINER_ID_) \
    MPII_HIER_SCHED_ALGORITHMS(MPII_HIER_CSEL_SCHED_ID_)

/* Parameter blocks: cnt->u.<coll>.intra_<algo>.<param> (what gen_coll.py's dispatch
 * reads), one int per parameter in the grammar's order; a negative value means "take
 * the CVAR".  MPICH's union already has a struct of its own algorithms' parameters for
 * bcast, allreduce, allgather, alltoall and barrier: the plugin's blocks of those go inside
 * it (MPII_HIER_CSEL_PARAMS(BCAST) etc., one line in each of those structs), and the
 * collectives MPICH has no struct for get theirs at the end of the union
 * (MPII_HIER_CSEL_CONTAINER_PARAMS). */
#define MPII_HIER_CSEL_FIELD_(param_, arg_, cvar_) int param_;
#define MPII_HIER_CSEL_BLOCK_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    struct { MPII_HIER_PARAMS_##PARAMS_(MPII_HIER_CSEL_FIELD_, MPII_HIER_CSEL_FIELD_) } intra_##algo_;
#define MPII_HIER_CSEL_PARAMS(COLL_) MPII_HIER_ALGORITHMS_##COLL_(MPII_HIER_CSEL_BLOCK_)

/* The collectives of the grammar whose struct MPICH's union lacks. */
#define MPII_HIER_CSEL_OWN_STRUCTS(X) \
    X(reduce, REDUCE) \
    X(gather, GATHER) \
    X(scatter, SCATTER) \
    X(scan, SCAN) \
    X(exscan, EXSCAN) \
    X(reduce_scatter, REDUCE_SCATTER) \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK) \
    X(allgatherv, ALLGATHERV) \
    X(alltoallv, ALLTOALLV) \
    X(gatherv, GATHERV) \
    X(scatterv, SCATTERV)
#define MPII_HIER_CSEL_OWN_STRUCT_(coll_, COLL_) struct { MPII_HIER_CSEL_PARAMS(COLL_) } coll_;
#define MPII_HIER_CSEL_CONTAINER_PARAMS MPII_HIER_CSEL_OWN_STRUCTS(MPII_HIER_CSEL_OWN_STRUCT_)

#endif /* COLL_HIER_CSEL_H_INCLUDED */
