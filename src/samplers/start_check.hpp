// Validation shared by the kernels: configuration vectors and starting points. Messages name
// the option and what was expected (docs/architecture.md).
#pragma once

#include <string>

#include "core/types.hpp"

namespace dpmcmc {

// ConfigError "`who`: `what` must be finite and > 0, got `value`" unless value is finite and > 0.
void require_positive(double value, const char* what, const std::string& who);

// A per-component option given with size 1 (broadcast) or dim, every entry finite and > 0.
// Throws ConfigError naming `option` otherwise.
Vec broadcast_positive(const Vec& value, int dim, const std::string& option);

// θ0 of size dim with finite entries, else ConfigError naming `kernel`.
void check_start(const Vec& theta0, int dim, const std::string& kernel);

// A known log density at the start must be finite (−∞ means a start outside the support, NaN a
// broken model). NaN is accepted only when `known` is false (private kernels).
void check_start_density(double log_density, const Vec& theta0, const std::string& kernel,
                         bool known = true);

}  // namespace dpmcmc
