// The exponential-family view of the linear and normal families (models/glm_expfam.hpp), against
// the GLM's own row log-likelihoods (models/glm.hpp), which it does not use:
//   (η(θ′) − η(θ))ᵀ S − n (A(θ′) − A(θ)) = Σᵢ ℓᵢ(θ′) − ℓᵢ(θ)
// for S the sum of the released per-row statistics, with σ known and sampled, with and without
// an intercept, and for the normal family (intercept only). With σ sampled the identity holds for
// each value, not only for differences: Σᵢ ℓᵢ(θ) = η(θ)ᵀS − nA(θ) (h = 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>
#include <string>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "models/glm_expfam.hpp"

namespace dpmcmc {
namespace {

GlmSpec linear_spec(std::vector<std::string> names, std::optional<double> sigma, GlmFamily family) {
  GlmSpec g;
  g.family = family;
  g.coefficient_names = std::move(names);
  g.coefficient_priors.assign(g.coefficient_names.size(),
                              ScalarPrior{ScalarPrior::Kind::normal, 1.0, 0.0, 2.5});
  g.sigma = sigma;
  g.column_bounds.assign(g.coefficient_names.size(), 1.0);
  g.row_norm_bound = std::sqrt(static_cast<double>(g.coefficient_names.size()));
  g.y_low = -3.0;  // centre 1, so the intercept's shift is exercised
  g.y_high = 5.0;
  return g;
}

// n rows: the design columns (1 for the intercept, else uniform on [-1, 1]), then y in [-3, 5].
Mat rows_for(const GlmSpec& g, int n, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0);
  const auto p = static_cast<Eigen::Index>(g.coefficient_names.size());
  Mat rows(n, p + 1);
  for (int i = 0; i < n; ++i) {
    double z = 0.0;
    for (Eigen::Index j = 0; j < p; ++j) {
      rows(i, j) = g.coefficient_names[static_cast<std::size_t>(j)] == "intercept"
                       ? 1.0
                       : 2.0 * rng.uniform() - 1.0;
      z += (0.5 - 0.7 * static_cast<double>(j)) * rows(i, j);
    }
    rows(i, p) = std::clamp(1.0 + z + rng.normal(0.0, 1.2), -3.0, 5.0);
  }
  return rows;
}

struct Case {
  std::string label;
  std::vector<std::string> names;
  std::optional<double> sigma;
  GlmFamily family;
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }
};

class GlmExpFam : public testing::TestWithParam<Case> {};

TEST_P(GlmExpFam, TheStatisticGivesTheRowsLogLikelihoodRatio) {
  const Case& c = GetParam();
  const GlmSpec g = linear_spec(c.names, c.sigma, c.family);
  const auto glm = make_glm_model(g);
  const GlmExpFamModel view(*glm);
  ASSERT_EQ(view.dim(), glm->dim());
  const int n = 400;
  const Mat rows = rows_for(g, n, 11);
  Mat s(n, view.stat_dim());
  view.stat_rows(rows, s);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE((s.row(i).transpose().array() >= view.stat_lower().array()).all()) << i;
    ASSERT_TRUE((s.row(i).transpose().array() <= view.stat_upper().array()).all()) << i;
  }
  const Vec stat = s.colwise().sum().transpose();

  Rng rng = make_rng(5, 1);
  Vec ll(n);
  for (int trial = 0; trial < 20; ++trial) {
    Vec theta(view.dim()), theta_prime(view.dim());
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      theta(j) = rng.normal(0.0, 1.0);
      theta_prime(j) = theta(j) + rng.normal(0.0, 0.5);
    }
    glm->log_lik_rows(theta, rows, ll);
    const double before = ll.sum();
    glm->log_lik_rows(theta_prime, rows, ll);
    const double after = ll.sum();
    const double ratio = view.log_lik_ratio_from_stat(theta, theta_prime, stat, n);
    EXPECT_NEAR(ratio, after - before, 1e-9 * (1.0 + std::abs(after - before))) << trial;
    if (!c.sigma) {
      const double whole = view.natural_parameter(theta).dot(stat) - n * view.log_partition(theta);
      EXPECT_NEAR(whole, before, 1e-9 * std::abs(before)) << trial;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, GlmExpFam,
    testing::Values(
        Case{"LinearSigmaKnown", {"intercept", "a", "b"}, 1.3, GlmFamily::linear},
        Case{"LinearSigmaSampled", {"intercept", "a", "b"}, std::nullopt, GlmFamily::linear},
        Case{"LinearNoIntercept", {"a", "b"}, std::nullopt, GlmFamily::linear},
        Case{"NormalSigmaSampled", {"intercept"}, std::nullopt, GlmFamily::normal},
        Case{"NormalSigmaKnown", {"intercept"}, 0.8, GlmFamily::normal}),
    [](const auto& info) { return info.param.label; });

TEST(GlmExpFamView, TheOtherFamiliesAreRefusedNamingTheSampler) {
  GlmSpec g = linear_spec({"intercept", "a"}, std::nullopt, GlmFamily::logistic);
  g.y_low = 0.0;
  g.y_high = 1.0;
  const auto glm = make_glm_model(g);
  try {
    const GlmExpFamModel view(*glm);
    FAIL() << "a logistic model was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("dp-penalty-expfam"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("logistic"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dpmcmc
