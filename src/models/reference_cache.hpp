// Exact-posterior references that take seconds to compute (GaussianMixtureModel's grid: ≈ 10 s at
// N = 50 000), kept for the model instances that share the cache. Each model instance has its own
// by default (a sampling job asks twice: the starting deviation and the MMD reference); a caller
// that builds several instances on the same data — an experiment's cells, one model per cell —
// hands them one cache (Model::share_reference_cache). No process-wide state.
//
// Keyed on the model's parameters and on the data values themselves; first in, first out beyond
// `capacity` entries; thread-safe: concurrent callers with the same key wait for one computation,
// and a failed computation is not kept (a later call tries again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "core/types.hpp"
#include "models/grid_posterior.hpp"

namespace dpmcmc {

// Data sets whose reference a cache keeps (≈ 0.6 MB each at N = 50 000). An experiment runs its
// cells sampler → ε → repeat, so consecutive cells cycle through one data set per repeat: the
// cache must hold at least the spec's repeats, or a first-in-first-out cache misses on every cell
// (measured: 10 repeats against 8 entries recomputed the ≈ 10 s grid in every cell of
// experiments/fastmh.json).
inline constexpr std::size_t kReferenceCacheEntries = 32;

class ReferenceCache {
 public:
  using Reference = std::shared_ptr<const GridPosterior>;

  explicit ReferenceCache(std::size_t capacity = kReferenceCacheEntries);

  // The reference for (params, data): the kept one, or compute() kept and returned. Exceptions
  // of compute() reach every caller waiting for it.
  Reference get(const std::vector<double>& params, const Mat& data,
                const std::function<Reference()>& compute);
  std::size_t size() const;

 private:
  struct Entry {
    std::uint64_t id;
    std::vector<double> params;
    Mat data;
    std::shared_future<Reference> reference;
  };
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;  // oldest first
  std::uint64_t next_id_ = 0;
};

}  // namespace dpmcmc
