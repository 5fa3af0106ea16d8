#!/bin/bash
# NUTS against rstan on three presets with the same data (issue 25; docs/benchmarks.md): a
# benchmark, not a test. Needs r-cran-rstan (make deps-bench-rstan). Usage: compare.sh BUILD WORK
set -euo pipefail
build=${1:-build}
work=${2:-out/bench-rstan}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
presets=(banana-tempered-2d gauss-box-2d bernoulli-beta)
for preset in "${presets[@]}"; do
  "$build/dpmcmc" simulate --model "$preset" --seed 1 --out "$work/$preset.csv" > /dev/null
  "$build/dpmcmc" sample --model "$preset" --data "$work/$preset.csv" --sampler nuts --chains 4 \
    --threads 1 --seed 1 --quiet --checkpoint-every 0 --out "$work/$preset-dpmcmc" > /dev/null
  Rscript "$here/run_stan.R" "$here/${preset//-/_}.stan" "$work/$preset.csv" "$preset" 1 \
    "$work/$preset-rstan.csv"
done
python3 "$here/compare.py" "$work" "${presets[@]}"
