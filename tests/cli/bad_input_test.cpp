// Every kind of bad input the command line handles: the exit code (sysexits) and that the
// message names the file, line, column or option and what was expected (docs/architecture.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

TEST(CliBadInput, NoCommandIsUsageError) {
  const auto dir = scratch_dir("nocommand");
  const auto r = run_cli("", dir);
  EXPECT_EQ(r.exit_code, 64);
}

TEST(CliBadInput, UnknownOptionIsUsageError) {
  const auto dir = scratch_dir("unknownopt");
  const auto r = run_cli("sample --no-such-option 3", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
  // The parser's errors carry the prefix of every other error, and say where the help is.
  EXPECT_EQ(r.err.rfind("dpmcmc: error: ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("dpmcmc sample --help"), std::string::npos) << r.err;
}

TEST(CliBadInput, UnknownPresetListsValidOnes) {
  const auto dir = scratch_dir("unknownpreset");
  const auto r = run_cli("sample --model nope --seed 1 --out " + dir.string(), dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("banana-flat-2d"), std::string::npos) << r.err;
}

TEST(CliBadInput, UnknownSampler) {
  const auto dir = scratch_dir("unknownsampler");
  const auto r = run_cli("sample --sampler slice --seed 1 --n 100 --out " + dir.string(), dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--sampler"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rwmh"), std::string::npos) << r.err;
  // A typo of a private sampler's name lists the private ones too (it used to list only the
  // non-private ones, as if --epsilon had not been given).
  const auto typo = run_cli(
      "sample --model banana-tempered-2d --sampler dp-penaltyy --epsilon 4 "
      "--out " +
          (dir / "typo").string(),
      dir);
  EXPECT_EQ(typo.exit_code, 64);
  for (const char* name : {"'dp-penaltyy'", "dp-penalty,", "dp-hmc", "dp-nss"})
    EXPECT_NE(typo.err.find(name), std::string::npos) << name << ": " << typo.err;
  // dp-nss is private but has no iterations to plan or audit: said so, not "not private".
  for (const std::string command : {"account", "audit"}) {
    const auto nss = run_cli(command + " --sampler dp-nss --epsilon 1", dir);
    EXPECT_EQ(nss.exit_code, 64) << command;
    EXPECT_NE(nss.err.find("dpmcmc advise"), std::string::npos) << command << nss.err;
    EXPECT_EQ(nss.err.find("not a private sampler"), std::string::npos) << command << nss.err;
  }
}

TEST(CliBadInput, NonPositiveValues) {
  const auto dir = scratch_dir("nonpositive");
  for (const std::string opt : {"--chains 0", "--step-size -1", "--steps 0", "--thin 0"}) {
    const auto r = run_cli("sample --seed 1 --n 100 " + opt + " --out " + dir.string(), dir);
    EXPECT_EQ(r.exit_code, 64) << opt;
    EXPECT_NE(r.err.find(opt.substr(0, opt.find(' '))), std::string::npos) << opt << ": " << r.err;
  }
  // The scale vectors: each value > 0 with a finite square (1e300 once failed in every chain as
  // "chain 1: adaptation: …", leaving chain files; 0 was exit 78 without the option's name).
  for (const std::string opt :
       {"--sampler rwmh --proposal-sd 0", "--sampler rwmh --proposal-sd 1e300",
        "--sampler rwmh --proposal-sd 0.1,-1", "--sampler rwmh --proposal-sd 1e-200",
        "--sampler hmc --mass 1e200", "--sampler dp-penalty --epsilon 1 --proposal-sd 1e300"}) {
    const auto out = dir / "scale";
    const auto r = run_cli("sample --seed 1 --n 100 " + opt + " --out " + out.string(), dir);
    EXPECT_EQ(r.exit_code, 64) << opt << ": " << r.err;
    const std::string option = opt.substr(opt.rfind("--"), opt.rfind(' ') - opt.rfind("--"));
    EXPECT_NE(r.err.find(option + ": value"), std::string::npos) << opt << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out / "chain-1.csv")) << opt;
    EXPECT_FALSE(std::filesystem::exists(out / "chain-1.csv.part")) << opt;
  }
}

