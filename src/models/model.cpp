#include "models/model.hpp"

#include "core/error.hpp"

namespace dpmcmc {

std::vector<std::string> Model::param_names() const {
  std::vector<std::string> names;
  for (int i = 1; i <= dim(); ++i) names.push_back("theta." + std::to_string(i));
  return names;
}

void Model::log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                               Eigen::Ref<Vec> out) const {
  Vec base(rows.rows());
  log_lik_rows(theta, rows, base);
  log_lik_rows(theta_prime, rows, out);
  out -= base;
}

Mat Model::sample_posterior(const Dataset&, std::size_t, Rng&) const {
  throw SoftwareError("model '" + name() + "' has no exact posterior sampler");
}

}  // namespace dpmcmc
