// `dpmcmc simulate --model PRESET --out FILE.csv [--n N] [--seed S] [--theta ...]`: synthetic
// data from a preset's model, reproducible from the seed (models/presets.hpp, preset_data_rng).
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "data/csv_writer.hpp"
#include "models/presets.hpp"

namespace dpmcmc::cli {

void add_simulate_command(CLI::App& app) {
  struct Args {
    std::string model, out;
    std::size_t n = 0;
    std::uint64_t seed = 1;
    std::vector<double> theta;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("simulate", "Write a synthetic dataset of a model preset as CSV");
  cmd->add_option("--model", a->model, "Model preset (see `dpmcmc models`)")->required();
  cmd->add_option("--out", a->out, "Output CSV file")->required();
  cmd->add_option("--n", a->n, "Number of rows (default: the preset's n)");
  cmd->add_option("--seed", a->seed, "Seed of the data stream")->capture_default_str();
  cmd->add_option("--theta", a->theta, "Parameter to simulate from (default: the preset's true θ)")
      ->delimiter(',');
  cmd->callback([a] {
    const Preset& preset = find_preset(a->model);
    auto model = preset.make_model();
    Vec theta = preset.true_theta;
    if (!a->theta.empty()) theta = vector_option("--theta", a->theta, preset.dim);
    Rng rng = preset_data_rng(a->seed);
    const Dataset data = model->simulate(theta, a->n == 0 ? preset.n : a->n, rng);
    write_csv(data, a->out);
    fmt::print("wrote {} rows x {} columns of '{}' (seed {}) to {}\n", data.rows(), data.cols(),
               preset.name, a->seed, a->out);
  });
}

}  // namespace dpmcmc::cli
