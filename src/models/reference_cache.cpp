#include "models/reference_cache.hpp"

#include <algorithm>
#include <exception>

namespace dpmcmc {

ReferenceCache::ReferenceCache(std::size_t capacity)
    : capacity_(std::max<std::size_t>(1, capacity)) {}

ReferenceCache::Reference ReferenceCache::get(const std::vector<double>& params, const Mat& data,
                                              const std::function<Reference()>& compute) {
  std::promise<Reference> promise;
  std::shared_future<Reference> future;
  std::uint64_t id = 0;
  bool found = false;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& e : entries_) {
      if (e.params == params && e.data.rows() == data.rows() && e.data.cols() == data.cols() &&
          e.data == data) {
        future = e.reference;
        found = true;
      }
    }
    if (!found) {
      future = promise.get_future().share();
      id = next_id_++;
      entries_.push_back({id, params, data, future});
      if (entries_.size() > capacity_) entries_.pop_front();
    }
  }
  // Waited for and computed outside the lock, so that other keys are not held up.
  if (found) return future.get();
  try {
    promise.set_value(compute());
  } catch (...) {
    {
      // Dropped before the waiters learn of the failure: a later call computes again.
      const std::lock_guard lock(mutex_);
      std::erase_if(entries_, [&](const Entry& e) { return e.id == id; });
    }
    promise.set_exception(std::current_exception());
  }
  return future.get();
}

std::size_t ReferenceCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace dpmcmc