// CLI11 reads "-5" into an unsigned option as 2^64 - 5: every UINT option of every command refuses
// a sign (`--iter -5` crashed, `--seed -1` ran with seed 2^64 - 1) and a number past 2^64 - 1
// (CLI11 capped it), and a count whose draws cannot fit in memory is refused before any chain
// starts, with no partial chain file left.
TEST(CliBadInput, SignedOrOversizedCounts) {
  const auto dir = scratch_dir("signed-counts");
  // A sign, or a number past 2^64 - 1 (CLI11 alone capped it, so two different seeds ran as one).
  const std::pair<const char*, const char*> cases[] = {
      {"--iter -5", ">= 0"},
      {"--warmup -5", ">= 0"},
      {"--seed -1", ">= 0"},
      {"--thin -1", ">= 0"},
      {"--n +100", ">= 0"},
      {"--data-seed -2", ">= 0"},
      {"--seed 18446744073709551616", "<= 18446744073709551615"},
      {"--seed 99999999999999999999999", "<= 18446744073709551615"},
      {"--iter 18446744073709551616", "<= 18446744073709551615"},
      // Decimal digits only: CLI11 alone read 0x10 as 16 (and 010 as octal 8, below).
      {"--seed 0x10", "in decimal digits"},
      {"--seed 1e3", "in decimal digits"},
      {"--chains 0b10", "in decimal digits"},
      {"--iter 12.5", "in decimal digits"}};
  for (const auto& [opt, expected] : cases) {
    const std::string o = opt;
    const auto r = run_cli("sample --model banana-tempered-2d --sampler nuts --n 100 " + o +
                               " --quiet --out " + (dir / "o").string(),
                           dir);
    EXPECT_EQ(r.exit_code, 64) << o;
    EXPECT_NE(r.err.find(o.substr(0, o.find(' ')) + ": expected a whole number " + expected),
              std::string::npos)
        << o << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o" / "chain-1.csv")) << o;
  }
  // A leading zero is decimal: --seed 010 is seed 10, the draws of --seed 10, not of octal 8.
  const auto seeded = [&](const std::string& seed, const std::string& out) {
    return run_cli(
        "sample --model banana-tempered-2d --sampler rwmh --n 100 --chains 02 --iter 20 "
        "--warmup 20 --seed " +
            seed + " --quiet --out " + (dir / out).string(),
        dir);
  };
  const auto leading = seeded("010", "s010");
  ASSERT_EQ(leading.exit_code, 0) << leading.err;
  EXPECT_NE(leading.out.find("seed 10\n"), std::string::npos) << leading.out;
  ASSERT_EQ(seeded("10", "s10").exit_code, 0);
  const auto draws = [&](const std::string& out) {  // the rows, without the timing lines
    const std::string text = slurp(dir / out / "chain-2.csv");
    return text.substr(text.find("lp__"), text.find("#  Elapsed") - text.find("lp__"));
  };
  EXPECT_EQ(draws("s010"), draws("s10"));
  for (const std::string opt : {"account --sampler dp-penalty --epsilon 1 --n -3",
                                "simulate --model banana-tempered-2d --n -1"}) {
    EXPECT_EQ(run_cli(opt, dir).exit_code, 64) << opt;
  }
  const auto r = run_cli(
      "sample --model banana-tempered-2d --sampler nuts --seed 1 --iter "
      "18446744073709551611 --quiet --out " +
          (dir / "big").string(),
      dir);
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("larger --thin"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "big" / "chain-1.csv.part"));
  EXPECT_FALSE(std::filesystem::exists(dir / "big" / "chain-1.csv"));
}

