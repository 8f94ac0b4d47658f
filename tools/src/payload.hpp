// The message buffers, calls and data check of bench's -c and of verify: one call of a
// collective (a non-blocking one started and waited for at once) with data that fails
// the check when it moves nothing, stale or misplaced bytes.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "hiertune/common/sizes.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/tree/collective.hpp"
#include "hiertune/tune/sweep.hpp"

namespace hiertune {

// Message buffers and the data check.  Reductions (reduce, allreduce, scan, exscan,
// reduce_scatter, reduce_scatter_block) use MPI_UNSIGNED_CHAR with MPI_SUM (any byte
// count is valid; the sum mod 256 is exact), the others MPI_BYTE; root 0.  `bytes` is
// the message of bcast and of reduce, allreduce, scan and exscan (every rank's
// contribution and result), and each rank's block of allgather, allgatherv, gather,
// scatter and the reduce-scatters, whose root (allgather, allgatherv, the reduce-scatters:
// every rank) holds one block per rank: a reduce-scatter sends that vector and receives
// its own block of the vectors' sum (MPI_Reduce_scatter: equal recvcounts, the block);
// allgatherv's recvcounts are equal (the block) and its displacements in reversed rank
// order (allgatherv_layout), so that a call that ignores them puts blocks in the wrong
// place; alltoall's is the block each rank sends to each rank (its sendcount and
// recvcount): every rank sends one block per rank and receives one from each, size x
// bytes each way, each block its sender's and its receiver's (pair_byte); alltoallv's
// too, with every count the block and the blocks received at allgatherv's reversed
// displacements (alltoallv_layout); gatherv's and scatterv's is the mean of the uneven
// blocks (uneven_block) the ranks send to or receive from the root, which holds them in
// reversed rank order (uneven_layout); barrier moves nothing.  A non-blocking form
// (ibcast, ...) has its blocking form's buffers and data.  Every point resolves its
// collective's name to a Call once (call_of).
class Payload {
public:
    // A collective's call, resolved from its name once per point (not in the timed
    // window): its kind, and whether it is started and waited for at once.
    using Call = grammar::Collective;
    using Op = grammar::Collective::Kind;
    // Throws std::logic_error for a name that is not one of supported_collectives().
    static Call call_of(const std::string& name) { return grammar::Collective::parse(name); }

