// Stan CSV draws writer: the exact file layout, values read back bit for bit by a small reader
// written here after ArviZ's from_cmdstan algorithm (comments, header, rows, warmup split by
// save_warmup * num_warmup // thin, sample stats = columns ending "__", parameters grouped by
// their dotted 1-based indices), agreement with our stan_csv_reader, and the .part life cycle.
#include "io/stan_csv_writer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>

#include "../data/temp_dir.hpp"
#include "core/error.hpp"
// The cross-check against our own reader is compiled when that reader (written separately) is
// in the tree.
#if __has_include("io/stan_csv_reader.hpp")
#include "io/stan_csv_reader.hpp"
#define DPMCMC_HAVE_STAN_CSV_READER 1
#endif

namespace dpmcmc {
namespace {

using testing::read_text;
using testing::TempDir;
namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What ArviZ's from_cmdstan extracts from one file (arviz/data/io_cmdstan.py, _read_output):
// comments anywhere, the first non-comment line as header, every other non-empty line a row of
// floats (Python's float() accepts "nan", "inf", "-inf"), config "key = integer" comments, and
// the leading save_warmup * num_warmup // thin rows as warmup.
struct ArvizView {
  std::map<std::string, std::string> config;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> warmup, sample;
  std::vector<std::string> comments_after_header;
};

double python_float(std::string_view s) {
  if (s == "nan") return kNaN;
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  double v = 0.0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size()) {
    throw std::runtime_error("not a float: '" + std::string(s) + "'");
  }
  return v;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  for (;;) {
    const auto comma = line.find(',', start);
    cells.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) return cells;
    start = comma + 1;
  }
}

ArvizView arviz_read(const fs::path& file) {
  ArvizView view;
  std::vector<std::vector<double>> rows;
  for (const auto& line : lines_of(read_text(file))) {
    if (line.starts_with("#")) {
      if (view.columns.empty()) {
        const auto eq = line.find(" = ");
        if (eq != std::string::npos) view.config[line.substr(2, eq - 2)] = line.substr(eq + 3);
      } else {
        view.comments_after_header.push_back(line);
      }
      continue;
    }
    if (view.columns.empty()) {
      view.columns = split(line);
      continue;
    }
    if (line.empty()) continue;
    std::vector<double> row;
    for (const auto& cell : split(line)) row.push_back(python_float(cell));
    if (row.size() != view.columns.size()) throw std::runtime_error("ragged row: " + line);
    rows.push_back(row);
  }
  // int() of each value, as ArviZ applies it: "true"/"false" would raise there.
  const std::size_t saved = std::stoul(view.config.at("save_warmup")) *
                            std::stoul(view.config.at("num_warmup")) /
                            std::stoul(view.config.at("thin"));
  const std::size_t split_at = std::min(saved, rows.size());
  view.warmup.assign(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(split_at));
  view.sample.assign(rows.begin() + static_cast<std::ptrdiff_t>(split_at), rows.end());
  return view;
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

StanCsvLayout basic_layout() {
  StanCsvLayout layout;
  layout.num_samples = 3;
  layout.num_warmup = 2;
  layout.config = {{"model", "banana"}, {"algorithm", "penalty"}, {"seed", "42"}};
  layout.sampler_columns = {"clip_frac__"};
  layout.param_names = {"theta.1", "theta.2"};
  return layout;
}

TEST(StanCsvWriter, WritesStanLayoutExactly) {
  TempDir dir;
  const auto file = dir / "chain_1.csv";
  {
    StanCsvWriter writer(file, basic_layout());
    const std::vector<double> clip = {0.25};
    writer.write_draw(-1.5, 1, clip, std::vector<double>{0.1, -2});
    writer.write_draw(kNaN, 0.5, clip, std::vector<double>{1e-300, 1e21});
    Vec theta(2);
    theta << 1.0 / 3.0, -0.0;
    writer.write_draw(-std::numeric_limits<double>::infinity(), 0, clip, theta);
    writer.finish({0.25, 1.5});
  }
  EXPECT_EQ(read_text(file),
            "# num_samples = 3\n"
            "# num_warmup = 2\n"
            "# save_warmup = 0\n"
            "# thin = 1\n"
            "# model = banana\n"
            "# algorithm = penalty\n"
            "# seed = 42\n"
            "lp__,accept_stat__,clip_frac__,theta.1,theta.2\n"
            "-1.5,1,0.25,0.1,-2\n"
            "nan,0.5,0.25,1e-300,1e+21\n"
            "-inf,0,0.25,0.3333333333333333,-0\n"
            "# \n"
            "#  Elapsed Time: 0.250 seconds (Warm-up)\n"
            "#                1.500 seconds (Sampling)\n"
            "#                1.750 seconds (Total)\n"
            "# \n"
            "# dpmcmc: completed 5 of 5 iterations\n");
  EXPECT_FALSE(fs::exists(dir / "chain_1.csv.part"));
}

TEST(StanCsvWriter, ArvizReadsBackExactDraws) {
  TempDir dir;
  const auto file = dir / "out" / "chain_2.csv";  // the output directory is created
  StanCsvLayout layout = basic_layout();
  layout.num_samples = 200;
  std::vector<std::vector<double>> written;
  {
    StanCsvWriter writer(file, layout);
    for (int i = 0; i < 200; ++i) {
      // Values with full 17-digit mantissas and exponents over the whole range.
      const double a = std::ldexp(1.0 + i / 211.0, i * 7 - 700);
      const double b = -std::sqrt(i + 0.5) * 1e-5;
      const std::vector<double> row = {std::log(i + 1.0), 1.0 / (i + 1), i / 200.0, a, b};
      writer.write_draw(row[0], row[1], std::span(row).subspan(2, 1), std::span(row).subspan(3));
      written.push_back(row);
    }
    writer.finish({});
  }
  const ArvizView view = arviz_read(file);
  EXPECT_EQ(view.columns, (std::vector<std::string>{"lp__", "accept_stat__", "clip_frac__",
                                                    "theta.1", "theta.2"}));
  EXPECT_EQ(view.config.at("model"), "banana");
  EXPECT_TRUE(view.warmup.empty());
  ASSERT_EQ(view.sample.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      ASSERT_TRUE(same_bits(view.sample[i][j], written[i][j])) << i << "," << j;
    }
  }
  // Comments after the header are only Stan's timing block and our closing line.
  ASSERT_EQ(view.comments_after_header.size(), 6u);
  EXPECT_EQ(view.comments_after_header.back(), "# dpmcmc: completed 202 of 202 iterations");
}

