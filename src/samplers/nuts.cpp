#include "samplers/nuts.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "models/posterior.hpp"
#include "samplers/leapfrog.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

NutsKernel::NutsKernel(int dim, GradientFn gradient, NutsConfig config)
    : dim_(dim), gradient_(std::move(gradient)), config_(std::move(config)) {
  if (dim_ < 1) throw ConfigError(fmt::format("nuts: dimension must be at least 1, got {}", dim_));
  if (!gradient_) throw SoftwareError("nuts: no gradient given");
  if (!std::isfinite(config_.step_size) || config_.step_size <= 0.0) {
    throw ConfigError(
        fmt::format("nuts step size: got {}, expected a finite number > 0", config_.step_size));
  }
  if (config_.max_depth < 1 || config_.max_depth > 30) {
    throw ConfigError(fmt::format("nuts maximum tree depth: got {}, expected an integer in [1, 30]",
                                  config_.max_depth));
  }
  if (!(config_.divergence_threshold > 0.0)) {
    throw ConfigError(fmt::format("nuts divergence threshold: got {}, expected a number > 0",
                                  config_.divergence_threshold));
  }
  config_.mass = broadcast_positive(config_.mass, dim_, "nuts mass matrix diagonal");
  metric_ = Metric::from_mass(config_.mass);
  theta_ = grad_ = Vec::Zero(dim_);
}

void NutsKernel::set_tuning(const Tuning& tuning) {
  metric_ = Metric::from_tuning(tuning, dim_, "nuts");
  config_.step_size = tuning.step;
  config_.mass = metric_.diagonal().cwiseInverse();
}

void NutsKernel::init(const Vec& theta0) {
  Vec grad;
  const double lp = gradient_at_start(gradient_, theta0, dim_, "nuts", DensityKnown::yes, grad);
  theta_ = theta0;
  grad_ = grad;
  lp_ = lp;
  initialised_ = true;
}

double NutsKernel::hamiltonian(const Point& z) const {
  const double h = -z.lp + metric_.kinetic(z.p);
  return std::isfinite(h) && z.theta.allFinite() && z.grad.allFinite()
             ? h
             : std::numeric_limits<double>::infinity();
}

bool NutsKernel::no_u_turn(const Vec& sharp_minus, const Vec& sharp_plus, const Vec& rho) const {
  return sharp_plus.dot(rho) > 0.0 && sharp_minus.dot(rho) > 0.0;
}

bool NutsKernel::merge_ends(Subtree& first, const Subtree& second) const {
  // The union, then each half extended by the other's adjoining point (Stan ≥ 2.26): a U-turn
  // that only shows across the seam would otherwise go unnoticed.
  const bool whole = no_u_turn(first.sharp_begin, second.sharp_end, first.rho + second.rho);
  const bool left = no_u_turn(first.sharp_begin, second.sharp_begin, first.rho + second.p_begin);
  const bool right = no_u_turn(first.sharp_end, second.sharp_end, first.p_end + second.rho);
  first.rho += second.rho;
  first.p_end = second.p_end;
  first.sharp_end = second.sharp_end;
  return whole && left && right;
}

bool NutsKernel::build(int depth, Point& edge, double step, double h0, Subtree& out, Totals& totals,
                       Rng& rng) {
  if (depth == 0) {
    metric_.leapfrog(edge.theta, edge.p, edge.grad, step, 1, [&](const Vec& theta, Vec& grad) {
      edge.lp = gradient_(theta, grad);
      return edge.lp;
    });
    ++totals.leapfrogs;
    const double h = hamiltonian(edge);
    if (h - h0 > config_.divergence_threshold || !std::isfinite(h)) {
      totals.divergent = true;
      return false;
    }
    const double log_w = h0 - h;
    totals.accept_sum += log_w > 0.0 ? 1.0 : std::exp(log_w);
    out.log_weight = log_w;
    out.sample = edge;
    out.rho = edge.p;
    out.p_begin = out.p_end = edge.p;
    metric_.velocity(edge.p, out.sharp_begin);
    out.sharp_end = out.sharp_begin;
    return true;
  }
  if (!build(depth - 1, edge, step, h0, out, totals, rng)) return false;
  Subtree second;
  if (!build(depth - 1, edge, step, h0, second, totals, rng)) return false;
  const double log_w = log_add_exp(out.log_weight, second.log_weight);
  // Multinomial sampling within the subtree: the second half's sample with its share of weight.
  if (std::log(rng.uniform_pos()) < second.log_weight - log_w)
    out.sample = std::move(second.sample);
  out.log_weight = log_w;
  return merge_ends(out, second);
}

TransitionInfo NutsKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError("nuts: transition() before init()");
  if (extras.size() != 5) {
    throw SoftwareError(fmt::format("nuts: {} extra columns passed, 5 expected", extras.size()));
  }
  Point start{theta_, Vec::Zero(dim_), grad_, lp_};
  metric_.draw_momentum(start.p, rng);
  const double h0 = hamiltonian(start);

  Subtree path;  // the whole trajectory: begin = its backward end, end = its forward end
  path.rho = start.p;
  path.p_begin = path.p_end = start.p;
  metric_.velocity(start.p, path.sharp_begin);
  path.sharp_end = path.sharp_begin;
  path.log_weight = 0.0;
  path.sample = start;
  Point forward_edge = start, backward_edge = std::move(start);
  Totals totals;
  int depth = 0;
  while (depth < config_.max_depth) {
    const bool forward = rng.uniform() > 0.5;
    Subtree next;
    const bool valid =
        build(depth, forward ? forward_edge : backward_edge,
              forward ? config_.step_size : -config_.step_size, h0, next, totals, rng);
    if (!valid) break;
    ++depth;
    // Biased progressive sampling: the new subtree's sample wins with min(1, W_new / W_old).
    if (next.log_weight > path.log_weight ||
        std::log(rng.uniform_pos()) < next.log_weight - path.log_weight) {
      path.sample = next.sample;
    }
    path.log_weight = log_add_exp(path.log_weight, next.log_weight);
    // Merge at the side it grew on (the criterion is symmetric in the two ends).
    if (!forward) {
      std::swap(path.p_begin, path.p_end);
      std::swap(path.sharp_begin, path.sharp_end);
    }
    const bool persist = merge_ends(path, next);
    if (!forward) {
      std::swap(path.p_begin, path.p_end);
      std::swap(path.sharp_begin, path.sharp_end);
    }
    if (!persist) break;
  }

  const bool moved = path.sample.theta != theta_;
  theta_ = path.sample.theta;
  grad_ = path.sample.grad;
  lp_ = path.sample.lp;
  TransitionInfo info;
  info.log_density = lp_;
  info.accept_stat = totals.leapfrogs > 0 ? totals.accept_sum / totals.leapfrogs : 0.0;
  info.accepted = moved;
  extras[0] = config_.step_size;
  extras[1] = depth;
  extras[2] = totals.leapfrogs;
  extras[3] = totals.divergent ? 1.0 : 0.0;
  extras[4] = hamiltonian(path.sample);
  return info;
}

std::unique_ptr<Kernel> make_nuts(const Model& model, const Dataset& data, NutsConfig config) {
  auto posterior = std::make_shared<Posterior>(model, data);
  GradientFn gradient = [posterior](const Vec& theta, Vec& grad) {
    return posterior->log_density_gradient(theta, grad);
  };
  return std::make_unique<NutsKernel>(model.dim(), std::move(gradient), std::move(config));
}

}  // namespace dpmcmc
