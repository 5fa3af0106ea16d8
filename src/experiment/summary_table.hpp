// The report's wide table (`dpmcmc report` writes it as report/summary.md): one Markdown row per
// (model, sampler, sweep value), one column per ε, each cell the median accuracy metric over the
// completed repeats (3 significant digits), then the range over ε of the median share of clipped
// log-likelihood ratios and of completed repeats. It is the view the papers' figures give
// (metric against ε per sampler), as text that docs can quote: every number comes from the same
// ResultsSummary as summary.csv.
#pragma once

#include <string>

#include "experiment/results_summary.hpp"

namespace dpmcmc {

// "" when the summary has no sampling groups. ε columns ascending, "non-private" (no ε) first;
// "–" where a row has no group at that ε or its metric is missing (e.g. no draws kept).
std::string summary_markdown(const ResultsSummary& summary);

}  // namespace dpmcmc
