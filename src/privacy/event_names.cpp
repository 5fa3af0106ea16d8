#include "privacy/event_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

std::string normalise(std::string_view text) {
  std::string s(text);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

template <class Enum, std::size_t N>
Enum parse_enum(std::string_view text, std::string_view what,
                const std::array<std::pair<const char*, Enum>, N>& table) {
  const std::string key = normalise(text);
  for (const auto& [name, value] : table) {
    if (key == name) return value;
  }
  std::string accepted;
  for (const auto& [name, value] : table) {
    if (!accepted.empty()) accepted += ", ";
    accepted += name;
  }
  throw ConfigError(
      fmt::format("{}: unknown value '{}'; expected one of {}", what, text, accepted));
}

constexpr std::array<std::pair<const char*, Mechanism>, 3> kMechanisms{{
    {"gaussian", Mechanism::gaussian},
    {"subsampled_gaussian", Mechanism::subsampled_gaussian},
    {"approximate_dp", Mechanism::approximate_dp},
}};
constexpr std::array<std::pair<const char*, Sampling>, 3> kSamplings{{
    {"none", Sampling::none},
    {"poisson", Sampling::poisson},
    {"without_replacement", Sampling::without_replacement},
}};
constexpr std::array<std::pair<const char*, Neighbouring>, 2> kRelations{{
    {"add_remove", Neighbouring::add_remove},
    {"substitute", Neighbouring::substitute},
}};

}  // namespace

const char* to_string(Mechanism m) {
  for (const auto& [name, value] : kMechanisms)
    if (value == m) return name;
  return "?";
}
const char* to_string(Sampling s) {
  for (const auto& [name, value] : kSamplings)
    if (value == s) return name;
  return "?";
}
const char* to_string(Neighbouring r) {
  for (const auto& [name, value] : kRelations)
    if (value == r) return name;
  return "?";
}

Mechanism parse_mechanism(std::string_view text, std::string_view what) {
  return parse_enum(text, what, kMechanisms);
}
Sampling parse_sampling(std::string_view text, std::string_view what) {
  return parse_enum(text, what, kSamplings);
}
Neighbouring parse_neighbouring(std::string_view text, std::string_view what) {
  return parse_enum(text, what, kRelations);
}

std::string describe(const PrivacyEvent& e) {
  std::string body;
  switch (e.mechanism) {
    case Mechanism::gaussian:
      body = fmt::format("σ/Δ={:.6g}", e.noise_multiplier());
      break;
    case Mechanism::subsampled_gaussian:
      body = fmt::format("σ/Δ={:.6g}, q={:.6g}, {}", e.noise_multiplier(), e.sampling_rate,
                         to_string(e.sampling));
      break;
    case Mechanism::approximate_dp:
      body = fmt::format("ε={:.6g}, δ={:.6g}", e.epsilon, e.delta);
      break;
  }
  std::string text =
      fmt::format("{}({}, {}, ×{}", to_string(e.mechanism), body, to_string(e.relation), e.count);
  if (e.kind != ReleaseKind::other) text += fmt::format(", {}", release_kind_name(e.kind));
  return text + ")";
}

}  // namespace dpmcmc
