"""Paired comparison of two labels of an experiment, repeat by repeat.

The experiment runner gives the repeats of every label the same data and, with
"paired_starts", the same starting points (not the same seeds: proposals and noise are
independent), so the difference of a metric between two labels within one repeat removes the
variation that the data and the start cause. For each model, epsilon and pair of labels
(baseline B, candidate C = B + SUFFIX) this prints the medians of both, the median of the paired
differences C - B with a 95 % percentile bootstrap interval (resampling the repeats, 4000 draws,
seeded per comparison), and in how many repeats C is lower; the medians are over the paired
repeats only. An interval entirely above 0 says C is worse than B beyond the repeat-to-repeat
noise; one entirely below, better. The percentile bootstrap of a median of 10 is slightly
anti-conservative, and with 30 comparisons about 1.8 come out "significant" by chance alone:
correct for the multiplicity before reading one as an effect.

    python3 experiments/scripts/paired_comparison.py \
        experiments/results/adaptation-targets-full/results.csv \
        --baselines dp-penalty,dp-penalty-gwmh --suffix=-adapt [--metric mmd]
"""
import argparse
import csv
import sys
import zlib

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
                rng = np.random.default_rng(zlib.crc32(f"{model}/{base}/{eps}".encode()))
                boot = np.median(rng.choice(d, size=(4000, d.size)), axis=1)
                lo, hi = np.quantile(boot, [0.025, 0.975])
                total += 1
                worse += lo > 0
                better += hi < 0
                print(f"| {model} | {base} | {eps:g} | {np.median([b[k] for k in repeats]):.3f} | "
                      f"{np.median([c[k] for k in repeats]):.3f} | {np.median(d):+.3f} "
                      f"[{lo:+.3f}, {hi:+.3f}] | {int((d < 0).sum())}/{d.size} |")
    print(f"\nCandidate worse beyond the noise in {worse} of {total}, better in {better}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
