// The CLI's `sample` and `account` called in-process, with the same arguments, checks and
// messages as the command line (the Python module, python/src/module.cpp): a library caller gets
// exactly what `dpmcmc sample ARGS` would run, without the printing.
#pragma once

#include <CLI/CLI.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run/sample_job.hpp"

namespace dpmcmc::cli {

// A regression family's schema document and CSV text held in memory, standing in for the files
// --schema and --data name (whose values then name them in messages).
struct InMemoryInputs {
  std::optional<nlohmann::json> schema;
  std::optional<std::string> data_text;
};

// Parses `args`, the words after the command's name, as `dpmcmc COMMAND ARGS` would be (CLI11's
// errors become UsageError with CLI11's message); records them as the run's command line, which
// is process-wide: the returned lock keeps other in-process calls out until the caller has read it.
[[nodiscard]] std::unique_lock<std::mutex> parse_in_process(CLI::App& app,
                                                            const std::string& command,
                                                            const std::vector<std::string>& args);

struct InProcessSample {
  SampleSpec spec;
  SampleOutcome outcome;
};

// `dpmcmc sample ARGS`: the job's spec and outcome (an interrupted run returns, incomplete).
// --resume is refused (resume from the command line). A run with in-memory inputs keeps no
// checkpoints: a resumed run could not read its rows again.
InProcessSample sample_in_process(const std::vector<std::string>& args,
                                  const InMemoryInputs& inputs);

// `dpmcmc account ARGS --json`: the JSON answer (account_command.cpp).
nlohmann::json account_in_process(const std::vector<std::string>& args);

// `dpmcmc advise ARGS --json`: the ranking (advise_command.cpp); `schema`, when given, stands in
// for --schema's file (whose value then only names it).
nlohmann::json advise_in_process(const std::vector<std::string>& args,
                                 const std::optional<nlohmann::json>& schema);

// `dpmcmc ledger ARGS`: the JSON answer of init, show or export (ledger_command.cpp);
// `data_text`, when given, stands in for --data's file (whose value then only names it).
nlohmann::json ledger_in_process(const std::vector<std::string>& args,
                                 const std::optional<std::string>& data_text);

}  // namespace dpmcmc::cli
