#include "run/fastmh_setup.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {

DpFastMhConfig dp_fast_mh_config(const std::string& sampler, const nlohmann::json& params,
                                 const Model& model, std::size_t n) {
  DpFastMhConfig c;
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.epsilon = number_param(params, sampler, "epsilon");
  c.delta = number_param(params, sampler, "delta");
  // The full-batch variant ([ZhangZhang2023] Section 6.1) never draws a minibatch: it has no λ or K
  // to read, and K = 1 leaves its calibration nothing to search for the minibatch branch.
  c.full_batch = sampler == "dp-fast-mh-full";
  if (c.full_batch) {
    c.max_batch = 1;
  } else {
    c.lambda = number_param(params, sampler, "lambda", 10.0);
    if (params.contains("max_batch")) {
      const auto& k = params.at("max_batch");
      if (k.is_number_integer() && k.get<long long>() < 1) {
        throw ConfigError(
            fmt::format("sampler '{}': max_batch (K, the batch-size cap) must be >= 1, got {}",
                        sampler, k.get<long long>()));
      }
      c.max_batch = count_param(params, sampler, "max_batch");
    }
  }
  c.free_branch = bool_param(params, sampler, "free_branch", false);
  c.row_bound = number_param(params, sampler, "row_bound", 0.0);
  if (params.contains("row_bound") && !(c.row_bound > 0.0 && std::isfinite(c.row_bound))) {
    throw ConfigError(fmt::format("sampler '{}': row_bound (c̄) must be finite and > 0, got {}",
                                  sampler, c.row_bound));
  }
  if (!(c.lambda > 0.0) || !std::isfinite(c.lambda)) {
    throw ConfigError(
        fmt::format("sampler '{}': lambda (λ) must be finite and > 0, got {}", sampler, c.lambda));
  }
  if (dynamic_cast<const RatioBound*>(&model) == nullptr) {
    throw ConfigError(
        fmt::format("sampler '{}': model '{}' has no per-row ratio bound ([ZhangZhang2023] "
                    "Assumption 1)",
                    sampler, model.name()));
  }
  if (c.row_bound == 0.0) declared_row_bound(model);     // ConfigError when the model has none
  calibrate_fastmh(c.epsilon, c.delta, n, c.max_batch);  // ConfigError naming ε, δ or K
  return c;
}

PrivateSamplerSetup setup_dp_fast_mh(const std::string& sampler, const nlohmann::json& params,
                                     const Model& model, std::size_t n) {
  const DpFastMhConfig c = dp_fast_mh_config(sampler, params, model, n);
  PrivateSamplerSetup setup;
  setup.per_iteration = fastmh_template(c.epsilon, c.delta);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpFastMhKernel>(model, std::move(data), c);
  };
  return setup;
}

}  // namespace dpmcmc
