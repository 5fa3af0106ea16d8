// The report: medians and interquartile ranges against hand-computed values on a small
// hand-written CSV, the reading, the plots and the HTML page, and bad CSVs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "experiment/experiment_report.hpp"
#include "experiment/results_csv.hpp"
#include "io/html_text.hpp"

namespace dpmcmc {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-report-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ResultRow sample_row(const std::string& model, const std::string& sampler, const std::string& eps,
                     int repeat, const std::string& mmd, const std::string& mean_error,
                     const std::string& accept, const std::string& clip) {
  ResultRow r;
  r.set("kind", "sample");
  r.set("model", model);
  r.set("sampler", sampler);
  r.cells["epsilon"] = eps;
  r.set_integer("repeat", static_cast<std::uint64_t>(repeat));
  r.cells["mmd"] = mmd;
  r.cells["mean_error"] = mean_error;
  r.cells["acceptance_rate"] = accept;
  r.cells["llr_clip_frac"] = clip;
  r.set_integer("iterations_total", 100);
  r.set("status", "completed");
  r.set("spec_hash", "0123456789abcdef");
  return r;
}

// Rows of `sampler` on banana-flat-2d at `eps` with MMD `mmd`, repeat i + 1 with `column` set to
// values[i].
std::string rows_setting(const std::string& sampler, const std::string& eps, const std::string& mmd,
                         const std::string& column, const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ResultRow r =
        sample_row("banana-flat-2d", sampler, eps, static_cast<int>(i) + 1, mmd, "1", "0.5", "NA");
    r.cells[column] = values[i];
    text += format_row(r);
  }
  return text;
}

ResultRow account_row(const std::string& accountant, double eps, std::uint64_t iterations) {
  ResultRow r;
  r.set("kind", "account");
  r.set("model", "banana-flat-2d");
  r.set("sampler", "dp-penalty");
  r.set("epsilon", eps);
  r.set("accountant", accountant);
  r.set("bound", "upper bound");
  r.set_integer("iterations_total", iterations);
  r.set("status", "completed");
  return r;
}

// Sampler s1 at ε = 1: MMD 0.4, 0.1, 0.3, 0.2 → sorted 0.1 0.2 0.3 0.4; type 7 with h = 3p:
// Q1 = 0.1 + 0.75·0.1 = 0.175, median = 0.25, Q3 = 0.325. s2 at ε = 1: 0.5, 0.7, 0.6 → median
// 0.6, Q1 0.55, Q3 0.65, plus one failed cell. Circle: no MMD, mean error 2, 4 → median 3.
std::filesystem::path write_csv(const std::filesystem::path& dir) {
  std::string text = results_header();
  const std::vector<std::string> mmd = {"0.4", "0.1", "0.3", "0.2"};
  const std::vector<std::string> acc = {"0.2", "0.4", "0.6", "0.8"};
  for (int i = 0; i < 4; ++i)
    text +=
        format_row(sample_row("banana-flat-2d", "s1", "1", i + 1, mmd[static_cast<std::size_t>(i)],
                              "1", acc[static_cast<std::size_t>(i)], "0.01"));
  const std::vector<std::string> mmd2 = {"0.5", "0.7", "0.6"};
  for (int i = 0; i < 3; ++i)
    text += format_row(sample_row("banana-flat-2d", "s2", "1", i + 1,
                                  mmd2[static_cast<std::size_t>(i)], "1", "0.5", "NA"));
  ResultRow failed = sample_row("banana-flat-2d", "s2", "1", 4, "NA", "NA", "NA", "NA");
  failed.set("status", "error");
  failed.set("message", "budget allows 0 iterations, fewer than one per chain");
  text += format_row(failed);
  text += format_row(sample_row("banana-flat-2d", "s1", "2", 1, "0.05", "1", "0.3", "0.02"));
  text += format_row(sample_row("circle", "s1", "1", 1, "NA", "2", "0.3", "0.5"));
  text += format_row(sample_row("circle", "s1", "1", 2, "NA", "4", "0.3", "0.5"));
  text += format_row(sample_row("circle", "rwmh", "NA", 1, "NA", "0.25", "0.3", "NA"));
  text += format_row(account_row("zcdp", 1, 40));
  text += format_row(account_row("pld-gaussian", 1, 100));
  text += format_row(account_row("zcdp", 2, 135));
  text += format_row(account_row("pld-gaussian", 2, 201));
  const auto file = dir / "results.csv";
  std::ofstream(file) << text;
  return file;
}

