// The subcommands of `dpmcmc`; each adds itself to the top-level app and runs in its callback.
#pragma once

#include <CLI/CLI.hpp>

namespace dpmcmc::cli {

void add_models_command(CLI::App& app);
void add_samplers_command(CLI::App& app);  // in models_command.cpp
void add_simulate_command(CLI::App& app);
void add_sample_command(CLI::App& app);
void add_advise_command(CLI::App& app);   // which private sampler (run/sampler_advice.hpp)
void add_predict_command(CLI::App& app);  // score new rows with a fitted regression
void add_summary_command(CLI::App& app);
void add_plot_command(CLI::App& app);  // draws against the exact posterior's contours
void add_account_command(CLI::App& app);
void add_audit_command(CLI::App& app);        // the privacy auditor (src/audit/)
void add_ledger_command(CLI::App& app);       // the budget ledger (src/ledger/)
void add_experiment_commands(CLI::App& app);  // experiment and report

}  // namespace dpmcmc::cli
