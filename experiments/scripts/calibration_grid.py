"""Calibration grid of private regression posteriors: coverage, distance to the non-private
posterior and convergence, over family x n x epsilon x sampler.

Each repeat simulates n rows of a known linear (sigma sampled), logistic or Poisson regression
on d = 5 features uniform on [-1, 1] plus an intercept, with a seed derived from (family, n,
repeat): every epsilon and sampler of that (family, n, repeat) sees the same rows. The
non-private reference posterior of those rows is NUTS through the package (4 chains, seed 1) for
n <= 1e4 and a Laplace approximation (MAP and inverse Hessian, the tool's default priors) above;
`--check-laplace` measures that switch at n = 1e4. References are cached in reference.csv beside
the results. Every private run is `dpmcmc.sample` at delta = 1e-5, 4 chains, a fresh noise key
(the package's default) and otherwise default options; one row per run x parameter is appended
to the results CSV and flushed per run, so a killed grid resumes where it stopped. Work runs
repeat-major (repeat 0 of every cell, then repeat 1, ...) so an interrupted grid covers every
cell. `--summary` prints a Markdown table per family and sampler. Use Debian's python3
(/usr/bin/python3), which the package is built against (docs/python.md).

    PYTHONPATH=build/python python3 experiments/scripts/calibration_grid.py \
        [--families linear logistic poisson] [--n 1000 10000 100000 1000000] \
        [--epsilon 0.5 1 2 4] [--repeats 50] [--repeats-large 10] [--samplers dp-nss] \
        [--out experiments/results/calibration-grid/results.csv]
    PYTHONPATH=build/python python3 experiments/scripts/calibration_grid.py --summary [--out ...]
    PYTHONPATH=build/python python3 experiments/scripts/calibration_grid.py --check-laplace \
        [--check-repeats 3]
"""
import argparse
import csv
import os
import signal
import sys
import tempfile
import time
import zlib

import numpy as np
from scipy.special import expit
from scipy.stats import poisson

import dpmcmc

FEATURES = [f"x{j}" for j in range(1, 6)]
# Truth on the design's scale: features declared on [-1, 1] are not rescaled.
BETA = {"linear": [0.5, 2.5, -1.5, 1.0, -0.5, 0.0], "logistic": [0.5, 2.5, -1.5, 1.0, -0.5, 0.0],
        "poisson": [1.0, 1.0, -0.6, 0.4, -0.2, 0.0]}  # smaller effects: rates up to e^3.2 = 24.5
Y_LINEAR = 8.0  # |z| <= 6 and sigma = 1: |y| > 8 needs a 2-sigma error at a corner, rare
# Poisson count bound: the 0.9999 quantile at the largest rate (45), so clipping is rare while
# the release's sensitivity (which grows with the bound) stays small.
Y_POISSON = int(poisson.ppf(0.9999, np.exp(np.sum(np.abs(BETA["poisson"])))))
TARGET = {
    "linear": {"type": "real", "bounds": [-Y_LINEAR, Y_LINEAR], "outside": "clip"},
    "logistic": {"type": "binary"},
    "poisson": {"type": "count", "bounds": [0, Y_POISSON], "outside": "clip"},
}
FIELDS = ["family", "n", "epsilon", "repeat", "sampler", "parameter", "truth", "private_mean",
          "private_sd", "q5", "q95", "covered", "reference", "nonprivate_mean", "nonprivate_sd",
          "distance", "sd_ratio", "rhat", "warnings", "seconds"]
REF_FIELDS = ["family", "n", "repeat", "method", "parameter", "mean", "sd", "seconds"]


def schema(family):
    cols = [{"name": x, "role": "feature", "type": "real", "bounds": [-1, 1]} for x in FEATURES]
    return {"columns": cols + [{"name": "y", "role": "target", **TARGET[family]}]}


def truth(family):
    t = dict(zip(["intercept"] + FEATURES, BETA[family]))
    if family == "linear":
        t["log_sigma"] = 0.0  # sigma = 1
    return t


def simulate(family, n, repeat):
    # crc32 of the name, not its position in a list, so adding a family changes no data set.
    rng = np.random.default_rng([zlib.crc32(family.encode()), n, repeat])
    X = rng.uniform(-1, 1, size=(n, len(FEATURES)))
    z = BETA[family][0] + X @ np.array(BETA[family][1:])
    if family == "linear":
        y = np.clip(z + rng.normal(0, 1, n), -Y_LINEAR, Y_LINEAR)
    elif family == "logistic":
        y = (rng.uniform(size=n) < expit(z)).astype(float)
    else:
        y = np.minimum(rng.poisson(np.exp(z)), Y_POISSON).astype(float)
    # Clipped here as the schema would clip: the reference and the tool see the same rows.
    return X, y


