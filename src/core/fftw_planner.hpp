// FFTW's planner (plan creation and destruction) is not thread-safe and is shared by the whole
// process; every layer that plans FFTs (diagnostics' autocovariance, the numerical PLD
// accountant) takes this one lock. Executing an existing plan needs no lock.
#pragma once

#include <mutex>

namespace dpmcmc {

std::mutex& fftw_planner_mutex();

}  // namespace dpmcmc
