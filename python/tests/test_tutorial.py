"""The tutorial's non-private claims (docs/tutorial.md), on Debian's copy of the breast cancer
data: NUTS on the tutorial's schema agrees with an independent importance-sampling reference
(examples/breast-cancer/reference.py) within Monte Carlo error, and its posterior-mean classifier
is accurate on the held-out rows."""
import os
import sys

import numpy as np
import pytest

import dpmcmc

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "breast-cancer")
sys.path.insert(0, EXAMPLE)
pytest.importorskip("sklearn")

import evaluate  # noqa: E402
import prepare  # noqa: E402
import reference  # noqa: E402


def test_nuts_agrees_with_the_independent_reference(tmp_path):
    prepare.main(str(tmp_path))
    schema_file = os.path.join(EXAMPLE, "schema.json")
    fit = dpmcmc.sample("logistic", data=tmp_path / "train.csv", schema=schema_file,
                        sampler="nuts", chains=4, seed=1, out=tmp_path / "nuts")
    import json
    with open(schema_file) as f:
        schema = json.load(f)
    names, X, y = evaluate.design(schema, tmp_path / "train.csv")
    X = np.column_stack([np.ones(len(y)), X])
    mean, sd, se, ess = reference.reference(X, y.astype(float), 200000)
    assert ess > 50000
    summary = {p["name"]: p for p in fit.summary}
    # 11 parameters, |z| < 4 each: a false alarm probability below 1e-3 for the family when both
    # errors are normal with the reported standard errors.
    for j, name in enumerate(["intercept"] + names):
        z = (summary[name]["mean"] - mean[j]) / np.hypot(summary[name]["mcse_mean"], se[j])
        assert abs(z) < 4, (name, summary[name]["mean"], mean[j])
        assert summary[name]["rhat"] < 1.01
    accuracy = evaluate.accuracy(schema, tmp_path / "test.csv", tmp_path / "nuts")
    assert accuracy > 0.9
