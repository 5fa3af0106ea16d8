// Leak scan of the publication boundary (issue #23; docs/architecture.md): each private sampler
// runs (with warmup adaptation, the default) on a dataset D and on a neighbour D′ (one row replaced
// by an extreme value inside the model's declared range) with the same public seed and the same
// noise key. Then
//   * nothing under --out differs between the two runs except declared DP outputs: the draws of
//     published columns (θ, accept_stat__, the kernel's publishable columns), their summary, the
//     acceptance rates, the recorded spend, and the data file's name;
//   * no curator-only column (clip counts, batch sizes) and no timing appears under --out;
//   * every curator file is labelled on its first line, and the curator directory is mode 0700;
//   * the noise key (hex or raw bytes) appears in no output, curator file, stdout or stderr.
// A new column or report field computed from private rows without noise, published by mistake,
// differs between D and D′ and fails the first check; a curator column published fails the second.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "private_cases.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;
using test::run_cli;
using test::scratch_dir;
using test::slurp;
namespace fs = std::filesystem;

const std::set<std::string> kCuratorColumns = {"clip_frac__", "llr_clip_frac__", "grad_clip_frac__",
                                               "batch_size__"};

// Report fields that may differ between D and D′: functions of released values (the draws, the
// accept decisions, the recorded events) and the data file's name.
// (Plain string matching: GCC 12's std::regex trips -Wmaybe-uninitialized in the sanitizer build.)
bool may_differ(const std::string& path) {
  const auto starts = [&](const std::string& p) { return path.rfind(p, 0) == 0; };
  // "/<head>/<index>/<leaf>" with a numeric index and one of the leaves.
  const auto indexed = [&](const std::string& head, const std::set<std::string>& leaves) {
    if (!starts(head)) return false;
    const std::string rest = path.substr(head.size());
    const auto slash = rest.find('/');
    if (slash == 0 || slash == std::string::npos) return false;
    if (rest.find_first_not_of("0123456789") != slash) return false;
    return leaves.count(rest.substr(slash + 1)) > 0;
  };
  // "/chains/<index>/adaptation/…": the adapted tuning, replayed from the published warmup
  // columns in tests/run/adaptation_test.cpp.
  if (starts("/chains/")) {
    const std::string rest = path.substr(8);
    const auto slash = rest.find('/');
    if (slash != std::string::npos && slash > 0 && rest.find_first_not_of("0123456789") == slash &&
        rest.compare(slash, 12, "/adaptation/") == 0) {
      return true;
    }
  }
  // How many releases were made: a proposal the public prior rules out (or a zero step) makes
  // none, and proposals are functions of the released chain, the published tuning and the public
  // seed — so the count is post-processing of released values, like the recorded ε.
  // dp-nss: the released sufficient statistics are the run's DP releases; with pilot releases,
  // each pilot's estimate is post-processing of its release, and the next release's ranges (so
  // its noise sd in the statistic's units) follow from that estimate.
  return starts("/summary/") || starts("/command_line/") || path == "/curator/directory" ||
         starts("/privacy/release_once/statistic/") || path == "/data/source" ||
         starts("/privacy/release_once/noise_sd/") || path == "/privacy/release_once/sensitivity" ||
         (starts("/privacy/release_once/pilots/") && path.ends_with("/sensitivity")) ||
         (starts("/privacy/release_once/pilots/") &&
          path.find("/estimate/") != std::string::npos) ||
         path == "/privacy/releases_recorded" ||
         indexed("/chains/", {"acceptance_rate", "warmup_acceptance_rate", "file"}) ||
         indexed("/privacy/accountants/", {"recorded_epsilon"}) ||
         indexed("/privacy/owners/", {"recorded_epsilon"});
}

