// The Model interface (docs/architecture.md). A model knows its parameters, its prior, and how to
// evaluate the per-row log-likelihood and its gradient on *blocks* of rows, so that kernels can
// vectorise and fuse evaluate + clip + sum. Per-row quantities are untempered; the tempering
// factor T multiplies the likelihood part of the log posterior:
//   log π(θ | X) = log p(θ) + T Σ_i log p(x_i | θ) + const.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"

namespace dpmcmc {

class ReferenceCache;

// The log-likelihood of one whole dataset and its gradient in closed form, from statistics of the
// data computed once (e.g. the Gaussian's mean and centred scatter). Untempered, like the rows.
// Only the exact posterior of the non-private baselines uses it (models/posterior.hpp): it costs
// O(d²) per evaluation where the rows cost O(n d²).
class LikelihoodSummary {
 public:
  virtual ~LikelihoodSummary() = default;
  // Σ_i log p(x_i | θ).
  virtual double log_lik(const Vec& theta) const = 0;
  // Σ_i ∇_θ log p(x_i | θ), written into out (size d).
  virtual void grad_log_lik(const Vec& theta, Eigen::Ref<Vec> out) const = 0;
};

class Model {
 public:
  virtual ~Model() = default;

  // Short identifier, e.g. "banana".
  virtual std::string name() const = 0;
  // Number of parameters d.
  virtual int dim() const = 0;
  // Parameter names for output columns; default "theta.1", …, "theta.d" (Stan's dotted style).
  virtual std::vector<std::string> param_names() const;
  // Names of the data columns the model expects, in order (validated by the loaders).
  virtual std::vector<std::string> data_columns() const = 0;

  virtual double log_prior(const Vec& theta) const = 0;
  // ∇ log p(θ), written into out (size dim()).
  virtual void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const = 0;

  // Tempering factor T ∈ (0, 1] applied to the likelihood ([Raisa2021] Thm 5.2).
  virtual double temperature() const { return 1.0; }

  // out(i) = log p(x_i | θ) for each row i of `rows` (out.size() == rows.rows()).
  virtual void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const = 0;
  // out(i) = log p(x_i | θ′) − log p(x_i | θ): the fused kernel of the penalty test. The default
  // evaluates both terms; models override it where the difference simplifies.
  virtual void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                                  Eigen::Ref<Vec> out) const;
  // out.row(i) = ∇_θ log p(x_i | θ)ᵀ; out is rows.rows() × dim().
  virtual void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                 Eigen::Ref<Mat> out) const = 0;

  // The summary of `data` for models whose likelihood has low-dimensional sufficient statistics;
  // nullptr (the default) where it has none, and the rows are evaluated.
  virtual std::unique_ptr<const LikelihoodSummary> summarize(const Dataset& /*data*/) const {
    return nullptr;
  }

  // Draws n rows from p(x | θ) (synthetic data; columns named data_columns()).
  virtual Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const = 0;

  // Whether sample_posterior is available (Gaussian and banana: yes; circle: no).
  virtual bool has_exact_posterior() const { return false; }
  // `draws` independent draws (rows of the result, draws × dim) from the tempered posterior given
  // `data`. Throws SoftwareError when has_exact_posterior() is false.
  virtual Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const;
  // Row evaluations of the likelihood that computing the exact reference on `rows` rows costs
  // (0: a closed form or a cost that does not grow with the data). `sample --accuracy auto`
  // skips a reference that costs more than the sampling it would evaluate.
  virtual double reference_row_evaluations(std::size_t /*rows*/) const { return 0.0; }
  // Models whose exact reference takes long to compute keep it in a ReferenceCache
  // (models/reference_cache.hpp), their own by default; a caller that builds several instances on
  // the same data hands them one cache here. The others ignore it.
  virtual void share_reference_cache(std::shared_ptr<ReferenceCache> /*cache*/) {}
};

}  // namespace dpmcmc
