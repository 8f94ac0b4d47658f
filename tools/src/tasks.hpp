// `hiertune tasks`: the HAN task benchmarks (under mpiexec), see lib/hiertune/tune/task_bench.hpp.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/db/measure_db.hpp"
#include "hiertune/tree/collective.hpp"

namespace hiertune {

struct TasksOptions {
    std::vector<std::string> collectives{to_string(grammar::Collective::bcast)};  // of model_collectives()
    std::vector<Params> configs{Params{}};          // hier parameters without segsize
    std::vector<std::uint64_t> segsizes;            // > 0
    std::uint64_t steady_segments = 8;              // K of the steady run (at most)
    std::uint64_t max_message = 0;                  // largest message of interest; 0: any
    std::vector<std::uint64_t> gather_sizes;        // allgather: bytes per rank of its sg groups (> 0)
    std::size_t warmup = 3;      // before a group's first run; 1 before each later one
    std::size_t min_reps = 10;   // per run, before it may stop
    std::size_t reps = 100;      // cap per run
    double precision = 0.025;    // stop when every task's median CI is this narrow
    double max_time = 5;         // cap on the seconds of a group (its runs share it); 0: none
    std::string db_path;  // record here, skip what is there
    std::string account_step;  // add each group's measuring time to this step_times entry
    std::string machine;
};

// Runs on every rank; returns the exit status (same on all ranks).
int run_tasks(const TasksOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hiertune
