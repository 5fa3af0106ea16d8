#!/usr/bin/env python3
"""Time per iteration against numpy baselines, side by side in one run (issue 28, goal 3).

    /usr/bin/python3 bench/peers/per_iteration_vs_numpy.py build/dpmcmc NEURIPS2019_DIR

NEURIPS2019_DIR is a checkout of github.com/DPBayes/DP-MCMC-NeurIPS2019 (public; never vendored:
its `gmm_code` folder is put on sys.path at run time, as pld_vs_dp_accounting.py does with
dp_accounting). Two cases, each timed on both sides in this process's run:

1. DP Barker on the NeurIPS-2019 Gaussian mixture. Peer: the authors' own `run_dp_Barker`
   (gmm_code/barker_mog.py), called with the settings of their main script: data as in
   gmm_code/main.py lines 27-38 (N = 10^6 rows of ½ N(0, 2) + ½ N(1, 2), numpy seed 123; drawn
   here vectorised, so the same distribution but not their exact rows), the seeds of lines 117-118,
   and gmm_code/mog_main.py lines 37-50 and 69-70: batch 1000, prop_var 0.01, temp_scale = 100/N,
   noise_scale √2 (noise variance 2), clip [0, 0.99·√1000/(temp_scale·N)], V_corr mixture for
   C = 2 on the grid x_max = 10, n_points = 1000. mog_main.py reads that mixture from a pickle that
   is not in the repository and otherwise fits it with X_corr.get_x_corr_params; this script calls
   that function exactly so (torch seed 123, as main.py line 86) when torch is importable (Debian's
   python3-torch; not installed by `make bench-peers`). Otherwise the same least-squares fit (their
   objective: K = 50 symmetric components convolved with N(0, C) against the logistic log density,
   their initialisation) is minimised here with numpy/scipy L-BFGS instead of their torch Adam,
   and torch is replaced by an inert stub only so that `import X_corr` succeeds (their timed loop
   uses X_corr.sample_from_mix, which is numpy only). Either way the fit is outside the timed
   region. The start is the true θ = (0, 1) instead of main.py's DPVI estimate (DPVI needs torch).
   The timed region is the one call run_dp_Barker(T, ...); their loop stops early (prints
   'Batch var > 1, exit') when a batch's scaled variance exceeds 1, and the iterations actually run
   are reported. dpmcmc: `sample --model mixture-fastmh-2d --n 1000000 --sampler dp-barker
   --batch 1000 --noise-variance 2 --proposal-sd 0.1 --adapt false` (sd 0.1 = √prop_var).
   The models differ in detail: mixture-fastmh-2d is DP-Fast MH's mixture ([ZhangZhang2023] Section
   6.1): rows declared in [-8, 8], flat prior on the box [-3, 3]², tempering T = 1/500 (so
   N·T = 2000 at n = 10^6, against the NeurIPS code's N·T = 100, and a clip bound √b/(nT) 20 times
   smaller); the NeurIPS model is Welling & Teh's mixture with the N(0, diag(10, 1)) prior on
   untruncated data (gmm_code/mog_model.py). Both iterations do the same work: a batch of 1000 rows
   drawn without replacement, two per-row log-likelihoods of the mixture per row, clip, batch mean
   and variance, Gaussian noise and one V_corr draw, Barker's test.

2. DP penalty on banana-flat-2d (thesis Table 5.1: a = 20, likelihood variances 20 and 2.5, prior
   φ(θ) ~ N(0, 1000 I), n = 10^5 untempered), ε = 4, δ = 1e-6, τ = 0.1, clip 2, proposal sd 0.008
   (the preset's dp-penalty defaults; `dpmcmc models banana-flat-2d`). The authors' loop
   (DPBayes/DP-HMC-experiments, dp_penalty.py) is written for JAX, which Debian does not package,
   so the peer is this script's own plain numpy implementation of the same iteration, vectorised
   over the n rows: Gaussian random-walk proposal, per-row log-likelihood at the proposal, the
   cached per-row log-likelihood of the current point, their difference clipped to ±clip·|θ'−θ|,
   summed, plus N(0, (τ√n · 2·clip·|θ'−θ|)²) noise, the penalised test
   log u < λ − σ²/2, and the per-row cache kept on accept. Both sides read the same rows, a CSV
   written by `dpmcmc simulate --model banana-flat-2d --n 100000 --seed 1`, and both start at the
   true θ = (0, 3) with the hand-set proposal (`--adapt false`). The numpy loop runs as many
   iterations as dpmcmc's budget allowed (at least --min-penalty-iters), in two spellings with
   the same seed (so the same chain): with preallocated buffers (ufuncs with out=; the baseline
   that counts) and with plain array expressions. The plain one allocates a 100 000-double
   temporary per operation, and its time depends on whether glibc's malloc hands the freed pages
   back to the OS between iterations, i.e. on the process's heap history (on the development
   machine ~0.28 ms per iteration in a fresh process, ~0.2 ms here after case 1 has freed its
   10^6-row array; the buffered one ~0.19 ms either way).

dpmcmc's time per iteration is the curator report's `timings.sampling_seconds` (OUT.curator/
report.json) over the iterations done (warmup_done + samples_done of the published OUT/report.json);
one chain, one thread, --accuracy off. The peer's is the wall time of its loop over its
iterations. Each side's acceptance rate is printed so that both are seen to do real work.
A benchmark, not a test: the times depend on the machine and its load (docs/benchmarks.md).
"""
import argparse
import contextlib
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import types

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, logsumexp

