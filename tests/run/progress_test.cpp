#include "run/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace dpmcmc {
namespace {

TEST(Progress, ShownOnlyWhenAskedOrOnATerminal) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(progress_enabled(ProgressMode::automatic, file));  // a regular file: no tty
  EXPECT_TRUE(progress_enabled(ProgressMode::always, file));
  EXPECT_FALSE(progress_enabled(ProgressMode::never, file));
  std::fclose(file);
}

TEST(Progress, LineShowsCountsAndEndsWithNewline) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressLine line(file, 200, 4);
  line.update(50, 1);
  line.finish(120, 4, true);
  std::rewind(file);
  std::string text;
  for (int ch; (ch = std::fgetc(file)) != EOF;) text.push_back(static_cast<char>(ch));
  std::fclose(file);
  EXPECT_NE(text.find("\rdpmcmc: 50/200 iterations (25%), 1/4 chains done"), std::string::npos)
      << text;
  EXPECT_NE(text.find("120/200 iterations (60%), 4/4 chains done"), std::string::npos) << text;
  EXPECT_NE(text.find("interrupted"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace dpmcmc
