// Properties every model must have, checked on each built-in model at several parameter values:
// per-row gradients and the prior gradient equal central finite differences of the per-row
// log-likelihood and the log prior, the fused ratio kernel equals the difference of two
// log-likelihood evaluations, and Posterior's gradient equals finite differences of its density.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "core/rng.hpp"
#include "model_test_util.hpp"
#include "models/banana.hpp"
#include "models/circle.hpp"
#include "models/gaussian.hpp"
#include "models/posterior.hpp"
#include "models/presets.hpp"

namespace dpmcmc {
namespace {

struct Case {
  std::string label;
  std::function<std::unique_ptr<Model>()> make;
  std::vector<Vec> thetas;  // points at which to check
};

Vec vec(std::initializer_list<double> v) {
  Vec out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double x : v) out(i++) = x;
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"gaussian_3d_dense",
               [] {
                 Mat cov(3, 3), cov0(3, 3);
                 cov << 2.0, 0.6, -0.3, 0.6, 1.0, 0.2, -0.3, 0.2, 0.5;
                 cov0 << 4.0, 1.0, 0.0, 1.0, 3.0, 0.5, 0.0, 0.5, 2.0;
                 return std::make_unique<GaussianModel>(vec({0.5, -1.0, 2.0}), cov0, cov, 0.3);
               },
               {vec({0.1, 0.2, -0.3}), vec({1.5, -2.0, 0.7})}});
  c.push_back({"banana_2d",
               [] {
                 BananaModel::Params p;
                 p.a = 20.0;
                 p.lik_var = vec({20.0, 2.5});
                 return std::make_unique<BananaModel>(p);
               },
               {vec({0.05, 2.9}), vec({-0.3, 1.0})}});
  c.push_back({"banana_4d_shifted",
               [] {
                 // b and m non-zero and unequal variances exercise every term of φ.
                 BananaModel::Params p;
                 p.a = 1.5;
                 p.b = 0.7;
                 p.m = -0.4;
                 p.prior_var = 7.0;
                 p.lik_var = vec({2.0, 0.5, 1.3, 3.0});
                 p.temperature = 0.25;
                 return std::make_unique<BananaModel>(p);
               },
               {vec({0.3, -0.8, 1.1, 0.0}), vec({-1.2, 0.4, -0.5, 2.0})}});
  c.push_back({"circle",
               [] { return std::make_unique<CircleModel>(1e-2, 3.0, 1.0); },
               {vec({0.5, 2.5}), vec({-3.0, 0.2})}});
  c.push_back({"preset_gauss_10d",
               [] { return find_preset("gauss-10d").make_model(); },
               {find_preset("gauss-10d").true_theta,
                find_preset("gauss-10d").true_theta + Vec::LinSpaced(10, -0.5, 0.5)}});
  return c;
}

// Data rows: simulated from the model near the first test point, so values are typical.
Dataset data_for(const Model& model, const Vec& theta, std::size_t n, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0, Stream::data);
  return model.simulate(theta, n, rng);
}

// gtest prints parameters on failure; the label is what identifies a case.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label;
}

class ModelDerivatives : public ::testing::TestWithParam<Case> {};

// h = 1e-6: truncation h²/6·|f'''| ≤ 1e-12·|f'''| and rounding ≈ 1e-16·|f|/h = 1e-10·|f|. Per-row
// |f| and |f'''| stay below ~1e3 at these points, so the difference error is below ~1e-7; the
// tolerance 1e-6·(1 + |g|) still flags any wrong term, sign or factor (errors of order |g|).
constexpr double kStep = 1e-6;
double tolerance(double g) {
  return 1e-6 * (1.0 + std::abs(g));
}

TEST_P(ModelDerivatives, RowGradientsMatchFiniteDifferences) {
  const auto model = GetParam().make();
  for (const Vec& theta : GetParam().thetas) {
    const Dataset data = data_for(*model, GetParam().thetas.front(), 12, 1);
    Mat grads(12, model->dim());
    model->grad_log_lik_rows(theta, data.x, grads);
    for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
      const Mat row = data.x.row(i);
      const auto f = [&](const Vec& t) {
        Vec out(1);
        model->log_lik_rows(t, row, out);
        return out(0);
      };
      const Vec fd = test::central_difference(f, theta, kStep);
      for (Eigen::Index j = 0; j < theta.size(); ++j) {
        EXPECT_NEAR(grads(i, j), fd(j), tolerance(fd(j))) << "row " << i << " component " << j;
      }
    }
  }
}

