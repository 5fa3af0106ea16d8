#include "samplers/clipped_llr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

void check_clip_bound(double b, const std::string& sampler) {
  if (!std::isfinite(b) || b <= 0.0) {
    throw ConfigError(fmt::format(
        "{} clip bound (--clip / clip): got {}, expected a finite number > 0", sampler, b));
  }
}

AcceptRule clipped_llr_rule(const Model& model, const Dataset& data, double b, AcceptRule base,
                            std::shared_ptr<ClipTally> tally) {
  if (!base) throw SoftwareError("clipped_llr_rule: no base accept rule given");
  if (!tally) throw SoftwareError("clipped_llr_rule: no tally given");
  auto scratch = std::make_shared<Vec>();
  return [&model, &data, b, base = std::move(base), tally = std::move(tally), scratch](
             const MoveProposal& move, Rng& rng) {
    // Bound b‖θ′ − θ‖₂ ([Raisa2021] Section 3.1; the DP HMC accept step uses the
    // start and end of the trajectory, Algorithm 4).
    const double bound = b * (move.to - move.from).norm();
    const ClippedLlr c = clipped_llr_sum(model, data, move.from, move.to, bound, *scratch);
    tally->clipped = c.clipped;
    tally->rows = c.rows;
    const double from = model.log_prior(move.from);
    const double to = model.log_prior(move.to) + model.temperature() * c.sum;
    return base(MoveProposal{move.from, move.to, from, to, move.log_correction}, rng);
  };
}

ClipColumnKernel::ClipColumnKernel(std::unique_ptr<Kernel> inner, std::shared_ptr<ClipTally> tally,
                                   std::string column)
    : inner_(std::move(inner)), tally_(std::move(tally)), column_(std::move(column)) {
  if (!inner_ || !tally_) throw SoftwareError("ClipColumnKernel: no kernel or tally given");
  inner_columns_ = inner_->extra_columns().size();
}

std::vector<std::string> ClipColumnKernel::extra_columns() const {
  auto columns = inner_->extra_columns();
  columns.push_back(column_);
  return columns;
}

TransitionInfo ClipColumnKernel::transition(Rng& rng, std::span<double> extras) {
  if (extras.size() != inner_columns_ + 1) {
    throw SoftwareError(fmt::format("{}: {} extra columns passed, {} expected", inner_->name(),
                                    extras.size(), inner_columns_ + 1));
  }
  tally_->reset();
  const TransitionInfo info = inner_->transition(rng, extras.first(inner_columns_));
  extras[inner_columns_] = tally_->fraction();
  return info;
}

}  // namespace dpmcmc
