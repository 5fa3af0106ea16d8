#include "diagnostics/summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "diagnostics/ess.hpp"
#include "diagnostics/mcse.hpp"
#include "diagnostics/quantile.hpp"
#include "diagnostics/rhat.hpp"
#include "io/stan_csv_reader.hpp"

namespace dpmcmc {
namespace {

const std::string kDir = std::string(DPMCMC_FIXTURES_DIR) + "/stan-bernoulli/";

struct Fixture {
  std::vector<std::string> names;
  std::vector<Mat> chains;
  std::vector<std::string> labels;
};

Fixture load() {
  Fixture f;
  for (int c = 1; c <= 4; ++c) {
    const std::string path = kDir + "bern" + std::to_string(c) + ".csv";
    StanCsv csv = read_stan_csv(path);
    f.names = csv.columns;
    f.chains.push_back(csv.sampling_draws());
    f.labels.push_back(path);
  }
  return f;
}

TEST(Summary, ThetaRowUsesPosteriorDefinitions) {
  const Fixture f = load();
  const Summary s = summarize(f.names, f.chains, f.labels);
  EXPECT_EQ(s.chains, 4u);
  EXPECT_EQ(s.draws_per_chain, 1000u);
  ASSERT_EQ(s.parameters.size(), 8u);
  const ParameterSummary& t = s.parameters.back();
  ASSERT_EQ(t.name, "theta");
  // Published values (see fixture_test.cpp) and stansummary's (mean, sd, N_Eff, split R̂).
  EXPECT_NEAR(t.rhat, 1.006789, 1e-6 * 1.006789);
  EXPECT_NEAR(t.ess_bulk, 1407.5124, 0.5e-4);
  EXPECT_NEAR(t.ess_tail, 1291.7131, 0.5e-4);
  EXPECT_NEAR(t.mean, 0.251297410482, 0.6e-12);  // printed value ends in a rounded 5
  EXPECT_NEAR(t.sd, 0.121546686658, 0.5e-12);
  EXPECT_NEAR(t.n_eff, 1377.5030282, 0.5e-7);
  EXPECT_NEAR(t.rhat_basic, 1.00721797217, 0.5e-11);
  // The remaining columns are the library functions on the same draws.
  Mat theta(1000, 4);
  for (int c = 0; c < 4; ++c) theta.col(c) = f.chains[static_cast<std::size_t>(c)].col(7);
  EXPECT_EQ(t.mcse_mean, mcse_mean(theta));
  EXPECT_EQ(t.mcse_sd, mcse_sd(theta));
  EXPECT_EQ(t.q5, quantile(theta, 0.05));
  EXPECT_EQ(t.q50, quantile(theta, 0.5));
  EXPECT_EQ(t.q95, quantile(theta, 0.95));
}

TEST(Summary, TextTableHasOneAlignedLinePerParameter) {
  const Fixture f = load();
  const std::string text = format_summary(summarize(f.names, f.chains), 3);
  EXPECT_NE(text.find("4 chains, 1000 draws each, 4000 draws in total"), std::string::npos);
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const auto nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  // lines: title, blank, header, 8 parameters, blank, 2 footnote lines
  ASSERT_GE(lines.size(), 11u);
  const std::string& header = lines[2];
  for (const char* col :
       {"Mean", "MCSE", "StdDev", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "R_hat"}) {
    EXPECT_NE(header.find(col), std::string::npos) << col;
  }
  for (int i = 3; i < 11; ++i) EXPECT_EQ(lines[i].size(), header.size()) << lines[i];
  // theta: mean 0.251, R̂ 1.007, bulk ESS 1408 (rounded).
  EXPECT_EQ(lines[10].rfind("theta", 0), 0u);
  EXPECT_NE(lines[10].find("0.251"), std::string::npos);
  EXPECT_NE(lines[10].find("1408"), std::string::npos);
  EXPECT_NE(lines[10].find("1.007"), std::string::npos);
  // stepsize__ is constant within each chain at a different value per chain (its R̂ would be ∞;
  // stansummary 2.35 prints the round-off value 6.9e12) and divergent__ is 0 throughout (0/0):
  // both show "-" for MCSE, ESS and R̂ and are named under the table.
  for (const int i : {5, 8}) {
    EXPECT_EQ(lines[static_cast<std::size_t>(i)].back(), '-') << lines[static_cast<std::size_t>(i)];
    EXPECT_EQ(lines[static_cast<std::size_t>(i)].find("nan"), std::string::npos);
    EXPECT_EQ(lines[static_cast<std::size_t>(i)].find("inf"), std::string::npos);
  }
  EXPECT_NE(text.find("Constant within each chain (no MCSE, ESS or R_hat): stepsize__ divergent__"),
            std::string::npos)
      << text;
  EXPECT_THROW(format_summary(Summary{}, 0), UsageError);
}

TEST(Summary, JsonHasAllFieldsAndNullForUndefined) {
  const Fixture f = load();
  const nlohmann::json j = summary_json(summarize(f.names, f.chains));
  EXPECT_EQ(j.at("chains"), 4);
  EXPECT_EQ(j.at("draws_per_chain"), 1000);
  ASSERT_EQ(j.at("parameters").size(), 8u);
  const auto& theta = j.at("parameters").at(7);
  EXPECT_EQ(theta.at("name"), "theta");
  for (const char* key : {"mean", "mcse_mean", "sd", "mcse_sd", "q5", "q50", "q95", "ess_bulk",
                          "ess_tail", "rhat", "n_eff", "rhat_basic"}) {
    EXPECT_TRUE(theta.at(key).is_number()) << key;
  }
  EXPECT_NEAR(theta.at("ess_bulk").get<double>(), 1407.5124, 0.5e-4);
  const auto& divergent = j.at("parameters").at(5);
  EXPECT_EQ(divergent.at("name"), "divergent__");
  EXPECT_TRUE(divergent.at("rhat").is_null());
  EXPECT_TRUE(divergent.at("ess_bulk").is_null());
  EXPECT_EQ(divergent.at("mean"), 0.0);
  // Round trip through text keeps the numbers.
  const auto reparsed = nlohmann::json::parse(j.dump());
  EXPECT_EQ(reparsed.at("parameters").at(7).at("rhat").get<double>(),
            theta.at("rhat").get<double>());
}

TEST(Summary, RefusesInconsistentChains) {
  const std::vector<std::string> names = {"a", "b"};
  const std::vector<std::string> labels = {"one.csv", "two.csv"};
  std::vector<Mat> chains = {Mat::Random(100, 2), Mat::Random(90, 2)};
  try {
    summarize(names, chains, labels);
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("chain 2 (two.csv) has 90 draws"), std::string::npos)
        << e.what();
  }
  chains = {Mat::Random(100, 2), Mat::Random(100, 3)};
  EXPECT_THROW(summarize(names, chains), DataError);
  EXPECT_THROW(summarize(names, std::vector<Mat>{}), DataError);
  chains = {Mat(0, 2)};
  EXPECT_THROW(summarize(names, chains), DataError);
}

TEST(Summary, ColumnWithoutFiniteDrawIsNamedNotPrintedAsNan) {
  // A private run's lp__ is NaN in every draw: the table names it under the rows instead of
  // printing a row of "nan"; a column with some finite draws keeps its row.
  Mat a(4, 3), b(4, 3);
  const double nan = std::nan("");
  a << nan, 0.1, 1.0, nan, 0.2, 2.0, nan, 0.3, 3.0, nan, 0.4, 4.0;
  b << nan, 0.5, 1.5, nan, 0.6, nan, nan, 0.7, 3.5, nan, 0.8, 4.5;
  const std::vector<std::string> names = {"lp__", "accept_stat__", "theta.1"};
  const std::vector<Mat> chains = {a, b};
  const Summary s = summarize(names, chains);
  EXPECT_TRUE(s.parameters[0].no_finite_draw);
  EXPECT_FALSE(s.parameters[2].no_finite_draw);  // one NaN among finite draws
  const std::string text = format_summary(s);
  EXPECT_EQ(text.find("\nlp__ "), std::string::npos) << text;
  EXPECT_NE(text.find("No finite draw (not summarised): lp__\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ntheta.1 "), std::string::npos) << text;
  EXPECT_NE(text.find("\naccept_stat__ "), std::string::npos) << text;
}

// The table's row of `name` shows "-" for MCSE, ESS_bulk, ESS_tail and R_hat, and no nan or inf.
void expect_row_without_diagnostics(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  ASSERT_NE(at, std::string::npos) << text;
  const auto row = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  EXPECT_EQ(std::count(row.begin(), row.end(), '-'), 4) << row;
  EXPECT_EQ(row.find("nan"), std::string::npos) << row;
  EXPECT_EQ(row.find("inf"), std::string::npos) << row;
}

TEST(Summary, RunningSpendHasNoMixingDiagnostics) {
  // A private chain's eps_spent__ grows by the same step every iteration: its split R̂ and ESS are
  // those of a trend (R̂ far above 1.01, ESS near 1), which read as a failed run. The summary gives
  // it none; a parameter holding the very same numbers under another name keeps them, so a
  // drifting parameter is still flagged.
  const Eigen::Index n = 200;
  Mat a(n, 2), b(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double spent = 0.01 * static_cast<double>(i + 1);
    a.row(i) << spent, spent;
    b.row(i) << spent, spent;
  }
  const std::vector<std::string> names = {"eps_spent__", "theta.1"};
  const std::vector<Mat> chains = {a, b};
  const Summary s = summarize(names, chains);
  const ParameterSummary& spend = s.parameters[0];
  const ParameterSummary& drift = s.parameters[1];
  EXPECT_TRUE(spend.running_total);
  EXPECT_FALSE(drift.running_total);
  for (double v : {spend.rhat, spend.ess_bulk, spend.ess_tail, spend.mcse_mean, spend.mcse_sd,
                   spend.n_eff, spend.rhat_basic})
    EXPECT_TRUE(std::isnan(v));
  EXPECT_GT(drift.rhat, 1.5);  // the same trend as a parameter: flagged
  EXPECT_DOUBLE_EQ(spend.mean, drift.mean);
  EXPECT_DOUBLE_EQ(spend.sd, drift.sd);
  EXPECT_DOUBLE_EQ(spend.q5, drift.q5);
  EXPECT_DOUBLE_EQ(spend.q95, drift.q95);
  const std::string text = format_summary(s);
  expect_row_without_diagnostics(text, "eps_spent__");
  EXPECT_NE(text.find("Running totals, not draws (no MCSE, ESS or R_hat): eps_spent__"),
            std::string::npos)
      << text;
  const nlohmann::json j = summary_json(s);
  EXPECT_TRUE(j.at("parameters").at(0).at("running_total").get<bool>());
  EXPECT_TRUE(j.at("parameters").at(0).at("rhat").is_null());
  EXPECT_FALSE(j.at("parameters").at(1).at("running_total").get<bool>());
}

TEST(Summary, ColumnConstantWithinChainsIsNamedNotPrintedAsNanOrInf) {
  // A column with one value per chain (a NUTS step size after warmup: 0.25 in one chain, 0.3 in
  // the other) has no within-chain variance: ESS was NaN and R-hat "inf". It gets "-" and a note;
  // a column that moves keeps its numbers, and so does one constant in one chain only.
  Mat a(50, 3), b(50, 3);
  for (Eigen::Index i = 0; i < 50; ++i) {
    const double t = static_cast<double>(i);
    a.row(i) << 0.25, std::sin(t), 1.0;
    b.row(i) << 0.3, std::cos(t), std::sin(t);
  }
  const std::vector<std::string> names = {"stepsize__", "theta.1", "theta.2"};
  const std::vector<Mat> chains = {a, b};
  const Summary s = summarize(names, chains);
  EXPECT_TRUE(s.parameters[0].constant_within_chains);
  EXPECT_FALSE(s.parameters[1].constant_within_chains);
  EXPECT_FALSE(s.parameters[2].constant_within_chains);
  EXPECT_TRUE(std::isinf(s.parameters[0].rhat));  // stuck at different values: disagree
  EXPECT_NEAR(s.parameters[0].mean, 0.275, 1e-15);
  EXPECT_TRUE(std::isfinite(s.parameters[1].rhat));
  EXPECT_TRUE(std::isfinite(s.parameters[2].rhat));
  const std::string text = format_summary(s);
  expect_row_without_diagnostics(text, "stepsize__");
  EXPECT_NE(text.find("Constant within each chain (no MCSE, ESS or R_hat): stepsize__\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(summary_json(s).at("parameters").at(0).at("constant_within_chains").get<bool>());
}

TEST(Summary, UndefinedTailEssIsExplainedUnderTheTable) {
  // accept_stat__ of a Metropolis chain is 1 for every uphill move: with a quarter of the draws
  // at the maximum, the 95% quantile is 1 and I(x <= q95) is 1 everywhere, so the tail ESS is
  // undefined (posterior: NA) while the bulk ESS is not. A column with spread at both ends has
  // both.
  Mat a(40, 2), b(40, 2);
  for (Eigen::Index i = 0; i < 40; ++i) {
    const double t = static_cast<double>(i);
    a.row(i) << (i % 4 == 0 ? 1.0 : 0.5 + 0.4 * std::sin(t)), std::sin(t);
    b.row(i) << (i % 4 == 1 ? 1.0 : 0.5 + 0.4 * std::cos(t)), std::cos(t);
  }
  const std::vector<std::string> names = {"accept_stat__", "theta.1"};
  const std::vector<Mat> chains = {a, b};
  const Summary s = summarize(names, chains);
  EXPECT_TRUE(std::isnan(s.parameters[0].ess_tail));
  EXPECT_TRUE(std::isfinite(s.parameters[0].ess_bulk));
  EXPECT_TRUE(std::isfinite(s.parameters[1].ess_tail));
  const std::string text = format_summary(s);
  EXPECT_NE(text.find("ESS_tail undefined (nan): accept_stat__ (more than about 5%"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("undefined (nan): accept_stat__ theta.1"), std::string::npos) << text;
}

}  // namespace
}  // namespace dpmcmc
