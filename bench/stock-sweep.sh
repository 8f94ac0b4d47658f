# MPICH 5.0.1's own configurations of one collective, as `hiertune bench -a` specs (sourced
# by quickstart compare and bench/peers.sh): every algorithm of MPICH forced on the whole
# comm (bench forces them with the CH4 device step off), and the CH4 compositions, the
# multi-leader ones included.
stock_sweep() {
    local coll=$1 compositions
    case $coll in
        bcast | allreduce) compositions=1/2/3/4 ;;
        reduce) compositions=1/2/3 ;;
        barrier | allgather) compositions=1/2 ;;
        # 1, the multi-leader one, runs only for blocks up to MPIR_CVAR_ALLTOALL_SHM_PER_RANK
        # (4096 B) on nodes of equally many, consecutive ranks; elsewhere 5.0.1 silently
        # runs 2 (netmod only)
        alltoall) compositions=1/2 ;;
        *) compositions= ;;
    esac
    echo "-a stock"
    [ -z "$compositions" ] || echo "-a default:${coll}_composition=$compositions"
}
