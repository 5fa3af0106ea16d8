// Private sampling end to end (issue "Private data access and the DP penalty family"): the
// report's recorded spend, composed from the events the releases logged, equals the planned
// spend for every accountant; the draws carry the private columns; budget errors are refused.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

TEST(CliPrivateSample, RecordedSpendEqualsPlannedForEveryAccountant) {
  const auto dir = scratch_dir("private");
  const auto out = dir / "run";
  for (const std::string sampler : {"dp-penalty", "dp-penalty-ocu", "dp-penalty-gwmh"}) {
    const auto r =
        // The named accountants are run, and only they (by default the exact Gaussian PLD makes
        // the others unnecessary: ExponentialFamilyPenalty below).
        run_cli("sample --model banana-tempered-2d --sampler " + sampler +
                    " --n 2000 --epsilon 2 --chains 2 --seed 4 --quiet --accountants pld-gaussian "
                    "zcdp rdp pld-numerical-upper --out " +
                    out.string(),
                dir);
    ASSERT_EQ(r.exit_code, 0) << sampler << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    const auto& privacy = report["privacy"];
    ASSERT_TRUE(privacy["private"].get<bool>()) << sampler;
    EXPECT_DOUBLE_EQ(privacy["budget"]["delta"].get<double>(), 0.1 / 2000);  // default 0.1/n
    const auto scheduled = privacy["iterations_scheduled"].get<std::uint64_t>();
    const auto recorded = privacy["releases_recorded"].get<std::uint64_t>();
    // Every transition releases once, except proposals outside the prior's support or zero
    // steps (never on this model): recorded = scheduled.
    EXPECT_EQ(recorded, scheduled) << sampler;
    int certified = 0, composed = 0;
    for (const auto& row : privacy["accountants"]) {
      if (row.contains("skipped")) {
        EXPECT_EQ(row["skipped"], "not run: not named in --accountants") << row.dump();
        continue;
      }
      ++composed;
      ASSERT_TRUE(row.contains("recorded_epsilon")) << row.dump();
      EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                  1e-9 * row["planned_epsilon"].get<double>())
          << sampler << " " << row["accountant"];
      if (row["accountant"] == privacy["planned_by"]) {
        EXPECT_LE(row["planned_epsilon"].get<double>(), 2.0) << "the plan exceeds the budget";
        ++certified;
      }
    }
    EXPECT_EQ(certified, 1) << sampler;
    EXPECT_EQ(composed, 4) << sampler;  // pld-gaussian, zcdp, rdp, pld-numerical-upper
    // Published: θ and the functions of released values; the clip fraction is the curator's.
    const std::string csv = slurp(out / "chain-1.csv");
    EXPECT_NE(csv.find("lp__,accept_stat__,noise_sd__,eps_spent__,theta.1,theta.2"),
              std::string::npos)
        << sampler;
    const std::string curator = slurp(dir / (out.filename().string() + ".curator") / "chain-1.csv");
    EXPECT_EQ(curator.rfind("# computed from the private data without noise", 0), 0u) << sampler;
    EXPECT_NE(curator.find("draw,clip_frac__"), std::string::npos) << sampler;
    // The curator's report summarises the curator's columns; the published one does not.
    const auto curator_report =
        nlohmann::json::parse(slurp(dir / (out.filename().string() + ".curator") / "report.json"));
    ASSERT_TRUE(curator_report["columns"].is_object()) << sampler << curator_report.dump();
    EXPECT_NE(curator_report["columns"].dump().find("clip_frac__"), std::string::npos) << sampler;
    EXPECT_EQ(report["summary"].dump().find("clip_frac__"), std::string::npos) << sampler;
  }
}

