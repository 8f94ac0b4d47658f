# How the tests launch MPI jobs on one host (sourced by every test script that runs
# mpiexec without the emulated cluster).  Correctness only: never for timings (bench/ and
# the emulated cluster's own launcher set what a measurement needs).  A caller's values win.

# Emulated nodes (MPIR_CVAR_NUM_CLIQUES) talk through the OFI tcp provider on loopback.
export FI_PROVIDER=${FI_PROVIDER:-tcp} FI_TCP_IFACE=${FI_TCP_IFACE:-lo}

# Up to 12 ranks share this machine's cores in cliques MPICH takes for nodes; its own
# check (more ranks on a node than cores) cannot see that, so a waiting rank is told to
# give its core away after its first poll that found nothing: a rank spinning longer only
# delays the rank it waits for.
export MPIR_CVAR_CH4_PROGRESS_THROTTLE=${MPIR_CVAR_CH4_PROGRESS_THROTTLE:-1}
export MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=${MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT:-0}

# libfabric's rxm layer allocates and clears its eager buffer pools at MPI_Init and at
# every new connection, sized by this (16 KiB by default: four 17 MB pools a process).
# Smaller, messages over 2 KiB take the rendezvous path, so no test passes because a send
# was buffered.
export FI_OFI_RXM_BUFFER_SIZE=${FI_OFI_RXM_BUFFER_SIZE:-2048}
