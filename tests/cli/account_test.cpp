// `dpmcmc account` end to end: published reference values through the command line, and the
// refusal of invalid input with exit code 64 and a message naming the option.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

double row_value(const nlohmann::json& rows, const std::string& accountant,
                 const std::string& key) {
  for (const auto& r : rows) {
    if (r["accountant"] == accountant) return r[key].get<double>();
  }
  ADD_FAILURE() << "no row for " << accountant;
  return 0.0;
}

// `dpmcmc account ARGS --json` in a scratch directory named `scratch`: its answer, parsed (a test
// failure and null when it exits non-zero).
nlohmann::json account_json(const std::string& scratch, const std::string& args) {
  const auto dir = scratch_dir(scratch);
  const auto r = run_cli("account " + args + " --json", dir);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// Gaussian mechanism σ = 1, Δ = 1 (add/remove): δ(ε = 1) = 0.12693674 (published value).
TEST(CliAccount, GaussianDeltaMatchesPublishedValue) {
  const auto rows =
      account_json("account-delta", "--mechanism gaussian --sigma 1 --sensitivity 1 --epsilon 1");
  EXPECT_NEAR(row_value(rows, "pld-gaussian", "delta"), 0.12693674, 1e-8);
}

// σ = Δ = 1: ε(δ = 1e-5) = 4.37717810 (published value for 1-GDP).
TEST(CliAccount, GaussianEpsilonMatchesPublishedValue) {
  const auto rows = account_json("account-eps", "--mechanism gaussian --sigma 1 --delta 1e-5");
  EXPECT_NEAR(row_value(rows, "pld-gaussian", "epsilon"), 4.37717810, 1e-7);
}

// DP penalty on the thesis' flat 2-d banana (n = 1e5, τ = 0.1, α = 1/2, δ = 1e-6, ε = 4): the
// tight PLD allows more iterations than zCDP, and the planner flags it. The zCDP count is checked
// against the closed form of Theorem 3.1: ρ per iteration = 1/(2τ²n), k = ⌊ρ_budget / ρ⌋ with
// ρ_budget solving ε = ρ + 2√(ρ ln(1/δ′)), i.e. √ρ = √(ln(1/δ′) + ε) − √(ln(1/δ′)), at the
// accountants' share δ′ = δ(1 − 2⁻¹⁰) (the rest is the discrete noise's, as in `sample`).
// `--algorithm` is the older name of `--sampler`.
TEST(CliAccount, AlgorithmIterations) {
  const auto out = account_json(
      "account-algo",
      "--algorithm dp-penalty --n 100000 --epsilon 4 --delta 1e-6 --tau 0.1 --alpha 0.5");
  const auto& rows = out["accountants"];
  const double delta = 1e-6 - std::ldexp(1e-6, -10);
  EXPECT_EQ(out["delta_accountants"].get<double>(), delta);
  const double l = std::log(1 / delta);
  const double rho_budget = std::pow(std::sqrt(l + 4.0) - std::sqrt(l), 2);
  const double rho_iter = 1.0 / (2.0 * 0.01 * 1e5);
  EXPECT_EQ(row_value(rows, "zcdp", "iterations"), std::floor(rho_budget / rho_iter));
  EXPECT_GT(row_value(rows, "pld-gaussian", "iterations"), row_value(rows, "zcdp", "iterations"));
}

// The table explains an infinite upper bound caused by the numerical PLD's own error allowance
// (NumericalPld.CaveatWhenTheErrorAllowanceReachesDelta) instead of printing a bare "inf".
TEST(CliAccount, TableExplainsAnInfiniteNumericalBound) {
  const auto dir = scratch_dir("account-caveat");
  const auto r = run_cli(
      "account --mechanism subsampled-gaussian --sigma 1 --sampling without-replacement --q 0.01 "
      "--compositions 10000 --delta 1e-9 --accountants pld-numerical-upper",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("inf"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no finite ε certified at δ = 1e-09"), std::string::npos) << r.out;
}

// Almost no noise (σ/Δ = 1e-8, 1e-12): every accountant that can answer gives ε ≈ 1/(2σ²), and
// the numerical PLD, whose loss range cannot be binned, says so in its row. Both once ended the
// command with an internal error (exit 70).
TEST(CliAccount, AlmostNoNoiseGivesEachAccountantsAnswerOrItsReason) {
  for (const double sigma : {1e-8, 1e-12}) {
    const double mu = 1.0 / (2.0 * sigma * sigma);
    for (const auto& row :
         account_json("account-tiny-sigma",
                      fmt::format("--mechanism gaussian --sigma {} --delta 1e-5", sigma))) {
      const std::string name = row["accountant"].get<std::string>();
      if (name.starts_with("pld-numerical")) {
        EXPECT_FALSE(row["ok"].get<bool>()) << row;
        EXPECT_NE(row["message"].get<std::string>().find("increase the interval"),
                  std::string::npos)
            << row;
      } else if (name == "pld-gaussian") {
        EXPECT_NEAR(row["epsilon"].get<double>(), mu, 1e-6 * mu) << row;
      }
    }
  }
}

// DP-SGLD with a tiny step: ~2.4e8 iterations fit the budget. RDP's ε wavered by 4.6e-9 relative
// between neighbouring counts and the numerical PLD's lower bound fell 2.6 % at 1e13 iterations;
// each ended the command with exit 70. Now RDP plans and a failing accountant's row says why.
TEST(CliAccount, AnAccountantPastItsNumericalLimitsDoesNotEndThePlan) {
  const auto out = account_json("account-limits",
                                "--sampler dp-sgld --model banana-tempered-2d --n 2000 "
                                "--step-size 0.001 --clip 5 --epsilon 1");
  EXPECT_GT(out["iterations_allowed"].get<double>(), 1e8) << out;
  for (const auto& row : out["accountants"]) {
    if (row["accountant"] == "rdp") {
      EXPECT_TRUE(row["ok"].get<bool>()) << row;
    }
    if (!row["ok"].get<bool>()) {
      EXPECT_FALSE(row["message"].get<std::string>().empty()) << row;
    }
  }
}

TEST(CliAccount, InvalidInputIsRefused) {
  const auto dir = scratch_dir("account-bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"account --mechanism gaussian --sigma 1 --delta 2", "--delta"},
      {"account --mechanism gaussian --sigma 1 --delta 0", "--delta"},
      {"account --mechanism gaussian --sigma 1 --epsilon -1", "--epsilon"},
      {"account --mechanism gaussian --sigma 1 --epsilon 1e300", "--epsilon"},
      {"account --mechanism gaussian --sigma 0 --delta 1e-5", "--sigma"},
      {"account --mechanism gaussian --sigma 1 --delta 1e-5 --compositions 0", "--compositions"},
      {"account --mechanism subsampled-gaussian --sampling poisson --q 1.5 --sigma 1 --delta 1e-5",
       "--q"},
      {"account --mechanism gaussian --sigma 1", "--delta"},
      // The names --help gives, not the internal ones (it listed approximate_dp).
      {"account --mechanism laplace --sigma 1 --delta 1e-5", "{gaussian,subsampled-gaussian}"},
      {"account --sampler dp-penalty --n 100 --tau 0.1 --epsilon 1 --delta 2", "--delta"},
      {"account --algorithm nope --n 100 --epsilon 1 --delta 1e-5", "--sampler"},
      {"account --mechanism gaussian --sigma 1 --delta 1e-5 --accountants nope", "nope"},
      {"account --mechanism gaussian --sigma 1 --delta 1e-5 --accountants rdp --rdp-orders 0.5,2",
       "--rdp-orders"},
  };
  for (const auto& [args, needle] : cases) {
    const auto r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 64) << args << ": " << r.err;  // every case is a bad option value
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace dpmcmc::test
