#include "data/dataset_hash.hpp"

#include <sodium.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {

std::string content_hash(const Dataset& data) {
  if (sodium_init() < 0) throw SoftwareError("libsodium failed to initialise");
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, crypto_generichash_BYTES);
  auto feed_word = [&state](std::uint64_t w) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(w >> (8 * i));
    crypto_generichash_update(&state, bytes, sizeof bytes);
  };
  feed_word(data.rows());
  feed_word(data.cols());
  for (const auto& name : data.columns) {
    feed_word(name.size());
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(name.data()),
                              name.size());
  }
  // The values in chunks (one update per 8-byte word would dominate for large n).
  std::vector<unsigned char> chunk;
  chunk.reserve(1 << 16);
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    for (Eigen::Index j = 0; j < data.x.cols(); ++j) {
      const auto w = std::bit_cast<std::uint64_t>(data.x(i, j));
      for (int b = 0; b < 8; ++b) chunk.push_back(static_cast<unsigned char>(w >> (8 * b)));
    }
    if (chunk.size() >= (1 << 16) - 8 * static_cast<std::size_t>(data.x.cols())) {
      crypto_generichash_update(&state, chunk.data(), chunk.size());
      chunk.clear();
    }
  }
  crypto_generichash_update(&state, chunk.data(), chunk.size());
  unsigned char out[crypto_generichash_BYTES];
  crypto_generichash_final(&state, out, sizeof out);
  char hex[2 * sizeof out + 1];
  sodium_bin2hex(hex, sizeof hex, out, sizeof out);
  return hex;
}

}  // namespace dpmcmc
