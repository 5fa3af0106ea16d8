#include "io/chain_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const auto dir =
      fs::temp_directory_path() / ("dpmcmc-chain-files-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void touch(const fs::path& p) {
  std::ofstream(p) << "x\n";
}

TEST(ChainFiles, OnlyChainKCsvNamesCarryANumber) {
  EXPECT_EQ(chain_file_number("chain-1.csv"), 1u);
  EXPECT_EQ(chain_file_number("chain-10.csv"), 10u);
  for (const char* name :
       {"chain-.csv", "chain-1.csv.part", "chain-1a.csv", "chain-+1.csv", "chain--1.csv",
        "Chain-1.csv", "chain-1.CSV", "report.json", "chain-99999999999999999999999.csv"})
    EXPECT_FALSE(chain_file_number(name).has_value()) << name;
}

// chain-10 after chain-9 (a lexicographic sort would put it second); other files are skipped.
TEST(ChainFiles, ADirectoryGivesItsChainFilesInTheOrderOfTheirNumbers) {
  const auto dir = fresh_dir("order");
  for (const char* f : {"chain-10.csv", "chain-2.csv", "chain-1.csv", "chain-3.csv.part",
                        "report.json", "chain-x.csv"})
    touch(dir / f);
  const auto files = run_chain_files(dir);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].filename(), "chain-1.csv");
  EXPECT_EQ(files[1].filename(), "chain-2.csv");
  EXPECT_EQ(files[2].filename(), "chain-10.csv");
  // A file stands for itself, whatever its name.
  EXPECT_EQ(run_chain_files(dir / "report.json"), std::vector<fs::path>{dir / "report.json"});
  fs::remove_all(dir);
}

TEST(ChainFiles, ADirectoryWithoutChainFilesIsAnInputErrorThatSaysWhy) {
  const auto dir = fresh_dir("none");
  const auto message = [&] {
    try {
      run_chain_files(dir);
    } catch (const NoInputError& e) {
      return std::string(e.what());
    }
    return std::string("no NoInputError");
  };
  EXPECT_NE(message().find(dir.string() + ": no chain-*.csv in this directory ("),
            std::string::npos)
      << message();
  touch(dir / "chain-1.csv.part");
  EXPECT_NE(message().find("only chain-*.csv.part"), std::string::npos) << message();
  EXPECT_NE(message().find("--resume"), std::string::npos) << message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dpmcmc
