// The dpmcmc command line: parses arguments, dispatches to a subcommand, and turns every Error
// into its message on stderr and its sysexits code (docs/architecture.md).
#pragma once

namespace dpmcmc::cli {

int run(int argc, char** argv);

}  // namespace dpmcmc::cli
