// Event builders shared by the accountant tests.
#pragma once

#include <cstdint>

#include "privacy/privacy_event.hpp"

namespace dpmcmc::test {

// `count` plain Gaussian releases (add/remove) with noise sd σ and sensitivity Δ.
inline PrivacyEvent gaussian_event(double sigma, std::uint64_t count, double sensitivity = 1.0) {
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.noise_sd = sigma;
  e.sensitivity = sensitivity;
  e.count = count;
  return e;
}

// `count` subsampled Gaussian releases with rate q; Poisson sampling pairs with add/remove,
// sampling without replacement (fixed batch size) with substitution.
inline PrivacyEvent subsampled_event(Sampling s, double q, double sigma, std::uint64_t count) {
  PrivacyEvent e;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sampling = s;
  e.relation = s == Sampling::poisson ? Neighbouring::add_remove : Neighbouring::substitute;
  e.sampling_rate = q;
  e.noise_sd = sigma;
  e.count = count;
  return e;
}

}  // namespace dpmcmc::test
