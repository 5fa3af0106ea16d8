#include "run/job_checkpoint.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/error.hpp"
#include "core/version.hpp"
#include "data/atomic_file.hpp"
#include "data/dataset_hash.hpp"
#include "run/curator_files.hpp"

namespace dpmcmc {

using nlohmann::json;

namespace {

// 2: the warmup adapter saves its window's moves (issue 25); a checkpoint of 1 would resume with
// another adaptation than the one it started with.
constexpr const char* kFormat = "dpmcmc run checkpoint 2";

json read_run_file(const std::filesystem::path& dir) {
  const auto path = dir / "run.json";
  std::ifstream in(path);
  if (!in) {
    throw NoInputError(
        fmt::format("{}: no checkpoint to resume (the run completed, or ran without checkpoints)",
                    path.string()));
  }
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(fmt::format("{}: not a run checkpoint ({})", path.string(), e.what()));
  }
  if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("identity") ||
      !j.contains("resume_info")) {
    throw DataError(fmt::format("{}: not a run checkpoint of this version", path.string()));
  }
  return j;
}

// Why a field differs, in words a curator can act on.
std::string why(const std::string& field) {
  if (field == "data_hash")
    return "the data changed since the checkpoint; resuming would replay the run's noise on other "
           "rows and publish their difference";
  if (field == "key_check")
    return "the noise key is not the run's (give the run's --noise-key-file)";
  if (field == "version" || field == "calibration")
    return "this dpmcmc would calibrate the releases differently; resume with the program that "
           "started the run";
  return "the run's configuration changed";
}

}  // namespace

std::filesystem::path checkpoint_dir(const std::filesystem::path& out_dir) {
  return curator_dir(out_dir) / "checkpoint";
}

json run_identity(const std::string& preset, const std::string& sampler, const json& params,
                  const RunConfig& run, const Dataset& data, const NoiseKey* key,
                  const json& calibration) {
  json plans = json::array();
  for (const auto& p : run.per_chain) plans.push_back({p.warmup, p.samples});
  return {{"version", fmt::format("dpmcmc {}", kVersion)},
          {"calibration", calibration},
          {"model", preset},
          {"sampler", sampler},
          {"params", params},
          {"seed", run.seed},
          {"chains", run.chains},
          {"first_chain", run.first_chain},
          {"warmup", run.warmup},
          {"samples", run.samples},
          {"per_chain", plans},
          {"thin", run.thin},
          {"save_warmup", run.save_warmup},
          {"adapt", run.adapt},
          {"dense_metric", run.dense_metric},
          {"target_accept", run.target_accept ? json(*run.target_accept) : json(nullptr)},
          {"data_hash", content_hash(data)},
          {"key_check", key != nullptr ? json(key->check_value()) : json(nullptr)}};
}

void clear_checkpoint_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // a previous run's chains must not be resumed
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw OutputError(
        fmt::format("{}: cannot create the checkpoint directory: {}", dir.string(), ec.message()));
  }
}

void start_checkpointed_run(const std::filesystem::path& dir, const json& identity,
                            const json& resume_info) {
  write_file_atomic(
      dir / "run.json",
      json{{"format", kFormat}, {"identity", identity}, {"resume_info", resume_info}}.dump(1));
}

void check_resumable_run(const std::filesystem::path& dir, const json& identity) {
  const json saved = read_run_file(dir)["identity"];
  for (const auto& [field, value] : identity.items()) {
    if (!saved.contains(field) || saved[field] != value) {
      throw ConfigError(fmt::format("--resume: {}: \"{}\" differs from the checkpoint: {}",
                                    (dir / "run.json").string(), field, why(field)));
    }
  }
}

json saved_resume_info(const std::filesystem::path& dir) {
  return read_run_file(dir)["resume_info"];
}

}  // namespace dpmcmc
