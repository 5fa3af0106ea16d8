// AtomicFile: the final name appears only at commit(); an abandoned file is removed or kept as
// asked; a stale final file is removed only when asked.
#include "data/atomic_file.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

using testing::read_text;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(AtomicFile, FinalNameAppearsOnlyAtCommit) {
  TempDir dir;
  const auto final_path = dir / "report.json";
  {
    AtomicFile file(final_path);
    file.write("hello ");
    file.flush();
    EXPECT_FALSE(fs::exists(final_path));
    EXPECT_EQ(read_text(file.temp_path()), "hello ");
    EXPECT_EQ(file.temp_path(), dir / "report.json.tmp");
    file.write("world");
    file.commit();
    EXPECT_TRUE(file.committed());
  }
  EXPECT_EQ(read_text(final_path), "hello world");
  EXPECT_FALSE(fs::exists(dir / "report.json.tmp"));
}

TEST(AtomicFile, AbandonedFileIsRemovedByDefault) {
  TempDir dir;
  {
    AtomicFile file(dir / "a.csv");
    file.write("partial");
  }
  EXPECT_FALSE(fs::exists(dir / "a.csv"));
  EXPECT_FALSE(fs::exists(dir / "a.csv.tmp"));
}

TEST(AtomicFile, AbandonedFileIsKeptWhenAsked) {
  TempDir dir;
  AtomicFile::Options options;
  options.temp_suffix = ".part";
  options.keep_on_abandon = true;
  {
    AtomicFile file(dir / "a.csv", options);
    file.write("partial");
  }
  EXPECT_FALSE(fs::exists(dir / "a.csv"));
  EXPECT_EQ(read_text(dir / "a.csv.part"), "partial");
}

TEST(AtomicFile, OldFileStaysUntilCommitUnlessStaleRemovalIsAsked) {
  TempDir dir;
  const auto path = dir.write("x.txt", "old");
  {
    AtomicFile file(path);
    file.write("new");
    EXPECT_EQ(read_text(path), "old");  // atomic replace: the old file is intact meanwhile
    file.commit();
  }
  EXPECT_EQ(read_text(path), "new");

  AtomicFile::Options options;
  options.remove_stale_final = true;
  AtomicFile file(path, options);
  EXPECT_FALSE(fs::exists(path));  // a long run: no old result under the final name
}

TEST(AtomicFile, WriteFileAtomic) {
  TempDir dir;
  write_file_atomic(dir / "d" / "f.txt", "content");
  EXPECT_EQ(read_text(dir / "d" / "f.txt"), "content");
}

TEST(AtomicFile, UnwritableLocationsAreOutputErrors) {
  TempDir dir;
  const auto blocker = dir.write("plain", "x");
  for (const auto& target : {blocker / "sub" / "f.txt", dir.path()}) {
    try {
      AtomicFile file(target);
      ADD_FAILURE() << "opened " << target;
    } catch (const OutputError& e) {
      EXPECT_EQ(e.code(), ExitCode::cant_create);
      EXPECT_NE(std::string(e.what()).find(dir.path().string()), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dpmcmc
