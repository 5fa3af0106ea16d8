// A data owner: a party holding private rows that answers release requests in its own noise and
// records them in its own event log. PrivateData (private_data.hpp) is the in-process owner of a
// whole dataset; OwnerGroup (owner_group.hpp) joins several owners into one, as the data-sharing
// penalty algorithm does ([Yildirim2020] Section 3.2.2, Algorithm 2). A network
// transport would implement this interface by forwarding the request (θ, θ′, bound, noise
// multiplier — all public) and returning the owner's noisy answer; nothing else crosses over.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "core/types.hpp"
#include "privacy/release_kind.hpp"

namespace dpmcmc {

struct ScalarRelease {
  double value = 0.0;        // T·Σ clip(·) + N(0, noise_sd²)
  double noise_sd = 0.0;     // σ of the added noise (already multiplied by T)
  double sensitivity = 0.0;  // L2 sensitivity Δ of the released sum (already multiplied by T)
  std::size_t rows = 0;      // rows summed
  std::size_t clipped = 0;   // rows whose value was clipped
};

class DataOwner {
 public:
  virtual ~DataOwner() = default;
  // Rows held (public).
  virtual std::size_t rows() const = 0;
  // Releases of `kind` left in the owner's allowance.
  virtual std::uint64_t remaining(ReleaseKind kind) const = 0;
  // Releases made so far (all labels).
  virtual std::uint64_t releases() const = 0;
  // The penalty test's release (label "llr_sum"): T·Σ_i clip(log p(x_i|θ′) − log p(x_i|θ),
  // ±bound) over the owner's rows plus N(0, σ²), σ = noise_multiplier·Δ, Δ = 2T·bound.
  virtual ScalarRelease llr_sum(const Vec& theta, const Vec& theta_prime, double bound,
                                double noise_multiplier) = 0;

  // Checkpoints (run/checkpoint.hpp): the owner's state between two transitions — its noise
  // stream's position, releases made, allowance left and event log. Curator-only: how far the
  // noise stream went depends on the private rows (Poisson batches). load_state restores it into
  // an owner built as the original was; DataError for a malformed state.
  virtual nlohmann::json save_state() const = 0;
  virtual void load_state(const nlohmann::json& state) = 0;
};

}  // namespace dpmcmc
