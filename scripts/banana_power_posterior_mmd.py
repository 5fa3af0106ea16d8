#!/usr/bin/env python3
"""How far is the squared posterior pi^2 from pi on the DP HMC paper's banana, in our MMD?

Why: the DP HMC paper's authors' DP-SGLD update theta + e*grad log pi + N(0, e) has half the
Langevin noise for its drift, so it samples pi^2, not pi (src/run/sgld_setup.hpp). This script
measures the MMD that such a sampler could not get below, even with exact draws of pi^2, on the
data set of our experiment (experiments/results/dphmc-full/README.md).

The banana-dphmc-2d likelihood is x1 ~ N(t1, s1), x2 ~ N(t2 + a t1^2, s2) with a = 20,
s1 = 2000, s2 = 2500 (variances; [RaisaKoskelaHonkela2021] Section 4.1). With the prior
N(0, 1000 I) neglected (its precision is 1e-3 against the likelihood's n/s1 = 50), the posterior
is exactly t1 ~ N(mean x1, s1/n), t2 | t1 ~ N(mean x2 - a t1^2, s2/n); pi^2 halves both
variances. The MMD is ours (src/diagnostics/mmd.hpp): Gaussian kernel, bandwidth the median of
50 paired distances, unbiased MMD^2, reported as sqrt(|MMD^2|).

Usage (standard library only):
  dpmcmc simulate --model banana-dphmc-2d --seed 2699446687898771554 --out banana.csv
  python3 scripts/banana_power_posterior_mmd.py banana.csv
The seed is the data_seed of the banana rows of experiments/results/dphmc-full/results.csv.
"""
import csv
import math
import random
import statistics
import sys

A, S1, S2 = 20.0, 2000.0, 2500.0
DRAWS, REPEATS = 1000, 10  # 1000 reference draws per cell in dphmc.json


def posterior_draws(rng, k, m1, m2, n, power):
    out = []
    for _ in range(k):
        t1 = rng.gauss(m1, math.sqrt(S1 / (n * power)))
        t2 = rng.gauss(m2 - A * t1 * t1, math.sqrt(S2 / (n * power)))
        out.append((t1, t2))
    return out


def mmd(rng, x, y):
    sigma = statistics.median(math.dist(rng.choice(x), rng.choice(y)) for _ in range(50))
    c = -1.0 / (2.0 * sigma * sigma)

    def kernel_sum(a, b, skip_diagonal):
        total = 0.0
        for i, p in enumerate(a):
            for j, q in enumerate(b):
                if not (skip_diagonal and i == j):
                    total += math.exp(c * ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2))
        return total

    m, n = len(x), len(y)
    mmd2 = (kernel_sum(x, x, True) / (m * (m - 1)) + kernel_sum(y, y, True) / (n * (n - 1))
            - 2.0 * kernel_sum(x, y, False) / (m * n))
    return math.sqrt(abs(mmd2))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: banana_power_posterior_mmd.py DATA.csv (from dpmcmc simulate)")
    with open(sys.argv[1], newline="") as f:
        rows = [(float(r["x.1"]), float(r["x.2"])) for r in csv.DictReader(f)]
    n = len(rows)
    m1 = sum(r[0] for r in rows) / n
    m2 = sum(r[1] for r in rows) / n
    print(f"n = {n}, mean x1 = {m1:.4f}, mean x2 = {m2:.4f}")
    rng = random.Random(20190530)
    for label, power in (("pi against pi (noise floor)", 1.0), ("pi^2 against pi", 2.0)):
        values = sorted(
            mmd(rng, posterior_draws(rng, DRAWS, m1, m2, n, 1.0),
                posterior_draws(rng, DRAWS, m1, m2, n, power)) for _ in range(REPEATS))
        q = statistics.quantiles(values, n=4, method="inclusive")  # type 7
        print(f"{label}: MMD median {q[1]:.3f} [{q[0]:.3f}, {q[2]:.3f}] over {REPEATS} draws")


if __name__ == "__main__":
    main()
