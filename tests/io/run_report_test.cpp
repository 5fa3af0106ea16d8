// JSON run report: exact text (2-space indentation), non-finite numbers written as null and the
// text still valid JSON, Eigen conversions (row-major nesting checked element by element), the
// atomic write, invalid UTF-8 survival, and timings.
#include "io/run_report.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

#include "../data/temp_dir.hpp"
#include "core/error.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::TempDir;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(RunReport, FormatsWithTwoSpaceIndentation) {
  json report = {{"epsilon", 1.5}, {"chains", json::array({1, 2})}};
  EXPECT_EQ(format_json(report),
            "{\n  \"chains\": [\n    1,\n    2\n  ],\n  \"epsilon\": 1.5\n}\n");
}

TEST(RunReport, NonFiniteNumbersBecomeNull) {
  // Stored directly (dump's own rule) and through the helpers (null in the document itself).
  json report = {{"rhat", kNaN}, {"ess", kInf}, {"bound", json_number(-kInf)}, {"ok", 0.5}};
  const std::string text = format_json(report);
  const json back = json::parse(text);  // throws if the text is not valid JSON
  EXPECT_TRUE(back["rhat"].is_null());
  EXPECT_TRUE(back["ess"].is_null());
  EXPECT_TRUE(back["bound"].is_null());
  EXPECT_EQ(back["ok"], 0.5);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  EXPECT_TRUE(json_number(kNaN).is_null());
  EXPECT_EQ(json_number(0.1).get<double>(), 0.1);
}

TEST(RunReport, EigenVectorsAndMatrices) {
  Vec v(3);
  v << 1, kNaN, -2.5;
  EXPECT_EQ(json_array(v), json::parse("[1.0, null, -2.5]"));
  Mat m(2, 3);
  m << 1, 2, 3, 4, 5, kInf;
  const json jm = json_matrix(m);
  ASSERT_EQ(jm.size(), 2u);  // rows
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(jm[static_cast<std::size_t>(i)].size(), 3u);
    for (int j = 0; j < 3; ++j) {
      const json& cell = jm[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (std::isfinite(m(i, j))) {
        EXPECT_EQ(cell.get<double>(), m(i, j));
      } else {
        EXPECT_TRUE(cell.is_null());
      }
    }
  }
  EXPECT_EQ(json_matrix(Mat(0, 2)), json::array());
}

TEST(RunReport, DoublesRoundTripExactly) {
  const double values[] = {0.1, 1.0 / 3.0, 1e-310, 1.7976931348623157e308,
                           -2.2250738585072014e-308};
  for (double v : values) {
    EXPECT_EQ(json::parse(format_json(json_number(v))).get<double>(), v) << v;
  }
}

TEST(RunReport, WritesAtomically) {
  TempDir dir;
  const auto file = dir / "reports" / "run.json";
  const json report = {{"seed", 42}};
  write_json(report, file);
  EXPECT_EQ(read_text(file), format_json(report));
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
}

TEST(RunReport, UnwritablePathIsOutputError) {
  TempDir dir;
  const auto blocker = dir.write("blocker", "x");
  try {
    write_json(json::object(), blocker / "run.json");
    FAIL() << "no exception";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.code(), ExitCode::cant_create);
    EXPECT_NE(std::string(e.what()).find(blocker.string()), std::string::npos) << e.what();
  }
}

TEST(RunReport, InvalidUtf8IsReplacedNotFatal) {
  const json report = {{"data", "caf\xE9.csv"}};  // Latin-1 é: not UTF-8
  std::string text;
  ASSERT_NO_THROW(text = format_json(report));
  EXPECT_EQ(json::parse(text)["data"], "caf\xEF\xBF\xBD.csv");  // U+FFFD
}

TEST(RunReport, TimingsAccumulateAndSum) {
  Timings timings;
  timings.add("warmup", 1.25);
  timings.add("sampling", 2.0);
  timings.add("warmup", std::chrono::milliseconds(250));
  EXPECT_EQ(timings.seconds("warmup"), 1.5);
  EXPECT_EQ(timings.seconds("absent"), 0.0);
  EXPECT_EQ(timings.to_json(), json::parse(R"({"warmup_seconds": 1.5, "sampling_seconds": 2.0,
                                               "total_seconds": 3.5})"));
  EXPECT_THROW(timings.add("total", 1.0), SoftwareError);
}

TEST(RunReport, StopwatchMeasuresAtLeastTheSleep) {
  Stopwatch watch;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // sleep_for blocks for at least the duration on a steady clock, so this bound cannot flake.
  const double first = watch.seconds();
  EXPECT_GE(first, 0.020);
  EXPECT_GE(watch.seconds(), first);  // monotonic
  // After restart() the watch counts from later than a watch started before the restart.
  Stopwatch earlier;
  watch.restart();
  const double restarted = watch.seconds();
  EXPECT_LE(restarted, earlier.seconds());
}

}  // namespace
}  // namespace dpmcmc
