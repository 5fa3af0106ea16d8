// Exponential-family models for the penalty algorithm of [Yildirim2020] Section 3.3
// and Algorithm 3. The likelihood of one row is
//   p(x | θ) = h(x) exp[η(θ)ᵀ s(x) − A(θ)]
// (the paper writes g(θ) = exp(−A(θ)) and φ(θ) = η(θ)), so that the log-likelihood ratio of all
// n rows depends on the data only through S = Σᵢ s(xᵢ) (the paper's equation (7)):
//   d(θ, θ′) = (η(θ′) − η(θ))ᵀ S − n (A(θ′) − A(θ)).
//
// SufficientStatistic is what PrivateData::suff_stat needs to release S: the per-row statistic
// on blocks of rows and its declared bounded range [lo, hi] (componentwise). Every row's s(x)
// must lie in that box, so substituting one row moves S by at most ‖hi − lo‖₂: the L2
// sensitivity Δ of S under the substitute relation ([Yildirim2020], "∇₂S = sup‖S(x) −
// S(y)‖₂", just before Assumption A4).
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"

namespace dpmcmc {

class SufficientStatistic {
 public:
  virtual ~SufficientStatistic() = default;
  // Number k of components of s(x).
  virtual int stat_dim() const = 0;
  // Names of the k components (for messages), e.g. the data column they come from.
  virtual std::vector<std::string> stat_names() const = 0;
  // out.row(i) = s(x_i)ᵀ; out is rows.rows() × k. A row outside the model's domain may be
  // written as NaN (PrivateData then refuses it with a DataError).
  virtual void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const = 0;
  // The declared range of every row's statistic: lo ≤ s(x) ≤ hi componentwise, lo < hi.
  virtual const Vec& stat_lower() const = 0;
  virtual const Vec& stat_upper() const = 0;
  // What a valid row looks like, for error messages, e.g. "0 or 1".
  virtual std::string stat_expectation(int component) const;
  // ‖hi − lo‖₂, the substitute-relation L2 sensitivity of S = Σᵢ s(xᵢ).
  double stat_sensitivity() const;
};

// A model whose likelihood is an exponential family with the statistic above. The temperature
// is 1 (Algorithm 3 has no tempering).
class ExpFamModel : public Model, public SufficientStatistic {
 public:
  // No tempering: the released statistic and its sensitivity are those of the untempered sum.
  double temperature() const final { return 1.0; }
  // η(θ), size stat_dim().
  virtual Vec natural_parameter(const Vec& theta) const = 0;
  // A(θ), the per-row log-partition (−log g(θ) in the paper).
  virtual double log_partition(const Vec& theta) const = 0;
  // The data part of the log acceptance ratio from a (noisy) statistic S and n rows:
  // (η(θ′) − η(θ))ᵀ S − n (A(θ′) − A(θ)). O(k), independent of the rows.
  double log_lik_ratio_from_stat(const Vec& theta, const Vec& theta_prime, const Vec& stat,
                                 double n) const;
};

}  // namespace dpmcmc
