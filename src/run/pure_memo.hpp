// A memo for pure computations keyed by the exact text of their inputs. Planning a
// private run and composing its spend are deterministic functions of (budget, events,
// accountants, options), and an experiment repeats them with identical inputs in every repeat
// of a cell; with a numerical PLD accountant they cost seconds (FFT compositions), far more than
// a minibatch cell's sampling (docs/benchmarks.md). The memo returns the value the first call
// computed, so results do not depend on whether it was hit. Thread-safe; failures (exceptions)
// are not stored, so they recur with their message. Owned by whoever repeats the computations
// (run/private_plan.hpp's PlanMemo, held by an experiment run), never global.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace dpmcmc {

template <class Value>
class PureMemo {
 public:
  // The stored value for `key`, or compute() stored and returned. Two threads computing the same
  // new key at once both compute it (no lock is held while computing); the first store wins.
  Value get(const std::string& key, const std::function<Value()>& compute) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = values_.find(key);
      if (it != values_.end()) return it->second;
    }
    Value v = compute();
    const std::lock_guard<std::mutex> lock(mutex_);
    return values_.emplace(key, std::move(v)).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, Value> values_;
};

}  // namespace dpmcmc