// Counts out of range for the data: more owners or a larger batch than rows, a fractional count,
// a missing owner count. Each message names the option and, where it matters, n.
TEST(CliBadInput, CountsBeyondTheData) {
  const auto dir = scratch_dir("counts");
  const std::string base =
      "sample --model banana-tempered-2d --n 50 --epsilon 4 --seed 1 --quiet "
      "--out " +
      dir.string() + " ";
  struct Case {
    std::string args, needle;
    int code;
  };
  for (const Case& c : {Case{"--sampler dp-penalty-shared --owners 51", "--owners", 78},
                        Case{"--sampler dp-penalty-shared", "--owners", 64},
                        Case{"--sampler dp-penalty-shared --owners 2.5", "--owners", 64},
                        Case{"--sampler dp-penalty-minibatch --batch 51", "batch", 78},
                        // Refused when planned, not in every chain's first release.
                        Case{"--sampler dp-penalty-minibatch --batch 10 --clip 1e300",
                             "--clip 1e+300 makes the minibatch sensitivity", 78},
                        Case{"--sampler dp-penalty-minibatch --batch 0", "--batch", 64},
                        Case{"--sampler dp-sgld --step-size 1 --clip 1 --batch 51", "batch", 78},
                        Case{"--sampler dp-barker --batch 5", "batch", 78}}) {
    const auto r = run_cli(base + c.args, dir);
    EXPECT_EQ(r.exit_code, c.code) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.find("nan"), std::string::npos) << r.err;
  }
  const auto r = run_cli(base + "--sampler dp-penalty-shared --owners 51", dir);
  EXPECT_NE(r.err.find("n = 50"), std::string::npos) << r.err;
}

