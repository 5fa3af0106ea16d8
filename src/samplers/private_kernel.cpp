#include "samplers/private_kernel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

PrivateKernel::PrivateKernel(PrivateData& data, ReleaseAllowance per_iteration)
    : data_(&data), per_iteration_(std::move(per_iteration)) {}

PrivateKernel::PrivateKernel(std::unique_ptr<PrivateData> data, ReleaseAllowance per_iteration)
    : owned_(std::move(data)), data_(owned_.get()), per_iteration_(std::move(per_iteration)) {
  if (data_ == nullptr) throw SoftwareError("private kernel: no PrivateData given");
}

bool PrivateKernel::exhausted() const {
  for (const auto& [label, count] : per_iteration_) {
    if (data_->remaining(label) < count) return true;
  }
  return false;
}

double PrivateKernel::spent() const {
  return spend_ ? spend_(data_->releases()) : std::numeric_limits<double>::quiet_NaN();
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

}  // namespace dpmcmc
