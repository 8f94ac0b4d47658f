// The validation of the analytic models (issue 17) against an exhaustive sweep
// of the same space (no MPI): per comm size (a job of `hiertune bench` runs at
// one rank per node), collective and message size, the configuration the
// fitted models pick among those measured, the exhaustive best, the slowdown,
// predicted vs measured for every configuration (validation.hpp's report),
// the fitting time against the sweep's, and MPICH's default selection beside.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hiertune/db/measure_db.hpp"
#include "hiertune/report/validation.hpp"

namespace hiertune {

struct AnalyticValidation {
    ValidationReport report;          // cases labelled "bcast P=4"
    std::vector<std::string> lines;   // the fit, the comm sizes fitted at and predicted
    // per case (report.cases' order): MPICH's default selection as measured, if it was
    std::vector<std::optional<double>> default_seconds;
};

// The sweep: every job's points of modelled configurations ("default" for
// MPICH's selection); the step times "fit" (of fit_job) and "exhaustive" (of
// the sweep jobs, bench --account exhaustive).  Throws UsageError when the fit
// job has no fitted models or no job has sweep points, ValidationError as
// validate() does.
AnalyticValidation validate_analytic(const MeasureDb& db, JobId fit_job, const ValidationTargets& targets);

// The lines "MPICH default: average slowdown ..., worst ..." and, per case,
// the default's time and slowdown against the exhaustive best.
void write_default_text(const AnalyticValidation& validation, std::ostream& out);
// CSV: case,msg_bytes,default_us,best_us,slowdown (empty where not measured).
void write_default_csv(const AnalyticValidation& validation, std::ostream& out);

}  // namespace hiertune