// A convergence warning's value is one the report publishes anyway.
void expect_restates_published(const json& report, const json& w) {
  const std::string check = w["check"], subject = w["subject"];
  if (check == "acceptance") {
    const int chain = std::stoi(subject.substr(subject.find(' ') + 1));
    EXPECT_EQ(w["value"], report["chains"][static_cast<std::size_t>(chain - 1)]["acceptance_rate"]);
    return;
  }
  if (check == "divergent") {  // NUTS on released statistics (dp-nss): the published column's sum
    const json& summary = report["summary"];
    for (const auto& p : summary["parameters"]) {
      if (p["name"] != "divergent__") continue;
      const double total = p["mean"].get<double>() * summary["chains"].get<double>() *
                           summary["draws_per_chain"].get<double>();
      EXPECT_NEAR(w["value"].get<double>(), total, 1e-6 * total + 1e-9);
      return;
    }
    ADD_FAILURE() << "divergences without a published divergent__ column: " << w.dump();
    return;
  }
  if (check == "reach") {  // of the run's public noise, clip, length and n (run/penalty_reach.hpp)
    const json& params = report["sampler"]["params"];
    const double n = report["data"]["rows"];
    const bool hmc = params.contains("tau_l");
    const double m = hmc ? params["tau_l"].get<double>() * std::sqrt(n)
                         : params["tau"].get<double>() * std::pow(n, params.value("alpha", 0.5));
    const double b = params[hmc ? "clip_l" : "clip"];
    const double k = report["run"]["warmup"].get<double>() + report["run"]["samples"].get<double>();
    EXPECT_NEAR(report["reach"]["travel"].get<double>(), std::sqrt(k * 1.3258) / (2.0 * b * m),
                1e-4 * report["reach"]["travel"].get<double>());
    EXPECT_EQ(w["value"], report["reach"]["draws_per_chain"]) << w.dump();
    return;
  }
  if (check == "draws") {  // the plan's kept draws per chain
    EXPECT_EQ(w["value"].get<double>(), report["run"]["samples"].get<double>()) << w.dump();
    return;
  }
  if (check == "scale_bias") {  // a fact of the sampler and family: no value at all
    EXPECT_TRUE(w["value"].is_null()) << w.dump();
    return;
  }
  if (check == "adaptation") {  // the shortest warmup an adapted, completed chain ran
    double shortest = -1.0;
    for (const auto& ch : report["chains"]) {
      if (!ch.contains("adaptation") || ch["status"] != "completed") continue;
      const double w = ch["warmup_done"].get<double>();
      if (shortest < 0.0 || w < shortest) shortest = w;
    }
    EXPECT_EQ(w["value"].get<double>(), shortest) << w.dump();
    return;
  }
  // dp-nss: a coefficient's posterior sd against its prior's (public: the report's priors), and
  // the expansion's bias, a function of the published means and sds, the published centre (the
  // last pilot's estimate, or 0) and the public bounds (1 for every rescaled design column here).
  if (check == "expansion_range") {  // of the published means and sds, and the public centre
    const json& release = report["privacy"]["release_once"];
    double v90 = 0.0;
    for (const auto& p : report["summary"]["parameters"]) {
      const std::string name = p["name"];
      const auto& names = report["model"]["details"]["parameters"];
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      const double c = release.contains("pilots")
                           ? release["pilots"].back()["estimate"][name].get<double>()
                           : 0.0;
      const double reach = std::abs(p["mean"].get<double>() - c) + 1.645 * p["sd"].get<double>();
      v90 += reach * reach * (name == "intercept" ? 1.0 : 1.0 / 3.0);
    }
    EXPECT_EQ(subject, "model");
    EXPECT_NEAR(w["value"].get<double>(), v90 / 12.0, 1e-9 * v90) << w.dump();
    return;
  }
  if (check == "prior_dominated" || check == "expansion_bias") {
    std::map<std::string, const json*> published;
    for (const auto& p : report["summary"]["parameters"]) published[p["name"]] = &p;
    ASSERT_TRUE(published.count(subject)) << w.dump();
    const json& p = *published[subject];
    if (check == "prior_dominated") {
      const std::string prior = report["model"]["details"]["priors"][subject];
      const double scale = std::stod(prior.substr(prior.rfind(',') + 1));  // normal(m, s)
      EXPECT_NEAR(w["value"].get<double>(), p["sd"].get<double>() / scale, 1e-9) << w.dump();
      return;
    }
    const json& release = report["privacy"]["release_once"];
    const auto centre = [&](const std::string& name) {
      return release.contains("pilots") ? release["pilots"].back()["estimate"][name].get<double>()
                                        : 0.0;
    };
    double v = 0.0;  // E x² = 1/3 for a column on [-1, 1], 1 for the intercept
    for (const auto& name : report["model"]["details"]["parameters"]) {
      const double step = (*published[name])["mean"].get<double>() - centre(name);
      v += step * step * (name == "intercept" ? 1.0 : 1.0 / 3.0);
    }
    const double bias = std::abs(p["mean"].get<double>() - centre(subject)) * v / 12.0;
    EXPECT_NEAR(w["value"].get<double>(), bias / p["sd"].get<double>(), 1e-9) << w.dump();
    return;
  }
  ASSERT_TRUE(check == "rhat" || check == "ess_bulk" || check == "ess_tail") << check;
  for (const auto& p : report["summary"]["parameters"]) {
    if (p["name"] == subject) {
      EXPECT_EQ(w["value"], p[check]) << subject << " " << check;
      return;
    }
  }
  ADD_FAILURE() << "warning about an unpublished quantity: " << w.dump();
}

