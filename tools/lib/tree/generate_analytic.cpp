// `hiertune generate --from analytic`: the Csel tree from a job's fitted
// analytic models.
#include <algorithm>
#include <set>
#include <sstream>

#include "hiertune/models/analytic_catalog.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

constexpr const char* kAnalyticSizeRange = "1:4194304";

std::string join(const std::vector<int>& values) {
    std::ostringstream text;
    for (std::size_t i = 0; i < values.size(); ++i) text << (i ? "," : "") << values[i];
    return text.str();
}

// The one job with fitted models (or the one asked for).
Job fitted_job(const MeasureDb& db, const GenerateOptions& options) {
    std::vector<Job> fitted;
    for (const Job& job : db.jobs())
        if ((options.jobs.empty() || std::count(options.jobs.begin(), options.jobs.end(), job.id)) &&
            !db.fit_models(job.id).empty())
            fitted.push_back(job);
    if (fitted.empty())
        throw UsageError(std::string("no fitted analytic models in ") + db.path() +
                         (options.jobs.empty() ? "" : " for the jobs given") + ": run 'hiertune fit' first");
    if (fitted.size() > 1)
        throw UsageError("several jobs of " + db.path() + " have fitted models: pick one with --job");
    return fitted.front();
}

std::vector<std::string> analytic_collectives(const GenerateOptions& options) {
    std::vector<std::string> collectives = options.collectives;
    if (collectives.empty()) collectives = analytic::modelled_collectives();
    for (const std::string& collective : collectives)
        if (analytic::modelled_algorithms(collective).empty())
            throw UsageError("collective '" + collective + "': the analytic models cover " +
                             analytic::modelled_collectives_text());
    return collectives;
}

int fitted_procs_of(const std::vector<FittedModel>& models) {
    int fitted_procs = 0;
    for (const FittedModel& model : models) fitted_procs = std::max(fitted_procs, model.procs);
    return fitted_procs;
}

// --comm-sizes, else powers of two up to 4 x the fitted size and that size; sorted, unique.
std::vector<int> tree_comm_sizes(const GenerateOptions& options, int fitted_procs) {
    std::vector<int> comm_sizes = options.comm_sizes;
    if (comm_sizes.empty()) {
        for (int p = 2; p <= 4 * fitted_procs; p *= 2) comm_sizes.push_back(p);
        comm_sizes.push_back(fitted_procs);
    }
    std::sort(comm_sizes.begin(), comm_sizes.end());
    comm_sizes.erase(std::unique(comm_sizes.begin(), comm_sizes.end()), comm_sizes.end());
    if (comm_sizes.empty() || comm_sizes.front() < 2) throw UsageError("--comm-sizes: at least 2 ranks each");
    return comm_sizes;
}

std::string gamma_range_text(const analytic::ModelInputs& inputs) {
    std::set<int> gamma_procs;
    for (const auto& [segment, gamma] : inputs.gammas.by_segment)
        for (const auto& [procs, ratio] : gamma.measured()) gamma_procs.insert(procs);
    if (gamma_procs.empty()) return "none";
    return std::to_string(*gamma_procs.begin()) + ".." + std::to_string(*gamma_procs.rbegin());
}

// What the tree is generated from: the job, its fit, its eager limit, the sizes.
struct AnalyticBasis {
    const Job& job;
    const analytic::ModelInputs& inputs;
    const std::vector<std::string>& gamma_notes;
    int fitted_procs;
    std::uint64_t smallest_fitted;
    const std::vector<int>& comm_sizes;
    int ppn;
};

