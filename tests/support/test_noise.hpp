// A fixed noise key for tests and benchmarks, which need reproducible noise streams. Real runs
// key their noise from OS entropy or a curator's key file (core/noise_key.hpp); this key is
// public, so nothing keyed by it is private.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/noise_key.hpp"
#include "core/rng.hpp"

namespace dpmcmc {

inline const NoiseKey& test_noise_key() {
  static const NoiseKey key = [] {
    NoiseKey::Bytes bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    return NoiseKey::from_bytes(bytes);
  }();
  return key;
}

// The noise stream of (seed, chain, owner) under the public test key.
inline NoiseRng test_noise_rng(std::uint64_t seed, std::uint64_t chain, std::uint64_t owner = 0) {
  return make_noise_rng(test_noise_key(), seed, chain, owner);
}

// The test key as a key file (mode 0600) in the tests' temporary directory, for tests of runs
// that read --noise-key-file or an experiment's noise_key_file. Written under a temporary name
// and renamed, so that test processes running at once never see a partial file.
inline std::filesystem::path test_noise_key_file() {
  namespace fs = std::filesystem;
  const fs::path path = fs::temp_directory_path() / "dpmcmc-test-noise.key";
  if (fs::exists(path)) return path;
  std::string hex;
  for (std::size_t i = 0; i < NoiseKey::kBytes; ++i) {
    static const char* digits = "0123456789abcdef";
    const auto byte = static_cast<unsigned>(i * 7 + 1) & 0xffu;
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  const fs::path tmp = path.string() + "." + std::to_string(::getpid());
  std::ofstream(tmp) << hex << "\n";
  fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write);
  fs::rename(tmp, path);
  return path;
}

}  // namespace dpmcmc
