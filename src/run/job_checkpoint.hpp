// A sampling job's side of checkpoints (run/checkpoint.hpp holds the chains' side): where they
// go, and run.json — what the run was, so that a resumed run is the same run. A fresh checkpointed
// run writes run.json before any chain starts, once nothing can refuse it; a resumed run compares
// its own identity with it and refuses to go on when anything differs. Above all the data and the
// key: the same noise stream replayed on other rows would publish the difference between them.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/noise_key.hpp"
#include "data/dataset.hpp"
#include "run/run_config.hpp"

namespace dpmcmc {

// DIR.curator/checkpoint: not for release (a private run's noise-stream position depends on the
// private rows; run.json holds the data's content hash and the run's arguments).
std::filesystem::path checkpoint_dir(const std::filesystem::path& out_dir);

// What must not change between a run and its resumption: the program's version, the model, the
// sampler and its parameters, seed, chains and their plans, thinning, the data's content hash
// and, for a private run, the key's check value and `calibration` (the release template of one
// iteration: what each release's noise is scaled to).
nlohmann::json run_identity(const std::string& preset, const std::string& sampler,
                            const nlohmann::json& params, const RunConfig& run, const Dataset& data,
                            const NoiseKey* key, const nlohmann::json& calibration);

// A fresh run, once nothing can refuse it any more (a refused run must leave an earlier run's
// checkpoint resumable): clear_checkpoint_dir empties DIR of an earlier run's checkpoint; then
// the caller writes what a resumption needs besides (the ledger reservation's name); last,
// start_checkpointed_run writes DIR/run.json, the identity and `resume_info` (what the caller
// needs to rebuild the job, e.g. the CLI's arguments). run.json is what makes DIR resumable, so
// a run killed before it leaves nothing half-written to resume.
void clear_checkpoint_dir(const std::filesystem::path& dir);
void start_checkpointed_run(const std::filesystem::path& dir, const nlohmann::json& identity,
                            const nlohmann::json& resume_info);

// Resume: ConfigError naming the first field of `identity` that differs from the saved one,
// NoInputError when there is no run.json, DataError when it is malformed.
void check_resumable_run(const std::filesystem::path& dir, const nlohmann::json& identity);

// DIR/run.json's "resume_info". NoInputError naming the file when there is none (the run
// completed, or ran without checkpoints); DataError when it is malformed.
nlohmann::json saved_resume_info(const std::filesystem::path& dir);

}  // namespace dpmcmc
