"""Paired comparison of two labels of an experiment, repeat by repeat.

The experiment runner gives the repeats of every label the same starting points and seeds
("paired starts"), so the difference of a metric between two labels within one repeat removes
the variation that the start and the data share. For each model, epsilon and pair of labels
(baseline B, candidate C = B + SUFFIX) this prints the medians of both, the median of the paired
differences C - B with a 95 % percentile bootstrap interval (resampling the repeats, 4000 draws,
fixed seed), and in how many repeats C is lower. An interval entirely above 0 says C is worse
than B beyond the repeat-to-repeat noise; one entirely below, better. With 30 comparisons at the
95 % level about 1.5 come out "significant" by chance alone.

    python3 experiments/scripts/paired_comparison.py \
        experiments/results/adaptation-targets-full/results.csv \
        --baselines dp-penalty,dp-penalty-gwmh --suffix=-adapt [--metric mmd]
"""
import argparse
import csv
import sys

import numpy as np


def load(path, metric):
    cells = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] != "completed" or r[metric] in ("", "NA"):
                continue
            key = (r["model"], r["sampler"], float(r["epsilon"]))
            cells.setdefault(key, {})[int(r["repeat"])] = float(r[metric])
    return cells


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("results")
    a.add_argument("--baselines", required=True, help="comma-separated baseline labels")
    a.add_argument("--suffix", required=True, help="candidate label = baseline + suffix")
    a.add_argument("--metric", default="mmd")
    args = a.parse_args()
    cells = load(args.results, args.metric)
    rng = np.random.default_rng(1)
    models = sorted({m for m, _, _ in cells}, key=lambda m: (m.split("-")[0], len(m), m))
    worse = better = total = 0
    print(f"| model | baseline | ε | baseline median | candidate median | median paired "
          f"difference [95 % bootstrap] | candidate lower in |")
    print("|---|---|---|---|---|---|---|")
    for model in models:
        for base in args.baselines.split(","):
            for eps in sorted({e for m, s, e in cells if m == model and s == base}):
                b = cells.get((model, base, eps), {})
                c = cells.get((model, base + args.suffix, eps), {})
                repeats = sorted(set(b) & set(c))
                if not repeats:
                    continue
                d = np.array([c[k] - b[k] for k in repeats])
                boot = np.median(rng.choice(d, size=(4000, d.size)), axis=1)
                lo, hi = np.quantile(boot, [0.025, 0.975])
                total += 1
                worse += lo > 0
                better += hi < 0
                print(f"| {model} | {base} | {eps:g} | {np.median(list(b.values())):.3f} | "
                      f"{np.median(list(c.values())):.3f} | {np.median(d):+.3f} "
                      f"[{lo:+.3f}, {hi:+.3f}] | {int((d < 0).sum())}/{d.size} |")
    print(f"\nCandidate worse beyond the noise in {worse} of {total}, better in {better}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
