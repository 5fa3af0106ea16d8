#include "audit/neighbours.hpp"

#include <fmt/format.h>

#include <array>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

struct ColumnRange {
  double lo = 0.0, hi = 0.0;
  bool binary = false;
  double extreme(bool high, double m) const {
    if (binary) return high ? 1.0 : 0.0;
    const double w = hi > lo ? hi - lo : 1.0;
    return high ? hi + m * w : lo - m * w;
  }
};

std::vector<ColumnRange> ranges(const Dataset& base) {
  std::vector<ColumnRange> out;
  for (Eigen::Index j = 0; j < base.x.cols(); ++j) {
    const auto col = base.x.col(j);
    ColumnRange r{col.minCoeff(), col.maxCoeff(), true};
    for (Eigen::Index i = 0; i < col.size(); ++i) {
      if (col[i] != 0.0 && col[i] != 1.0) r.binary = false;
    }
    out.push_back(r);
  }
  return out;
}

Dataset with_row0(const Dataset& base, const Vec& row, const std::string& tag) {
  Dataset d = base;
  d.x.row(0) = row.transpose();
  d.source = tag;
  return d;
}

Dataset with_extra_row(const Dataset& base, const Vec& row, const std::string& tag) {
  Dataset d = base;
  d.x.conservativeResize(base.x.rows() + 1, Eigen::NoChange);
  d.x.row(base.x.rows()) = row.transpose();
  d.source = tag;
  return d;
}

}  // namespace

std::vector<NeighbourPair> canary_pairs(const Dataset& base, Neighbouring relation) {
  if (base.rows() == 0 || base.cols() == 0) {
    throw ConfigError("audit: the base dataset has no rows or no columns");
  }
  const auto r = ranges(base);
  const Vec row0 = base.x.row(0).transpose();
  const auto cols = static_cast<Eigen::Index>(r.size());
  std::vector<NeighbourPair> out;
  const auto add = [&](const std::string& name, const Vec& a, const Vec& b) {
    if (relation == Neighbouring::add_remove) {
      out.push_back({name, base, with_extra_row(base, b, "audit D' (" + name + ")")});
    } else {
      out.push_back({name, with_row0(base, a, "audit D (" + name + ")"),
                     with_row0(base, b, "audit D' (" + name + ")")});
    }
  };
  for (const double m : std::array<double, 3>{0.0, 1.0, 10.0}) {
    Vec lo_corner = row0, hi_corner = row0;
    for (Eigen::Index j = 0; j < cols; ++j) {
      const auto& rj = r[static_cast<std::size_t>(j)];
      Vec lo = row0, hi = row0;
      lo[j] = rj.extreme(false, m);
      hi[j] = rj.extreme(true, m);
      lo_corner[j] = lo[j];
      hi_corner[j] = hi[j];
      const std::string col = base.columns.size() == r.size()
                                  ? base.columns[static_cast<std::size_t>(j)]
                                  : fmt::format("column {}", j + 1);
      if (relation == Neighbouring::add_remove) {
        add(fmt::format("{} low (m = {})", col, m), lo, lo);
      }
      add(fmt::format("{} high (m = {})", col, m), lo, hi);
    }
    if (relation == Neighbouring::add_remove) {
      add(fmt::format("low corner (m = {})", m), lo_corner, lo_corner);
      add(fmt::format("high corner (m = {})", m), hi_corner, hi_corner);
    } else {
      add(fmt::format("corners (m = {})", m), lo_corner, hi_corner);
      add(fmt::format("row 1 against the high corner (m = {})", m), row0, hi_corner);
    }
  }
  return out;
}

}  // namespace dpmcmc
