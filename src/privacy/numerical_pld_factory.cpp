#include "privacy/numerical_pld_factory.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {

NumericalPldOptions numerical_pld_options(const nlohmann::json& options) {
  NumericalPldOptions o;
  if (!options.is_object()) return o;
  auto number = [&](const char* key, double& target) {
    if (auto it = options.find(key); it != options.end()) {
      if (!it->is_number())
        throw ConfigError(
            fmt::format("accountant option '{}': expected a number, got {}", key, it->dump()));
      target = it->get<double>();
    }
  };
  number("pld_interval", o.interval);
  number("pld_tail_mass", o.tail_mass);
  number("pld_loss_min", o.loss_min);
  number("pld_loss_max", o.loss_max);
  if (auto it = options.find("pld_max_bins"); it != options.end()) {
    if (!it->is_number_unsigned())
      throw ConfigError(fmt::format(
          "accountant option 'pld_max_bins': expected a positive integer, got {}", it->dump()));
    o.max_bins = it->get<std::size_t>();
  }
  validate(o);
  return o;
}

std::unique_ptr<NumericalPldAccountant> make_numerical_pld_accountant(
    PldRounding rounding, const nlohmann::json& options) {
  return std::make_unique<NumericalPldAccountant>(rounding, numerical_pld_options(options));
}

}  // namespace dpmcmc
