# The search space of `./quickstart tune` (sourced by quickstart and by
# bench/han-space-validate.sh, which learns and sweeps the same one).
tune_collectives=bcast,reduce,allreduce,allgather
tune_sizes=1K:1M
# a collective's own sizes (tune --sizes-of): allgather's are per rank, its whole
# message eight times larger
tune_sizes_of=allgather=1K:128K
tune_segsizes=16K,64K,256K
tune_inter=tsp_kary/tsp_ring/tsp_allreduce_ring   # tsp_allreduce_ring: allreduce only
tune_intra=binomial/shm
# without a task model: measured, one choice per job shape (barrier, ibarrier: no size);
# the non-blocking forms against MPICH's selection and each of its algorithms
tune_measured=gather,scatter,barrier,scan,exscan,reduce_scatter,reduce_scatter_block,allgatherv,alltoall,alltoallv,gatherv,scatterv
tune_measured+=,ibcast,ireduce,iallreduce,iallgather,igather,iscatter,ibarrier,iscan,iexscan,ireduce_scatter
tune_measured+=,ireduce_scatter_block,iallgatherv,ialltoall,ialltoallv,igatherv,iscatterv
tune_measured_sizes=8K:128K
# further job shapes inside the allocation (nodes x ranks per node), each measured in
# jobs of its own (every collective above: hier against MPICH's selection, at the
# measured sizes), keyed in the same tree, verified and timed at its shape
tune_shapes=4x1,2x2
# job shapes larger than the allocation (one rank per node): bcast and reduce picks
# predicted by the analytic models fitted on the allocation's nodes, marked predicted
tune_predicted_shapes=8x1,16x1
# the wall time of the run (tune --budget): the steps that make, verify and time the tree
# always run; the exhaustive sweep, which only checks the picks, gets what is left
tune_budget=45m