// Without --delta: the preset's δ on the preset's own data (10⁻⁵ for [ZhangZhang2023]'s mixture, as
// `dpmcmc models` shows), the papers' 0.1/n on data of another size.
// However --out is spelled, the curator's files land beside it, and nothing under it is the
// curator's (an --out of "run/." once put them in "run/..curator", inside the published tree).
TEST(CliPrivateSample, CuratorFilesNeverLandInsideOut) {
  const auto dir = scratch_dir("curator-beside");
  const auto pub = dir / "pub";
  for (const std::string spelling : {"pub/.", "pub/", "pub/x/.."}) {
    std::filesystem::remove_all(pub);
    std::filesystem::remove_all(dir / "pub.curator");
    const auto r = run_cli(
        "sample --model banana-tempered-2d --sampler dp-penalty --n 500 "
        "--epsilon 4 --chains 2 --seed 3 --quiet --out " +
            (dir / spelling).string(),
        dir);
    ASSERT_EQ(r.exit_code, 0) << spelling << ": " << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "pub.curator" / "report.json")) << spelling;
    int files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(pub)) {
      EXPECT_EQ(e.path().filename().string().find("curator"), std::string::npos) << e.path();
      if (!e.is_regular_file()) continue;
      ++files;
      EXPECT_EQ(slurp(e.path()).find("not for release"), std::string::npos) << e.path();
    }
    EXPECT_GE(files, 2) << spelling;  // report.json and the chain
  }
}

TEST(CliPrivateSample, DefaultDeltaIsThePresetsOnItsOwnData) {
  const auto dir = scratch_dir("private-delta");
  const auto out = dir / "run";
  const std::string base =
      "sample --model mixture-fastmh-2d --sampler dp-fast-mh --epsilon 2 --chains 1 --seed 3 "
      "--quiet --out " +
      out.string();
  for (const auto& [extra, delta] : {std::pair<std::string, double>{"", 1e-5},
                                     std::pair<std::string, double>{" --n 4000", 0.1 / 4000}}) {
    const auto r = run_cli(base + extra, dir);
    ASSERT_EQ(r.exit_code, 0) << extra << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    EXPECT_DOUBLE_EQ(report["privacy"]["budget"]["delta"].get<double>(), delta) << extra;
  }
}

// --batch-sampling reaches DP-SGLD: the report names the scheme and records what it planned.
// Without replacement is accounted for substitute neighbours, whose gradient-sum sensitivity is
// 2C instead of the C of add/remove (batch_sampling.hpp), so the same budget must allow fewer
// iterations than Poisson batches of the same expected size; a bad value is refused by name.
TEST(CliPrivateSample, BatchSamplingOfDpSgld) {
  const auto dir = scratch_dir("private-batch");
  std::map<std::string, std::uint64_t> allowed;
  for (const std::string scheme : {"poisson", "without_replacement"}) {
    const auto out = dir / scheme;
    const auto r = run_cli(
        "sample --model banana-dphmc-2d --sampler dp-sgld --n 1000 --batch 50 "
        "--epsilon 0.5 --chains 2 --seed 3 --quiet --batch-sampling " +
            scheme + " --out " + out.string(),
        dir);
    ASSERT_EQ(r.exit_code, 0) << scheme << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    EXPECT_EQ(report["sampler"]["params"]["batch_sampling"], scheme);
    const auto& privacy = report["privacy"];
    EXPECT_EQ(privacy["releases_recorded"], privacy["iterations_scheduled"]) << scheme;
    // Recorded = planned: the float-safe noise's σ/Δ exceeds the planned multiplier by < 1e-12
    // relative, which moves the numerical PLD's discretised bounds by ~1e-9 relative.
    for (const auto& row : privacy["accountants"]) {
      if (row["accountant"] != privacy["planned_by"]) {
        EXPECT_TRUE(row.contains("skipped")) << row.dump();  // composed on request only
        continue;
      }
      EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                  1e-8 * row["planned_epsilon"].get<double>())
          << scheme << " " << row["accountant"];
    }
    allowed[scheme] = privacy["iterations_allowed"].get<std::uint64_t>();
  }
  EXPECT_LT(allowed["without_replacement"], allowed["poisson"]);
  const auto r = run_cli(
      "sample --sampler dp-sgld --n 500 --epsilon 1 --seed 1 --quiet "
      "--batch-sampling sometimes --out " +
          (dir / "bad").string(),
      dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--batch-sampling"), std::string::npos) << r.err;
}