NEURIPS_N = 1_000_000
NEURIPS_BATCH = 1000
NEURIPS_PROP_VAR = 0.01
NEURIPS_NOISE_VARIANCE = 2.0
XCORR_X_MAX, XCORR_POINTS, XCORR_K = 10, 1000, 50

BANANA = dict(a=20.0, b=0.0, m=0.0, lik_var=(20.0, 2.5), prior_var=1000.0)
PENALTY = dict(epsilon=4.0, tau=0.1, clip=2.0, proposal_sd=0.008, n=100_000, theta0=(0.0, 3.0))


# ---------------------------------------------------------------------------------------------
# dpmcmc side


def dpmcmc_sample(binary, args, out):
    """Runs `dpmcmc sample ARGS --out OUT`; returns (s per iteration, iterations, acceptance)."""
    cmd = [binary, "sample", *args, "--chains", "1", "--threads", "1", "--accuracy", "off",
           "--quiet", "--out", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out + ".curator/report.json") as f:
        seconds = json.load(f)["timings"]["sampling_seconds"]
    with open(os.path.join(out, "report.json")) as f:
        chains = json.load(f)["chains"]
    iters = sum(c["warmup_done"] + c["samples_done"] for c in chains)
    accepted = sum(c["warmup_acceptance_rate"] * c["warmup_done"]
                   + c["acceptance_rate"] * c["samples_done"] for c in chains)
    return seconds / iters, iters, accepted / iters


# ---------------------------------------------------------------------------------------------
# Case 1: the NeurIPS-2019 code


def import_barker(neurips_dir):
    """Imports the authors' barker_mog and X_corr from NEURIPS2019_DIR/gmm_code."""
    sys.path.insert(0, os.path.join(neurips_dir, "gmm_code"))
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
        # X_corr imports torch at module level for its fitting code only; sample_from_mix, the
        # one function run_dp_Barker calls, is numpy. An inert stub lets the import succeed.
        stub, dist = types.ModuleType("torch"), types.ModuleType("torch.distributions")
        for name in ("Normal", "Uniform", "SigmoidTransform", "TransformedDistribution",
                     "AffineTransform"):
            setattr(dist, name, None)
        stub.distributions = dist
        sys.modules["torch"], sys.modules["torch.distributions"] = stub, dist
    import X_corr  # noqa: E402
    import barker_mog  # noqa: E402
    if not have_torch:
        del sys.modules["torch"], sys.modules["torch.distributions"]
    return barker_mog, X_corr, have_torch


