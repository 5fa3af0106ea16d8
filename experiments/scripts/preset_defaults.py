"""The non-private gradient samplers with default options on every preset (issue 25's criterion).

Runs `dpmcmc sample --model M --sampler S --chains 4 --seed K --threads T --accuracy on` for every
preset M (`dpmcmc models --json`) and S in {nuts, hmc}, with no sampling option, so that each
preset's recommended options (`run_defaults`, shown by `dpmcmc models M`) apply as a user gets
them (`--accuracy on` computes the exact reference where `auto` would skip it as costly; it does
not change the draws).
Records from each run's report.json the worst convergence diagnostics over the model's parameters
(max R-hat, min bulk- and tail-ESS), the MMD to exact posterior draws and that of as many exact
draws (where the preset has an exact posterior), divergent transitions and wall time. The
criterion: R-hat < 1.01, bulk-ESS >= 400 and, with an exact posterior, MMD <= 2x the exact level.
Each row says whether its own run meets it; a second table judges each preset and sampler over
all its seeds: every run converged (R-hat, bulk-ESS) and the median MMD is at most twice the
median exact level. The medians matter: one exact-vs-exact MMD is a single noisy realisation
(on banana-flat-2d it ranged 0.0026-0.034 over seeds 1-10), so one seed's ratio is noise as
much as accuracy.

Rows are appended to a CSV (one per preset x sampler x seed), so an interrupted run resumes
where it stopped; `--rerun` runs the selected cells again after a preset's recommendation
changed, and the tables then use each cell's last row (the earlier ones stay in the CSV with
their commit). `--table-only` prints the Markdown tables of
experiments/results/preset-defaults/README.md ("NUTS and HMC with the presets' recommended
options") from the CSV.

    python3 experiments/scripts/preset_defaults.py build/dpmcmc [--seeds 1] [--threads 1]
        [--models M,...] [--samplers nuts,hmc] [--timeout 3600]
        [--out experiments/results/preset-defaults/results.csv] [--commit REV] [--rerun]
        [--table-only]

Non-private presets only run on their simulated data: nothing here reads private rows.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

FIELDS = ["model", "sampler", "seed", "commit", "status", "max_rhat", "min_bulk_ess",
          "min_tail_ess", "mmd", "mmd_exact", "mean_error", "divergent", "draws", "warnings",
          "wall_seconds"]
RHAT_MAX, BULK_MIN, MMD_RATIO_MAX = 1.01, 400, 2.0


def commit(given):
    """The commit the binary was built from: --commit, else the checkout's HEAD."""
    if given:
        return given
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def presets(binary):
    out = subprocess.run([binary, "models", "--json"], capture_output=True, text=True, check=True)
    return [p["name"] for p in json.loads(out.stdout)]


def summarise(report):
    """The row's statistics from a report.json: diagnostics over the model's parameters only
    (Stan's sampler columns end in "__"), divergent transitions from `divergent__`."""
    params = report["summary"]["parameters"]
    model = [p for p in params if not p["name"].endswith("__")]
    draws = report["summary"]["chains"] * report["summary"]["draws_per_chain"]

    def worst(key, pick):
        values = [p[key] for p in model if p[key] is not None]
        return pick(values) if values else ""

    divergent = next((p["mean"] for p in params if p["name"] == "divergent__"), None)
    acc = report.get("accuracy", {})
    return {
        "max_rhat": worst("rhat", max),
        "min_bulk_ess": worst("ess_bulk", min),
        "min_tail_ess": worst("ess_tail", min),
        "mmd": acc.get("mmd", ""),
        "mmd_exact": acc.get("mmd_exact_baseline", ""),
        "mean_error": acc.get("mean_error", ""),
        "divergent": "" if divergent is None else round(divergent * draws),
        "draws": draws,
        "warnings": len(report.get("warnings", [])),
    }


def run_one(args, model, sampler, seed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        cmd = [args.binary, "sample", "--model", model, "--sampler", sampler, "--chains", "4",
               "--seed", str(seed), "--threads", str(args.threads), "--accuracy", "on", "--out", out]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"status": f"timeout after {args.timeout} s", "wall_seconds": args.timeout}
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            return {"status": f"exit {proc.returncode}: {last}", "wall_seconds": seconds}
        with open(os.path.join(out, "report.json")) as f:
            row = summarise(json.load(f))
    row.update(status="completed", wall_seconds=round(seconds, 1))
    return row


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def verdict(row):
    if row["status"] != "completed":
        return "no"
    ok = float(row["max_rhat"]) < RHAT_MAX and float(row["min_bulk_ess"]) >= BULK_MIN
    if row["mmd"] and row["mmd_exact"]:
        ok = ok and float(row["mmd"]) <= MMD_RATIO_MAX * float(row["mmd_exact"])
    return "yes" if ok else "no"