std::string key_hex() {
  return slurp(test_noise_key_file()).substr(0, 64);
}

// Replaces the first data row of the CSV at `from` by `row`.
void write_neighbour(const fs::path& from, const fs::path& to, const std::string& row) {
  std::istringstream in(slurp(from));
  std::ostringstream out;
  std::string line;
  bool header = false, replaced = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#' && !header) {
      header = true;
    } else if (header && !replaced && !line.empty() && line[0] != '#') {
      line = row;
      replaced = true;
    }
    out << line << "\n";
  }
  std::ofstream(to) << out.str();
}

// The columns of a Stan CSV (header) and its rows of values, config lines apart.
struct Table {
  std::vector<std::string> config, columns, rows;
};
Table read_table(const fs::path& p) {
  Table t;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      if (line.rfind("# data = ", 0) != 0) t.config.push_back(line);
    } else if (t.columns.empty()) {
      std::stringstream s(line);
      std::string c;
      while (std::getline(s, c, ',')) t.columns.push_back(c);
    } else {
      t.rows.push_back(line);
    }
  }
  return t;
}

// Runs `sample MODEL_ARGS --sampler S --data D` and the same on D′ (dir/d/data.csv and
// dir/dprime/data.csv, written by the caller) and checks what differs.
void scan_runs(const fs::path& dir, const std::string& model_args, const std::string& sampler,
               double epsilon, const std::string& extra) {
  const fs::path d = dir / "d" / "data.csv", dprime = dir / "dprime" / "data.csv";
  const auto run = [&](const fs::path& data, const std::string& name) {
    const auto res =
        run_cli("sample " + model_args + " --sampler " + sampler + " --data " + data.string() +
                    " --epsilon " + std::to_string(epsilon) + " --chains 2 --seed 3 " + extra +
                    " --noise-key-file " + test_noise_key_file().string() + " --quiet --out " +
                    (dir / name).string(),
                dir);
    return res;
  };
  const auto a = run(d, "a"), b = run(dprime, "b");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::string hex = key_hex();

  // The key appears nowhere.
  for (const auto* text : {&a.out, &a.err, &b.out, &b.err}) {
    EXPECT_EQ(text->find(hex), std::string::npos);
  }
  for (const auto& name : {"a", "b", "a.curator", "b.curator"}) {
    for (const auto& f : fs::recursive_directory_iterator(dir / name)) {
      const std::string text = slurp(f.path());
      EXPECT_EQ(text.find(hex), std::string::npos) << f.path();
      std::string raw;
      for (std::size_t i = 0; i < 32; ++i) raw += static_cast<char>((i * 7 + 1) & 0xff);
      EXPECT_EQ(text.find(raw), std::string::npos) << f.path();
    }
  }

  // The curator directory: mode 0700, every file labelled.
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a.curator").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (const auto& f : fs::directory_iterator(dir / "a.curator")) {
    const std::string first = slurp(f.path()).substr(0, 120);
    EXPECT_NE(first.substr(0, first.find('\n')).find("not for release"), std::string::npos)
        << f.path();
  }

  // Draws: the same columns and configuration; no curator column, no timing block.
  for (int chain = 1; chain <= 2; ++chain) {
    const std::string file = "chain-" + std::to_string(chain) + ".csv";
    const Table ta = read_table(dir / "a" / file), tb = read_table(dir / "b" / file);
    EXPECT_EQ(ta.config, tb.config);
    EXPECT_EQ(ta.columns, tb.columns);
    for (const auto& col : ta.columns) EXPECT_EQ(kCuratorColumns.count(col), 0u) << col;
    EXPECT_EQ(slurp(dir / "a" / file).find("Elapsed Time"), std::string::npos);
    EXPECT_EQ(ta.rows.size(), tb.rows.size());
  }

  // Report: only declared DP outputs differ; nothing of the curator's is in it. The convergence
  // warnings (how many there are may differ) are checked apart: each must restate a published
  // value: a parameter's summary diagnostic, a chain's acceptance rate or warmup length, or the
  // published divergent__ column's count.
  json full_a = json::parse(slurp(dir / "a" / "report.json"));
  json full_b = json::parse(slurp(dir / "b" / "report.json"));
  for (const json* report : {&full_a, &full_b}) {
    ASSERT_TRUE((*report)["warnings"].is_array());
    for (const auto& w : (*report)["warnings"]) expect_restates_published(*report, w);
  }
  full_a.erase("warnings");
  full_b.erase("warnings");
  const json ra = full_a.flatten();
  const json rb = full_b.flatten();
  for (const auto& [path, value] : ra.items()) {
    EXPECT_TRUE(rb.contains(path)) << path;
    if (rb.contains(path) && rb[path] != value) {
      EXPECT_TRUE(may_differ(path)) << path;
    }
    for (const auto* word : {"accuracy", "timings", "wall_seconds", "mmd", "clip_frac"}) {
      EXPECT_EQ(path.find(word), std::string::npos) << path;
    }
  }
  EXPECT_EQ(ra.size(), rb.size());
}

