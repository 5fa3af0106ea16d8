// The exact (non-private) log posterior of a model given a dataset: the target of the
// non-private baselines (RWMH, HMC). Private samplers never use it: they reach the data only
// through privacy/PrivateData releases (docs/architecture.md).
#pragma once

#include <cstddef>
#include <memory>

#include "data/dataset.hpp"
#include "models/model.hpp"

namespace dpmcmc {

class Posterior {
 public:
  // Keeps references: model and data must outlive the Posterior, and the data must not change
  // while it lives (a model's summary of them is taken here, once). Not thread-safe (scratch
  // buffers); give each chain its own.
  Posterior(const Model& model, const Dataset& data, std::size_t block_rows = 4096);

  int dim() const { return model_.dim(); }
  const Model& model() const { return model_; }
  const Dataset& data() const { return data_; }

  // log p(θ) + T Σ_i log p(x_i | θ): from the model's LikelihoodSummary of the data when it has
  // one (computed here, once), else from the rows block by block.
  double log_density(const Vec& theta) const;
  // Returns log_density(θ) and writes its gradient into grad (resized to dim()).
  double log_density_gradient(const Vec& theta, Vec& grad) const;

 private:
  const Model& model_;
  const Dataset& data_;
  std::size_t block_rows_;
  std::unique_ptr<const LikelihoodSummary> summary_;
  mutable Vec row_values_;
  mutable Mat row_grads_;
};

}  // namespace dpmcmc
