// docs/samplers.md is generated from the sampler descriptors: the page must hold exactly what
// `dpmcmc samplers --markdown` prints, so that docs and code cannot drift apart (issue #24).
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

TEST(SamplersDoc, ThePageHoldsTheGeneratedTable) {
  const auto dir = scratch_dir("samplers-doc");
  const auto r = run_cli("samplers --markdown", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.out.find("| `dp-penalty` | yes |"), std::string::npos) << r.out;
  // The facts read from the kernels and templates: DP Barker's test is certified by its own RDP
  // bound only, and its clip fraction stays with the curator.
  const auto barker = r.out.substr(r.out.find("| `dp-barker` |"));
  const auto line = barker.substr(0, barker.find('\n'));
  EXPECT_NE(line.find("`clip_frac__` (curator)"), std::string::npos) << line;
  EXPECT_NE(line.find("| classical, barker-rdp |"), std::string::npos) << line;
  const std::string page = slurp(std::filesystem::path(DPMCMC_SOURCE_DIR) / "docs" / "samplers.md");
  EXPECT_NE(page.find(r.out), std::string::npos)
      << "docs/samplers.md is out of date: regenerate its table with `dpmcmc samplers --markdown`";
}

TEST(SamplersDoc, PlainListNamesEverySampler) {
  const auto dir = scratch_dir("samplers-plain");
  const auto r = run_cli("samplers", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"rwmh", "hmc", "tunamh", "dp-penalty-expfam", "dp-fast-mh-full"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace dpmcmc::test
