// Single-release discretised PLDs of the (subsampled) Gaussian: see numerical_pld.hpp for the
// pairs and the rounding rules. Bin probabilities are differences of normal CDFs at the bin
// edges mapped back to the real line, evaluated on the accurate tail side.
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/numerical_pld.hpp"
#include "privacy/numerical_pld_truncate.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A mixture Σ w_c N(m_c, z²) over the real line.
struct Mixture {
  double w[2] = {1.0, 0.0};
  double m[2] = {0.0, 0.0};
  int n = 1;
  double z = 1.0;

  // Probability of (u, v].
  double mass(double u, double v) const {
    if (!(v > u)) return 0.0;
    double s = 0.0;
    for (int c = 0; c < n; ++c) {
      const double a = (u - m[c]) / z, b = (v - m[c]) / z;
      double p;
      if (a >= 0.0) {
        p = 0.5 * (std::erfc(a / std::numbers::sqrt2) - std::erfc(b / std::numbers::sqrt2));
      } else if (b <= 0.0) {
        p = 0.5 * (std::erfc(-b / std::numbers::sqrt2) - std::erfc(-a / std::numbers::sqrt2));
      } else {
        p = 1.0 - 0.5 * std::erfc(b / std::numbers::sqrt2) -
            0.5 * std::erfc(-a / std::numbers::sqrt2);
      }
      s += w[c] * std::max(0.0, p);
    }
    return s;
  }
};

// The privacy loss of the remove pair, L(x) = log(1 − q + q e^{(2x−1)/(2z²)}), and its inverse.
struct LossMap {
  double q, z;
  double operator()(double x) const {
    if (x == -kInf) return q < 1.0 ? std::log1p(-q) : -kInf;
    if (x == kInf) return kInf;
    const double v = (2.0 * x - 1.0) / (2.0 * z * z);
    if (v > 700.0) return std::log(q) + v + std::log1p((1.0 - q) * std::exp(-v) / q);
    return std::log1p(q * std::expm1(v));
  }
  // The x with L(x) = y; −∞ at or below the infimum log(1 − q).
  double inverse(double y) const {
    if (y == kInf) return kInf;
    double log_arg;  // log(e^y − 1 + q)
    if (y > 700.0) {
      log_arg = y;
    } else {
      const double arg = std::expm1(y) + q;
      if (!(arg > 0.0)) return -kInf;
      log_arg = std::log(arg);
    }
    return z * z * (log_arg - std::log(q)) + 0.5;
  }
};

// Pre-sized accumulator of bin masses indexed by integer k (loss k·h).
struct Bins {
  std::int64_t lo = 0;
  std::vector<double> v;
  void add(std::int64_t k, double m) {
    if (m == 0.0) return;
    v.at(static_cast<std::size_t>(k - lo)) += m;
  }
};

// One piece of a loss law: ℓ = sign·L(x) with x ~ `measure` (the first distribution of the
// pair) restricted to (x_a, ∞); `other` is the second distribution of the pair on the same
// set, e^{−ℓ}·measure, used by the pessimistic (connect-the-dots) discretisation.
struct Piece {
  Mixture measure;
  Mixture other;
  double x_a = -kInf;
  int sign = +1;
};

struct PieceWindow {
  std::int64_t k_lo, k_hi;  // bins k_lo+1 … k_hi cover (k_lo·h, k_hi·h]
};

PieceWindow window_of(const Piece& p, const LossMap& L, double h, double tail_quantile) {
  double m_lo = p.measure.m[0], m_hi = p.measure.m[0];
  for (int c = 1; c < p.measure.n; ++c) {
    m_lo = std::min(m_lo, p.measure.m[c]);
    m_hi = std::max(m_hi, p.measure.m[c]);
  }
  const double x_lo = std::max(p.x_a, m_lo - p.measure.z * tail_quantile);
  const double x_hi = std::max(p.x_a, m_hi + p.measure.z * tail_quantile);
  double l_lo, l_hi;
  if (p.sign > 0) {
    l_lo = L(x_lo), l_hi = L(x_hi);
  } else {
    l_lo = -L(x_hi), l_hi = -L(x_lo);
  }
  // A loss range past 2^62 bins (σ/Δ = 1e-8 spans ±5e15 nats) cannot even be indexed: the cast
  // below would be undefined. Refused here; smaller ranges meet the max_bins check.
  constexpr double kMaxIndex = 0x1p62;
  if (!(std::abs(l_lo / h) < kMaxIndex && std::abs(l_hi / h) < kMaxIndex)) {
    throw ConfigError(fmt::format(
        "numerical PLD: the privacy loss of one release spans [{:.4g}, {:.4g}], more than 2^62 "
        "bins at interval {}: increase the interval, or use pld-gaussian, zcdp or rdp",
        l_lo, l_hi, h));
  }
  PieceWindow w;
  w.k_lo = static_cast<std::int64_t>(std::floor(l_lo / h));
  w.k_hi = static_cast<std::int64_t>(std::ceil(l_hi / h));
  if (w.k_hi <= w.k_lo) w.k_hi = w.k_lo + 1;
  return w;
}