TEST(StanCsvWriter, SavedWarmupIsSplitAlikeByArvizAndOurReader) {
  TempDir dir;
  const auto file = dir / "warm.csv";
  StanCsvLayout layout = basic_layout();
  layout.num_warmup = 6;
  layout.num_samples = 4;
  layout.thin = 2;
  layout.save_warmup = true;
  {
    StanCsvWriter writer(file, layout);
    for (int i = 0; i < 3; ++i) {  // 6 / 2 warmup rows, marked by lp__ = -100 - i
      writer.write_warmup_draw(-100 - i, 1, std::vector<double>{0}, std::vector<double>{1, 2});
    }
    writer.write_adaptation({"Step size = 0.5"});
    for (int i = 0; i < 2; ++i) {
      writer.write_draw(-i, 1, std::vector<double>{0}, std::vector<double>{3, 4});
    }
    writer.finish({1, 2});
  }
  const ArvizView view = arviz_read(file);
  ASSERT_EQ(view.warmup.size(), 3u);
  ASSERT_EQ(view.sample.size(), 2u);
  EXPECT_EQ(view.warmup[2][0], -102.0);
  EXPECT_EQ(view.sample[0][0], 0.0);
  EXPECT_EQ(view.comments_after_header[0], "# Adaptation terminated");
  EXPECT_EQ(view.comments_after_header[1], "# Step size = 0.5");

#ifdef DPMCMC_HAVE_STAN_CSV_READER
  const StanCsv ours = read_stan_csv(file);
  EXPECT_EQ(ours.warmup_rows, 3u);
  ASSERT_EQ(ours.draws.rows(), 5);
  EXPECT_EQ(ours.draws(4, 0), -1.0);
  EXPECT_EQ(ours.columns, view.columns);
#endif
}

