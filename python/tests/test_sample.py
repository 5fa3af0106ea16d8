"""dpmcmc.sample: shapes and names, the same draws as the command line, what a private run
returns, reproducibility and the GIL."""
import csv
import subprocess
import threading
import time

import numpy as np
import pytest

import dpmcmc
from conftest import BINARY, SCHEMA


def read_chain_csv(path):
    """A Stan CSV's header and values (comment lines skipped)."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    reader = csv.reader(lines)
    header = next(reader)
    return header, np.array([[float(v) for v in row] for row in reader])


def test_preset_draws_have_chain_draw_parameter_axes(tmp_path):
    fit = dpmcmc.sample("banana-tempered-2d", sampler="nuts", chains=3, seed=4, iter=150,
                        warmup=150, out=tmp_path / "run")
    assert fit.draws.shape == (3, 150, 2)
    assert fit.param_names == ["theta.1", "theta.2"]
    d = fit.to_dict()
    assert set(d["posterior"]) == {"theta.1", "theta.2"}
    assert d["posterior"]["theta.1"].shape == (3, 150)
    assert {"lp", "acceptance_rate", "step_size", "tree_depth", "diverging", "n_steps"} <= set(d["sample_stats"])
    assert not fit.private and fit.curator is None
    assert [p["name"] for p in fit.summary][-2:] == ["theta.1", "theta.2"]
    assert (tmp_path / "run" / "report.json").exists()


def test_same_seed_same_draws_and_a_different_seed_differs(tmp_path):
    a = dpmcmc.sample("banana-tempered-2d", sampler="rwmh", chains=2, seed=9, iter=50, warmup=50,
                      out=tmp_path / "a")
    b = dpmcmc.sample("banana-tempered-2d", sampler="rwmh", chains=2, seed=9, iter=50, warmup=50,
                      out=tmp_path / "b")
    c = dpmcmc.sample("banana-tempered-2d", sampler="rwmh", chains=2, seed=10, iter=50, warmup=50,
                      out=tmp_path / "c")
    assert np.array_equal(a.draws, b.draws)
    assert not np.array_equal(a.draws, c.draws)


@pytest.mark.parametrize("in_memory", [True, False])
def test_private_run_gives_the_command_lines_draws(tmp_path, rows, files, in_memory):
    """Same seed and noise key: Python (arrays or files) and the CLI give the same draws, bit for
    bit (the CSV holds 17 significant digits, which read back as the same doubles)."""
    data, schema = files
    key = tmp_path / "run.key"
    common = ["--model", "logistic", "--sampler", "dp-penalty", "--epsilon", "4", "--chains", "2",
              "--seed", "21", "--noise-key-file", str(key), "--quiet"]
    cli_out = tmp_path / "cli"
    subprocess.run([BINARY, "sample", *common, "--schema", str(schema), "--data", str(data),
                    "--out", str(cli_out)], check=True, capture_output=True)
    X, y = rows
    source = dict(X=X, y=y, schema=SCHEMA) if in_memory else dict(data=data, schema=schema)
    fit = dpmcmc.sample("logistic", sampler="dp-penalty", epsilon=4.0, chains=2, seed=21,
                        noise_key_file=key, out=tmp_path / "py", **source)
    assert fit.private
    for chain in range(2):
        header, values = read_chain_csv(cli_out / f"chain-{chain + 1}.csv")
        assert header == fit.columns
        assert values.shape == fit.chains[chain].shape
        for j, name in enumerate(header):
            if name == "lp__":
                continue  # not published by a private run (NaN in both)
            assert np.array_equal(values[:, j], fit.chains[chain][:, j]), name


def test_private_run_publishes_only_the_csv_columns_and_hands_the_curator_report_apart(tmp_path,
                                                                                       rows):
    X, y = rows
    fit = dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, sampler="dp-penalty", epsilon=4.0,
                        chains=2, seed=3, out=tmp_path / "run")
    assert fit.param_names == ["intercept", "age", "dose"]
    assert "clip_frac__" not in fit.columns  # computed from the private rows without noise
    assert fit.curator is not None and "data_preparation" in fit.curator
    assert fit.curator_dir == str(tmp_path / "run") + ".curator"
    planned, recorded = fit.epsilon_planned, fit.epsilon_recorded
    assert set(planned) == set(recorded) and "pld-gaussian" in recorded
    # The tightest certified accountant's recorded ε is within the budget.
    tightest = fit.report["privacy"]["planned_by"]
    assert recorded[tightest] <= 4.0 * (1 + 1e-9)
    assert abs(recorded[tightest] - planned[tightest]) < 1e-6


def test_sampling_releases_the_gil(tmp_path):
    """A Python thread keeps running while the chains sample."""
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    t = threading.Thread(target=count)
    t.start()
    start = time.monotonic()
    try:
        dpmcmc.sample("banana-tempered-2d", sampler="nuts", chains=2, seed=1, iter=800,
                      warmup=800, threads=1, out=tmp_path / "run")
    finally:
        elapsed = time.monotonic() - start
        done.set()
        t.join()
    during = [x for x in ticks if start < x < start + elapsed]
    # With the GIL held the counter would not tick at all while sampling; it ticks every ~5 ms
    # when released (a loaded machine may delay it, hence a tenth of the ideal count).
    assert elapsed > 0.2, "the run was too short to tell"
    assert len(during) >= 0.1 * elapsed / 0.005


def test_xarray_dataset_when_xarray_is_installed(tmp_path):
    xr = pytest.importorskip("xarray")
    fit = dpmcmc.sample("banana-tempered-2d", sampler="nuts", chains=2, seed=4, iter=20, warmup=20,
                        out=tmp_path / "run")
    ds = fit.to_xarray()
    assert isinstance(ds, xr.Dataset) and ds["theta.1"].shape == (2, 20)
