// `dpmcmc sample --resume DIR` after SIGKILL (issue #24). Twenty runs are killed at random instants
// while they sample — between two checkpoints, so the resumed chains must replay releases they
// had made — and resumed; each must end with the uninterrupted run's draws (byte for byte: a
// private run's published CSVs hold no timings) and its recorded spend. Three samplers share the
// kills: DP penalty (one Gaussian release per iteration), DP-SGNHT (Poisson batches: how far the
// noise stream goes depends on the data) and DP HMC (L + 1 releases per iteration, a randomised
// step). And a resume is refused when it could not be the same run: other data, another key,
// changed options, or nothing left to resume.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"

extern char** environ;

namespace dpmcmc::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kConfigs = {
    "--model banana-tempered-2d --sampler dp-penalty --epsilon 12 --chains 2 --accountants zcdp "
    "--checkpoint-every 97",
    "--model banana-dphmc-2d --sampler dp-sgnht --batch 200 --epsilon 1 --chains 2 "
    "--checkpoint-every 501",
    "--model banana-dphmc-2d --sampler dp-hmc --epsilon 3 --chains 2 --accountants zcdp "
    "--randomize-step true --checkpoint-every 7",
};

pid_t spawn(const std::string& args) {
  const pid_t pid = spawn_cli(args);
  EXPECT_GT(pid, 0);
  return pid;
}

// Waits until `file` exists (the run is sampling), then `delay` longer, then SIGKILLs `pid`.
// Returns whether the signal ended the process (false: it had finished first).
bool kill_after(pid_t pid, const fs::path& file, std::chrono::milliseconds delay) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(file) && std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(delay);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

json report(const fs::path& out) {
  return json::parse(slurp(out / "report.json"));
}

// A run's checkpoint directory.
fs::path checkpoint_of(const fs::path& out) {
  return fs::path(fmt::format("{}.curator", out.string())) / "checkpoint";
}

TEST(Resume, TwentyKilledRunsResumeToTheUninterruptedDrawsAndSpend) {
  const fs::path dir = scratch_dir("resume-kill");
  const std::string key = (dir / "key.hex").string();
  std::vector<fs::path> reference;
  for (std::size_t c = 0; c < kConfigs.size(); ++c) {
    reference.push_back(dir / fmt::format("reference-{}", c));
    const auto r = run_cli(fmt::format("sample {} --seed 3 --quiet --noise-key-file {} --out {}",
                                       kConfigs[c], key, reference.back().string()),
                           dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(fmt::format("{}.curator/checkpoint", reference.back().string())))
        << "a completed run keeps no checkpoint";
  }
  std::mt19937 delays(2024);
  int killed = 0;
  for (int k = 0; k < 20; ++k) {
    const std::size_t c = static_cast<std::size_t>(k) % kConfigs.size();
    const fs::path out = dir / fmt::format("run-{}", k);
    const pid_t pid = spawn(fmt::format("sample {} --seed 3 --quiet --noise-key-file {} --out {}",
                                        kConfigs[c], key, out.string()));
    const auto delay =
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 300)(delays));
    const bool was_killed = kill_after(pid, checkpoint_of(out) / "chain-1.json", delay);
    killed += was_killed ? 1 : 0;
    if (was_killed && k % 4 == 0) {
      // Every fourth run: its resumption is killed too, after 0.2 to 0.9 s.
      const pid_t again = spawn(fmt::format("sample --resume {} --quiet", out.string()));
      kill_after(again, checkpoint_of(out) / "run.json",
                 std::chrono::milliseconds(std::uniform_int_distribution<int>(200, 900)(delays)));
    }
    if (was_killed) {
      const auto r = run_cli(fmt::format("sample --resume {} --quiet", out.string()), dir);
      ASSERT_EQ(r.exit_code, 0) << "run " << k << ": " << r.err;
    }
    for (const char* file : {"chain-1.csv", "chain-2.csv"}) {
      EXPECT_EQ(slurp(out / file), slurp(reference[c] / file)) << "run " << k << ", " << file;
    }
    const json got = report(out), want = report(reference[c]);
    EXPECT_EQ(got["privacy"], want["privacy"]) << "run " << k;
    EXPECT_EQ(got["summary"], want["summary"]) << "run " << k;
    EXPECT_FALSE(fs::exists(checkpoint_of(out))) << "run " << k;
  }
  // The kills land while the chains sample (each run samples for ~0.5 s or more after its first
  // checkpoint, the delays are at most 0.3 s); a run that finished first proves nothing.
  EXPECT_GE(killed, 18);
}

// 20000 rows of the tempered banana as a CSV in `dir`; empty when `simulate` failed.
fs::path simulated_data(const fs::path& dir) {
  const fs::path data = dir / "data.csv";
  const auto r = run_cli(
      fmt::format("simulate --model banana-tempered-2d --n 20000 --out {}", data.string()), dir);
  return r.exit_code == 0 ? data : fs::path();
}

