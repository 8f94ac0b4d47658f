#include "hiertune/models/analytic_fit.hpp"

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

// GSL's robust multifit with the Huber weight function: the coefficients c of
// y ~ rows * c (every row as long as c).
std::vector<double> robust_huber(const std::vector<std::vector<double>>& rows, const std::vector<double>& y) {
    const std::size_t n = rows.size(), p = rows.front().size();
    GslNoAbort guard;
    std::unique_ptr<gsl_matrix, decltype(&gsl_matrix_free)> design(gsl_matrix_alloc(n, p), gsl_matrix_free);
    std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)> obs(gsl_vector_alloc(n), gsl_vector_free);
    std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)> coef(gsl_vector_alloc(p), gsl_vector_free);
    std::unique_ptr<gsl_matrix, decltype(&gsl_matrix_free)> cov(gsl_matrix_alloc(p, p), gsl_matrix_free);
    std::unique_ptr<gsl_multifit_robust_workspace, decltype(&gsl_multifit_robust_free)> work(
        gsl_multifit_robust_alloc(gsl_multifit_robust_huber, n, p), gsl_multifit_robust_free);
    if (!design || !obs || !coef || !cov || !work) throw std::runtime_error("huber fit: out of memory");
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < p; ++j) gsl_matrix_set(design.get(), i, j, rows[i][j]);
        gsl_vector_set(obs.get(), i, y[i]);
    }
    const int status = gsl_multifit_robust(design.get(), obs.get(), coef.get(), cov.get(), work.get());
    // GSL_EMAXITER: the weights did not settle; the estimate is still the last iterate
    if (status != GSL_SUCCESS && status != GSL_EMAXITER)
        throw std::runtime_error(std::string("huber fit: ") + gsl_strerror(status));
    std::vector<double> result(p);
    for (std::size_t j = 0; j < p; ++j) result[j] = gsl_vector_get(coef.get(), j);
    return result;
}

// y = alpha + beta * x, or (intercept false) y = beta * x.
Line robust_line(const std::vector<double>& x, const std::vector<double>& y, bool intercept) {
    std::vector<std::vector<double>> rows;
    for (double xi : x) rows.push_back(intercept ? std::vector<double>{1, xi} : std::vector<double>{xi});
    const std::vector<double> c = robust_huber(rows, y);
    return intercept ? Line{c[0], c[1]} : Line{0, c[0]};
}

}  // namespace

Line huber_fit(const std::vector<double>& x, const std::vector<double>& y) {
    check_points(x, y);
    if (x.size() == 2) return least_squares_fit(x, y);  // two points: the line through them
    return robust_line(x, y, true);
}

Line huber_fit_nonnegative(const std::vector<double>& x, const std::vector<double>& y) {
    const Line line = huber_fit(x, y);
    if (line.alpha >= 0) return line;
    return robust_line(x, y, false);
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

Line fit_alpha_beta_relative(const std::vector<Equation>& system) {
    std::vector<std::vector<double>> rows, beta_only;
    std::set<double> distinct;
    for (const Equation& e : system) {
        if (!(e.a > 0) || !std::isfinite(e.a) || !(e.t > 0) || !std::isfinite(e.t) || !std::isfinite(e.b))
            throw std::invalid_argument("alpha/beta: equations need a > 0 and a time > 0");
        rows.push_back({e.a / e.t, e.b / e.t});
        beta_only.push_back({e.b / e.t});
        distinct.insert(e.b / e.a);
    }
    if (distinct.size() < 2) throw std::invalid_argument("fit: a line needs points at two distinct x");
    const std::vector<double> ones(rows.size(), 1.0);
    const std::vector<double> c = robust_huber(rows, ones);
    if (c[0] >= 0) return Line{c[0], c[1]};
    return Line{0, robust_huber(beta_only, ones)[0]};
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
