#include "privacy/rdp_factory.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {

std::unique_ptr<RdpAccountant> make_rdp_accountant(const nlohmann::json& options) {
  RdpOptions o;
  if (!options.is_object()) return std::make_unique<RdpAccountant>(o);
  auto bad = [](const char* key, const nlohmann::json& v, const char* expected) {
    return ConfigError(
        fmt::format("accountant option '{}': expected {}, got {}", key, expected, v.dump()));
  };
  if (auto it = options.find("rdp_orders"); it != options.end()) {
    if (!it->is_array() || it->empty())
      throw bad("rdp_orders", *it, "a non-empty array of orders > 1");
    o.orders.clear();
    for (const auto& v : *it) {
      if (!v.is_number()) throw bad("rdp_orders", *it, "an array of numbers > 1");
      o.orders.push_back(v.get<double>());
    }
  }
  if (auto it = options.find("rdp_conversion"); it != options.end()) {
    if (*it == "improved") {
      o.conversion = RdpConversion::improved;
    } else if (*it == "classical") {
      o.conversion = RdpConversion::classical;
    } else {
      throw bad("rdp_conversion", *it, "\"improved\" or \"classical\"");
    }
  }
  if (auto it = options.find("rdp_refine"); it != options.end()) {
    if (!it->is_boolean()) throw bad("rdp_refine", *it, "true or false");
    o.refine = it->get<bool>();
  }
  if (auto it = options.find("rdp_wor_bound"); it != options.end()) {
    if (*it == "minimum") {
      o.wor_bound = WorRdpBound::minimum;
    } else if (*it == "wbk") {
      o.wor_bound = WorRdpBound::wbk_theorem9;
    } else if (*it == "tight") {
      o.wor_bound = WorRdpBound::tight_pair;
    } else {
      throw bad("rdp_wor_bound", *it, "\"minimum\", \"wbk\" or \"tight\"");
    }
  }
  return std::make_unique<RdpAccountant>(std::move(o));  // validates the orders
}

}  // namespace dpmcmc
