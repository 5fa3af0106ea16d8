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
  {
    const std::lock_guard lock(mutex_);
    for (const auto& e : entries_) {
      if (e.params == params && e.data.rows() == data.rows() && e.data.cols() == data.cols() &&
          e.data == data) {
        future = e.reference;
      }
    }
    if (future.valid()) return future.get();  // waits if another thread is computing it
    future = promise.get_future().share();
    id = next_id_++;
    entries_.push_back({id, params, data, future});
    if (entries_.size() > capacity_) entries_.pop_front();
  }
  // Computed outside the lock, so that other data sets are not held up.
  try {
    promise.set_value(compute());
  } catch (...) {
    promise.set_exception(std::current_exception());
    const std::lock_guard lock(mutex_);
    std::erase_if(entries_, [&](const Entry& e) { return e.id == id; });
  }
  return future.get();
}

std::size_t ReferenceCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace dpmcmc
