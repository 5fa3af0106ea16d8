"""Held-out accuracy of the posterior-mean classifier: the mean of the published draws of every
coefficient, applied to the test rows rescaled by the schema's declared bounds exactly as dpmcmc
rescales the training rows (x -> 2 (x - low) / (high - low) - 1, clipped to the bounds).

    python3 examples/breast-cancer/evaluate.py SCHEMA TEST_CSV RUN_DIR [RUN_DIR ...]
"""
import csv
import glob
import json
import os
import sys

import numpy as np


def posterior_mean(run_dir):
    """Mean of each parameter over every chain's kept draws (the Stan CSVs of the run)."""
    rows, header = [], None
    for path in sorted(glob.glob(os.path.join(run_dir, "chain-*.csv"))):
        with open(path) as f:
            lines = [line for line in f if not line.startswith("#")]
        r = csv.reader(lines)
        header = next(r)
        rows += [[float(v) for v in row] for row in r]
    draws = np.array(rows)
    return dict(zip(header, draws.mean(axis=0)))


def design(schema, test_csv):
    features = [c for c in schema["columns"] if c["role"] == "feature"]
    target = next(c for c in schema["columns"] if c["role"] == "target")
    with open(test_csv) as f:
        rows = list(csv.DictReader(f))
    X = np.array([[float(r[c["name"]]) for c in features] for r in rows])
    low = np.array([c["bounds"][0] for c in features])
    high = np.array([c["bounds"][1] for c in features])
    X = 2 * (np.clip(X, low, high) - low) / (high - low) - 1
    y = np.array([target["levels"].index(r[target["name"]]) for r in rows])
    return [c["name"] for c in features], X, y


def accuracy(schema, test_csv, run_dir):
    names, X, y = design(schema, test_csv)
    m = posterior_mean(run_dir)
    eta = m["intercept"] + X @ np.array([m[n] for n in names])
    return float(np.mean((eta > 0) == (y == 1)))


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    for run in sys.argv[3:]:
        print(f"{run}: held-out accuracy {accuracy(schema, sys.argv[2], run):.4f}")
