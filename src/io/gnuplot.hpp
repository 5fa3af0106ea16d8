// Drives gnuplot (an external program, Debian package gnuplot-nox) for the experiment report:
// the report writes a script and its data files, and this runs the script in its directory.
// The program is $DPMCMC_GNUPLOT when set (tests point it elsewhere), else `gnuplot` on PATH.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace dpmcmc {

// The gnuplot program to run.
std::string gnuplot_program();

// Throws ConfigError saying how to install gnuplot (or to skip the plots) when the program
// cannot be run.
void require_gnuplot();

// Runs `gnuplot SCRIPT` with the script's directory as working directory, its output in
// SCRIPT.log. Throws OutputError quoting the end of the log when gnuplot fails.
void run_gnuplot(const std::filesystem::path& script);

// A gnuplot string literal: single-quoted, with ' doubled.
std::string gnuplot_quote(std::string_view text);

}  // namespace dpmcmc
