"""dpmcmc.account gives the command line's --json answer."""
import json
import math
import subprocess

import pytest

import dpmcmc
from conftest import BINARY


def cli_json(*args):
    r = subprocess.run([BINARY, "account", *args, "--json"], check=True, capture_output=True,
                       text=True)
    return json.loads(r.stdout)


def without_timings(x):
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


@pytest.mark.parametrize("options,args", [
    (dict(mechanism="gaussian", sigma=2.0, sensitivity=1.0, delta=1e-5),
     ["--mechanism", "gaussian", "--sigma", "2", "--sensitivity", "1", "--delta", "1e-5"]),
    (dict(sampler="dp-penalty", model="banana-tempered-2d", epsilon=1.0, chains=2),
     ["--sampler", "dp-penalty", "--model", "banana-tempered-2d", "--epsilon", "1", "--chains",
      "2"]),
    (dict(sampler="dp-hmc", model="banana-tempered-2d", iterations=300),
     ["--sampler", "dp-hmc", "--model", "banana-tempered-2d", "--iterations", "300"]),
])
def test_account_matches_the_command_line(options, args):
    assert without_timings(dpmcmc.account(**options)) == without_timings(cli_json(*args))


def test_gaussian_mechanism_epsilon_is_the_analytic_one():
    """One Gaussian release with sensitivity/sigma = mu: the exact epsilon at delta solves
    delta = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Balle and Wang 2018, Theorem 8),
    found here by bisection with math.erfc: 4.3772 for mu = 1, delta = 1e-5."""
    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))

    def delta_of(eps, mu=1.0):
        return phi(mu / 2 - eps / mu) - math.exp(eps) * phi(-mu / 2 - eps / mu)

    lo, hi = 0.0, 20.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_of(mid) > 1e-5 else (lo, mid)
    rows = dpmcmc.account(mechanism="gaussian", sigma=1.0, delta=1e-5, accountants="pld-gaussian")
    assert rows[0]["accountant"] == "pld-gaussian"
    assert rows[0]["epsilon"] == pytest.approx(lo, rel=1e-6)


def test_account_errors_are_usage_errors():
    with pytest.raises(dpmcmc.UsageError) as e:
        dpmcmc.account(mechanism="gaussian", sigma=1.0)
    assert e.value.exit_code == 64 and "--delta" in str(e.value)