    // MPI_Allgatherv's arguments for blocks of `count` bytes on counts.size() ranks (bench's,
    // verify's and overlap's): equal recvcounts and displacements in reversed rank order,
    // rank r's block at allgatherv_place(r) x count, so that a call that ignores them puts
    // the blocks in the wrong place.  displs has counts.size() elements.
    static int allgatherv_place(int r, int size) { return size - 1 - r; }
    static void allgatherv_layout(int count, std::vector<int>& counts, std::vector<int>& displs) {
        const int size = static_cast<int>(counts.size());
        for (int r = 0; r < size; ++r) {
            counts[static_cast<std::size_t>(r)] = count;
            displs[static_cast<std::size_t>(r)] = allgatherv_place(r, size) * count;
        }
    }
    // MPI_Alltoallv's arguments for blocks of `count` bytes on counts.size() ranks (bench's,
    // verify's and overlap's): every sendcount and recvcount the block (one array serves
    // both), the blocks sent in rank order (sdispls[r] = r x count) and received at
    // allgatherv_layout's reversed displacements (rdispls), so that a call that ignores
    // rdispls puts the blocks in the wrong place.  sdispls and rdispls have counts.size()
    // elements.
    static void alltoallv_layout(int count, std::vector<int>& counts, std::vector<int>& sdispls,
                                 std::vector<int>& rdispls) {
        allgatherv_layout(count, counts, rdispls);
        for (std::size_t r = 0; r < sdispls.size(); ++r) sdispls[r] = static_cast<int>(r) * count;
    }
    // MPI_Gatherv's recvcounts and displs, MPI_Scatterv's sendcounts and displs, for `bytes`
    // per rank on counts.size() ranks (bench's, verify's and overlap's): rank r's block
    // uneven_block(r, ...) bytes, the blocks in reversed rank order (rank size - 1's at 0),
    // so that a call that takes every count alike or ignores displs misplaces blocks.
    // displs has counts.size() elements.
    static void uneven_layout(std::size_t bytes, std::vector<int>& counts, std::vector<int>& displs) {
        const int size = static_cast<int>(counts.size());
        std::size_t offset = 0;  // size x bytes at the end, which may exceed an int
        for (int r = size - 1; r >= 0; --r) {
            const auto at = static_cast<std::size_t>(r);
            counts[at] = static_cast<int>(uneven_block(r, size, bytes));
            displs[at] = static_cast<int>(offset);
            offset += static_cast<std::size_t>(counts[at]);
        }
    }
    // The collectives of uneven_layout: a root and blocks of different sizes.
    static bool has_uneven_blocks(Op op) { return op == Op::gatherv || op == Op::scatterv; }
    // The collectives called with displacements (allgatherv_layout, alltoallv_layout,
    // uneven_layout), which check_displacements bounds (the uneven ones' largest, rank
    // 0's, is size x bytes less its block, which exceeds bytes).
    static bool has_displacements(Op op) {
        return op == Op::allgatherv || op == Op::alltoallv || has_uneven_blocks(op);
    }
    // The collectives that send every rank a block of its own (size blocks out and in).
    static bool sends_each_rank_a_block(Op op) { return op == Op::alltoall || op == Op::alltoallv; }
    // Throws std::runtime_error where a displacement of those layouts on `size` ranks with
    // blocks of `bytes` exceeds MPI's int (rank 0's block lies size - 1 blocks in).
    static void check_displacements(const std::string& collective, std::uint64_t bytes, int size) {
        if (static_cast<double>(size - 1) * static_cast<double>(bytes) <= INT_MAX) return;
        throw std::runtime_error(collective + " at " + std::to_string(bytes) + " B blocks on " +
                                 std::to_string(size) + " ranks: a displacement, (ranks - 1) x the size, exceeds " +
                                 "MPI's int");
    }

    // Buffers large enough for every point of `points` (those to measure),
    // allocated once, before any timing: the comm-size blocks only where a
    // collective planned needs them.  Throws std::runtime_error if they do not fit.
    Payload(const std::vector<PointKey>& points, int rank, int size)
        : counts_(static_cast<std::size_t>(std::max(size, 1)), 0),
          displs_(static_cast<std::size_t>(std::max(size, 1)), -1),
          sdispls_(static_cast<std::size_t>(std::max(size, 1)), -1),
          uneven_counts_(static_cast<std::size_t>(std::max(size, 1)), 0),
          uneven_displs_(static_cast<std::size_t>(std::max(size, 1)), 0),
          rank_(rank),
          size_(size) {
        std::size_t send = 1, recv = 1;  // never empty, so data() is a buffer even at size 0
        for (const PointKey& key : points) {
            const Op op = call_of(key.collective).kind();
            if (has_displacements(op)) check_displacements(key.collective, key.msg_bytes, size);
            const Extent extent = buffer_extent(op, static_cast<std::size_t>(key.msg_bytes));
            send = std::max(send, extent.send);
            recv = std::max(recv, extent.recv);
        }
        try {
            send_.assign(send, static_cast<unsigned char>(rank));
            recv_.assign(recv, 0);
        } catch (const std::bad_alloc&) {
            throw std::runtime_error("rank " + std::to_string(rank) + " cannot allocate " +
                                     std::to_string(send + recv) + " bytes of message buffers");
        }
    }

