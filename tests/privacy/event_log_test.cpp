// Event log: merging of identical releases, chain merging, JSON round trip and input errors.
#include "privacy/event_log.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "privacy/event_json.hpp"
#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {
namespace {

PrivacyEvent release(double sensitivity, double sigma, ReleaseKind kind, std::uint64_t count = 1) {
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.sensitivity = sensitivity;
  e.noise_sd = sigma;
  e.relation = Neighbouring::substitute;
  e.kind = kind;
  e.count = count;
  return e;
}

TEST(EventLog, DpHmcPatternOfAMillionIterationsStaysTwoEntries) {
  // Per iteration: L + 1 = 4 gradient releases, then one log-likelihood-ratio release, whose
  // raw sensitivity 2b‖θ − θ′‖ changes every iteration while σ/Δ = τ_l√n stays fixed.
  EventLog log;
  const double tau_l_sqrt_n = 0.1 * std::sqrt(1e5), tau_g_sqrt_n = 0.4 * std::sqrt(1e5);
  for (int i = 0; i < 1'000'000; ++i) {
    for (int j = 0; j < 4; ++j) log.append(release(2.0, 2.0 * tau_g_sqrt_n, ReleaseKind::grad_sum));
    const double c = 2.0 * 0.1 * (1e-3 + 1e-9 * (i % 977));  // 2b‖θ − θ′‖
    log.append(release(c, tau_l_sqrt_n * c, ReleaseKind::llr_sum));
  }
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log.releases(), 5'000'000u);
  EXPECT_EQ(log.events()[0].kind, ReleaseKind::grad_sum);
  EXPECT_EQ(log.events()[0].count, 4'000'000u);
  EXPECT_EQ(log.events()[1].count, 1'000'000u);
  // The merged entry never understates a release: its multiplier is the smallest one seen.
  EXPECT_LE(log.events()[1].noise_multiplier(), tau_l_sqrt_n);
  EXPECT_NEAR(log.events()[1].noise_multiplier(), tau_l_sqrt_n, 1e-12 * tau_l_sqrt_n);
}

TEST(EventLog, MergesOnlyIdenticalKinds) {
  EventLog log;
  log.append(release(1.0, 4.0, ReleaseKind::llr_sum));
  log.append(release(2.0, 8.0, ReleaseKind::llr_sum));  // same σ/Δ: merges
  log.append(
      release(1.0, 4.0 * (1 + 1e-13), ReleaseKind::llr_sum));  // within 1e-12: merges, keeps 4.0
  log.append(release(1.0, 4.0 * (1 - 1e-13),
                     ReleaseKind::llr_sum));  // within 1e-12: merges, keeps the smaller
  log.append(release(1.0, 4.0 * (1 + 1e-9), ReleaseKind::llr_sum));  // beyond tolerance: new entry
  log.append(release(1.0, 4.0, ReleaseKind::grad_sum));              // other kind
  PrivacyEvent add_remove = release(1.0, 4.0, ReleaseKind::llr_sum);
  add_remove.relation = Neighbouring::add_remove;
  log.append(add_remove);  // other relation
  PrivacyEvent sub = release(1.0, 4.0, ReleaseKind::llr_sum);
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::poisson;
  sub.sampling_rate = 0.01;
  log.append(sub);  // other mechanism
  sub.sampling_rate = 0.02;
  log.append(sub);  // other rate
  ASSERT_EQ(log.size(), 6u);
  EXPECT_EQ(log.events()[0].count, 4u);
  EXPECT_EQ(log.events()[0].noise_multiplier(), 4.0 * (1 - 1e-13));
  EXPECT_EQ(log.releases(), 9u);
}

TEST(EventLog, ApproximateDpMergesOnEqualEpsilonDelta) {
  EventLog log;
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = 0.05;
  e.delta = 1e-7;
  log.append(e);
  log.append(e);
  e.delta = 2e-7;
  log.append(e);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log.events()[0].count, 2u);
}

TEST(EventLog, ChainLogsComposeIntoOneBudget) {
  std::vector<EventLog> chains(4);
  for (std::size_t c = 0; c < chains.size(); ++c)
    for (std::size_t i = 0; i <= c; ++i) chains[c].append(release(1.0, 10.0, ReleaseKind::llr_sum));
  const EventLog all = merge_chain_logs(chains);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.releases(), 10u);
  // Recorded spend equals that of 10 releases composed: μ = 10 · 1/(2·100).
  EXPECT_DOUBLE_EQ(gaussian_pld_mu(all.events()), 0.05);
  EventLog twice = chains[3];
  twice.merge(twice);
  EXPECT_EQ(twice.releases(), 8u);
}

