// A regression family on the user's CSV and public schema, presented to the rest of dpmcmc as a
// Preset (models/presets.hpp) built at run time: `dpmcmc sample --model logistic --schema
// patients.json --data patients.csv` runs through the same job, samplers, accountants and
// reports as the built-in presets.
//
// Sampler defaults come from public quantities only: the schema's bounds, the number of rows n
// (public under the substitute relation; the papers' rule δ = 0.1/n uses it too) and the family.
//   s0 = c/√n, a guess at a coefficient's posterior sd: c = 2 for logistic and probit (each row's
//        Fisher information about a coefficient on [−1, 1] is at most 1/4), 1 for Poisson, the
//        guessed σ for linear and normal. Adaptation (--adapt true) tunes steps from here.
//   rwmh, dp-penalty, dp-penalty-minibatch: proposal sd 2.38 s0/√d; one-component variants 2.38 s0
//   hmc, nuts, dp-hmc: step 0.5 s0
//   clip (every penalty, dp-hmc's clip_l and clip_g): L·R, R the schema's row-norm bound and L the
//        family's Lipschitz constant in the linear predictor (models/glm.hpp): exact for
//        logistic, so its penalty never clips; a public guess for the others
//   dp-sgld, dp-sgnht: batch n/10 capped at 1000, clip L·R, Langevin step h = 0.2 s0²/R² (lower
//        if the release's noise multiplier would be below 2), SGNHT step √(0.2 h) with
//        A = 2√(0.2 h)/h (user_model.cpp says why)
//   noise: tau 0.3 (penalty; minibatch variance multiplier 1, batch n/10 capped at 1000); dp-hmc
//        tau_l 0.3, tau_g 1, 3 steps; dp-fast-mh (logistic) ε 0.01, δ 1e-10 per iteration,
//        λ 10, K 225 (the Fashion-MNIST preset's)
// Starting points: 0 for coefficients (the intercept of linear/normal at the middle of y's
// bounds, log σ at log of a quarter of y's range), spread 0.1 (public).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data/design.hpp"
#include "models/glm.hpp"
#include "models/presets.hpp"

namespace dpmcmc {

struct UserModelSpec {
  std::string family;  // a glm_family_names() entry
  std::filesystem::path schema_file;
  std::filesystem::path data_file;
  std::vector<std::string> priors;  // --prior texts, in order
  std::optional<double> sigma;      // --sigma (linear, normal)
  // In memory instead of the files (the Python module's dicts and arrays): the schema document
  // and the CSV text. The *_file paths then only name them in messages.
  std::optional<nlohmann::json> schema_doc;
  std::optional<std::string> data_text;
};

struct UserModel {
  Preset preset;
  std::shared_ptr<const Design> design;  // the rows and the curator-only preparation counts
  GlmSpec glm;
};

// The sampler defaults above for a family on n rows and dim parameters (Preset::samplers).
// Their proposal scale is c/√n (c: 2 for logistic and probit, 1 for poisson, σ or a quarter of
// y's range for linear and normal) and their clip b = L·R (glm_lipschitz_guess, the rows' norm
// bound).
nlohmann::json user_model_sampler_defaults(const GlmSpec& glm, std::size_t n, int dim);
// The entries of user_model_sampler_defaults and nuts (which reads hmc's): what a family runs
// with defaults (the penalty entries serve their OCU/GWMH and shared variants too).
std::vector<std::string> user_model_samplers(GlmFamily family);

// The per-row clip b of the defaults' private samplers (per unit step of β).
double user_model_clip(const GlmSpec& glm);

// Lower bounds on the coefficients' posterior sds on n rows, from the rows' Fisher information:
// column j lies in [−B_j, B_j] (glm.column_bounds: 1 for a rescaled feature and the intercept,
// the declared bound for a column kept in its units), so coefficient j's information is at most
// n·v_max·B_j² and its marginal sd at least 1/(B_j·√(n·v_max)) (Σⱼⱼ ≥ 1/Λⱼⱼ), with v_max the
// largest per-row information in the linear predictor: ¼ for logistic, 2/π for probit
// (φ(0)²/(Φ(0)(1 − Φ(0)))), 1/σ² for linear and normal (σ given, or as the defaults guess it: a
// quarter of y's range, which is a bound only if the true σ is no smaller). Poisson's is
// unbounded: its 1/(B_j√n) is the defaults' scale, not a bound. The prior is left out (it
// narrows the posterior only a little once n·v_max·B_j² dwarfs its precision).
std::vector<double> user_model_sd_floors(const GlmSpec& glm, std::size_t n);

// Whether the family has a released sufficient statistic, so that `--sampler dp-nss` spends the
// budget on one release (models/noisy_statistics.hpp): linear, normal, logistic, and poisson with
// its intercept (whose column releases the covariates' mean).
bool has_released_statistic(GlmFamily family, bool intercept = true);

// Reads the schema and the data; UsageError / ConfigError / DataError as the parts say, plus a
// target type the family cannot model (logistic and probit: binary; poisson: count; linear and
// normal: real or count), features given to `normal`, and a prior naming no parameter.
UserModel make_user_model(const UserModelSpec& spec);
// The same from a schema and an already built design (tests, the Python module).
UserModel make_user_model(const UserModelSpec& spec, const DataSchema& schema,
                          std::shared_ptr<const Design> design);

}  // namespace dpmcmc
