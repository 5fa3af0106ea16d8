// Per-parameter posterior summary (the table of `dpmcmc summary FILES…`), like CmdStan's
// stansummary but with the posterior-package definitions (Vehtari et al. 2021):
//   Mean, MCSE (of the mean, posterior's mcse_mean), StdDev (pooled, denominator S−1),
//   5%, 50%, 95% (type-7 quantiles of the pooled draws), ESS_bulk, ESS_tail,
//   R_hat (max of rank-normalised split bulk and folded R̂).
// The struct also carries MCSE of the sd and the two basic diagnostics CmdStan 2.35's
// stansummary printed (N_Eff = unsplit basic ESS, R_hat = classic split R̂) for comparison.
// Why two conventions: CmdStan ≥ 2.33 and every current tool report the rank-normalised
// diagnostics; files and papers made with older CmdStan report N_Eff and classic R̂.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics/chains.hpp"

namespace dpmcmc {

struct ParameterSummary {
  std::string name;
  double mean = 0.0;
  double mcse_mean = 0.0;
  double sd = 0.0;
  double mcse_sd = 0.0;
  double q5 = 0.0;
  double q50 = 0.0;
  double q95 = 0.0;
  double ess_bulk = 0.0;
  double ess_tail = 0.0;
  double rhat = 0.0;
  double n_eff = 0.0;           // unsplit, not rank-normalised (stansummary 2.35 N_Eff)
  double rhat_basic = 0.0;      // classic split R̂ (stansummary 2.35 R_hat)
  bool no_finite_draw = false;  // every draw NaN or ±∞ (a private run's lp__)
  bool running_total = false;   // a running total, not a draw: no MCSE, ESS or R̂ (below)
  // Every chain holds one value throughout (a NUTS step size after warmup, divergent__ with no
  // divergence, a chain stuck where it started): no MCSE or ESS (0/0 within chains); R̂ is +∞
  // when the chains' values differ, NaN when they are one value. The table shows "-" for all.
  bool constant_within_chains = false;
};

// Whether a column is a running total rather than a draw of the chain: a private chain's
// eps_spent__ (run/private_job.cpp) is the ε it has spent so far, non-decreasing by construction.
// Its split R̂ compares early spends with late ones and its ESS counts a trend, so the summary
// gives it no MCSE, ESS or R̂ (they would read as a chain that failed to converge: R̂ 2.1 and
// ESS 1 on a run whose parameters mixed well).
bool is_running_total(std::string_view column);

struct Summary {
  std::size_t chains = 0;
  std::size_t draws_per_chain = 0;
  std::vector<ParameterSummary> parameters;
};

// Summary of one parameter from its draws × chains matrix. Diagnostics that are undefined
// (constant or non-finite draws) are NaN.
ParameterSummary summarize_parameter(std::string name, const ChainDraws& draws);

// Summary of every column. chains[c] is the draws × parameters matrix of chain c (e.g.
// StanCsv::sampling_draws()), names[j] names column j. Throws DataError when there are no
// chains or no draws, when a chain's column count differs from names.size(), or when chains
// differ in length; chain_labels[c] (e.g. file names), when given, name the chains in messages.
Summary summarize(std::span<const std::string> names, std::span<const Mat> chains,
                  std::span<const std::string> chain_labels = {});

// Fixed-width text table: one line per parameter, columns
//   name Mean MCSE StdDev 5% 50% 95% ESS_bulk ESS_tail R_hat,
// real values with `sig_figs` significant digits (1…17), ESS rounded to integers, R̂ with three
// decimals (three significant digits from 1000 up, "inf" for chains each stuck at its own
// point), undefined values as "nan" (an undefined ESS_tail is explained under the table), "-" for
// a running total's diagnostics (named under the table). A column with no finite draw (a private
// run's lp__: the log posterior needs the private rows) is named in a line under the table instead
// of a row of "nan". Ends with a line saying which definitions were used.
std::string format_summary(const Summary& summary, int sig_figs = 3);

// {"chains": M, "draws_per_chain": N, "parameters": [{"name": …, "mean": …, "mcse_mean": …,
//   "sd": …, "mcse_sd": …, "q5": …, "q50": …, "q95": …, "ess_bulk": …, "ess_tail": …,
//   "rhat": …, "n_eff": …, "rhat_basic": …, "running_total": bool}, …]}; undefined and infinite
//   values are null (JSON has no infinity; the text table tells them apart), and so are a running
//   total's MCSE, ESS and R̂.
nlohmann::json summary_json(const Summary& summary);

}  // namespace dpmcmc