TEST(CliPrivateSample, BudgetErrors) {
  const auto dir = scratch_dir("private-bad");
  const std::string base =
      "sample --sampler dp-penalty --n 500 --seed 1 --quiet --out " + (dir / "o").string();
  auto r = run_cli(base, dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--epsilon"), std::string::npos) << r.err;
  // Bad option values are usage errors (exit 64), whichever option (docs/cli.md, exit codes).
  r = run_cli(base + " --epsilon 1 --delta 2", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--delta"), std::string::npos) << r.err;
  r = run_cli(base + " --epsilon -1", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--epsilon"), std::string::npos) << r.err;
  r = run_cli(base + " --epsilon 1 --tau 0", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--tau"), std::string::npos) << r.err;
  r = run_cli(base + " --epsilon 1 --clip -2", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--clip"), std::string::npos) << r.err;
  // An ε whose e^ε overflows (it reached an accountant as NaN): refused, naming the option.
  for (const std::string eps : {"1e300", "inf", "nan"}) {
    r = run_cli(base + " --epsilon " + eps, dir);
    EXPECT_EQ(r.exit_code, 64) << eps;  // a bad option value, as --tau 0
    EXPECT_NE(r.err.find("--epsilon: ε must be > 0 and at most 500"), std::string::npos) << r.err;
  }
  // A budget too small for one iteration: the run does not start.
  r = run_cli(base + " --epsilon 1e-6", dir);
  EXPECT_EQ(r.exit_code, 78);
  EXPECT_NE(r.err.find("does not allow a single iteration"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "report.json"));
}

}  // namespace
}  // namespace dpmcmc::test

namespace dpmcmc::test {
namespace {

// On user data a private run releases nothing beyond its accounted releases: no accuracy
// against the exact posterior of the private data in the report or on stdout.
TEST(CliPrivateSample, NoNonPrivateEvaluationOfUserData) {
  const auto dir = scratch_dir("private-userdata");
  const auto data = dir / "d.csv";
  auto r =
      run_cli("simulate --model banana-tempered-2d --n 1000 --seed 9 --out " + data.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = dir / "run";
  r = run_cli("sample --model banana-tempered-2d --sampler dp-penalty --epsilon 2 --data " +
                  data.string() + " --chains 2 --seed 3 --quiet --out " + out.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("MMD"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  EXPECT_FALSE(report.contains("accuracy"));
  const auto curator = nlohmann::json::parse(slurp(dir / "run.curator" / "report.json"));
  EXPECT_TRUE(curator["accuracy"].contains("skipped"));
  EXPECT_FALSE(curator["accuracy"].contains("mmd"));
}

}  // namespace
}  // namespace dpmcmc::test

namespace dpmcmc::test {
namespace {

// The exponential-family penalty ([Yildirim2020] Algorithm 3) through the CLI: its
// "suff_stat" releases are recorded and compose to the planned spend; a model that is not an
// exponential family is refused before anything is released. (With the preset's small proposal
// sd every proposal stays inside p in (0, 1) and makes its release; an adapted, larger one may
// leave it and be rejected by the prior without a release, so the run is --adapt false.)
TEST(CliPrivateSample, ExponentialFamilyPenalty) {
  const auto dir = scratch_dir("private-expfam");
  const auto out = dir / "run";
  auto r = run_cli(
      "sample --model bernoulli-beta --sampler dp-penalty-expfam --epsilon 2 --adapt false "
      "--chains 2 --seed 2 --quiet --out " +
          out.string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  const auto& privacy = report["privacy"];
  EXPECT_EQ(privacy["releases_recorded"], privacy["iterations_scheduled"]);
  int skipped = 0;
  for (const auto& row : privacy["accountants"]) {
    // Plain Gaussian releases: the exact Gaussian PLD plans and reports; the others are not run.
    if (row["accountant"] != "pld-gaussian") {
      EXPECT_NE(row.value("skipped", "").find("pld-gaussian is exact"), std::string::npos)
          << row.dump();
      EXPECT_FALSE(row.contains("recorded_epsilon")) << row.dump();
      ++skipped;
      continue;
    }
    EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                1e-9 * row["planned_epsilon"].get<double>())
        << row["accountant"];
  }
  EXPECT_GE(skipped, 3);
  r = run_cli(
      "sample --model banana-flat-2d --sampler dp-penalty-expfam --epsilon 2 --n 100 "
      "--seed 2 --quiet --out " +
          (dir / "bad").string(),
      dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("exponential-family"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dpmcmc::test
