#include "hiertune/report/analytic_report.hpp"
#include "hiertune/common/text.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/report/bench_output.hpp"
#include "hiertune/tune/sweep.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {


}  // namespace

AnalyticValidation validate_analytic(const MeasureDb& db, JobId fit_job, const ValidationTargets& targets) {
    const std::vector<FittedModel> models = db.fit_models(fit_job);
    if (models.empty())
        throw UsageError("job " + std::to_string(fit_job) + " has no fitted analytic models: run 'hiertune fit'");
    std::vector<std::string> gamma_notes;
    const analytic::ModelInputs inputs = analytic::inputs_of(db.fit_points(fit_job), db.eager_points(fit_job), &gamma_notes);
    std::map<std::pair<std::string, std::string>, analytic::Line> line_of;
    int fitted_procs = 0;
    for (const FittedModel& m : models) {
        line_of[{m.collective, m.algorithm}] = analytic::Line{m.alpha, m.beta};
        fitted_procs = std::max(fitted_procs, m.procs);
    }

    AnalyticValidation result;
    // (P, collective, size) -> the case; ordered so the report reads by comm size
    std::map<std::tuple<int, std::string, std::uint64_t>, std::pair<SizeCase, std::optional<double>>> cases;
    double exhaustive = 0;
    std::set<int> sizes_fitted, sizes_predicted;
    for (const Job& job : db.jobs()) {
        const int procs = job.description.ranks;
        bool swept = false;
        for (const StoredPoint& p : db.points(job.id)) {
            const Configuration c{p.key.collective, p.key.algorithm, p.key.params};
            const auto found = line_of.find({c.collective, c.algorithm});
            const bool modelled = analytic::has_model(c) && found != line_of.end();
            if (!modelled && !(is_default_algorithm(c.algorithm) && c.params.empty())) continue;
            auto& [size_case, default_time] = cases[{procs, c.collective, p.key.msg_bytes}];
            size_case.collective = c.collective + " P=" + std::to_string(procs);
            size_case.msg_bytes = p.key.msg_bytes;
            if (!modelled) {
                default_time = p.summary.median;
                continue;
            }
            swept = true;
            const analytic::Candidate candidate{c, found->second};
            size_case.configs.push_back(ConfigTime{
                describe_configuration(p.key),
                analytic::predict_if_modelled(candidate, procs, p.key.msg_bytes, inputs), p.summary.median});
        }
        if (!swept) continue;
        (procs == fitted_procs ? sizes_fitted : sizes_predicted).insert(procs);
        const auto steps = db.step_times(job.id);
        if (const auto it = steps.find("exhaustive"); it != steps.end()) exhaustive += it->second;
    }
    std::vector<SizeCase> ordered;
    for (auto& [key, entry] : cases) {
        SizeCase& c = entry.first;
        const ConfigTime* pick = nullptr;  // the least predicted
        for (const ConfigTime& config : c.configs)
            if (config.predicted && (!pick || *config.predicted < *pick->predicted)) pick = &config;
        if (!pick) continue;  // only the default measured, or nothing predictable
        c.pick = pick->config;
        ordered.push_back(c);
        result.default_seconds.push_back(entry.second);
    }
    if (ordered.empty()) throw UsageError(db.path() + " holds no sweep of modelled configurations to validate against");
    const auto steps = db.step_times(fit_job);
    const auto fit_time = steps.find("fit");
    result.report = validate(ordered, fit_time == steps.end() ? std::nullopt : std::optional<double>(fit_time->second),
                             exhaustive > 0 ? std::optional<double>(exhaustive) : std::nullopt, targets);
    result.report.title = "hiertune fit: analytic model picks vs exhaustive sweep";
    result.report.tuning_step = "fitting";
    result.report.share_name = "fitting share";
    const auto join = [](const std::set<int>& values) {
        std::string text;
        for (int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
        return text.empty() ? std::string("none") : text;
    };
    result.lines.push_back("models fitted on job " + std::to_string(fit_job) + " at P = " +
                           std::to_string(fitted_procs) + "; comm sizes swept: " + join(sizes_fitted) +
                           " (fitted there), " + join(sizes_predicted) + " (predicted)");
    for (const std::string& note : gamma_notes) result.lines.push_back("note: " + note);
    return result;
}

void write_default_text(const AnalyticValidation& validation, std::ostream& out) {
    double sum = 0, worst = 0;
    std::size_t count = 0;
    std::string worst_at;
    for (std::size_t i = 0; i < validation.report.verdicts.size(); ++i) {
        const SizeVerdict& v = validation.report.verdicts[i];
        if (!validation.default_seconds[i]) continue;
        const double slowdown = *validation.default_seconds[i] / v.measured_best;
        sum += slowdown;
        ++count;
        if (slowdown > worst) {
            worst = slowdown;
            worst_at = v.collective + " " + std::to_string(v.msg_bytes) + " B";
        }
    }
    if (count == 0) {
        out << "MPICH default: not measured\n";
        return;
    }
    out << "MPICH default (its own selection, same sweep): average slowdown " << fixed(sum / count, 3) << " over "
        << count << " sizes, worst " << fixed(worst, 3) << " (" << worst_at << ")\n";
}

void write_default_csv(const AnalyticValidation& validation, std::ostream& out) {
    out << "case,msg_bytes,default_us,best_us,slowdown\n";
    for (std::size_t i = 0; i < validation.report.verdicts.size(); ++i) {
        const SizeVerdict& v = validation.report.verdicts[i];
        out << v.collective << ',' << v.msg_bytes << ',';
        if (validation.default_seconds[i]) out << fixed(*validation.default_seconds[i] * 1e6, 3);
        out << ',' << fixed(v.measured_best * 1e6, 3) << ',';
        if (validation.default_seconds[i]) out << fixed(*validation.default_seconds[i] / v.measured_best, 4);
        out << '\n';
    }
}

}  // namespace hiertune
