"""dp-nss's linear pilots clip the residuals near 3 sigma and model the clip for Gaussian errors
(models/noisy_statistics.hpp). What that costs when the errors are not Gaussian: the calibration
grid's linear design (d = 5, features uniform on [-1, 1], y declared on +-8) with Gaussian,
Laplace and Student-t(3) errors scaled to sd 1, at n = 1e4 and 1e5, eps = 1 and 4, delta = 1e-5,
with the default pilots and with --pilot-releases 0. Each private mean is compared with the
non-private posterior of the same rows under the same Gaussian model (Laplace approximation,
experiments/scripts/calibration_grid.py), and the 90 % intervals with the truth (slopes and
sigma = 1, the errors' sd, which the Gaussian model estimates). Resumes from the rows written.

    PYTHONPATH=build/python python3 experiments/scripts/linear_tails.py [--repeats 10] \
        [--out experiments/results/linear-tails/results.csv]
    PYTHONPATH=build/python python3 experiments/scripts/linear_tails.py --summary
"""
import argparse
import csv
import os
import statistics
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibration_grid as grid  # noqa: E402 (the grid's design, schema and reference)
import dpmcmc  # noqa: E402

ERRORS = ["gaussian", "laplace", "t3"]
FIELDS = ["errors", "n", "epsilon", "repeat", "sampler", "parameter", "truth", "private_mean",
          "private_sd", "covered", "distance", "sd_ratio", "rhat", "clip_warning"]


def simulate(errors, n, repeat):
    rng = np.random.default_rng([zlib.crc32(errors.encode()), n, repeat])
    X = rng.uniform(-1, 1, size=(n, len(grid.FEATURES)))
    beta = grid.BETA["linear"]
    z = beta[0] + X @ np.array(beta[1:])
    if errors == "gaussian":
        e = rng.normal(0, 1, n)
    elif errors == "laplace":
        e = rng.laplace(0, 1 / np.sqrt(2), n)  # variance 2b^2 = 1
    else:
        e = rng.standard_t(3, n) / np.sqrt(3)  # variance nu/(nu - 2) = 3
    return X, np.clip(z + e, -grid.Y_LINEAR, grid.Y_LINEAR)


def run(args):
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            done = {(r["errors"], int(r["n"]), float(r["epsilon"]), int(r["repeat"]), r["sampler"])
                    for r in csv.DictReader(f)}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    new = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as f, tempfile.TemporaryDirectory() as tmp:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        if new:
            w.writeheader()
        for repeat in range(args.repeats):
            for errors in ERRORS:
                for n in (10_000, 100_000):
                    todo = [(e, s) for e in (1.0, 4.0) for s in args.samplers
                            if (errors, n, e, repeat, s) not in done]
                    if not todo:
                        continue
                    X, y = simulate(errors, n, repeat)
                    path = os.path.join(tmp, "rows.csv")
                    grid.write_csv(path, X, y)
                    ref = grid.laplace("linear", X, y)
                    for e, sampler in todo:
                        name, options = grid.sampler_options(sampler)
                        fit = dpmcmc.sample("linear", data=path, schema=grid.schema("linear"),
                                            sampler=name, epsilon=e, delta=1e-5, chains=4,
                                            out=os.path.join(tmp, f"run-{e:g}-{len(done)}"),
                                            **options)
                        done.add((errors, n, e, repeat, sampler))
                        rows = {p["name"]: p for p in fit.summary}
                        clip_warned = any(w["check"] == "residual_clip" for w in fit.warnings)
                        for par, truth in grid.truth("linear").items():
                            p, (m0, s0) = rows[par], ref[par]
                            w.writerow({"errors": errors, "n": n, "epsilon": e, "repeat": repeat,
                                        "sampler": sampler, "parameter": par, "truth": truth,
                                        "private_mean": p["mean"], "private_sd": p["sd"],
                                        "covered": int(p["q5"] <= truth <= p["q95"]),
                                        "distance": abs(p["mean"] - m0) / s0,
                                        "sd_ratio": p["sd"] / s0, "rhat": p["rhat"],
                                        "clip_warning": int(clip_warned)})
                        f.flush()
                        print(f"{errors} n={n} eps={e:g} repeat {repeat} {sampler}", flush=True)


def summary(args):
    with open(args.out) as f:
        rows = list(csv.DictReader(f))
    cells = sorted({(r["errors"], int(r["n"]), float(r["epsilon"]), r["sampler"]) for r in rows},
                   key=lambda c: (ERRORS.index(c[0]), c[1], c[2], c[3]))
    print("| errors | n | eps | sampler | repeats | coverage (slopes) | median distance (slopes) |"
          " log sigma coverage | log sigma median distance | median sd ratio | max R-hat |"
          " residual_clip warned |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        cell = [r for r in rows if (r["errors"], int(r["n"]), float(r["epsilon"]), r["sampler"]) == c]
        coef = [r for r in cell if r["parameter"] != "log_sigma"]
        sig = [r for r in cell if r["parameter"] == "log_sigma"]
        med = lambda rs, k: statistics.median(float(r[k]) for r in rs)  # noqa: E731
        cov = lambda rs: statistics.mean(int(r["covered"]) for r in rs)  # noqa: E731
        print(f"| {c[0]} | {c[1]:,} | {c[2]:g} | {c[3]} | {len(sig)} | {cov(coef):.2f} | "
              f"{med(coef, 'distance'):.2f} | {cov(sig):.2f} | {med(sig, 'distance'):.2f} | "
              f"{med(coef, 'sd_ratio'):.2f} | {max(float(r['rhat']) for r in cell):.3f} | "
              f"{sum(int(r['clip_warning']) for r in sig)}/{len(sig)} |")


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--repeats", type=int, default=10)
    a.add_argument("--samplers", nargs="+", default=["dp-nss", "dp-nss:pilot_releases=0"])
    a.add_argument("--out", default="experiments/results/linear-tails/results.csv")
    a.add_argument("--summary", action="store_true")
    args = a.parse_args()
    summary(args) if args.summary else run(args)


if __name__ == "__main__":
    main()