std::vector<std::string> basis_lines(const AnalyticBasis& basis) {
    std::vector<std::string> lines;
    std::ostringstream job_line;
    job_line << "analytic models of job " << basis.job.id << " (" << basis.job.description.machine << "): fitted on "
             << basis.fitted_procs << " ranks, gamma measured for P = " << gamma_range_text(basis.inputs);
    lines.push_back(job_line.str());
    lines.push_back(basis.inputs.eager_bytes == 0
                        ? std::string("no eager limit measured: every seg_* bcast costed by its stages")
                        : "eager limit " + std::to_string(basis.inputs.eager_bytes) +
                              " B: seg_* bcasts whose transfers are no larger costed by the link model");
    for (const std::string& note : basis.gamma_notes) lines.push_back("note: " + note);
    std::vector<int> measured, predicted;
    for (int p : basis.comm_sizes) (p == basis.fitted_procs ? measured : predicted).push_back(p);
    lines.push_back("sizes below " + std::to_string(basis.smallest_fitted) +
                    " B (the smallest fitted at): MPICH's own selection");
    lines.push_back("comm sizes: measured " + (measured.empty() ? std::string("none") : join(measured)) +
                    "; predicted " + (predicted.empty() ? std::string("none") : join(predicted)) + " (ppn " +
                    std::to_string(basis.ppn) + ")");
    return lines;
}

}  // namespace

GenerateReport generate_analytic_tree(const MeasureDb& db, const csel::Json& stock, const GenerateOptions& options) {
    const std::vector<std::string> collectives = analytic_collectives(options);
    const Job job = fitted_job(db, options);
    const std::vector<FittedModel> models = db.fit_models(job.id);
    std::vector<std::string> gamma_notes;
    const analytic::ModelInputs inputs = analytic::inputs_of(db.fit_points(job.id), db.eager_points(job.id), &gamma_notes);
    const int ppn = tree_position(job.description).second;
    const int fitted_procs = fitted_procs_of(models);
    const std::uint64_t smallest_fitted = analytic::smallest_fitted_size(db.fit_points(job.id));
    const std::vector<int> comm_sizes = tree_comm_sizes(options, fitted_procs);
    std::vector<std::uint64_t> segsizes = options.segsizes;
    if (segsizes.empty())
        for (const auto& [segment, gamma] : inputs.gammas.by_segment) segsizes.push_back(segment);
    const std::vector<std::uint64_t> sizes =
        options.sizes.empty() ? osu_size_range(kAnalyticSizeRange) : options.sizes;

    GenerateReport report;
    report.lines = basis_lines({job, inputs, gamma_notes, fitted_procs, smallest_fitted, comm_sizes, ppn});
    std::map<std::string, std::vector<analytic::Candidate>> candidates;
    csel::TreeInput input;
    const auto choose = [&](const std::string& collective, int comm_size,
                            std::uint64_t bytes) -> std::optional<csel::Choice> {
        if (bytes < smallest_fitted) return csel::Choice::stock_tree();
        const auto pick = analytic::best_candidate(candidates[collective], comm_size, bytes, inputs);
        if (!pick) return std::nullopt;
        const Configuration& c = pick->candidate->configuration;
        return choice_of_point(PointKey{c.collective, bytes, c.algorithm, c.params});
    };
    for (const std::string& collective : collectives) {
        candidates[collective] = analytic::candidates_of(models, collective, segsizes, options.chain_fanouts);
        if (candidates[collective].empty()) {
            report.lines.push_back(collective + ": no fitted model, stock tree kept");
            continue;
        }
        std::vector<csel::SampledChoice>& sampled = input.choices[collective];
        for (int comm_size : comm_sizes)
            for (std::uint64_t bytes : sizes)
                if (const auto choice = choose(collective, comm_size, bytes))
                    sampled.push_back({comm_size, ppn, bytes, *choice});
        report.lines.push_back(collective + ": " + std::to_string(candidates[collective].size()) + " candidates, " +
                               std::to_string(comm_sizes.size()) + " comm sizes x " + std::to_string(sizes.size()) +
                               " sizes");
    }
    if (input.choices.empty()) throw UsageError("nothing to generate: no fitted model of the requested collectives");
    input.requery = [&](const std::string& collective, int comm_size, int, std::uint64_t bytes) {
        return choose(collective, comm_size, bytes);
    };
    report.tree = build_checked_tree(stock, input);
    report.lines.push_back(std::to_string(report.tree.message_rules) + " message-size rules written");
    return report;
}

}  // namespace hiertune
