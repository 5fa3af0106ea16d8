// The 14 private samplers, each on a model preset it runs on, with the options and a budget
// that keep a CLI run short (shared by the leak scan and the account-versus-sample test).
#pragma once

#include <string>
#include <vector>

namespace dpmcmc::test {

struct PrivateCase {
  std::string sampler, model, extra;
  double epsilon;
  std::string extreme;  // the replaced row of D′
};

// All 14 private samplers. dp-sgld and dp-sgnht set their noise by the step size, so at the
// preset's step a test-sized budget allows millions of iterations: a batch of 200 (q = 0.1) and
// ε = 0.05 give them 20 and 5 iterations per chain (measured) and still release every batch.
inline const std::vector<PrivateCase> kPrivateCases = {
    {"dp-penalty", "banana-tempered-2d", "", 1.0, "1000000,-1000000"},
    {"dp-penalty-ocu", "banana-tempered-2d", "", 1.0, "1000000,-1000000"},
    {"dp-penalty-gwmh", "banana-tempered-2d", "", 1.0, "1000000,-1000000"},
    {"dp-penalty-minibatch", "banana-tempered-2d", "--batch 200", 1.0, "1000000,-1000000"},
    {"dp-penalty-minibatch-ocu", "banana-tempered-2d", "--batch 200", 1.0, "1000000,-1000000"},
    {"dp-penalty-minibatch-gwmh", "banana-tempered-2d", "--batch 200", 1.0, "1000000,-1000000"},
    {"dp-penalty-shared", "banana-tempered-2d", "--owners 2", 1.0, "1000000,-1000000"},
    {"dp-penalty-expfam", "gauss-box-2d", "", 30.0, "5,-5"},
    {"dp-hmc", "banana-tempered-2d", "", 2.0, "1000000,-1000000"},
    {"dp-barker", "banana-tempered-2d", "--batch 200", 1.0, "1000000,-1000000"},
    {"dp-fast-mh", "mixture-fastmh-2d", "", 10.0, "3"},
    {"dp-fast-mh-full", "mixture-fastmh-2d", "", 10.0, "3"},
    {"dp-sgld", "banana-dphmc-2d", "--batch 200", 0.05, "1000000,-1000000"},
    {"dp-sgnht", "banana-dphmc-2d", "--batch 200", 0.05, "1000000,-1000000"},
};

}  // namespace dpmcmc::test
