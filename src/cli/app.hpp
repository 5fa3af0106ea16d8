// The dpmcmc command line: parses arguments, dispatches to a subcommand, and turns every Error
// into its message on stderr and its sysexits code (DESIGN.md §6).
#pragma once

namespace dpmcmc::cli {

int run(int argc, char** argv);

}  // namespace dpmcmc::cli