def write_csv(path, X, y):
    # One file per data set, shared by its runs: cheaper than the package writing the rows as
    # CSV text in Python on every call (10^6 rows), and %.17g reads back as the same doubles.
    np.savetxt(path, np.column_stack([X, y]), fmt="%.17g", delimiter=",",
               header=",".join(FEATURES + ["y"]), comments="")


def neg_log_post(theta, family, A, y):
    """-(log prior + log likelihood), its gradient and Hessian, as models/glm.cpp and
    set_priors in models/user_model.cpp define them. A = [1, X]; y is not rescaled for linear
    (data/design.cpp); linear's last parameter is log sigma, its half-normal prior on sigma
    including the Jacobian (models/coefficient_prior.cpp)."""
    p = A.shape[1]
    gaussian = family == "linear"
    scale = Y_LINEAR if gaussian else 1.0  # half the target's range; the middle is 0 here
    sd = np.array([10.0] + [2.5] * (p - 1)) * scale
    b = theta[:p]
    z = A @ b
    f = 0.5 * np.sum((b / sd) ** 2)
    g = np.zeros_like(theta)
    H = np.zeros((len(theta), len(theta)))
    g[:p] = b / sd ** 2
    H[:p, :p] = np.diag(1 / sd ** 2)
    if gaussian:
        s = theta[p]
        w, r = np.exp(-2 * s), y - z
        rr = r @ r
        S = 2 * Y_LINEAR  # sigma ~ half_normal(high - low)
        f += 0.5 * w * rr + len(y) * s + 0.5 * np.exp(2 * s) / S ** 2 - s
        g[:p] -= w * (A.T @ r)
        g[p] = -w * rr + len(y) + np.exp(2 * s) / S ** 2 - 1
        H[:p, :p] += w * (A.T @ A)
        H[:p, p] = H[p, :p] = 2 * w * (A.T @ r)
        H[p, p] = 2 * w * rr + 2 * np.exp(2 * s) / S ** 2
        return f, g, H
    if family == "logistic":
        mu = expit(z)
        f += np.sum(np.logaddexp(0, z) - y * z)
        W = mu * (1 - mu)
    else:
        mu = np.exp(z)
        f += np.sum(mu - y * z)  # without log y!, a constant
        W = mu
    g[:p] += A.T @ (mu - y)
    H[:p, :p] += (A * W[:, None]).T @ A
    return f, g, H


def laplace(family, X, y):
    A = np.column_stack([np.ones(len(y)), X])
    x0 = np.zeros(A.shape[1])
    if family == "linear":  # start at least squares, where the Hessian is positive definite
        x0 = np.linalg.lstsq(A, y, rcond=None)[0]
        x0 = np.append(x0, np.log(np.std(y - A @ x0)))
    # Damped Newton: the negative log posterior is convex in the coefficients (and smooth in
    # log sigma near least squares). Stop when the Newton decrement g'H^-1 g is below 1e-9 of
    # |f| (an absolute 1e-12 is below the rounding of f at n = 1e6: poisson then ran its 200
    # steps with full line searches, 30 minutes for one reference) or no step improves f.
    # (scipy's trust-exact stopped on "bad approximation" at n = 1e5: its gtol is absolute.)
    x = x0
    for _ in range(200):
        f, g, H = neg_log_post(x, family, A, y)
        step = np.linalg.solve(H, g)
        if g @ step < 1e-9 * max(1.0, abs(f)):
            break
        t = 1.0
        while neg_log_post(x - t * step, family, A, y)[0] > f - 0.25 * t * (g @ step) and t > 1e-10:
            t *= 0.5
        if t <= 1e-10:
            break  # at the optimum to rounding
        x = x - t * step
    else:
        raise RuntimeError(f"Laplace: Newton did not converge for {family}")

    class res:  # noqa: N801 (the name the lines below read)
        pass
    res.x = x
    sd = np.sqrt(np.diag(np.linalg.inv(neg_log_post(res.x, family, A, y)[2])))
    return {name: (m, s) for name, m, s in zip(truth(family), res.x, sd)}


def nuts(family, path):
    with tempfile.TemporaryDirectory() as tmp:
        fit = dpmcmc.sample(family, data=path, schema=schema(family), chains=4, seed=1,
                            out=os.path.join(tmp, "ref"))
    rows = {p["name"]: p for p in fit.summary}
    return {name: (rows[name]["mean"], rows[name]["sd"]) for name in truth(family)}


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def appender(path, fields):
    """A function appending dict rows to the CSV at path (header when new), flushed per call."""
    new = not os.path.exists(path)
    f = open(path, "a", newline="")
    w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
    if new:
        w.writeheader()
    return lambda rows: (w.writerows(rows), f.flush())


