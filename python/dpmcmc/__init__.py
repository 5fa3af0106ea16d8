"""dpmcmc from Python: Bayesian inference on sensitive data under differential privacy.

    import dpmcmc
    fit = dpmcmc.sample(model="logistic", X=X, y=y, schema=schema, sampler="dp-penalty",
                        epsilon=1.0, delta=1e-5, chains=4, seed=1)
    fit.draws              # numpy array (chain, draw, parameter)
    fit.param_names        # ["intercept", "age", ...]
    fit.epsilon_recorded   # {accountant: epsilon composed from the releases the run made}
    az.from_dict(**fit.to_dict())

Every call runs the same code as the command line (`dpmcmc sample`, `account`, `ledger`) with the
same checks and messages: keyword arguments are its options (``noise_key_file="k.key"`` is
``--noise-key-file k.key``), and errors are raised as the exceptions below with the CLI's message
and exit code. Documentation: docs/python.md.
"""

import csv
import io
import json
import math
import os
import tempfile
import warnings

import numpy as np

from . import _core

__all__ = [
    "sample", "account", "advise", "ledger_init", "ledger_show", "ledger_export", "Fit", "Error",
    "UsageError", "DataError", "NoInputError", "ConfigError", "OutputError", "Busy",
    "LedgerBusy", "OutputBusy", "BudgetRefused", "Interrupted",
]


