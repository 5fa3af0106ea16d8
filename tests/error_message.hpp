// Test helper shared by the bad-input tests: the message of the exception a call throws, which
// must be of type E (anything else, or nothing thrown, is a test failure).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace dpmcmc::test {

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type, message: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception thrown";
  return {};
}

}  // namespace dpmcmc::test
