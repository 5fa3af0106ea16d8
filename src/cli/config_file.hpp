// `--config FILE`: options from a JSON or TOML file, the command line overriding them.
// The file's keys are long option names without the dashes (`chains = 4` is `--chains=4`);
// arrays give comma-separated values; `true`/`false` set a flag or a true/false option. A file
// whose first non-blank character is '{' is read as JSON, any other as TOML (CLI11's reader;
// sections are ignored). The file is expanded into arguments before parsing, placed right after
// the subcommand's name; an option the command line gives itself is not taken from the file.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dpmcmc::cli {

// The command line after expansion, and which options were taken from which file.
struct ExpandedArgs {
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> from_file;  // (--option, file), files in order
};

// Returns args with every `--config FILE` (or `--config=FILE`) replaced by the file's options,
// each as `--key=value`, and where each came from. Throws NoInputError for a missing file,
// ConfigError for an unreadable or invalid one or for a key two files set.
ExpandedArgs expand_config_files(const std::vector<std::string>& args);

// An error naming an option the user did not type would send them looking at the command line:
// one line per file, "dpmcmc: note: set by --config FILE: --a, --b", listing the options from
// that file that `message` names (whole names), or "" if it names none.
std::string config_origin_note(const std::string& message, const ExpandedArgs& expanded);

}  // namespace dpmcmc::cli
