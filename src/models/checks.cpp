#include "models/checks.hpp"

#include <string>

#include "core/error.hpp"

namespace dpmcmc::model_checks {

void theta(std::string_view model, int dim, const Vec& theta) {
  if (theta.size() != dim) {
    throw UsageError("model '" + std::string(model) + "': parameter vector has " +
                     std::to_string(theta.size()) + " entries, expected " + std::to_string(dim));
  }
}

void dataset(std::string_view model, Eigen::Index data_cols, Eigen::Index got_cols) {
  if (got_cols != data_cols) {
    throw DataError("model '" + std::string(model) + "' expects " + std::to_string(data_cols) +
                    " data column(s), got " + std::to_string(got_cols));
  }
}

void block(std::string_view model, Eigen::Index data_cols, const RowBlock& rows,
           Eigen::Index out_rows) {
  dataset(model, data_cols, rows.cols());
  if (out_rows != rows.rows()) {
    throw SoftwareError("model '" + std::string(model) + "': output buffer has " +
                        std::to_string(out_rows) + " rows for a block of " +
                        std::to_string(rows.rows()));
  }
}

void grad_block(std::string_view model, Eigen::Index data_cols, int dim, const RowBlock& rows,
                Eigen::Index out_rows, Eigen::Index out_cols) {
  block(model, data_cols, rows, out_rows);
  if (out_cols != dim) {
    throw SoftwareError("model '" + std::string(model) + "': gradient buffer has " +
                        std::to_string(out_cols) + " columns, expected " + std::to_string(dim));
  }
}

}  // namespace dpmcmc::model_checks
