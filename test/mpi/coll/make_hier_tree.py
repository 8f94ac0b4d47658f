#!/usr/bin/env python3
"""Print an MPIR Csel tree that is MPICH's generic.json with bcast on parent
communicators sent to MPIR_Bcast_intra_hier with parameters (used by hier_json).

    make_hier_tree.py MPICH/maint/tuning/coll/mpir/generic.json > tree.json
"""
import json
import sys

HIER = {"algorithm=MPIR_Bcast_intra_hier": {
    "segsize=4096": {}, "inter_algo=tsp_kary": {}, "inter_k=3": {}, "intra_algo=binomial": {}}}


def main():
    with open(sys.argv[1]) as f:
        tree = json.load(f)
    bcast = tree["collective=bcast"]
    stock_intra = bcast["comm_type=intra"]
    # sibling keys are an if/else-if chain in file order: parent comms first
    bcast["comm_type=intra"] = {"comm_hierarchy=parent": HIER, "comm_hierarchy=any": stock_intra}
    json.dump(tree, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
