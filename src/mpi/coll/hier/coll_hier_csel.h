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
#define MPII_HIER_CSEL_CONTAINER_IDS MPII_HIER_ALGORITHMS(MPII_HIER_CSEL_CONTAINER_ID_)

/* Members of the container's parameter union: cnt->u.<coll>.intra_<algo>.<param>, one
 * int per parameter in the grammar's order; a negative value means "take the CVAR". */
#define MPII_HIER_CSEL_FIELD_(param_, arg_, cvar_) int param_;
#define MPII_HIER_CSEL_BLOCK_(coll_, Coll_, COLL_, algo_, PARAMS_) \
    struct { MPII_HIER_PARAMS_##PARAMS_(MPII_HIER_CSEL_FIELD_, MPII_HIER_CSEL_FIELD_) } intra_##algo_;
#define MPII_HIER_CSEL_COLL_(coll_, Coll_, COLL_) \
    struct { MPII_HIER_ALGORITHMS_##COLL_(MPII_HIER_CSEL_BLOCK_) } coll_;
#define MPII_HIER_CSEL_CONTAINER_PARAMS MPII_HIER_COLLECTIVES(MPII_HIER_CSEL_COLL_)

#endif /* COLL_HIER_CSEL_H_INCLUDED */
