/*
 * mpich-hier: the hierarchical communicators of the MPIX API (hierarchical-communicators
 * paper, section 3), on the key paths of the collectives' hierarchy (hier_hierarchy.h:
 * switches, node, package, NUMA node, L3 cache of bound ranks).  Declared in mpi.h.
 */

#include "hier_impl.h"

/* What MPIX_Comm_get_hlevel_info tells about a communicator made by the split, kept with
 * it (comm->coll.hlevel) and freed with it (MPII_Hier_comm_cleanup): the paper's
 * MPI_COMM_HLEVEL_NUM, _RANK and _TYPE, which MPI_Comm_get_info adds to the hints (MPICH
 * keeps only registered hints with a communicator). */
typedef struct {
    int num;
    int index;
    const char *type;
} MPII_Hier_hlevel;

/* MPI_Comm_split_type(comm, MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY, key, info, newcomm), from
 * MPIR_Comm_split_type_impl: the groups of the first key column that splits comm (a strict
 * subset of it, so that recursing goes down a level each time), NULL at the bottom and for
 * ranks not bound as deep as that column. */
int MPII_Hier_comm_split_physical(MPIR_Comm * comm, int key, MPIR_Info * info,
                                  MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS;
    MPII_Hier_comm *hier;
    MPIR_Comm *present = NULL;
    int *group_of = NULL, ngroups = 0, column = -1;
    MPII_Hier_hlevel *hl = NULL;

    *newcomm = NULL;
    MPIR_ERR_CHKANDJUMP(comm->comm_kind != MPIR_COMM_KIND__INTRACOMM, mpi_errno, MPI_ERR_COMM,
                        "**commnotintra");
    /* as MPICH's own split types: first leave out the ranks that passed MPI_UNDEFINED (they
     * run this split only).  When nobody did, the levels are comm's own, built once for
     * its collectives and queries too; else those of the ranks present. */
    mpi_errno = MPIR_Comm_split_impl(comm, 0, key, &present);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Comm *base = present->local_size == comm->local_size ? comm : present;
    mpi_errno = MPII_Hier_get(base, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP(!hier, mpi_errno, MPI_ERR_OTHER, "**nomem");
    group_of = MPL_malloc(sizeof(int) * base->local_size, MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP(!group_of, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (base->local_size > 1)
        column = MPII_Hier_keys_split(base->local_size, hier->depth, hier->keys, group_of,
                                      &ngroups);
    int color = column < 0 || group_of[base->rank] < 0 ? MPI_UNDEFINED : group_of[base->rank];

    mpi_errno = MPIR_Comm_split_impl(base, color, key, newcomm);
    MPIR_ERR_CHECK(mpi_errno);
    if (*newcomm) {
        hl = MPL_malloc(sizeof(*hl), MPL_MEM_COMM);
        MPIR_ERR_CHKANDJUMP(!hl, mpi_errno, MPI_ERR_OTHER, "**nomem");
        *hl = (MPII_Hier_hlevel) { ngroups, color, MPII_Hier_column_type(hier, column) };
        (*newcomm)->coll.hlevel = hl;
        /* its own levels now, while its members are here together: the queries on it
         * (MPIX_Comm_get_min_hlevel) are local */
        MPII_Hier_comm *sub;
        mpi_errno = MPII_Hier_get(*newcomm, &sub);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(group_of);
    if (present)
        MPIR_Comm_free_impl(present);
    return mpi_errno;
  fn_fail:
    if (*newcomm) {
        MPIR_Comm_free_impl(*newcomm);
        *newcomm = NULL;
    }
    goto fn_exit;
}

/* MPI_Comm_get_info of such a communicator (from MPIR_Comm_get_info_impl): the paper's
 * keys (section 4.1.1), MPI_COMM_HLEVEL_TYPE, _NUM and _RANK, with what
 * MPIX_Comm_get_hlevel_info answers. */
int MPII_Hier_hlevel_info(MPIR_Comm * comm, MPIR_Info * info)
{
    int mpi_errno = MPI_SUCCESS;
    const MPII_Hier_hlevel *hl = comm->coll.hlevel;
    char text[16];

    if (!hl)
        return MPI_SUCCESS;
    mpi_errno = MPIR_Info_set_impl(info, "MPI_COMM_HLEVEL_TYPE", hl->type);
    MPIR_ERR_CHECK(mpi_errno);
    snprintf(text, sizeof(text), "%d", hl->num);
    mpi_errno = MPIR_Info_set_impl(info, "MPI_COMM_HLEVEL_NUM", text);
    MPIR_ERR_CHECK(mpi_errno);
    snprintf(text, sizeof(text), "%d", hl->index);
    mpi_errno = MPIR_Info_set_impl(info, "MPI_COMM_HLEVEL_RANK", text);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The checks every MPIX function starts with: MPI initialised, comm a valid intracomm. */
#define MPII_HIER_MPIX_CHECK_COMM(comm_, comm_ptr_) \
    do { \
        MPIR_ERRTEST_INITIALIZED_ORDIE(); \
        MPIR_ERRTEST_COMM(comm_, mpi_errno); \
        MPIR_Comm_get_ptr(comm_, comm_ptr_); \
        MPIR_Comm_valid_ptr(comm_ptr_, mpi_errno, FALSE); \
        MPIR_ERR_CHECK(mpi_errno); \
        MPIR_ERRTEST_COMM_INTRA(comm_ptr_, mpi_errno); \
    } while (0)

int MPIX_Comm_hsplit_with_roots(MPI_Comm oldcomm, MPI_Info info, MPI_Comm * newcomm,
                                MPI_Comm * rootscomm)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL, *new_ptr = NULL, *roots_ptr = NULL;
    MPIR_Info *info_ptr = NULL;

    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    MPII_HIER_MPIX_CHECK_COMM(oldcomm, comm_ptr);
    MPIR_ERRTEST_INFO_OR_NULL(info, mpi_errno);
    if (info != MPI_INFO_NULL)
        MPIR_Info_get_ptr(info, info_ptr);
    MPIR_ERRTEST_ARGNULL(newcomm, "newcomm", mpi_errno);
    MPIR_ERRTEST_ARGNULL(rootscomm, "rootscomm", mpi_errno);
    *newcomm = *rootscomm = MPI_COMM_NULL;

    /* newcomm keeps the order of oldcomm (the paper's key: the rank there); its rank 0
     * is its root, and the roots of all of them form rootscomm */
    mpi_errno = MPIR_Comm_split_type_impl(comm_ptr, MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY,
                                          comm_ptr->rank, info_ptr, &new_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    int is_root = new_ptr && new_ptr->rank == 0;
    mpi_errno = MPIR_Comm_split_impl(comm_ptr, is_root ? 0 : MPI_UNDEFINED, comm_ptr->rank,
                                     &roots_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    if (new_ptr)
        MPIR_OBJ_PUBLISH_HANDLE(*newcomm, new_ptr->handle);
    if (roots_ptr)
        MPIR_OBJ_PUBLISH_HANDLE(*rootscomm, roots_ptr->handle);

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    if (new_ptr)
        MPIR_Comm_free_impl(new_ptr);
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int MPIX_Comm_get_hlevel_info(MPI_Comm comm, int *num_comms, int *index, char **type)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;

    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    MPII_HIER_MPIX_CHECK_COMM(comm, comm_ptr);
    MPIR_ERRTEST_ARGNULL(num_comms, "num_comms", mpi_errno);
    MPIR_ERRTEST_ARGNULL(index, "index", mpi_errno);
    MPIR_ERRTEST_ARGNULL(type, "type", mpi_errno);
    const MPII_Hier_hlevel *hl = comm_ptr->coll.hlevel;
    MPIR_ERR_CHKANDJUMP1(!hl, mpi_errno, MPI_ERR_COMM, "**arg", "**arg %s",
                         "not made by MPI_Comm_split_type with MPIX_COMM_TYPE_PHYSICAL_TOPOLOGY "
                         "or MPIX_Comm_hsplit_with_roots");
    *num_comms = hl->num;
    *index = hl->index;
    *type = (char *) hl->type;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int MPIX_Comm_get_min_hlevel(MPI_Comm comm, int nranks, int *ranks, char **type)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;
    MPII_Hier_comm *hier;

    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    MPII_HIER_MPIX_CHECK_COMM(comm, comm_ptr);
    MPIR_ERRTEST_ARGNEG(nranks, "nranks", mpi_errno);
    if (nranks > 0)
        MPIR_ERRTEST_ARGNULL(ranks, "ranks", mpi_errno);
    MPIR_ERRTEST_ARGNULL(type, "type", mpi_errno);
    int me = 0;
    for (int i = 0; i < nranks; i++) {
        MPIR_ERRTEST_RANK(comm_ptr, ranks[i], mpi_errno);
        me |= ranks[i] == comm_ptr->rank;
    }
    /* the levels are comm's (built by its first hier collective, or now: local, since
     * every rank's keys were gathered then) */
    hier = comm_ptr->coll.hier;
    if (!me) {
        *type = (char *) "Unknown";
    } else {
        MPIR_ERR_CHKANDJUMP1(!hier || !hier->keys, mpi_errno, MPI_ERR_COMM, "**arg", "**arg %s",
                             "levels not known yet: call MPIX_Comm_get_min_hlevel after a split "
                             "of this comm or a collective on it");
        int column = MPII_Hier_keys_common(hier->depth, hier->keys, nranks, ranks);
        *type = (char *) (column < 0 ? "System - Cluster" : MPII_Hier_column_type(hier, column));
    }

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}