// Optimistic discretisation by merging (a post-processing of the pair, hence dominated by it
// in every hockey-stick divergence, and so is the composition of such pairs): the loss axis
// of the piece is cut into consecutive intervals J = (c, c'] chosen so that the merged pair
// (P(J), Q(J)) has loss exactly on the grid, log(P(J)/Q(J)) = b with b the first grid point
// above c: c' solves P(c, c') = e^b Q(c, c') (the left side of this balance is ≤ 0 at c' = b
// and increases beyond). No loss is shifted, so the lower bound has no systematic bias. The
// mass below the window is dropped; a remainder (c, ∞) that cannot reach the next grid point,
// or that is below tail_mass, is put at the grid point below c (its merged loss is ≥ c): a
// move down in loss, which keeps the bound below.
void discretise_piece_by_merging(const Piece& p, const LossMap& L, double h, const PieceWindow& w,
                                 Bins& bins, double tail_mass) {
  auto x_of = [&](double l) {  // x-edge of the loss value l (clipped to the piece)
    if (l == kInf) return p.sign > 0 ? kInf : p.x_a;
    return std::max(p.x_a, L.inverse(p.sign > 0 ? l : -l));
  };
  auto masses = [&](double a, double b) {  // (P, Q) of {ℓ ∈ (a, b]}
    const double xa = x_of(a), xb = x_of(b);
    return p.sign > 0 ? std::pair{p.measure.mass(xa, xb), p.other.mass(xa, xb)}
                      : std::pair{p.measure.mass(xb, xa), p.other.mass(xb, xa)};
  };
  const double l_top = static_cast<double>(w.k_hi) * h;
  double c = static_cast<double>(w.k_lo) * h;  // the mass with ℓ ≤ b_{k_lo} is dropped
  double p_rest = masses(c, kInf).first;       // tracked by subtraction, recomputed at the end
  for (;;) {
    auto k = static_cast<std::int64_t>(std::floor(c / h)) + 1;
    while (static_cast<double>(k) * h <= c) ++k;  // the first grid point strictly above c
    const double b = static_cast<double>(k) * h;
    const double eb = std::exp(b);
    auto balance = [&](double t) {
      const auto [pm, qm] = masses(c, t);
      return pm - eb * qm;
    };
    auto finish = [&] { bins.add(k - 1, masses(c, kInf).first); };
    if (p_rest <= tail_mass / 2 || k > w.k_hi || b >= l_top) return finish();
    double t = b;  // balance(b) ≥ 0 (zero-mass interval or rounding): merged loss ≥ b already
    if (const double gb = balance(b); gb < 0.0) {
      // Bracket the root by doubling from b (it is usually within a bin of b), then refine it
      // loosely: any t with balance(t) ≥ 0 gives a valid (merged loss ≥ b) interval, and a
      // root found to 2^-20 of the bracket leaves the merged loss within ~1e-6·h of b.
      double lo = b, g_lo = gb, step = h, hi, g_hi;
      for (;;) {
        hi = std::min(b + step, l_top);
        g_hi = balance(hi);
        if (g_hi >= 0.0) break;
        if (hi >= l_top) return finish();  // the rest cannot average up to e^b
        lo = hi, g_lo = g_hi, step *= 2.0;
      }
      boost::uintmax_t iterations = 60;
      const auto root = boost::math::tools::toms748_solve(
          balance, lo, hi, g_lo, g_hi, boost::math::tools::eps_tolerance<double>(20), iterations);
      t = root.second;  // the bracket end with balance ≥ 0: merged loss ≥ b
      if (balance(t) < 0.0) t = hi;
    }
    const double pm = masses(c, t).first;
    bins.add(k, pm);
    p_rest -= pm;
    c = t;  // t ≥ b > c: progress
  }
}

