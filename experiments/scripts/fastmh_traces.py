"""[ZhangZhang2023]'s convergence figures on the mixture, from the chain files of
experiments/fastmh.json.

- Figure 1(c): symmetric KL against iterations, (d): against time, 4: against rows evaluated, for
  the samplers at 0.05 per iteration (DP-Fast MH minibatch and full batch) and the baselines
  (DP penalty, DP Barker, non-private TunaMH), in the cells of one total epsilon (default 20,
  the largest at which every private sampler runs: 4746 DP-Fast MH iterations, where
  [ZhangZhang2023] runs 10^4; at 30 the DP penalty's 2e5 releases exceed the discrete noise's share
  of delta).
- Figure 1(b): DP-Fast MH's mean padded batch B (results.csv's batch_size) and mean rows
  evaluated per iteration (n in the iterations that fall back to the full batch) against its
  per-iteration epsilon, at the same total epsilon.

The KL at k draws is that of the first k kept draws (after the warmup half) against the exact
posterior's bin masses, so the x axis is the warmup plus k. Its reference is computed here, not by
dpmcmc: the rows are regenerated with `dpmcmc simulate --seed DATA_SEED` and the posterior
([ZhangZhang2023] E.1's likelihood, temperature 1/500, flat prior on [-3, 3]^2) is integrated on
each of the 100 x 100 bins of [-3, 3]^2 with 4 x 4 midpoints. The divergence is dpmcmc's `sym_kl`
definition (src/diagnostics/histogram_kl.hpp: additive pseudo-mass 1e-6 per bin) on that fixed box,
so the last point of a trace is close to, not equal to, the cell's `sym_kl` (covering box, 2e5 exact
draws); the script prints both.

Time: the chain's sampling seconds (curator report) spread evenly over its iterations, an
approximation. Rows evaluated, batch sizes and timings are computed from the rows without noise:
curator-only outputs of a private run, published here because the data are synthetic.

    python3 experiments/scripts/fastmh_traces.py [--results experiments/results/fastmh-full] \
        [--epsilon 20] [--repeats 1,2,3] [--out docs/figures/fastmh]
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile

import numpy as np

LABELS = {"fastmh-e005": "DP-Fast MH (minibatch)", "fastmh-full-e005": "DP-Fast MH (full batch)",
          "penalty": "DP penalty", "barker": "DP Barker", "tunamh": "TunaMH (non-private)"}
PER_ITERATION = {"fastmh-e005": 0.05, "fastmh-e01": 0.1, "fastmh-e02": 0.2, "fastmh-e05": 0.5}
TEMPERATURE = 1.0 / 500.0
SIGMA2 = 2.0
BOX = (-3.0, 3.0)
BINS = 100
SUB = 4
SMOOTHING = 1e-6


def exact_bin_masses(x):
    """Posterior mass of each of the BINS x BINS bins of BOX^2 (midpoint rule, SUB^2 points)."""
    # The rows enter through a histogram of 0.002-wide cells: a row moves by at most 0.001, which
    # moves its log-likelihood by at most 0.001 (|x| + 9) / 2 < 0.009; tempered by 1/500 and with
    # the moves' signs independent (mean 0), the log posterior moves by about 1e-3.
    counts, edges = np.histogram(x, bins=np.arange(-8.0, 8.001, 0.002))
    keep = counts > 0
    xs = 0.5 * (edges[:-1] + edges[1:])[keep]
    w = counts[keep].astype(float)
    h = (BOX[1] - BOX[0]) / (BINS * SUB)
    g = BOX[0] + h * (np.arange(BINS * SUB) + 0.5)
    logp = np.empty((g.size, g.size))
    for i, t1 in enumerate(g):
        a = -(xs[:, None] - t1) ** 2 / (2 * SIGMA2)
        b = -(xs[:, None] - t1 - g[None, :]) ** 2 / (2 * SIGMA2)
        logp[i] = TEMPERATURE * (w[:, None] * np.logaddexp(a, b)).sum(axis=0)
    p = np.exp(logp - logp.max())
    p = p.reshape(BINS, SUB, BINS, SUB).sum(axis=(1, 3))
    return p / p.sum()


def sym_kl(draws, q):
    p, _, _ = np.histogram2d(draws[:, 0], draws[:, 1], bins=BINS, range=[BOX, BOX])
    p = p / p.sum()
    ps = (p + SMOOTHING) / (1 + p.size * SMOOTHING)
    qs = (q + SMOOTHING) / (1 + q.size * SMOOTHING)
    return float(((ps - qs) * np.log(ps / qs)).sum())


def read_stan(path):
    header, rows = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if header is None:
                header = line.strip().split(",")
            else:
                rows.append([float(v) for v in line.split(",")])
    return header, np.array(rows)


def cell_dir(results, label, epsilon, rep):
    eps = "non-private" if epsilon is None else f"eps-{epsilon}"
    return os.path.join(results, "cells", "mixture-fastmh-2d", label, eps, f"rep-{rep}")


def rows_per_iteration(d, label, x):
    """Mean rows whose likelihood an iteration evaluates, over the kept draws of cell d.

    DP-Fast MH's batch_size__ is its Poisson draw B of the batch padded to the public total C-bar
    (private_data_fastmh.cpp), also in iterations that fall back to the full batch: such an
    iteration evaluates all n rows (full_batch__ = 1), a minibatch one B C / C-bar real rows in
    expectation, C = sum of the rows' constants c(x_i) = sqrt(2)(|x_i| + 6)/2 (the model's
    bound on the box |theta| <= 3). TunaMH's batch_size__ is its rows evaluated; DP Barker reads
    its batch of 1000; the others read every row."""
    header, draws = read_stan(os.path.join(d, "chain-1.csv"))
    private = os.path.isdir(d + ".curator")
    cheader, cdraws = read_stan(os.path.join(d + ".curator", "chain-1.csv")) if private else (
        header, draws)
    n = len(x)
    if "full_batch__" in header:
        fb = draws[:, header.index("full_batch__")]
        b = cdraws[:, cheader.index("batch_size__")]
        real = np.mean(np.abs(x) + 6.0) / 14.0  # C / C-bar: c(x) / c-bar, c-bar at |x| = 8
        return float(np.mean(np.where(fb > 0, n, b * real)))
    if "batch_size__" in cheader:
        return float(cdraws[:, cheader.index("batch_size__")].mean())
    return 1000.0 if label == "barker" else float(n)


def trace(results, label, epsilon, rep, q, x):
    d = cell_dir(results, label, None if label == "tunamh" else epsilon, rep)
    header, draws = read_stan(os.path.join(d, "chain-1.csv"))
    theta = draws[:, [header.index("theta.1"), header.index("theta.2")]]
    report = json.load(open(os.path.join(d, "report.json")))
    warmup = report["chains"][0]["warmup_done"]
    private = os.path.isdir(d + ".curator")
    cur = json.load(open(os.path.join(d + ".curator", "report.json"))) if private else report
    seconds = cur["chains"][0].get("wall_seconds", float("nan"))
    # The kept draws' rate of rows per iteration, applied to the warmup's iterations too.
    per_iteration = rows_per_iteration(d, label, x)
    total = warmup + theta.shape[0]
    ks = sorted({int(k) for k in np.geomspace(50, theta.shape[0], 25)} | {theta.shape[0]})
    out = []
    for k in ks:
        it = warmup + k
        out.append({"label": label, "repeat": rep, "iterations": it,
                    "seconds": seconds * it / total, "rows": per_iteration * it,
                    "sym_kl": sym_kl(theta[:k], q)})
    return out


def batch_sizes(results, epsilon, reps, data):
    """Per DP-Fast MH per-iteration epsilon: the median over repeats of the mean padded batch B
    (results.csv's batch_size) and of the mean rows evaluated per iteration."""
    with open(os.path.join(results, "results.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "completed"
                and r["epsilon"] == epsilon and int(r["repeat"]) in reps]
    table = {}
    for label, e in PER_ITERATION.items():
        b = [float(r["batch_size"]) for r in rows if r["sampler"] == label]
        used = [rows_per_iteration(cell_dir(results, label, epsilon, rep), label, data[rep])
                for rep in reps]
        table[e] = (float(np.median(b)), float(np.median(used)))
    return table


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def draw(traces, batches, out, epsilon):
    os.makedirs(out, exist_ok=True)
    data = os.path.join(out, "traces.dat")
    with open(data, "w") as f:
        for label in LABELS:
            rows = [t for t in traces if t["label"] == label]
            if not rows:
                continue
            # The median over repeats at each k (the repeats share the k grid per label).
            by_k = {}
            for t in rows:
                by_k.setdefault(t["iterations"], []).append(t)
            f.write(f'# {label}\n')
            for it in sorted(by_k):
                g = by_k[it]
                f.write("{} {} {} {}\n".format(it, np.median([t["seconds"] for t in g]),
                                               np.median([t["rows"] for t in g]),
                                               np.median([t["sym_kl"] for t in g])))
            f.write("\n\n")
    index = [label for label in LABELS if any(t["label"] == label for t in traces)]
    for fmt, term in (("png", "pngcairo size 1500,450"), ("svg", "svg size 1500,450")):
        plots = []
        for col, xlabel in ((1, "iterations"), (2, "seconds (sampling time, spread evenly)"),
                            (3, "rows evaluated")):
            lines = ", ".join(f"'{data}' index {i} using {col}:4 with linespoints "
                              f"title '{LABELS[label]}'" for i, label in enumerate(index))
            plots.append(f"set xlabel '{xlabel}'\nplot {lines}\n")
        gnuplot(f"set terminal {term}\nset output '{os.path.join(out, 'traces.' + fmt)}'\n"
                "set multiplot layout 1,3 title 'mixture-fastmh-2d, total epsilon "
                f"{epsilon}: symmetric KL of the kept draws (median over repeats)'\n"
                "set logscale xy\nset ylabel 'symmetric KL'\nset key bottom left\n"
                + "".join(plots) + "unset multiplot\n")
    bdat = os.path.join(out, "batch-size.dat")
    with open(bdat, "w") as f:
        for e, (b, used) in batches.items():
            f.write(f"{e} {b} {used}\n")
    for fmt, term in (("png", "pngcairo size 600,450"), ("svg", "svg size 600,450")):
        gnuplot(f"set terminal {term}\nset output '{os.path.join(out, 'batch-size.' + fmt)}'\n"
                f"set title 'minibatch DP-Fast MH at total epsilon {epsilon} (median over repeats)'\n"
                "set xlabel 'epsilon per iteration'\nset ylabel 'per iteration'\n"
                "set logscale xy\nset key bottom right\n"
                f"plot '{bdat}' using 1:2 with linespoints title 'padded Poisson batch B', "
                f"'{bdat}' using 1:3 with linespoints title 'rows evaluated'\n")
    os.remove(data)
    os.remove(bdat)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--dpmcmc", default="build/dpmcmc")
    a.add_argument("--results", default="experiments/results/fastmh-full")
    a.add_argument("--epsilon", default="20")
    a.add_argument("--repeats", default="1,2,3")
    a.add_argument("--out", default="docs/figures/fastmh")
    a.add_argument("--csv", default="experiments/results/fastmh-full/traces.csv")
    args = a.parse_args()
    with open(os.path.join(args.results, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    traces = []
    data = {}
    reps = [int(r) for r in args.repeats.split(",")]
    for rep in reps:
        cell = [r for r in rows if r["repeat"] == str(rep) and r["sampler"] == "fastmh-e005"
                and r["epsilon"] == args.epsilon]
        if not cell:
            raise SystemExit(f"no fastmh-e005 row at epsilon {args.epsilon}, repeat {rep}")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rows.csv")
            subprocess.run([args.dpmcmc, "simulate", "--model", "mixture-fastmh-2d", "--seed",
                            cell[0]["data_seed"], "--out", path], check=True,
                           stdout=subprocess.DEVNULL)
            x = np.loadtxt(path, delimiter=",", skiprows=1)
        data[rep] = x
        q = exact_bin_masses(x)
        for label in LABELS:
            eps = None if label == "tunamh" else args.epsilon
            if not os.path.isfile(os.path.join(cell_dir(args.results, label, eps, rep),
                                               "chain-1.csv")):
                print(f"repeat {rep} {label}: no chain file, left out")
                continue
            t = trace(args.results, label, args.epsilon, rep, q, x)
            traces += t
            row = [r for r in rows if r["repeat"] == str(rep) and r["sampler"] == label
                   and r["epsilon"] in (args.epsilon, "NA")]
            print(f"repeat {rep} {label}: sym_kl at {t[-1]['iterations']} iterations "
                  f"{t[-1]['sym_kl']:.3f} (results.csv: {row[0]['sym_kl'] if row else 'NA'})")
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(traces[0]))
        w.writeheader()
        w.writerows(traces)
    batches = batch_sizes(args.results, args.epsilon, reps, data)
    for e, (b, used) in batches.items():
        print(f"epsilon {e} per iteration: mean padded batch B {b:.1f}, rows evaluated {used:.0f}")
    draw(traces, batches, args.out, args.epsilon)
    print(f"wrote {args.csv} and {args.out}/traces.{{png,svg}}, {args.out}/batch-size.{{png,svg}}")


if __name__ == "__main__":
    main()
