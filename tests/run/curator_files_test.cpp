// Where the curator's files go: beside --out, never inside it (the publication boundary).
#include "run/curator_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

namespace fs = std::filesystem;

TEST(CuratorDir, IsTheOutputDirectorysNameWithCuratorAppended) {
  EXPECT_EQ(curator_dir("out/run"), fs::path("out/run.curator"));
  EXPECT_EQ(curator_dir("out/run/"), fs::path("out/run.curator"));
  EXPECT_EQ(curator_dir("run/."), fs::path("run.curator"));
  EXPECT_EQ(curator_dir("out/x/../run"), fs::path("out/run.curator"));
  EXPECT_EQ(curator_dir("/tmp/a/run"), fs::path("/tmp/a/run.curator"));
}

// "." used to give "..curator": a hidden directory inside the published one, which a `tar` of
// --out would publish with the clip counts and the key file's path.
TEST(CuratorDir, NeverInsideTheOutputDirectory) {
  const fs::path cwd = fs::current_path();
  const fs::path beside = cwd.parent_path() / (cwd.filename().string() + ".curator");
  for (const char* out : {".", "./", "run/..", "./run/../."}) {
    const fs::path dir = curator_dir(out);
    EXPECT_EQ(dir, beside) << out;
    const auto rel = fs::absolute(dir).lexically_relative(cwd);
    EXPECT_EQ(*rel.begin(), fs::path("..")) << out << " gives " << dir;
  }
  EXPECT_THROW(curator_dir("/"), ConfigError);
  EXPECT_THROW(curator_dir("/.."), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
