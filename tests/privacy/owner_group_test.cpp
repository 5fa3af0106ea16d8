#include "privacy/owner_group.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// An owner whose answer is known exactly: value v, noise sd s, Δ, `rows` rows of which `clipped`
// clipped, and an allowance.
class FixedOwner final : public DataOwner {
 public:
  FixedOwner(double v, double s, double delta, std::size_t rows, std::size_t clipped,
             std::uint64_t allowance)
      : v_(v), s_(s), delta_(delta), rows_(rows), clipped_(clipped), left_(allowance) {}
  std::size_t rows() const override { return rows_; }
  std::uint64_t remaining(ReleaseKind kind) const override {
    return kind == ReleaseKind::llr_sum ? left_ : 0;
  }
  std::uint64_t releases() const override { return made_; }
  ScalarRelease llr_sum(const Vec&, const Vec&, double, double) override {
    --left_;
    ++made_;
    return {v_, s_, delta_, rows_, clipped_};
  }
  nlohmann::json save_state() const override { return {{"left", left_}, {"made", made_}}; }
  void load_state(const nlohmann::json& s) override {
    left_ = s.at("left");
    made_ = s.at("made");
  }

 private:
  double v_, s_, delta_;
  std::size_t rows_, clipped_;
  std::uint64_t left_, made_ = 0;
};

TEST(OwnerGroup, SumsAnswersAndNoiseVariances) {
  std::vector<std::unique_ptr<DataOwner>> owners;
  owners.push_back(std::make_unique<FixedOwner>(1.5, 3.0, 0.2, 100, 4, 10));
  owners.push_back(std::make_unique<FixedOwner>(-0.5, 4.0, 0.3, 50, 1, 7));
  OwnerGroup group(std::move(owners));
  EXPECT_EQ(group.rows(), 150u);
  EXPECT_EQ(group.remaining(ReleaseKind::llr_sum),
            7u);  // the group answers only while every owner can
  const Vec t = Vec::Zero(1);
  const ScalarRelease r = group.llr_sum(t, t, 1.0, 1.0);
  EXPECT_DOUBLE_EQ(r.value, 1.0);
  // Algorithm 2: total variance Σσᵢ² (Nσ² for equal σ): √(9 + 16) = 5.
  EXPECT_DOUBLE_EQ(r.noise_sd, 5.0);
  EXPECT_DOUBLE_EQ(r.sensitivity, 0.3);
  EXPECT_EQ(r.rows, 150u);
  EXPECT_EQ(r.clipped, 5u);
  EXPECT_EQ(group.releases(), 1u);
  EXPECT_EQ(group.owner(0).releases(), 1u);
  EXPECT_EQ(group.owner(1).releases(), 1u);
  EXPECT_EQ(group.remaining(ReleaseKind::llr_sum), 6u);
}

TEST(OwnerGroup, NeedsAnOwner) {
  EXPECT_THROW(OwnerGroup(std::vector<std::unique_ptr<DataOwner>>{}), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
