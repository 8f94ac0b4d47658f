/*
 * mpich-hier: Csel container ids and parameter blocks of the plugin's algorithms.
 * Included by MPICH's csel_container.h; keep it free of other includes.
 */

#ifndef COLL_HIER_CSEL_H_INCLUDED
#define COLL_HIER_CSEL_H_INCLUDED

/* Enum entries appended to MPII_Csel_container_type_e. */
#define MPII_HIER_CSEL_CONTAINER_IDS \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_hier, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_hier, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier,

/* The parameters of a hierarchical algorithm (HAN Table II).  A negative value means
 * "take the CVAR". */
#define MPII_HIER_CSEL_HIER_PARAMS \
    struct { \
        int segsize; \
        int inter_algo; \
        int inter_k; \
        int inter_chunk; \
        int intra_algo; \
    } intra_hier;

/* Members of the container's parameter union; generated code reads
 * cnt->u.<coll>.intra_<algo>.<param>. */
#define MPII_HIER_CSEL_CONTAINER_PARAMS \
    struct { MPII_HIER_CSEL_HIER_PARAMS } bcast; \
    struct { MPII_HIER_CSEL_HIER_PARAMS } reduce; \
    struct { MPII_HIER_CSEL_HIER_PARAMS } allreduce;

#endif /* COLL_HIER_CSEL_H_INCLUDED */
