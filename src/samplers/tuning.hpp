// What warmup adaptation may tune in a kernel (samplers/warmup_adapter.hpp): a step size ε and a
// diagonal metric m (a variance per component). A random walk proposes θ′ = θ + ε·√m ⊙ z; HMC and
// NUTS use the inverse mass matrix M⁻¹ = diag(m) and the leapfrog step ε. Both are public: for a
// private kernel they are functions of released values only (docs/decisions.md).
#pragma once

#include <utility>

#include "core/types.hpp"

namespace dpmcmc {

struct Tuning {
  Tuning() = default;
  Tuning(double step_size, Vec diagonal, Mat dense_metric = Mat())
      : step(step_size), metric(std::move(diagonal)), dense(std::move(dense_metric)) {}

  double step = 1.0;  // ε > 0
  Vec metric;         // m, size dim, entries > 0 (with a dense metric: its diagonal)
  // A dense metric Σ (dim × dim, symmetric positive definite), when adapted with one (random
  // walks propose θ + ε·Lz, Σ = LLᵀ; HMC and NUTS use M⁻¹ = Σ); empty: diagonal.
  Mat dense;
};

// How a kernel adapts.
struct AdaptationTarget {
  AdaptationTarget(double target = 0.8, bool adapt_metric = true, bool walk = false,
                   bool dense_ok = false)
      : accept(target),
        metric(adapt_metric),
        random_walk(walk),
        favour_long_steps(!walk),
        dense_capable(dense_ok) {}

  double accept = 0.8;  // the target of the acceptance statistic, in (0, 1)
  bool metric = true;   // also estimate the metric from the warmup draws
  // A random-walk proposal (θ + ε√m ⊙ z).
  bool random_walk = false;
  // Dual averaging shrinks towards μ = log(10·ε0), Stan's choice, where a larger step makes an
  // iteration cheaper (HMC's and NUTS's trajectories of a fixed length); towards log ε0 where an
  // iteration costs the same at any step: random walks, and DP HMC with its fixed L and a budget
  // paid per iteration (dual_averaging.hpp).
  bool favour_long_steps = true;
  // For the private random walks, whose warmup is set by the budget (tens to hundreds of
  // iterations) and so is far shorter than a walk's autocorrelation time, which grows in
  // proportion to d (Roberts, Gelman and Gilks 1997):
  //  - each metric update estimates from all the draws since the first slow window began, not
  //    from the last window alone (Stan restarts the window so that early, transient draws drop
  //    out): the adaptive Metropolis estimate (Haario, Saksman and Tamminen 2001);
  //  - component j's variance is shrunk towards its previous metric with the weight
  //    k_j/(k_j + 5) of the k_j moves it made in those draws (Stan's weight n/(n + 5), with the
  //    moves in place of the draws: a walk's component that moved k times holds k + 1 distinct
  //    values), instead of towards 10⁻³ of it. A component that never moved keeps its metric.
  // Measured on paired cells (docs/decisions.md, "Warmup adaptation").
  bool pool_windows = false;
  // The kernel can use a dense metric (RunConfig::dense_metric).
  bool dense_capable = false;
  // The step to restart from after a metric update, when the kernel knows a good one (0: the
  // adapter's rule). A random walk whose metric is the posterior covariance has its optimum near
  // ε = 2.38/√d for d moved dimensions (Roberts, Gelman and Gilks 1997).
  double restart_step = 0.0;
};

// 2.38/√d, the random-walk restart step above.
double random_walk_restart_step(int moved_dims);

// The proposal sd ε·√m of a random walk with this tuning; SoftwareError unless ε and m are
// finite and > 0 and m has size dim (the adapter never produces anything else).
Vec tuned_scale(const Tuning& tuning, int dim, const char* kernel);

// The target acceptance rate of a Gaussian random-walk Metropolis proposal in dimension d: 0.44
// for d = 1, 0.234 for d ≥ 5 (Gelman, Roberts and Gilks 1996; Roberts, Gelman and Gilks 1997;
// Roberts and Rosenthal 2001), linear in between.
double random_walk_target_accept(int dim);

// The target of a guided walk on one component (Gustafson 1998; the DP penalty's GWMH,
// [Raisa2021] Section 3.1): 0.5, measured, not from the literature, which has no optimal rate for
// it. A guided walk keeps its direction while it accepts and reverses it on a rejection, so an
// acceptance above the one-dimensional 0.44 buys persistence. On paired cells of
// experiments/adaptation-targets.json (450 pairs, five models, ε = 1, 2, 4) 0.5 gave a lower
// MMD than 0.44 in 253 of 450 (sign test p = 0.0095); experiments/results/adaptation-targets-full.
constexpr double kGuidedWalkTargetAccept = 0.5;

}  // namespace dpmcmc