TEST(ExperimentReport, SpreadIsType7) {
  const Spread s = spread_of({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q25, 1.75);
  EXPECT_DOUBLE_EQ(s.q75, 3.25);
  const Spread one = spread_of({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.q25, 7);
  EXPECT_EQ(spread_of({}).count, 0u);
  EXPECT_TRUE(std::isnan(spread_of({}).median));
}

TEST(ExperimentReport, AggregatesAgainstHandComputedValues) {
  const auto dir = fresh_dir("aggregate");
  const auto file = write_csv(dir);
  const auto s = summarize_results(read_results(file), file.string());
  ASSERT_EQ(s.sample.size(), 5u);
  const SampleGroup& s1 = s.sample[0];
  EXPECT_EQ(s1.sampler, "s1");
  EXPECT_EQ(*s1.epsilon, 1.0);
  EXPECT_EQ(s1.metric, "mmd");
  EXPECT_EQ(s1.completed, 4u);
  EXPECT_NEAR(s1.accuracy.median, 0.25, 1e-12);
  EXPECT_NEAR(s1.accuracy.q25, 0.175, 1e-12);
  EXPECT_NEAR(s1.accuracy.q75, 0.325, 1e-12);
  EXPECT_NEAR(s1.acceptance.median, 0.5, 1e-12);
  EXPECT_NEAR(s1.acceptance.q25, 0.35, 1e-12);
  EXPECT_NEAR(s1.llr_clip.median, 0.01, 1e-12);
  EXPECT_EQ(s1.grad_clip.count, 0u);
  EXPECT_DOUBLE_EQ(s1.iterations.median, 100);
  const SampleGroup& s1b = s.sample[1];  // s1 at ε = 2
  EXPECT_EQ(*s1b.epsilon, 2.0);
  const SampleGroup& s2 = s.sample[2];
  EXPECT_EQ(s2.sampler, "s2");
  EXPECT_EQ(s2.completed, 3u);
  EXPECT_EQ(s2.errors, 1u);
  EXPECT_NEAR(s2.accuracy.median, 0.6, 1e-12);
  EXPECT_NEAR(s2.accuracy.q25, 0.55, 1e-12);
  EXPECT_NEAR(s2.accuracy.q75, 0.65, 1e-12);
  const SampleGroup& circle = s.sample[3];  // samplers in order of first appearance
  EXPECT_EQ(circle.model, "circle");
  EXPECT_EQ(circle.metric, "mean_error");  // no MMD for the circle
  EXPECT_DOUBLE_EQ(circle.accuracy.median, 3.0);
  EXPECT_DOUBLE_EQ(circle.accuracy.q25, 2.5);
  EXPECT_EQ(s.sample[4].sampler, "rwmh");
  EXPECT_FALSE(s.sample[4].epsilon.has_value());
  EXPECT_DOUBLE_EQ(s.sample[4].accuracy.median, 0.25);
  ASSERT_EQ(s.account.size(), 4u);
  EXPECT_EQ(*s.account[0].iterations, 40.0);

  const auto lines = reading_of(s);
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_NE(all.find("banana-flat-2d, ε = 1: s1 has the lowest median mmd (0.25"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("next s2 (0.6)"), std::string::npos) << all;
  EXPECT_NE(all.find("1 of 4 cells failed"), std::string::npos) << all;
  EXPECT_NE(all.find("non-private baseline rwmh has median mean_error 0.25"), std::string::npos)
      << all;
  // pld-gaussian allows 100/40 = 2.5 and 201/135 = 1.489 times the zCDP count.
  EXPECT_NE(all.find("pld-gaussian allows the most iterations at every ε, 1.489–2.5 times"),
            std::string::npos)
      << all;
}

TEST(ExperimentReport, WritesPlotsAndPage) {
  const auto dir = fresh_dir("page");
  const auto file = write_csv(dir);
  std::ofstream(dir / "spec.json") << R"({"name": "hand-made", "description": "made by hand"})";
  ReportOptions o;
  o.results = file;
  const auto r = write_experiment_report(o);
  EXPECT_EQ(r.out_dir, dir / "report");
  ASSERT_EQ(r.figures.size(), 3u);  // accuracy, clipping, accounting
  for (const auto& f : r.figures) {
    for (const auto& p : {f.script, f.png, f.svg}) {
      ASSERT_TRUE(std::filesystem::exists(p)) << p;
      EXPECT_GT(std::filesystem::file_size(p), 100u) << p;
    }
    EXPECT_EQ(slurp(f.png).substr(1, 3), "PNG") << f.png;
    EXPECT_NE(slurp(f.svg).find("<svg"), std::string::npos) << f.svg;
  }
  const std::string html = slurp(r.html);
  EXPECT_NE(html.find("<h1>Experiment hand-made</h1>"), std::string::npos);
  EXPECT_NE(html.find("0.25 [0.175, 0.325]"), std::string::npos);
  EXPECT_NE(html.find("0.6 [0.55, 0.65]"), std::string::npos);
  EXPECT_NE(html.find("data:image/png;base64,"), std::string::npos);
  EXPECT_NE(html.find("<td>201</td>"), std::string::npos);
  EXPECT_NE(html.find("made by hand"), std::string::npos);
  const std::string summary = slurp(r.summary_csv);
  EXPECT_NE(summary.find("\nbanana-flat-2d,s1,NA,NA,1,mmd,4,0,"), std::string::npos) << summary;
  // The Markdown table: the same median 0.25 of s1 at ε = 1 (4 repeats).
  const std::string table = slurp(r.summary_md);
  EXPECT_NE(table.find("| banana-flat-2d | s1 | mmd | – | 0.25 | 0.05 |"), std::string::npos)
      << table;
}

// Accuracy against ε: MMD (positive, spans decades) on a log axis, test accuracy (a proportion
// in [0, 1]) on a linear one.
TEST(ExperimentReport, TestAccuracyPlotsOnALinearAxis) {
  const auto dir = fresh_dir("accuracy-axis");
  std::string text = results_header();
  for (int i = 0; i < 2; ++i) {
    ResultRow r = sample_row("logistic", "s1", i == 0 ? "1" : "2", 1, "NA", "NA", "0.5", "0");
    r.cells["test_accuracy"] = i == 0 ? "0.6" : "0.8";
    text += format_row(r);
  }
  std::ofstream(dir / "results.csv") << text;
  ReportOptions o;
  o.results = dir / "results.csv";
  const auto r = write_experiment_report(o);
  const std::string gp = slurp(dir / "report/plots/accuracy.gp");
  EXPECT_NE(gp.find("unset logscale y"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("\nset logscale y"), std::string::npos) << gp;
  EXPECT_NE(slurp(r.html).find("test_accuracy"), std::string::npos);

  const auto mmd_dir = fresh_dir("mmd-axis");
  o.results = write_csv(mmd_dir);
  write_experiment_report(o);
  EXPECT_NE(slurp(mmd_dir / "report/plots/accuracy.gp").find("\nset logscale y"),
            std::string::npos);
}

// Ten samplers in one panel (as DP HMC's Gaussian has): the palette has eight colours, so the
// ninth and tenth repeat the first two colours with another point type. No two curves share
// both (colour, point type).
TEST(ExperimentReport, MoreCurvesThanColoursStayDistinct) {
  const auto dir = fresh_dir("ten-curves");
  std::string text = results_header();
  for (int k = 0; k < 10; ++k)
    text += format_row(
        sample_row("banana-flat-2d", fmt::format("s{}", k), "1", 1, "0.1", "1", "0.5", "0"));
  std::ofstream(dir / "results.csv") << text;
  ReportOptions o;
  o.results = dir / "results.csv";
  write_experiment_report(o);
  const std::string gp = slurp(dir / "report/plots/accuracy.gp");
  std::set<std::string> styles;
  std::size_t curves = 0;
  for (std::size_t at = gp.find("with linespoints"); at != std::string::npos;
       at = gp.find("with linespoints", at + 1)) {
    const std::size_t end = gp.find(" title", at);
    styles.insert(gp.substr(at, end - at));  // "with linespoints lc rgb '#…' pt N"
    ++curves;
  }
  EXPECT_EQ(curves, 20u) << gp;  // each curve in the PNG and in the SVG part
  EXPECT_EQ(styles.size(), 10u) << gp;
  EXPECT_NE(gp.find("lc rgb '#0072B2' pt 7 title 's0'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("lc rgb '#0072B2' pt 5 title 's8'"), std::string::npos) << gp;
}

// A swept spec: rwmh at clip 0.5, 2, 1000 (two repeats each) and an unswept hmc. With two values
// a and b, type 7 gives median (a + b)/2, Q1 a + (b − a)/4, Q3 b − (b − a)/4 (binary fractions
// here, so exact): clip 0.5 → MMD 0.5 [0.375, 0.625], clipped fraction 0.5; clip 2 → 0.125
// [0.09375, 0.15625], 0.1; clip 1000 → 0.25 [0.1875, 0.3125], 0. Best value 2, worst 0.5.
TEST(ExperimentReport, SweepGroupsPlotsAndReading) {
  const auto dir = fresh_dir("sweep");
  std::string text = results_header();
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> rows = {
      {"0.5", "0.25", "0.75", "0.5"},
      {"2", "0.0625", "0.1875", "0.1"},
      {"1000", "0.125", "0.375", "0"}};
  for (const auto& [value, m1, m2, clip] : rows) {
    for (const auto& [rep, m] : {std::pair{1, m1}, std::pair{2, m2}}) {
      ResultRow r = sample_row("banana-flat-2d", "rwmh", "NA", rep, m, "1", "0.5", clip);
      r.set("sweep_param", "clip");
      r.cells["sweep_value"] = value;
      text += format_row(r);
    }
  }
  text += format_row(sample_row("banana-flat-2d", "hmc", "NA", 1, "0.03", "1", "0.9", "NA"));
  const auto file = dir / "results.csv";
  std::ofstream(file) << text;

  const auto summary = summarize_results(read_results(file), file.string());
  ASSERT_EQ(summary.sample.size(), 4u);
  EXPECT_EQ(summary.sample[0].sweep_param, "clip");
  EXPECT_EQ(summary.sample[0].sweep_value, std::optional<double>(0.5));
  EXPECT_DOUBLE_EQ(summary.sample[0].accuracy.median, 0.5);
  EXPECT_EQ(summary.sample[1].sweep_value, std::optional<double>(2));  // ascending values
  EXPECT_FALSE(summary.sample[3].sweep_value.has_value());
  std::string all;
  for (const auto& l : reading_of(summary)) all += l + "\n";
  EXPECT_NE(all.find("banana-flat-2d, rwmh: best clip = 2 (median mmd 0.125"), std::string::npos)
      << all;
  EXPECT_NE(all.find("clipped fraction 0.1)"), std::string::npos) << all;
  EXPECT_NE(all.find("worst clip = 0.5 (median 0.5, clipped fraction 0.5)"), std::string::npos)
      << all;
  EXPECT_NE(all.find("non-private baseline hmc"), std::string::npos) << all;
  EXPECT_EQ(all.find("non-private baseline rwmh"), std::string::npos) << all;

  ReportOptions o;
  o.results = file;
  o.plots = false;  // scripts and data only: the sweep data files are checked directly
  const auto r = write_experiment_report(o);
  std::vector<std::string> names;
  for (const auto& f : r.figures) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"accuracy", "sweep", "sweep-clipped"}));
  const auto plots = r.out_dir / "plots";
  EXPECT_EQ(slurp(plots / "sweep-banana-flat-2d-rwmh.dat"),
            "# clip median q25 q75 clip\n0.5 0.5 0.375 0.625 0.5\n2 0.125 0.09375 0.15625 2\n"
            "1000 0.25 0.1875 0.3125 1000\n");
  EXPECT_EQ(slurp(plots / "sweep-clipped-banana-flat-2d-rwmh.dat"),
            "# clip_fraction median q25 q75 clip\n0.5 0.5 0.375 0.625 0.5\n0.1 0.125 0.09375 "
            "0.15625 2\n0 0.25 0.1875 0.3125 1000\n");
  EXPECT_NE(slurp(plots / "sweep.gp").find("set logscale x"), std::string::npos);
  // Error bars from the quartiles: x, median, Q1, Q3.
  EXPECT_NE(slurp(plots / "sweep-clipped.gp").find("using 1:2:3:4 with yerrorbars"),
            std::string::npos);
  const std::string csv = slurp(r.summary_csv);
  EXPECT_NE(csv.find("\nbanana-flat-2d,rwmh,clip,2,NA,mmd,2,0,0.125,"), std::string::npos) << csv;
}

// sym_kl (lower is better): a at ε = 1 has 0.5 and 1.5 → median 1, b has 0.25 and 0.75 →
// median 0.5, so b has the lowest median sym_kl; its own figure and summary column.
TEST(ExperimentReport, SymKlSummaryReadingAndFigure) {
  const auto dir = fresh_dir("symkl");
  std::string text = results_header();
  const std::vector<std::tuple<std::string, int, std::string>> rows = {
      {"a", 1, "0.5"}, {"a", 2, "1.5"}, {"b", 1, "0.25"}, {"b", 2, "0.75"}};
  for (const auto& [sampler, rep, kl] : rows) {
    ResultRow r = sample_row("mixture-fastmh-2d", sampler, "1", rep, "0.1", "1", "0.5", "NA");
    r.cells["sym_kl"] = kl;
    text += format_row(r);
  }
  const auto file = dir / "results.csv";
  std::ofstream(file) << text;
  const auto summary = summarize_results(read_results(file), file.string());
  ASSERT_EQ(summary.sample.size(), 2u);
  EXPECT_DOUBLE_EQ(summary.sample[0].sym_kl.median, 1.0);
  EXPECT_DOUBLE_EQ(summary.sample[1].sym_kl.median, 0.5);
  std::string all;
  for (const auto& l : reading_of(summary)) all += l + "\n";
  EXPECT_NE(all.find("mixture-fastmh-2d, ε = 1: b has the lowest median sym_kl (0.5, 2 runs)."),
            std::string::npos)
      << all;
  ReportOptions o;
  o.results = file;
  o.plots = false;
  const auto r = write_experiment_report(o);
  std::vector<std::string> names;
  for (const auto& f : r.figures) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"accuracy", "sym-kl"}));
  EXPECT_EQ(slurp(r.out_dir / "plots" / "sym-kl-mixture-fastmh-2d-b.dat"),
            "# epsilon median q25 q75\n1 0.5 0.375 0.625\n");
  EXPECT_NE(slurp(r.summary_csv).find("max_rhat_median,sym_kl_median,max_rhat_na_runs\n"),
            std::string::npos);
  // a: R̂ NA in both runs, sym_kl 1.
  EXPECT_NE(slurp(r.summary_csv).find(",NA,1,2\n"), std::string::npos);
}

