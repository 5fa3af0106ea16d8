#include "audit/clopper_pearson.hpp"

#include <fmt/format.h>

#include <boost/math/special_functions/beta.hpp>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

void check(std::uint64_t k, std::uint64_t n, double beta) {
  if (n == 0 || k > n || !(beta > 0.0 && beta < 1.0)) {
    throw ConfigError(fmt::format(
        "Clopper-Pearson bound: expected 0 <= k <= n, n >= 1 and 0 < beta < 1, got k = {}, n = {}, "
        "beta = {}",
        k, n, beta));
  }
}

}  // namespace

double clopper_pearson_upper(std::uint64_t k, std::uint64_t n, double beta) {
  check(k, n, beta);
  if (k == n) return 1.0;
  const auto a = static_cast<double>(k) + 1.0;
  const auto b = static_cast<double>(n - k);
  return boost::math::ibeta_inv(a, b, 1.0 - beta);
}

double clopper_pearson_lower(std::uint64_t k, std::uint64_t n, double beta) {
  check(k, n, beta);
  if (k == 0) return 0.0;
  const auto a = static_cast<double>(k);
  const auto b = static_cast<double>(n - k) + 1.0;
  return boost::math::ibeta_inv(a, b, beta);
}

}  // namespace dpmcmc
