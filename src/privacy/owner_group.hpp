// Several data owners acting as one ([Yildirim2020] Section 3.2.2, Algorithm 2): each
// owner i answers a penalty-test request with its own contribution d̂⁽ⁱ⁾ = d_{n_i}(y⁽ⁱ⁾; θ, θ′) +
// N(0, σ²) in its own noise, recorded in its own log; the group's answer is the sum, with noise
// variance Nσ² (Algorithm 2's acceptance uses exp(Σ d̂⁽ⁱ⁾ − Nσ²/2)). Every owner uses the same σ
// as a single holder of all n rows would, so each owner's guarantee against all the others is the
// single-owner one (the paper's remark after Algorithm 2); the price is the N-fold noise variance.
#pragma once

#include <memory>
#include <vector>

#include "privacy/data_owner.hpp"

namespace dpmcmc {

class OwnerGroup final : public DataOwner {
 public:
  // ConfigError unless at least one owner is given.
  explicit OwnerGroup(std::vector<std::unique_ptr<DataOwner>> owners);

  std::size_t rows() const override;  // Σ n_i
  // The fewest releases any owner has left: the group can answer only while all can.
  std::uint64_t remaining(ReleaseKind kind) const override;
  // Requests answered by the group (each makes one release per owner).
  std::uint64_t releases() const override { return answered_; }
  // Σ of the owners' answers; noise_sd = √(Σσᵢ²); sensitivity = the largest owner's Δ (what one
  // row can change); rows and clipped summed.
  ScalarRelease llr_sum(const Vec& theta, const Vec& theta_prime, double bound,
                        double noise_multiplier) override;
  // Every owner's state, in order, and the count of answered requests.
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;

  std::size_t size() const { return owners_.size(); }
  const DataOwner& owner(std::size_t i) const { return *owners_.at(i); }

 private:
  std::vector<std::unique_ptr<DataOwner>> owners_;
  std::uint64_t answered_ = 0;
};

}  // namespace dpmcmc
