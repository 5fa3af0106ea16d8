// The cache of exact-posterior references (models/reference_cache.hpp): one computation per key,
// keyed on parameters and data values, first in first out, failures not kept, and concurrent
// callers of one key waiting for a single computation.
#include "models/reference_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "models/gaussian.hpp"

namespace dpmcmc {
namespace {

struct Counting {
  GaussianModel model{Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2), 1.0};
  Dataset data;
  std::atomic<int> calls{0};
  Counting() {
    data.x = Mat::Zero(3, 2);
    data.columns = model.data_columns();
  }
  // A fresh (distinct) reference per call.
  ReferenceCache::Reference compute() {
    ++calls;
    return std::make_shared<const GridPosterior>(model, data, Box2d{-1, 1, -1, 1}, 4);
  }
};

TEST(ReferenceCache, ComputesOncePerParametersAndData) {
  Counting c;
  ReferenceCache cache;
  const auto f = [&] { return c.compute(); };
  const Mat x = Mat::Constant(5, 1, 0.5);
  const auto a = cache.get({1.0, 2.0}, x, f);
  EXPECT_EQ(cache.get({1.0, 2.0}, x, f).get(), a.get());
  EXPECT_EQ(c.calls, 1);
  Mat y = x;
  y(4, 0) = 0.5000000001;  // one value differs
  EXPECT_NE(cache.get({1.0, 2.0}, y, f).get(), a.get());
  EXPECT_NE(cache.get({1.0, 2.5}, x, f).get(), a.get());
  EXPECT_NE(cache.get({1.0, 2.0}, x.topRows(4), f).get(), a.get());
  EXPECT_EQ(c.calls, 4);
  EXPECT_EQ(cache.size(), 4U);
}

TEST(ReferenceCache, DropsTheOldestBeyondItsCapacity) {
  Counting c;
  ReferenceCache cache(2);
  const auto f = [&] { return c.compute(); };
  const Mat x = Mat::Zero(2, 1);
  const auto first = cache.get({1.0}, x, f);
  cache.get({2.0}, x, f);
  cache.get({3.0}, x, f);  // drops {1.0}
  EXPECT_EQ(cache.size(), 2U);
  EXPECT_NE(cache.get({1.0}, x, f).get(), first.get());
  EXPECT_EQ(c.calls, 4);
}

TEST(ReferenceCache, AFailedComputationIsNotKept) {
  Counting c;
  ReferenceCache cache;
  const Mat x = Mat::Zero(2, 1);
  EXPECT_THROW(
      cache.get({1.0}, x,
                []() -> ReferenceCache::Reference { throw std::runtime_error("no grid"); }),
      std::runtime_error);
  EXPECT_EQ(cache.size(), 0U);
  EXPECT_NE(cache.get({1.0}, x, [&] { return c.compute(); }), nullptr);
  EXPECT_EQ(c.calls, 1);
}

TEST(ReferenceCache, ConcurrentCallersWaitForOneComputation) {
  Counting c;
  ReferenceCache cache;
  const Mat x = Mat::Zero(2, 1);
  std::vector<ReferenceCache::Reference> got(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      got[t] = cache.get({1.0}, x, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return c.compute();
      });
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(c.calls, 1);
  for (const auto& g : got) EXPECT_EQ(g.get(), got.front().get());
}

}  // namespace
}  // namespace dpmcmc
