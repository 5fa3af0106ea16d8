#!/usr/bin/python3
"""DP logistic regression by objective perturbation: the point-estimate baseline of the breast
cancer comparison (docs/tutorial.md). A benchmark, not a private release of ours: the noise comes
from numpy's default_rng(seed), one seed per repeat, so anyone can recompute it.

    /usr/bin/python3 bench/objective_perturbation.py SCHEMA TRAIN_CSV TEST_CSV \
        [--epsilon 1 4] [--seeds 10] [--lambda-grid]

prints `objective-perturbation,EPS,SEED,ACCURACY` lines (held-out accuracy of sign(f.z)) and,
with --lambda-grid, a sensitivity table over a grid of Lambda (it reads the test set: not for the
headline).

Mechanism: Chaudhuri, Monteleoni and Sarwate (2011, JMLR 12, "Differentially private empirical
risk minimization"), Section 3.2, Algorithm 2, **pure epsilon-DP** (Theorem 9; Corollary 11 for
logistic regression). The paper states no (epsilon, delta) variant of objective perturbation (the
Gaussian one is Kifer, Smith and Thakurta 2012, not implemented here), so delta is not used: the
output is epsilon-DP, hence (epsilon, delta)-DP for every delta, under the paper's neighbouring
relation (data sets differing in one row, i.e. substitution, the relation of dpmcmc's dp-nss box
sensitivity). Its conditions and the steps, with y in {-1, +1}:

  * rows ||z_i|| <= 1 (Section 3, assumption on the data);
  * loss l(t) = log(1 + e^-t), convex, |l'| <= 1, |l''| <= c = 1/4 (Corollary 11);
  * J(f) = (1/n) sum_i l(y_i f.z_i) + Lambda ||f||^2 / 2 (N(f) = ||f||^2/2 is 1-strongly convex);
  * eps' = eps - log(1 + 2c/(n Lambda) + c^2/(n^2 Lambda^2));
  * if eps' > 0: Delta = 0; else Delta = c / (n (e^(eps/4) - 1)) - Lambda and eps' = eps/2;
  * b with density proportional to exp(-beta ||b||), beta = eps'/2 (the paper's eq. (4)):
    ||b|| ~ Gamma(shape d, scale 2/eps') and b/||b|| uniform on the sphere;
  * f_priv = argmin J(f) + b.f / n + Delta ||f||^2 / 2, solved to high precision (the proof
    assumes the exact minimiser).

Features, exactly as dpmcmc (examples/breast-cancer/evaluate.py's `design`): each feature clipped
to its schema bounds and rescaled to [-1, 1]. The intercept is a constant feature 1, and the row
z = (1, x_1..x_p) / sqrt(p + 1) so that ||z|| <= 1 for every possible row (the max norm of
(1, x) is sqrt(p + 1); no row is looked at). The intercept is thus regularised like every other
coordinate, as the proof needs (N must be 1-strongly convex in all of f). d = p + 1 = 11.

Lambda (headline, public: n, eps, c only): Lambda = c / (n (e^(eps/4) - 1)), the smallest
Lambda at which Algorithm 2 needs no Delta and keeps eps' = eps/2 (half the budget to the log
term, half to the noise). For every Lambda <= c / (n (e^(eps/2) - 1)) the Delta branch gives the
same objective (Lambda + Delta is this value) and the same eps' = eps/2; that includes the ridge
equivalent of the Bayesian model's prior (coefficients N(0, 2.5^2) on the rescaled features, i.e.
f = sqrt(d) beta ~ N(0, 2.5^2 d), Lambda = 1 / (n 2.5^2 d) = 3.2e-5 at n = 455), so the two
a-priori choices coincide at eps = 1 and 4 on this data set.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys

import numpy as np
from scipy.optimize import minimize

C = 0.25  # bound on the logistic loss's second derivative (Corollary 11)


def load_design(schema, csv_path):
    """Rows rescaled by the schema exactly as dpmcmc does (reuses evaluate.py's `design`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "examples", "breast-cancer", "evaluate.py")
    spec = importlib.util.spec_from_file_location("bc_evaluate", path)
    evaluate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluate)
    _, X, y01 = evaluate.design(schema, csv_path)
    Z = np.hstack([np.ones((X.shape[0], 1)), X]) / np.sqrt(X.shape[1] + 1)  # ||z|| <= 1
    return Z, 2.0 * y01 - 1.0  # labels in {-1, +1}


def headline_lambda(n, eps):
    return C / (n * np.expm1(eps / 4))