def fit_x_corr_numpy(C, seed=123):
    """V_corr as X_corr.get_x_corr_params fits it (same objective, parametrisation, grid and
    initialisation; scipy L-BFGS with an analytic gradient instead of torch Adam): K components
    N(±μ_k, e^{2ℓ_k}) with weights softmax(z)/2, convolved with N(0, C), matched to the logistic
    log density on linspace(-x_max, x_max, n_points) in L2. Returns [mus, sigmas, pis] with the
    mirrored copies, the layout run_dp_Barker expects."""
    x = np.linspace(-XCORR_X_MAX, XCORR_X_MAX, XCORR_POINTS)[:, None]
    y = -np.abs(x[:, 0]) - 2.0 * np.log1p(np.exp(-np.abs(x[:, 0])))  # logistic log density
    K = XCORR_K
    rng = np.random.RandomState(seed)
    p0 = np.concatenate([0.1 * rng.randn(K), 0.1 * rng.randn(K), rng.rand(K)])

    def loss_grad(p):
        mu, ls, z = p[:K], p[K:2 * K], p[2 * K:]
        e2 = np.exp(2.0 * ls)
        s2 = e2 + C
        logw = log_softmax(z)
        lnorm = -0.5 * np.log(2.0 * np.pi * s2)
        a = lnorm - 0.5 * (x - mu) ** 2 / s2
        b = lnorm - 0.5 * (x + mu) ** 2 / s2
        ab = np.logaddexp(a, b)
        lg = np.log(0.5) + logw + ab
        f = logsumexp(lg, axis=1)
        res = f - y
        loss = math.sqrt(float(res @ res))
        e = (res / loss)[:, None]
        p_k = np.exp(lg - f[:, None])
        q = np.exp(a - ab)
        ep = e * p_k
        d_mu = (q * (x - mu) - (1.0 - q) * (x + mu)) / s2
        d_s2 = -0.5 / s2 + 0.5 * (q * (x - mu) ** 2 + (1.0 - q) * (x + mu) ** 2) / s2 ** 2
        w = np.exp(logw)
        grad = np.concatenate([(ep * d_mu).sum(0), (ep * d_s2).sum(0) * 2.0 * e2,
                               ep.sum(0) - e.sum() * w])
        return loss, grad

    fit = minimize(loss_grad, p0, jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    mu, sd = fit.x[:K], np.exp(fit.x[K:2 * K])
    pi = np.exp(log_softmax(fit.x[2 * K:]))
    return [np.concatenate([mu, -mu]), np.concatenate([sd, sd]),
            np.concatenate([0.5 * pi, 0.5 * pi])], fit.fun


def x_corr_tvd(params, C):
    """½∫|f − logistic| of N(0, C) + V_corr, on a fine grid (a check of the fit)."""
    mus, sds, pis = params
    x = np.linspace(-40.0, 40.0, 80001)[:, None]
    s2 = sds ** 2 + C
    f = (pis * np.exp(-0.5 * (x - mus) ** 2 / s2) / np.sqrt(2 * np.pi * s2)).sum(1)
    g = np.exp(-np.abs(x[:, 0])) / (1.0 + np.exp(-np.abs(x[:, 0]))) ** 2
    return 0.5 * np.abs(f - g).sum() * (x[1, 0] - x[0, 0])


def neurips_barker(barker_mog, X_corr, have_torch, iters):
    """The authors' run_dp_Barker with mog_main.py's settings; (s per iteration, iterations run,
    acceptance, early exit, V_corr note)."""
    N, B = NEURIPS_N, NEURIPS_BATCH
    rng = np.random.RandomState(123)  # main.py line 29 seeds numpy with 123 before its data
    comp2 = rng.rand(N) > 0.5
    data = rng.normal(0.0, np.sqrt(2.0), N) + np.where(comp2, 0.0, 1.0)  # thetas = [0, 1]
    temp_scale = 100 / N
    privacy_pars = {"noise_scale": np.sqrt(NEURIPS_NOISE_VARIANCE),
                    "clip": [0, 0.99 * np.sqrt(B) / temp_scale / N]}
    C = float(np.round(privacy_pars["noise_scale"] ** 2))
    if have_torch:
        import torch
        torch.manual_seed(123)
        with contextlib.redirect_stdout(io.StringIO()):
            xcorr = X_corr.get_x_corr_params(x_max=XCORR_X_MAX, n_points=XCORR_POINTS, C=C,
                                             path_to_file="no_write")
        how = "their get_x_corr_params (torch)"
    else:
        xcorr, _ = fit_x_corr_numpy(C)
        how = "their objective fitted with scipy (no torch)"
    note = f"V_corr: {how}, TVD of N(0, {C:g}) + V_corr to the logistic {x_corr_tvd(xcorr, C):.2g}"
    np.random.seed(123)  # main.py lines 117-118
    random.seed(123)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        start = time.perf_counter()
        _, n_accepted, sample_vars = barker_mog.run_dp_Barker(
            iters, NEURIPS_PROP_VAR, np.array([0.0, 1.0]), data, privacy_pars, xcorr,
            XCORR_POINTS, batch_size=B, temp_scale=temp_scale)
        seconds = time.perf_counter() - start
    early = "Batch var > 1, exit" in out.getvalue()
    done = len(sample_vars) - (1 if early else 0)  # the exiting iteration appended its variance
    return seconds / max(done, 1), done, n_accepted[0] / max(done, 1), early, note


# ---------------------------------------------------------------------------------------------
# Case 2: DP penalty in numpy


def numpy_dp_penalty(X, iters, buffered, seed=1):
    """Our numpy DP-penalty loop on the banana (see the module docstring); (s per iteration,
    acceptance). buffered: the per-row arrays live in preallocated buffers (ufuncs with out=,
    the accepted proposal's buffer swapped into the cache); otherwise plain array expressions,
    each allocating its temporaries."""
    a, b, m = BANANA["a"], BANANA["b"], BANANA["m"]
    v1, v2 = BANANA["lik_var"]
    pv = BANANA["prior_var"]
    tau, clip, sd = PENALTY["tau"], PENALTY["clip"], PENALTY["proposal_sd"]
    n = X.shape[0]
    x1, x2 = np.ascontiguousarray(X[:, 0]), np.ascontiguousarray(X[:, 1])
    lik_const = -0.5 * math.log(4.0 * math.pi * math.pi * v1 * v2)
    noise_mult = tau * math.sqrt(n)
    p1, p2 = 1.0 / v1, 1.0 / v2
    tmp, ratio = np.empty(n), np.empty(n)

    def loglik_rows(th, out=None):
        u = th[1] + a * (th[0] - m) ** 2 + b
        if out is None:
            return lik_const - 0.5 * ((x1 - th[0]) ** 2 * p1 + (x2 - u) ** 2 * p2)
        np.subtract(x1, th[0], out=out)
        np.square(out, out=out)
        out *= p1
        np.subtract(x2, u, out=tmp)
        np.square(tmp, out=tmp)
        np.multiply(tmp, p2, out=tmp)
        out += tmp
        out *= -0.5
        out += lik_const
        return out

    def clipped_sum(llp, llc, bound):
        if not buffered:
            return np.clip(llp - llc, -bound, bound).sum()
        np.subtract(llp, llc, out=ratio)
        np.clip(ratio, -bound, bound, out=ratio)
        return ratio.sum()

    def log_prior(th):
        u = th[1] + a * (th[0] - m) ** 2 + b
        return -0.5 * (th[0] ** 2 + u ** 2) / pv

    rng = np.random.default_rng(seed)
    cur = np.array(PENALTY["theta0"])
    llc = loglik_rows(cur, np.empty(n) if buffered else None)
    spare = np.empty(n) if buffered else None
    lpc = log_prior(cur)
    accepted = 0
    start = time.perf_counter()
    for _ in range(iters):
        prop = cur + sd * rng.standard_normal(2)
        llp = loglik_rows(prop, spare)
        bound = clip * math.sqrt(float((prop - cur) @ (prop - cur)))
        r = clipped_sum(llp, llc, bound)
        sigma = noise_mult * 2.0 * bound
        lpp = log_prior(prop)
        lam = r + sigma * rng.standard_normal() + lpp - lpc
        if math.log(rng.random()) < lam - 0.5 * sigma * sigma:
            if buffered:
                spare = llc  # the old cache becomes the next proposal's buffer
            cur, llc, lpc = prop, llp, lpp
            accepted += 1
    seconds = time.perf_counter() - start
    return seconds / iters, accepted / iters


# ---------------------------------------------------------------------------------------------


def row(case, it_ours, it_theirs, t_ours, t_theirs, acc_ours, acc_theirs):
    print(f"| {case} | {it_ours} | {it_theirs} | {t_ours * 1e6:.1f} | {t_theirs * 1e6:.1f} | "
          f"{t_theirs / t_ours:.1f} | {acc_ours:.3f} | {acc_theirs:.3f} |")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("neurips2019_dir")
    parser.add_argument("--barker-iters", type=int, default=3000,
                        help="iterations of the authors' run_dp_Barker (default 3000)")
    parser.add_argument("--barker-epsilon", type=float, default=1.0,
                        help="dpmcmc's budget for DP Barker (default 1: 17167 iterations)")
    parser.add_argument("--min-penalty-iters", type=int, default=300)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    barker_mog, X_corr, have_torch = import_barker(os.path.abspath(args.neurips2019_dir))

    print("| case | iterations dpmcmc | iterations peer | µs/iter dpmcmc | µs/iter peer | "
          "speed-up | acceptance dpmcmc | acceptance peer |")
    print("|---|---|---|---|---|---|---|---|")
    notes = []
    with tempfile.TemporaryDirectory(prefix="dpmcmc-per-iter-") as tmp:
        # 1. DP Barker
        t_ours, it_ours, acc_ours = dpmcmc_sample(binary, [
            "--model", "mixture-fastmh-2d", "--n", str(NEURIPS_N), "--sampler", "dp-barker",
            "--batch", str(NEURIPS_BATCH), "--noise-variance", str(NEURIPS_NOISE_VARIANCE),
            "--proposal-sd", str(math.sqrt(NEURIPS_PROP_VAR)), "--adapt", "false",
            "--epsilon", str(args.barker_epsilon), "--seed", "1"], os.path.join(tmp, "barker"))
        t_theirs, it_theirs, acc_theirs, early, note = neurips_barker(
            barker_mog, X_corr, have_torch, args.barker_iters)
        row("DP Barker, mixture n = 10⁶, batch 1000, σ² = 2 (NeurIPS-2019 run_dp_Barker)",
            it_ours, it_theirs, t_ours, t_theirs, acc_ours, acc_theirs)
        notes.append(note)
        if early:
            notes.append(f"run_dp_Barker exited early (batch var > 1) after {it_theirs} "
                         f"of {args.barker_iters} iterations")

        # 2. DP penalty
        csv = os.path.join(tmp, "banana.csv")
        subprocess.run([binary, "simulate", "--model", "banana-flat-2d", "--n",
                        str(PENALTY["n"]), "--seed", "1", "--out", csv], check=True,
                       stdout=subprocess.DEVNULL)
        X = np.loadtxt(csv, delimiter=",", skiprows=1)
        t_ours, it_ours, acc_ours = dpmcmc_sample(binary, [
            "--model", "banana-flat-2d", "--data", csv, "--sampler", "dp-penalty",
            "--epsilon", str(PENALTY["epsilon"]), "--tau", str(PENALTY["tau"]),
            "--clip", str(PENALTY["clip"]), "--proposal-sd", str(PENALTY["proposal_sd"]),
            "--adapt", "false", "--init", ",".join(str(v) for v in PENALTY["theta0"]),
            "--seed", "1"], os.path.join(tmp, "penalty"))
        it_theirs = max(it_ours, args.min_penalty_iters)
        for buffered, how in ((True, "numpy, preallocated buffers"),
                              (False, "numpy, plain expressions")):
            t_theirs, acc_theirs = numpy_dp_penalty(X, it_theirs, buffered)
            row(f"DP penalty, banana-flat-2d n = 10⁵, ε = 4, τ = 0.1 ({how})", it_ours,
                it_theirs, t_ours, t_theirs, acc_ours, acc_theirs)
    print()
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
