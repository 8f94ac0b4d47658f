#include "hiertune/models/link_model.hpp"

#include <deque>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace hiertune::analytic {

namespace {

Cost minus(const Cost& x, const Cost& y) { return Cost{x.a - y.a, x.b - y.b}; }
Cost times(double k, const Cost& x) { return Cost{k * x.a, k * x.b}; }

// The FIFO queue in front of a rank's incoming link: `arriving` transfers fill it at
// full speed each, the link drains it at full speed.
struct Inbound {
    Cost updated;  // the time `backlog` holds at
    Cost backlog;  // link time queued
    int arriving = 0;
};

}  // namespace

Cost link_time(const std::vector<LinkTransfer>& plan, int ranks, const Line& reference) {
    const int n = static_cast<int>(plan.size());
    std::vector<std::vector<int>> waiting(n);  // transfers ready once transfer i has arrived
    for (int i = 0; i < n; ++i) {
        const LinkTransfer& t = plan[i];
        if (t.src < 0 || t.src >= ranks || t.dst < 0 || t.dst >= ranks || t.src == t.dst || t.bytes < 0)
            throw std::invalid_argument("link model: transfer " + std::to_string(i) + " is not between two ranks");
        if (t.after >= 0 && (t.after >= i || plan[t.after].dst != t.src))
            throw std::invalid_argument("link model: transfer " + std::to_string(i) +
                                        " waits for no earlier transfer into its sender");
        if (t.after >= 0) waiting[t.after].push_back(i);
    }
    const double eps = 1e-12 * (reference.alpha + reference.beta);  // ties at `reference`

    // Events by time at `reference`, then by the order they were made (stable).
    enum Kind { kLeaves, kArrives };
    struct Event {
        double at;
        long order;
        Kind kind;
        int transfer;
        Cost time;
    };
    const auto later_first = [](const Event& x, const Event& y) {
        return std::tie(x.at, x.order) > std::tie(y.at, y.order);
    };
    std::priority_queue<Event, std::vector<Event>, decltype(later_first)> events(later_first);
    long made = 0;
    const auto schedule = [&](Kind kind, int transfer, const Cost& time) {
        events.push(Event{time.seconds(reference), made++, kind, transfer, time});
    };

    std::vector<std::deque<int>> ready(ranks);  // per sender, in the order they became ready
    std::vector<char> sending(ranks, 0);
    std::vector<Inbound> inbound(ranks);
    const auto drain_to = [&](Inbound& in, const Cost& now) {
        const Cost elapsed = minus(now, in.updated);
        if (in.arriving > 0)
            in.backlog += times(in.arriving - 1, elapsed);
        else if (in.backlog.seconds(reference) > elapsed.seconds(reference) + eps)
            in.backlog = minus(in.backlog, elapsed);
        else
            in.backlog = Cost{};
        in.updated = now;
    };
    const auto start_next = [&](int rank, const Cost& now) {
        if (sending[rank] || ready[rank].empty()) return;
        const int i = ready[rank].front();
        ready[rank].pop_front();
        sending[rank] = 1;
        Inbound& in = inbound[plan[i].dst];
        drain_to(in, now);
        ++in.arriving;
        schedule(kLeaves, i, now + transfers(1, plan[i].bytes));
    };

    for (int i = 0; i < n; ++i)
        if (plan[i].after < 0) ready[plan[i].src].push_back(i);
    for (int rank = 0; rank < ranks; ++rank) start_next(rank, Cost{});

    Cost last;
    while (!events.empty()) {
        const Event e = events.top();
        events.pop();
        const LinkTransfer& t = plan[e.transfer];
        if (e.kind == kLeaves) {  // its last byte has left: queued behind what came before
            Inbound& in = inbound[t.dst];
            drain_to(in, e.time);
            --in.arriving;
            schedule(kArrives, e.transfer, e.time + in.backlog);
            sending[t.src] = 0;
            start_next(t.src, e.time);
        } else {
            if (e.time.seconds(reference) > last.seconds(reference)) last = e.time;
            for (int next : waiting[e.transfer]) ready[t.dst].push_back(next);
            start_next(t.dst, e.time);
        }
    }
    return last;
}

}  // namespace hiertune::analytic
