#include "privacy/owner_group.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {

OwnerGroup::OwnerGroup(std::vector<std::unique_ptr<DataOwner>> owners)
    : owners_(std::move(owners)) {
  if (owners_.empty()) throw ConfigError("data sharing: expected at least one data owner");
  for (const auto& o : owners_) {
    if (!o) throw SoftwareError("data sharing: a data owner is missing");
  }
}

std::size_t OwnerGroup::rows() const {
  std::size_t n = 0;
  for (const auto& o : owners_) n += o->rows();
  return n;
}

std::uint64_t OwnerGroup::remaining(ReleaseKind kind) const {
  std::uint64_t least = owners_.front()->remaining(kind);
  for (const auto& o : owners_) least = std::min(least, o->remaining(kind));
  return least;
}

ScalarRelease OwnerGroup::llr_sum(const Vec& theta, const Vec& theta_prime, double bound,
                                  double noise_multiplier) {
  // Step 1 of Algorithm 2: every owner answers (in-process, in order; a transport could ask them
  // concurrently — the sum does not depend on the order of arrival beyond rounding).
  ScalarRelease total;
  double variance = 0.0;
  for (const auto& o : owners_) {
    const ScalarRelease r = o->llr_sum(theta, theta_prime, bound, noise_multiplier);
    total.value += r.value;
    variance += r.noise_sd * r.noise_sd;
    total.sensitivity = std::max(total.sensitivity, r.sensitivity);
    total.rows += r.rows;
    total.clipped += r.clipped;
  }
  total.noise_sd = std::sqrt(variance);
  ++answered_;
  return total;
}

nlohmann::json OwnerGroup::save_state() const {
  nlohmann::json owners = nlohmann::json::array();
  for (const auto& o : owners_) owners.push_back(o->save_state());
  return {{"answered", answered_}, {"owners", owners}};
}

void OwnerGroup::load_state(const nlohmann::json& state) {
  const nlohmann::json& owners = state::at(state, "owners");
  if (!owners.is_array() || owners.size() != owners_.size())
    throw DataError(
        fmt::format("checkpoint: expected the state of {} data owners", owners_.size()));
  for (std::size_t i = 0; i < owners_.size(); ++i) owners_[i]->load_state(owners[i]);
  answered_ = state::to_count(state, "answered");
}

}  // namespace dpmcmc
