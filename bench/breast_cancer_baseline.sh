#!/usr/bin/env bash
# The breast cancer comparison (docs/tutorial.md's data, split and ten-feature schema): non-private
# NUTS once, `--sampler auto` at epsilon 1 and 4 (delta 1e-5) with seeds 1..10 (each run draws a
# fresh secret noise key), and the objective-perturbation baseline (bench/objective_perturbation.py:
# Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2, pure epsilon-DP) at the same epsilons, seeds
# 1..10. Prints a Markdown table of the held-out accuracies (median over the repeats, min-max), the
# sampler auto chose, and every warning the private runs printed or recorded. One process at a time.
#   bash bench/breast_cancer_baseline.sh BUILD_DIR OUT_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 64; }
root="$(cd "$(dirname "$0")/.." && pwd)"
dpmcmc="$1/dpmcmc"
out="$2"
py=/usr/bin/python3  # Debian's: numpy, scipy and scikit-learn
ex="$root/examples/breast-cancer"
schema="$ex/schema.json"
mkdir -p "$out"
"$py" "$ex/prepare.py" "$out" > /dev/null
acc="$out/accuracy.csv"
echo "method,epsilon,repeat,accuracy,seconds" > "$acc"
score() { "$py" "$ex/evaluate.py" "$schema" "$out/test.csv" "$1" | awk '{print $NF}'; }
since() { printf "%.1f" "$(echo "$(date +%s.%N) - $1" | bc)"; }  # wall seconds

t0=$(date +%s.%N)
"$dpmcmc" sample --model logistic --schema "$schema" --data "$out/train.csv" --sampler nuts \
  --chains 4 --seed 1 --out "$out/nuts" --quiet > "$out/nuts.txt" 2>&1
echo "nuts,inf,1,$(score "$out/nuts"),$(since "$t0")" >> "$acc"

for e in 1 4; do
  for r in $(seq 1 10); do
    dir="$out/auto-eps$e-r$r"
    t0=$(date +%s.%N)
    "$dpmcmc" sample --model logistic --schema "$schema" --data "$out/train.csv" --sampler auto \
      --epsilon "$e" --delta 1e-5 --chains 4 --seed "$r" --out "$dir" --quiet > "$dir.txt" 2> "$dir.err"
    echo "auto,$e,$r,$(score "$dir"),$(since "$t0")" >> "$acc"
  done
done

t0=$(date +%s.%N)
"$py" "$root/bench/objective_perturbation.py" "$schema" "$out/train.csv" "$out/test.csv" \
  --epsilon 1 4 --seeds 10 --lambda-grid > "$out/objective-perturbation.txt" 2> "$out/objective-perturbation.err"
grep '^objective-perturbation,' "$out/objective-perturbation.txt" | sed 's/$/,/' >> "$acc"
op_seconds=$(since "$t0")

"$py" - "$acc" <<'PY'
import csv, statistics, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    cells.setdefault((r["method"], r["epsilon"]), []).append(float(r["accuracy"]))
print("| method | ε | runs | median held-out accuracy | min–max |")
print("|---|---|---|---|---|")
for (m, e), v in cells.items():
    span = f"{min(v):.3f}–{max(v):.3f}" if len(v) > 1 else ""
    print(f"| {m} | {'∞' if e == 'inf' else e} | {len(v)} | {statistics.median(v):.3f} | {span} |")
PY
echo
for e in 1 4; do  # the first stdout line of each run: "sampler auto: chose NAME ..."
  echo "sampler auto chose at epsilon $e: $(head -qn1 "$out"/auto-eps$e-r*.txt | sed -n 's/^sampler auto: chose \([^ ]*\).*/\1/p' | sort | uniq -c | sed 's/^ *//' | paste -sd ';')"
done
awk -F, 'NR > 1 && $5 != "" {print $1, $2, $5}' "$acc" | sort -k1,2 | awk '{k = $1 " eps " $2; n[k]++; t[k] += $3; if (!(k in lo) || $3 < lo[k]) lo[k] = $3; if ($3 > hi[k]) hi[k] = $3}
  END {for (k in n) printf "wall time %s: %d runs, %.1f-%.1f s each, %.1f s in all\n", k, n[k], lo[k], hi[k], t[k]}' | sort
echo "objective perturbation: $(grep '^#' "$out/objective-perturbation.err" | sed 's/^# //' | paste -sd ';'); ${op_seconds} s for all fits (the Lambda grid included: $out/objective-perturbation.txt)"
echo "warnings of the private runs (stdout/stderr lines, then report.json):"
grep -Hi 'warn' "$out"/auto-eps*-r*.txt "$out"/auto-eps*-r*.err || echo "  (none printed)"
"$py" - "$out" <<'PY'
import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "auto-eps*-r*[0-9]", "report.json"))):  # not .curator
    w = json.load(open(p)).get("warnings") or []
    if w:
        print(f"  {p}: {json.dumps(w)}")
PY
