"""Coefficients per unit of the schema's features and Fit.predict: checked against numpy on the
fit's own draws, with the schema's encoding written out here (age on [20, 80]: x = (age - 50)/30;
dose on [0, 10]: x = (dose - 5)/5)."""
import numpy as np
import pytest

import dpmcmc
from conftest import SCHEMA


def test_original_units_and_predict_follow_the_draws(tmp_path, rows):
    X, y = rows
    fit = dpmcmc.sample("logistic", X=X, y=y, schema=SCHEMA, out=tmp_path / "fit", seed=5,
                        chains=2, iter=300, warmup=300)
    beta = fit.draws.reshape(-1, fit.draws.shape[-1])  # (draws, intercept age dose)
    names = [row["name"] for row in fit.original_units]
    assert names == ["intercept", "age", "dose"]
    age = fit.original_units[1]
    assert age["q50"] == pytest.approx(np.quantile(beta[:, 1] / 30, 0.5), rel=1e-12)
    assert age["odds_ratio"]["q95"] == pytest.approx(np.exp(np.quantile(beta[:, 1] / 30, 0.95)),
                                                     rel=1e-12)
    intercept = beta[:, 0] - beta[:, 1] * 50 / 30 - beta[:, 2]  # the predictor at age 0, dose 0
    assert fit.original_units[0]["mean"] == pytest.approx(intercept.mean(), rel=1e-9)

    new = np.array([[50.0, 5.0], [20.0, 10.0], [75.0, 2.5]])
    design = np.column_stack([np.ones(3), (new[:, 0] - 50) / 30, (new[:, 1] - 5) / 5])
    expected = (1 / (1 + np.exp(-(design @ beta.T)))).mean(axis=1)
    np.testing.assert_allclose(fit.predict(new), expected, rtol=1e-9)
    full = fit.predict(new, draws=True)
    assert full["draws"].shape == (3, beta.shape[0])
    assert np.all(full["q5"] <= full["mean"]) and np.all(full["mean"] <= full["q95"])

    csv = tmp_path / "new.csv"
    csv.write_text("age,dose\n50,5\n20,10\n75,2.5\n")
    np.testing.assert_allclose(fit.predict(data=csv), expected, rtol=1e-9)
    with pytest.raises(dpmcmc.DataError, match="line 2, column 1"):
        fit.predict(np.array([[95.0, 5.0]]))  # age outside [20, 80], which SCHEMA rejects
    with pytest.raises(dpmcmc.UsageError):
        fit.predict()


def test_a_preset_fit_has_no_original_units_and_cannot_predict(tmp_path):
    fit = dpmcmc.sample("banana-tempered-2d", out=tmp_path / "b", iter=50, warmup=50, chains=1)
    assert fit.original_units == []
    with pytest.raises(dpmcmc.ConfigError):
        fit.predict(np.zeros((1, 2)))
