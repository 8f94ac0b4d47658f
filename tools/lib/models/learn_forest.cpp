// The learned space, its features, and the forest with its jackknife variance
// (ACCLAiM sections IV-A and V).
#include "hiertune/models/learn.hpp"

#include "hiertune/common/sizes.hpp"

#include <dlib/random_forest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <tuple>

namespace hiertune {

namespace {

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

template <typename T>
void check_distinct(std::vector<T> values, const char* what) {
    if (values.empty()) throw std::invalid_argument(std::string("learn space: no ") + what);
    std::sort(values.begin(), values.end());
    if (std::adjacent_find(values.begin(), values.end()) != values.end())
        throw std::invalid_argument(std::string("learn space: duplicate ") + what);
}

// A whole-string number (canonical values are plain decimal), none otherwise.
std::optional<double> number_of(const std::string& text) {
    if (text.empty()) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace

bool operator==(const LearnPoint& a, const LearnPoint& b) {
    return a.nodes == b.nodes && a.ppn == b.ppn && a.msg_bytes == b.msg_bytes &&
           a.configuration == b.configuration;
}
bool operator!=(const LearnPoint& a, const LearnPoint& b) { return !(a == b); }
bool operator<(const LearnPoint& a, const LearnPoint& b) {
    return std::tie(a.nodes, a.ppn, a.msg_bytes, a.configuration.collective, a.configuration.algorithm,
                    a.configuration.params) < std::tie(b.nodes, b.ppn, b.msg_bytes, b.configuration.collective,
                                                       b.configuration.algorithm, b.configuration.params);
}

std::vector<LearnPoint> candidate_points(const LearnSpace& space) {
    check_distinct(space.nodes, "node counts");
    check_distinct(space.ppn, "ranks per node");
    check_distinct(space.sizes, "sizes");
    if (space.configurations.empty()) throw std::invalid_argument("learn space: no configurations");
    for (std::size_t i = 0; i < space.configurations.size(); ++i)
        for (std::size_t j = i + 1; j < space.configurations.size(); ++j)
            if (space.configurations[i] == space.configurations[j])
                throw std::invalid_argument("learn space: duplicate configurations");
    for (const int n : space.nodes)
        if (n <= 0) throw std::invalid_argument("learn space: node counts must be > 0");
    for (const int n : space.ppn)
        if (n <= 0) throw std::invalid_argument("learn space: ranks per node must be > 0");
    for (const std::uint64_t s : space.sizes)
        if (!is_power_of_two(s) || s > kMaxMessageBytes)
            throw std::invalid_argument("learn space: sizes must be powers of two up to 1 GiB, not " +
                                        std::to_string(s));
    for (const Configuration& c : space.configurations)
        if (c.collective != space.configurations.front().collective)
            throw std::invalid_argument("learn space: configurations of more than one collective (" +
                                        space.configurations.front().collective + ", " + c.collective + ")");
    std::vector<LearnPoint> points;
    points.reserve(space.configurations.size() * space.nodes.size() * space.ppn.size() * space.sizes.size());
    for (const Configuration& c : space.configurations)
        for (const int n : space.nodes)
            for (const int ppn : space.ppn)
                for (const std::uint64_t s : space.sizes) points.push_back(LearnPoint{n, ppn, s, c});
    return points;
}

FeatureEncoder::FeatureEncoder(const std::vector<Configuration>& configurations)
    : names_{"log2_msg_bytes", "nodes", "ppn", "algorithm"}, configurations_(configurations) {
    if (configurations.empty()) throw std::invalid_argument("feature encoder: no configurations");
    std::map<std::string, std::set<std::string>> values;
    for (const Configuration& c : configurations) {
        if (std::find(algorithms_.begin(), algorithms_.end(), c.algorithm) == algorithms_.end())
            algorithms_.push_back(c.algorithm);
        for (const auto& [name, value] : c.params) values[name].insert(value);
    }
    for (const auto& [name, distinct] : values) {  // map: names sorted
        ParamFeature f;
        f.name = name;
        f.numeric = std::all_of(distinct.begin(), distinct.end(),
                                [](const std::string& v) { return number_of(v).has_value(); });
        if (f.numeric) {
            double lowest = *number_of(*distinct.begin());
            for (const std::string& v : distinct) lowest = std::min(lowest, *number_of(v));
            f.absent = lowest - 1;  // below every value: a split can set it apart
        } else {
            f.values.assign(distinct.begin(), distinct.end());
        }
        names_.push_back(name);
        params_.push_back(std::move(f));
    }
}

std::vector<double> FeatureEncoder::encode(const LearnPoint& point) const {
    if (point.msg_bytes == 0 || point.nodes <= 0 || point.ppn <= 0)
        throw std::invalid_argument("feature encoder: size, nodes and ppn must be > 0");
    if (std::find(configurations_.begin(), configurations_.end(), point.configuration) == configurations_.end())
        throw std::invalid_argument("feature encoder: unknown configuration " + point.configuration.algorithm +
                                    (point.configuration.params.empty()
                                         ? std::string()
                                         : ":" + canonical_params(point.configuration.params)));
    std::vector<double> x;
    x.reserve(dimension());
    x.push_back(std::log2(static_cast<double>(point.msg_bytes)));
    x.push_back(point.nodes);
    x.push_back(point.ppn);
    x.push_back(static_cast<double>(
        std::find(algorithms_.begin(), algorithms_.end(), point.configuration.algorithm) - algorithms_.begin()));
    for (const ParamFeature& f : params_) {
        const auto it = point.configuration.params.find(f.name);
        if (it == point.configuration.params.end()) {
            x.push_back(f.absent);
        } else if (f.numeric) {
            x.push_back(*number_of(it->second));
        } else {
            x.push_back(static_cast<double>(std::lower_bound(f.values.begin(), f.values.end(), it->second) -
                                            f.values.begin()));
        }
    }
    return x;
}

double normalise_runtime(double seconds, std::uint64_t msg_bytes) {
    if (!(std::isfinite(seconds) && seconds > 0))
        throw std::invalid_argument("runtime must be finite and > 0");
    if (msg_bytes == 0) throw std::invalid_argument("runtime per byte: message size must be > 0");
    return std::log(seconds / static_cast<double>(msg_bytes));
}

double denormalise_runtime(double target, std::uint64_t msg_bytes) {
    return std::exp(target) * static_cast<double>(msg_bytes);
}

// ---------------------------------------------------------------------------

struct LearnForest::Impl {
    dlib::random_forest_regression_function<dlib::dense_feature_extractor> function;
    std::size_t dimension = 0;
};

namespace {

using Sample = dlib::dense_feature_extractor::sample_type;

Sample to_sample(const std::vector<double>& x) {
    Sample s(static_cast<long>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) s(static_cast<long>(i)) = x[i];
    return s;
}

}  // namespace

LearnForest::LearnForest(const std::vector<std::vector<double>>& features, const std::vector<double>& targets,
                         const ForestOptions& options) {
    if (features.empty()) throw std::invalid_argument("forest: no training rows");
    if (features.size() != targets.size())
        throw std::invalid_argument("forest: " + std::to_string(features.size()) + " rows but " +
                                    std::to_string(targets.size()) + " targets");
    const std::size_t dim = features.front().size();
    if (dim == 0) throw std::invalid_argument("forest: empty feature rows");
    if (options.trees == 0) throw std::invalid_argument("forest: trees must be > 0");
    if (options.min_samples_per_leaf == 0) throw std::invalid_argument("forest: min samples per leaf must be > 0");
    if (!(options.feature_fraction > 0 && options.feature_fraction <= 1))
        throw std::invalid_argument("forest: feature fraction must be in (0, 1]");
    std::vector<Sample> x;
    x.reserve(features.size());
    for (const std::vector<double>& row : features) {
        if (row.size() != dim) throw std::invalid_argument("forest: feature rows of different dimensions");
        for (const double v : row)
            if (!std::isfinite(v)) throw std::invalid_argument("forest: feature not finite");
        x.push_back(to_sample(row));
    }
    for (const double y : targets)
        if (!std::isfinite(y)) throw std::invalid_argument("forest: target not finite");

    dlib::random_forest_regression_trainer<dlib::dense_feature_extractor> trainer;
    trainer.set_num_trees(options.trees);
    trainer.set_min_samples_per_leaf(options.min_samples_per_leaf);
    trainer.set_feature_subsampling_fraction(options.feature_fraction);
    trainer.set_seed(options.seed);  // dlib seeds tree i with seed + i: threads do not matter
    impl_ = std::make_unique<Impl>(Impl{trainer.train(x, targets), dim});
}

LearnForest::~LearnForest() = default;
LearnForest::LearnForest(LearnForest&&) noexcept = default;
LearnForest& LearnForest::operator=(LearnForest&&) noexcept = default;

std::size_t LearnForest::tree_count() const { return impl_->function.get_num_trees(); }
std::size_t LearnForest::dimension() const { return impl_->dimension; }

std::vector<double> LearnForest::tree_predictions(const std::vector<double>& x) const {
    if (x.size() != impl_->dimension)
        throw std::invalid_argument("forest: a row of " + std::to_string(x.size()) + " features, trained on " +
                                    std::to_string(impl_->dimension));
    const auto& trees = impl_->function.get_internal_tree_nodes();
    const auto& leaves = impl_->function.get_tree_leaves();
    std::vector<double> out;
    out.reserve(trees.size());
    // dlib's own operator() walk: index < tree size is an interior node,
    // the rest count into the tree's leaves.  Thresholds are floats there too.
    for (std::size_t t = 0; t < trees.size(); ++t) {
        const auto& tree = trees[t];
        std::uint32_t idx = 0;
        while (idx < tree.size()) {
            const double v = x[tree[idx].split_feature];
            idx = v < tree[idx].split_threshold ? tree[idx].left : tree[idx].right;
        }
        out.push_back(leaves[t][idx - tree.size()]);
    }
    return out;
}

double LearnForest::predict(const std::vector<double>& x) const {
    const std::vector<double> p = tree_predictions(x);
    double sum = 0;
    for (const double v : p) sum += v;
    return sum / static_cast<double>(p.size());
}

// ---------------------------------------------------------------------------

double jackknife_variance(const std::vector<double>& p) {
    const std::size_t n = p.size();
    if (n < 2) throw std::invalid_argument("jackknife variance: needs at least 2 trees");
    double sum = 0;
    for (const double v : p) {
        if (!std::isfinite(v)) throw std::invalid_argument("jackknife variance: prediction not finite");
        sum += v;
    }
    const double x_p = sum / static_cast<double>(n);
    double acc = 0;
    for (const double v : p) {
        const double x_i = (sum - v) / static_cast<double>(n - 1);  // the mean without p_i
        acc += (x_p - x_i) * (x_p - x_i);
    }
    return acc / static_cast<double>(n - 1);
}

std::vector<double> jackknife_variances(const std::vector<std::vector<double>>& tree_predictions) {
    std::vector<double> out;
    out.reserve(tree_predictions.size());
    for (const std::vector<double>& row : tree_predictions) out.push_back(jackknife_variance(row));
    return out;
}

}  // namespace hiertune
