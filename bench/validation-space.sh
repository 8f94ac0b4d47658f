# The space the tuners are validated on (sourced by bench/analytic-validate.sh and
# bench/learn-validate.sh): MPI_Bcast and MPI_Reduce at one rank per node on 2, 3 and 4
# emulated nodes, 8 KiB - 4 MiB (10 sizes, x2 apart), MPICH's modelled algorithms and the
# seg_* trees at 16/64/256 KiB segments (seg_chain: 2 chains), MPICH's default beside, and
# one bench effort for every measurement of it.
space_nodes=2,3,4
effort=(-x 1 --min-reps 5 -i 20 --max-time 3)
sizes=8K,16K,32K,64K,128K,256K,512K,1M,2M,4M
segs=16K/64K/256K
bcast=(-a default -a binomial -a scatter_recursive_doubling_allgather -a scatter_ring_allgather)
reduce=(-a default -a binomial -a reduce_scatter_gather -a seg_in_order_binary:reduce_seg_segsize=$segs)
for a in seg_linear seg_pipeline seg_binary seg_binomial; do
    bcast+=(-a "$a:bcast_seg_segsize=$segs")
    reduce+=(-a "$a:reduce_seg_segsize=$segs")
done
bcast+=(-a "seg_split_binary:bcast_seg_segsize=$segs" -a "seg_chain:bcast_seg_segsize=$segs,bcast_seg_fanout=2")
reduce+=(-a "seg_chain:reduce_seg_segsize=$segs,reduce_seg_fanout=2")
