"""Calibration of private linear regression: coverage of 90 % credible intervals.

Each repeat simulates n rows with known coefficients (a fresh data set and a fresh noise key),
fits `--model linear` (σ sampled) with every private sampler that has defaults for user models
at the same budget, and records for every coefficient whether the central 90 % interval of the
published draws (report.json's q5 and q95) covers the true value. Results are appended to a CSV
(one row per repeat x sampler x coefficient), so an interrupted run resumes where it stopped;
the summary table is printed in Markdown (experiments/results/linear-coverage/README.md).

    PYTHONPATH=build/python python3 experiments/scripts/linear_coverage.py \
        [--repeats 100] [--epsilon 1] [--out experiments/results/linear-coverage/coverage.csv]
"""
import argparse
import csv
import math
import os
import tempfile
import time

import numpy as np

import dpmcmc

# The private samplers with user-model defaults that run at ε = 1 on n = 2000: those whose noise
# follows the budget, and the stochastic-gradient ones (their noise multiplier is at least 2). The
# minibatch penalty's default τ = 1 cannot afford one iteration there (it needs --tau); DP Barker
# has no user-model defaults (docs/user-guide.md).
SAMPLERS = ["dp-nss", "dp-penalty", "dp-penalty-ocu", "dp-penalty-gwmh", "dp-hmc",
            "dp-penalty-expfam", "dp-sgld", "dp-sgnht"]
BETA = {"intercept": 0.5, "x1": 1.0, "x2": -2.0}  # on the design's [-1, 1] scale
SIGMA = 1.0
SCHEMA = {
    "columns": [
        {"name": "x1", "role": "feature", "type": "real", "bounds": [-1, 1]},
        {"name": "x2", "role": "feature", "type": "real", "bounds": [-1, 1]},
        {"name": "y", "role": "target", "type": "real", "bounds": [-6, 6], "outside": "clip"},
    ]
}
FIELDS = ["repeat", "sampler", "epsilon", "n", "parameter", "truth", "q5", "q95", "covered",
          "rhat", "seconds"]


def simulate(repeat, n):
    rng = np.random.default_rng(10_000 + repeat)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = BETA["intercept"] + X @ np.array([BETA["x1"], BETA["x2"]]) + rng.normal(0, SIGMA, n)
    return X, y  # |y| > 6 has probability ~1e-4 per row: clipped, counted for the curator only


def done_cells(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {(int(r["repeat"]), r["sampler"]) for r in csv.DictReader(f)}


def run(args):
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    done = done_cells(args.out)
    new = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        if new:
            w.writeheader()
        for repeat in range(args.repeats):
            X, y = simulate(repeat, args.n)
            for sampler in SAMPLERS:
                if (repeat, sampler) in done:
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    start = time.monotonic()
                    fit = dpmcmc.sample("linear", X=X, y=y, schema=SCHEMA, sampler=sampler,
                                        epsilon=args.epsilon, delta=args.delta, chains=4,
                                        seed=repeat + 1, out=os.path.join(tmp, "run"))
                    seconds = time.monotonic() - start
                rows = {p["name"]: p for p in fit.summary}
                for name, truth in BETA.items():
                    p = rows[name]
                    covered = p["q5"] is not None and p["q5"] <= truth <= p["q95"]
                    w.writerow({"repeat": repeat, "sampler": sampler, "epsilon": args.epsilon,
                                "n": args.n, "parameter": name, "truth": truth,
                                "q5": p["q5"], "q95": p["q95"], "covered": int(covered),
                                "rhat": p["rhat"], "seconds": round(seconds, 2)})
                f.flush()
            print(f"repeat {repeat + 1}/{args.repeats} done", flush=True)


def table(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    print("| sampler | repeats | coverage intercept | coverage x1 | coverage x2 | "
          "median 90 % width (x1) | median R-hat (x1) | median seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for sampler in SAMPLERS:
        mine = [r for r in rows if r["sampler"] == sampler]
        if not mine:
            continue
        reps = len({r["repeat"] for r in mine})
        cov = {}
        for name in BETA:
            c = [int(r["covered"]) for r in mine if r["parameter"] == name]
            k = sum(c)
            # Wilson 95 % interval of the coverage
            n = len(c)
            z = 1.96
            centre = (k + z * z / 2) / (n + z * z)
            half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
            cov[name] = f"{k / n:.2f} [{centre - half:.2f}, {centre + half:.2f}]"
        x1 = [r for r in mine if r["parameter"] == "x1"]
        widths = [float(r["q95"]) - float(r["q5"]) for r in x1 if r["q5"]]
        rhats = [float(r["rhat"]) for r in x1 if r["rhat"]]
        secs = [float(r["seconds"]) for r in x1]
        print(f"| `{sampler}` | {reps} | {cov['intercept']} | {cov['x1']} | {cov['x2']} | "
              f"{np.median(widths):.3g} | {np.median(rhats):.3g} | {np.median(secs):.3g} |")


if __name__ == "__main__":
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--repeats", type=int, default=100)
    a.add_argument("--epsilon", type=float, default=1.0)
    a.add_argument("--delta", type=float, default=1e-5)
    a.add_argument("--n", type=int, default=2000)
    a.add_argument("--out", default="experiments/results/linear-coverage/coverage.csv")
    a.add_argument("--table-only", action="store_true")
    args = a.parse_args()
    if not args.table_only:
        run(args)
    table(args.out)
