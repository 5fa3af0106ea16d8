#!/usr/bin/env bash
# The tutorial's runs (docs/tutorial.md), end to end: the data, the non-private reference and its
# independent check, private fits at several budgets (10 repeats each, fresh noise keys), the
# held-out accuracy of each, the same at epsilon 1 with one feature, and the plot. About 10
# minutes on 2 cores.
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
run() {  # sampler epsilon repeat [schema label]: one private fit and its held-out accuracy
  local sch="${4:-$schema}" label="${5:-$1}"
  local dir="$out/$label-eps$2-r$3"
  "$dpmcmc" sample --model logistic --schema "$sch" --data "$out/train.csv" --sampler "$1" \
    --epsilon "$2" --delta 1e-5 --chains 4 --seed "$3" --out "$dir" --quiet > "$dir.txt"
  echo "$label,$2,$3,$("$py" "$here/evaluate.py" "$sch" "$out/test.csv" "$dir" | awk '{print $NF}')" >> "$accuracies"
}
for r in $(seq 1 10); do
  for s in dp-penalty dp-hmc; do run "$s" 1 "$r"; done
  for e in 1 2 4 8 16 32; do run dp-nss "$e" "$r"; done
done
# The same at epsilon 1 with one feature (tutorial, "Fewer features"): the other columns ignored.
one="$here/schema-concave-points.json"
"$dpmcmc" sample --model logistic --schema "$one" --data "$out/train.csv" --sampler nuts \
  --chains 4 --seed 1 --out "$out/nuts-one" --quiet > "$out/nuts-one.txt"
echo "nuts-concave-points,inf,1,$("$py" "$here/evaluate.py" "$one" "$out/test.csv" "$out/nuts-one" | awk '{print $NF}')" >> "$accuracies"
for r in $(seq 1 10); do
  for s in dp-penalty dp-hmc dp-nss; do run "$s" 1 "$r" "$one" "$s-concave-points"; done
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
