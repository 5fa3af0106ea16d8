// `dpmcmc audit` end to end: a small audit's JSON, the certificate it calibrates to, the file it
// writes, the noise key it never prints, and bad input refused with exit code 64 naming the
// option.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

TEST(CliAudit, SmallAuditCalibratesAndReportsAVerdict) {
  const auto dir = scratch_dir("audit-small");
  const auto out = dir / "audit.json";
  const auto key = dir / "audit.key";
  const auto r = run_cli(
      "audit --sampler dp-penalty --epsilon 1 --trials 400 --pilot-trials 40 "
      "--rows 500 --seed 3 --json --noise-key-file " +
          key.string() + " --out " + out.string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j, nlohmann::json::parse(slurp(out)));
  EXPECT_EQ(j["verdict"], "consistent");
  EXPECT_NEAR(j["epsilon_certified"].get<double>(), 1.0, 1e-3);
  EXPECT_LE(j["epsilon_certified"].get<double>(), 1.0);
  EXPECT_EQ(j["model"], "banana-flat-2d");
  EXPECT_EQ(j["trials"], 400);
  EXPECT_EQ(j["test"]["judged_trials"], 200);
  EXPECT_EQ(j["relation"], "substitute");
  // The audit's key is read or created, never printed.
  const std::string key_hex = slurp(key).substr(0, 64);
  ASSERT_EQ(key_hex.size(), 64u);
  EXPECT_EQ(r.out.find(key_hex), std::string::npos);
  EXPECT_EQ(slurp(out).find(key_hex), std::string::npos);
  // Same key, seed and options: the same result, bit for bit.
  const auto again = run_cli(
      "audit --sampler dp-penalty --epsilon 1 --trials 400 --pilot-trials "
      "40 --rows 500 --seed 3 --json --threads 1 --noise-key-file " +
          key.string(),
      dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto a = nlohmann::json::parse(again.out), b = j;
  a.erase("seconds");
  b.erase("seconds");
  EXPECT_EQ(a, b);
}

TEST(CliAudit, TextOutputNamesTheBoundTheCertificateAndTheVerdict) {
  const auto dir = scratch_dir("audit-text");
  const auto r = run_cli(
      "audit --sampler dp-sgld --trials 200 --pilot-trials 20 --rows 2000 "
      "--plot " +
          (dir / "plot").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = slurp(dir / "plot" / "tradeoff.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(r.out.find("plot: "), std::string::npos) << r.out;
  for (const char* s : {"epsilon lower bound:", "epsilon certified:", "verdict: consistent",
                        "add/remove one row", "gauss-10d"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
}

TEST(CliAudit, BadInputIsAUsageErrorNamingTheOption) {
  const auto dir = scratch_dir("audit-bad");
  const std::pair<const char*, const char*> cases[] = {
      {"audit --sampler nuts", "--sampler"},
      {"audit --sampler dp-penalty --confidence 1.5", "--confidence"},
      {"audit --sampler dp-penalty --epsilon -1", "--epsilon"},
      {"audit --sampler dp-penalty --delta 0", "--delta"},
      {"audit --sampler dp-penalty --iterations 0", "--iterations"},
      {"audit --sampler dp-penalty --model nosuchmodel", "nosuchmodel"},
      {"audit --sampler dp-penalty --batch 10", "--batch"},
  };
  for (const auto& [args, named] : cases) {
    const auto r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 64) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << args << "\n" << r.err;
  }
  // Too few trials is a configuration the audit cannot use (78), named as such.
  const auto few = run_cli("audit --sampler dp-penalty --trials 4", dir);
  EXPECT_EQ(few.exit_code, 78) << few.err;
  EXPECT_NE(few.err.find("--trials"), std::string::npos) << few.err;
}

}  // namespace
}  // namespace dpmcmc::test