void discretise_piece(const Piece& p, const LossMap& L, double h, const PieceWindow& w,
                      Bins& upper_or_lower, PldRounding rounding, double& infinity_mass,
                      double tail_mass) {
  const auto nb = static_cast<std::size_t>(w.k_hi - w.k_lo + 1);
  // Edges in x of the loss-bin boundaries b_k = k·h, k = k_lo … k_hi.
  std::vector<double> edge(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const double b = static_cast<double>(w.k_lo + static_cast<std::int64_t>(i)) * h;
    edge[i] = std::max(p.x_a, L.inverse(p.sign > 0 ? b : -b));
  }
  double t_lo, t_hi;  // masses with ℓ ≤ b_{k_lo} and ℓ > b_{k_hi}
  if (p.sign > 0) {
    t_lo = p.measure.mass(p.x_a, edge.front());
    t_hi = p.measure.mass(edge.back(), kInf);
  } else {
    t_lo = p.measure.mass(edge.front(), kInf);
    t_hi = p.measure.mass(p.x_a, edge.back());
  }
  const bool pess = rounding == PldRounding::pessimistic;
  auto x_interval = [&](std::size_t i) {  // x-interval of loss bin (b_{k−1}, b_k], k = k_lo + i
    return p.sign > 0 ? std::pair{edge[i - 1], edge[i]} : std::pair{edge[i], edge[i - 1]};
  };
  if (!pess) {
    discretise_piece_by_merging(p, L, h, w, upper_or_lower, tail_mass);
    return;
  }
  // Pessimistic: "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi 2022). The
  // hockey-stick curve H(γ) of the pair is convex in γ; its chords between the knots γ_k = e^{b_k}
  // form the hockey-stick curve of a pair supported on the grid, which therefore dominates the
  // true pair for every γ and composes into an upper bound. That pair splits the second
  // distribution's mass r of each bin between the bin's two ends so that the first
  // distribution's mass p = E[e^ℓ; bin] is preserved: mass (p − e^{b_{k−1}} r)/(1 − e^{−h}) of the
  // first distribution at b_k and the rest at b_{k−1}. Unlike plain rounding up (which shifts
  // every release's loss by ~h/2), its error is second order in h. Beyond the window: the top
  // tail keeps e^{b_top}·r at b_top and puts the excess δ(b_top) at +∞; the bottom tail is
  // rounded up to b_{k_lo} (monotone in the loss, hence again an upper bound).
  const double one_minus_e_mh = -std::expm1(-h);
  for (std::size_t i = 1; i < nb; ++i) {
    const auto [u, v] = x_interval(i);
    const double pm = p.measure.mass(u, v);
    if (pm == 0.0) continue;
    const double r = p.other.mass(u, v);
    const std::int64_t k = w.k_lo + static_cast<std::int64_t>(i);
    const double b_lo = static_cast<double>(k - 1) * h;
    const double up = std::clamp((pm - std::exp(b_lo) * r) / one_minus_e_mh, 0.0, pm);
    upper_or_lower.add(k, up);
    upper_or_lower.add(k - 1, pm - up);
  }
  upper_or_lower.add(w.k_lo, t_lo);
  if (t_hi > 0.0) {
    const double r_hi =
        p.sign > 0 ? p.other.mass(edge.back(), kInf) : p.other.mass(p.x_a, edge.back());
    const double at_top = std::clamp(std::exp(static_cast<double>(w.k_hi) * h) * r_hi, 0.0, t_hi);
    upper_or_lower.add(w.k_hi, at_top);
    infinity_mass += t_hi - at_top;
  }
}

}  // namespace