// R̂ 1.01, 1.03 and NA (chains that never moved) in one group: the median 1.02 covers two runs,
// and the summary and page both say that one of the three was left out.
TEST(ExperimentReport, CountsRunsWithoutRhat) {
  const auto dir = fresh_dir("rhatna");
  const std::string text =
      results_header() + rows_setting("s1", "1", "0.1", "max_rhat", {"1.01", "1.03", "NA"});
  const auto file = dir / "results.csv";
  std::ofstream(file) << text;
  ReportOptions o;
  o.results = file;
  o.plots = false;
  const auto r = write_experiment_report(o);
  const std::string csv = slurp(r.summary_csv);
  EXPECT_NE(csv.find("max_rhat_median,sym_kl_median,max_rhat_na_runs\n"), std::string::npos);
  EXPECT_NE(csv.find(",1.02,NA,1\n"), std::string::npos) << csv;
  EXPECT_NE(slurp(r.html).find("1.02 [1.015, 1.025] (1 of 3 runs NA)"), std::string::npos);
}

// The exact-vs-exact MMD (the thesis' black lines): from another file for models whose rows
// record none (--floor), else from the rows' own mmd_exact, per sampler. Floor rows 0.02, 0.04,
// 0.03: type 7 median 0.03, Q1 0.025, Q3 0.035. Own rows (a sweep): rwmh 0.01 and 0.03, median
// 0.02; hmc 0.05.
TEST(ExperimentReport, ExactVsExactLineFromTheRowsOrAnotherFile) {
  const auto dir = fresh_dir("floor");
  const auto file = write_csv(dir);  // banana-flat-2d (MMD) at ε = 1, 2; circle (mean error)
  std::string floor_text =
      results_header() + rows_setting("rwmh", "NA", "0.5", "mmd_exact", {"0.02", "0.04", "0.03"});
  ResultRow other = sample_row("gauss-30d", "rwmh", "NA", 1, "0.5", "1", "0.5", "NA");
  other.cells["mmd_exact"] = "0.9";
  floor_text += format_row(other);
  const auto floor_file = dir / "floor.csv";
  std::ofstream(floor_file) << floor_text;

  ReportOptions o;
  o.results = file;
  o.plots = false;
  {
    const auto r = write_experiment_report(o);  // without --floor: no line, no column
    EXPECT_TRUE(r.summary.model_floor.empty());
    EXPECT_EQ(slurp(r.out_dir / "plots/accuracy.gp").find("exact vs exact"), std::string::npos);
    EXPECT_EQ(slurp(r.summary_md).find("exact vs exact"), std::string::npos);
  }
  o.floor = floor_file;
  const auto r = write_experiment_report(o);
  ASSERT_EQ(r.summary.model_floor.size(), 1u);  // gauss-30d is not in the results
  const Spread& f = r.summary.model_floor.at("banana-flat-2d");
  EXPECT_DOUBLE_EQ(f.median, 0.03);
  EXPECT_DOUBLE_EQ(f.q25, 0.025);
  EXPECT_DOUBLE_EQ(f.q75, 0.035);
  const auto plots = r.out_dir / "plots";
  EXPECT_EQ(slurp(plots / "accuracy-banana-flat-2d-exact.dat"),
            "# x, median MMD of as many exact draws\n1 0.03\n2 0.03\n");
  const std::string gp = slurp(plots / "accuracy.gp");
  EXPECT_NE(gp.find("'accuracy-banana-flat-2d-exact.dat' using 1:2 with lines dt 3 lw 2 lc rgb "
                    "'black' title "),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("exact vs exact (median)"), std::string::npos) << gp;
  EXPECT_FALSE(std::filesystem::exists(plots / "accuracy-circle-exact.dat"));
  const std::string table = slurp(r.summary_md);
  EXPECT_NE(table.find("| banana-flat-2d | s1 | mmd | – | 0.25 | 0.05 | 1.0%–2.0% | 1–4 | 0.03 |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| circle | s1 | mean_error |"), std::string::npos) << table;
  EXPECT_NE(table.find(floor_file.string()), std::string::npos) << table;
  EXPECT_NE(slurp(r.html).find("banana-flat-2d 0.03 [0.025, 0.035]"), std::string::npos);

  // A floor file with nothing for these models is refused, naming the option and the models.
  std::ofstream(floor_file) << results_header() + format_row(other);
  try {
    write_experiment_report(o);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--floor " + floor_file.string()), std::string::npos) << m;
    EXPECT_NE(m.find("banana-flat-2d"), std::string::npos) << m;
  }
  o.floor = dir / "missing.csv";
  EXPECT_THROW(write_experiment_report(o), NoInputError);

  // Rows with their own mmd_exact (a sweep): the line spans the swept values and the clipped
  // fractions.
  const auto sweep_dir = fresh_dir("floor-sweep");
  std::string text = results_header();
  for (const auto& [sampler, value, clip, mmd_exact] :
       {std::tuple{"rwmh", "0.5", "0.5", "0.01"}, std::tuple{"rwmh", "1000", "0", "0.03"},
        std::tuple{"hmc", "1000", "0", "0.05"}}) {
    ResultRow r = sample_row("banana-flat-2d", sampler, "NA", 1, "0.2", "1", "0.5", clip);
    r.set("sweep_param", "clip");
    r.cells["sweep_value"] = value;
    r.cells["mmd_exact"] = mmd_exact;
    text += format_row(r);
  }
  std::ofstream(sweep_dir / "results.csv") << text;
  ReportOptions so;
  so.results = sweep_dir / "results.csv";
  so.plots = false;
  const auto sr = write_experiment_report(so);
  // The line follows the cells (x: the swept value, or the clipped fraction).
  EXPECT_TRUE(sr.summary.model_floor.empty());
  EXPECT_EQ(slurp(sr.out_dir / "plots/sweep-banana-flat-2d-rwmh-exact.dat"),
            "# x, median MMD of as many exact draws\n0.5 0.01\n1000 0.03\n");
  EXPECT_EQ(slurp(sr.out_dir / "plots/sweep-banana-flat-2d-hmc-exact.dat"),
            "# x, median MMD of as many exact draws\n1000 0.05\n");
  EXPECT_EQ(slurp(sr.out_dir / "plots/sweep-clipped-banana-flat-2d-rwmh-exact.dat"),
            "# x, median MMD of as many exact draws\n0.5 0.01\n0 0.03\n");
  // One legend entry for the dotted lines (the script draws PNG and SVG: two copies), each line
  // in its curve's colour.
  const std::string sweep_gp = slurp(sr.out_dir / "plots/sweep.gp");
  std::size_t titles = 0;
  for (auto at = sweep_gp.find("exact vs exact (dotted, same draws)"); at != std::string::npos;
       at = sweep_gp.find("exact vs exact (dotted", at + 1))
    ++titles;
  EXPECT_EQ(titles, 2u) << sweep_gp;
  EXPECT_NE(sweep_gp.find("'sweep-banana-flat-2d-hmc-exact.dat' using 1:2 with lines dt 3 lw 2 "
                          "lc rgb '#D55E00' notitle"),
            std::string::npos)
      << sweep_gp;
  EXPECT_NE(slurp(sr.html).find("Dotted lines in the MMD figures"), std::string::npos);
  // A private sampler keeps more draws at a larger ε: its line follows ε.
  const auto eps_dir = fresh_dir("floor-eps");
  std::ofstream(eps_dir / "results.csv")
      << results_header() + rows_setting("s1", "1", "0.3", "mmd_exact", {"0.1"}) +
             rows_setting("s1", "2", "0.2", "mmd_exact", {"0.02"});
  ReportOptions eo;
  eo.results = eps_dir / "results.csv";
  eo.plots = false;
  const auto er = write_experiment_report(eo);
  EXPECT_EQ(slurp(er.out_dir / "plots/accuracy-banana-flat-2d-s1-exact.dat"),
            "# x, median MMD of as many exact draws\n1 0.1\n2 0.02\n");
  EXPECT_NE(slurp(er.summary_md).find("| 0.02–0.1 |"), std::string::npos) << slurp(er.summary_md);

  // --floor is refused when every MMD model has its own.
  so.floor = sweep_dir / "results.csv";
  EXPECT_THROW(write_experiment_report(so), UsageError);
  // Per row, the table keeps the row's own floor (0.01 at clip 0.5, 0.03 at 1000).
  const std::string sweep_table = slurp(sr.summary_md);
  EXPECT_NE(sweep_table.find("| 0.01 |\n"), std::string::npos) << sweep_table;
  EXPECT_NE(sweep_table.find("| 0.03 |\n"), std::string::npos) << sweep_table;
}

