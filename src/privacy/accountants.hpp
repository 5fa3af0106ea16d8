// Registry of accountants by name (issue item 6): the `account` command, the run report and the
// planner create accountants from names given by the user, and list which ones can interpret an
// event list. Built-in entries are listed in accountants.cpp, one line each (in order of
// preference when two allow the same number of iterations); more can be added at run time.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "privacy/accountant.hpp"

namespace dpmcmc {

// Options for accountant factories: one flat JSON object shared by all accountants, e.g.
// {"pld_interval": 1e-4}. Each factory reads the keys it knows and ignores the others, so one
// object can configure every accountant of an `account` run.
using AccountantOptions = nlohmann::json;

using AccountantFactory = std::function<std::unique_ptr<Accountant>(const AccountantOptions&)>;

struct AccountantEntry {
  std::string name;         // e.g. "pld-gaussian"; what Accountant::name() returns
  std::string description;  // one line for `--help` and listings
  AccountantFactory make;
};

// All registered entries, built-in first, in registration order.
std::vector<AccountantEntry> accountant_registry();
// Adds an entry; ConfigError if the name is taken. Thread-safe.
void register_accountant(AccountantEntry entry);
std::vector<std::string> accountant_names();
// Creates the named accountant; UsageError listing the known names if there is none.
std::unique_ptr<Accountant> make_accountant(std::string_view name,
                                            const AccountantOptions& options = {});
// Names of the accountants that interpret every event of the list (validated, one relation),
// in registry order.
std::vector<std::string> accountants_supporting(std::span<const PrivacyEvent> events,
                                                const AccountantOptions& options = {});

}  // namespace dpmcmc
