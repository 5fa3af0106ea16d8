// The DP Barker setup owns its V_corr fit (issue #24: no process-wide cache): the chains of one
// run share one fit, made when the first kernel is built (not when the setup only plans, as
// `account` does), and another run makes its own.
#include "run/barker_setup.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "samplers/dp_barker.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

TEST(BarkerSetup, ChainsOfARunShareOneCorrectionFit) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 5, 2000);
  const nlohmann::json params = {{"proposal_sd", 0.1}, {"batch_size", 200}};
  const auto kernel_of = [&](const PrivateSamplerSetup& setup, EventLog& log, std::uint64_t chain) {
    auto pd = std::make_unique<PrivateData>(*model, data, test_noise_rng(1, chain), log,
                                            allowance_for(setup, 10));
    return setup.make_kernel(std::move(pd));
  };
  const PrivateSamplerSetup run1 = setup_dp_barker("dp-barker", params, *model, data.rows());
  const PrivateSamplerSetup run2 = setup_dp_barker("dp-barker", params, *model, data.rows());
  EventLog l1, l2, l3;
  const auto a = kernel_of(run1, l1, 0), b = kernel_of(run1, l2, 1), c = kernel_of(run2, l3, 0);
  const auto& ka = dynamic_cast<const DpBarkerKernel&>(*a);
  const auto& kb = dynamic_cast<const DpBarkerKernel&>(*b);
  const auto& kc = dynamic_cast<const DpBarkerKernel&>(*c);
  EXPECT_EQ(&ka.correction(), &kb.correction());
  EXPECT_NE(&ka.correction(), &kc.correction());
  EXPECT_EQ(ka.correction().sigma2(), 2.0);
  // Two fits of the same σ² are the same mixture (the fit is deterministic).
  EXPECT_EQ(ka.correction().fit().tvd, kc.correction().fit().tvd);
}

}  // namespace
}  // namespace dpmcmc