class Error(Exception):
    """A dpmcmc error: the command line's message; ``exit_code`` is the CLI's exit status."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


class UsageError(Error, ValueError):
    """A bad option or option value (the CLI's exit status 64)."""


class DataError(Error, ValueError):
    """Malformed data: a row, cell or value the schema does not allow (65)."""


class NoInputError(Error, FileNotFoundError):
    """An input file that is missing or unreadable (66)."""


class ConfigError(Error, ValueError):
    """A bad configuration: schema, sampler settings, an impossible combination (78)."""


class OutputError(Error, OSError):
    """An output that cannot be written (73)."""


class Busy(Error, OSError):
    """A shared resource is busy (75): the budget ledger or the output directory. Nothing was
    released; try again."""


class LedgerBusy(Busy):
    """The budget ledger is locked by another process past its busy timeout (75); nothing was
    released, try again."""


class OutputBusy(Busy):
    """Another dpmcmc run (another process, or another thread of this one) is writing the same
    output directory (75); nothing was written or released. Wait for it, or choose another
    ``out``."""


class BudgetRefused(Error, PermissionError):
    """The run would exceed its dataset's budget across runs in the ledger (77); it was refused
    before any release."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the run; the draws written to ``out_dir`` are valid but partial."""

    def __init__(self, message, out_dir):
        super().__init__(message)
        self.out_dir = out_dir


_ERRORS = {64: UsageError, 65: DataError, 66: NoInputError, 73: OutputError, 75: LedgerBusy,
           77: BudgetRefused, 78: ConfigError}


def _error_class(code, message):
    # Exit 75 has two causes; the output directory's message says "is writing this directory"
    # (src/data/directory_lock.cpp).
    if code == 75 and "is writing this directory" in message:
        return OutputBusy
    return _ERRORS.get(code, Error)


def _call(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except _core.Error as e:
        code, message = e.args
        raise _error_class(code, message)(message, code) from None


def _option(name, value):
    """A keyword argument as the CLI's option words: tau=0.3 -> ["--tau", "0.3"]."""
    flag = "--" + name.replace("_", "-")
    if value is None:
        return []
    if isinstance(value, (bool, np.bool_)):
        return [f"{flag}={'true' if value else 'false'}"]  # flags and true/false options
    if isinstance(value, (list, tuple)):
        words = []
        for v in value:  # repeatable options (--prior) and vector options (--init)
            words += [flag, _word(v)]
        return words
    return [flag, _word(value)]


def _word(value):
    if isinstance(value, (float, np.floating)):
        return repr(float(value))  # shortest text that reads back as the same double
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def _schema_document(schema):
    """The schema as a dict (given as a dict, or a path to its JSON file)."""
    if isinstance(schema, dict):
        return schema
    with open(os.fspath(schema), encoding="utf-8") as f:
        return json.load(f)


def _schema_args(schema):
    """The --schema words and, for a dict, the JSON text that stands in for the file."""
    if schema is None:
        return [], None
    if isinstance(schema, dict):
        try:
            text = json.dumps(schema, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"schema: not expressible as JSON: {e}", 78) from None
        return ["--schema", "schema (a Python dict)"], text
    return ["--schema", os.fspath(schema)], None


def _cell(value):
    if value is None:
        return "NA"
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"  # a binary column's 0/1
    if isinstance(value, (float, np.floating)):
        return "NA" if math.isnan(value) else repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def _csv_text(schema, X, y=None):
    """X (rows x the schema's features, in schema order) and y as CSV text with the schema's
    column names; NaN and None are missing cells (the schema's missing-value policy applies).
    Without y (new rows to score) the target column is left out."""
    columns = schema.get("columns", []) if isinstance(schema, dict) else []
    features = [c.get("name") for c in columns if c.get("role", "feature") == "feature"]
    targets = [c.get("name") for c in columns if c.get("role") == "target"]
    if len(targets) != 1:
        raise ConfigError("schema: expected exactly one column with role 'target'", 78)
    X = np.asarray(X)
    if X.dtype.kind not in "OUSbiu":  # labels, booleans and integer codes keep their text
        X = X.astype(float)
    if X.ndim == 1 and len(features) == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[1] != len(features):
        raise UsageError(
            f"X: expected a (rows, {len(features)}) array, one column per schema feature "
            f"({', '.join(features)}), got shape {X.shape}", 64)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if y is None:
        writer.writerow(features)
        for row in X:
            writer.writerow([_cell(v) for v in row])
        return out.getvalue()
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise UsageError(f"y: expected {X.shape[0]} values (one per row of X), got shape {y.shape}",
                         64)
    writer.writerow(features + targets)
    for row, target in zip(X, y):
        writer.writerow([_cell(v) for v in row] + [_cell(target)])
    return out.getvalue()


# Stan's sampler columns under ArviZ's sample_stats names.
_ARVIZ_STATS = {"lp__": "lp", "accept_stat__": "acceptance_rate", "stepsize__": "step_size",
                "treedepth__": "tree_depth", "n_leapfrog__": "n_steps",
                "divergent__": "diverging", "energy__": "energy"}


class Fit:
    """The outcome of a run: published draws, the report, and (private runs) the curator's report.

    draws         numpy array (chain, draw, parameter); chains of unequal length (a private
                  budget split unevenly) are cut to the shortest, with a warning
    chains        list of (draw, column) arrays, every published column, full length
    param_names   names of the parameters (the last axis of draws)
    columns       names of the columns of chains (lp__, accept_stat__, sampler columns, θ)
    report        the published report (report.json under out_dir)
    curator       private runs: the curator's report (accuracy, timings, clip counts, computed
                  from the private rows without noise: never publish it); else None
    """

    def __init__(self, result):
        self.columns = list(result["columns"])
        self.chains = list(result["chains"])
        self.param_names = list(result["param_names"])
        self.report = result["report"]
        self.curator = result["curator"]
        self.out_dir = result["out_dir"]
        self.curator_dir = result["curator_dir"]
        lengths = [c.shape[0] for c in self.chains]
        self._length = min(lengths) if lengths else 0
        if lengths and max(lengths) != self._length:
            warnings.warn(f"chains kept {lengths} draws; draws and to_dict() use the first "
                          f"{self._length} of each (Fit.chains has them all)")

    def _column(self, name):
        j = self.columns.index(name)
        return np.stack([c[:self._length, j] for c in self.chains])

    @property
    def draws(self):
        return np.stack([self._column(name) for name in self.param_names], axis=-1)

    @property
    def summary(self):
        """Per column: mean, sd, quantiles, R-hat, bulk/tail ESS, MCSE (report.json's)."""
        summary = self.report.get("summary")
        return summary["parameters"] if summary else []

    @property
    def warnings(self):
        """What the diagnostics say is wrong, with what to try (report.json's "warnings")."""
        return self.report.get("warnings", [])

    @property
    def private(self):
        return bool(self.report.get("privacy", {}).get("private", False))

    def _epsilons(self, key):
        rows = self.report.get("privacy", {}).get("accountants", [])
        return {r["accountant"]: r.get(key) for r in rows if key in r}

    @property
    def epsilon_planned(self):
        """Private runs: per accountant, ε of the planned iterations (None: no finite bound)."""
        return self._epsilons("planned_epsilon")

    @property
    def epsilon_recorded(self):
        """Private runs: per accountant, ε composed from the releases the run recorded."""
        return self._epsilons("recorded_epsilon")

    @property
    def original_units(self):
        """A regression on your rows: per coefficient, the posterior mean, sd and 5/50/95 %
        quantiles per unit of the schema's own features (not the rescaled [-1, 1] ones), with
        "odds_ratio" (logistic) or "rate_ratio" (poisson) for exp(slope); else []."""
        summary = self.report.get("summary") or {}
        return summary.get("original_units", [])

    def predict(self, X=None, *, data=None, draws=False):
        """Scores new rows with this fit: X (rows x the schema's features, schema order, in the
        schema's own units) or data (a CSV path; a target column is not read). Returns the
        posterior mean of E[y | x] per row (P(y = 1) for logistic and probit) as an array; with
        draws=True a dict with "mean", "q5", "q95" and "draws" (rows x kept draws). Uses the
        published draws in out_dir and costs no privacy."""
        if (X is None) == (data is None):
            raise UsageError("predict: give the new rows as X or as data (a CSV file), not both",
                             64)
        schema = self.report.get("model", {}).get("details", {}).get("schema")
        if schema is None:
            raise ConfigError(f"{self.out_dir}: not a regression fitted to your rows; predict "
                              "scores new rows of such a fit", 78)
        if X is not None:
            text, source = _csv_text(schema, X), "X (in memory; line 2 is row 0)"
        else:
            source = os.fspath(data)
            try:
                with open(source, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise NoInputError(f"{source}: cannot read: {e.strerror}", 66) from None
        result = _call(_core.predict, self.out_dir, text, source)
        return result if draws else result["mean"]

    def to_dict(self):
        """{"posterior": {name: (chain, draw)}, "sample_stats": {...}}: az.from_dict(**d)."""
        posterior = {name: self._column(name) for name in self.param_names}
        stats = {}
        for name in self.columns:
            if name in self.param_names:
                continue
            values = self._column(name)
            if np.isnan(values).all():
                continue  # a column a private run does not publish values for
            key = _ARVIZ_STATS.get(name, name.rstrip("_"))
            stats[key] = values
        return {"posterior": posterior, "sample_stats": stats}

    def to_xarray(self):
        """The posterior as an xarray Dataset (dims chain, draw); needs xarray installed."""
        import xarray as xr
        n_chains, n_draws = len(self.chains), self._length
        coords = {"chain": np.arange(n_chains), "draw": np.arange(n_draws)}
        return xr.Dataset(
            {k: (("chain", "draw"), v) for k, v in self.to_dict()["posterior"].items()},
            coords=coords)

    def __repr__(self):
        c, d, p = len(self.chains), self._length, len(self.param_names)
        model = self.report.get("model", {})
        model = model.get("preset") or model.get("family") or model.get("name")
        sampler = self.report.get("sampler", {}).get("name")
        return (f"<dpmcmc.Fit {model} / {sampler}: "
                f"{c} chains x {d} draws x {p} parameters>")


def sample(model, *, sampler="nuts", X=None, y=None, data=None, schema=None, out=None,
           quiet=True, **options):
    """Runs ``dpmcmc sample`` in-process and returns a Fit.

    model     a preset (``dpmcmc models``) or a regression family (logistic, probit, poisson,
              linear, normal) with ``schema``
    X, y      the rows of a regression family, in memory: X has one column per schema feature
              (schema order), y the target; or ``data``, a CSV file path
    schema    the public schema: a dict, or a path to its JSON file
    out       output directory for the draws and report.json (default: a new temporary
              directory); a private run's curator files go to OUT.curator
    options   any option of ``dpmcmc sample --help``, e.g. epsilon=1.0, delta=1e-5, chains=4,
              seed=1, noise_key_file="run.key", prior=["age=normal(0,1)"], tau=0.3

    The GIL is released while the chains run; Ctrl-C stops them cleanly and raises Interrupted.
    """
    if (X is None) != (y is None):
        raise UsageError("X and y: give both (the rows and their targets), or neither", 64)
    if X is not None and data is not None:
        raise UsageError("data: give the rows either as X and y or as a CSV file, not both", 64)
    if X is not None and schema is None:
        raise UsageError("X and y: a regression family on in-memory rows needs a schema", 64)
    if out is None:
        out = tempfile.mkdtemp(prefix="dpmcmc-")
    args = ["--model", model, "--sampler", sampler, "--out", os.fspath(out)]
    if quiet:
        args.append("--quiet")
    data_text = None
    schema_args, schema_text = _schema_args(schema)
    args += schema_args
    if X is not None:
        data_text = _csv_text(_schema_document(schema), X, y)
        args += ["--data", "X, y (in memory; line 2 is row 0)"]
    elif data is not None:
        args += ["--data", os.fspath(data)]
    for name, value in options.items():
        args += _option(name, value)
    result = _call(_core.sample, args, schema_text, data_text)
    if not result["complete"]:
        raise Interrupted(f"interrupted: the draws in {result['out_dir']} are valid but partial",
                          result["out_dir"])
    return Fit(result)


def account(**options):
    """Runs ``dpmcmc account --json`` in-process and returns its answer as a dict.

        dpmcmc.account(mechanism="gaussian", sigma=2.0, sensitivity=1.0, delta=1e-5)
        dpmcmc.account(sampler="dp-penalty", model="banana-tempered-2d", epsilon=1.0)
        dpmcmc.account(sampler="dp-penalty", model="banana-tempered-2d", iterations=500)
    """
    args = []
    for name, value in options.items():
        args += _option(name, value)
    return _call(_core.account, args)


def advise(model, *, schema, n, epsilon, **options):
    """Runs ``dpmcmc advise --json`` in-process: which private sampler fits a regression on your
    data, from public inputs only (no rows read, no privacy spent). Returns a dict whose
    ``samplers`` list is ranked best first, each with its verdict, reasons, dp-nss's expected sd
    ratio and, for the penalty family and dp-hmc, their ``reach`` (travel, sd floor, effective
    draws per chain).

        dpmcmc.advise("logistic", schema=schema, n=20000, epsilon=1.0)
        dpmcmc.advise("logistic", schema="patients.json", n=20000, epsilon=1.0, chains=1)

    options   delta, chains, sigma, prior, as for ``dpmcmc advise --help``
    """
    schema_args, schema_text = _schema_args(schema)
    args = ["--model", model] + schema_args + _option("n", n) + _option("epsilon", epsilon)
    for name, value in options.items():
        args += _option(name, value)
    return _call(_core.advise, args, schema_text)


def _ledger_args(action, ledger, data, X, y, schema):
    """The CLI words of ``dpmcmc ledger ACTION`` and the CSV text standing in for --data."""
    args = [action] + _option("ledger", None if ledger is None else os.fspath(ledger))
    data_text = None
    if X is not None or y is not None:
        if X is None or y is None or schema is None or data is not None:
            raise UsageError("X and y: give both with a schema (or a CSV file as data)", 64)
        data_text = _csv_text(_schema_document(schema), X, y)
        args += ["--data", "X, y (in memory; line 2 is row 0)"]
    elif data is not None:
        args += ["--data", os.fspath(data)]
    return args, data_text


def ledger_init(data=None, *, epsilon, delta, X=None, y=None, schema=None, label=None,
                composition=None, ledger=None, model=None):
    """Registers a private dataset in the budget ledger with its total budget across runs
    (``dpmcmc ledger init``) and returns the ledger's entry for it as a dict.

    data      the dataset's CSV or .npy file; or X, y and schema for rows in memory, written as
              ``sample`` writes them (the same rows are the same dataset either way)
    model     with a .npy file: the preset whose data columns name the array's columns
    composition  "gaussian" (default: all runs' releases composed as Gaussian DP; plain
              Gaussian samplers only) or "basic" (any sampler; the runs' own epsilons added)
    ledger    the ledger file (default: $DPMCMC_LEDGER, else $XDG_DATA_HOME/dpmcmc/ledger.sqlite,
              else ~/.local/share/dpmcmc/ledger.sqlite)

    Every later private ``sample`` on these rows reserves its releases in the ledger and raises
    BudgetRefused when the composition of all runs would exceed the budget.
    """
    args, data_text = _ledger_args("init", ledger, data, X, y, schema)
    args += _option("epsilon", epsilon) + _option("delta", delta) + _option("label", label)
    args += _option("composition", composition) + _option("model", model)
    return _call(_core.ledger, args, data_text)


def ledger_show(data=None, *, ledger=None, X=None, y=None, schema=None, model=None):
    """The ledger's datasets (or only the one given), their runs and spend, as a dict."""
    args, data_text = _ledger_args("show", ledger, data, X, y, schema)
    args += _option("model", model)
    return _call(_core.ledger, args, data_text)


def ledger_export(*, ledger=None):
    """Everything in the ledger as a dict (``dpmcmc ledger export``)."""
    args, _ = _ledger_args("export", ledger, None, None, None, None)
    return _call(_core.ledger, args, None)
