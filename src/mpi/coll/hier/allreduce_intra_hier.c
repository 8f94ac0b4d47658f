/*
 * mpich-hier: HAN pipelined hierarchical allreduce.
 */

#include "hier_impl.h"

#define MPII_HIER_COLL ALLREDUCE        /* MPII_HIER_PARAMS_OF_CVARS */

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE
      category    : COLLECTIVE
      type        : int
      default     : 16384
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline segment size fs, in bytes, of the hier allreduce (rounded down to whole
        datatype elements, at least one). 0 reduces the whole message as one segment.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_allreduce_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking inter-node reduce and bcast of the hier allreduce (the same for both,
        so they overlap in opposite directions), run on the node leaders.
        Non-commutative ops use sched_binomial, or seg_in_order_binary for the seg_*
        items (rank order). The seg_* trees cut each hier segment into
        MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE pieces (0: one).
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k of the tsp_kary and tsp_knomial inter-node steps of the hier allreduce.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the tsp inter-node steps of one hier
        allreduce segment. 0 does not split a segment further.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Blocking intra-node reduce and bcast of the hier allreduce
        auto     - MPIR_Reduce/Bcast_allcomm_auto on the node communicator (MPIR Csel tree)
        binomial - MPIR_Reduce/Bcast_intra_binomial
        shm      - the device's shared-memory reduce and bcast (CH4 POSIX
                   release_gather), MPIR where the device cannot (e.g. non-commutative ops)

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_allreduce_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier allreduce among the leaders of switch groups (the levels
        above the node, doc/multilevel.md), as MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM:
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier allreduce among switch groups.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_UP_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier allreduce among switch
        groups. 0 does not split a segment further.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_ALGORITHM
      category    : COLLECTIVE
      type        : enum
      default     : tsp_ring
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        Non-blocking steps of the hier allreduce among the leaders of packages, NUMA nodes
        or L3 caches inside a node (the levels below the node but the finest,
        doc/multilevel.md), as MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM:
        auto           - MPIR_Ireduce and MPIR_Ibcast (MPICH's own selection)
        sched_binomial - MPIR_Ireduce/Ibcast_intra_sched_binomial
        tsp_kary       - MPICH's tsp tree reduce and bcast, k-ary tree
        tsp_knomial    - MPICH's tsp tree reduce and bcast, k-nomial tree
        tsp_ring       - MPICH's tsp tree reduce and bcast, chain
        seg_linear     - segmented linear tree (every leader sends to the root)
        seg_chain      - segmented chains, inter_k of them
        seg_pipeline   - segmented single chain
        seg_binary     - segmented binary tree
        seg_binomial   - segmented binomial tree
        tsp_allreduce_ring - one step instead of reduce + bcast: MPICH's tsp ring
                         allreduce (reduce-scatter then allgather around the leaders),
                         which sends 2(N-1)/N of a segment through each node link where
                         a reduce chain and a bcast chain send 2 (commutative ops);
                         a step below the top one runs tsp_ring instead

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_KVAL
      category    : COLLECTIVE
      type        : int
      default     : 2
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Tree radix k (seg_chain: chains) of the steps of the hier allreduce among package, NUMA or L3
        leaders.

    - name        : MPIR_CVAR_ALLREDUCE_HIER_DOWN_INTER_CHUNK_SIZE
      category    : COLLECTIVE
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Pipeline chunk size, in bytes, inside the steps of the hier allreduce among package, NUMA
        or L3 leaders. 0 does not split a segment further.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


/* Algorithm: HAN pipelined hierarchical allreduce over N levels (HAN paper, section
 * III-B; the N-level generalisation in doc/multilevel.md)
 *
 * The message is cut into u segments of whole elements.  Each segment runs the reduce of
 * reduce_intra_hier.c onto rank 0 (which leads every group it is in), then the bcast of
 * bcast_intra_hier.c from it, over the same steps: segment t takes the upward step k in
 * slot t + N - k and the downward step k in slot t + N + 1 + k.  In slot s a rank
 * starts, non-blocking, the steps k < N it takes part in (downward, then upward), runs
 * the finest step downward then upward (blocking), and waits for the former.  With nodes
 * only (N = 1) the leaders run s = 0 .. u+2 as
 *     start ib(s-2); start ir(s-1); sb(s-3); sr(s); wait for ib and ir
 * i.e. the paper's sr(0), irsr(1), ibirsr(2), sbibirsr(3..u-1), sbibir, sbib, sb: the
 * non-blocking inter-node reduce and bcast move in opposite directions while the node
 * works on two other segments; other ranks run the same intra-node steps (sbsr).
 *
 * With the one-step submodule tsp_allreduce_ring as the top step's (up_inter_algo when
 * the top level is a switch level, down_inter_algo when it is inside one node, else
 * inter_algo) an allreduce among the top step's
 * members, ia(t) in slot t + N, replaces its reduce and bcast, and the downward steps
 * below it come one slot earlier.  With one rank per node and no switch
 * level that allreduce runs once on the whole message.
 *
 * Non-commutative ops combine in rank order: binomial trees when every group of every
 * level is one block of consecutive ranks; otherwise the flat recursive doubling runs
 * instead.
 */
int MPIR_Allreduce_intra_hier(const void *sendbuf, void *recvbuf, MPI_Aint count,
                              MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                              int segsize, int inter_algo, int inter_k, int inter_chunk,
                              int intra_algo, int up_inter_algo, int up_inter_k,
                              int up_inter_chunk, int down_inter_algo, int down_inter_k,
                              int down_inter_chunk, int coll_attr)
{
    int mpi_errno = MPI_SUCCESS;
    int mpi_errno_ret = MPI_SUCCESS;
    int errflag = 0;            /* MPIR_ERR_* bits of the errors recorded so far */
    MPII_Hier_params prm;
    const MPII_Hier_params given = MPII_HIER_PARAMS_OF_ARGS, cvars = MPII_HIER_PARAMS_OF_CVARS;
    MPII_Hier_comm *hier = NULL;
    MPII_Hier_seg_plan plan;
    MPII_Hier_steps steps;
    MPII_Hier_params step_prm[MPII_HIER_MAX_STEPS];
    MPIR_Request *up_req[MPII_HIER_MAX_STEPS] = { NULL }, *down_req[MPII_HIER_MAX_STEPS] = { NULL };
    MPI_Aint type_size, extent;

    MPIR_FUNC_ENTER;

    MPIR_Datatype_get_size_macro(datatype, type_size);
    MPIR_Datatype_get_extent_macro(datatype, extent);
    if (count == 0 || type_size == 0 || comm_ptr->local_size == 1) {
        mpi_errno = MPII_Hier_params_resolve(&prm, &given, &cvars, MPII_HIER_INTER_COUNT);
        if (!mpi_errno && count > 0 && type_size > 0 && sendbuf != MPI_IN_PLACE)
            mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        goto fn_exit;
    }
    mpi_errno = MPII_Hier_begin(comm_ptr, &given, &cvars, MPII_HIER_INTER_COUNT, MPII_HIER_PVAR_CALLS(allreduce, hier), &prm, &hier);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPII_Hier_reduction_runs_flat(hier, op)) {
        /* one node (also the re-entry of a tree that picks hier for the node comm), our
         * own comm creation, or an order no hierarchy keeps: flat and rank-ordered */
        mpi_errno = MPIR_Allreduce_intra_recursive_doubling(sendbuf, recvbuf, count, datatype,
                                                            op, comm_ptr, coll_attr);
        goto fn_exit;
    }
    int nlevels = MPII_Hier_nlevels(hier);

    mpi_errno = MPII_Hier_steps_get(comm_ptr, hier, 0, &steps);
    MPIR_ERR_CHECK(mpi_errno);
    int first = MPII_Hier_steps_first(&steps), finest = steps.nsteps - 1;
    const MPII_Hier_step *fs = &steps.step[finest];

    /* each step's parameters (up_inter_* among switch groups, down_inter_* among package
     * leaders inside a node).  The ring allreduce is a submodule of the top step only; a
     * step below it that asks for the ring runs the ring's chain (tsp_ring).  The ring combines in ring order: with a non-commutative
     * op the top step keeps rank order by reduce + bcast on binomial trees. */
    int one_top_step = 0;
    for (int k = 0; k <= finest; k++) {
        MPII_Hier_params scratch;
        step_prm[k] = *MPII_Hier_step_params(&prm, &steps.step[k], &scratch);
        if (step_prm[k].inter_algo != MPII_HIER_INTER_TSP_ALLREDUCE_RING)
            continue;
        if (k > 0)
            step_prm[k].inter_algo = MPII_HIER_INTER_TSP_RING;
        else if (MPIR_Op_is_commutative(op))
            one_top_step = 1;
        else
            step_prm[k].inter_algo = MPII_HIER_INTER_SCHED_BINOMIAL;
    }
    /* the ring allreduce alone (one rank per node) runs once on the whole message */
    int whole = nlevels == 0 && one_top_step;
    /* segments of whole elements (the op works on elements) */
    MPII_Hier_seg_plan_init(&plan, count * type_size, whole ? 0 : prm.segsize, type_size);
    MPII_HIER_PVAR_ADD(ALLREDUCE_HIER_SEGMENTS, plan.nsegs);

    /* a rank alone in its finest group holds its contribution in recvbuf from the start */
    if (!fs->comm && sendbuf != MPI_IN_PLACE) {
        mpi_errno = MPIR_Localcopy(sendbuf, count, datatype, recvbuf, count, datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* slots from a segment's start to its upward / downward step k */
#define UP_LAG(k_) ((int64_t) finest - (k_))
#define DOWN_LAG(k_) ((int64_t) finest + (k_) + !one_top_step)
#define SEG_COUNT(t_) (MPII_Hier_seg_len(&plan, (t_)) / type_size)
#define SEG_AT(buf_, t_) ((char *) (buf_) + MPII_Hier_seg_offset(&plan, (t_)) / type_size * extent)
#define IN_SEGS(t_) ((t_) >= 0 && (t_) < plan.nsegs)
    for (int64_t s = 0; s < plan.nsegs + DOWN_LAG(finest); s++) {
        for (int k = first; k < finest; k++) {
            const MPII_Hier_step *st = &steps.step[k];
            int64_t down = s - DOWN_LAG(k), up = s - UP_LAG(k);
            if (!st->comm)
                continue;
            if (k == 0 && one_top_step) {
                if (IN_SEGS(up)) {
                    mpi_errno = MPII_Hier_start_iallreduce(SEG_AT(recvbuf, up), SEG_COUNT(up),
                                                           datatype, op, st->comm, &up_req[k]);
                    MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
                }
                continue;
            }
            if (IN_SEGS(down)) {
                mpi_errno = MPII_Hier_start_ibcast(SEG_AT(recvbuf, down), SEG_COUNT(down),
                                                   datatype, st->root, st->comm, &step_prm[k],
                                                   &down_req[k]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
            if (IN_SEGS(up)) {
                int step_root = st->comm->rank == st->root;
                mpi_errno = MPII_Hier_start_ireduce(step_root ? MPI_IN_PLACE : SEG_AT(recvbuf, up),
                                                    step_root ? SEG_AT(recvbuf, up) : NULL,
                                                    SEG_COUNT(up), datatype, op, st->root,
                                                    st->comm, &step_prm[k], &up_req[k]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            }
        }
        /* the finest step, downward then upward */
        int64_t down = s - DOWN_LAG(finest), up = s;
        if (fs->comm && IN_SEGS(down)) {
            if (fs->inter) {
                mpi_errno = MPII_Hier_start_ibcast(SEG_AT(recvbuf, down), SEG_COUNT(down),
                                                   datatype, fs->root, fs->comm,
                                                   &step_prm[finest], &down_req[finest]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
                mpi_errno = MPII_Hier_wait(&down_req[finest]);
            } else {
                mpi_errno = MPII_Hier_intra_bcast(SEG_AT(recvbuf, down), SEG_COUNT(down),
                                                  datatype, fs->root, fs->comm, prm.intra_algo,
                                                  coll_attr | errflag);
            }
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        if (fs->comm && IN_SEGS(up)) {
            int step_root = fs->comm->rank == fs->root;
            const void *contribution = sendbuf == MPI_IN_PLACE ? SEG_AT(recvbuf, up) :
                SEG_AT(sendbuf, up);
            if (step_root && sendbuf == MPI_IN_PLACE)
                contribution = MPI_IN_PLACE;
            void *result = step_root ? SEG_AT(recvbuf, up) : NULL;
            if (fs->inter) {
                mpi_errno = MPII_Hier_start_ireduce(contribution, result, SEG_COUNT(up), datatype,
                                                    op, fs->root, fs->comm, &step_prm[finest],
                                                    &up_req[finest]);
                MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
                mpi_errno = MPII_Hier_wait(&up_req[finest]);
            } else {
                mpi_errno = MPII_Hier_intra_reduce(contribution, result, SEG_COUNT(up), datatype,
                                                   op, fs->root, fs->comm, prm.intra_algo,
                                                   coll_attr | errflag);
            }
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
        for (int k = first; k < finest; k++) {
            mpi_errno = MPII_Hier_wait(&down_req[k]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
            mpi_errno = MPII_Hier_wait(&up_req[k]);
            MPIR_ERR_COLL_CHECKANDCONT(mpi_errno, errflag, mpi_errno_ret);
        }
    }
#undef UP_LAG
#undef DOWN_LAG
#undef SEG_COUNT
#undef SEG_AT
#undef IN_SEGS

  fn_exit:
    MPIR_FUNC_EXIT;
    return MPII_Hier_final_errno(mpi_errno, mpi_errno_ret, errflag);
  fn_fail:
    goto fn_exit;
}