void scan(const test::PrivateCase& c) {
  SCOPED_TRACE(c.sampler);
  const fs::path dir = scratch_dir("leak-" + c.sampler);
  fs::create_directories(dir / "d");
  fs::create_directories(dir / "dprime");
  const fs::path d = dir / "d" / "data.csv", dprime = dir / "dprime" / "data.csv";
  auto r = run_cli("simulate --model " + c.model + " --n 2000 --seed 4 --out " + d.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  write_neighbour(d, dprime, c.extreme);
  scan_runs(dir, "--model " + c.model, c.sampler, c.epsilon, c.extra);
}

// A user model (--schema) on a patients-like CSV, and its neighbour whose first row is extreme:
// a value outside the bounds (clipped: the count is the curator's), a missing cell (imputed), a
// rare level. The clip and impute counts differ between D and D′ and must stay in the curator's
// report.
void scan_user_model(const std::string& family, const std::string& sampler,
                     const std::string& extra) {
  SCOPED_TRACE(family + " " + sampler);
  const fs::path dir = scratch_dir("leak-user-" + family + "-" + sampler);
  fs::create_directories(dir / "d");
  fs::create_directories(dir / "dprime");
  std::ofstream(dir / "schema.json")
      << R"({"columns": [
    {"name": "age", "role": "feature", "type": "real", "bounds": [18, 100], "outside": "clip"},
    {"name": "group", "role": "feature", "type": "categorical", "levels": ["a", "b", "c"]},
    {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10], "missing": {"impute": 5}},
    {"name": "y", "role": "target", )"
      << (family == "poisson"  ? R"("type": "count", "bounds": [0, 20])"
          : family == "linear" ? R"("type": "real", "bounds": [-10, 10], "outside": "clip")"
                               : R"("type": "binary")")
      << "}]}\n";
  std::ostringstream csv;
  csv << "y,age,group,dose\n";
  std::uint64_t state = 12345;
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  for (int i = 0; i < 1000; ++i) {
    const double age = 18 + 82 * uniform(), dose = 10 * uniform();
    const char group = static_cast<char>('a' + static_cast<int>(3 * uniform()));
    const double z = 0.03 * (age - 59) + 0.2 * (dose - 5);
    double y = uniform() < 1 / (1 + std::exp(-z)) ? 1 : 0;
    if (family == "poisson") y = std::floor(3 * uniform() + (z > 0 ? 2 : 0));
    if (family == "linear") y = std::round(100 * (z + 2 * uniform() - 1)) / 100;
    csv << y << "," << age << "," << group << "," << dose << "\n";
  }
  std::ofstream(dir / "d" / "data.csv") << csv.str();
  write_neighbour(dir / "d" / "data.csv", dir / "dprime" / "data.csv",
                  family == "linear"    ? "25,250,c,NA"
                  : family == "poisson" ? "20,250,c,NA"
                                        : "1,250,c,NA");
  scan_runs(dir, "--model " + family + " --schema " + (dir / "schema.json").string(), sampler, 2.0,
            extra);
  if (::testing::Test::HasFatalFailure()) return;
  // The counts are in the curator's report, and differ there.
  const json ca = json::parse(slurp(dir / "a.curator" / "report.json"));
  const json cb = json::parse(slurp(dir / "b.curator" / "report.json"));
  ASSERT_TRUE(ca.contains("data_preparation"));
  EXPECT_NE(ca["data_preparation"], cb["data_preparation"]);
}

