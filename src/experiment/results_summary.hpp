// Aggregates an experiment's results (experiment/results_csv.hpp) for the report: per (model,
// sampler, sweep value, ε) the median and interquartile range of the accuracy metric, acceptance
// rate, clip fractions and iterations over the completed repeats; per (model, sampler template, ε,
// accountant) the iterations allowed. Quantiles are type 7 (R's and numpy's default,
// diagnostics/quantile.hpp). The accuracy metric of a model is the MMD when any of its rows has
// one, else the distance of the mean (the circle has no exact posterior sampler, so no MMD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/results_csv.hpp"

namespace dpmcmc {

struct Spread {
  std::size_t count = 0;  // finite values aggregated
  double median = 0.0;    // NaN when count = 0
  double q25 = 0.0;
  double q75 = 0.0;
};

// Median and quartiles (type 7) of the values; count 0 and NaN for an empty list.
Spread spread_of(std::vector<double> values);

struct SampleGroup {
  std::string model;
  std::string sampler;
  std::string sweep_param;            // the swept hyperparameter ("" without a sweep)
  std::optional<double> sweep_value;  // its value (none: the label is not swept)
  std::optional<double> epsilon;      // none: non-private baseline
  std::string metric;                 // "mmd", "test_accuracy" or "mean_error"
  std::size_t completed = 0;
  std::size_t errors = 0;
  std::string first_error;
  Spread accuracy, acceptance, llr_clip, grad_clip, iterations, rhat, certified_epsilon;
  Spread sym_kl;  // the sym_kl column (lower is better, like the MMD)
  // mmd_exact: the MMD of as many exact draws as the cells kept against the same reference, the
  // MMD's noise floor for these cells (the thesis' black lines, [Raisa2021] Figures 6.2–6.4). It
  // depends on the number of draws, which a private sampler's budget sets per ε: a group's, not a
  // model's.
  Spread exact;
};

struct AccountGroup {
  std::string model;
  std::string sampler;
  std::string accountant;
  std::string bound;
  double epsilon = 0.0;
  std::optional<double> iterations;  // none when the accountant could not plan
  std::string message;
};

// One audit cell (kind audit): the empirical lower bound beside the certified ε.
struct AuditGroup {
  std::string model;
  std::string sampler;
  double epsilon = 0.0;
  std::uint64_t iterations = 1;
  std::optional<double> epsilon_lb, certified, hockey_stick, seconds;
  bool violation = false;
  std::string message;  // the verdict, test and canary, or the error
};

struct ResultsSummary {
  std::size_t rows = 0;
  // Models and samplers in order of appearance, then sweep value and ε ascending.
  std::vector<SampleGroup> sample;
  std::vector<AccountGroup> account;
  std::vector<AuditGroup> audit;  // in the file's order
  // Per model, for models whose rows record no mmd_exact: another results file's (add_floor_from;
  // the thesis experiments' rows predate the column and exact-baselines.json measures it on its
  // own). The figures draw it as a black line; the table shows it for those models.
  std::map<std::string, Spread> model_floor;
  std::string floor_file;  // that other file
};

// `file` names the CSV in messages (DataError for a non-numeric cell, with its line).
ResultsSummary summarize_results(const ResultsFile& results, const std::string& file);

// Takes model_floor from `other`'s mmd_exact for every MMD model of `summary` whose rows record
// none. UsageError naming --floor when `other` gives none of them a value.
void add_floor_from(ResultsSummary& summary, const ResultsFile& other, const std::string& file);

// Sentences read off the numbers: the sampler with the lowest median metric at each ε, the
// non-private baselines, for a sweep the best and worst value per (model, sampler, ε), failed
// cells, and the accountants' iteration ratios.
std::vector<std::string> reading_of(const ResultsSummary& summary);

// "{:.4g}", or "NA" for NaN.
std::string show(double value);

}  // namespace dpmcmc