    // Fills the buffers for repetition `rep` so that a collective that does
    // nothing, or moves stale or misplaced data, fails check(): senders hold
    // this repetition's values, receivers their complement.
    void prepare(Call call, std::size_t bytes, std::size_t rep) {
        const Op op = call.kind();
        if (has_uneven_blocks(op)) {
            prepare_uneven(op, bytes, rep);
            return;
        }
        if (op == Op::bcast) {
            for (std::size_t i = 0; i < bytes; ++i)
                send_[i] = rank_ == 0 ? expected_bcast(i, rep) : static_cast<unsigned char>(~expected_bcast(i, rep));
            return;
        }
        if (is_reduction(op)) {
            const std::size_t summed = summed_ranks(op);
            for (std::size_t i = 0; i < bytes; ++i) {
                send_[i] = contribution(i, rep, rank_);
                recv_[i] = static_cast<unsigned char>(~expected_sum(i, rep, summed));
            }
            return;
        }
        if (is_reduce_scatter(op)) {
            for (int b = 0; b < size_; ++b) {
                unsigned char* vector_block = block(send_, b, bytes);
                for (std::size_t i = 0; i < bytes; ++i) vector_block[i] = vector_byte(i, rep, rank_, b);
            }
            for (std::size_t i = 0; i < bytes; ++i)
                recv_[i] = static_cast<unsigned char>(~expected_block_sum(i, rep, rank_));
            return;
        }
        if (sends_each_rank_a_block(op)) {
            for (int r = 0; r < size_; ++r) {
                fill_pair_block(block(send_, r, bytes), bytes, rep, rank_, r, false);
                fill_pair_block(placed_block(op, r, bytes), bytes, rep, r, rank_, true);
            }
            return;
        }
        const bool root = rank_ == 0;
        if (op == Op::allgather || op == Op::allgatherv || op == Op::gather) {
            fill_block(send_.data(), bytes, rep, rank_, false);
            if (op != Op::gather || root)
                for (int r = 0; r < size_; ++r) fill_block(placed_block(op, r, bytes), bytes, rep, r, true);
        } else if (op == Op::scatter) {
            if (root)
                for (int r = 0; r < size_; ++r) fill_block(block(send_, r, bytes), bytes, rep, r, false);
            fill_block(recv_.data(), bytes, rep, rank_, true);
        }
        // barrier: no data
    }

    // True if this rank holds the right result of repetition `rep`.
    bool check(Call call, std::size_t bytes, std::size_t rep) const {
        const Op op = call.kind();
        if (has_uneven_blocks(op)) return check_uneven(op, bytes, rep);
        if (op == Op::bcast) {
            for (std::size_t i = 0; i < bytes; ++i)
                if (send_[i] != expected_bcast(i, rep)) return false;
            return true;
        }
        if (is_reduction(op)) {
            const std::size_t summed = summed_ranks(op);
            if (summed == 0) return true;  // no result here: reduce off the root, exscan on rank 0
            for (std::size_t i = 0; i < bytes; ++i)
                if (recv_[i] != expected_sum(i, rep, summed)) return false;
            return true;
        }
        if (is_reduce_scatter(op)) {
            for (std::size_t i = 0; i < bytes; ++i)
                if (recv_[i] != expected_block_sum(i, rep, rank_)) return false;
            return true;
        }
        if (op == Op::allgather || op == Op::allgatherv || (op == Op::gather && rank_ == 0)) {
            for (int r = 0; r < size_; ++r)
                if (!block_holds(placed_block(op, r, bytes), bytes, rep, r)) return false;
            return true;
        }
        if (sends_each_rank_a_block(op)) {
            for (int r = 0; r < size_; ++r)
                for (std::size_t i = 0; i < bytes; ++i)
                    if (placed_block(op, r, bytes)[i] != pair_byte(i, rep, r, rank_)) return false;
            return true;
        }
        if (op == Op::scatter) return block_holds(recv_.data(), bytes, rep, rank_);
        return true;  // gather off the root, barrier: nothing received
    }

