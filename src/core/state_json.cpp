#include "core/state_json.hpp"

#include <fmt/format.h>

#include <bit>

#include "core/error.hpp"

namespace dpmcmc::state {
namespace {

[[noreturn]] void malformed(const char* key, const char* expected) {
  throw DataError(fmt::format("checkpoint: \"{}\" is missing or not {}", key, expected));
}

double from_bits(const Json& v, const char* key) {
  if (!v.is_number_unsigned()) malformed(key, "a double's bit pattern");
  return std::bit_cast<double>(v.get<std::uint64_t>());
}

Json spare_of(std::optional<double> spare) {
  return spare ? of(*spare) : Json(nullptr);
}

std::optional<double> spare_from(const Json& state) {
  const Json& s = at(state, "spare");
  if (s.is_null()) return std::nullopt;
  return from_bits(s, "spare");
}

}  // namespace

Json of(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

Json of(const Vec& values) {
  Json a = Json::array();
  for (const double v : values) a.push_back(of(v));
  return a;
}

Json of(const Rng& rng) {
  return {{"engine", rng.engine().state()}, {"spare", spare_of(rng.spare())}};
}

Json of(const NoiseRng& rng) {
  return {{"words", rng.engine().words_drawn()}, {"spare", spare_of(rng.spare())}};
}

const Json& at(const Json& state, const char* key) {
  if (!state.is_object() || !state.contains(key)) malformed(key, "present");
  return state[key];
}

double to_double(const Json& state, const char* key) {
  return from_bits(at(state, key), key);
}

Vec to_vec(const Json& state, const char* key, Eigen::Index size) {
  const Json& a = at(state, key);
  if (!a.is_array() || (size >= 0 && a.size() != static_cast<std::size_t>(size)))
    malformed(key, size >= 0 ? fmt::format("an array of {} doubles", size).c_str()
                             : "an array of doubles");
  Vec v(static_cast<Eigen::Index>(a.size()));
  for (std::size_t i = 0; i < a.size(); ++i) v[static_cast<Eigen::Index>(i)] = from_bits(a[i], key);
  return v;
}

std::uint64_t to_count(const Json& state, const char* key) {
  const Json& v = at(state, key);
  if (!v.is_number_unsigned()) malformed(key, "a non-negative integer");
  return v.get<std::uint64_t>();
}

bool to_flag(const Json& state, const char* key) {
  const Json& v = at(state, key);
  if (!v.is_boolean()) malformed(key, "true or false");
  return v.get<bool>();
}

void restore(Rng& rng, const Json& state) {
  const Json& e = at(state, "engine");
  if (!e.is_string()) malformed("engine", "an engine state");
  try {
    rng.engine().set_state(e.get<std::string>());
  } catch (const SoftwareError&) {
    malformed("engine", "an engine state");
  }
  rng.set_spare(spare_from(state));
}

void restore(NoiseRng& rng, const Json& state) {
  // No run draws 2⁶² words (2⁶⁵ bytes of keystream); a larger count is damage, and near 2⁶⁷ the
  // block counter would wrap to keystream already used.
  const std::uint64_t words = to_count(state, "words");
  if (words > (std::uint64_t{1} << 62)) malformed("words", "a plausible count of noise words");
  rng.engine().seek(words);
  rng.set_spare(spare_from(state));
}

}  // namespace dpmcmc::state
