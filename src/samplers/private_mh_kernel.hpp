// The one transition of every private sampler that is "Metropolis–Hastings with a noisy test":
// the DP penalty and its OCU and GWMH variants ([Raisa2021] Section 3.1), the
// minibatch penalty (Section 3.4), the exponential-family penalty ([Yildirim2020] Algorithm 3),
// DP Barker ([Raisa2021] Algorithm 3) and DP-Fast MH ([ZhangZhang2023] Algorithm 2).
// A sampler is a proposal (samplers/penalty_proposal.hpp) and a test — the
// subclass's noisy_test, which makes the iteration's releases through the chain's data owner and
// decides — while the skeleton is written here once:
//   1. propose θ′ from the algorithm stream;
//   2. θ′ not finite, or log p(θ′) = −∞ or NaN: rejected without a release (the prior is public,
//      so this is post-processing and costs no privacy);
//   3. θ′ = θ (‖θ′ − θ‖₂ = 0): accepted without a release and θ kept — the state after it is θ
//      whatever a test would say — and a GWMH direction is kept. (A step whose norm underflows,
//      below ~1e-162, counts as zero: θ is kept.)
//   4. otherwise the test, with the public log prior ratio log p(θ′) − log p(θ).
// Branches 2 and 3 draw the uniforms the test would have drawn, so that the position of the
// algorithm stream never depends on the branch (as accept_rule.hpp's rules do): the draws of a
// chain are a function of the seed and of the tests' outcomes only, and chains on neighbouring
// datasets with the same seed stay coupled until a test decides differently.
//
// Draw columns: the test's own (`MhShape::columns`, zero unless the test writes them) and then
// eps_spent__, the chain's spend so far (PrivateKernel's callback).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/penalty_proposal.hpp"
#include "samplers/private_kernel.hpp"

namespace dpmcmc {

// What a test is asked about one proposed move θ → θ′ (references valid for the call only).
struct NoisyMove {
  const Vec& from;         // θ
  const Vec& to;           // θ′
  double step_norm;        // ‖θ′ − θ‖₂ > 0 (scales the penalty's clip bound)
  double log_prior_ratio;  // log p(θ′) − log p(θ), finite: public
};

// The sampler's shape, fixed at construction.
struct MhShape {
  PenaltyProposal proposal = PenaltyProposal::full;
  std::vector<std::string> columns;      // the test's draw columns, before eps_spent__
  std::vector<std::string> publishable;  // those of `columns` that are functions of releases
  int test_uniforms = 1;                 // uniforms noisy_test draws from the algorithm stream
};

class PrivateMhKernel : public PrivateKernel {
 public:
  int dim() const override { return model_.dim(); }
  // MhShape::columns, then "eps_spent__".
  std::vector<std::string> extra_columns() const override;
  // MhShape::publishable, then "eps_spent__" (a function of the recorded calibrations).
  std::vector<std::string> publishable_columns() const override;
  // ConfigError when θ0 has the wrong size, is not finite, or log p(θ0) is not finite.
  void init(const Vec& theta0) override;
  // lp__ is NaN: a private kernel never sees the exact log density.
  TransitionInfo transition(Rng& rng, std::span<double> extras) final;
  const Vec& position() const override { return theta_; }
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  // Adapts the proposal from released values only (docs/decisions.md): ε and m of the proposal sd
  // ε·√m (starting at ε = 1, m = s²), to the random-walk rate of the moved dimension — the
  // model's dimension for full moves, 1 for one-component moves. No release depends on ε or m
  // beyond what each release's calibration already covers: the penalty's noise scales with
  // ‖θ′ − θ‖, DP Barker's clip bound and DP-Fast MH's per-iteration (ε, δ) are fixed.
  std::optional<AdaptationTarget> adaptation() const override;
  Tuning tuning() const override { return tuning_; }
  void set_tuning(const Tuning& tuning) override;
  // The proposal sd per component (size dim).
  const Vec& scale() const { return scale_; }
  // GWMH directions (±1 per component; all +1 for the other proposals).
  const Vec& directions() const { return direction_; }
  // Transitions since construction, whatever their branch.
  std::uint64_t transitions() const { return transitions_; }

 protected:
  PrivateMhKernel(const Model& model, DataOwner& owner, ReleaseCounts per_iteration, MhShape shape);
  PrivateMhKernel(const Model& model, std::unique_ptr<DataOwner> owner, ReleaseCounts per_iteration,
                  MhShape shape);

  // The subclass's validated proposal sd (size 1 or dim; checked by broadcast_positive).
  void set_scale(const Vec& scale, const std::string& what);
  const Model& model() const { return model_; }

  // The test of branch 4: makes the iteration's releases and decides. Draws exactly
  // MhShape::test_uniforms uniforms from `rng` and writes its columns into `columns`
  // (MhShape::columns.size() values, zero on entry).
  virtual AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) = 0;
  // Called by init() after θ0 is checked and set (e.g. to cache a function of θ).
  virtual void on_init() {}
  // Called when a tested move (branch 4) is accepted, before θ becomes θ′.
  virtual void on_accept() {}

 private:
  const Model& model_;
  MhShape shape_;
  Vec scale_, theta_, proposal_, direction_;
  Tuning tuning_;
  double log_prior_ = 0.0;
  std::uint64_t transitions_ = 0;
  bool initialised_ = false;
};

}  // namespace dpmcmc