// The whitelist itself: declared DP outputs pass, anything near them does not.
TEST(LeakScan, OnlyDeclaredReportPathsMayDiffer) {
  for (const char* p :
       {"/summary/theta1/mean", "/chains/0/acceptance_rate", "/chains/12/file",
        "/chains/1/warmup_acceptance_rate", "/curator/directory", "/data/source",
        "/privacy/accountants/3/recorded_epsilon", "/privacy/owners/0/recorded_epsilon",
        "/command_line/2", "/chains/3/adaptation/step", "/chains/0/adaptation/metric/1"}) {
    EXPECT_TRUE(may_differ(p)) << p;
  }
  for (const char* p :
       {"/chains/0/wall_seconds", "/chains//file", "/chains/x/file", "/chains/0/file/x",
        "/privacy/accountants/0/planned_epsilon", "/privacy/iterations_allowed", "/data/rows",
        "/summary", "/curator/directory/x", "/chains/0", "/chains/x/adaptation/step",
        "/chains//adaptation/step", "/chains/0/adaptationx", "/run/adapt"}) {
    EXPECT_FALSE(may_differ(p)) << p;
  }
}

TEST(LeakScan, EveryPrivateSamplerPublishesOnlyDeclaredDpOutputs) {
  for (const auto& c : test::kPrivateCases) scan(c);
}

TEST(LeakScan, UserModelsPublishOnlyDeclaredDpOutputs) {
  scan_user_model("logistic", "dp-penalty", "");
  scan_user_model("logistic", "dp-fast-mh", "");
  // n = 1000 is small for these two: more noise than the defaults, so that ε = 2 buys iterations.
  scan_user_model("probit", "dp-hmc", "--tau-l 1 --tau-g 3");
  scan_user_model("poisson", "dp-penalty-minibatch", "--batch 100 --tau 10");
  scan_user_model("linear", "dp-penalty-ocu", "");
  // The stochastic-gradient samplers with the defaults the schema's bounds give them.
  scan_user_model("logistic", "dp-sgld", "");
  scan_user_model("poisson", "dp-sgnht", "");
  scan_user_model("linear", "dp-sgld", "");  // with its scale_bias warning (σ sampled)
  // The penalty for exponential families through the linear family's statistic
  // (models/glm_expfam.hpp), and DP Barker with the options a user must give it (no user-model
  // defaults; untempered, ε = 2 buys 7 of its iterations at n = 1000 with this batch).
  scan_user_model("linear", "dp-penalty-expfam", "");
  scan_user_model("logistic", "dp-barker", "--batch 200 --proposal-sd 0.002");
  // Release once: the statistic, then NUTS on it (no timings published).
  scan_user_model("logistic", "dp-nss", "--iter 200 --warmup 200");
  scan_user_model("linear", "dp-nss", "--iter 200 --warmup 200");
  scan_user_model("poisson", "dp-nss", "--iter 200 --warmup 200");
}

}  // namespace
}  // namespace dpmcmc
