"""Errors reach Python as exceptions with the command line's message and exit code, and Ctrl-C
stops a run cleanly."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dpmcmc
from conftest import BINARY, SCHEMA


def cli_error(*args):
    r = subprocess.run([BINARY, "sample", *args], capture_output=True, text=True)
    return r.returncode, r.stderr


def test_bad_option_value_is_the_clis_usage_error(tmp_path):
    with pytest.raises(dpmcmc.UsageError) as e:
        dpmcmc.sample("banana-tempered-2d", sampler="nuts", chains=0, out=tmp_path / "run")
    code, stderr = cli_error("--model", "banana-tempered-2d", "--chains", "0", "--out",
                             str(tmp_path / "cli"))
    assert e.value.exit_code == code == 64
    assert str(e.value) in stderr


def test_unknown_option_is_a_usage_error(tmp_path):
    with pytest.raises(dpmcmc.UsageError, match="--no-such-option"):
        dpmcmc.sample("banana-tempered-2d", no_such_option=1, out=tmp_path / "run")


def test_unknown_family_or_preset(tmp_path, rows):
    X, y = rows
    with pytest.raises(dpmcmc.UsageError, match="gamma"):
        dpmcmc.sample("gamma", X=X, y=y, schema=SCHEMA, out=tmp_path / "run")


def test_non_binary_target_for_logistic_names_the_row(tmp_path, rows):
    X, y = rows
    y = y.copy()
    y[3] = 2
    with pytest.raises(dpmcmc.DataError) as e:
        dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, sampler="dp-penalty", epsilon=1.0,
                      out=tmp_path / "run")
    assert e.value.exit_code == 65
    assert "line 5" in str(e.value) and "'outcome'" in str(e.value)  # row 3 is line 5


def test_value_outside_bounds_with_reject(tmp_path, rows):
    X, y = rows
    X = X.copy()
    X[0, 1] = 11.0  # dose bounds [0, 10], "outside" defaults to reject
    with pytest.raises(dpmcmc.DataError, match="dose"):
        dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, out=tmp_path / "run")


def test_missing_cell_without_impute(tmp_path, rows):
    X, y = rows
    X = X.copy()
    X[7, 0] = np.nan
    with pytest.raises(dpmcmc.DataError, match="missing"):
        dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, out=tmp_path / "run")


def test_schema_error_is_a_config_error(tmp_path, rows):
    X, y = rows
    bad = {"columns": [dict(c) for c in SCHEMA["columns"]]}
    del bad["columns"][0]["bounds"]
    with pytest.raises(dpmcmc.ConfigError, match="bounds"):
        dpmcmc.sample("logistic", X=X, y=y, schema=bad, out=tmp_path / "run")


def test_wrong_shapes_are_usage_errors(tmp_path, rows):
    X, y = rows
    with pytest.raises(dpmcmc.UsageError, match=r"one column per schema feature"):
        dpmcmc.sample("logistic", X=X[:, :1], y=y, schema=SCHEMA, out=tmp_path / "run")
    with pytest.raises(dpmcmc.UsageError, match="one per row"):
        dpmcmc.sample("logistic", X=X, y=y[:-1], schema=SCHEMA, out=tmp_path / "run")
    with pytest.raises(dpmcmc.UsageError, match="schema"):
        dpmcmc.sample("logistic", X=X, y=y, out=tmp_path / "run")


def test_missing_data_file_is_a_no_input_error(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text('{"columns": [{"name": "y", "role": "target", "type": "binary"}]}')
    with pytest.raises(dpmcmc.NoInputError) as e:
        dpmcmc.sample("logistic", data=tmp_path / "absent.csv", schema=schema,
                      out=tmp_path / "run")
    assert isinstance(e.value, FileNotFoundError) and e.value.exit_code == 66


def test_ctrl_c_stops_the_run_cleanly(tmp_path):
    """SIGINT during sampling: the chains stop at their next iteration, the partial draws and
    report are written, and Python raises dpmcmc.Interrupted (a KeyboardInterrupt)."""
    out = tmp_path / "run"
    script = textwrap.dedent(f"""
        import sys, dpmcmc
        print("started", flush=True)
        try:
            dpmcmc.sample("banana-tempered-2d", sampler="nuts", chains=2, seed=1,
                          iter=10**7, warmup=10, threads=2, out={str(out)!r})
        except dpmcmc.Interrupted as e:
            print("interrupted", e.out_dir, flush=True)
            sys.exit(3)
        sys.exit(0)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline().strip() == "started"
    # Wait until the chains write draws (chain-1.csv.part until the run ends), then interrupt.
    deadline = time.monotonic() + 60
    while not (out / "chain-1.csv.part").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    try:
        stdout, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    assert p.returncode == 3, stdout
    assert "interrupted" in stdout
    assert (out / "report.json").exists()
    last = (out / "chain-1.csv").read_text().splitlines()[-1]
    assert last.startswith("#") and "interrupted" in last.lower(), last


