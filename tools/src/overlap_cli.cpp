#include "overlap_cli.hpp"

#include <iostream>
#include <stdexcept>

#include "hiertune/models/overlap.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/text.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

// -O's help: the pt2pt operations, then the collectives of overlap_operations()
std::string operations_help() {
    std::vector<std::string> collectives;
    for (const std::string& operation : overlap_operations())
        if (is_collective_operation(operation)) collectives.push_back(operation);
    return "Operations (comma-separated): isend, irecv, both (ranks 0 and 1), " + join(collectives, ", ") +
           " (every rank)";
}

}  // namespace

CLI::App* OverlapCli::bind(CLI::App& app) {
    CLI::App* overlap = app.add_subcommand(
        "overlap",
        "How much non-blocking pt2pt and collective operations overlap with computation, over message size x "
        "computation time: the overhead ratio of each cell and a verdict per operation (run it under mpiexec, "
        ">= 2 ranks)");
    overlap->add_option("-O,--operation", operations_, operations_help())
        ->delimiter(',')
        ->check(CLI::IsMember(overlap_operations()))
        ->capture_default_str();
    overlap->add_option("-a,--algorithm", algorithms_,
                        "ALGO[:NAME=V[,NAME=V...]] (repeatable, collectives only): an item of "
                        "MPIR_CVAR_<OP>_INTRA_ALGORITHM (e.g. IALLREDUCE), 'default' or 'all'; default: default")
        ->allow_extra_args(false);
    overlap->add_option("-p,--param", params_,
                        "NAME=V[/V...] (repeatable): an MPI_T control variable set at run time for every "
                        "operation; those MPICH reads only in MPI_Init (e.g. ASYNC_PROGRESS) go in the "
                        "environment (compare such runs with overlap-report)")
        ->allow_extra_args(false);
    overlap->add_option("-m,--message-size", size_range_,
                        "MIN:MAX: the powers of two from MIN to MAX; K/M/G suffixes (iallgather, iallgatherv, "
                        "ireduce_scatter, ireduce_scatter_block: per rank; igatherv, iscatterv: per rank, the "
                        "mean of bench's uneven blocks; ialltoall, ialltoallv: the block each rank sends each "
                        "rank)")
        ->capture_default_str();
    overlap->add_option("--comp", comp_us_, "MIN_US:MAX_US: computation times, log-spaced")
        ->delimiter(':')
        ->capture_default_str();
    overlap->add_option("--comp-points", comp_points_, "Computation times between MIN_US and MAX_US")
        ->check(positive_number())
        ->capture_default_str();
    overlap->add_option("-r,--reps", reps_, "Repetitions per cell (after one warm-up); the median is reported")
        ->check(positive_number())
        ->capture_default_str();
    overlap->add_option("-t,--threads", threads_,
                        "Computation threads per rank (the paper's multi-threaded variant; more than the cores "
                        "a rank may use draws a warning)")
        ->check(CLI::Range(1u, 1024u))
        ->capture_default_str();
    add_output_flags(*overlap, output_);
    add_allow_cliques_flag(*overlap, allow_cliques_);
    return overlap;
}

OverlapOptions OverlapCli::options() const {
    refuse_cliques(allow_cliques_);
    OverlapOptions options;
    options.operations = operations_;
    for (const std::string& text : algorithms_) options.algorithms.push_back(parse_algorithm_spec(text));
    for (const std::string& text : params_) options.params.push_back(parse_param_spec(text));
    const std::vector<std::uint64_t> sizes = osu_size_range(size_range_);
    options.min_size = sizes.front();
    options.max_size = sizes.back();
    options.min_comp_us = comp_us_.first;
    options.max_comp_us = comp_us_.second;
    options.comp_points = comp_points_;
    try {  // checked here, so that a bad grid is a usage error like the others
        make_overlap_grid(options.min_size, options.max_size, options.min_comp_us, options.max_comp_us,
                          options.comp_points);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("-m/--comp/--comp-points: ") + e.what());
    }
    options.reps = reps_;
    options.threads = threads_;
    options.format = output_.format();
    return options;
}

int OverlapCli::run() { return run_overlap(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
