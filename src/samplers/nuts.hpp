// The No-U-Turn Sampler with multinomial trajectory sampling, as Stan runs it (Hoffman and Gelman
// 2014, Algorithm 3, with the changes of Betancourt 2017, "A Conceptual Introduction to
// Hamiltonian Monte Carlo", Appendix A): the default non-private gradient sampler.
//
// One transition from θ with p ~ N(0, M), M⁻¹ = diag(m), H(z) = −log π(θ) + ½ pᵀM⁻¹p:
//   * the trajectory doubles, forward or backward in time with probability ½ each, by building a
//     new subtree of 2^depth leapfrog steps of size ε from the trajectory's end on that side;
//   * every point z of the trajectory has weight w(z) = exp(H(z₀) − H(z)); within a subtree the
//     sample is drawn in proportion to the weights (multinomial), and the new subtree's sample
//     replaces the trajectory's with probability min(1, W_new / W_old) (biased progressive
//     sampling, which favours points far from the start);
//   * the doubling stops at a U-turn — with p♯ = M⁻¹p at the two ends of a (sub)trajectory and ρ
//     the sum of its momenta, when p♯₋·ρ ≤ 0 or p♯₊·ρ ≤ 0 (the generalised criterion) — checked
//     on every subtree and, as Stan ≥ 2.26 does, also on each merged pair extended by one point
//     across the seam; at a divergence (H(z) − H(z₀) > 1000 or a non-finite value); or at the
//     maximum depth (2^depth − 1 steps).
// accept_stat__ is the mean over the trajectory's new points of min(1, w(z)), the statistic the
// step-size adaptation targets (0.8). Draw columns: Stan's stepsize__, treedepth__,
// n_leapfrog__, divergent__, energy__.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "samplers/hmc.hpp"
#include "samplers/kernel.hpp"
#include "samplers/metric.hpp"

namespace dpmcmc {

struct NutsConfig {
  double step_size = 0.1;  // ε > 0
  int max_depth = 10;      // 1 ≤ max tree depth ≤ 30
  // Diagonal of the mass matrix M; size 1 (the same for all) or dim(), entries > 0.
  Vec mass = Vec::Ones(1);
  double divergence_threshold = 1000.0;  // Stan's
};

class NutsKernel final : public Kernel {
 public:
  // ConfigError naming the option for ε ≤ 0 or non-finite, a depth outside [1, 30], bad masses.
  NutsKernel(int dim, GradientFn gradient, NutsConfig config);

  std::string name() const override { return "nuts"; }
  int dim() const override { return dim_; }
  std::vector<std::string> extra_columns() const override {
    return {"stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"};
  }
  // ConfigError for a wrong-sized or non-finite θ0, a non-finite log π(θ0) or gradient there.
  void init(const Vec& theta0) override;
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return theta_; }
  // Target 0.8 (Stan's default); ε is the step size, m = M⁻¹ the inverse mass (diagonal or dense).
  std::optional<AdaptationTarget> adaptation() const override {
    return AdaptationTarget{0.8, true, false, true};
  }
  Tuning tuning() const override {
    return {config_.step_size, metric_.diagonal(), metric_.matrix()};
  }
  void set_tuning(const Tuning& tuning) override;

 private:
  struct Point {
    Vec theta, p, grad;
    double lp = 0.0;
  };
  // What a built (sub)trajectory reports to its parent.
  struct Subtree {
    Vec rho;                        // sum of momenta
    Vec p_begin, p_end;             // momenta at its first and last point (in build order)
    Vec sharp_begin, sharp_end;     // M⁻¹p there
    Point sample;                   // the multinomial sample
    double log_weight = -INFINITY;  // log Σ w(z)
  };
  struct Totals {
    int leapfrogs = 0;
    double accept_sum = 0.0;
    bool divergent = false;
  };

  // Builds 2^depth steps from `edge` (advanced in place) with signed step `step`. False when the
  // subtree diverged or made a U-turn: the caller stops doubling.
  bool build(int depth, Point& edge, double step, double h0, Subtree& out, Totals& totals,
             Rng& rng);
  bool no_u_turn(const Vec& sharp_minus, const Vec& sharp_plus, const Vec& rho) const;
  // Merges `second` (built after `first`, adjoining its end) into `first`'s ends and rho, and
  // checks the criterion on the union and on the two extended seams.
  bool merge_ends(Subtree& first, const Subtree& second) const;
  double hamiltonian(const Point& z) const;

  int dim_;
  GradientFn gradient_;
  NutsConfig config_;
  Metric metric_;
  Vec theta_, grad_;
  double lp_ = 0.0;
  bool initialised_ = false;
};

// A NUTS kernel on the exact posterior of `model` given `data` (owns its Posterior).
std::unique_ptr<Kernel> make_nuts(const Model& model, const Dataset& data, NutsConfig config);

}  // namespace dpmcmc
