#include "run/private_samplers.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "models/expfam_model.hpp"
#include "run/barker_setup.hpp"
#include "run/dp_hmc_setup.hpp"
#include "run/fastmh_setup.hpp"
#include "run/minibatch_setup.hpp"
#include "run/sgld_setup.hpp"

namespace dpmcmc {

std::vector<Dataset> owner_shards(const Dataset& data, std::size_t owners) {
  const std::size_t n = data.rows();
  if (owners < 1 || owners > n) {
    throw ConfigError(fmt::format(
        "--owners: expected between 1 and the number of rows n = {} (each owner holds at least one "
        "row), got {}",
        n, owners));
  }
  std::vector<Dataset> shards;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < owners; ++i) {
    const std::size_t size = n / owners + (i < n % owners ? 1 : 0);
    Dataset shard{data.block(begin, size), data.columns};
    shard.source = fmt::format("{} (owner {} of {}: rows {}-{})", data.source, i + 1, owners,
                               begin + 1, begin + size);
    shards.push_back(std::move(shard));
    begin += size;
  }
  return shards;
}

ReleaseAllowance allowance_for(const PrivateSamplerSetup& setup, std::uint64_t iterations) {
  return ReleaseAllowance::for_iterations(setup.per_iteration, iterations, setup.sensitivity_caps);
}

std::size_t release_coordinates(const Model& model, const PrivateSamplerSetup& setup) {
  std::size_t coordinates = static_cast<std::size_t>(model.dim());
  for (const Model* m : {&model, setup.model_view.get()}) {
    if (const auto* stat = dynamic_cast<const SufficientStatistic*>(m))
      coordinates = std::max(coordinates, static_cast<std::size_t>(stat->stat_dim()));
  }
  return coordinates;
}

double default_delta(const Preset& preset, std::size_t rows, bool preset_data) {
  return preset_data && rows == preset.n && preset.delta > 0.0 ? preset.delta
                                                               : 0.1 / static_cast<double>(rows);
}

}  // namespace dpmcmc
