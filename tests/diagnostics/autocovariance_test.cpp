#include "diagnostics/autocovariance.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/rng.hpp"
#include "test_chains.hpp"

namespace dpmcmc {
namespace {

// The definition summed directly, O(N²): the independent second method.
Vec direct_autocovariance(const Vec& x) {
  const Eigen::Index n = x.size();
  const double mean = x.mean();
  Vec out(n);
  for (Eigen::Index t = 0; t < n; ++t) {
    double s = 0.0;
    for (Eigen::Index i = 0; i + t < n; ++i) s += (x(i) - mean) * (x(i + t) - mean);
    out(t) = s / static_cast<double>(n);
  }
  return out;
}

TEST(Autocovariance, MatchesDirectSumForManyLengths) {
  Rng rng = make_rng(11, 0);
  // Good FFT sizes (2^a 3^b 5^c) and awkward ones (primes, 2^k + 1) exercise the padding.
  for (int n : {1, 2, 3, 4, 7, 10, 97, 500, 1000, 1001, 1031, 4097}) {
    const Mat chain = testing::ar1_chains(rng, n, 1, 0.6, 3.0, 2.0);
    const Vec x = chain.col(0);
    const Vec fft = autocovariance(x);
    const Vec direct = direct_autocovariance(x);
    ASSERT_EQ(fft.size(), n);
    // FFT round-off is relative to the lag-0 value (the largest): 1e-12 of it is ~1e4 ulps,
    // far above double round-off for these lengths and far below any real error (a wrong
    // padding gives O(1) relative errors at large lags).
    const double tol = 1e-12 * std::max(1.0, direct(0));
    for (int t = 0; t < n; ++t) EXPECT_NEAR(fft(t), direct(t), tol) << "n=" << n << " t=" << t;
  }
}

TEST(Autocovariance, ConstantChainIsZero) {
  const Vec x = Vec::Constant(50, 2.5);
  EXPECT_TRUE(autocovariance(x).isZero(0.0));
}

TEST(Autocovariance, PaddedLengthIsTwiceNextGoodSize) {
  // posterior's fft_next_good_size: smallest 2^a 3^b 5^c ≥ n (2 for n ≤ 2).
  EXPECT_EQ(autocovariance_fft_length(1), 4);
  EXPECT_EQ(autocovariance_fft_length(7), 16);       // 8
  EXPECT_EQ(autocovariance_fft_length(1000), 2000);  // 2^3 5^3
  EXPECT_EQ(autocovariance_fft_length(1001), 2048);  // 1024
  EXPECT_EQ(autocovariance_fft_length(500), 1000);
}

TEST(Autocovariance, ConcurrentCallsAgreeWithSerial) {
  // Several threads ask for plans of new lengths at the same time; the plan cache must be
  // guarded (FFTW's planner is not thread-safe) and the results identical to a serial run.
  Rng rng = make_rng(12, 0);
  const std::vector<int> lengths = {333, 611, 777, 1201, 1409, 2039, 2311, 3001};
  std::vector<Vec> inputs, serial;
  for (int n : lengths) inputs.push_back(testing::ar1_chains(rng, n, 1, 0.3).col(0));
  std::vector<Vec> parallel(inputs.size());
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 20; ++rep) parallel[k] = autocovariance(inputs[k]);
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    EXPECT_TRUE(parallel[k] == autocovariance(inputs[k])) << "length " << lengths[k];
  }
}

}  // namespace
}  // namespace dpmcmc
