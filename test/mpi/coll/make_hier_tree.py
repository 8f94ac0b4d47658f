#!/usr/bin/env python3
"""Print an MPIR Csel tree that is MPICH's generic.json with bcast, reduce, allreduce,
allgather, gather, scatter, barrier, scan, exscan, reduce_scatter, reduce_scatter_block,
allgatherv, alltoall, alltoallv, gatherv and scatterv on parent communicators sent to the
hier algorithms with parameters (used by hier_json, hier_gather -json, hier_scan,
hier_reduce_scatter, hier_allgatherv, hier_alltoall, hier_alltoallv, hier_gatherv and
hier_scatterv -tree-blocking),
or, with `seg`, bcast and reduce sent to segmented trees (used by hier_seg_json), or, with
`route`, only bcast of at most 4 KiB on parent communicators sent to hier (used by
hier_route: every other call must keep the device's selection), or, with `whole`, the
collectives CH4's tree composes but bcast, reduce, allreduce, allgather, barrier and scan
on parent communicators sent to one of MPICH's algorithms marked whole_comm=1 (used by
hier_route -whole: the device must hand them to the MPIR level), or, with `allcomm`,
gatherv, scatterv, igatherv and iscatterv on every communicator, intercomms too, sent to
the hier algorithms (used by MPICH's icgatherv and icscatterv: the plugin runs MPICH's
linear algorithm on an intercomm a tree sends it), or, with `intercomm`, bcast, reduce,
allreduce, alltoall, ibcast and gatherv on every communicator sent to the plugin's
algorithms (used by hier_intercomm: on an intercomm all but the gatherv's refuse), or,
with `sched`, the
non-blocking collectives on parent communicators sent to the hier schedules (used by
hier_nb, hier_nb_gather, hier_scan, hier_reduce_scatter, hier_allgatherv,
hier_alltoall, hier_alltoallv, hier_gatherv and hier_scatterv -tree-sched).

    make_hier_tree.py MPICH/maint/tuning/coll/mpir/generic.json [seg|route|whole|allcomm|intercomm|sched] > tree.json
"""
import json
import sys

HIER = {
    "bcast": {"algorithm=MPIR_Bcast_intra_hier": {
        "segsize=4096": {}, "inter_algo=tsp_kary": {}, "inter_k=3": {}, "intra_algo=binomial": {},
        "up_inter_algo=seg_binary": {}, "up_inter_chunk=2048": {}}},
    "reduce": {"algorithm=MPIR_Reduce_intra_hier": {
        "segsize=4096": {}, "inter_algo=seg_in_order_binary": {}, "inter_chunk=1024": {},
        "intra_algo=binomial": {}, "down_inter_algo=seg_pipeline": {}, "down_inter_chunk=512": {}}},
    "allreduce": {"algorithm=MPIR_Allreduce_intra_hier": {
        "segsize=8192": {}, "inter_algo=sched_binomial": {}, "intra_algo=shm": {},
        "up_inter_algo=tsp_knomial": {}, "up_inter_k=3": {}}},
    "allgather": {"algorithm=MPIR_Allgather_intra_hier": {
        "segsize=700": {}, "inter_algo=ring": {}, "intra_algo=binomial": {}}},
    "gather": {"algorithm=MPIR_Gather_intra_hier": {"inter_algo=linear": {}, "intra_algo=auto": {}}},
    "scatter": {"algorithm=MPIR_Scatter_intra_hier": {"inter_algo=linear": {}}},
    "barrier": {"algorithm=MPIR_Barrier_intra_hier": {"inter_algo=auto": {}, "intra_algo=binomial": {}}},
    "scan": {"algorithm=MPIR_Scan_intra_hier": {"inter_algo=recursive_doubling": {}}},
    "exscan": {"algorithm=MPIR_Exscan_intra_hier": {"inter_algo=recursive_doubling": {}}},
    "reduce_scatter": {"algorithm=MPIR_Reduce_scatter_intra_hier": {"inter_algo=linear": {}}},
    "reduce_scatter_block": {"algorithm=MPIR_Reduce_scatter_block_intra_hier": {"inter_algo=linear": {}}},
    "allgatherv": {"algorithm=MPIR_Allgatherv_intra_hier": {"inter_algo=linear": {}}},
    "alltoall": {"algorithm=MPIR_Alltoall_intra_hier": {"inter_algo=by_size": {}}},
    "alltoallv": {"algorithm=MPIR_Alltoallv_intra_hier": {"inter_algo=linear": {}}},
    "gatherv": {"algorithm=MPIR_Gatherv_intra_hier": {"inter_algo=linear": {}}},
    "scatterv": {"algorithm=MPIR_Scatterv_intra_hier": {"inter_algo=linear": {}}},
}

SEG = {
    "bcast": {"algorithm=MPIR_Bcast_intra_seg_chain": {"segsize=4096": {}, "fanout=3": {}}},
    "reduce": {"algorithm=MPIR_Reduce_intra_seg_binomial": {"segsize=2048": {}}},
}