TEST_P(ModelDerivatives, PriorGradientMatchesFiniteDifferences) {
  const auto model = GetParam().make();
  for (const Vec& theta : GetParam().thetas) {
    Vec grad(model->dim());
    model->grad_log_prior(theta, grad);
    const Vec fd =
        test::central_difference([&](const Vec& t) { return model->log_prior(t); }, theta, kStep);
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      EXPECT_NEAR(grad(j), fd(j), tolerance(fd(j))) << "component " << j;
    }
  }
}

// The fused kernel and the difference of two evaluations agree to rounding: both are O(1)-sized
// sums of a few O(|f|) terms, so 1e-9·(1 + |log p|) leaves a wide margin over ~1e-13 rounding.
TEST_P(ModelDerivatives, FusedRatioEqualsDifference) {
  const auto model = GetParam().make();
  const auto& t = GetParam().thetas;
  const Dataset data = data_for(*model, t.front(), 1000, 2);
  Vec fused(1000), a(1000), b(1000);
  model->log_lik_ratio_rows(t[0], t[1], data.x, fused);
  model->log_lik_rows(t[0], data.x, a);
  model->log_lik_rows(t[1], data.x, b);
  for (Eigen::Index i = 0; i < fused.size(); ++i) {
    EXPECT_NEAR(fused(i), b(i) - a(i), 1e-9 * (1.0 + std::abs(a(i)) + std::abs(b(i))))
        << "row " << i;
  }
  // The base-class default (two evaluations) must agree too: it is what a model without an
  // override gets, and it exercises a different code path.
  Vec generic(1000);
  model->Model::log_lik_ratio_rows(t[0], t[1], data.x, generic);
  EXPECT_LT((generic - fused).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + a.cwiseAbs().maxCoeff()));
  // Swapping the arguments negates the ratio; the ratio of θ with itself is 0.
  Vec back(1000), zero(1000);
  model->log_lik_ratio_rows(t[1], t[0], data.x, back);
  model->log_lik_ratio_rows(t[0], t[0], data.x, zero);
  EXPECT_LT((back + fused).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + fused.cwiseAbs().maxCoeff()));
  EXPECT_EQ(zero.cwiseAbs().maxCoeff(), 0.0);
}

// A block that is a strided view into a larger matrix (what Dataset::block returns) gives the
// same values as a contiguous copy.
TEST_P(ModelDerivatives, StridedBlocksEqualCopies) {
  const auto model = GetParam().make();
  const auto& t = GetParam().thetas;
  const Dataset data = data_for(*model, t.front(), 50, 3);
  const RowBlock view = data.block(10, 17);
  const Mat copy = view;
  Vec v1(17), v2(17);
  model->log_lik_ratio_rows(t[0], t[1], view, v1);
  model->log_lik_ratio_rows(t[0], t[1], copy, v2);
  EXPECT_EQ(v1, v2);
  model->log_lik_rows(t[1], view, v1);
  model->log_lik_rows(t[1], copy, v2);
  EXPECT_EQ(v1, v2);
  Mat g1(17, model->dim()), g2(17, model->dim());
  model->grad_log_lik_rows(t[1], view, g1);
  model->grad_log_lik_rows(t[1], copy, g2);
  EXPECT_EQ(g1, g2);
}

// Posterior = prior + T·Σ rows: its gradient against finite differences of its density. The
// density sums 40 rows, so |f| is up to ~40× a row's; h = 1e-5 keeps rounding (1e-16·|f|/h)
// below 1e-8 while truncation stays ~1e-10·|f'''|.
TEST_P(ModelDerivatives, PosteriorGradientMatchesFiniteDifferences) {
  const auto model = GetParam().make();
  const auto& t = GetParam().thetas;
  const Dataset data = data_for(*model, t.front(), 40, 4);
  const Posterior post(*model, data, 7);  // 7-row blocks: several blocks and a partial one
  for (const Vec& theta : t) {
    Vec grad;
    const double lp = post.log_density_gradient(theta, grad);
    EXPECT_DOUBLE_EQ(lp, post.log_density(theta));
    const Vec fd =
        test::central_difference([&](const Vec& x) { return post.log_density(x); }, theta, 1e-5);
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      EXPECT_NEAR(grad(j), fd(j), 1e-5 * (1.0 + std::abs(fd(j)))) << "component " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, ModelDerivatives, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace dpmcmc
