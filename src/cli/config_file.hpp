// `--config FILE`: options from a JSON or TOML file, the command line overriding them.
// The file's keys are long option names without the dashes (`chains = 4` is `--chains 4`);
// arrays give comma-separated values, `true` turns a flag on. A file whose first non-blank
// character is '{' is read as JSON, any other as TOML (CLI11's reader; sections are ignored).
// The file is expanded into arguments before parsing, placed right after the subcommand's
// name, and an option the command line gives itself is not taken from the file.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dpmcmc::cli {

// The command line after expansion, and which options were taken from which file.
struct ExpandedArgs {
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> from_file;  // (--option, file)
};

// Returns args with every `--config FILE` (or `--config=FILE`) replaced by the file's options.
// Throws NoInputError for a missing file, ConfigError for an unreadable or invalid one.
ExpandedArgs expand_config_files(const std::vector<std::string>& args);

// An error about an option the user did not type would send them looking at the command line:
// for each option from a file that `message` names, a line "OPTION was set by --config FILE".
std::string config_origin_note(const std::string& message, const ExpandedArgs& expanded);

}  // namespace dpmcmc::cli
