#!/usr/bin/env bash
# The tutorial's runs (docs/tutorial.md), end to end: the data, the non-private reference and its
# independent check, private fits at several budgets (10 repeats each, fresh noise keys), the
# held-out accuracy of each, and the plot. About 10 minutes on 2 cores.
#   bash examples/breast-cancer/run.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
out="${2:-out/breast-cancer}"
dpmcmc="$build/dpmcmc"
py=/usr/bin/python3
schema="$here/schema.json"
mkdir -p "$out"
"$py" "$here/prepare.py" "$out"

"$dpmcmc" sample --model logistic --schema "$schema" --data "$out/train.csv" --sampler nuts \
  --chains 4 --seed 1 --out "$out/nuts" --quiet > "$out/nuts.txt"
"$py" "$here/reference.py" "$schema" "$out/train.csv" "$out/nuts" | tee "$out/reference.txt"

accuracies="$out/accuracy.csv"
echo "sampler,epsilon,repeat,accuracy" > "$accuracies"
echo "nuts,inf,1,$("$py" "$here/evaluate.py" "$schema" "$out/test.csv" "$out/nuts" | awk '{print $NF}')" >> "$accuracies"
run() {  # sampler epsilon repeat
  local dir="$out/$1-eps$2-r$3"
  "$dpmcmc" sample --model logistic --schema "$schema" --data "$out/train.csv" --sampler "$1" \
    --epsilon "$2" --delta 1e-5 --chains 4 --seed "$3" --out "$dir" --quiet > "$dir.txt"
  echo "$1,$2,$3,$("$py" "$here/evaluate.py" "$schema" "$out/test.csv" "$dir" | awk '{print $NF}')" >> "$accuracies"
}
for r in $(seq 1 10); do
  for s in dp-penalty dp-hmc; do run "$s" 1 "$r"; done
  for e in 1 2 4 8 16 32; do run dp-nss "$e" "$r"; done
done
"$py" - "$accuracies" <<'PY'
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {}
for r in rows:
    cells.setdefault((r["sampler"], r["epsilon"]), []).append(float(r["accuracy"]))
print("| sampler | epsilon | runs | median held-out accuracy | min | max |")
print("|---|---|---|---|---|---|")
for (s, e), v in cells.items():
    print(f"| `{s}` | {e} | {len(v)} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
PY
bash "$here/plot.sh" "$out" "$out/nuts" "$out/dp-nss-eps4-r1" "$out/coefficients.svg"
