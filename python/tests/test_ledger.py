"""The budget ledger from Python: the same rules and messages as `dpmcmc ledger` and `sample`."""
import os
import stat

import pytest

import dpmcmc
from conftest import SCHEMA


def test_a_registered_dataset_refuses_the_run_that_would_exceed_its_budget(tmp_path, rows, files):
    """One run at epsilon 0.9 composes to about 0.78 at the ledger's delta 1e-5; two to about
    1.15 (Gaussian mechanism, mu = 0.215 and 0.304), over the budget of 1: the second is refused
    before any release."""
    X, y = rows
    data, schema = files
    ledger = tmp_path / "ledger.sqlite"
    entry = dpmcmc.ledger_init(X=X, y=y, schema=SCHEMA, epsilon=1.0, delta=1e-5,
                               label="patients", ledger=ledger)
    assert entry["datasets"][0]["label"] == "patients"
    assert stat.S_IMODE(os.stat(ledger).st_mode) == 0o600
    # The file holds the same rows: the same dataset, registered once.
    with pytest.raises(dpmcmc.ConfigError, match="registered already"):
        dpmcmc.ledger_init(data, epsilon=5.0, delta=1e-5, ledger=ledger)
    shown = dpmcmc.ledger_show(data, ledger=ledger)
    assert shown["datasets"][0]["hash"] == entry["datasets"][0]["hash"]

    common = dict(sampler="dp-penalty", epsilon=0.9, delta=1e-6, chains=1, seed=3, ledger=ledger)
    fit = dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, out=tmp_path / "a", **common)
    assert fit.curator["budget_across_runs"]["tracked"]
    with pytest.raises(dpmcmc.BudgetRefused, match="refused before any release") as e:
        dpmcmc.sample("logistic", data=data, schema=schema, out=tmp_path / "b", **common)
    assert e.value.exit_code == 77
    assert not (tmp_path / "b" / "chain-1.csv").exists()
    runs = dpmcmc.ledger_export(ledger=ledger)["datasets"][0]["runs"]
    assert [r["status"] for r in runs] == ["completed"]


def test_a_missing_ledger_is_an_error_naming_it(tmp_path):
    with pytest.raises(dpmcmc.NoInputError, match="ledger init"):
        dpmcmc.ledger_show(ledger=tmp_path / "none.sqlite")


def test_release_once_is_tracked_and_a_subsampled_sampler_needs_the_basic_rule(tmp_path, rows):
    """dp-nss reserves its single release; under the default gaussian rule a sampler with
    subsampled releases (dp-sgld with fixed-size batches, the substitute relation like dp-nss)
    is refused before any release, with the rule to use instead."""
    X, y = rows
    ledger = tmp_path / "ledger.sqlite"
    dpmcmc.ledger_init(X=X, y=y, schema=SCHEMA, epsilon=3.0, delta=1e-5, ledger=ledger)
    fit = dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, sampler="dp-nss", epsilon=1.0,
                        delta=1e-6, chains=1, seed=5, ledger=ledger, out=tmp_path / "nss")
    assert fit.curator["budget_across_runs"]["status"] == "completed"
    with pytest.raises(dpmcmc.ConfigError, match="--composition basic"):
        dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, sampler="dp-sgld", epsilon=1.0,
                      delta=1e-6, chains=1, seed=5, step_size=1e-4, clip=1.0, batch=40,
                      batch_sampling="without_replacement",
                      ledger=ledger, out=tmp_path / "sgld")
    assert not (tmp_path / "sgld" / "chain-1.csv").exists()
    runs = dpmcmc.ledger_export(ledger=ledger)["datasets"][0]["runs"]
    assert [(r["sampler"], r["status"]) for r in runs] == [("dp-nss", "completed")]
