#include "diagnostics/summary.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "diagnostics/ess.hpp"
#include "diagnostics/mcse.hpp"
#include "diagnostics/quantile.hpp"
#include "diagnostics/rank_normalize.hpp"
#include "diagnostics/rhat.hpp"

namespace dpmcmc {

namespace {

// What every column gets, a running total too: its location and spread. The chain diagnostics
// are left NaN for the caller to fill.
ParameterSummary describe(std::string name, const ChainDraws& draws) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ParameterSummary p;
  p.name = std::move(name);
  p.mean = draws.mean();
  p.sd = pooled_sd(draws);
  Vec probs(3);
  probs << 0.05, 0.5, 0.95;
  const Vec q = quantiles(draws, probs);
  p.q5 = q(0);
  p.q50 = q(1);
  p.q95 = q(2);
  p.mcse_mean = p.mcse_sd = p.ess_bulk = p.ess_tail = p.rhat = p.n_eff = p.rhat_basic = kNaN;
  p.no_finite_draw = !draws.array().isFinite().any();
  p.constant_within_chains = !p.no_finite_draw && draws.array().isFinite().all();
  for (Eigen::Index c = 0; c < draws.cols() && p.constant_within_chains; ++c)
    p.constant_within_chains = draws.col(c).minCoeff() == draws.col(c).maxCoeff();
  return p;
}

}  // namespace

ParameterSummary summarize_parameter(std::string name, const ChainDraws& draws) {
  ParameterSummary p = describe(std::move(name), draws);
  if (p.constant_within_chains) {
    // No variance within chains: no MCSE or ESS. Chains stuck at different values disagree
    // without bound (the between-chain variance over a zero within-chain one): R̂ = +∞, which
    // the warnings and an experiment's max_rhat report; at one common value it is undefined.
    if (!is_constant(draws)) p.rhat = p.rhat_basic = std::numeric_limits<double>::infinity();
    return p;
  }
  p.mcse_mean = mcse_mean(draws);
  p.mcse_sd = mcse_sd(draws);
  p.ess_tail = ess_tail(draws);
  if (all_finite(draws) && !is_constant(draws)) {
    // ess_bulk and rhat_bulk share the rank-normalised split chains; compute them once.
    const Mat z = z_scale(split_chains(draws));
    p.ess_bulk = ess_geyer(z);
    const double bulk = rhat_classic(z), tail = rhat_tail(draws);
    p.rhat = std::isnan(bulk) || std::isnan(tail) ? std::nan("") : std::max(bulk, tail);
  }
  p.n_eff = stansummary_ess(draws);
  p.rhat_basic = rhat_basic(draws, true);
  return p;
}

Summary summarize(std::span<const std::string> names, std::span<const Mat> chains,
                  std::span<const std::string> chain_labels) {
  auto label = [&](std::size_t c) {
    return c < chain_labels.size() ? fmt::format("chain {} ({})", c + 1, chain_labels[c])
                                   : fmt::format("chain {}", c + 1);
  };
  if (chains.empty()) throw DataError("summary: no chains given");
  const Eigen::Index n = chains[0].rows();
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (static_cast<std::size_t>(chains[c].cols()) != names.size()) {
      throw DataError(fmt::format("summary: {} has {} columns but {} names were given", label(c),
                                  chains[c].cols(), names.size()));
    }
    if (chains[c].rows() == 0) throw DataError(fmt::format("summary: {} has no draws", label(c)));
    if (chains[c].rows() != n) {
      throw DataError(fmt::format(
          "summary: {} has {} draws but {} has {}; all chains must have the same number of "
          "draws (as in the posterior package)",
          label(c), chains[c].rows(), label(0), n));
    }
  }
  Summary out;
  out.chains = chains.size();
  out.draws_per_chain = static_cast<std::size_t>(n);
  out.parameters.reserve(names.size());
  Mat draws(n, static_cast<Eigen::Index>(chains.size()));
  for (std::size_t j = 0; j < names.size(); ++j) {
    for (std::size_t c = 0; c < chains.size(); ++c) {
      draws.col(static_cast<Eigen::Index>(c)) = chains[c].col(static_cast<Eigen::Index>(j));
    }
    if (is_running_total(names[j])) {
      out.parameters.push_back(describe(names[j], draws));
      out.parameters.back().running_total = true;
    } else {
      out.parameters.push_back(summarize_parameter(names[j], draws));
    }
  }
  return out;
}

bool is_running_total(std::string_view column) {
  return column.ends_with("eps_spent__");
}

namespace {

std::string real(double v, int sig_figs) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.{}g}", v, sig_figs);
}

std::string count(double v) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.0f}", v);
}

// R̂ near 1 with three decimals (the 1.01 threshold must be readable); large values in exponent
// form; chains constant within each half at different values give "inf".
std::string ratio(double v) {
  if (std::isnan(v)) return "nan";
  if (std::abs(v) >= 1e3) return fmt::format("{:.3g}", v);
  return fmt::format("{:.3f}", v);
}

}  // namespace

