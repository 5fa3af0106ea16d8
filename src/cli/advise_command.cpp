// `dpmcmc advise`: which private sampler fits a regression on your data, from public inputs
// only (run/sampler_advice.hpp). It reads the schema, never the rows: it costs no privacy.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "cli/auto_sampler.hpp"
#include "cli/commands.hpp"
#include "cli/in_process.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "data/design.hpp"
#include "models/user_model.hpp"
#include "privacy/budget.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_advice.hpp"

namespace dpmcmc::cli {
namespace {

struct AdviseArgs {
  std::string model, schema;
  std::size_t n = 0;
  double epsilon = 0.0;
  std::optional<double> delta, sigma;
  std::vector<std::string> priors;
  int chains = 4;
  bool json = false;
  std::optional<nlohmann::json> schema_doc;  // the Python module's dict; then --schema names it
};

struct Advice {
  Budget budget;
  std::vector<SamplerAdvice> ranking;
};

Advice advise(const AdviseArgs& a) {
  if (a.n == 0) throw UsageError("--n: expected the number of rows (public), at least 1");
  if (a.chains < 1)
    throw UsageError(fmt::format("--chains: expected at least 1, got {}", a.chains));
  check_epsilon_option(a.epsilon, "--epsilon");
  const Budget budget{a.epsilon, a.delta.value_or(0.1 / static_cast<double>(a.n))};
  check_delta_option(budget.delta, "--delta");
  const DataSchema schema =
      a.schema_doc ? parse_schema(*a.schema_doc, a.schema) : load_schema(a.schema);
  UserModelSpec spec{a.model, a.schema, "", a.priors, a.sigma, {}, {}};
  const UserModel user =
      make_user_model(spec, schema, std::make_shared<const Design>(empty_design(schema)));
  return {budget, advise_samplers(user.glm, schema.intercept, a.n, budget, a.chains)};
}

nlohmann::json advice_document(const AdviseArgs& a, const Advice& advice) {
  return {{"model", a.model},
          {"schema", a.schema},
          {"n", a.n},
          {"epsilon", advice.budget.epsilon},
          {"delta", advice.budget.delta},
          {"chains", a.chains},
          {"samplers", advice_json(advice.ranking)}};
}

void run_advise(const AdviseArgs& a) {
  const Advice result = advise(a);
  const Budget& budget = result.budget;
  const auto& advice = result.ranking;
  if (a.json) {
    fmt::print("{}\n", advice_document(a, result).dump(2));
    return;
  }
  fmt::print(
      "dpmcmc advise: model {} on {} rows (schema {}), epsilon {:g}, delta {:.3g}; public inputs "
      "only, no rows read. Best first (`sample --sampler auto` runs the first):\n\n",
      a.model, a.n, a.schema, budget.epsilon, budget.delta);
  for (std::size_t i = 0; i < advice.size(); ++i) {
    const auto& s = advice[i];
    fmt::print("{}. {} ({})\n", i + 1, s.sampler, s.verdict);
    for (const auto& r : s.reasons) fmt::print("   - {}\n", r);
    if (!s.expected_sd_ratio.empty()) {
      std::vector<std::string> cells;
      for (const auto& [name, r] : s.expected_sd_ratio)
        cells.push_back(fmt::format("{} {:.2f}", name, r));
      fmt::print("   - expected sd ratio: {}\n", fmt::join(cells, ", "));
    }
  }
}

void add_advise_options(CLI::App* cmd, AdviseArgs* a) {
  cmd->add_option("--model", a->model,
                  "The regression family (logistic, probit, poisson, "
                  "linear, normal)")
      ->required();
  cmd->add_option("--schema", a->schema, "The public schema of the data (JSON)")->required();
  cmd->add_option("--n", a->n, "The number of rows (public under the substitute relation)")
      ->required();
  cmd->add_option("--epsilon", a->epsilon, "The privacy budget epsilon")->required();
  cmd->add_option("--delta", a->delta, "delta (default 0.1/n)");
  cmd->add_option("--sigma", a->sigma, "linear, normal: a known sigma");
  cmd->add_option("--prior", a->priors, "Priors, as for `sample`");
  cmd->add_option("--chains", a->chains, "The chains that will share the budget (default 4)");
}

}  // namespace

void add_advise_command(CLI::App& app) {
  auto a = std::make_shared<AdviseArgs>();
  auto* cmd = app.add_subcommand(
      "advise",
      "Which private sampler fits a regression on your data, and why: from the family, schema, "
      "n and budget alone (no rows read, no privacy spent)");
  add_advise_options(cmd, a.get());
  cmd->add_flag("--json", a->json, "The advice as JSON");
  cmd->footer(
      "The ranking and its reasons come from measurements on simulated and real regressions "
      "(user guide, \"Choosing a private sampler\"); `dpmcmc sample --sampler auto` runs the "
      "first choice and says why.");
  cmd->callback([a] { run_advise(*a); });
}

nlohmann::json advise_in_process(const std::vector<std::string>& args,
                                 const std::optional<nlohmann::json>& schema) {
  AdviseArgs a;
  CLI::App app;
  add_advise_options(app.add_subcommand("advise"), &a);
  a.schema_doc = schema;
  const auto lock = parse_in_process(app, "advise", args);
  return advice_document(a, advise(a));
}

}  // namespace dpmcmc::cli
