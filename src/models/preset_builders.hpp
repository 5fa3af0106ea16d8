// Internal to the preset registry (presets.cpp): presets defined in their own files.
#pragma once

#include <vector>

#include "models/presets.hpp"

namespace dpmcmc {

// Presets on real public data sets (presets_real.cpp).
void add_real_data_presets(std::vector<Preset>& all);

}  // namespace dpmcmc
