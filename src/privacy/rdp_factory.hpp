// Construction of the "rdp" accountant from the registry's flat JSON options
// (privacy/accountants.hpp). Keys read (all optional):
//   "rdp_orders":     array of orders > 1 (default: default_rdp_orders())
//   "rdp_conversion": "improved" (Canonne-Kamath-Steinke, default) or "classical"
//   "rdp_refine":     bool, continuous refinement of the order (default true)
//   "rdp_wor_bound":  "minimum" (default), "wbk" (WBK19 Theorem 9) or "tight" (dominating pair)
// Other keys are ignored; a key of the wrong type or value throws ConfigError naming it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "privacy/rdp_accountant.hpp"

namespace dpmcmc {

std::unique_ptr<RdpAccountant> make_rdp_accountant(const nlohmann::json& options);

}  // namespace dpmcmc
