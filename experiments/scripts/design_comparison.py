"""Two repeat designs of one experiment, compared cell by cell (issue 29, item 8).

The papers keep one data set and vary only the starting points across repeats ([Raisa2021] Section
5.2, [RaisaKoskelaHonkela2021] Section 4.1; our specs' "fixed_data" and "paired_starts"); our
shipped specs redraw the data in every repeat. The medians then estimate different things: the
papers' the error on one data set, ours the error averaged over data sets. This script sets the
results of the same grid under the two designs side by side, per (model, sampler, epsilon):

- the median and interquartile range of the metric under each design;
- a two-sided Mann-Whitney U test of "same distribution" (the repeats of the two files are
  independent: other data, other starts, other noise), with Holm's correction over all cells;
- per (model, epsilon), the sampler with the lowest median under each design, the reading the
  papers' figures give.

    python3 experiments/scripts/design_comparison.py \
        experiments/results/algorithms-full/results.csv \
        experiments/results/algorithms-papers-design-full/results.csv [--metric mmd] [--markdown]
"""
import argparse
import csv

import numpy as np
from scipy.stats import mannwhitneyu


def load(path, metric):
    cells = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["kind"] != "sample" or r["status"] != "completed" or r[metric] in ("", "NA"):
                continue
            if r["epsilon"] == "NA":
                continue
            key = (r["model"], r["sampler"], float(r["epsilon"]))
            cells.setdefault(key, []).append(float(r[metric]))
    return cells


def holm(pvalues):
    order = np.argsort(pvalues)
    m = len(pvalues)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def spread(values):
    q25, q50, q75 = np.quantile(values, [0.25, 0.5, 0.75])  # type 7, as dpmcmc report
    return q50, q25, q75


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("redrawn", help="results.csv whose repeats redraw the data")
    a.add_argument("papers", help="results.csv of the same grid with fixed_data and paired_starts")
    a.add_argument("--metric", default="mmd")
    a.add_argument("--markdown", action="store_true", help="print the cell table as Markdown")
    args = a.parse_args()

    ours = load(args.redrawn, args.metric)
    theirs = load(args.papers, args.metric)
    keys = [k for k in theirs if k in ours]
    # Order: models and samplers as the papers' file lists them, then epsilon.
    models = list(dict.fromkeys(k[0] for k in theirs))
    samplers = list(dict.fromkeys(k[1] for k in theirs))
    keys.sort(key=lambda k: (models.index(k[0]), samplers.index(k[1]), k[2]))
    if not keys:
        raise SystemExit("no (model, sampler, epsilon) cell is in both files")
    p = [mannwhitneyu(ours[k], theirs[k], alternative="two-sided").pvalue for k in keys]
    p_holm = holm(np.array(p))

    if args.markdown:
        print(f"| model | sampler | ε | redrawn data: median [IQR] (n) | one data set, paired starts "
              f"| Holm p |")
        print("|---|---|---|---|---|---|")
    else:
        print(f"{'model':22} {'sampler':28} {'eps':>4}  {'redrawn data':>28}  "
              f"{'one data set':>28}  Holm p")
    widths = []
    for k, ph in zip(keys, p_holm):
        o, t = spread(ours[k]), spread(theirs[k])
        widths.append((t[2] - t[1]) / (o[2] - o[1]) if o[2] > o[1] else np.nan)
        cell_o = f"{o[0]:.3f} [{o[1]:.3f}, {o[2]:.3f}] ({len(ours[k])})"
        cell_t = f"{t[0]:.3f} [{t[1]:.3f}, {t[2]:.3f}] ({len(theirs[k])})"
        if args.markdown:
            print(f"| {k[0]} | {k[1]} | {k[2]:g} | {cell_o} | {cell_t} | {ph:.2g} |")
        else:
            print(f"{k[0]:22} {k[1]:28} {k[2]:4g}  {cell_o:>28}  {cell_t:>28}  {ph:.2g}")

    lower = sum(np.median(theirs[k]) < np.median(ours[k]) for k in keys)
    print(f"\n{len(keys)} cells; Holm-corrected p < 0.05 in {int(np.sum(p_holm < 0.05))}; "
          f"the one-data-set median is the lower in {lower}; its interquartile range is "
          f"{np.nanmedian(widths):.2f} times the redrawn one's (median over cells)")
    # All cells of a model share its one data set under the papers' design, so a data set that
    # happens to be easier shifts them together: the count is per model, not a test over cells.
    for model in models:
        here = [k for k in keys if k[0] == model]
        low = sum(np.median(theirs[k]) < np.median(ours[k]) for k in here)
        print(f"  {model}: the one-data-set median is the lower in {low} of {len(here)} cells")
    agree, total = 0, 0
    for model in models:
        for eps in sorted({k[2] for k in keys if k[0] == model}):
            here = [k for k in keys if k[0] == model and k[2] == eps]
            best_o = min(here, key=lambda k: np.median(ours[k]))[1]
            best_t = min(here, key=lambda k: np.median(theirs[k]))[1]
            total += 1
            agree += best_o == best_t
            if best_o != best_t:
                print(f"  {model}, ε = {eps:g}: lowest median {best_o} (redrawn) but {best_t} "
                      f"(one data set)")
    print(f"lowest-median sampler the same under both designs at {agree} of {total} "
          f"(model, ε) pairs")


if __name__ == "__main__":
    main()
