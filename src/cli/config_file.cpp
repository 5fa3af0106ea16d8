#include "cli/config_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"

namespace dpmcmc::cli {
namespace {

struct Item {
  std::string key;
  std::vector<std::string> values;
};

std::string scalar_text(const nlohmann::json& v, const std::string& file, const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number_unsigned()) return std::to_string(v.get<unsigned long long>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  throw ConfigError(
      fmt::format("{}: key '{}' must be a string, number, boolean or an array of them", file, key));
}

std::vector<Item> read_json(const std::string& text, const std::string& file) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("--config {}: invalid JSON: {}", file, e.what()));
  }
  if (!doc.is_object()) throw ConfigError(fmt::format("--config {}: expected a JSON object", file));
  std::vector<Item> items;
  for (const auto& [key, value] : doc.items()) {
    Item item{key, {}};
    if (value.is_array()) {
      for (const auto& v : value) item.values.push_back(scalar_text(v, file, key));
    } else {
      item.values.push_back(scalar_text(value, file, key));
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<Item> read_toml(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::vector<CLI::ConfigItem> parsed;
  try {
    parsed = CLI::ConfigTOML().from_config(in);
  } catch (const CLI::Error& e) {
    throw ConfigError(fmt::format("--config {}: invalid TOML: {}", file, e.what()));
  }
  std::vector<Item> items;
  for (const auto& c : parsed) {
    if (c.name == "++" || c.name == "--") continue;  // CLI11's section markers
    items.push_back({c.name, c.inputs});
  }
  return items;
}

std::vector<Item> read_config(const std::string& file) {
  if (!std::filesystem::exists(file)) {
    throw NoInputError(fmt::format("--config {}: no such file", file));
  }
  std::ifstream in(file);
  if (!in) throw NoInputError(fmt::format("--config {}: cannot read the file", file));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return read_json(text, file);
  return read_toml(text, file);
}

bool given_on_command_line(const std::vector<std::string>& args, const std::string& key) {
  const std::string opt = "--" + key;
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return a == opt || a.rfind(opt + "=", 0) == 0; });
}

}  // namespace

ExpandedArgs expand_config_files(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::vector<std::string> files;
  std::size_t insert_at = 0;  // after the subcommand name (the first non-option argument)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--config") {
      if (i + 1 >= args.size()) throw UsageError("--config: expected a file name");
      files.push_back(args[++i]);
      continue;
    }
    if (a.rfind("--config=", 0) == 0) {
      files.push_back(a.substr(9));
      continue;
    }
    out.push_back(a);
    if (insert_at == 0 && i > 0 && !a.empty() && a[0] != '-') insert_at = out.size();
  }
  if (files.empty()) return {args, {}};
  if (insert_at == 0) insert_at = out.size();
  std::vector<std::string> from_files;
  std::vector<std::pair<std::string, std::string>> origins;
  for (const auto& file : files) {
    for (const auto& item : read_config(file)) {
      if (given_on_command_line(out, item.key)) continue;
      const std::string option = "--" + item.key;
      // Two files giving one option would either fail in CLI11 naming neither file or, for a
      // list option, silently join both lists.
      for (const auto& [seen, seen_file] : origins) {
        if (seen == option) {
          throw ConfigError(fmt::format(
              "--config {}: key '{}' is also set by --config {}; set it in one file (or on the "
              "command line, which wins)",
              file, item.key, seen_file));
        }
      }
      origins.emplace_back(option, file);
      // `--key=value`, not `--key value`: a flag given `=true|false` takes it, and a value-taking
      // option can neither miss its value nor take the next argument as one.
      std::string joined;
      for (const auto& v : item.values) joined += (joined.empty() ? "" : ",") + v;
      from_files.push_back(option + "=" + joined);
    }
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(insert_at), from_files.begin(),
             from_files.end());
  return {out, origins};
}

std::string config_origin_note(const std::string& message, const ExpandedArgs& expanded) {
  // Whole option names only: "--tau" is not in "--tau-l", nor "--thin" in a path "/a--thin/".
  const auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  };
  const auto names = [&](const std::string& option) {
    for (auto at = message.find(option); at != std::string::npos;
         at = message.find(option, at + 1)) {
      const std::size_t end = at + option.size();
      const bool starts = at == 0 || !(is_name(message[at - 1]) || message[at - 1] == '/');
      if (starts && (end == message.size() || !is_name(message[end]))) return true;
    }
    return false;
  };
  // Grouped by file, in the order the files were given.
  std::vector<std::pair<std::string, std::vector<std::string>>> by_file;
  for (const auto& [option, file] : expanded.from_file) {
    if (!names(option)) continue;
    if (by_file.empty() || by_file.back().first != file) by_file.push_back({file, {}});
    by_file.back().second.push_back(option);
  }
  std::string note;
  for (const auto& [file, options] : by_file)
    note += fmt::format("dpmcmc: note: set by --config {}: {}\n", file, fmt::join(options, ", "));
  return note;
}

}  // namespace dpmcmc::cli
