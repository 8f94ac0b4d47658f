// The message buffers, calls and data check of bench's -c and of verify: one call of a
// collective (a non-blocking one started and waited for at once) with data that fails
// the check when it moves nothing, stale or misplaced bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include "hiertune/measure_db.hpp"
#include "hiertune/sweep.hpp"

namespace hiertune {

// Message buffers and the data check.  Reductions use MPI_UNSIGNED_CHAR with
// MPI_SUM (any byte count is valid; the sum mod 256 is exact), the others
// MPI_BYTE; root 0.  `bytes` is the message of bcast, reduce and allreduce, and
// each rank's block of allgather, gather and scatter, whose root (allgather:
// every rank) holds one block per rank; barrier moves nothing.  A non-blocking
// form (ibcast, ...) has its blocking form's buffers and data (blocking_form).
class Payload {
public:
    // Buffers large enough for every point of `points` (those to measure),
    // allocated once, before any timing: the comm-size blocks only where a
    // collective planned needs them.  Throws std::runtime_error if they do not fit.
    Payload(const std::vector<PointKey>& points, int rank, int size) : rank_(rank), size_(size) {
        std::size_t send = 1, recv = 1;  // never empty, so data() is a buffer even at size 0
        for (const PointKey& key : points) {
            const Extent extent = buffer_extent(key.collective, static_cast<std::size_t>(key.msg_bytes));
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
    void prepare(const std::string& name, std::size_t bytes, std::size_t rep) {
        const std::string collective = blocking_form(name);
        if (collective == "bcast") {
            for (std::size_t i = 0; i < bytes; ++i)
                send_[i] = rank_ == 0 ? expected_bcast(i, rep) : static_cast<unsigned char>(~expected_bcast(i, rep));
            return;
        }
        if (collective == "reduce" || collective == "allreduce") {
            for (std::size_t i = 0; i < bytes; ++i) {
                send_[i] = contribution(i, rep, rank_);
                recv_[i] = static_cast<unsigned char>(~expected_sum(i, rep));
            }
            return;
        }
        const bool root = rank_ == 0;
        if (collective == "allgather" || collective == "gather") {
            fill_block(send_.data(), bytes, rep, rank_, false);
            if (collective == "allgather" || root)
                for (int r = 0; r < size_; ++r) fill_block(block(recv_, r, bytes), bytes, rep, r, true);
        } else if (collective == "scatter") {
            if (root)
                for (int r = 0; r < size_; ++r) fill_block(block(send_, r, bytes), bytes, rep, r, false);
            fill_block(recv_.data(), bytes, rep, rank_, true);
        }
        // barrier: no data
    }

    // True if this rank holds the right result of repetition `rep`.
    bool check(const std::string& name, std::size_t bytes, std::size_t rep) const {
        const std::string collective = blocking_form(name);
        if (collective == "bcast") {
            for (std::size_t i = 0; i < bytes; ++i)
                if (send_[i] != expected_bcast(i, rep)) return false;
            return true;
        }
        if (collective == "reduce" || collective == "allreduce") {
            if (collective == "reduce" && rank_ != 0) return true;  // only the root has a result
            for (std::size_t i = 0; i < bytes; ++i)
                if (recv_[i] != expected_sum(i, rep)) return false;
            return true;
        }
        if (collective == "allgather" || (collective == "gather" && rank_ == 0)) {
            for (int r = 0; r < size_; ++r)
                if (!block_holds(block(recv_, r, bytes), bytes, rep, r)) return false;
            return true;
        }
        if (collective == "scatter") return block_holds(recv_.data(), bytes, rep, rank_);
        return true;  // gather off the root, barrier: nothing received
    }

    // A non-blocking collective is started and waited for at once.
    // It runs inside the timed window: the names are supported_collectives(), whose
    // non-blocking ones alone start with 'i', so one character decides, nothing allocated.
    int run(const std::string& collective, std::size_t bytes, MPI_Comm comm) {
        if (collective.front() != 'i') return run_blocking(collective, bytes, comm);
        MPI_Request request = MPI_REQUEST_NULL;
        const int rc = start(collective, bytes, comm, &request);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&request, MPI_STATUS_IGNORE);
    }

private:
    int run_blocking(const std::string& collective, std::size_t bytes, MPI_Comm comm) {
        const int count = static_cast<int>(bytes);
        if (collective == "bcast") return MPI_Bcast(send_.data(), count, MPI_BYTE, 0, comm);
        if (collective == "reduce")
            return MPI_Reduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm);
        if (collective == "allreduce")
            return MPI_Allreduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm);
        if (collective == "allgather")
            return MPI_Allgather(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, comm);
        if (collective == "gather")
            return MPI_Gather(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, 0, comm);
        if (collective == "scatter")
            return MPI_Scatter(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, 0, comm);
        if (collective == "barrier") return MPI_Barrier(comm);
        throw std::logic_error("bench: no MPI call for collective '" + collective + "'");
    }

    int start(const std::string& collective, std::size_t bytes, MPI_Comm comm, MPI_Request* request) {
        const int count = static_cast<int>(bytes);
        if (collective == "ibcast") return MPI_Ibcast(send_.data(), count, MPI_BYTE, 0, comm, request);
        if (collective == "ireduce")
            return MPI_Ireduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, 0, comm, request);
        if (collective == "iallreduce")
            return MPI_Iallreduce(send_.data(), recv_.data(), count, MPI_UNSIGNED_CHAR, MPI_SUM, comm, request);
        if (collective == "iallgather")
            return MPI_Iallgather(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, comm, request);
        if (collective == "igather")
            return MPI_Igather(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, 0, comm, request);
        if (collective == "iscatter")
            return MPI_Iscatter(send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE, 0, comm, request);
        if (collective == "ibarrier") return MPI_Ibarrier(comm, request);
        throw std::logic_error("bench: no MPI call for collective '" + collective + "'");
    }

    // Bytes of this rank's send and receive buffers for one call.
    struct Extent {
        std::size_t send;
        std::size_t recv;
    };
    Extent buffer_extent(const std::string& name, std::size_t bytes) const {
        const std::string collective = blocking_form(name);
        const std::size_t all_blocks = bytes * static_cast<std::size_t>(size_);
        const bool root = rank_ == 0;
        if (collective == "bcast") return {bytes, 0};
        if (collective == "allgather") return {bytes, all_blocks};
        if (collective == "gather") return {bytes, root ? all_blocks : 0};
        if (collective == "scatter") return {root ? all_blocks : 0, bytes};
        if (collective == "barrier") return {0, 0};
        return {bytes, bytes};  // reduce, allreduce
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

    static unsigned char expected_bcast(std::size_t i, std::size_t rep) {
        return static_cast<unsigned char>(i * 31 + rep * 7 + 1);
    }
    static unsigned char contribution(std::size_t i, std::size_t rep, int rank) {
        return static_cast<unsigned char>(i * 31 + rep * 7 + static_cast<std::size_t>(rank) * 13);
    }
    unsigned char expected_sum(std::size_t i, std::size_t rep) const {
        const auto n = static_cast<std::size_t>(size_);
        return static_cast<unsigned char>(n * (i * 31 + rep * 7) + 13 * (n * (n - 1) / 2));
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
    int rank_;
    int size_;
};

}  // namespace hiertune