def plan(n, eps, lam):
    """Algorithm 2's eps' and Delta."""
    eps_p = eps - np.log(1 + 2 * C / (n * lam) + C**2 / (n**2 * lam**2))
    if eps_p > 0:
        return eps_p, 0.0
    return eps / 2, C / (n * np.expm1(eps / 4)) - lam


def noise(rng, d, eps_p):
    """b with density proportional to exp(-(eps'/2) ||b||): Gamma(d, 2/eps') norm, uniform direction."""
    u = rng.standard_normal(d)
    return rng.gamma(shape=d, scale=2.0 / eps_p) * u / np.linalg.norm(u)


def fit(Z, y, reg, b):
    """argmin (1/n) sum l(y f.z) + reg ||f||^2/2 + b.f/n; strictly convex, so trust-exact with
    the exact Hessian reaches the unique minimiser."""
    n, d = Z.shape
    yZ = y[:, None] * Z

    def fun(f):
        m = yZ @ f
        p = np.exp(-np.logaddexp(0.0, m))  # sigmoid(-m) = -l'(m)
        val = np.logaddexp(0.0, -m).mean() + 0.5 * reg * f @ f + b @ f / n
        grad = -(yZ.T @ p) / n + reg * f + b / n
        return val, grad

    def hess(f):
        m = yZ @ f
        w = np.exp(-np.logaddexp(0.0, m) - np.logaddexp(0.0, -m))  # l''(m) <= 1/4
        return (Z.T * w) @ Z / n + reg * np.eye(d)

    res = minimize(fun, np.zeros(d), jac=True, hess=hess, method="trust-exact",
                   options={"gtol": 1e-10, "maxiter": 1000})
    # trust-exact stops with "failure to predict improvement" once rounding dominates; what
    # matters is the gradient at the answer (about 1e-10 here).
    if np.linalg.norm(res.jac) > 1e-8:
        print(f"warning: optimiser: |grad| {np.linalg.norm(res.jac):.2g}: {res.message}", file=sys.stderr)
    return res.x


def private_fit(Z, y, eps, lam, seed):
    n, d = Z.shape
    eps_p, delta = plan(n, eps, lam)
    b = noise(np.random.default_rng(seed), d, eps_p)
    return fit(Z, y, lam + delta, b)


def accuracy(f, Z, y):
    return float(np.mean(np.sign(Z @ f) == y))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("schema")
    ap.add_argument("train")
    ap.add_argument("test")
    ap.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 4.0])
    ap.add_argument("--seeds", type=int, default=10, help="repeats, seeds 1..N")
    ap.add_argument("--lambda-grid", action="store_true")
    a = ap.parse_args()
    with open(a.schema) as fh:
        schema = json.load(fh)
    Z, y = load_design(schema, a.train)
    Zt, yt = load_design(schema, a.test)
    n, d = Z.shape
    seeds = range(1, a.seeds + 1)
    for eps in a.epsilon:
        lam = headline_lambda(n, eps)
        eps_p, delta = plan(n, eps, lam)
        print(f"# eps {eps:g}: n {n}, d {d}, Lambda {lam:.4g}, Delta {delta:.3g}, eps' {eps_p:.4g}, "
              f"E||b||/n {d * 2 / eps_p / n:.3g}", file=sys.stderr)
        for s in seeds:
            print(f"objective-perturbation,{eps:g},{s},{accuracy(private_fit(Z, y, eps, lam, s), Zt, yt):.4f}")
    if a.lambda_grid:
        # Sensitivity only: it reads the test set, so it must not pick the headline's Lambda.
        grid = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]
        print("\n| Lambda | " + " | ".join(f"eps {e:g}: eps', median [min, max]" for e in a.epsilon)
              + " | no noise (Lambda + Delta at eps 1 / 4) |")
        print("|---|" + "---|" * len(a.epsilon) + "---|")
        for lam in sorted(grid + [headline_lambda(n, e) for e in a.epsilon]):
            cells, clean = [], []
            for eps in a.epsilon:
                eps_p, delta = plan(n, eps, lam)
                acc = [accuracy(private_fit(Z, y, eps, lam, s), Zt, yt) for s in seeds]
                cells.append(f"{eps_p:.3g}, {statistics.median(acc):.3f} [{min(acc):.3f}, {max(acc):.3f}]")
                clean.append(f"{accuracy(fit(Z, y, lam + delta, np.zeros(d)), Zt, yt):.3f}")
            tag = " (headline)" if any(np.isclose(lam, headline_lambda(n, e)) for e in a.epsilon) else ""
            print(f"| {lam:.3g}{tag} | " + " | ".join(cells) + " | " + " / ".join(clean) + " |")


if __name__ == "__main__":
    main()
