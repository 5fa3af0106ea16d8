"""Shared data for the Python package's tests: a simulated logistic-regression data set with a
public schema, as a user would hold it (arrays) and as files (for the command line)."""
import json
import os

import numpy as np
import pytest

BINARY = os.environ.get("DPMCMC_BINARY", "")

SCHEMA = {
    "columns": [
        {"name": "age", "role": "feature", "type": "real", "bounds": [20, 80]},
        {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10]},
        {"name": "outcome", "role": "target", "type": "binary"},
    ]
}


@pytest.fixture(scope="session")
def rows():
    rng = np.random.default_rng(11)
    n = 400
    X = np.column_stack([rng.uniform(20, 80, n), rng.uniform(0, 10, n)])
    eta = -0.5 + 1.2 * (X[:, 0] - 50) / 30 - 0.8 * (X[:, 1] - 5) / 5
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    return X, y


@pytest.fixture
def files(tmp_path, rows):
    """The rows as a CSV file and the schema as a JSON file."""
    X, y = rows
    data = tmp_path / "patients.csv"
    with open(data, "w") as f:
        f.write("age,dose,outcome\n")
        for (a, d), t in zip(X, y):
            f.write(f"{a!r},{d!r},{t}\n")
    schema = tmp_path / "patients.json"
    schema.write_text(json.dumps(SCHEMA))
    return data, schema
