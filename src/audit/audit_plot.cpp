#include "audit/audit_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "io/gnuplot.hpp"

namespace dpmcmc {

double certified_fnr(double fpr, double epsilon, double delta) {
  return std::max(
      {0.0, 1.0 - delta - std::exp(epsilon) * fpr, std::exp(-epsilon) * (1.0 - delta - fpr)});
}

std::filesystem::path write_audit_plot(const AuditOutcome& o, const std::filesystem::path& dir) {
  require_gnuplot();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw OutputError(
        fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()));
  std::string empirical, certified;
  for (const auto& [fpr, fnr] : o.tradeoff) empirical += fmt::format("{:.9g} {:.9g}\n", fpr, fnr);
  for (int i = 0; i <= 400; ++i) {
    const double fpr = i / 400.0;
    certified +=
        fmt::format("{:.9g} {:.9g}\n", fpr, certified_fnr(fpr, o.certified_epsilon, o.delta));
  }
  write_file_atomic(dir / "tradeoff.dat", empirical);
  write_file_atomic(dir / "certified.dat", certified);
  const std::string title =
      fmt::format("{}: test on {}, epsilon_lb {:.3g}, certified {:.3g}", o.subject,
                  o.bound.statistic, o.bound.epsilon, o.certified_epsilon);
  const std::string script = fmt::format(
      "set terminal svg size 640,560 dynamic font 'sans,11'\n"
      "set output 'tradeoff.svg'\n"
      "set title {} noenhanced font 'sans,10'\n"
      "set xlabel 'false positive rate (decides D'' on D)'\n"
      "set ylabel 'false negative rate (decides D on D'')'\n"
      "set xrange [0:1]\nset yrange [0:1]\nset size square\nset key bottom left\n"
      "plot 'certified.dat' with lines lw 2 lc rgb '#0072B2' title 'least FNR the certificate "
      "allows', 'tradeoff.dat' with linespoints pt 7 ps 0.4 lc rgb '#D55E00' title 'chosen test, "
      "all trials'\n",
      gnuplot_quote(title));
  write_file_atomic(dir / "tradeoff.gp", script);
  run_gnuplot(dir / "tradeoff.gp");
  return dir / "tradeoff.svg";
}

}  // namespace dpmcmc
