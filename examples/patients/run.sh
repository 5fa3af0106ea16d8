#!/usr/bin/env bash
# The user guide's "Your data, your model" example (docs/user-guide.md): made-up patient rows,
# then NUTS on the rows (not private: the reference), dp-nss and dp-penalty at epsilon 1.
# About 10 seconds.
#   bash examples/patients/run.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
out="${2:-out/patients}"
mkdir -p "$out"
/usr/bin/python3 "$here/simulate.py" "$out/patients.csv"
for sampler in nuts dp-nss dp-penalty; do
  budget=()
  [ "$sampler" = nuts ] || budget=(--epsilon 1 --noise-key-file "$out/noise.key")
  "$build/dpmcmc" sample --model logistic --schema "$here/patients.json" \
    --data "$out/patients.csv" --sampler "$sampler" "${budget[@]}" --seed 1 --quiet \
    --out "$out/$sampler" > "$out/$sampler.txt"
  echo "== $sampler (full output: $out/$sampler.txt)"
  grep -E "^(intercept|age|bmi|sex|region_)|WARNING" "$out/$sampler.txt" | head -12
done
