"""dpmcmc.advise: the command line's ranking, in-process, from a schema dict or file; no rows."""
import json
import subprocess

import pytest

import dpmcmc
from conftest import BINARY, SCHEMA


def test_advise_is_the_command_lines_answer(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    from_dict = dpmcmc.advise("logistic", schema=SCHEMA, n=20000, epsilon=1.0, delta=1e-5)
    from_file = dpmcmc.advise("logistic", schema=path, n=20000, epsilon=1.0, delta=1e-5)
    assert from_dict["samplers"] == from_file["samplers"]
    assert [s["sampler"] for s in from_dict["samplers"]][0] == "dp-nss"
    if BINARY:
        cli = subprocess.run([BINARY, "advise", "--model", "logistic", "--schema", str(path),
                              "--n", "20000", "--epsilon", "1", "--delta", "1e-5", "--json"],
                             check=True, capture_output=True, text=True)
        assert json.loads(cli.stdout)["samplers"] == from_file["samplers"]


def test_the_penalty_reach_grows_with_rows_and_fewer_chains():
    def reach(**kw):
        answer = dpmcmc.advise("logistic", schema=SCHEMA, epsilon=1.0, delta=1e-5, **kw)
        return next(s["reach"] for s in answer["samplers"] if s["sampler"] == "dp-penalty")

    base = reach(n=2000)
    assert reach(n=20000)["draws_per_chain"] == pytest.approx(10 * base["draws_per_chain"])
    assert reach(n=2000, chains=1)["draws_per_chain"] == pytest.approx(
        4 * base["draws_per_chain"])
    assert reach(n=20000)["travel"] == base["travel"]


def test_advise_refuses_bad_input_with_the_cli_codes():
    with pytest.raises(dpmcmc.UsageError) as e:
        dpmcmc.advise("logistic", schema=SCHEMA, n=0, epsilon=1.0)
    assert e.value.exit_code == 64 and "--n" in str(e.value)
    with pytest.raises(dpmcmc.UsageError):
        dpmcmc.advise("logistic", schema=SCHEMA, n=100, epsilon=1.0, chains=0)
    broken = {"columns": [{"name": "y", "role": "target", "type": "binary"},
                          {"name": "x", "role": "feature", "type": "real"}]}  # no bounds
    with pytest.raises(dpmcmc.Error) as e:
        dpmcmc.advise("logistic", schema=broken, n=100, epsilon=1.0)
    assert "bounds" in str(e.value)