    // A non-blocking collective is started and waited for at once.
    int run(Call call, std::size_t bytes, MPI_Comm comm) {
        if (!call.nonblocking()) return run_blocking(call.kind(), bytes, comm);
        MPI_Request request = MPI_REQUEST_NULL;
        const int rc = start(call.kind(), bytes, comm, &request);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&request, MPI_STATUS_IGNORE);
    }

private:
    // tools/tests/test_commands.cpp: moves the data between ranks' payloads as MPI would
    friend struct PayloadTestAccess;

    int run_blocking(Op op, std::size_t bytes, MPI_Comm comm) {
        const int count = static_cast<int>(bytes);
        unsigned char* send = send_.data();
        unsigned char* recv = recv_.data();
        switch (op) {
            case Op::bcast: return MPI_Bcast(send, count, MPI_BYTE, 0, comm);
            case Op::reduce: return MPI_Reduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm);
            case Op::allreduce: return MPI_Allreduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm);
            case Op::allgather: return MPI_Allgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, comm);
            case Op::allgatherv:
                return MPI_Allgatherv(send, count, MPI_BYTE, recv, recvcounts(count), displacements(count), MPI_BYTE,
                                      comm);
            case Op::gather: return MPI_Gather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, comm);
            case Op::scatter: return MPI_Scatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, comm);
            case Op::barrier: return MPI_Barrier(comm);
            case Op::scan: return MPI_Scan(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm);
            case Op::exscan: return MPI_Exscan(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm);
            case Op::reduce_scatter:
                return MPI_Reduce_scatter(send, recv, recvcounts(count), MPI_UNSIGNED_CHAR, MPI_SUM, comm);
            case Op::reduce_scatter_block:
                return MPI_Reduce_scatter_block(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm);
            case Op::alltoall: return MPI_Alltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, comm);
            case Op::alltoallv:
                return MPI_Alltoallv(send, recvcounts(count), send_displacements(count), MPI_BYTE, recv,
                                     recvcounts(count), displacements(count), MPI_BYTE, comm);
            case Op::gatherv:
                lay_out_uneven(bytes);
                return MPI_Gatherv(send, own_uneven_count(), MPI_BYTE, recv, uneven_counts_.data(),
                                   uneven_displs_.data(), MPI_BYTE, 0, comm);
            case Op::scatterv:
                lay_out_uneven(bytes);
                return MPI_Scatterv(send, uneven_counts_.data(), uneven_displs_.data(), MPI_BYTE, recv,
                                    own_uneven_count(), MPI_BYTE, 0, comm);
        }
        return MPI_ERR_OTHER;
    }

    int start(Op op, std::size_t bytes, MPI_Comm comm, MPI_Request* request) {
        const int count = static_cast<int>(bytes);
        unsigned char* send = send_.data();
        unsigned char* recv = recv_.data();
        switch (op) {
            case Op::bcast: return MPI_Ibcast(send, count, MPI_BYTE, 0, comm, request);
            case Op::reduce: return MPI_Ireduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm, request);
            case Op::allreduce:
                return MPI_Iallreduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
            case Op::allgather: return MPI_Iallgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, comm, request);
            case Op::allgatherv:
                return MPI_Iallgatherv(send, count, MPI_BYTE, recv, recvcounts(count), displacements(count), MPI_BYTE,
                                       comm, request);
            case Op::gather: return MPI_Igather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, comm, request);
            case Op::scatter: return MPI_Iscatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, comm, request);
            case Op::barrier: return MPI_Ibarrier(comm, request);
            case Op::scan: return MPI_Iscan(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
            case Op::exscan: return MPI_Iexscan(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
            case Op::reduce_scatter:
                return MPI_Ireduce_scatter(send, recv, recvcounts(count), MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
            case Op::reduce_scatter_block:
                return MPI_Ireduce_scatter_block(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
            case Op::alltoall: return MPI_Ialltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, comm, request);
            case Op::alltoallv:
                return MPI_Ialltoallv(send, recvcounts(count), send_displacements(count), MPI_BYTE, recv,
                                      recvcounts(count), displacements(count), MPI_BYTE, comm, request);
            case Op::gatherv:
                lay_out_uneven(bytes);
                return MPI_Igatherv(send, own_uneven_count(), MPI_BYTE, recv, uneven_counts_.data(),
                                    uneven_displs_.data(), MPI_BYTE, 0, comm, request);
            case Op::scatterv:
                lay_out_uneven(bytes);
                return MPI_Iscatterv(send, uneven_counts_.data(), uneven_displs_.data(), MPI_BYTE, recv,
                                     own_uneven_count(), MPI_BYTE, 0, comm, request);
        }
        return MPI_ERR_OTHER;
    }

    // Bytes of this rank's send and receive buffers for one call.
    struct Extent {
        std::size_t send;
        std::size_t recv;
    };
    Extent buffer_extent(Op op, std::size_t bytes) const {
        const std::size_t all_blocks = bytes * static_cast<std::size_t>(size_);
        const bool root = rank_ == 0;
        switch (op) {
            case Op::bcast: return {bytes, 0};
            case Op::allgather:
            case Op::allgatherv: return {bytes, all_blocks};
            case Op::gather: return {bytes, root ? all_blocks : 0};
            case Op::scatter: return {root ? all_blocks : 0, bytes};
            // the blocks add up to all_blocks; rank 0's is the largest
            case Op::gatherv: return {uneven_block(0, size_, bytes), root ? all_blocks : 0};
            case Op::scatterv: return {root ? all_blocks : 0, uneven_block(0, size_, bytes)};
            case Op::reduce_scatter:
            case Op::reduce_scatter_block: return {all_blocks, bytes};
            case Op::alltoall:
            case Op::alltoallv: return {all_blocks, all_blocks};
            case Op::barrier: return {0, 0};
            case Op::reduce:
            case Op::allreduce:
            case Op::scan:
            case Op::exscan: break;
        }
        return {bytes, bytes};
    }

    // The collectives that combine every rank's `bytes` with MPI_SUM.
    static bool is_reduction(Op op) {
        return op == Op::reduce || op == Op::allreduce || op == Op::scan || op == Op::exscan;
    }
    // The collectives that sum every rank's vector of one block per rank and leave each
    // rank its own block of the sum.
    static bool is_reduce_scatter(Op op) { return op == Op::reduce_scatter || op == Op::reduce_scatter_block; }
    // MPI_Reduce_scatter's and MPI_Allgatherv's recvcounts, MPI_Alltoallv's sendcounts and
    // recvcounts: `count` (the block) for every rank; the array stays as it is until the
    // next call, past a non-blocking call's completion.
    const int* recvcounts(int count) {
        if (counts_.front() != count) std::fill(counts_.begin(), counts_.end(), count);
        return counts_.data();
    }
    // Which block of the receive buffer rank r's block goes to: its own (rank order), for
    // allgatherv and alltoallv its place in allgatherv_layout.
    int place(Op op, int r) const { return has_displacements(op) ? allgatherv_place(r, size_) : r; }
    // MPI_Allgatherv's displs and MPI_Alltoallv's rdispls for blocks of `count`
    // (allgatherv_layout); kept as recvcounts() keeps its array.
    const int* displacements(int count) {
        if (displs_.front() != allgatherv_place(0, size_) * count || counts_.front() != count)
            allgatherv_layout(count, counts_, displs_);
        return displs_.data();
    }
    // MPI_Alltoallv's sdispls for blocks of `count` (alltoallv_layout: rank order), kept
    // alike; the last is (size - 1) x count.
    const int* send_displacements(int count) {
        if (sdispls_.back() != (size_ - 1) * count) alltoallv_layout(count, counts_, sdispls_, displs_);
        return sdispls_.data();
    }
    // uneven_layout's arrays for `bytes` per rank, made again only when the size changes
    // (not in the timed window of a point) and kept past a non-blocking call's completion.
    void lay_out_uneven(std::size_t bytes) {
        if (uneven_bytes_ == bytes) return;
        uneven_layout(bytes, uneven_counts_, uneven_displs_);
        uneven_bytes_ = bytes;
    }
    // This rank's uneven block: its sendcount (gatherv) or recvcount (scatterv).
    int own_uneven_count() const { return uneven_counts_[static_cast<std::size_t>(rank_)]; }
    // Where rank r's uneven block lies in the root's buffer of all of them (recv_ for
    // gatherv, send_ for scatterv), and its bytes.
    std::size_t uneven_offset(int r) const {
        return static_cast<std::size_t>(uneven_displs_[static_cast<std::size_t>(r)]);
    }
    std::size_t uneven_count(int r) const {
        return static_cast<std::size_t>(uneven_counts_[static_cast<std::size_t>(r)]);
    }
    // gatherv: every rank's block out, the root's buffer of them their complement;
    // scatterv: the root's buffer of every block out, each rank's block in its complement.
    void prepare_uneven(Op op, std::size_t bytes, std::size_t rep) {
        lay_out_uneven(bytes);
        const bool gatherv = op == Op::gatherv;
        if (gatherv)
            fill_block(send_.data(), uneven_count(rank_), rep, rank_, false);
        else
            fill_block(recv_.data(), uneven_count(rank_), rep, rank_, true);
        if (rank_ != 0) return;
        std::vector<unsigned char>& all = gatherv ? recv_ : send_;
        for (int r = 0; r < size_; ++r) fill_block(all.data() + uneven_offset(r), uneven_count(r), rep, r, gatherv);
    }
    // gatherv: every block at its displacement at the root (nothing received elsewhere);
    // scatterv: this rank's block.  False for a size prepare_uneven did not lay out.
    bool check_uneven(Op op, std::size_t bytes, std::size_t rep) const {
        if (uneven_bytes_ != bytes) return false;
        if (op == Op::scatterv) return block_holds(recv_.data(), uneven_count(rank_), rep, rank_);
        if (rank_ != 0) return true;
        for (int r = 0; r < size_; ++r)
            if (!block_holds(recv_.data() + uneven_offset(r), uneven_count(r), rep, r)) return false;
        return true;
    }
    unsigned char* placed_block(Op op, int r, std::size_t bytes) { return block(recv_, place(op, r), bytes); }
    const unsigned char* placed_block(Op op, int r, std::size_t bytes) const {
        return block(recv_, place(op, r), bytes);
    }
    // How many ranks, from rank 0 on, this rank's result of a reduction sums: all of
    // them (allreduce; reduce at the root), those up to this one (scan) or before it
    // (exscan); 0 where it gets no result (reduce off the root; exscan on rank 0, whose
    // receive buffer MPI leaves undefined).
    std::size_t summed_ranks(Op op) const {
        const auto rank = static_cast<std::size_t>(rank_);
        switch (op) {
            case Op::reduce: return rank == 0 ? static_cast<std::size_t>(size_) : 0;
            case Op::scan: return rank + 1;
            case Op::exscan: return rank;
            default: return static_cast<std::size_t>(size_);
        }
    }

    static unsigned char* block(std::vector<unsigned char>& buffer, int rank, std::size_t bytes) {
        return buffer.data() + static_cast<std::size_t>(rank) * bytes;
    }
    static const unsigned char* block(const std::vector<unsigned char>& buffer, int rank, std::size_t bytes) {
        return buffer.data() + static_cast<std::size_t>(rank) * bytes;
    }
    // Rank `rank`'s block of repetition `rep`, or its complement (what a
    // receiver starts from).
    static void fill_block(unsigned char* data, std::size_t bytes, std::size_t rep, int rank, bool complement) {
        for (std::size_t i = 0; i < bytes; ++i)
            data[i] = complement ? static_cast<unsigned char>(~block_byte(i, rep, rank)) : block_byte(i, rep, rank);
    }
    static bool block_holds(const unsigned char* data, std::size_t bytes, std::size_t rep, int rank) {
        for (std::size_t i = 0; i < bytes; ++i)
            if (data[i] != block_byte(i, rep, rank)) return false;
        return true;
    }
    // The block rank `from` sends rank `to` (alltoall) in repetition `rep`, or its complement.
    static void fill_pair_block(unsigned char* data, std::size_t bytes, std::size_t rep, int from, int to,
                                bool complement) {
        for (std::size_t i = 0; i < bytes; ++i) {
            const unsigned char byte = pair_byte(i, rep, from, to);
            data[i] = complement ? static_cast<unsigned char>(~byte) : byte;
        }
    }

    static unsigned char expected_bcast(std::size_t i, std::size_t rep) {
        return static_cast<unsigned char>(i * 31 + rep * 7 + 1);
    }
    static unsigned char contribution(std::size_t i, std::size_t rep, int rank) {
        return static_cast<unsigned char>(i * 31 + rep * 7 + static_cast<std::size_t>(rank) * 13);
    }
    // Byte i of the sum of ranks 0 .. n-1's contributions (mod 256, as MPI_SUM on
    // MPI_UNSIGNED_CHAR).
    static unsigned char expected_sum(std::size_t i, std::size_t rep, std::size_t n) {
        return static_cast<unsigned char>(n * (i * 31 + rep * 7) + 13 * (n * (n - 1) / 2));
    }
    // Byte i of block b of rank `rank`'s vector (the reduce-scatters): its contribution,
    // and on the block's own rank b the block's mark (block_byte), so that the blocks'
    // sums differ from each other as the marks do and a block summed into the wrong
    // rank fails the check.
    static unsigned char vector_byte(std::size_t i, std::size_t rep, int rank, int b) {
        return static_cast<unsigned char>(contribution(i, rep, rank) + (rank == b ? block_byte(i, rep, b) : 0));
    }
    // Byte i of block b of the vectors' sum over all ranks: the contributions' sum and b's mark.
    unsigned char expected_block_sum(std::size_t i, std::size_t rep, int b) const {
        const auto n = static_cast<std::size_t>(size_);
        return static_cast<unsigned char>(expected_sum(i, rep, n) + block_byte(i, rep, b));
    }
    // Byte i of the block rank `from` sends rank `to` (alltoall): from's block_byte, twice
    // to's and i x to (which tells apart beyond the first byte the blocks for two ranks 128
    // apart), so that a block from another rank, for another rank or the transposed one
    // (to's block to from) fails the check wherever two ranks' blocks of block_byte differ.
    static unsigned char pair_byte(std::size_t i, std::size_t rep, int from, int to) {
        return static_cast<unsigned char>(block_byte(i, rep, from) + 2 * block_byte(i, rep, to) +
                                          i * static_cast<std::size_t>(to));
    }
    // Byte i of rank `rank`'s block in repetition `rep`: each byte differs from
    // the previous repetition's, and the blocks of any two of the first 32768
    // ranks differ (in the first byte among 256 ranks, beyond that in the step
    // from byte to byte), so a stale or misplaced block fails the check.
    static unsigned char block_byte(std::size_t i, std::size_t rep, int rank) {
        const auto r = static_cast<std::size_t>(rank);
        return static_cast<unsigned char>(r * 13 + rep * 7 + 1 + i * (31 + 2 * (r / 256 % 128)));
    }

    std::vector<unsigned char> send_;
    std::vector<unsigned char> recv_;
    std::vector<int> counts_;   // recvcounts()
    std::vector<int> displs_;   // displacements()
    std::vector<int> sdispls_;  // send_displacements()
    std::vector<int> uneven_counts_;  // lay_out_uneven()
    std::vector<int> uneven_displs_;
    std::size_t uneven_bytes_ = SIZE_MAX;  // the size they were laid out for; none yet
    int rank_;
    int size_;
};

}  // namespace hiertune
