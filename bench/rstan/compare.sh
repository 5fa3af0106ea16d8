#!/bin/bash
# NUTS against rstan on four presets with the same data (issue 25; docs/benchmarks.md): a
# benchmark, not a test. Needs r-cran-rstan (`make bench-rstan` installs it).
# Usage: compare.sh BUILD WORK [SEED]
set -euo pipefail
build=${1:-build}
work=${2:-out/bench-rstan}
seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
presets=(banana-tempered-2d gauss-box-2d bernoulli-beta logistic-fashion-mnist)
for preset in "${presets[@]}"; do
  data="$work/$preset.csv"
  "$build/dpmcmc" simulate --model "$preset" --seed 1 --out "$data" > /dev/null
  "$build/dpmcmc" sample --model "$preset" --data "$data" --sampler nuts --chains 4 \
    --threads 1 --seed "$seed" --quiet --checkpoint-every 0 --out "$work/$preset-dpmcmc" > /dev/null
  # rstan runs with the draws and target acceptance dpmcmc's NUTS took from the preset.
  read -r iter target < <("$build/dpmcmc" models "$preset" --json | python3 -c \
    'import json, sys; o = json.load(sys.stdin)["run_defaults"].get("nuts", {});
print(o.get("iter", 1000), o.get("target_accept", 0.8))')
  Rscript "$here/run_stan.R" "$here/${preset//-/_}.stan" "$data" "$preset" "$seed" \
    "$work/$preset-rstan" "$iter" "$target"
  # Both fits summarised by one estimator (means, sds, their MCSEs, ESS; MMD to exact draws).
  "$build/dpmcmc" summary --json --model "$preset" --data "$data" \
    "$work/$preset"-dpmcmc/chain-*.csv > "$work/$preset-dpmcmc-summary.json"
  "$build/dpmcmc" summary --json --model "$preset" --data "$data" \
    "$work/$preset"-rstan-chain-*.csv > "$work/$preset-rstan-summary.json"
done
python3 "$here/compare.py" "$work" "${presets[@]}"
