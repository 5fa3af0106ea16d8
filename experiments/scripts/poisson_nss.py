"""Private Poisson regression by release once (`--sampler dp-nss`) against the exact posterior.

dp-nss models the covariates as Gaussian with the released moments (models/noisy_statistics.hpp):
exact for Gaussian covariates, an approximation for bounded ones. For each case below the script
simulates n rows with known coefficients, fits non-private NUTS on the exact Poisson likelihood
and dp-nss at each epsilon (delta = 1e-5, 4 chains, the same public seed), and prints, per
coefficient, the truth, NUTS's posterior mean and sd, and dp-nss's (docs/user-guide.md,
"Release once, sample forever").

    PYTHONPATH=build/python python3 experiments/scripts/poisson_nss.py [--n 2000]
    PYTHONPATH=build/python python3 experiments/scripts/poisson_nss.py --coverage 50 \
        --epsilons 4,1
"""
import argparse
import tempfile

import numpy as np

import dpmcmc

# name: (coefficients on the design's scale (intercept, x1, x2), covariate x1's law, y bound)
CASES = {
    # x2 is in every design; where its coefficient is 0 it is noise for the fit
    "gaussian x1, moderate": ((1.0, 0.8, 0.0), "gaussian", 30),
    "uniform x1 + binary x2": ((1.0, 1.0, 0.5), "uniform", 30),
    "uniform x1, strong": ((-0.3, 1.6, 0.0), "uniform", 30),
    "uniform x1 + binary x2, strong": ((1.0, 2.0, 1.0), "uniform", 100),
}


def simulate(case, n, rng):
    beta, law, _ = CASES[case]
    x1 = np.clip(rng.normal(0, 0.3, n), -1, 1) if law == "gaussian" else rng.uniform(-1, 1, n)
    x2 = (rng.uniform(size=n) < 0.3).astype(float)
    y = rng.poisson(np.exp(beta[0] + beta[1] * x1 + beta[2] * x2))
    return np.column_stack([x1, x2]), y


def schema(y_high):
    return {"columns": [
        {"name": "x1", "role": "feature", "type": "real", "bounds": [-1, 1]},
        {"name": "x2", "role": "feature", "type": "real", "bounds": [0, 1], "rescale": False},
        {"name": "y", "role": "target", "type": "count", "bounds": [0, y_high],
         "outside": "clip"}]}


def coverage(args, epsilons):
    """Coverage of the central 90 % intervals of dp-nss over repeats (fresh rows and seed)."""
    print(f"| case | ε | repeats | " + " | ".join(f"covers {c}" for c in
                                                  ["intercept", "x1", "x2"]) + " |")
    print("|---|---|---|---|---|---|")
    for case in ["gaussian x1, moderate", "uniform x1 + binary x2"]:
        k = list(CASES).index(case)
        for e in epsilons:
            hits = [0, 0, 0]
            for rep in range(args.coverage):
                X, y = simulate(case, args.n, np.random.default_rng(10_000 + 100 * rep + k))
                fit = dpmcmc.sample("poisson", X=X, y=y, schema=schema(CASES[case][2]),
                                    sampler="dp-nss", epsilon=e, delta=1e-5, chains=4,
                                    seed=rep + 1, out=tempfile.mkdtemp(prefix="poisson-nss-"))
                rows = {q["name"]: q for q in fit.summary}
                for j, name in enumerate(["intercept", "x1", "x2"]):
                    hits[j] += rows[name]["q5"] <= CASES[case][0][j] <= rows[name]["q95"]
            print(f"| {case} | {e:g} | {args.coverage} | "
                  + " | ".join(f"{h / args.coverage:.2f}" for h in hits) + " |", flush=True)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--n", type=int, default=2000)
    a.add_argument("--epsilons", default="30,4,1")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--coverage", type=int, default=0,
                   help="instead: coverage of 90 %% intervals over this many repeats")
    args = a.parse_args()
    epsilons = [float(e) for e in args.epsilons.split(",")]
    if args.coverage:
        coverage(args, epsilons)
        return
    print("| case | coefficient | truth | NUTS mean (sd) | "
          + " | ".join(f"dp-nss ε = {e:g} mean (sd)" for e in epsilons) + " |")
    print("|---|---|---|---|" + "---|" * len(epsilons))
    for k, case in enumerate(CASES):
        X, y = simulate(case, args.n, np.random.default_rng(args.seed * 100 + k))
        sch = schema(CASES[case][2])
        fits = [dpmcmc.sample("poisson", X=X, y=y, schema=sch, sampler="nuts", chains=4,
                              seed=args.seed, out=tempfile.mkdtemp(prefix="poisson-nss-"))]
        for e in epsilons:
            fits.append(dpmcmc.sample("poisson", X=X, y=y, schema=sch, sampler="dp-nss",
                                      epsilon=e, delta=1e-5, chains=4, seed=args.seed,
                                      out=tempfile.mkdtemp(prefix="poisson-nss-")))
        for j, name in enumerate(["intercept", "x1", "x2"]):
            cells = []
            for fit in fits:
                p = {q["name"]: q for q in fit.summary}[name]
                cells.append(f"{p['mean']:.3f} ({p['sd']:.3f})")
            print(f"| {case} | {name} | {CASES[case][0][j]:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
