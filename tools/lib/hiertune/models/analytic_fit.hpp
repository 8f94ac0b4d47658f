// The fits of the analytic per-algorithm models (Nuriyev, Rico-Gallego and
// Lastovetsky, "Model-based selection of optimal MPI broadcast algorithms",
// section 4).  No MPI; GSL does the regressions.
//
// gamma(P) (section 4.1): the cost of a non-blocking linear fan-out to P-1
// children relative to one point-to-point transfer of the same segment,
// estimated as T(P) / T(2) from measured fan-out times T(P), P = 2 .. Pmax
// (so gamma(2) = 1), optionally replaced for larger P by the least-squares
// line through those ratios (the paper observes them near linear).
//
// alpha, beta (section 4.2): each experiment i gives one linear equation
// alpha * a_i + beta * b_i = T_i in the algorithm's model; divided by a_i it is a
// point (x_i, y_i) = (b_i / a_i, T_i / a_i) on the line y = alpha + beta * x, which
// the Huber regressor fits (GSL's robust multifit with the Huber weight
// function, its default tuning constant), so that a few disturbed measurements
// do not move the line.  `hiertune fit` uses the relative form
// (fit_alpha_beta_relative): the same equations weighted by 1 / t.
#pragma once

#include <map>
#include <vector>

namespace hiertune::analytic {

// y = alpha + beta * x.
struct Line {
    double alpha = 0;
    double beta = 0;
    double at(double x) const { return alpha + beta * x; }
};

// A modelled time as a linear form in alpha and beta, a * alpha + b * beta: a counts
// the point-to-point transfers on the critical path (weighted by gamma), b the bytes
// they move.  Linear, so that measured times give equations for alpha and beta.
struct Cost {
    double a = 0;
    double b = 0;
    double seconds(const Line& alpha_beta) const { return a * alpha_beta.alpha + b * alpha_beta.beta; }
    Cost& operator+=(const Cost& other) {
        a += other.a;
        b += other.b;
        return *this;
    }
};
inline Cost operator+(Cost x, const Cost& y) { return x += y; }
// `weight` transfers of `bytes` each.
inline Cost transfers(double weight, double bytes) { return Cost{weight, weight * bytes}; }

// Huber regression of y on x (at least 2 points with two distinct x).
// Throws std::invalid_argument for mismatched sizes, too few or non-finite
// points, and std::runtime_error when GSL fails.
Line huber_fit(const std::vector<double>& x, const std::vector<double>& y);

// The same with alpha >= 0: where the line's intercept is negative, the Huber
// fit of y = beta * x through the origin.  (A start-up cost below zero is what a
// line makes of times that grow less than linearly at small x, e.g. a link whose
// token bucket lets the first kilobytes through at once; it would rank an
// algorithm with more transfers as faster.)
Line huber_fit_nonnegative(const std::vector<double>& x, const std::vector<double>& y);

// Ordinary least squares, for comparison and for gamma's linear extension (same
// preconditions).
Line least_squares_fit(const std::vector<double>& x, const std::vector<double>& y);

// One equation alpha * a + beta * b = t of the paper's Fig. 4 system.
struct Equation {
    double a = 0;  // > 0
    double b = 0;
    double t = 0;
};
// alpha and beta of a system of such equations, each scaled to y = alpha + beta * x
// (huber_fit_nonnegative).
Line fit_alpha_beta(const std::vector<Equation>& system);

// The same equations fitted for their relative error: Huber regression of
// 1 on (a / t, b / t), i.e. of a * alpha + b * beta = t weighted by 1 / t, with
// alpha >= 0 as above.  Selection compares predictions at each size, from 8 KiB to
// MiBs: equal weight per size rather than per second.
Line fit_alpha_beta_relative(const std::vector<Equation>& system);

// gamma(P) from measured non-blocking linear fan-out times: T(P) for P = 2 ..
// (P = 2 required, times > 0).  Beyond the largest measured P, the least-squares
// line through the measured ratios (P >= 2 points needed for it; with one point
// gamma stays 1).
class Gamma {
public:
    explicit Gamma(const std::map<int, double>& fanout_seconds);
    double operator()(int p) const;  // p >= 2; throws std::invalid_argument below
    const std::map<int, double>& measured() const { return ratio_; }
    Line extension() const { return line_; }

private:
    std::map<int, double> ratio_;
    Line line_;
};

}  // namespace hiertune::analytic
