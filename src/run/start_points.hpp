// Starting points of the chains (RunConfig::init).
#pragma once

#include <cstdint>

#include "core/types.hpp"
#include "run/run_config.hpp"

namespace dpmcmc {

// Checks the init options against the dimension and number of chains; throws ConfigError naming
// the option (init points, init centre, init spread) and what was expected.
void validate_init(const InitConfig& init, int dim, int chains);

// The starting point of the chain at position `index` (0-based) of the run, whose id is
// `chain_id`: init.points[index] (or the single shared point), else centre + spread·z with z from
// make_rng(seed, chain_id, Stream::start), drawn coordinate by coordinate.
Vec starting_point(const InitConfig& init, int dim, std::uint64_t seed, int chain_id, int index);

}  // namespace dpmcmc
