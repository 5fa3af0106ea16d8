"""The papers' density and contour figures, drawn by `dpmcmc plot` (docs/reproduction.md).

- The 2-d posteriors of the thesis' Table 5.1 with 20 starting points ([Raisa2021] Figure 5.1,
  [Raisa2021short] Figure 6.1): `dpmcmc plot --model M --starts 20`, one figure per model.
- [ZhangZhang2023] Figure 2: the DP-Fast MH mixture, DP-Fast MH, DP penalty, DP Barker and TunaMH
  draws against the exact posterior.
- [RaisaKoskelaHonkela2021] Figure 2: the DP HMC paper's banana at epsilon = 15, the best, median
  and worst of its 10 repeats by MMD for each algorithm, against the exact posterior. The cells are
  rerun from experiments/dphmc.json with their chain files (same seeds and key as the committed
  rows), and each rerun's MMD is printed beside the committed one.

    python3 experiments/scripts/density_figures.py [--dpmcmc build/dpmcmc] \
        [--out docs/figures/densities] [--work out/density-figures] [--only dphmc]
"""
import argparse
import csv
import os
import subprocess

PRESETS_2D = ["banana-flat-2d", "banana-tempered-2d", "banana-narrow-2d", "gauss-correlated-2d"]
DPHMC_LABELS = {"dp-hmc": "DP HMC", "dp-penalty": "DP penalty", "dp-sgld": "DP-SGLD",
                "dp-sgnht": "DP-SGNHT"}
DPHMC_EPSILON = "15"
# The repeats rerun by default. A DP-SGLD cell at epsilon = 15 costs ~25 minutes on one core and a
# DP-SGNHT cell ~7 (the committed rows' wall_seconds), so by default they get one and three
# repeats; --all-repeats runs the paper's ten for every algorithm (about 5 CPU-hours).
DEFAULT_REPEATS = {"dp-hmc": "*", "dp-penalty": "*", "dp-sgld": "1", "dp-sgnht": "[1-3]"}


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def mmd_by_repeat(results, model, label, epsilon):
    with open(results) as f:
        rows = [r for r in csv.DictReader(f)
                if r["model"] == model and r["sampler"] == label and r["epsilon"] == epsilon
                and r["status"] == "completed"]
    return {int(r["repeat"]): float(r["mmd"]) for r in rows}


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--dpmcmc", default="build/dpmcmc")
    a.add_argument("--out", default="docs/figures/densities")
    a.add_argument("--work", default="out/density-figures")
    a.add_argument("--threads", default="2")
    a.add_argument("--all-repeats", action="store_true")
    a.add_argument("--skip-runs", action="store_true", help="only draw (the cells have run)")
    a.add_argument("--only", action="append", choices=["presets", "fastmh", "dphmc"],
                   help="draw only these figures (repeatable; default: all three)")
    args = a.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only or ["presets", "fastmh", "dphmc"])
    if "presets" in only:
        draw_presets(args)
    if "fastmh" in only:
        draw_fastmh(args)
    if "dphmc" in only:
        draw_dphmc(args)


def draw_presets(args):
    for preset in PRESETS_2D:
        run([args.dpmcmc, "plot", "--model", preset, "--starts", "20", "--seed", "1",
             "--title", f"{preset}: exact 50 / 90 / 99 % regions and 20 starting points",
             "--name", preset, "--out", args.out, "--threads", args.threads])


def draw_fastmh(args):
    # [ZhangZhang2023] Figure 2: the mixture after warmup, at total epsilon 30, the largest of
    # experiments/fastmh.json (8644 DP-Fast MH iterations at 0.05 per iteration; [ZhangZhang2023]
    # shows 10^4 steps; above about 33 the discrete noise's delta refuses the run,
    # docs/reproduction.md): DP-Fast MH (minibatch and full batch), the baselines DP penalty (at 20:
    # at 30 its 2e5 releases exceed the discrete noise's share of delta) and DP Barker, and
    # non-private TunaMH, repeat 1.
    fm = os.path.join(args.work, "fastmh")
    fm_labels = {"fastmh-e005/30": ("eps-30", "DP-Fast MH (minibatch), total epsilon 30"),
                 "fastmh-full-e005/30": ("eps-30", "DP-Fast MH (full batch), total epsilon 30"),
                 "penalty/20": ("eps-20", "DP penalty, total epsilon 20"),
                 "barker/30": ("eps-30", "DP Barker, total epsilon 30"),
                 "tunamh/*": ("non-private", "TunaMH (non-private)")}
    cells = []
    for key in fm_labels:
        cells += ["--cells", f"sample/mixture-fastmh-2d/{key}/1"]
    if not args.skip_runs:
        run([args.dpmcmc, "experiment", "experiments/fastmh.json", "--threads", args.threads,
             *cells, "--out", fm])
    fm_runs, fm_names = [], []
    for key, (eps_dir, name) in fm_labels.items():
        fm_runs.append(os.path.join(fm, "cells", "mixture-fastmh-2d", key.split("/")[0],
                                    eps_dir, "rep-1"))
        fm_names += ["--label", name]
    run([args.dpmcmc, "plot", "--model", "mixture-fastmh-2d", *fm_runs, *fm_names, "--title",
         "mixture-fastmh-2d ([ZhangZhang2023] Figure 2): draws after warmup against the exact "
         "regions",
         "--name", "fastmh-mixture", "--out", args.out, "--threads", args.threads])


def draw_dphmc(args):
    model = "banana-dphmc-2d"
    cells = os.path.join(args.work, "dphmc-eps15")
    patterns = []
    for label in DPHMC_LABELS:
        repeats = "*" if args.all_repeats else DEFAULT_REPEATS[label]
        patterns += ["--cells", f"sample/{model}/{label}/{DPHMC_EPSILON}/{repeats}"]
    if not args.skip_runs:
        run([args.dpmcmc, "experiment", "experiments/dphmc.json", "--threads", args.threads,
             *patterns, "--out", cells])
    committed = "experiments/results/dphmc-full/results.csv"
    runs, labels = [], []
    for label, name in DPHMC_LABELS.items():
        rerun = mmd_by_repeat(os.path.join(cells, "results.csv"), model, label, DPHMC_EPSILON)
        before = mmd_by_repeat(committed, model, label, DPHMC_EPSILON)
        for rep in sorted(rerun):
            same = "same" if rep in before and abs(before[rep] - rerun[rep]) < 1e-12 else (
                f"committed {before[rep]:.4f}" if rep in before else "not committed")
            print(f"{name} repeat {rep}: MMD {rerun[rep]:.4f} ({same})")
        order = sorted(rerun, key=lambda r: rerun[r])
        if len(order) >= 10:
            picks = {"best": order[0], "median": order[(len(order) - 1) // 2], "worst": order[-1]}
        else:  # fewer repeats than the paper's ten: every one, by repeat
            picks = {f"repeat {r}": r for r in sorted(order)}
        for which, rep in picks.items():
            runs.append(os.path.join(cells, "cells", model, label, f"eps-{DPHMC_EPSILON}",
                                     f"rep-{rep}"))
            labels += ["--label", f"{name}, {which} (MMD {rerun[rep]:.3f})"]
    run([args.dpmcmc, "plot", "--model", model, *runs, *labels, "--title",
         f"{model} at epsilon = {DPHMC_EPSILON}: best, median and worst of 10 runs by MMD "
         "(where 10 ran)",
         "--name", "dphmc-banana-eps15", "--out", args.out, "--threads", args.threads])


if __name__ == "__main__":
    main()
