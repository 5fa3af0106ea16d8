// The program's version, written once: CMakeLists.txt's project(VERSION), passed to every target
// as DPMCMC_VERSION.
#pragma once

#ifndef DPMCMC_VERSION
#error "DPMCMC_VERSION: link the dpmcmc CMake targets (they define it), or define it"
#endif

namespace dpmcmc {

inline constexpr const char* kVersion = DPMCMC_VERSION;

}  // namespace dpmcmc
