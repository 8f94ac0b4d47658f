#include "launch_options.hpp"

#include "hiertune/common/sizes.hpp"

namespace hiertune {

void LaunchArgs::apply(const CLI::App& command, TuneOptions& jobs) const {
    const bool launcher_given = command.count("--launcher") > 0;
    if (launcher_given) jobs.launcher = launcher_words(launcher);
    jobs.mpiexec = mpiexec_or_default(mpiexec, launcher_given);
    jobs.mpiexec_args = mpiexec_args;
}

void add_launch_options(CLI::App& command, LaunchArgs& args, const LaunchHelp& help) {
    command.add_option("--mpiexec", args.mpiexec, help.mpiexec);
    command.add_option("--mpiexec-arg", args.mpiexec_args, help.mpiexec_arg)->allow_extra_args(false);
    command.add_option("--launcher", args.launcher, help.launcher);
}

void JobShapeArgs::apply(const CLI::App& command, TuneOptions& jobs) const {
    jobs.ranks = ranks;
    if (command.count("--nodes") > 0) jobs.nodes = nodes;
    jobs.collectives = collectives;
    split_measured(jobs);  // -C names any collective: those without a task model are measured
    jobs.sizes = message_sizes(size_range.empty() && sizes.empty() ? "1K:1M" : size_range, sizes);
}

void add_job_shape_options(CLI::App& command, JobShapeArgs& args, const std::string& ranks_help,
                           const std::vector<std::string>& collective_choices, const std::string& collective_help) {
    command.add_option("-n,--ranks", args.ranks, ranks_help)->required()->check(CLI::Range(2, 1 << 20));
    command.add_option("--nodes", args.nodes, "Emulated nodes (sets MPIR_CVAR_NUM_CLIQUES for the jobs)");
    command.add_option("-C,--collective", args.collectives, collective_help)
        ->delimiter(',')
        ->check(CLI::IsMember(collective_choices))
        ->capture_default_str();
    command.add_option("-m,--message-size", args.size_range, "[MIN:]MAX: message sizes, OSU style (default 1K:1M)");
    command.add_option("--sizes", args.sizes, "Explicit message sizes (added to -m)")->allow_extra_args(false);
}

void apply_bench_stopping(const CLI::App& command, const StoppingArgs& stopping, TuneOptions& jobs) {
    const StoppingRule rule = stopping.rule(command.count("--min-reps") > 0);
    jobs.bench_warmup = rule.warmup_reps;
    jobs.bench_min_reps = rule.min_reps;
    jobs.bench_max_reps = rule.max_reps;
    jobs.bench_precision_percent = stopping.precision_percent;
    jobs.bench_max_time = stopping.max_time;
}

}  // namespace hiertune
