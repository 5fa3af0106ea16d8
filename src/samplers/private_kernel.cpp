#include "samplers/private_kernel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

PrivateKernel::PrivateKernel(DataOwner& owner, ReleaseCounts per_iteration)
    : owner_(&owner),
      data_(dynamic_cast<PrivateData*>(&owner)),
      per_iteration_(std::move(per_iteration)) {}

PrivateKernel::PrivateKernel(std::unique_ptr<DataOwner> owner, ReleaseCounts per_iteration)
    : owned_(std::move(owner)), owner_(owned_.get()), per_iteration_(std::move(per_iteration)) {
  if (owner_ == nullptr) throw SoftwareError("private kernel: no data owner given");
  data_ = dynamic_cast<PrivateData*>(owner_);
}

PrivateData& PrivateKernel::data() {
  if (data_ == nullptr) {
    throw SoftwareError(
        "private kernel: this sampler needs a single PrivateData, not an owner group");
  }
  return *data_;
}

const PrivateData& PrivateKernel::private_data() const {
  if (data_ == nullptr) {
    throw SoftwareError(
        "private kernel: this sampler needs a single PrivateData, not an owner group");
  }
  return *data_;
}

bool PrivateKernel::exhausted() const {
  for (const auto& [kind, count] : per_iteration_) {
    if (owner_->remaining(kind) < count) return true;
  }
  return false;
}

double PrivateKernel::spent() const {
  return spend_ ? spend_(owner_->releases()) : std::numeric_limits<double>::quiet_NaN();
}

double PrivateKernel::start_log_prior(const Model& model, const Vec& theta0, int dim,
                                      const std::string& who) {
  check_start(theta0, dim, who);
  const double lp = model.log_prior(theta0);
  if (!std::isfinite(lp)) {
    throw ConfigError(fmt::format(
        "{}: log prior density at the starting point is {}, expected a finite value", who, lp));
  }
  return lp;
}

nlohmann::json PrivateKernel::save_state() const {
  return {{"owner", owner_->save_state()}};
}

void PrivateKernel::load_state(const nlohmann::json& s) {
  owner_->load_state(state::at(s, "owner"));
}

}  // namespace dpmcmc
