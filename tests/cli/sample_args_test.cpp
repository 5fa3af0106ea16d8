// What `sample`'s options become in the job's spec (cli/sample_args.hpp): dp-nss's chains run until
// they agree (SampleSpec::extend_until_converged) unless --iter or --warmup gives their length, a
// length the user asked for.
#include "cli/sample_args.hpp"

#include <gtest/gtest.h>

namespace dpmcmc::test {
namespace {

TEST(SampleArgs, EitherLengthOptionStopsTheChainsFromExtending) {
  cli::SampleArgs a;
  a.model = "banana-flat-2d";
  a.sampler = "nuts";
  a.seed = 1;
  EXPECT_TRUE(cli::to_spec(a).extend_until_converged);
  a.warmup = 200;
  EXPECT_FALSE(cli::to_spec(a).extend_until_converged);
  a.warmup.reset();
  a.iter = 300;
  const SampleSpec spec = cli::to_spec(a);
  EXPECT_FALSE(spec.extend_until_converged);
  EXPECT_EQ(spec.run.samples, 300u);
  EXPECT_EQ(spec.run.warmup, 1000u);
}

}  // namespace
}  // namespace dpmcmc::test