// A private run on a CSV, killed once its first chain has checkpointed.
fs::path killed_run(const fs::path& dir, const std::string& key, const fs::path& data) {
  const fs::path out = dir / "run";
  const pid_t pid =
      spawn(fmt::format("sample {} --seed 3 --quiet --noise-key-file {} --data {} --out {}",
                        kConfigs[0], key, data.string(), out.string()));
  kill_after(pid, checkpoint_of(out) / "chain-1.json", std::chrono::milliseconds(0));
  return out;
}

TEST(Resume, RefusesOtherDataAnotherKeyOrChangedOptions) {
  const fs::path dir = scratch_dir("resume-refuse");
  const fs::path data = simulated_data(dir);
  ASSERT_FALSE(data.empty());
  const std::string key = (dir / "key.hex").string();
  const fs::path out = killed_run(dir, key, data);
  ASSERT_TRUE(fs::exists(checkpoint_of(out) / "run.json"));

  // Options that would change the run.
  auto r = run_cli(fmt::format("sample --resume {} --epsilon 2", out.string()), dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--epsilon: not allowed with --resume"), std::string::npos) << r.err;

  // A key file that does not exist is not created: a resumed run needs the run's key.
  r = run_cli(fmt::format("sample --resume {} --noise-key-file {}", out.string(),
                          (dir / "missing.hex").string()),
              dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_FALSE(fs::exists(dir / "missing.hex"));

  // Another key: the noise would not be the run's.
  {
    std::ofstream(dir / "other.hex") << std::string(64, 'a') << "\n";
    fs::permissions(dir / "other.hex", fs::perms::owner_read | fs::perms::owner_write);
  }
  r = run_cli(fmt::format("sample --resume {} --noise-key-file {}", out.string(),
                          (dir / "other.hex").string()),
              dir);
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("noise key is not the run's"), std::string::npos) << r.err;

  // Other rows: replaying the run's noise on them would publish the difference.
  std::string text = slurp(data);
  const auto second_line = text.find('\n') + 1;
  text[second_line] = text[second_line] == '9' ? '8' : '9';
  std::ofstream(data) << text;
  r = run_cli(fmt::format("sample --resume {}", out.string()), dir);
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("the data changed since the checkpoint"), std::string::npos) << r.err;

  // Nothing to resume.
  r = run_cli(fmt::format("sample --resume {}", (dir / "nowhere").string()), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("no checkpoint"), std::string::npos) << r.err;
}

TEST(Resume, ADamagedStateIsRefusedAndChangesNoFile) {
  const fs::path dir = scratch_dir("resume-damaged");
  const fs::path data = simulated_data(dir);
  ASSERT_FALSE(data.empty());
  const fs::path out = killed_run(dir, (dir / "key.hex").string(), data);
  const fs::path state = checkpoint_of(out) / "chain-1.json";
  ASSERT_TRUE(fs::exists(state));
  const json saved = json::parse(slurp(state));
  json j = saved;
  j["rows"] = std::uint64_t{1} << 62;  // more rows than the file holds (and than fit in bytes)
  std::ofstream(state) << j.dump();
  const auto rows_before = fs::file_size(checkpoint_of(out) / "chain-1.rows");
  auto r = run_cli(fmt::format("sample --resume {}", out.string()), dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("chain-1.rows"), std::string::npos) << r.err;
  EXPECT_EQ(fs::file_size(checkpoint_of(out) / "chain-1.rows"), rows_before);
  // More accepts than iterations: refused, not published as an acceptance rate above 1.
  j = saved;
  j["samples_accepted"] = j["samples_done"].get<std::uint64_t>() + 1;
  std::ofstream(state) << j.dump();
  r = run_cli(fmt::format("sample --resume {}", out.string()), dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("counts do not fit"), std::string::npos) << r.err;
}

TEST(Resume, AFreshRunInTheSameDirectoryDropsAnOlderCheckpoint) {
  const fs::path dir = scratch_dir("resume-fresh");
  const fs::path data = simulated_data(dir);
  ASSERT_FALSE(data.empty());
  const fs::path out = killed_run(dir, (dir / "key.hex").string(), data);
  ASSERT_TRUE(fs::exists(checkpoint_of(out) / "run.json"));
  // The same --out, no checkpoints (no key file): the killed run's checkpoint must go.
  auto r = run_cli(fmt::format("sample --model banana-tempered-2d --sampler dp-penalty --epsilon 1 "
                               "--data {} --quiet --out {}",
                               data.string(), out.string()),
                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(checkpoint_of(out)));
  r = run_cli(fmt::format("sample --resume {}", out.string()), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  r = run_cli("sample --resume \"\"", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
}

TEST(Resume, APrivateRunWithoutAKeyFileCannotAskForCheckpoints) {
  const fs::path dir = scratch_dir("resume-no-key");
  const auto r = run_cli(fmt::format("sample --model banana-tempered-2d --sampler dp-penalty "
                                     "--epsilon 1 --checkpoint-every 10 --quiet --out {}",
                                     (dir / "out").string()),
                         dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--noise-key-file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dpmcmc::test