TEST(StanCsvWriter, WrongNumberOfWarmupRowsIsABug) {
  TempDir dir;
  StanCsvLayout layout = basic_layout();
  layout.num_warmup = 4;
  layout.save_warmup = true;
  StanCsvWriter writer(dir / "w.csv", layout);
  writer.write_warmup_draw(0, 1, std::vector<double>{0}, std::vector<double>{1, 2});
  EXPECT_THROW(writer.write_draw(0, 1, std::vector<double>{0}, std::vector<double>{1, 2}),
               SoftwareError);
}

TEST(StanCsvWriter, SaveWarmupNeedsThinDividingNumWarmup) {
  TempDir dir;
  StanCsvLayout layout = basic_layout();
  layout.num_warmup = 5;
  layout.thin = 2;
  layout.save_warmup = true;
  try {
    StanCsvWriter writer(dir / "w.csv", layout);
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("num_warmup (5) must be a multiple of thin (2)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "w.csv.part"));  // refused before anything is written
}

TEST(StanCsvWriter, FileIsPartUntilFinish) {
  TempDir dir;
  const auto file = dir / "chain.csv";
  StanCsvOptions options;
  options.flush_every_draws = 1;
  StanCsvWriter writer(file, basic_layout(), options);
  EXPECT_EQ(writer.part_path(), dir / "chain.csv.part");
  writer.write_draw(-1, 1, std::vector<double>{0}, std::vector<double>{1, 2});
  EXPECT_FALSE(fs::exists(file));
  const auto lines = lines_of(read_text(writer.part_path()));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "-1,1,0,1,2");  // flushed: visible to a reader of the .part file
  writer.finish({});
  EXPECT_TRUE(fs::exists(file));
  EXPECT_FALSE(fs::exists(writer.part_path()));
}

TEST(StanCsvWriter, FlushesEveryNDraws) {
  TempDir dir;
  StanCsvOptions options;
  options.flush_every_draws = 10;
  options.flush_interval_seconds = 1e9;  // count-based only, so the test is deterministic
  StanCsvWriter writer(dir / "c.csv", basic_layout(), options);
  const auto header_size = fs::file_size(writer.part_path());
  for (int i = 0; i < 9; ++i) {
    writer.write_draw(i, 1, std::vector<double>{0}, std::vector<double>{1, 2});
  }
  EXPECT_EQ(fs::file_size(writer.part_path()), header_size);  // still in the buffer
  writer.write_draw(9, 1, std::vector<double>{0}, std::vector<double>{1, 2});
  EXPECT_EQ(lines_of(read_text(writer.part_path())).back(), "9,1,0,1,2");
}

TEST(StanCsvWriter, FlushesAfterTheInterval) {
  TempDir dir;
  StanCsvOptions options;
  options.flush_every_draws = 1000000;
  options.flush_interval_seconds = 0.0;  // every draw is past the interval
  StanCsvWriter writer(dir / "c.csv", basic_layout(), options);
  writer.write_draw(7, 1, std::vector<double>{0}, std::vector<double>{1, 2});
  EXPECT_EQ(lines_of(read_text(writer.part_path())).back(), "7,1,0,1,2");
}

TEST(StanCsvWriter, InterruptedRunIsRenamedWithAStatement) {
  TempDir dir;
  const auto file = dir / "chain.csv";
  {
    StanCsvWriter writer(file, basic_layout());
    writer.write_draw(-1, 1, std::vector<double>{0}, std::vector<double>{1, 2});
    writer.finish_interrupted(1234, 5000, "interrupted by signal", {1, 2});
  }
  EXPECT_FALSE(fs::exists(dir / "chain.csv.part"));
  const auto lines = lines_of(read_text(file));
  EXPECT_EQ(lines.back(),
            "# dpmcmc: INTERRUPTED after 1234 of 5000 iterations (interrupted by signal); draws "
            "are a valid but partial chain");
  EXPECT_EQ(arviz_read(file).sample.size(), 1u);
}

TEST(StanCsvWriter, InterruptedBeforeAnyDrawSaysSo) {
  TempDir dir;
  const auto file = dir / "chain.csv";
  {
    StanCsvWriter writer(file, basic_layout());
    writer.finish_interrupted(3, 5000, "", {});
  }
  EXPECT_EQ(lines_of(read_text(file)).back(),
            "# dpmcmc: INTERRUPTED after 3 of 5000 iterations; no draws were saved");
}

TEST(StanCsvWriter, AbortedRunStaysPart) {
  TempDir dir;
  const auto file = dir / "chain.csv";
  try {
    StanCsvWriter writer(file, basic_layout());
    writer.write_draw(-1, 1, std::vector<double>{0}, std::vector<double>{1, 2});
    throw std::runtime_error("model failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(file));
  const auto lines = lines_of(read_text(dir / "chain.csv.part"));
  EXPECT_EQ(lines[lines.size() - 2], "-1,1,0,1,2");
  EXPECT_TRUE(lines.back().starts_with("# dpmcmc: ABORTED after 0 warmup and 1 sampling draws"))
      << lines.back();
}

TEST(StanCsvWriter, StaleResultIsRemovedWhenARunStarts) {
  TempDir dir;
  const auto file = dir.write("chain.csv", "old complete result\n");
  StanCsvWriter writer(file, basic_layout());
  EXPECT_FALSE(fs::exists(file));
}

TEST(StanCsvWriter, UnwritablePathIsOutputError) {
  TempDir dir;
  const auto blocker = dir.write("blocker", "x");
  try {
    StanCsvWriter writer(blocker / "draws" / "chain.csv", basic_layout());
    FAIL() << "no exception";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.code(), ExitCode::cant_create);
    EXPECT_NE(std::string(e.what()).find((blocker / "draws").string()), std::string::npos)
        << e.what();
  }
}

TEST(StanCsvWriter, ConfigValuesStayOnOneLine) {
  TempDir dir;
  StanCsvLayout layout = basic_layout();
  layout.config = {{"note", "two\nlines"}};
  {
    StanCsvWriter writer(dir / "c.csv", layout);
    writer.finish({});
  }
  EXPECT_EQ(lines_of(read_text(dir / "c.csv"))[4], "# note = two\\nlines");
}

TEST(StanCsvWriter, RefusesLayoutsReadersWouldMisread) {
  TempDir dir;
  const auto expect_bug = [&](const StanCsvLayout& layout, const std::string& what) {
    EXPECT_THROW(StanCsvWriter(dir / "c.csv", layout), SoftwareError) << what;
  };
  auto layout = basic_layout();
  layout.sampler_columns = {"clip_frac"};
  expect_bug(layout, "sampler column without __");
  layout = basic_layout();
  layout.sampler_columns = {"lp__"};
  expect_bug(layout, "lp__ twice");
  for (const char* name : {"theta.0", "theta.a", "theta..1", "1theta", "theta,1", "x__", ""}) {
    layout = basic_layout();
    layout.param_names = {name};
    expect_bug(layout, name);
  }
  layout = basic_layout();
  layout.param_names = {"mu", "mu"};
  expect_bug(layout, "duplicate");
  layout = basic_layout();
  layout.config = {{"thin", "2"}};
  expect_bug(layout, "reserved key");
  layout = basic_layout();
  layout.config = {{"a key", "2"}};
  expect_bug(layout, "key with a blank");
  // Accepted: plain names and multi-index names.
  layout = basic_layout();
  layout.param_names = {"mu", "Sigma.1.2", "beta_1.10"};
  EXPECT_NO_THROW(StanCsvWriter(dir / "ok.csv", layout));
}

TEST(StanCsvWriter, RowOfWrongLengthIsABug) {
  TempDir dir;
  StanCsvWriter writer(dir / "c.csv", basic_layout());
  EXPECT_THROW(writer.write_draw(0, 1, std::vector<double>{0}, std::vector<double>{1}),
               SoftwareError);
  EXPECT_THROW(writer.write_draw(0, 1, std::vector<double>{}, std::vector<double>{1, 2}),
               SoftwareError);
}

}  // namespace
}  // namespace dpmcmc
