// The active-learning loop of ACCLAiM (section V, Fig. 2b): train, measure the
// variance everywhere, test convergence, pick the next points.
#include "hiertune/models/learn.hpp"

#include <algorithm>
#include <stdexcept>

namespace hiertune {

namespace {

LearnOptions checked(LearnOptions options) {
    if (options.initial_points == 0) throw std::invalid_argument("learn: initial points must be > 0");
    if (options.non_p2_every == 0) throw std::invalid_argument("learn: non-P2 period must be > 0");
    if (options.forest.trees < 2)  // the jackknife needs two trees
        throw std::invalid_argument("learn: the forest needs at least 2 trees");
    check_rule(options.convergence);
    return options;
}

}  // namespace

ActiveLearner::ActiveLearner(LearnSpace space, LearnOptions options)
    : space_(std::move(space)),
      options_(checked(std::move(options))),
      candidates_(candidate_points(space_)),
      encoder_(space_.configurations),
      rng_(options_.seed),
      tracker_(options_.convergence) {}

void ActiveLearner::record(const LearnPoint& point, double seconds) {
    normalise_runtime(seconds, point.msg_bytes);  // throws for a bad time or size
    encoder_.encode(point);      // throws for a configuration outside the space
    measured_[point] = seconds;
    measured_set_.insert(point);
    stale_ = true;
}

LearnStop ActiveLearner::iterate(double elapsed_s) {
    if (measured_.empty()) throw std::logic_error("learn: iterate before any point is recorded");
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    x.reserve(measured_.size());
    y.reserve(measured_.size());
    for (const auto& [point, seconds] : measured_) {
        x.push_back(encoder_.encode(point));
        y.push_back(normalise_runtime(seconds, point.msg_bytes));
    }
    forest_ = std::make_unique<LearnForest>(x, y, options_.forest);
    variances_.clear();
    variances_.reserve(candidates_.size());
    summed_variance_ = 0;
    for (const LearnPoint& c : candidates_) {
        variances_.push_back(jackknife_variance(forest_->tree_predictions(encoder_.encode(c))));
        summed_variance_ += variances_.back();
    }
    stale_ = false;
    return tracker_.add(summed_variance_, elapsed_s);
}

std::vector<LearnPoint> ActiveLearner::start_points() const {
    std::vector<LearnPoint> out;
    if (!options_.start_at_both_ends) return out;
    const auto add = [&](int nodes, int ppn, std::uint64_t size) {
        for (const Configuration& configuration : space_.configurations) {
            LearnPoint point{nodes, ppn, size, configuration};
            if (measured_set_.count(point) == 0) out.push_back(std::move(point));
        }
    };
    const auto [smallest, largest] = std::minmax_element(space_.sizes.begin(), space_.sizes.end());
    for (const int nodes : space_.nodes)
        for (const int ppn : space_.ppn) add(nodes, ppn, *smallest);
    add(*std::max_element(space_.nodes.begin(), space_.nodes.end()),
        *std::max_element(space_.ppn.begin(), space_.ppn.end()), *largest);
    return out;
}

std::size_t ActiveLearner::start_wanted() const {
    const std::size_t design = start_points().size();
    const std::size_t random =
        measured_.size() + design < options_.initial_points ? options_.initial_points - measured_.size() - design : 0;
    return design + random;
}

std::vector<LearnPoint> ActiveLearner::next_points(std::size_t count) {
    std::vector<LearnPoint> out = start_points();
    if (out.size() >= count) {
        out.resize(count);
    } else if (measured_.size() + out.size() < options_.initial_points) {
        // No forest worth asking yet: random unmeasured candidates after the start design.
        const std::set<LearnPoint> taken(out.begin(), out.end());
        std::vector<std::size_t> free;
        for (std::size_t i = 0; i < candidates_.size(); ++i)
            if (measured_set_.count(candidates_[i]) == 0 && taken.count(candidates_[i]) == 0) free.push_back(i);
        std::shuffle(free.begin(), free.end(), rng_);
        free.resize(std::min(free.size(), count - out.size()));
        for (const std::size_t i : free) out.push_back(candidates_[i]);
    } else if (out.empty()) {
        if (stale_) throw std::logic_error("learn: next points before iterate() saw the recorded points");
        out = select_points(candidates_, variances_, measured_set_, count, selected_, rng_, options_.non_p2_every);
    }
    selected_ += out.size();
    return out;
}

double ActiveLearner::predicted_seconds(const LearnPoint& point) const {
    if (!forest_) throw std::logic_error("learn: no forest before iterate()");
    return denormalise_runtime(forest_->predict(encoder_.encode(point)), point.msg_bytes);
}

}  // namespace hiertune
