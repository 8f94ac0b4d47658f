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
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Allreduce_intra_hier, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_linear, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_chain, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_pipeline, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_binary, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_split_binary, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Bcast_intra_seg_binomial, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_linear, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_chain, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_pipeline, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_binary, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_binomial, \
    MPII_CSEL_CONTAINER_TYPE__ALGORITHM__MPIR_Reduce_intra_seg_in_order_binary,

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

/* The parameters of the segmented trees: segment size in bytes and, for seg_chain, the
 * number of chains.  A negative value means "take the CVAR". */
#define MPII_HIER_CSEL_SEG_PARAMS(algo_) \
    struct { \
        int segsize; \
    } intra_##algo_;
#define MPII_HIER_CSEL_SEG_CHAIN_PARAMS \
    struct { \
        int segsize; \
        int fanout; \
    } intra_seg_chain;

/* Members of the container's parameter union; generated code reads
 * cnt->u.<coll>.intra_<algo>.<param>. */
#define MPII_HIER_CSEL_CONTAINER_PARAMS \
    struct { \
        MPII_HIER_CSEL_HIER_PARAMS \
        MPII_HIER_CSEL_SEG_PARAMS(seg_linear) \
        MPII_HIER_CSEL_SEG_CHAIN_PARAMS \
        MPII_HIER_CSEL_SEG_PARAMS(seg_pipeline) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_binary) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_split_binary) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_binomial) \
    } bcast; \
    struct { \
        MPII_HIER_CSEL_HIER_PARAMS \
        MPII_HIER_CSEL_SEG_PARAMS(seg_linear) \
        MPII_HIER_CSEL_SEG_CHAIN_PARAMS \
        MPII_HIER_CSEL_SEG_PARAMS(seg_pipeline) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_binary) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_binomial) \
        MPII_HIER_CSEL_SEG_PARAMS(seg_in_order_binary) \
    } reduce; \
    struct { MPII_HIER_CSEL_HIER_PARAMS } allreduce;

#endif /* COLL_HIER_CSEL_H_INCLUDED */
