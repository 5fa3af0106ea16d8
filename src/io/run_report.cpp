#include "io/run_report.hpp"

#include <cmath>

#include "core/error.hpp"
#include "data/atomic_file.hpp"

namespace dpmcmc {

std::string format_json(const nlohmann::json& report) {
  // dump() writes NaN and infinities as null; error_handler_t::replace keeps a string with
  // invalid UTF-8 from throwing in the middle of writing a report.
  std::string text =
      report.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  text.push_back('\n');
  return text;
}

void write_json(const nlohmann::json& report, const std::filesystem::path& path) {
  write_file_atomic(path, format_json(report));
}

nlohmann::json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

nlohmann::json json_array(std::span<const double> values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) out.push_back(json_number(v));
  return out;
}

nlohmann::json json_array(const Vec& values) {
  return json_array(
      std::span<const double>(values.data(), static_cast<std::size_t>(values.size())));
}

nlohmann::json json_matrix(const Mat& values) {
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < values.cols(); ++j) row.push_back(json_number(values(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

void Timings::add(const std::string& name, double seconds) {
  if (name == "total") throw SoftwareError("Timings: the phase name 'total' is reserved");
  for (auto& [phase, total] : phases_) {
    if (phase == name) {
      total += seconds;
      return;
    }
  }
  phases_.emplace_back(name, seconds);
}

double Timings::seconds(const std::string& name) const {
  for (const auto& [phase, total] : phases_) {
    if (phase == name) return total;
  }
  return 0.0;
}

nlohmann::json Timings::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  double sum = 0.0;
  for (const auto& [phase, total] : phases_) {
    out[phase + "_seconds"] = json_number(total);
    sum += total;
  }
  out["total_seconds"] = json_number(sum);
  return out;
}

}  // namespace dpmcmc
