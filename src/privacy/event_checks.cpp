#include "privacy/event_checks.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {
namespace {

bool positive_finite(double x) {
  return std::isfinite(x) && x > 0.0;
}

}  // namespace

void validate_event(const PrivacyEvent& e, std::string_view where) {
  auto fail = [&](const std::string& what) {
    throw ConfigError(fmt::format("{} {}: {}", where, describe(e), what));
  };
  if (e.count < 1) fail("count must be at least 1");
  switch (e.mechanism) {
    case Mechanism::gaussian:
    case Mechanism::subsampled_gaussian:
      if (!positive_finite(e.sensitivity))
        fail(fmt::format("sensitivity must be finite and > 0, got {}", e.sensitivity));
      if (!positive_finite(e.noise_sd))
        fail(fmt::format("noise standard deviation must be finite and > 0, got {}", e.noise_sd));
      if (!(e.sampling_rate > 0.0 && e.sampling_rate <= 1.0))
        fail(fmt::format("sampling rate q must be in (0, 1], got {}", e.sampling_rate));
      if (e.mechanism == Mechanism::gaussian &&
          (e.sampling != Sampling::none || e.sampling_rate != 1.0))
        fail("a plain Gaussian event must have sampling 'none' and q = 1");
      if (e.mechanism == Mechanism::subsampled_gaussian && e.sampling == Sampling::none)
        fail("a subsampled Gaussian event needs sampling 'poisson' or 'without_replacement'");
      break;
    case Mechanism::approximate_dp:
      if (!(std::isfinite(e.epsilon) && e.epsilon >= 0.0))
        fail(fmt::format("ε must be finite and ≥ 0, got {}", e.epsilon));
      if (!(e.delta >= 0.0 && e.delta < 1.0))
        fail(fmt::format("δ must be in [0, 1), got {}", e.delta));
      break;
    default:
      fail("unknown mechanism");
  }
}

void check_supported(const Accountant& accountant, std::span<const PrivacyEvent> events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    validate_event(events[i], fmt::format("event #{}", i + 1));
    if (!accountant.supports(events[i]))
      throw ConfigError(fmt::format("accountant '{}' cannot interpret event #{} {}",
                                    accountant.name(), i + 1, describe(events[i])));
  }
}

void check_single_relation(std::span<const PrivacyEvent> events, std::string_view who) {
  for (std::size_t i = 1; i < events.size(); ++i) {
    if (events[i].relation != events[0].relation)
      throw ConfigError(fmt::format(
          "{}: event #{} {} is for {} neighbours but event #1 {} is for {} neighbours; a "
          "composition needs one neighbouring relation",
          who, i + 1, describe(events[i]), to_string(events[i].relation), describe(events[0]),
          to_string(events[0].relation)));
  }
}

bool supports_all(const Accountant& accountant, std::span<const PrivacyEvent> events) {
  try {
    check_supported(accountant, events);
    check_single_relation(events, accountant.name());
  } catch (const ConfigError&) {
    return false;
  }
  return true;
}

double gaussian_half_inverse_square_sum(std::span<const PrivacyEvent> events) {
  double sum = 0.0;
  for (const PrivacyEvent& e : events) {
    const double m = e.noise_multiplier();
    sum += static_cast<double>(e.count) * 0.5 / (m * m);
  }
  return sum;
}

}  // namespace dpmcmc
