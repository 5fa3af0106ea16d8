// `--config FILE`: options from a JSON or TOML file, the command line overriding them.
// The file's keys are long option names without the dashes (`chains = 4` is `--chains 4`);
// arrays give comma-separated values, `true` turns a flag on. A file whose first non-blank
// character is '{' is read as JSON, any other as TOML (CLI11's reader; sections are ignored).
// The file is expanded into arguments before parsing, placed right after the subcommand's
// name, and an option the command line gives itself is not taken from the file.
#pragma once

#include <string>
#include <vector>

namespace dpmcmc::cli {

// Returns args with every `--config FILE` (or `--config=FILE`) replaced by the file's options.
// Throws NoInputError for a missing file, ConfigError for an unreadable or invalid one.
std::vector<std::string> expand_config_files(const std::vector<std::string>& args);

}  // namespace dpmcmc::cli
