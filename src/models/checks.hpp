// Argument checks shared by the built-in models. They run once per block of rows (never per
// row), so they cost nothing measurable, and they turn a mismatched dimension into an error that
// names the model and what was expected instead of an out-of-bounds read.
#pragma once

#include <string_view>

#include "core/types.hpp"

namespace dpmcmc::model_checks {

// Throws UsageError unless theta.size() == dim.
void theta(std::string_view model, int dim, const Vec& theta);
// Throws DataError unless rows.cols() == data_cols, and SoftwareError unless out_rows ==
// rows.rows() (a caller's buffer of the wrong length is a bug, not bad input).
void block(std::string_view model, Eigen::Index data_cols, const RowBlock& rows,
           Eigen::Index out_rows);
// As block(), for an n × dim gradient buffer.
void grad_block(std::string_view model, Eigen::Index data_cols, int dim, const RowBlock& rows,
                Eigen::Index out_rows, Eigen::Index out_cols);
// Throws DataError unless the dataset has data_cols columns.
void dataset(std::string_view model, Eigen::Index data_cols, Eigen::Index got_cols);

}  // namespace dpmcmc::model_checks
