// The report's Markdown table (experiment/summary_table.hpp) from a summary built by hand: columns,
// row order, the non-private column, missing cells and the clipped and repeat ranges.
#include "experiment/summary_table.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dpmcmc {
namespace {

SampleGroup group(const std::string& model, const std::string& sampler, std::optional<double> eps,
                  double median, double clip, std::size_t runs) {
  SampleGroup g;
  g.model = model;
  g.sampler = sampler;
  g.epsilon = eps;
  g.metric = "mmd";
  g.completed = runs;
  g.accuracy = {runs, median, median, median};
  if (!std::isnan(clip)) g.llr_clip = {runs, clip, clip, clip};
  return g;
}

TEST(SummaryTable, OneRowPerSamplerOneColumnPerEpsilon) {
  ResultsSummary s;
  s.sample.push_back(group("m", "dp-penalty", 1.0, 0.54321, 0.002, 20));
  s.sample.push_back(group("m", "dp-penalty", 4.0, 0.1, 0.011, 19));
  s.sample.push_back(group("m", "rwmh", std::nullopt, 0.05, NAN, 20));
  s.sample.push_back(group("m", "dp-hmc", 4.0, 0.2, 0.01, 20));
  s.sample.back().accuracy.count = 0;  // no draws kept: no metric
  const std::string want =
      "| model | sampler | metric | non-private | ε = 1 | ε = 4 | rows clipped | repeats |\n"
      "|---|---|---|---|---|---|---|---|\n"
      "| m | dp-penalty | mmd | – | 0.543 | 0.1 | 0.2%–1.1% | 19–20 |\n"
      "| m | rwmh | mmd | 0.05 | – | – | NA | 20 |\n"
      "| m | dp-hmc | mmd | – | – | – | 1.0% | 20 |\n";
  EXPECT_EQ(summary_markdown(s), want);
}

TEST(SummaryTable, SweepValuesAreRowsAndNoGroupsNoTable) {
  ResultsSummary s;
  EXPECT_EQ(summary_markdown(s), "");
  SampleGroup g = group("m", "rwmh", std::nullopt, 0.107, 0.3233, 20);
  g.sweep_param = "clip";
  g.sweep_value = 0.5;
  s.sample.push_back(g);
  EXPECT_EQ(summary_markdown(s),
            "| model | sampler | sweep | metric | non-private | rows clipped | repeats |\n"
            "|---|---|---|---|---|---|---|\n"
            "| m | rwmh | clip = 0.5 | mmd | 0.107 | 32.3% | 20 |\n");
}

// The floor depends on the draws kept, which grow with ε for a private sampler: the column is the
// range over the row's ε of its groups' medians.
TEST(SummaryTable, TheMmdNoiseFloorIsAColumnPerRowWhenRecorded) {
  ResultsSummary s;
  s.sample.push_back(group("m", "dp-penalty", 1.0, 0.5, 0.002, 20));
  s.sample.back().exact = {20, 0.0123, 0.01, 0.014};
  s.sample.push_back(group("m", "dp-penalty", 2.0, 0.4, 0.002, 20));
  s.sample.back().exact = {20, 0.00812, 0.007, 0.009};
  s.sample.push_back(group("circle", "dp-penalty", 1.0, 0.7, 0.006, 20));
  s.sample.back().metric = "mean_error";
  EXPECT_EQ(summary_markdown(s),
            "| model | sampler | metric | ε = 1 | ε = 2 | rows clipped | repeats | exact vs exact "
            "|\n"
            "|---|---|---|---|---|---|---|---|\n"
            "| m | dp-penalty | mmd | 0.5 | 0.4 | 0.2% | 20 | 0.00812–0.0123 |\n"
            "| circle | dp-penalty | mean_error | 0.7 | – | 0.6% | 20 | – |\n");
}

}  // namespace
}  // namespace dpmcmc