TEST(EventLog, RejectsInvalidEvents) {
  EventLog log;
  EXPECT_THROW(log.append(release(1.0, 0.0, ReleaseKind::other)), ConfigError);
  EXPECT_THROW(log.append(release(0.0, 1.0, ReleaseKind::other)), ConfigError);
  EXPECT_THROW(log.append(release(1.0, NAN, ReleaseKind::other)), ConfigError);
  EXPECT_THROW(log.append(release(1.0, 1.0, ReleaseKind::other, 0)), ConfigError);
  PrivacyEvent sub = release(1.0, 1.0, ReleaseKind::other);
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::poisson;
  sub.sampling_rate = 1.5;
  EXPECT_THROW(log.append(sub), ConfigError);
  EXPECT_TRUE(log.empty());
}

TEST(EventJson, RoundTripIsExact) {
  EventLog log;
  log.append(release(1.0 / 3.0, 0.1 * std::sqrt(1e5), ReleaseKind::llr_sum, 7));
  PrivacyEvent sub = release(2.0, 0.7, ReleaseKind::grad_sum, 3);
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::without_replacement;
  sub.sampling_rate = 0.01;
  log.append(sub);
  PrivacyEvent adp;
  adp.mechanism = Mechanism::approximate_dp;
  adp.epsilon = 0.05;
  adp.delta = 1e-7;
  adp.count = 20000;
  log.append(adp);
  const std::string text = event_log_to_json(log).dump();
  const EventLog back = event_log_from_json(nlohmann::json::parse(text));
  ASSERT_EQ(back.size(), log.size());
  EXPECT_EQ(back.releases(), log.releases());
  for (std::size_t i = 0; i < log.size(); ++i) {
    const PrivacyEvent &a = log.events()[i], &b = back.events()[i];
    EXPECT_EQ(a.mechanism, b.mechanism);
    EXPECT_EQ(a.sensitivity, b.sensitivity);  // bit-exact doubles
    EXPECT_EQ(a.noise_sd, b.noise_sd);
    EXPECT_EQ(a.sampling_rate, b.sampling_rate);
    EXPECT_EQ(a.sampling, b.sampling);
    EXPECT_EQ(a.relation, b.relation);
    EXPECT_EQ(a.epsilon, b.epsilon);
    EXPECT_EQ(a.delta, b.delta);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.kind, b.kind);
  }
}

TEST(EventJson, ErrorsNameTheLocationAndKey) {
  auto message_of = [](const char* text) {
    try {
      events_from_json(nlohmann::json::parse(text), "in.json");
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of(R"([{"relation": "substitute", "count": 1}])")
                .find("in.json[0]: missing key \"mechanism\""),
            std::string::npos);
  EXPECT_NE(message_of(R"([{"mechanism": "gaussian", "relation": "substitute", "sensitivity": 1,
                           "noise_sd": "big", "count": 1}])")
                .find("in.json[0].noise_sd"),
            std::string::npos);
  EXPECT_NE(message_of(R"([{"mechanism": "laplace", "relation": "substitute", "count": 1}])")
                .find("unknown value 'laplace'"),
            std::string::npos);
  EXPECT_NE(message_of(R"([{"mechanism": "gaussian", "relation": "substitute", "sensitivity": 1,
                           "noise_sd": 1, "count": -2}])")
                .find("in.json[0].count"),
            std::string::npos);
  EXPECT_NE(message_of(R"([{"mechanism": "gaussian", "relation": "substitute", "sensitivity": 1,
                           "noise_sd": -1, "count": 1}])")
                .find("noise standard deviation"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"events": []})").find("expected an array"), std::string::npos);
  // A label names a release kind (typed): an unknown one is an error, not a free-text note.
  EXPECT_NE(message_of(R"([{"mechanism": "gaussian", "relation": "substitute", "sensitivity": 1,
                           "noise_sd": 1, "count": 1, "label": "llr_summ"}])")
                .find("in.json[0].label: unknown release kind 'llr_summ', expected one of llr_sum"),
            std::string::npos);
  // Spellings of the command line are accepted too.
  const auto events = events_from_json(nlohmann::json::parse(
      R"([{"mechanism": "subsampled-gaussian", "sampling": "without-replacement",
           "sampling_rate": 0.5, "relation": "add-remove", "sensitivity": 1, "noise_sd": 2,
           "count": 3}])"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].sampling, Sampling::without_replacement);
  EXPECT_EQ(events[0].relation, Neighbouring::add_remove);
}

TEST(EventJson, ReleasesMustMatchCounts) {
  const auto j = nlohmann::json::parse(
      R"({"releases": 5, "events": [{"mechanism": "gaussian", "relation": "substitute",
          "sensitivity": 1, "noise_sd": 2, "count": 3}]})");
  EXPECT_THROW(event_log_from_json(j), DataError);
}

}  // namespace
}  // namespace dpmcmc
