// Construction of "pld-numerical-upper" / "pld-numerical-lower" from the registry's flat JSON
// options (privacy/accountants.hpp). Keys read (all optional, defaults of NumericalPldOptions):
//   "pld_interval" (> 0), "pld_tail_mass" (in (0, 1e-3)), "pld_loss_min" (< 0),
//   "pld_loss_max" (> 0), "pld_max_bins" (integer ≥ 16).
// Other keys are ignored; a key of the wrong type or value throws ConfigError naming it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "privacy/numerical_pld.hpp"

namespace dpmcmc {

NumericalPldOptions numerical_pld_options(const nlohmann::json& options);
std::unique_ptr<NumericalPldAccountant> make_numerical_pld_accountant(
    PldRounding rounding, const nlohmann::json& options);

}  // namespace dpmcmc