def test_numpy_scalars_booleans_and_integer_codes_are_accepted(tmp_path, rows):
    """Option values from NumPy (np.float64, np.int64), a boolean target and integer-coded
    categories reach the engine as the CLI would read them."""
    X, y = rows
    schema = {"columns": [
        {"name": "age", "role": "feature", "type": "real", "bounds": [20, 80]},
        {"name": "site", "role": "feature", "type": "categorical", "levels": ["0", "1", "2"]},
        {"name": "outcome", "role": "target", "type": "binary"}]}
    sites = (np.arange(len(y)) % 3).astype(np.int64)
    fit = dpmcmc.sample("logistic", X=np.column_stack([X[:, 0].astype(np.int64), sites]),
                        y=y.astype(bool), schema=schema, sampler="dp-nss",
                        epsilon=np.float64(2.0), chains=np.int64(2), iter=np.int64(50),
                        warmup=50, seed=1, out=tmp_path / "run")
    assert fit.param_names == ["intercept", "age", "site_1", "site_2"]


def test_a_schema_with_nan_is_a_config_error(tmp_path, rows):
    X, y = rows
    bad = {"columns": [dict(c) for c in SCHEMA["columns"]]}
    bad["columns"][0]["bounds"] = [float("nan"), 80]
    with pytest.raises(dpmcmc.ConfigError, match="JSON"):
        dpmcmc.sample("logistic", X=X, y=y, schema=bad, out=tmp_path / "run")


def test_an_output_directory_another_run_writes_is_output_busy(tmp_path):
    """A directory another process holds (its flock, as a running dpmcmc holds it) is refused
    before anything is written; once released the same call runs."""
    import fcntl
    out = tmp_path / "run"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(dpmcmc.OutputBusy) as e:
            dpmcmc.sample("banana-tempered-2d", sampler="rwmh", iter=50, warmup=50, chains=1,
                          seed=1, out=out)
        assert e.value.exit_code == 75
        assert isinstance(e.value, dpmcmc.Busy) and not isinstance(e.value, dpmcmc.LedgerBusy)
        assert "--out" in str(e.value) and not (out / "report.json").exists()
    finally:
        os.close(fd)
    dpmcmc.sample("banana-tempered-2d", sampler="rwmh", iter=50, warmup=50, chains=1, seed=1,
                  out=out)
    assert (out / "report.json").exists()


@pytest.mark.parametrize("option", ["seed", "warmup", "thin", "iter"])
def test_negative_count_is_refused_as_on_the_command_line(tmp_path, option):
    # A negative count once wrapped to 2^64 - k (seed=-1 ran as a huge seed, warmup=-1 ran out of
    # memory, thin=-1 kept one draw): the in-process parse refuses it as the CLI does.
    with pytest.raises(dpmcmc.UsageError) as e:
        dpmcmc.sample("banana-tempered-2d", out=tmp_path / "run", **{option: -1})
    code, stderr = cli_error("--model", "banana-tempered-2d", f"--{option}", "-1", "--out",
                             str(tmp_path / "cli"))
    assert e.value.exit_code == code == 64
    assert f"--{option}" in str(e.value) and "without a sign" in str(e.value)
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


def test_negative_row_count_in_account_is_refused():
    with pytest.raises(dpmcmc.UsageError, match="--n.*without a sign"):
        dpmcmc.account(sampler="dp-penalty", model="banana-tempered-2d", epsilon=1.0, n=-5)
