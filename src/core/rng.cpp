#include "core/rng.hpp"

#include <sodium.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

void ensure_sodium() {
  // sodium_init is idempotent and thread-safe; it returns -1 only if the library is unusable.
  if (sodium_init() < 0) throw SoftwareError("libsodium failed to initialise");
}

}  // namespace

AlgorithmEngine::AlgorithmEngine(std::uint64_t seed, std::uint64_t chain, Stream stream) {
  // seed_seq takes 32-bit words; its mixing is specified by the standard.
  std::seed_seq seq{static_cast<std::uint32_t>(seed),   static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(chain),  static_cast<std::uint32_t>(chain >> 32),
                    static_cast<std::uint32_t>(stream), 0x64706d63u /* "dpmc" */};
  engine_.seed(seq);
}

std::string AlgorithmEngine::state() const {
  std::ostringstream out;
  out << engine_;
  return out.str();
}

void AlgorithmEngine::set_state(const std::string& text) {
  std::istringstream in(text);
  std::mt19937_64 engine;
  in >> engine;
  if (in.fail()) throw SoftwareError("algorithm stream: malformed saved state");
  engine_ = engine;
}

ChaChaEngine::ChaChaEngine(const std::array<unsigned char, 32>& key) : key_(key) {
  ensure_sodium();
}

ChaChaEngine::~ChaChaEngine() {
  sodium_memzero(key_.data(), key_.size());
  sodium_memzero(buffer_.data(), sizeof buffer_);
}

void ChaChaEngine::refill() {
  static_assert(crypto_stream_chacha20_KEYBYTES == 32);
  unsigned char nonce[crypto_stream_chacha20_NONCEBYTES] = {};
  unsigned char zeros[kBlockBytes * kBufferBlocks] = {};
  unsigned char out[kBlockBytes * kBufferBlocks];
  // Keystream = ChaCha20(key, nonce 0, block counter next_block_…) XOR zeros.
  crypto_stream_chacha20_xor_ic(out, zeros, sizeof out, nonce, next_block_, key_.data());
  next_block_ += kBufferBlocks;
  std::memcpy(buffer_.data(), out, sizeof out);
  pos_ = 0;
}

ChaChaEngine::result_type ChaChaEngine::operator()() {
  if (pos_ == buffer_.size()) refill();
  return buffer_[pos_++];
}

std::uint64_t ChaChaEngine::words_drawn() const {
  // next_block_ counts 64-byte blocks generated (8 words each); the buffer's unread words are
  // not drawn yet.
  return next_block_ * (kBlockBytes / 8) - (buffer_.size() - pos_);
}

void ChaChaEngine::seek(std::uint64_t words) {
  const std::uint64_t per_buffer = buffer_.size();
  next_block_ = words / per_buffer * kBufferBlocks;
  refill();
  pos_ = static_cast<std::size_t>(words % per_buffer);
}

std::uint64_t os_entropy_seed() {
  ensure_sodium();
  std::uint64_t s;
  randombytes_buf(&s, sizeof s);
  return s;
}

}  // namespace dpmcmc
