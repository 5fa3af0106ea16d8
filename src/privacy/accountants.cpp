#include "privacy/accountants.hpp"

#include "privacy/numerical_pld_factory.hpp"
#include "privacy/rdp_factory.hpp"

#include <fmt/format.h>

#include <mutex>

#include "core/error.hpp"
#include "privacy/advanced_gaussian_accountant.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/event_checks.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/zcdp.hpp"

namespace dpmcmc {
namespace {

template <class A>
AccountantFactory plain() {
  return
      [](const AccountantOptions&) -> std::unique_ptr<Accountant> { return std::make_unique<A>(); };
}

// The built-in accountants, one line each. Order = preference on ties in the planner.
std::vector<AccountantEntry> builtin_accountants() {
  return {
      {"pld-gaussian", "closed-form Gaussian PLD, exact for Gaussian compositions (upper bound)",
       plain<GaussianPldAccountant>()},
      {"zcdp", "zero-concentrated DP of Gaussian compositions (upper bound, loose)",
       plain<ZcdpAccountant>()},
      {"classical",
       "advanced and optimal (ε, δ) composition of approximate-DP events (upper bound)",
       plain<ClassicalAccountant>()},
      {"advanced-gaussian",
       "analytic Gaussian per release + advanced composition, [Yildirim2020] Theorem 1 (upper "
       "bound, loose)",
       plain<AdvancedGaussianAccountant>()},
      {"pld-numerical-upper",
       "numerical PLD by FFT, pessimistic discretisation (certified upper bound)",
       [](const AccountantOptions& o) {
         return make_numerical_pld_accountant(PldRounding::pessimistic, o);
       }},
      {"pld-numerical-lower",
       "numerical PLD by FFT, optimistic discretisation (lower bound: no valid bound is below it)",
       [](const AccountantOptions& o) {
         return make_numerical_pld_accountant(PldRounding::optimistic, o);
       }},
      {"rdp", "Rényi DP over an order grid with continuous refinement (upper bound)",
       [](const AccountantOptions& o) { return make_rdp_accountant(o); }},
      {"barker-rdp",
       "DP Barker's test, [Raisa2021] Theorem 3.3 (RDP at integer orders, Theorem 2.5 conversion; "
       "upper bound)",
       plain<BarkerRdpAccountant>()},
  };
}

struct Registry {
  std::mutex mutex;
  std::vector<AccountantEntry> entries = builtin_accountants();
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::vector<AccountantEntry> accountant_registry() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.entries;
}

void register_accountant(AccountantEntry entry) {
  if (entry.name.empty() || !entry.make)
    throw ConfigError("register_accountant: an entry needs a name and a factory");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (const AccountantEntry& e : r.entries)
    if (e.name == entry.name)
      throw ConfigError(fmt::format("accountant '{}' is already registered", entry.name));
  r.entries.push_back(std::move(entry));
}

std::vector<std::string> accountant_names() {
  std::vector<std::string> names;
  for (const AccountantEntry& e : accountant_registry()) names.push_back(e.name);
  return names;
}

std::unique_ptr<Accountant> make_accountant(std::string_view name,
                                            const AccountantOptions& options) {
  const AccountantOptions& opts = options.is_null() ? AccountantOptions::object() : options;
  if (!opts.is_object())
    throw ConfigError(fmt::format("accountant options must be a JSON object, got {}", opts.dump()));
  std::string known;
  for (const AccountantEntry& e : accountant_registry()) {
    if (e.name == name) return e.make(opts);
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw UsageError(fmt::format("unknown accountant '{}'; known accountants: {}", name, known));
}

std::vector<std::string> accountants_supporting(std::span<const PrivacyEvent> events,
                                                const AccountantOptions& options) {
  std::vector<std::string> names;
  for (const AccountantEntry& e : accountant_registry()) {
    const auto accountant = e.make(options.is_null() ? AccountantOptions::object() : options);
    if (supports_all(*accountant, events)) names.push_back(e.name);
  }
  return names;
}

}  // namespace dpmcmc
