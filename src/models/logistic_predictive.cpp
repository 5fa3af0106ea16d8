#include "models/logistic_predictive.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/checks.hpp"

namespace dpmcmc {
namespace {

struct Evaluation {
  double value;
  Vec grad;
};

// Log posterior and gradient through the model's own row kernels.
Evaluation evaluate(const LogisticRegressionModel& model, const Dataset& data, const Vec& theta) {
  const Eigen::Index n = data.x.rows();
  Vec ll(n);
  model.log_lik_rows(theta, data.x, ll);
  Mat g(n, model.dim());
  model.grad_log_lik_rows(theta, data.x, g);
  Evaluation e{model.log_prior(theta) + model.temperature() * ll.sum(), Vec(model.dim())};
  model.grad_log_prior(theta, e.grad);
  e.grad += model.temperature() * g.colwise().sum().transpose();
  return e;
}

}  // namespace

LogisticMap logistic_map(const LogisticRegressionModel& model, const Dataset& data,
                         double tolerance, int max_iterations) {
  const int d = model.dim();
  model_checks::dataset(model.name(), d + 1, data.x.cols());
  const auto x = data.x.leftCols(d);
  const double s2 = model.params().prior_sd * model.params().prior_sd;
  const double t = model.temperature();
  LogisticMap out{Vec::Zero(d), 0.0, 0};
  Evaluation cur = evaluate(model, data, out.theta);
  for (int it = 0; it < max_iterations; ++it) {
    // Negative Hessian: I/s² + T Xᵀ W X with W = diag(σ(z)(1 − σ(z))); σ from the model's
    // predictive with the single draw θ.
    const Vec p = model.predictive_probabilities(out.theta.transpose(), data.x);
    const Vec w = (p.array() * (1.0 - p.array())).matrix();
    Mat h = Mat::Identity(d, d) / s2;
    h.noalias() += t * (x.transpose() * w.asDiagonal() * x);
    const Eigen::LLT<Mat> llt(h);
    const Vec step = llt.solve(cur.grad);
    const double decrement = cur.grad.dot(step);
    if (decrement < tolerance) {
      out.log_density = cur.value;
      out.iterations = it;
      return out;
    }
    // Armijo backtracking (slope gᵀΔ = decrement > 0).
    double alpha = 1.0;
    for (;;) {
      const Vec trial = out.theta + alpha * step;
      Evaluation next = evaluate(model, data, trial);
      if (next.value >= cur.value + 1e-4 * alpha * decrement) {
        out.theta = trial;
        cur = std::move(next);
        break;
      }
      alpha *= 0.5;
      if (alpha < 1e-12) {
        out.log_density = cur.value;  // no further progress is possible in double precision
        out.iterations = it + 1;
        return out;
      }
    }
  }
  throw SoftwareError(
      fmt::format("logistic MAP: Newton's method did not converge in {} steps", max_iterations));
}

}  // namespace dpmcmc