// More chains than the process may keep files open for: refused before anything is written
// (it once failed half-way with "Too many open files" and left a .part file per chain opened).
// The shell's `ulimit -n 200` caps both limits, so the run cannot raise its own.
TEST(CliBadInput, MoreChainsThanOpenFilesAllow) {
  const auto dir = scratch_dir("open-files");
  const auto out = dir / "o";
  const std::string cmd = "ulimit -n 200 && " + std::string(DPMCMC_BINARY) +
                          " sample --model banana-flat-2d --sampler rwmh --iter 20 --warmup 10 "
                          "--quiet --chains {} --out " +
                          out.string() + " 2>" + (dir / "err.txt").string() + " >/dev/null";
  const auto run = [&](int chains) {
    const int status = std::system(fmt::format(fmt::runtime(cmd), chains).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run(1000), 64);
  const std::string err = slurp(dir / "err.txt");
  for (const char* f : {"--chains", "1000 chains", "give at most 45 chains"})
    EXPECT_NE(err.find(f), std::string::npos) << f << "\n" << err;
  EXPECT_TRUE(!std::filesystem::exists(out) || std::filesystem::is_empty(out));
  EXPECT_EQ(run(45), 0) << slurp(dir / "err.txt");
  EXPECT_TRUE(std::filesystem::exists(out / "chain-45.csv"));
  // dp-nss too, before its one release: no key file, no curator report, no spend.
  const auto rows = dir / "patients.csv";
  const std::string source = DPMCMC_SOURCE_DIR;
  ASSERT_EQ(simulate_patients(rows, 200), 0);
  const std::string nss = "ulimit -n 200 && " + std::string(DPMCMC_BINARY) +
                          " sample --model logistic --schema " + source +
                          "/examples/patients/patients.json --data " + rows.string() +
                          " --sampler dp-nss --epsilon 1 --chains 1000 --quiet --noise-key-file " +
                          (dir / "nss.key").string() + " --out " + (dir / "nss").string() + " 2>" +
                          (dir / "err.txt").string() + " >/dev/null";
  const int status = std::system(nss.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 64) << slurp(dir / "err.txt");
  EXPECT_FALSE(std::filesystem::exists(dir / "nss.key"));
  EXPECT_FALSE(std::filesystem::exists(dir / "nss.curator"));
}

// An option the chosen sampler would not use is refused (exit 64, naming the option), not
// ignored: a hyperparameter it does not read, an iteration count for a private sampler (its
// budget sets the length), a privacy option for a non-private one.
TEST(CliBadInput, OptionsTheSamplerDoesNotUse) {
  const auto dir = scratch_dir("unusedoption");
  const std::string base =
      "sample --n 2000 --seed 1 --quiet --out " + dir.string() + " ";  // banana-tempered-2d
  struct Case {
    std::string args, needle;
  };
  for (const Case& c :
       {Case{"--sampler dp-penalty --epsilon 1 --thermostat 0.1", "--thermostat (key 'A')"},
        // Refused for being unread, not for its value.
        Case{"--sampler dp-penalty --epsilon 1 --thermostat -1", "'dp-penalty' does not read"},
        Case{"--sampler dp-sgld --epsilon 1 --proposal-sd 0.1", "--proposal-sd"},
        Case{"--sampler dp-barker --epsilon 1 --tau 2", "--tau"},
        Case{"--sampler rwmh --batch-sampling poisson", "--batch-sampling"},
        Case{"--sampler hmc --mass 2 --proposal-sd 0.1", "--proposal-sd"},
        Case{"--sampler dp-penalty --epsilon 1 --iter 100", "--iter"},
        Case{"--sampler dp-hmc --epsilon 1 --warmup 10", "--warmup:"},
        Case{"--sampler dp-fast-mh-full --model mixture-fastmh-2d --epsilon 5 --lambda 500",
             "--lambda"},
        Case{"--sampler rwmh --epsilon 1", "--epsilon"},
        Case{"--sampler nuts --epsilon 1", "dp-fast-mh-full, dp-nss"},  // the list names every one
        Case{"--sampler hmc --delta 1e-5", "--delta"},
        Case{"--sampler rwmh --accountants rdp", "--accountants"},
        Case{"--sampler tunamh --warmup-fraction 0.2", "--warmup-fraction"}}) {
    const auto r = run_cli(base + c.args, dir);
    EXPECT_EQ(r.exit_code, 64) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
  }
  // A data file has its own rows: the synthetic data's options are refused with it.
  write(dir / "d.csv", "x.1,x.2\n1,2\n3,4\n");
  for (const std::string option : {"--n", "--data-seed"}) {
    const auto r = run_cli("sample --sampler rwmh --seed 1 --data " + (dir / "d.csv").string() +
                               " " + option + " 50 --out " + dir.string(),
                           dir);
    EXPECT_EQ(r.exit_code, 64) << option << ": " << r.err;
    EXPECT_NE(r.err.find(option + ":"), std::string::npos) << r.err;
  }
  // The options each sampler does read pass and take effect (dp-hmc reads --mass and
  // --randomize-step too).
  struct Accepted {
    std::string args, key;
    nlohmann::json value;
  };
  for (const Accepted& c :
       {Accepted{"--sampler dp-hmc --epsilon 4 --mass 2 --randomize-step true", "mass", 2.0},
        Accepted{"--sampler dp-hmc --epsilon 4 --mass 2 --randomize-step true",
                 "randomized_step_size", true},
        Accepted{"--sampler hmc --iter 20 --warmup 5 --mass 3", "mass", 3.0}}) {
    const auto r = run_cli(base + c.args + " --chains 1", dir);
    ASSERT_EQ(r.exit_code, 0) << c.args << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(dir / "report.json"));
    EXPECT_EQ(report["sampler"]["params"][c.key], c.value) << c.args;
  }
  const auto r = run_cli(base + "--sampler dp-penalty --epsilon 4 --warmup-fraction 0.2", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = nlohmann::json::parse(slurp(dir / "report.json"))["run"];
  const auto planned = run["warmup"].get<int>() + run["samples"].get<int>();
  EXPECT_EQ(run["warmup"].get<int>(), planned / 5) << run;  // floor(0.2 k)
}

TEST(CliBadInput, WrongVectorLength) {
  const auto dir = scratch_dir("veclen");
  const auto r = run_cli(
      "sample --sampler rwmh --proposal-sd 0.1,0.2,0.3 --seed 1 --n 100 --out " + dir.string(),
      dir);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--proposal-sd"), std::string::npos) << r.err;
}

TEST(CliBadInput, MissingDataFileIsNoInput) {
  const auto dir = scratch_dir("missingdata");
  const auto r = run_cli(
      "sample --data " + (dir / "absent.csv").string() + " --seed 1 --out " + dir.string(), dir);
  EXPECT_EQ(r.exit_code, 66);
  EXPECT_NE(r.err.find("absent.csv"), std::string::npos) << r.err;
}

TEST(CliBadInput, NonNumericCellNamesLineAndColumn) {
  const auto dir = scratch_dir("nonnumeric");
  write(dir / "d.csv", "x.1,x.2\n1,2\n3,abc\n");
  const auto r = run_cli(
      "sample --data " + (dir / "d.csv").string() + " --seed 1 --out " + (dir / "o").string(), dir);
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("d.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("abc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("x.2"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "report.json"));
}

TEST(CliBadInput, WrongColumnsForModel) {
  const auto dir = scratch_dir("wrongcols");
  write(dir / "d.csv", "x.1,x.2,x.3\n1,2,3\n");
  const auto r = run_cli("sample --model banana-flat-2d --data " + (dir / "d.csv").string() +
                             " --seed 1 --out " + (dir / "o").string(),
                         dir);
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("banana-flat-2d"), std::string::npos) << r.err;
}

