// A chain's state between two transitions as JSON, for checkpoints (run/checkpoint.hpp). A resumed
// chain must continue bit for bit, so a double is stored as its IEEE-754 bit pattern (an unsigned
// integer), never as decimal text, and a random stream as its position: the algorithm stream's
// engine state, the noise stream's count of words drawn (never its key or keystream).
//
// Readers throw DataError naming the key when it is missing or malformed: a checkpoint is a file
// the user may have damaged.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc::state {

using Json = nlohmann::json;

Json of(double value);
Json of(const Vec& values);
Json of(const Rng& rng);
Json of(const NoiseRng& rng);

double to_double(const Json& state, const char* key);
// `size` ≥ 0: the vector must have that many entries.
Vec to_vec(const Json& state, const char* key, Eigen::Index size = -1);
std::uint64_t to_count(const Json& state, const char* key);
bool to_flag(const Json& state, const char* key);
// The object or array under `key`.
const Json& at(const Json& state, const char* key);
void restore(Rng& rng, const Json& state);
void restore(NoiseRng& rng, const Json& state);

}  // namespace dpmcmc::state
