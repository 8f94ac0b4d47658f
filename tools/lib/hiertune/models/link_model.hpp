// A model of the links for messages sent eagerly: how the transfers of a
// collective share the per-node links when each send completes at once at the
// sender (issue 17; the rules are what bench/link-probe.sh measured on the
// emulated cluster, doc/measurements/analytic-models.md, "The link probe").  No MPI.
//
// Every rank has one outgoing and one incoming link of the same speed, full
// duplex.  A transfer of b bytes is w = alpha + beta * b of link time.
//  - Outgoing: a rank's transfers leave one after the other, in the order they
//    become ready (ties: their order in the list), each at the link's full speed:
//    an eager send is written out whole before the next one.
//  - Incoming: the bytes of the transfers arriving at a rank at once queue in
//    front of its link in the order they arrive (FIFO), which drains at full speed;
//    a transfer has arrived when its last byte has drained.  With k transfers
//    leaving for one rank at once, the queue fills at k and drains at 1.
//  - A transfer is ready when the transfer it waits for (`after`) has arrived at
//    its sender, at once without one.
// All times are linear forms in alpha and beta (`Cost`); where two times are
// compared (which transfer leaves first, whether a queue has drained), they are
// compared at `reference`, as the other models choose their critical paths.
#pragma once

#include <vector>

#include "hiertune/models/analytic_fit.hpp"

namespace hiertune::analytic {

struct LinkTransfer {
    int src = 0;
    int dst = 0;
    double bytes = 0;
    int after = -1;  // index of the transfer that must have arrived at src first; -1: none
};

// When the last transfer has arrived (0 for none).  Throws std::invalid_argument for
// ranks outside [0, ranks), src == dst, negative bytes, an `after` that is not an
// earlier transfer into src.
Cost link_time(const std::vector<LinkTransfer>& transfers, int ranks, const Line& reference);

}  // namespace hiertune::analytic
