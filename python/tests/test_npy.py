"""A .npy data file as numpy.save writes it (C or Fortran order) gives the same draws as the same
rows in CSV: the reader agrees with numpy's own writer, not only with the format as we read it."""
import numpy as np

import dpmcmc


def test_npy_in_either_order_gives_the_csv_draws(tmp_path):
    rng = np.random.default_rng(3)
    rows = np.column_stack([rng.normal(0, 4, 500), rng.normal(3, 5, 500)])
    csv = tmp_path / "rows.csv"
    np.savetxt(csv, rows, delimiter=",", header="x.1,x.2", comments="", fmt="%.17g")
    np.save(tmp_path / "c.npy", np.ascontiguousarray(rows))
    np.save(tmp_path / "f.npy", np.asfortranarray(rows))
    draws = {}
    for name in ["rows.csv", "c.npy", "f.npy"]:
        fit = dpmcmc.sample("banana-tempered-2d", sampler="rwmh", data=tmp_path / name, chains=1,
                            seed=5, iter=200, warmup=100, out=tmp_path / ("run-" + name))
        draws[name] = fit.draws
    assert np.array_equal(draws["rows.csv"], draws["c.npy"])
    assert np.array_equal(draws["rows.csv"], draws["f.npy"])


def test_npy_of_another_dtype_is_refused_with_the_conversion(tmp_path):
    np.save(tmp_path / "f4.npy", np.zeros((10, 2), dtype=np.float32))
    try:
        dpmcmc.sample("banana-tempered-2d", sampler="rwmh", data=tmp_path / "f4.npy", iter=10)
    except dpmcmc.DataError as e:
        assert "'<f4'" in str(e) and "dtype='<f8'" in str(e)
    else:
        raise AssertionError("a float32 array was accepted")


def test_the_same_values_in_csv_and_npy_are_one_dataset_in_the_ledger(tmp_path):
    """Registered from its CSV, the dataset is found when a run reads the .npy copy (named by
    the preset's columns), so the run is tracked and counts against the same budget."""
    rng = np.random.default_rng(8)
    rows = np.column_stack([rng.normal(0, 4, 3000), rng.normal(3, 5, 3000)])
    csv = tmp_path / "rows.csv"
    np.savetxt(csv, rows, delimiter=",", header="x.1,x.2", comments="", fmt="%.17g")
    npy = tmp_path / "rows.npy"
    np.save(npy, rows)
    ledger = tmp_path / "ledger.sqlite"
    entry = dpmcmc.ledger_init(csv, epsilon=2.0, delta=1e-5, ledger=ledger)
    shown = dpmcmc.ledger_show(npy, model="banana-tempered-2d", ledger=ledger)
    assert shown["datasets"][0]["hash"] == entry["datasets"][0]["hash"]
    fit = dpmcmc.sample("banana-tempered-2d", sampler="dp-penalty", data=npy, epsilon=1.0,
                        delta=1e-6, chains=1, seed=2, ledger=ledger, out=tmp_path / "run")
    assert fit.curator["budget_across_runs"]["tracked"]
