#include "cli/preset_rows.hpp"

#include <optional>

#include "data/csv_loader.hpp"

namespace dpmcmc::cli {

Dataset preset_rows(const Preset& preset, const Model& model, const std::string& data_file,
                    std::uint64_t data_seed, std::size_t n) {
  if (!data_file.empty()) return load_csv(data_file, {preset.data_columns(), preset.name});
  return simulate_preset(preset, model, data_seed, n ? std::optional(n) : std::nullopt);
}

}  // namespace dpmcmc::cli