TEST(ExperimentReport, MissingGnuplotIsAClearError) {
  const auto dir = fresh_dir("nognuplot");
  const auto file = write_csv(dir);
  setenv("DPMCMC_GNUPLOT", "/nonexistent/gnuplot", 1);
  ReportOptions o;
  o.results = file;
  try {
    write_experiment_report(o);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gnuplot"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--no-plots"), std::string::npos) << e.what();
  }
  // --no-plots still writes the page and the scripts.
  o.plots = false;
  const auto r = write_experiment_report(o);
  unsetenv("DPMCMC_GNUPLOT");
  EXPECT_TRUE(std::filesystem::exists(r.html));
  EXPECT_TRUE(std::filesystem::exists(r.figures.front().script));
  EXPECT_FALSE(std::filesystem::exists(r.figures.front().png));
}

void expect_data_error(const std::string& text, const std::string& needle) {
  const auto dir = fresh_dir("bad");
  const auto file = dir / "results.csv";
  std::ofstream(file) << text;
  try {
    read_results(file);
    ADD_FAILURE() << "no error for: " << needle;
  } catch (const DataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(file.string()), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  }
}

TEST(ExperimentReport, BadCsvNamesFileLineAndColumn) {
  const std::string h = results_header();
  const std::string good = format_row(sample_row("m", "s", "1", 1, "0.1", "1", "0.5", "NA"));
  expect_data_error("", ":1: empty file");
  expect_data_error("model,sampler\n", "missing column 'kind'");
  expect_data_error(h.substr(0, h.size() - 1) + ",extra\n", "'extra' is not a results column");
  std::string bad_mmd = good;
  bad_mmd.replace(bad_mmd.find("0.1"), 3, "abc");
  expect_data_error(h + good + bad_mmd,
                    ":3: column 'mmd': expected a finite number or NA, got 'abc'");
  expect_data_error(h + "sample,m,s\n",
                    ":2: expected " + std::to_string(results_columns().size()) + " cells");
  std::string bad_status = good;
  bad_status.replace(bad_status.find("completed"), 9, "done");
  expect_data_error(h + bad_status, ":2: column 'status'");
  std::string empty_cell = good;
  empty_cell.replace(empty_cell.find("0.1"), 3, "");
  expect_data_error(h + empty_cell, ":2: column 'mmd' is empty");
}

TEST(ExperimentReport, Base64AndEscape) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(html_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}

}  // namespace
}  // namespace dpmcmc
