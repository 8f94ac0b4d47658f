##
## mpich-hier: hierarchical and segmented collectives
##

AM_CPPFLAGS += -I$(top_srcdir)/src/mpi/coll/hier -I$(top_builddir)/src/mpi/coll/hier

# the site's installed tree lies under the prefix (hier_site.h): a header that only
# hier_json.c includes, not a -D flag that every file's compile line would carry (so a
# compiler cache keyed by those lines serves builds with any prefix)
BUILT_SOURCES += src/mpi/coll/hier/hier_prefix.h
DISTCLEANFILES += src/mpi/coll/hier/hier_prefix.h
src/mpi/coll/hier/hier_prefix.h: Makefile
	$(AM_V_GEN)$(MKDIR_P) src/mpi/coll/hier && \
	echo '#define MPII_HIER_PREFIX "$(prefix)"' > $@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

mpi_core_sources += \
    src/mpi/coll/hier/hier_segment.c \
    src/mpi/coll/hier/hier_pipeline.c \
    src/mpi/coll/hier/hier_pipeline_run.c \
    src/mpi/coll/hier/hier_hierarchy.c \
    src/mpi/coll/hier/hier_topology.c \
    src/mpi/coll/hier/hier_hierarchy_comm.c \
    src/mpi/coll/hier/hier_mpix.c \
    src/mpi/coll/hier/hier_trees.c \
    src/mpi/coll/hier/hier_by_size.c \
    src/mpi/coll/hier/hier_comm.c \
    src/mpi/coll/hier/hier_pvars.c \
    src/mpi/coll/hier/hier_route.c \
    src/mpi/coll/hier/hier_payload.c \
    src/mpi/coll/hier/hier_grammar.c \
    src/mpi/coll/hier/hier_json.c \
    src/mpi/coll/hier/hier_site.c \
    src/mpi/coll/hier/hier_entry.c \
    src/mpi/coll/hier/hier_tags.c \
    src/mpi/coll/hier/hier_submodules.c \
    src/mpi/coll/hier/hier_rooted.c \
    src/mpi/coll/hier/hier_rooted_sched.c \
    src/mpi/coll/hier/bcast_intra_hier.c \
    src/mpi/coll/hier/reduce_intra_hier.c \
    src/mpi/coll/hier/allreduce_intra_hier.c \
    src/mpi/coll/hier/allgather_intra_hier.c \
    src/mpi/coll/hier/gather_intra_hier.c \
    src/mpi/coll/hier/scatter_intra_hier.c \
    src/mpi/coll/hier/barrier_intra_hier.c \
    src/mpi/coll/hier/scan_intra_hier.c \
    src/mpi/coll/hier/exscan_intra_hier.c \
    src/mpi/coll/hier/reduce_scatter_intra_hier.c \
    src/mpi/coll/hier/reduce_scatter_block_intra_hier.c \
    src/mpi/coll/hier/allgatherv_intra_hier.c \
    src/mpi/coll/hier/alltoall_intra_hier.c \
    src/mpi/coll/hier/alltoallv_intra_hier.c \
    src/mpi/coll/hier/gatherv_intra_hier.c \
    src/mpi/coll/hier/scatterv_intra_hier.c \
    src/mpi/coll/hier/hier_run_steps.c \
    src/mpi/coll/hier/hier_direct.c \
    src/mpi/coll/hier/bcast_intra_seg.c \
    src/mpi/coll/hier/reduce_intra_seg.c \
    src/mpi/coll/hier/hier_seg_sched.c

noinst_HEADERS += \
    src/mpi/coll/hier/coll_hier_csel.h \
    src/mpi/coll/hier/hier_grammar.h \
    src/mpi/coll/hier/hier_site.h \
    src/mpi/coll/hier/hier_mpich_keys.h \
    src/mpi/coll/hier/hier_segment.h \
    src/mpi/coll/hier/hier_pipeline.h \
    src/mpi/coll/hier/hier_hierarchy.h \
    src/mpi/coll/hier/hier_topology.h \
    src/mpi/coll/hier/hier_trees.h \
    src/mpi/coll/hier/hier_by_size.h \
    src/mpi/coll/hier/hier_impl.h