def reference(cache, append, key, X, y, path, laplace_from):
    """The cached non-private posterior {parameter: (mean, sd)} of one data set, and its method."""
    if key not in cache:
        family, n, repeat = key
        method = "laplace" if n >= laplace_from else "nuts"
        start = time.monotonic()
        post = laplace(family, X, y) if method == "laplace" else nuts(family, path)
        seconds = round(time.monotonic() - start, 2)
        append([{"family": family, "n": n, "repeat": repeat, "method": method,
                 "parameter": k, "mean": m, "sd": s, "seconds": seconds}
                for k, (m, s) in post.items()])
        cache[key] = (method, post)
        print(f"  reference {family} n={n} repeat {repeat}: {method}, {seconds:.1f} s", flush=True)
    return cache[key]


def sampler_options(label):
    """A sampler label, "NAME" or "NAME:OPTION=VALUE,...", as the sampler's name and options
    (e.g. "dp-nss:pilot_releases=0", to compare settings in one grid)."""
    name, _, rest = label.partition(":")
    options = dict(item.split("=", 1) for item in rest.split(",") if item)
    return name, options


def private_run(family, n, repeat, e, sampler, path, tmp, delta, method, ref):
    """One private run: its rows of the results CSV, or None if the tool refused it."""
    start = time.monotonic()
    name, options = sampler_options(sampler)
    try:  # no seed and no key file: the package draws a fresh key (and seed) per run
        fit = dpmcmc.sample(family, data=path, schema=schema(family), sampler=name,
                            epsilon=e, delta=delta, chains=4, **options,
                            out=os.path.join(tmp, f"{e:g}-{len(os.listdir(tmp))}"))
    except dpmcmc.Error as err:  # not recorded, so a resumed grid tries it again
        print(f"{family} n={n} eps={e:g} repeat {repeat} {sampler}: FAILED {err}", flush=True)
        return None
    seconds = round(time.monotonic() - start, 2)
    summary = {p["name"]: p for p in fit.summary}
    # A run whose budget bought too few draws to summarise (its `draws` warning) is recorded as
    # a failure: no mean, nothing covered.
    empty = {"mean": float("nan"), "sd": float("nan"), "q5": float("nan"), "q95": float("nan"),
             "rhat": float("nan")}
    rows = []
    for name, t in truth(family).items():
        p, (m0, s0) = summary.get(name, empty), ref[name]
        rows.append({"family": family, "n": n, "epsilon": e, "repeat": repeat,
                     "sampler": sampler, "parameter": name, "truth": t,
                     "private_mean": p["mean"], "private_sd": p["sd"], "q5": p["q5"],
                     "q95": p["q95"], "covered": int(p["q5"] <= t <= p["q95"]),
                     "reference": method, "nonprivate_mean": m0, "nonprivate_sd": s0,
                     "distance": abs(p["mean"] - m0) / s0, "sd_ratio": p["sd"] / s0,
                     "rhat": p["rhat"], "warnings": len(fit.warnings), "seconds": seconds})
    rhat = max((r["rhat"] for r in rows if r["rhat"] is not None), default=float("nan"))
    print(f"{family} n={n} eps={e:g} repeat {repeat} {sampler}: {seconds:.1f} s, "
          f"max R-hat {rhat:.3f}, {len(fit.warnings)} warnings", flush=True)
    return rows


def run(args):
    ref_path = os.path.join(os.path.dirname(args.out), "reference.csv")
    cache = {}
    for r in read_rows(ref_path):
        entry = cache.setdefault((r["family"], int(r["n"]), int(r["repeat"])), (r["method"], {}))
        entry[1][r["parameter"]] = (float(r["mean"]), float(r["sd"]))
    done = {(r["family"], int(r["n"]), float(r["epsilon"]), int(r["repeat"]), r["sampler"])
            for r in read_rows(args.out)}
    out, refs = appender(args.out, FIELDS), appender(ref_path, REF_FIELDS)
    reps = {n: args.repeats if n <= 100_000 else args.repeats_large for n in args.n}
    # Repeat-major: repeat 0 of every cell first, so an interrupted grid still covers them all.
    for repeat in range(max(reps.values())):
        for family in args.families:
            for n in args.n:
                cells = [(e, s) for e in args.epsilon for s in args.samplers
                         if repeat < reps[n] and (family, n, e, repeat, s) not in done]
                if not cells:
                    continue  # resumed: do not even simulate the rows
                X, y = simulate(family, n, repeat)
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "data.csv")
                    write_csv(path, X, y)
                    method, ref = reference(cache, refs, (family, n, repeat), X, y, path,
                                            args.laplace_from)
                    for e, sampler in cells:
                        rows = private_run(family, n, repeat, e, sampler, path, tmp,
                                           args.delta, method, ref)
                        if rows:
                            out(rows)  # one flush per run: a kill loses one run at most


