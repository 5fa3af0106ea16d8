#include "io/stan_csv_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

const std::string kBern1 = std::string(DPMCMC_FIXTURES_DIR) + "/stan-bernoulli/bern1.csv";

StanCsv parse(const std::string& text) {
  std::istringstream in(text);
  return parse_stan_csv(in, "test.csv");
}

// Expects `f` to throw E whose message contains every one of `parts`.
template <class E, class F>
void expect_error(F f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const auto& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(StanCsvReader, ReadsCmdStanFixture) {
  const StanCsv csv = read_stan_csv(kBern1);
  EXPECT_EQ(csv.source, kBern1);
  const std::vector<std::string> expected_columns = {"lp__",        "accept_stat__", "stepsize__",
                                                     "treedepth__", "n_leapfrog__",  "divergent__",
                                                     "energy__",    "theta"};
  EXPECT_EQ(csv.columns, expected_columns);
  ASSERT_EQ(csv.draws.rows(), 1000);
  ASSERT_EQ(csv.draws.cols(), 8);
  EXPECT_EQ(csv.warmup_rows, 0u);  // save_warmup = false
  // First and last rows of bern1.csv, verbatim.
  EXPECT_EQ(csv.draws(0, 0), -6.80778);
  EXPECT_EQ(csv.draws(0, 7), 0.208532);
  EXPECT_EQ(csv.draws(2, 0), -11.053);
  EXPECT_EQ(csv.draws(999, 7), 0.239427);
  EXPECT_EQ(csv.draws(999, 6), 7.80575);
  EXPECT_EQ(*csv.column_index("theta"), 7u);
  EXPECT_FALSE(csv.column_index("mu").has_value());
  // Configuration: plain keys, dotted paths, "(Default)" stripped.
  EXPECT_EQ(csv.config.at("stan_version_minor"), "35");
  EXPECT_EQ(csv.config.at("num_samples"), "1000");
  EXPECT_EQ(csv.config.at("method.sample.num_samples"), "1000");
  EXPECT_EQ(csv.config.at("method.sample.adapt.delta"), "0.8");
  EXPECT_EQ(csv.config.at("seed"), "86520");
  EXPECT_EQ(csv.config.at("random.seed"), "86520");
  EXPECT_EQ(csv.config.at("method"), "sample");
  EXPECT_EQ(csv.config.at("metric_file"), "");
  EXPECT_EQ(csv.config.at("data.file"),
            "/Users/mitzi/.cmdstan/cmdstan-2.35.0/examples/bernoulli/bernoulli.data.json");
  EXPECT_EQ(csv.config.at("output.file"),
            "/Users/mitzi/github/stan-dev/cmdstanpy/test_csv_files/"
            "bernoulli-20241017141344_1.csv");
  EXPECT_EQ(csv.config.at("file"), csv.config.at("data.file"));  // first occurrence wins
  // Adaptation block and timing comments.
  ASSERT_EQ(csv.adaptation.size(), 4u);
  EXPECT_EQ(csv.adaptation[0], "Adaptation terminated");
  EXPECT_EQ(csv.adaptation[1], "Step size = 0.883328");
  EXPECT_EQ(csv.adaptation[3], "0.512256");
  ASSERT_FALSE(csv.trailing_comments.empty());
  EXPECT_EQ(csv.trailing_comments[0], "Elapsed Time: 0.003 seconds (Warm-up)");
  EXPECT_EQ(csv.sampling_draws().rows(), 1000);
}

TEST(StanCsvReader, SplitsSavedWarmupAtAdaptationBlock) {
  const StanCsv csv = parse(
      "# save_warmup = 1\n# num_warmup = 4\n# thin = 2\nlp__,x\n"
      "-1,10\n-2,20\n"
      "# Adaptation terminated\n# Step size = 0.5\n"
      "-3,30\n-4,40\n-5,50\n");
  EXPECT_EQ(csv.warmup_rows, 2u);
  ASSERT_EQ(csv.draws.rows(), 5);
  const Mat s = csv.sampling_draws();
  ASSERT_EQ(s.rows(), 3);
  EXPECT_EQ(s(0, 1), 30.0);
  EXPECT_EQ(csv.adaptation.size(), 2u);
}

TEST(StanCsvReader, SplitsSavedWarmupFromConfigWithoutAdaptation) {
  // A non-adaptive sampler writes no adaptation block: ⌈num_warmup/thin⌉ rows are warmup.
  const StanCsv csv = parse(
      "# save_warmup = true\n# num_warmup = 5\n# thin = 2\nlp__,x\n"
      "1,1\n2,2\n3,3\n4,4\n5,5\n");
  EXPECT_EQ(csv.warmup_rows, 3u);
  EXPECT_EQ(csv.sampling_draws()(0, 1), 4.0);
}

TEST(StanCsvReader, ToleratesCrLfBlankLinesQuotesSpacesAndNonFinite) {
  const StanCsv csv = parse("\"lp__\", theta\r\n\r\n-1.5e+00 , nan\r\n2,-inf\r\n+3,inf\r\n");
  EXPECT_EQ(csv.columns, (std::vector<std::string>{"lp__", "theta"}));
  ASSERT_EQ(csv.draws.rows(), 3);
  EXPECT_EQ(csv.draws(0, 0), -1.5);
  EXPECT_TRUE(std::isnan(csv.draws(0, 1)));
  EXPECT_EQ(csv.draws(1, 1), -INFINITY);
  EXPECT_EQ(csv.draws(2, 0), 3.0);
}

TEST(StanCsvReader, HeaderWithoutRowsGivesEmptyDraws) {
  const StanCsv csv = parse("# id = 1\nlp__,theta\n");
  EXPECT_EQ(csv.draws.rows(), 0);
  EXPECT_EQ(csv.draws.cols(), 2);
}

TEST(StanCsvReader, MissingFileIsNoInputError) {
  const std::string path = "/nonexistent/dir/chain_1.csv";
  expect_error<NoInputError>([&] { read_stan_csv(path); }, {path, "cannot open"});
  try {
    read_stan_csv(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::no_input);
  }
  expect_error<NoInputError>([] { read_stan_csv(std::filesystem::temp_directory_path()); },
                             {"is a directory"});
}

TEST(StanCsvReader, NoHeaderIsDataError) {
  expect_error<DataError>([] { parse(""); }, {"test.csv", "no header", "empty file"});
  expect_error<DataError>([] { parse("# a = 1\n#\n\n"); },
                          {"test.csv", "no header", "only comments"});
  // Rows of numbers where the header should be: line 2, column 1.
  expect_error<DataError>([] { parse("# a = 1\n-6.8,0.99\n-6.9,0.98\n"); },
                          {"test.csv:2:", "no header", "column 1", "-6.8"});
}

TEST(StanCsvReader, BadHeaderIsDataError) {
  expect_error<DataError>([] { parse("lp__,,theta\n1,2,3\n"); },
                          {"test.csv:1:", "column 2", "empty name"});
  expect_error<DataError>([] { parse("lp__,theta,theta\n1,2,3\n"); },
                          {"test.csv:1:", "column 3", "repeats", "theta"});
}

TEST(StanCsvReader, RaggedRowIsDataError) {
  expect_error<DataError>([] { parse("# c\nlp__,a,b\n1,2,3\n4,5\n"); },
                          {"test.csv:4:", "ragged", "2 fields", "line 2", "3 columns"});
  expect_error<DataError>([] { parse("lp__,a\n1,2,3\n"); }, {"test.csv:2:", "3 fields"});
}

TEST(StanCsvReader, NonNumericCellIsDataError) {
  expect_error<DataError>([] { parse("lp__,a,theta\n1,2,3\n4,5,abc\n"); },
                          {"test.csv:3:", "column 3", "'theta'", "'abc'", "expected a number"});
  expect_error<DataError>([] { parse("lp__,a\n1,\n"); }, {"test.csv:2:", "column 2", "''"});
  expect_error<DataError>([] { parse("lp__,a\n1,2x\n"); }, {"'2x'"});
  expect_error<DataError>([] { parse("lp__,a\n1,1e999\n"); }, {"'1e999'"});
}

TEST(StanCsvReader, FileErrorsNameThePath) {
  // Unique per process: other build directories may run this test at the same time.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dpmcmc_stan_csv_reader_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "ragged.csv";
  {
    std::ofstream out(file);
    out << "# model = x\nlp__,theta\n1,2\n3\n";
  }
  expect_error<DataError>([&] { read_stan_csv(file); }, {file.string() + ":4:", "ragged"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dpmcmc
