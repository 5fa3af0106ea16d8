"""An independent reference fit of the tutorial's non-private posterior, to check NUTS against.

The log posterior is written here from scratch with numpy: logistic regression on the training
rows rescaled by the schema's bounds exactly as dpmcmc's design (x -> 2 (x - low)/(high - low) - 1,
clipped to the bounds; an intercept column), with dpmcmc's default priors (intercept normal(0, 10),
coefficients normal(0, 2.5)). Its mode and Hessian (Newton's method) give a Laplace
approximation; self-normalised importance sampling with a multivariate Student-t(5) proposal of
that mean and 1.2 x that covariance corrects it. Posterior means and sds come with their Monte
Carlo standard errors (delta method with the importance weights' effective sample size).

    python3 examples/breast-cancer/reference.py SCHEMA TRAIN_CSV RUN_DIR [--draws 400000]

prints, per parameter, the reference mean and sd, NUTS's (from RUN_DIR's chains and its
report.json MCSE), and the z-score of the difference of the means.
"""
import argparse
import json
import os

import numpy as np

from evaluate import design, posterior_mean  # noqa: F401  (same rescaling as the evaluation)


def log_posterior(beta, X, y):
    eta = X @ beta.T  # (n, m)
    loglik = (y[:, None] * eta - np.logaddexp(0.0, eta)).sum(axis=0)
    prior_sd = np.r_[10.0, np.full(X.shape[1] - 1, 2.5)]
    return loglik - 0.5 * ((beta / prior_sd) ** 2).sum(axis=1)


def laplace(X, y):
    prior_prec = 1.0 / np.r_[10.0, np.full(X.shape[1] - 1, 2.5)] ** 2
    beta = np.zeros(X.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        grad = X.T @ (y - p) - prior_prec * beta
        hess = -(X.T * (p * (1 - p))) @ X - np.diag(prior_prec)
        step = np.linalg.solve(hess, grad)
        beta = beta - step
        if np.abs(step).max() < 1e-12:
            break
    return beta, np.linalg.inv(-hess)


def reference(X, y, draws, seed=1):
    mode, cov = laplace(X, y)
    rng = np.random.default_rng(seed)
    nu, d = 5.0, X.shape[1]
    scale = 1.2 * cov
    chol = np.linalg.cholesky(scale)
    z = rng.standard_normal((draws, d))
    g = rng.chisquare(nu, draws) / nu
    theta = mode + (z @ chol.T) / np.sqrt(g)[:, None]
    # log density of the multivariate t proposal (up to a constant)
    diff = np.linalg.solve(chol, (theta - mode).T).T
    log_q = -0.5 * (nu + d) * np.log1p((diff ** 2).sum(axis=1) / nu)
    log_w = np.concatenate([log_posterior(theta[i:i + 20000], X, y)
                            for i in range(0, draws, 20000)]) - log_q
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    ess = 1.0 / (w ** 2).sum()
    mean = w @ theta
    var = w @ (theta - mean) ** 2
    se_mean = np.sqrt(var / ess)
    return mean, np.sqrt(var), se_mean, ess


def main():
    a = argparse.ArgumentParser()
    a.add_argument("schema")
    a.add_argument("train")
    a.add_argument("run_dir")
    a.add_argument("--draws", type=int, default=400000)
    args = a.parse_args()
    with open(args.schema) as f:
        schema = json.load(f)
    names, X, y = design(schema, args.train)
    X = np.column_stack([np.ones(len(y)), X])
    mean, sd, se, ess = reference(X, y.astype(float), args.draws)
    with open(os.path.join(args.run_dir, "report.json")) as f:
        summary = {p["name"]: p for p in json.load(f)["summary"]["parameters"]}
    print(f"importance sampling: {args.draws} draws, effective sample size {ess:.0f}")
    print(f"{'parameter':<20} {'ref mean':>9} {'ref sd':>7} {'NUTS mean':>10} {'NUTS sd':>8} "
          f"{'z':>6}")
    worst = 0.0
    for j, name in enumerate(["intercept"] + names):
        p = summary[name]
        z = (p["mean"] - mean[j]) / np.hypot(p["mcse_mean"], se[j])
        worst = max(worst, abs(z))
        print(f"{name:<20} {mean[j]:9.4f} {sd[j]:7.4f} {p['mean']:10.4f} {p['sd']:8.4f} "
              f"{z:6.2f}")
    print(f"largest |z| {worst:.2f} over {len(names) + 1} parameters")


if __name__ == "__main__":
    main()
