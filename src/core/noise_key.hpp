// The secret noise key (docs/architecture.md; threat model: docs/user-guide.md, "Who sees what").
//
// Two kinds of randomness are kept apart. The public run seed (--seed, written in every output)
// drives what the privacy proofs treat as public: proposals, momenta, accept-test uniforms,
// starting points. This 256-bit key drives what a proof needs hidden: the noise of every release
// and subsample membership (Poisson and without-replacement batches, DP-Fast MH's draws). Whoever
// held the seed could otherwise regenerate the noise from the published files and subtract it.
//
// The key is fresh from the operating system's entropy by default and then exists only in this
// process's memory; a curator who needs bit-for-bit reruns keeps it in a key file
// (--noise-key-file), created with mode 0600 on first use. The key is never written to an output,
// a log or stdout: this class has no way to print it, and its bytes are wiped on destruction.
//
// Streams: the ChaCha20 key of the noise stream of (seed, chain, owner) is
//   BLAKE2b-256(key = noise key, message = "dpmcmc noise v2" ‖ seed ‖ chain ‖ owner),
// little-endian 64-bit integers. The keyed hash is a PRF, so streams of different (seed, chain,
// owner) are independent and none reveals the key or another stream; the same key file with
// another seed gives other noise (repeats of an experiment are independent), and the same seed
// with a fresh key gives other noise (the seed alone determines nothing secret).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

namespace dpmcmc {

class NoiseKey {
 public:
  static constexpr std::size_t kBytes = 32;
  using Bytes = std::array<unsigned char, kBytes>;

  enum class Source {
    fresh,         // OS entropy, held in memory only
    file_read,     // read from an existing key file
    file_created,  // a new key written to a new key file (mode 0600)
    given,         // handed over by the embedding program (e.g. from its key store)
  };

  // Whether a key file may be readable by others. Curators' keys must not be (private_only);
  // experiments on public synthetic data may use a committed key file (public_allowed), whose
  // outputs then claim no privacy against whoever holds the file.
  enum class FilePolicy { private_only, public_allowed };

  // 256 bits of operating-system entropy (libsodium randombytes).
  static NoiseKey fresh();
  // Reads the key file at `path`, or creates it with a fresh key (mode 0600, never replacing an
  // existing file) when it does not exist. The file holds 64 hexadecimal characters and an
  // optional final newline. Errors name the file and what was expected, never its content:
  //   ConfigError (78) when the file is readable or writable by group or others under
  //     FilePolicy::private_only, or does not hold exactly 64 hex characters;
  //   NoInputError (66) when it exists but cannot be read; OutputError (73) when it cannot be
  //     created (e.g. its directory is missing).
  static NoiseKey from_file(const std::filesystem::path& path,
                            FilePolicy policy = FilePolicy::private_only);
  static NoiseKey from_bytes(const Bytes& bytes);

  NoiseKey(const NoiseKey& other);
  NoiseKey& operator=(const NoiseKey& other);
  ~NoiseKey();

  Source source() const { return source_; }
  // What the reports say about the key (never the key): e.g. "fresh from OS entropy, not stored".
  std::string describe() const;

  // A check value of the key, BLAKE2b-128(key = noise key, message = "dpmcmc key check v1") in
  // hex: lets a resumed run refuse another key (run/checkpoint.hpp) without storing the key. A PRF
  // output under a domain no stream uses, so it reveals nothing about the key or the noise; it is
  // still written only to the curator's files.
  std::string check_value() const;

  // Whose streams: a run's ("dpmcmc noise v2", above), or the privacy auditor's ("dpmcmc audit
  // v1", src/audit/): an audit with a curator's key file never draws a run's noise, whatever its
  // trial numbers, so its published thresholds cannot help subtract a run's noise.
  enum class Domain { run, audit };

  // The ChaCha20 key of the noise stream of (seed, chain, owner), as above.
  Bytes stream_key(std::uint64_t seed, std::uint64_t chain, std::uint64_t owner,
                   Domain domain = Domain::run) const;

 private:
  NoiseKey() = default;
  Bytes bytes_{};
  Source source_ = Source::fresh;
};

}  // namespace dpmcmc
