#include "cli/auto_sampler.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/schema.hpp"
#include "models/glm.hpp"
#include "run/sampler_advice.hpp"

namespace dpmcmc::cli {

std::optional<nlohmann::json> resolve_auto_sampler(
    SampleArgs& a, const std::optional<nlohmann::json>& schema_doc) {
  if (a.sampler != kAutoSampler) return std::nullopt;
  if (a.schema.empty())
    throw UsageError(
        "--sampler auto: chooses among the private samplers for a regression on your data; give "
        "--model FAMILY --schema FILE --data FILE (a preset names its samplers in `dpmcmc "
        "models PRESET`)");
  if (!a.epsilon)
    throw UsageError("--sampler auto: chooses a private sampler, which needs --epsilon");
  GlmSpec glm;
  glm.family = parse_glm_family(a.model);
  const DataSchema schema =
      schema_doc ? parse_schema(*schema_doc, a.schema) : load_schema(a.schema);
  const auto advice = advise_samplers(glm, schema.intercept, std::nullopt, std::nullopt);
  a.sampler = advice.front().sampler;
  return nlohmann::json{
      {"chosen", a.sampler}, {"reasons", advice.front().reasons}, {"ranking", advice_json(advice)}};
}

}  // namespace dpmcmc::cli
