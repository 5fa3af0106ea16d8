#include "models/coefficient_prior.hpp"

#include <charconv>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kSyntax =
    "normal(MEAN, SD), student_t(NU, MEAN, SCALE) or half_normal(SD) (sigma only), optionally "
    "prefixed by NAME= for one parameter";

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

double ScalarPrior::log_density(double x) const {
  constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log √(2π)
  switch (kind) {
    case Kind::normal: {
      const double z = (x - mean) / scale;
      return -0.5 * z * z - std::log(scale) - kLogSqrt2Pi;
    }
    case Kind::student_t: {
      const double z = (x - mean) / scale;
      return std::lgamma(0.5 * (nu + 1.0)) - std::lgamma(0.5 * nu) -
             0.5 * std::log(nu * std::numbers::pi) - std::log(scale) -
             0.5 * (nu + 1.0) * std::log1p(z * z / nu);
    }
    case Kind::half_normal: {
      // σ = e^x ~ half-normal(scale): p(σ) = 2 φ(σ/scale)/scale, times dσ/dx = σ.
      const double sigma = std::exp(x);
      const double z = sigma / scale;
      return std::log(2.0) - 0.5 * z * z - std::log(scale) - kLogSqrt2Pi + x;
    }
  }
  return 0.0;
}

double ScalarPrior::grad(double x) const {
  switch (kind) {
    case Kind::normal:
      return -(x - mean) / (scale * scale);
    case Kind::student_t: {
      const double u = x - mean;
      return -(nu + 1.0) * u / (nu * scale * scale + u * u);
    }
    case Kind::half_normal: {
      const double z = std::exp(x) / scale;
      return 1.0 - z * z;
    }
  }
  return 0.0;
}

std::string ScalarPrior::to_string() const {
  switch (kind) {
    case Kind::normal:
      return fmt::format("normal({}, {})", mean, scale);
    case Kind::student_t:
      return fmt::format("student_t({}, {}, {})", nu, mean, scale);
    case Kind::half_normal:
      return fmt::format("half_normal({})", scale);
  }
  return "?";
}

ScalarPrior parse_scalar_prior(const std::string& text, const std::string& option) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("{}: '{}': {}; expected {}", option, text, why, kSyntax));
  };
  const std::string t = trim(text);
  const auto open = t.find('(');
  if (open == std::string::npos || t.back() != ')') throw bad("not of the form NAME(ARGS)");
  const std::string name = trim(t.substr(0, open));
  std::vector<double> args;
  std::string inner = t.substr(open + 1, t.size() - open - 2);
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = inner.find(',', start);
    const std::string arg =
        trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    double v = 0.0;
    const auto r = std::from_chars(arg.data(), arg.data() + arg.size(), v);
    if (arg.empty() || r.ec != std::errc() || r.ptr != arg.data() + arg.size() || !std::isfinite(v))
      throw bad(fmt::format("'{}' is not a finite number", arg));
    args.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  ScalarPrior p;
  std::size_t want = 0;
  if (name == "normal") {
    p.kind = ScalarPrior::Kind::normal;
    want = 2;
  } else if (name == "student_t") {
    p.kind = ScalarPrior::Kind::student_t;
    want = 3;
  } else if (name == "half_normal") {
    p.kind = ScalarPrior::Kind::half_normal;
    want = 1;
  } else {
    throw bad(fmt::format("unknown distribution '{}'", name));
  }
  if (args.size() != want)
    throw bad(fmt::format("{} takes {} numbers, got {}", name, want, args.size()));
  if (p.kind == ScalarPrior::Kind::normal) {
    p.mean = args[0];
    p.scale = args[1];
  } else if (p.kind == ScalarPrior::Kind::student_t) {
    p.nu = args[0];
    p.mean = args[1];
    p.scale = args[2];
    if (!(p.nu > 0.0)) throw bad("the degrees of freedom must be positive");
  } else {
    p.scale = args[0];
  }
  if (!(p.scale > 0.0)) throw bad("the scale must be positive");
  return p;
}

PriorOption parse_prior_option(const std::string& text) {
  PriorOption o;
  const auto eq = text.find('=');
  std::string spec = text;
  if (eq != std::string::npos) {
    o.target = trim(text.substr(0, eq));
    spec = text.substr(eq + 1);
    if (o.target.empty())
      throw UsageError(
          fmt::format("--prior: '{}': empty name before '='; expected {}", text, kSyntax));
  }
  o.prior = parse_scalar_prior(spec, "--prior");
  const bool is_scale = o.prior.kind == ScalarPrior::Kind::half_normal;
  if (is_scale != (o.target == "sigma"))
    throw UsageError(
        fmt::format("--prior: '{}': {}", text,
                    is_scale ? "half_normal is a prior for sigma only (sigma=half_normal(SD))"
                             : "sigma takes half_normal(SD)"));
  return o;
}

}  // namespace dpmcmc
