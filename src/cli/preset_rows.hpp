// The rows a preset's posterior is conditioned on, for the commands that compare draws with it
// (`summary --model`, `plot`): the CSV given with --data, else the preset's synthetic data from
// --data-seed (and --n rows when given).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/dataset.hpp"
#include "models/presets.hpp"

namespace dpmcmc::cli {

Dataset preset_rows(const Preset& preset, const Model& model, const std::string& data_file,
                    std::uint64_t data_seed, std::size_t n);

}  // namespace dpmcmc::cli
