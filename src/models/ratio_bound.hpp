// Per-row bounds on log-likelihood differences ([ZhangZhang2023] Assumption 1): a model
// implementing this interface promises, for every row x_i and all θ, θ′ in the support of the
// prior,
//   |log p(x_i | θ′) − log p(x_i | θ)| ≤ c_i · M(θ, θ′),
// with c_i ≥ 0 depending on the row only and M a (semi-)metric on parameters. TunaMH draws rows
// with probability c_i / C, C = Σ c_i, and DP-Fast MH derives its sensitivities from the c_i
// (Lemma 1). The bounds are for the untempered likelihood; a tempered model multiplies them by T.
// A model may need its data restricted to a declared range for the bound to hold; it then refuses
// rows outside that range (DataError) rather than clip them silently.
#pragma once

#include <optional>

#include "core/types.hpp"

namespace dpmcmc {

class RatioBound {
 public:
  virtual ~RatioBound() = default;
  // out(i) = c_i for each row of `rows` (out.size() == rows.rows()); DataError naming the row
  // when a row lies outside the range on which the bound holds.
  virtual void row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const = 0;
  // M(θ, θ′) ≥ 0, symmetric, 0 when θ = θ′.
  virtual double bound_distance(const Vec& theta, const Vec& theta_prime) const = 0;
  // A public c̄ ≥ every c_i the model accepts (from its declared data range), if it has one
  // (DP-Fast MH needs it; [ZhangZhang2023] Lemma 1).
  virtual std::optional<double> public_row_bound() const { return std::nullopt; }
};

}  // namespace dpmcmc