SCHED = {
    "ibcast": {"algorithm=MPIR_Ibcast_intra_tsp_hier": {}},
    "ireduce": {"algorithm=MPIR_Ireduce_intra_tsp_hier": {}},
    "iallreduce": {"algorithm=MPIR_Iallreduce_intra_tsp_hier": {}},
    "iallgather": {"algorithm=MPIR_Iallgather_intra_tsp_hier": {}},
    "igather": {"algorithm=MPIR_Igather_intra_tsp_hier": {}},
    "iscatter": {"algorithm=MPIR_Iscatter_intra_tsp_hier": {}},
    "ibarrier": {"algorithm=MPIR_Ibarrier_intra_tsp_hier": {}},
    "iscan": {"algorithm=MPIR_Iscan_intra_tsp_hier": {}},
    "iexscan": {"algorithm=MPIR_Iexscan_intra_tsp_hier": {}},
    "ireduce_scatter": {"algorithm=MPIR_Ireduce_scatter_intra_tsp_hier": {}},
    "ireduce_scatter_block": {"algorithm=MPIR_Ireduce_scatter_block_intra_tsp_hier": {}},
    "iallgatherv": {"algorithm=MPIR_Iallgatherv_intra_tsp_hier": {}},
    "ialltoall": {"algorithm=MPIR_Ialltoall_intra_tsp_hier": {}},
    "ialltoallv": {"algorithm=MPIR_Ialltoallv_intra_tsp_hier": {}},
    "igatherv": {"algorithm=MPIR_Igatherv_intra_tsp_hier": {}},
    "iscatterv": {"algorithm=MPIR_Iscatterv_intra_tsp_hier": {}},
}

ROUTE = {
    "bcast": {"avg_msg_size<=4096": {"algorithm=MPIR_Bcast_intra_hier": {}},
              "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
}

WHOLE_COMM = {"whole_comm=1": {}}
WHOLE = {
    "reduce_scatter": {"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": WHOLE_COMM},
    "reduce_scatter_block": {
        "algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling": WHOLE_COMM},
    "allgatherv": {"algorithm=MPIR_Allgatherv_intra_ring": WHOLE_COMM},
    "alltoall": {
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoall_intra_pairwise": WHOLE_COMM},
        "is_sendbuf_inplace=yes": {
            "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": WHOLE_COMM}},
    "alltoallv": {
        "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoallv_intra_scattered": WHOLE_COMM},
        "is_sendbuf_inplace=yes": {
            "algorithm=MPIR_Alltoallv_intra_pairwise_sendrecv_replace": WHOLE_COMM}},
    "gatherv": {"algorithm=MPIR_Gatherv_allcomm_linear": WHOLE_COMM},
    "scatterv": {"algorithm=MPIR_Scatterv_allcomm_linear": WHOLE_COMM},
}

ALLCOMM = {
    "gatherv": {"algorithm=MPIR_Gatherv_intra_hier": {}},
    "scatterv": {"algorithm=MPIR_Scatterv_intra_hier": {}},
    "igatherv": {"algorithm=MPIR_Igatherv_intra_tsp_hier": {}},
    "iscatterv": {"algorithm=MPIR_Iscatterv_intra_tsp_hier": {}},
}

INTERCOMM = {
    "bcast": {"algorithm=MPIR_Bcast_intra_hier": {}},
    "reduce": {"algorithm=MPIR_Reduce_intra_seg_binomial": {}},
    "allreduce": {"algorithm=MPIR_Allreduce_intra_hier": {}},
    "alltoall": {"algorithm=MPIR_Alltoall_intra_hier": {}},
    "ibcast": {"algorithm=MPIR_Ibcast_intra_tsp_hier": {}},
    "gatherv": {"algorithm=MPIR_Gatherv_intra_hier": {}},
}


def main():
    with open(sys.argv[1]) as f:
        tree = json.load(f)
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    if mode in ("allcomm", "intercomm"):
        leaves = ALLCOMM if mode == "allcomm" else INTERCOMM
        tree.update({"collective=" + coll: leaf for coll, leaf in leaves.items()})
        json.dump(tree, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    chosen = {"seg": SEG, "route": ROUTE, "whole": WHOLE, "sched": SCHED}.get(mode, HIER)
    for coll, hier in chosen.items():
        node = tree["collective=" + coll]
        # sibling keys are an if/else-if chain in file order: parent comms first; a
        # collective without comm_type keys (exscan, iscan, iexscan: intra only) is
        # split by comm_hierarchy at its top, one whose stock algorithm serves both
        # kinds of comm (gatherv, scatterv, igatherv, iscatterv: allcomm) under
        # comm_type=intra, its intercomms kept on the stock one (an intercomm may be
        # a parent comm too)
        key = "comm_type=intra" if "comm_type=intra" in node else None
        stock_intra = node[key] if key else dict(node)
        split = {"comm_hierarchy=parent": hier, "comm_hierarchy=any": stock_intra}
        if key:
            node[key] = split
        elif "_allcomm_" in json.dumps(node):
            tree["collective=" + coll] = {"comm_type=intra": split,
                                          "comm_type=inter": dict(node)}
        else:
            tree["collective=" + coll] = split
    json.dump(tree, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
