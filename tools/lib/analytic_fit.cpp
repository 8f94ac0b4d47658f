#include "hiertune/analytic_fit.hpp"

#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>

namespace hiertune::analytic {

namespace {

void check_points(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size())
        throw std::invalid_argument("fit: " + std::to_string(x.size()) + " x values, " +
                                    std::to_string(y.size()) + " y values");
    std::set<double> distinct;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
            throw std::invalid_argument("fit: point " + std::to_string(i) + " is not finite");
        distinct.insert(x[i]);
    }
    if (distinct.size() < 2) throw std::invalid_argument("fit: a line needs points at two distinct x");
}

// GSL reports errors through a handler that aborts by default; here it returns codes.
struct GslNoAbort {
    gsl_error_handler_t* previous = gsl_set_error_handler_off();
    ~GslNoAbort() { gsl_set_error_handler(previous); }
};

}  // namespace

namespace {

// GSL's robust multifit with the Huber weight function of y on the columns
// (1, x) or, with intercept false, on x alone.
Line robust_huber(const std::vector<double>& x, const std::vector<double>& y, bool intercept) {
    const std::size_t n = x.size(), p = intercept ? 2 : 1;
    GslNoAbort guard;
    std::unique_ptr<gsl_matrix, decltype(&gsl_matrix_free)> design(gsl_matrix_alloc(n, p), gsl_matrix_free);
    std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)> obs(gsl_vector_alloc(n), gsl_vector_free);
    std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)> coef(gsl_vector_alloc(p), gsl_vector_free);
    std::unique_ptr<gsl_matrix, decltype(&gsl_matrix_free)> cov(gsl_matrix_alloc(p, p), gsl_matrix_free);
    std::unique_ptr<gsl_multifit_robust_workspace, decltype(&gsl_multifit_robust_free)> work(
        gsl_multifit_robust_alloc(gsl_multifit_robust_huber, n, p), gsl_multifit_robust_free);
    if (!design || !obs || !coef || !cov || !work) throw std::runtime_error("huber fit: out of memory");
    for (std::size_t i = 0; i < n; ++i) {
        if (intercept) gsl_matrix_set(design.get(), i, 0, 1.0);
        gsl_matrix_set(design.get(), i, p - 1, x[i]);
        gsl_vector_set(obs.get(), i, y[i]);
    }
    const int status = gsl_multifit_robust(design.get(), obs.get(), coef.get(), cov.get(), work.get());
    // GSL_EMAXITER: the weights did not settle; the estimate is still the last iterate
    if (status != GSL_SUCCESS && status != GSL_EMAXITER)
        throw std::runtime_error(std::string("huber fit: ") + gsl_strerror(status));
    return intercept ? Line{gsl_vector_get(coef.get(), 0), gsl_vector_get(coef.get(), 1)}
                     : Line{0, gsl_vector_get(coef.get(), 0)};
}

}  // namespace

Line huber_fit(const std::vector<double>& x, const std::vector<double>& y) {
    check_points(x, y);
    if (x.size() == 2) return least_squares_fit(x, y);  // two points: the line through them
    return robust_huber(x, y, true);
}

Line huber_fit_nonnegative(const std::vector<double>& x, const std::vector<double>& y) {
    const Line line = huber_fit(x, y);
    if (line.alpha >= 0) return line;
    return robust_huber(x, y, false);
}

Line least_squares_fit(const std::vector<double>& x, const std::vector<double>& y) {
    check_points(x, y);
    GslNoAbort guard;
    double c0, c1, cov00, cov01, cov11, sumsq;
    const int status = gsl_fit_linear(x.data(), 1, y.data(), 1, x.size(), &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    if (status != GSL_SUCCESS) throw std::runtime_error(std::string("least squares: ") + gsl_strerror(status));
    return Line{c0, c1};
}

Line fit_alpha_beta(const std::vector<Equation>& system) {
    std::vector<double> x, y;
    for (const Equation& e : system) {
        if (!(e.a > 0) || !std::isfinite(e.a))
            throw std::invalid_argument("alpha/beta: an equation's alpha coefficient must be > 0");
        x.push_back(e.b / e.a);
        y.push_back(e.t / e.a);
    }
    return huber_fit_nonnegative(x, y);
}

Gamma::Gamma(const std::map<int, double>& fanout_seconds) {
    const auto two = fanout_seconds.find(2);
    if (two == fanout_seconds.end()) throw std::invalid_argument("gamma: T(2), one child, is the unit: measure it");
    for (const auto& [p, t] : fanout_seconds) {
        if (p < 2) throw std::invalid_argument("gamma: P = " + std::to_string(p) + " has no child");
        if (!(t > 0) || !std::isfinite(t)) throw std::invalid_argument("gamma: times must be > 0");
        ratio_[p] = t / two->second;
    }
    if (ratio_.size() >= 2) {
        std::vector<double> x, y;
        for (const auto& [p, r] : ratio_) {
            x.push_back(p);
            y.push_back(r);
        }
        line_ = least_squares_fit(x, y);
    } else {
        line_ = Line{1, 0};
    }
}

double Gamma::operator()(int p) const {
    if (p < 2) throw std::invalid_argument("gamma: P = " + std::to_string(p) + " has no child");
    const auto found = ratio_.find(p);
    if (found != ratio_.end()) return found->second;
    if (p < ratio_.rbegin()->first)
        throw std::invalid_argument("gamma: P = " + std::to_string(p) + " lies between measured points");
    return line_.at(p);
}

}  // namespace hiertune::analytic
