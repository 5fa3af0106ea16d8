"""Compares dpmcmc's NUTS with rstan's on the same data (make bench-rstan; docs/benchmarks.md).

Both fits are summarised by `dpmcmc summary` (one estimator for both). For each preset: posterior
means and sds of both, whether they agree within Monte Carlo error (|difference| <= 3 combined
MCSEs, the sd's MCSE from the effective size of the squared deviations, not the mean's), the MMD of
each to exact posterior draws where the preset has them, and bulk-ESS per second of chain wall
time (warmup + sampling, summed over the 4 chains). A preset with more than four parameters gets
one row: how many agree, the largest differences in combined MCSEs, the smallest bulk-ESS/s.
Usage: python3 compare.py WORKDIR PRESET...
"""
import json
import math
import sys


def load(work, preset):
    """The two summaries and the two fits' chain seconds."""
    ours = json.load(open(f"{work}/{preset}-dpmcmc-summary.json"))
    stan = json.load(open(f"{work}/{preset}-rstan-summary.json"))
    report = json.load(open(f"{work}/{preset}-dpmcmc/report.json"))
    seconds = (sum(c["wall_seconds"] for c in report["chains"]),
               float(open(f"{work}/{preset}-rstan-seconds.txt").read()))
    return ours, stan, seconds


def compare(work, preset):
    """One dict per parameter: both fits' values and the two differences in combined MCSEs."""
    ours, stan, (sec_ours, sec_stan) = load(work, preset)
    by_name = {p["name"]: p for p in stan["parameters"]}
    rows = []
    for d in ours["parameters"]:
        name = d["name"]
        if name.endswith("__") or name not in by_name:
            continue
        s = by_name[name]
        rows.append({"key": name, "d": d, "s": s,
                     "mean_z": abs(d["mean"] - s["mean"]) / math.hypot(d["mcse_mean"],
                                                                       s["mcse_mean"]),
                     "sd_z": abs(d["sd"] - s["sd"]) / math.hypot(d["mcse_sd"], s["mcse_sd"]),
                     "ess_s_ours": d["ess_bulk"] / sec_ours,
                     "ess_s_stan": s["ess_bulk"] / sec_stan})
    return rows, ours.get("mmd"), stan.get("mmd")


def fmt_mmd(value):
    return "-" if value is None else f"{value:.3g}"


work = sys.argv[1]
print("| preset | parameter | mean dpmcmc | mean rstan | sd dpmcmc | sd rstan | agree | "
      "MMD to exact dpmcmc / rstan | bulk-ESS/s dpmcmc | bulk-ESS/s rstan |")
print("|---|---|---|---|---|---|---|---|---|---|")
for preset in sys.argv[2:]:
    rows, mmd_ours, mmd_stan = compare(work, preset)
    mmd = f"{fmt_mmd(mmd_ours)} / {fmt_mmd(mmd_stan)}"
    if len(rows) > 4:
        agree = sum(r["mean_z"] <= 3 and r["sd_z"] <= 3 for r in rows)
        print(f"| {preset} | {rows[0]['key']} … {rows[-1]['key']} | "
              f"largest difference {max(r['mean_z'] for r in rows):.2f} MCSE | | "
              f"largest difference {max(r['sd_z'] for r in rows):.2f} MCSE | | "
              f"{agree} of {len(rows)} | {mmd} | min {min(r['ess_s_ours'] for r in rows):.4g} | "
              f"min {min(r['ess_s_stan'] for r in rows):.4g} |")
        continue
    for r in rows:
        d, s = r["d"], r["s"]
        print(f"| {preset} | {r['key']} | {d['mean']:.5g} | {s['mean']:.5g} | {d['sd']:.4g} | "
              f"{s['sd']:.4g} | {'yes' if r['mean_z'] <= 3 and r['sd_z'] <= 3 else 'NO'} | "
              f"{mmd} | {r['ess_s_ours']:.4g} | {r['ess_s_stan']:.4g} |")
