#!/usr/bin/env python3
"""Numerical PLD against Google's dp_accounting, side by side in one run (issue 28, goal 2).

    python3 bench/peers/pld_vs_dp_accounting.py build/dpmcmc DP_ACCOUNTING_DIR

DP_ACCOUNTING_DIR is the `python/dp_accounting` folder of a checkout of
github.com/google/differential-privacy (public; fetched by `make bench-peers`, never vendored).
Both sides compose k Poisson-subsampled Gaussian releases with the connect-the-dots pessimistic
discretisation at the same interval and report ε(δ); the time is the composition and the ε query
only (dpmcmc's own `seconds`, dp_accounting's measured in-process), best of `--repeats`.
A benchmark, not a test: the times depend on the machine and its load (docs/benchmarks.md).
"""
import argparse
import json
import subprocess
import sys
import time

# (σ/Δ, q, k, δ): the case first, then a larger and a smaller composition.
CASES = [
    (2.0, 0.01, 10_000, 1e-6),
    (1.0, 0.01, 10_000, 1e-5),
    (4.0, 0.01, 100_000, 1e-6),
    (1.0, 0.001, 1_000, 1e-6),
]
INTERVAL = 1e-4


def dpmcmc_run(binary, sigma, q, k, delta):
    cmd = [binary, "account", "--mechanism", "subsampled-gaussian", "--sigma", str(sigma),
           "--q", str(q), "--sampling", "poisson", "--compositions", str(k), "--delta",
           str(delta), "--accountants", "pld-numerical-upper", "--pld-interval", str(INTERVAL),
           "--json"]
    row = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)[0]
    return row["epsilon"], row["seconds"]


def peer_run(pld, sigma, q, k, delta):
    start = time.perf_counter()
    one = pld.from_gaussian_mechanism(standard_deviation=sigma, sensitivity=1.0,
                                      value_discretization_interval=INTERVAL,
                                      sampling_prob=q, use_connect_dots=True)
    eps = one.self_compose(k).get_epsilon_for_delta(delta)
    return eps, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("dp_accounting_dir")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, args.dp_accounting_dir)
    from dp_accounting.pld import privacy_loss_distribution as pld  # noqa: E402

    print("| σ/Δ | q | k | δ | ε dpmcmc | ε dp_accounting | s dpmcmc | s dp_accounting | "
          "speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    for sigma, q, k, delta in CASES:
        ours = [dpmcmc_run(args.binary, sigma, q, k, delta) for _ in range(args.repeats)]
        theirs = [peer_run(pld, sigma, q, k, delta) for _ in range(args.repeats)]
        t_ours = min(t for _, t in ours)
        t_theirs = min(t for _, t in theirs)
        print(f"| {sigma:g} | {q:g} | {k} | {delta:g} | {ours[0][0]:.6f} | {theirs[0][0]:.6f} "
              f"| {t_ours:.3f} | {t_theirs:.3f} | {t_theirs / t_ours:.2f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
