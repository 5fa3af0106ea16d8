"""Compares dpmcmc's NUTS with rstan's on the same data (make bench-rstan; docs/benchmarks.md).

For each preset: posterior means and sds of both, whether they agree within Monte Carlo error
(|difference| <= 3 * sqrt(MCSE_dpmcmc^2 + MCSE_stan^2); for the sd the MCSE is sd/sqrt(2 ESS)),
and bulk-ESS per second of chain wall time (warmup + sampling, summed over the 4 chains).
Usage: python3 compare.py WORKDIR PRESET...
"""
import csv
import json
import math
import sys

work = sys.argv[1]
print("| preset | parameter | mean dpmcmc | mean rstan | sd dpmcmc | sd rstan | agree | "
      "bulk-ESS/s dpmcmc | bulk-ESS/s rstan |")
print("|---|---|---|---|---|---|---|---|---|")
for preset in sys.argv[2:]:
    report = json.load(open(f"{work}/{preset}-dpmcmc/report.json"))
    seconds = sum(c["wall_seconds"] for c in report["chains"])
    ours = {p["name"]: p for p in report["summary"]["parameters"]}
    for row in csv.DictReader(open(f"{work}/{preset}-rstan.csv")):
        name = row["parameter"]
        # Stan's theta[1] is dpmcmc's theta.1; bernoulli's p is its only parameter.
        key = name.replace("[", ".").replace("]", "")
        if key not in ours:
            key = [k for k in ours if not k.endswith("__")][0]
        d = ours[key]
        s = {k: float(row[k]) for k in ("mean", "sd", "mcse_mean", "ess_bulk", "seconds")}
        mean_ok = abs(d["mean"] - s["mean"]) <= 3 * math.hypot(d["mcse_mean"], s["mcse_mean"])
        sd_err = math.hypot(d["sd"] / math.sqrt(2 * d["ess_bulk"]),
                            s["sd"] / math.sqrt(2 * s["ess_bulk"]))
        sd_ok = abs(d["sd"] - s["sd"]) <= 3 * sd_err
        print(f"| {preset} | {key} | {d['mean']:.5g} | {s['mean']:.5g} | {d['sd']:.4g} | "
              f"{s['sd']:.4g} | {'yes' if mean_ok and sd_ok else 'NO'} | "
              f"{d['ess_bulk'] / seconds:.4g} | {s['ess_bulk'] / s['seconds']:.4g} |")
