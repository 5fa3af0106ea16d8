// Log-likelihood-ratio clipping for the NON-private kernels (rwmh, hmc with `clip`): the clipping
// study of [Raisa2021] Section 6.2, which runs RWMH and HMC without noise so that
// only the error due to clipping shows. As in DP penalty (Section 3.1, "clipping the
// log-likelihood ratios with the bound b = L‖θ − θ′‖₂") and in the accept step of DP HMC
// (Algorithm 4, clip_{b_l‖θ_{i−1} − θ_{i,L}‖}(r_x)), each row's ratio
//   r_i = log p(x_i | θ′) − log p(x_i | θ)
// is clipped to ±b‖θ′ − θ‖₂ and the accept test uses
//   log α = log p(θ′) − log p(θ) + T·Σ_i clip(r_i, ±b‖θ′ − θ‖₂) + log_correction
// (T the tempering factor; log_correction the proposal / kinetic-energy term). Gradients are not
// clipped: Section 6.2 studies the log-likelihood ratios only (the authors' hmc clipping script
// clips r in the accept step and uses exact gradients in the leapfrog). Clipping is
// antisymmetric (clip(−r) = −clip(r)) and the bound symmetric in (θ, θ′), but the clipped sum is
// in general not a difference of potentials, so the chain no longer targets π exactly; what it
// targets is studied empirically (tests/samplers/clipped_llr_test.cpp computes the stationary
// law of a 1-d clipped RWMH on a grid).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/clipped_rows.hpp"
#include "models/model.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc {

// What the clipping rule saw in the current transition (shared between the rule and the column
// writer of its kernel).
struct ClipTally {
  std::size_t clipped = 0;
  std::size_t rows = 0;
  void reset() { clipped = rows = 0; }
  // clipped / rows; 0 when no ratio was computed in this transition (e.g. a non-finite proposal,
  // rejected without looking at the data), as the private kernels record a move without release.
  double fraction() const {
    return rows ? static_cast<double>(clipped) / static_cast<double>(rows) : 0.0;
  }
};

// ConfigError naming `sampler` unless b is finite and > 0.
void check_clip_bound(double b, const std::string& sampler);

// The accept rule `base` (metropolis_accept, barker_accept) applied to the clipped log ratio
// above: the move it sees has log_density_from = log p(θ), log_density_to = log p(θ′) +
// T·Σ clip(r_i, ±b‖θ′ − θ‖₂), and the kernel's log_correction. Records the counts in `tally`.
// Keeps references to model and data (they must outlive the rule); one rule per chain (scratch).
AcceptRule clipped_llr_rule(const Model& model, const Dataset& data, double b, AcceptRule base,
                            std::shared_ptr<ClipTally> tally);

// A kernel with one more draw column, `column`, holding tally.fraction() of each transition
// (reset before it). Everything else is the inner kernel's.
class ClipColumnKernel final : public Kernel {
 public:
  ClipColumnKernel(std::unique_ptr<Kernel> inner, std::shared_ptr<ClipTally> tally,
                   std::string column);
  std::string name() const override { return inner_->name(); }
  int dim() const override { return inner_->dim(); }
  std::vector<std::string> extra_columns() const override;
  void init(const Vec& theta0) override { inner_->init(theta0); }
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return inner_->position(); }
  nlohmann::json save_state() const override { return inner_->save_state(); }
  void load_state(const nlohmann::json& state) override { inner_->load_state(state); }
  std::optional<AdaptationTarget> adaptation() const override { return inner_->adaptation(); }
  Tuning tuning() const override { return inner_->tuning(); }
  void set_tuning(const Tuning& tuning) override { inner_->set_tuning(tuning); }

 private:
  std::unique_ptr<Kernel> inner_;
  std::shared_ptr<ClipTally> tally_;
  std::string column_;
  std::size_t inner_columns_;
};

}  // namespace dpmcmc