def fmt(value, digits):
    return f"{float(value):.{digits}g}" if value not in ("", None) else "-"


def table(rows):
    lines = ["| preset | sampler | seed | max R-hat | min bulk-ESS | min tail-ESS | MMD | exact MMD "
             "| divergent | seconds | criterion met |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "completed":
            lines.append(f"| {r['model']} | {r['sampler']} | {r['seed']} | {r['status']} "
                         f"| | | | | | {fmt(r['wall_seconds'], 4)} | no |")
            continue
        lines.append(
            f"| {r['model']} | {r['sampler']} | {r['seed']} | {float(r['max_rhat']):.3f} "
            f"| {fmt(r['min_bulk_ess'], 4)} | {fmt(r['min_tail_ess'], 4)} | {fmt(r['mmd'], 3)} "
            f"| {fmt(r['mmd_exact'], 3)} | {r['divergent'] or '-'} | {fmt(r['wall_seconds'], 4)} "
            f"| {verdict(r)} |")
    met = sum(verdict(r) == "yes" for r in rows)
    lines.append("")
    lines.append(f"Criterion met in {met} of {len(rows)} runs.")
    return "\n".join(lines)


def latest(rows):
    """Each (preset, sampler, seed) cell's last row, in the order the cells first appear."""
    last = {}
    for r in rows:
        last[(r["model"], r["sampler"], r["seed"])] = r
    return list(last.values())


def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def pooled_table(rows):
    """One line per preset and sampler over its seeds: converged in every run, median MMD against
    the median exact level."""
    groups = {}
    for r in rows:
        groups.setdefault((r["model"], r["sampler"]), []).append(r)
    lines = ["| preset | sampler | seeds | converged runs | median MMD | median exact MMD | ratio "
             "| criterion met |", "|---|---|---|---|---|---|---|---|"]
    met = 0
    for (model, sampler), rs in groups.items():
        done = [r for r in rs if r["status"] == "completed"]
        converged = sum(float(r["max_rhat"]) < RHAT_MAX and float(r["min_bulk_ess"]) >= BULK_MIN
                        for r in done)
        ok = converged == len(rs)
        with_mmd = [r for r in done if r["mmd"] and r["mmd_exact"]]
        cells = ["-", "-", "-"]
        if with_mmd:
            m = median([float(r["mmd"]) for r in with_mmd])
            e = median([float(r["mmd_exact"]) for r in with_mmd])
            ok = ok and m <= MMD_RATIO_MAX * e
            cells = [fmt(m, 3), fmt(e, 3), f"{m / e:.2f}"]
        met += ok
        lines.append(f"| {model} | {sampler} | {len(rs)} | {converged} | {' | '.join(cells)} "
                     f"| {'yes' if ok else 'no'} |")
    lines.append("")
    lines.append(f"Criterion met over the seeds for {met} of {len(groups)} presets and samplers.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the dpmcmc executable, e.g. build/dpmcmc")
    ap.add_argument("--seeds", default="1", help="comma-separated seeds (default 1)")
    ap.add_argument("--models", help="comma-separated presets (default: every preset)")
    ap.add_argument("--samplers", default="nuts,hmc")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    ap.add_argument("--out", default="experiments/results/preset-defaults/results.csv")
    ap.add_argument("--commit", help="the commit BINARY was built from, recorded in each row "
                    "(default: the checkout's HEAD, right only if BINARY is its build)")
    ap.add_argument("--rerun", action="store_true",
                    help="run the selected cells even where the CSV has them; the tables use "
                    "each cell's last row")
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()

    if not args.table_only:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        done = {(r["model"], r["sampler"], r["seed"]) for r in read_rows(args.out)}
        models = args.models.split(",") if args.models else presets(args.binary)
        new = not os.path.exists(args.out)
        with open(args.out, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
            if new:
                w.writeheader()
            for seed in args.seeds.split(","):
                for model in models:
                    for sampler in args.samplers.split(","):
                        if (model, sampler, seed) in done and not args.rerun:
                            continue
                        row = run_one(args, model, sampler, seed)
                        row.update(model=model, sampler=sampler, seed=seed, commit=commit(args.commit))
                        w.writerow({k: row.get(k, "") for k in FIELDS})
                        f.flush()
                        print(f"{model} {sampler} seed {seed}: {row['status']}, "
                              f"{row['wall_seconds']} s", file=sys.stderr)
    rows = latest(read_rows(args.out))
    print(table(rows))
    print()
    print(pooled_table(rows))


if __name__ == "__main__":
    main()
