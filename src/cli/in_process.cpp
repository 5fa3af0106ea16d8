#include "cli/in_process.hpp"

#include "cli/auto_sampler.hpp"
#include "cli/options.hpp"
#include "cli/sample_args.hpp"
#include "core/error.hpp"

namespace dpmcmc::cli {
namespace {

// The recorded command line is process-wide (cli/options.hpp): one parse at a time.
std::mutex& parse_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

std::unique_lock<std::mutex> parse_in_process(CLI::App& app, const std::string& command,
                                              const std::vector<std::string>& args) {
  std::unique_lock lock(parse_mutex());
  std::vector<std::string> words{"dpmcmc", command};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (auto& w : words) pointers.push_back(w.data());
  set_command_line(static_cast<int>(pointers.size()), pointers.data());
  set_parsed_arguments(words);
  check_whole_numbers(app);  // Python's seed=-1 is refused as the CLI's --seed -1 is
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  return lock;
}

InProcessSample sample_in_process(const std::vector<std::string>& args,
                                  const InMemoryInputs& inputs) {
  SampleArgs a;
  CLI::App app;
  auto* cmd = app.add_subcommand("sample");
  add_sample_options(*cmd, a);
  InProcessSample result;
  {
    const auto lock = parse_in_process(app, "sample", args);
    if (cmd->count("--resume") > 0)
      throw UsageError(
          "--resume: resume a stopped run from the command line: dpmcmc sample "
          "--resume DIR");
    const auto choice = resolve_auto_sampler(a, inputs.schema);
    refuse_unused_options(*cmd, a.sampler);
    result.spec = to_spec(a);
    if (choice) result.spec.sampler_choice = *choice;
  }
  SampleSpec& spec = result.spec;
  if (inputs.schema || inputs.data_text) {
    if (!spec.user_model)
      throw UsageError(
          "a schema and rows in memory describe a regression family's data: give the family as "
          "the model");
    spec.user_model->schema_doc = inputs.schema;
    spec.user_model->data_text = inputs.data_text;
    spec.checkpoint.reset();
  }
  result.outcome = run_sample_job(spec);
  return result;
}

}  // namespace dpmcmc::cli
