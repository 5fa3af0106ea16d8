// `--config FILE` expansion (cli/config_file.hpp): what the file's keys become on the command
// line, which options are recorded as coming from a file, and the note an error gets for them.
#include "cli/config_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "core/error.hpp"

namespace dpmcmc::test {
namespace {

using cli::expand_config_files;
using Args = std::vector<std::string>;
using Origins = std::vector<std::pair<std::string, std::string>>;

TEST(ConfigFile, KeysBecomeOptionsWithTheirValueAfterTheSubcommand) {
  const auto dir = scratch_dir("config-expand");
  const std::string file = (dir / "c.toml").string();
  std::ofstream(file) << "chains = 2\nproposal-sd = [0.1, 0.2]\nquiet = false\n"
                         "randomize-step = true\ninit = -1\n";
  // Each as `--key=value`: a false boolean reaches its option (it used to be dropped), a true one
  // cannot take the next argument as its value, a negative number is not read as an option.
  const auto e = expand_config_files({"dpmcmc", "sample", "--config=" + file, "--n", "5"});
  EXPECT_EQ(e.args, (Args{"dpmcmc", "sample", "--chains=2", "--proposal-sd=0.1,0.2",
                          "--quiet=false", "--randomize-step=true", "--init=-1", "--n", "5"}));
  EXPECT_EQ(e.from_file, (Origins{{"--chains", file},
                                  {"--proposal-sd", file},
                                  {"--quiet", file},
                                  {"--randomize-step", file},
                                  {"--init", file}}));
}

TEST(ConfigFile, TheCommandLineWinsAndIsNotRecordedAsFromTheFile) {
  const auto dir = scratch_dir("config-override");
  const std::string file = (dir / "c.json").string();
  std::ofstream(file) << R"({"chains": 2, "thin": 3, "seed": 4})";
  const auto e =
      expand_config_files({"dpmcmc", "sample", "--chains", "5", "--config", file, "--thin=1"});
  EXPECT_EQ(e.args, (Args{"dpmcmc", "sample", "--seed=4", "--chains", "5", "--thin=1"}));
  EXPECT_EQ(e.from_file, (Origins{{"--seed", file}}));
}

TEST(ConfigFile, NoConfigLeavesTheArgumentsAlone) {
  const Args args{"dpmcmc", "sample", "--chains", "2"};
  const auto e = expand_config_files(args);
  EXPECT_EQ(e.args, args);
  EXPECT_TRUE(e.from_file.empty());
}

// Two files giving one option would fail in CLI11 naming neither file, or silently join two lists.
TEST(ConfigFile, AKeyTwoFilesSetIsAConfigErrorNamingBoth) {
  const auto dir = scratch_dir("config-twice");
  const std::string a = (dir / "a.toml").string(), b = (dir / "b.json").string();
  std::ofstream(a) << "proposal-sd = [0.1, 0.2]\n";
  std::ofstream(b) << R"({"proposal-sd": 0.3})";
  try {
    (void)expand_config_files({"dpmcmc", "sample", "--config", a, "--config", b});
    FAIL() << "a key set by two files was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--config " + b + ": key 'proposal-sd' is also set by --config " + a),
              std::string::npos)
        << what;
  }
  // Given on the command line, neither file's value is taken and there is no conflict.
  const auto e =
      expand_config_files({"dpmcmc", "sample", "--config", a, "--config", b, "--proposal-sd", "1"});
  EXPECT_TRUE(e.from_file.empty());
}

// The note lists the options from files that a message names, as whole names, grouped by file.
TEST(ConfigFile, OriginNoteListsTheFileOptionsTheMessageNames) {
  const cli::ExpandedArgs e{{}, {{"--tau", "c.toml"}, {"--thin", "c.toml"}, {"--clip", "d.json"}}};
  EXPECT_EQ(cli::config_origin_note("--tau-l: must be positive", e), "");
  EXPECT_EQ(cli::config_origin_note("/runs/a--thin/x.csv: line 3: bad", e), "");
  EXPECT_EQ(cli::config_origin_note("/runs/--thin/x.csv: line 3: bad", e), "");
  EXPECT_EQ(cli::config_origin_note("no option here -- at all", e), "");
  EXPECT_EQ(cli::config_origin_note("--tau: must be positive", e),
            "dpmcmc: note: set by --config c.toml: --tau\n");
  EXPECT_EQ(cli::config_origin_note("not expected: 2 --chians 1 --clip", e),
            "dpmcmc: note: set by --config d.json: --clip\n");
  EXPECT_EQ(cli::config_origin_note("--alpha (key 'a'): it reads --clip, --thin, --tau", e),
            "dpmcmc: note: set by --config c.toml: --tau, --thin\n"
            "dpmcmc: note: set by --config d.json: --clip\n");
}

// End to end: true and false in a file reach a true/false option (false used to be dropped, so
// the preset's default applied; true used to swallow the next argument).
TEST(ConfigFile, BooleansReachTheRun) {
  const auto dir = scratch_dir("config-bool");
  for (const bool value : {true, false}) {
    const auto cfg = dir / "c.json";
    std::ofstream(cfg) << nlohmann::json{{"sampler", "hmc"}, {"randomize-step", value}};
    const auto out = dir / (value ? "t" : "f");
    const auto r = run_cli("sample --config " + cfg.string() +
                               " --n 100 --chains 1 --iter 20 --warmup 10 --seed 1 --quiet --out " +
                               out.string(),
                           dir);
    ASSERT_EQ(r.exit_code, 0) << value << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    EXPECT_EQ(report["sampler"]["params"]["randomized_step_size"], value);
  }
}

}  // namespace
}  // namespace dpmcmc::test