void validate(const NumericalPldOptions& o) {
  if (!(o.interval > 0.0 && std::isfinite(o.interval)))
    throw ConfigError(
        fmt::format("numerical PLD interval must be finite and > 0, got {}", o.interval));
  if (!(o.tail_mass > 0.0 && o.tail_mass < 1e-3))
    throw ConfigError(
        fmt::format("numerical PLD tail mass must be in (0, 1e-3), got {}", o.tail_mass));
  if (std::isnan(o.loss_min) || std::isnan(o.loss_max) || !(o.loss_min < 0.0) ||
      !(o.loss_max > 0.0))
    throw ConfigError(
        fmt::format("numerical PLD loss window must satisfy loss_min < 0 < loss_max, got [{}, {}]",
                    o.loss_min, o.loss_max));
  if (o.max_bins < 16) throw ConfigError("numerical PLD max_bins must be at least 16");
}

DiscretePld identity_pld(double interval, PldRounding rounding) {
  DiscretePld d;
  d.interval = interval;
  d.rounding = rounding;
  return d;
}

DiscretePld subsampled_gaussian_pld(double q, double z, PldDirection direction,
                                    PldRounding rounding, const NumericalPldOptions& options) {
  validate(options);
  if (!(q > 0.0 && q <= 1.0))
    throw ConfigError(fmt::format("sampling rate q must be in (0, 1], got {}", q));
  if (!(z > 0.0 && std::isfinite(z)))
    throw ConfigError(fmt::format("noise multiplier σ/Δ must be finite and > 0, got {}", z));
  const double h = options.interval;
  const LossMap L{q, z};
  Mixture q_measure;  // Q = N(0, z²)
  q_measure.z = z;
  Mixture p_measure;  // P' = (1−q) N(0, z²) + q N(1, z²)
  p_measure.z = z;
  if (q < 1.0) {
    p_measure.n = 2, p_measure.w[0] = 1.0 - q, p_measure.w[1] = q, p_measure.m[1] = 1.0;
  } else {
    p_measure.m[0] = 1.0;
  }
  std::vector<Piece> pieces;
  double atom_at_zero = 0.0;
  switch (direction) {
    case PldDirection::remove:
      pieces.push_back({p_measure, q_measure, -kInf, +1});
      break;
    case PldDirection::add:
      pieces.push_back({q_measure, p_measure, -kInf, -1});
      break;
    case PldDirection::symmetric:
      pieces.push_back({p_measure, q_measure, 0.5, +1});
      pieces.push_back({q_measure, p_measure, 0.5, -1});
      atom_at_zero = std::max(0.0, 1.0 - p_measure.mass(0.5, kInf) - q_measure.mass(0.5, kInf));
      break;
  }
  const double tail_quantile = boost::math::quantile(
      boost::math::complement(boost::math::normal_distribution<double>(), options.tail_mass / 2));
  std::vector<PieceWindow> windows;
  std::int64_t lo = 0, hi = 0;  // include index 0 (the atom) and both rounding offsets
  for (const auto& p : pieces) {
    windows.push_back(window_of(p, L, h, tail_quantile));
    lo = std::min(lo, windows.back().k_lo);
    hi = std::max(hi, windows.back().k_hi);
  }
  const auto span = static_cast<double>(hi - lo + 1);
  if (span > static_cast<double>(options.max_bins)) {
    throw ConfigError(fmt::format(
        "numerical PLD: the privacy loss of one release (q = {}, σ/Δ = {}) spans [{:.4g}, {:.4g}], "
        "{:.3g} bins at interval {}; the limit is {} bins: increase the interval",
        q, z, static_cast<double>(lo) * h, static_cast<double>(hi) * h, span, h, options.max_bins));
  }
  Bins bins;
  bins.lo = lo;
  bins.v.assign(static_cast<std::size_t>(hi - lo + 1), 0.0);
  DiscretePld out;
  out.interval = h;
  out.rounding = rounding;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    discretise_piece(pieces[i], L, h, windows[i], bins, rounding, out.infinity_mass,
                     options.tail_mass);
  }
  bins.add(0, atom_at_zero);
  // Trim empty ends.
  std::size_t first = 0, last = bins.v.size();
  while (first < last && bins.v[first] == 0.0) ++first;
  while (last > first && bins.v[last - 1] == 0.0) --last;
  out.min_index = lo + static_cast<std::int64_t>(first);
  out.pmf.assign(bins.v.begin() + static_cast<std::ptrdiff_t>(first),
                 bins.v.begin() + static_cast<std::ptrdiff_t>(last));
  if (out.pmf.empty()) out.pmf.push_back(0.0);
  truncate_pld(out, options);
  return out;
}

}  // namespace dpmcmc
