#include "models/expfam_model.hpp"

#include <fmt/format.h>

namespace dpmcmc {

std::string SufficientStatistic::stat_expectation(int component) const {
  return fmt::format("a value in [{}, {}]", stat_lower()[component], stat_upper()[component]);
}

double SufficientStatistic::stat_sensitivity() const {
  return (stat_upper() - stat_lower()).norm();
}

double ExpFamModel::log_lik_ratio_from_stat(const Vec& theta, const Vec& theta_prime,
                                            const Vec& stat, double n) const {
  const Vec deta = natural_parameter(theta_prime) - natural_parameter(theta);
  return deta.dot(stat) - n * (log_partition(theta_prime) - log_partition(theta));
}

}  // namespace dpmcmc