TEST(CliBadInput, NonFiniteAndRaggedAndEmpty) {
  const auto dir = scratch_dir("nonfinite");
  write(dir / "nan.csv", "x.1,x.2\n1,nan\n");
  write(dir / "ragged.csv", "x.1,x.2\n1,2\n3\n");
  write(dir / "empty.csv", "");
  for (const std::string f : {"nan.csv", "ragged.csv", "empty.csv"}) {
    const auto r = run_cli(
        "sample --data " + (dir / f).string() + " --seed 1 --out " + (dir / "o").string(), dir);
    EXPECT_EQ(r.exit_code, 65) << f;
    EXPECT_NE(r.err.find(f), std::string::npos) << f << ": " << r.err;
  }
}

TEST(CliBadInput, InvalidJsonConfigIsConfigError) {
  const auto dir = scratch_dir("badconfig");
  write(dir / "c.json", "{\"chains\": 2,,}");
  const auto r = run_cli("sample --config " + (dir / "c.json").string(), dir);
  EXPECT_EQ(r.exit_code, 78);
  EXPECT_NE(r.err.find("--config"), std::string::npos) << r.err;
}

// An error about an option that came from a file says which file, since the command line the
// user typed does not show it; an option typed on the command line gets no such note.
TEST(CliBadInput, OptionFromAConfigFileIsTracedToTheFile) {
  const auto dir = scratch_dir("configorigin");
  const auto sample = [&](const std::string& file, const std::string& extra) {
    return run_cli("sample --config " + (dir / file).string() + extra + " --n 100 --out " +
                       (dir / "o").string(),
                   dir);
  };
  write(dir / "c.toml", "chains = 0\nthin = 2\n");
  auto r = sample("c.toml", "");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("note: set by --config " + (dir / "c.toml").string() + ": --chains\n"),
            std::string::npos)
      << r.err;
  write(dir / "d.json",
        R"({"model": "banana-tempered-2d", "sampler": "dp-penalty", "thermostat": 1, "tau": 1})");
  r = sample("d.json", "");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--config " + (dir / "d.json").string() + ": --tau, --thermostat"),
            std::string::npos)
      << r.err;
  // A key that is no option: CLI11's own message, traced the same way.
  write(dir / "e.json", R"({"A": 1})");
  r = sample("e.json", "");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find(": --A\n"), std::string::npos) << r.err;
  // Typed on the command line, the option overrides the file and gets no note.
  r = sample("c.toml", " --chains 0");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_EQ(r.err.find("set by --config"), std::string::npos) << r.err;
}

TEST(CliBadInput, MissingConfigFile) {
  const auto dir = scratch_dir("missingconfig");
  const auto r = run_cli("sample --config " + (dir / "none.toml").string(), dir);
  EXPECT_EQ(r.exit_code, 66);
  EXPECT_NE(r.err.find("none.toml"), std::string::npos) << r.err;
}

TEST(CliBadInput, SummaryOfMissingFile) {
  const auto dir = scratch_dir("summarymissing");
  const auto r = run_cli("summary " + (dir / "nope.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 66);
  EXPECT_NE(r.err.find("nope.csv"), std::string::npos) << r.err;
}

// A data file (a headed numeric table, no lp__) is not summarised as if its rows were draws: the
// table would print the private rows' means and quantiles.
TEST(CliBadInput, SummaryOfADataFileIsRefused) {
  const auto dir = scratch_dir("summary-data");
  write(dir / "patients.csv", "age,dose\n41,2.5\n58,1.0\n33,4.0\n");
  const auto r = run_cli("summary " + (dir / "patients.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 65) << r.out;
  EXPECT_NE(r.err.find("patients.csv: no lp__ column"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("41"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("44"), std::string::npos) << r.out;  // the mean age
}

TEST(CliBadInput, SimulateUnwritableOutput) {
  const auto dir = scratch_dir("unwritable");
  write(dir / "file", "x");
  // A path below a regular file cannot be created, even by root.
  const auto r =
      run_cli("simulate --model circle --n 10 --out " + (dir / "file" / "d.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 73);
}

}  // namespace
}  // namespace dpmcmc::test