std::string format_summary(const Summary& summary, int sig_figs) {
  if (sig_figs < 1 || sig_figs > 17) {
    throw UsageError(fmt::format("summary: sig_figs must be in 1…17, got {}", sig_figs));
  }
  const std::vector<std::string> header = {"",    "Mean", "MCSE",     "StdDev",   "5%",
                                           "50%", "95%",  "ESS_bulk", "ESS_tail", "R_hat"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> without_finite_draw, running_totals, constants, tail_undefined;
  for (const auto& p : summary.parameters) {
    if (p.no_finite_draw) {
      without_finite_draw.push_back(p.name);
      continue;
    }
    // A column without spread within its chains (a fixed parameter, a step size after warmup)
    // has no MCSE, ESS or R_hat: "-" and a note, not nan or inf.
    const bool constant = p.constant_within_chains;
    if (constant && !p.running_total) constants.push_back(p.name);
    if (p.running_total || constant) {
      if (p.running_total) running_totals.push_back(p.name);
      rows.push_back({p.name, real(p.mean, sig_figs), "-", real(p.sd, sig_figs),
                      real(p.q5, sig_figs), real(p.q50, sig_figs), real(p.q95, sig_figs), "-", "-",
                      "-"});
      continue;
    }
    // A column that moves but sits at its largest value in more than about 5% of the draws (an
    // acceptance probability of 1): q95 is that value, I(x <= q95) does not vary, so ESS_tail is
    // undefined, as in the posterior package (NA). (Mass at the smallest value leaves the 5%
    // indicator varying.) Said once under the table.
    if (std::isnan(p.ess_tail) && !std::isnan(p.ess_bulk)) tail_undefined.push_back(p.name);
    rows.push_back({p.name, real(p.mean, sig_figs), real(p.mcse_mean, sig_figs),
                    real(p.sd, sig_figs), real(p.q5, sig_figs), real(p.q50, sig_figs),
                    real(p.q95, sig_figs), count(p.ess_bulk), count(p.ess_tail), ratio(p.rhat)});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t k = 0; k < header.size(); ++k) {
    width[k] = header[k].size();
    for (const auto& r : rows) width[k] = std::max(width[k], r[k].size());
  }
  std::string out = fmt::format("{} chains, {} draws each, {} draws in total\n\n", summary.chains,
                                summary.draws_per_chain, summary.chains * summary.draws_per_chain);
  auto line = [&](const std::vector<std::string>& cells) {
    out += fmt::format("{:<{}}", cells[0], width[0]);
    for (std::size_t k = 1; k < cells.size(); ++k)
      out += fmt::format("  {:>{}}", cells[k], width[k]);
    out += '\n';
  };
  line(header);
  for (const auto& r : rows) line(r);
  if (!without_finite_draw.empty()) {
    out += "\nNo finite draw (not summarised):";
    for (const auto& name : without_finite_draw) out += " " + name;
    out += '\n';
  }
  if (!constants.empty()) {
    out += fmt::format("\nConstant within each chain (no MCSE, ESS or R_hat): {}\n",
                       fmt::join(constants, " "));
  }
  if (!tail_undefined.empty()) {
    out += fmt::format(
        "\nESS_tail undefined (nan): {} (more than about 5% of the draws equal the largest "
        "value,\nso the indicator of the 95% quantile does not vary)\n",
        fmt::join(tail_undefined, " "));
  }
  if (!running_totals.empty()) {
    out += fmt::format(
        "\nRunning totals, not draws (no MCSE, ESS or R_hat): {} (the chain's privacy spend so "
        "far)\n",
        fmt::join(running_totals, " "));
  }
  out +=
      "\nMCSE is of the mean; 5%, 50%, 95% are type-7 quantiles of the pooled draws; ESS_bulk, "
      "ESS_tail and R_hat\nare the rank-normalised split-chain diagnostics of Vehtari et al. "
      "(2021), as in the posterior package.\n";
  return out;
}

nlohmann::json summary_json(const Summary& summary) {
  auto number = [](double v) -> nlohmann::json {
    if (std::isfinite(v)) return v;
    return nullptr;
  };
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : summary.parameters) {
    params.push_back({{"name", p.name},
                      {"mean", number(p.mean)},
                      {"mcse_mean", number(p.mcse_mean)},
                      {"sd", number(p.sd)},
                      {"mcse_sd", number(p.mcse_sd)},
                      {"q5", number(p.q5)},
                      {"q50", number(p.q50)},
                      {"q95", number(p.q95)},
                      {"ess_bulk", number(p.ess_bulk)},
                      {"ess_tail", number(p.ess_tail)},
                      {"rhat", number(p.rhat)},
                      {"n_eff", number(p.n_eff)},
                      {"rhat_basic", number(p.rhat_basic)},
                      {"running_total", p.running_total},
                      {"constant_within_chains", p.constant_within_chains}});
  }
  return {{"chains", summary.chains},
          {"draws_per_chain", summary.draws_per_chain},
          {"parameters", params}};
}

}  // namespace dpmcmc
