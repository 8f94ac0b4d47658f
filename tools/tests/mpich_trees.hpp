// MPICH trees for the tests: the shipped MPIR tree when a build is around, and a small
// stand-in for it with a hier choice to put in.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "hiertune/tree/csel_tree.hpp"

namespace hiertune::test {

// MPICH's shipped MPIR tree: MPICH_GENERIC_JSON, else the usual places of the build
// tree; "" if none.
inline std::string generic_json() {
    if (const char* env = std::getenv("MPICH_GENERIC_JSON")) return env;
    for (const char* path : {"build/mpich-5.0.1/maint/tuning/coll/mpir/generic.json",
                             "../build/mpich-5.0.1/maint/tuning/coll/mpir/generic.json"})
        if (std::filesystem::exists(path)) return path;
    return "";
}

// MPICH's shipped CH4 tree, beside the MPIR one; "" if none.
inline std::string generic_ch4_json() {
    const std::string ch4 = csel::ch4_generic_beside(generic_json());
    return !ch4.empty() && std::filesystem::exists(ch4) ? ch4 : "";
}

// A small stand-in for MPICH's generic.json: three collectives, stock chains.
inline csel::Json small_stock() {
    return csel::Json::parse(R"({
      "collective=bcast": {
        "comm_type=intra": {
          "comm_size<8": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
          "comm_size=any": {
            "avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
            "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}},
        "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
      "collective=allreduce": {
        "comm_type=intra": {"avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}},
        "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}},
      "collective=barrier": {
        "comm_type=intra": {"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}}},
        "comm_type=inter": {"algorithm=MPIR_Barrier_inter_bcast": {}}}
    })");
}

// The hier bcast with a segment size, as a tuner would choose it.
inline csel::Choice hier_bcast(const std::string& segsize) {
    return csel::Choice::container("MPIR_Bcast_intra_hier", {{"segsize", segsize}, {"inter_algo", "tsp_kary"}});
}

// bcast tuned on 8 and 16 ranks at ppn 2 and 4: hier from 64 KiB (16 KiB segments,
// 128 KiB from 1 MiB), except 8 ranks at ppn 4, which stays stock.
inline csel::TreeInput tuned_bcast_input() {
    csel::TreeInput input;
    auto& points = input.choices["bcast"];
    for (int comm_size : {8, 16})
        for (int ppn : {2, 4})
            for (std::uint64_t bytes : {1024u, 4096u, 65536u, 1048576u}) {
                csel::Choice choice = csel::Choice::stock_tree();
                if (bytes >= 65536 && !(comm_size == 8 && ppn == 4))
                    choice = hier_bcast(bytes >= 1048576 ? "131072" : "16384");
                points.push_back({comm_size, ppn, bytes, choice});
            }
    return input;
}

}  // namespace hiertune::test