def summary(path):
    rows = read_rows(path)
    groups = {}
    for r in rows:
        groups.setdefault((r["family"], r["sampler"]), []).append(r)
    for (family, sampler), mine in sorted(groups.items()):
        linear = family == "linear"
        print(f"\n### {family}, `{sampler}`\n")
        head = (["n", "ε", "repeats", "coverage"] + (["log σ coverage"] if linear else [])
                + ["median distance", "median sd ratio", "max R-hat", "median s",
                   "coverage ≥ 0.85", "distance ≤ 1", "R-hat < 1.01"])
        print("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
        cells = sorted({(int(r["n"]), float(r["epsilon"])) for r in mine})
        for n, e in cells:
            c = [r for r in mine if int(r["n"]) == n and float(r["epsilon"]) == e]
            coef = [int(r["covered"]) for r in c if r["parameter"] != "log_sigma"]
            sig = [int(r["covered"]) for r in c if r["parameter"] == "log_sigma"]
            dist = np.median([float(r["distance"]) for r in c])
            ratio = np.median([float(r["sd_ratio"]) for r in c])
            rhats = [float(r["rhat"]) for r in c if r["rhat"] not in ("", "None")]
            rhat = max(rhats) if rhats else float("nan")
            secs = np.median([float(r["seconds"]) for r in c])
            cov = np.mean(coef)
            ok_dist = ("yes" if dist <= 1 else "no") if n >= 10_000 and e >= 1 else "–"
            print(f"| {n:,} | {e:g} | {len({r['repeat'] for r in c})} | {cov:.2f} | "
                  + (f"{np.mean(sig):.2f} | " if linear else "")
                  + f"{dist:.2f} | {ratio:.2f} | {rhat:.3f} | {secs:.1f} | "
                  f"{'yes' if cov >= 0.85 else 'no'} | {ok_dist} | "
                  f"{'yes' if rhat < 1.01 else 'no'} |")


def check_laplace(args):
    """Laplace against NUTS at n = 1e4, in the NUTS posterior's sds: justifies the switch."""
    n = 10_000
    print("| family | parameter | repeats | median sd ratio (Laplace / NUTS) | "
          "max abs(sd ratio - 1) | max abs(mean difference) / NUTS sd |")
    print("|---|---|---|---|---|---|")
    worst = (0.0, 0.0)
    for family in args.families:
        stats = {name: [] for name in truth(family)}
        for repeat in range(args.check_repeats):
            X, y = simulate(family, n, repeat)
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "data.csv")
                write_csv(path, X, y)
                ref, lap = nuts(family, path), laplace(family, X, y)
            for name in stats:
                stats[name].append((lap[name][1] / ref[name][1],
                                    abs(lap[name][0] - ref[name][0]) / ref[name][1]))
        for name, s in stats.items():
            ratio, diff = np.array(s).T
            print(f"| {family} | {name} | {len(s)} | {np.median(ratio):.3f} | "
                  f"{np.max(np.abs(ratio - 1)):.3f} | {np.max(diff):.3f} |", flush=True)
            worst = (max(worst[0], np.max(np.abs(ratio - 1))), max(worst[1], np.max(diff)))
    print(f"\nLaplace against NUTS at n = {n}: sds within {worst[0]:.1%}, means within "
          f"{worst[1]:.3f} NUTS sds (NUTS's own Monte Carlo error is ~1-3 % of an sd)")


if __name__ == "__main__":
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--families", nargs="+", default=list(BETA), choices=list(BETA))
    a.add_argument("--n", nargs="+", type=int, default=[1000, 10_000, 100_000, 1_000_000])
    a.add_argument("--epsilon", nargs="+", type=float, default=[0.5, 1.0, 2.0, 4.0])
    a.add_argument("--delta", type=float, default=1e-5)
    a.add_argument("--repeats", type=int, default=50, help="repeats per cell for n <= 1e5")
    a.add_argument("--repeats-large", type=int, default=10, help="repeats per cell for n > 1e5")
    a.add_argument("--samplers", nargs="+", default=["dp-nss"], help="passed to the tool as is")
    a.add_argument("--laplace-from", type=int, default=100_000,
                   help="n from which the reference is the Laplace approximation, not NUTS")
    a.add_argument("--out", default="experiments/results/calibration-grid/results.csv")
    a.add_argument("--summary", action="store_true", help="only print the tables of --out")
    a.add_argument("--check-laplace", action="store_true")
    a.add_argument("--check-repeats", type=int, default=3)
    args = a.parse_args()
    if args.check_laplace:
        check_laplace(args)
    elif args.summary:
        summary(args.out)
    else:
        # kill (SIGTERM) as an exception, so the temporary data files (10^6 rows) are removed
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        args.out = os.path.abspath(args.out)
        run(args)
        summary(args.out)
