#!/usr/bin/env python3
"""`make run`'s main job: a private logistic regression on made-up patient records
(examples/patients), printed beside non-private NUTS on the same rows and the true coefficients.

The rows (20 000 by default) are simulated with known coefficients; `dpmcmc sample --sampler
dp-nss --epsilon 1` fits them privately (pilot releases, then the final release, then NUTS on the
posterior given the releases) and `--sampler nuts` fits the rows themselves, the reference a
private answer should land near. The table gives each coefficient's posterior mean and 90 %
interval for both, the private mean's distance from the non-private one in non-private posterior
sds, and R-hat. Exit 1 when the private run warns or its R-hat is not below 1.01; with --check
(the test Examples.MainJobConvergesBesideNuts) also when a private mean is more than 4 of its
posterior sds from the non-private mean (a calibrated posterior misses that by chance with
probability 6e-5 per coefficient).

    python3 scripts/main_job.py BUILD_DIR OUT_DIR [--rows N] [--epsilon E] [--check]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATIENTS = os.path.join(HERE, "..", "examples", "patients")
# The coefficients examples/patients/simulate.py draws the deaths from (schema's rescaled units).
TRUTH = {"intercept": -0.5, "age": 2.0, "bmi": 1.0, "sex": 0.3, "region_south": 0.0,
         "region_east": 0.4}


def run(cmd, log):
    with open(log, "w", encoding="utf-8") as f:
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.stdout.write(open(log, encoding="utf-8").read())
        sys.exit(done.returncode)


def summary(out_dir):
    with open(os.path.join(out_dir, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    return report, {p["name"]: p for p in report["summary"]["parameters"]}


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("build")
    a.add_argument("out")
    a.add_argument("--rows", type=int, default=20000)
    a.add_argument("--epsilon", type=float, default=1.0)
    a.add_argument("--check", action="store_true")
    args = a.parse_args()
    os.makedirs(args.out, exist_ok=True)
    data = os.path.join(args.out, "patients.csv")
    subprocess.run([sys.executable, os.path.join(PATIENTS, "simulate.py"), data, "--rows",
                    str(args.rows)], check=True, stderr=subprocess.DEVNULL)
    dpmcmc = os.path.join(args.build, "dpmcmc")
    common = ["sample", "--model", "logistic", "--schema", os.path.join(PATIENTS, "patients.json"),
              "--data", data, "--chains", "4", "--seed", "1", "--quiet"]
    private = os.path.join(args.out, "dp-nss")
    reference = os.path.join(args.out, "nuts")
    # A fresh secret noise key, stored nowhere: each `make run` is a new private release.
    run([dpmcmc] + common + ["--sampler", "dp-nss", "--epsilon", str(args.epsilon),
                             "--out", private], private + ".txt")
    run([dpmcmc] + common + ["--sampler", "nuts", "--out", reference], reference + ".txt")
    report, priv = summary(private)
    _, ref = summary(reference)
    spent = report["privacy"]
    print(f"Logistic regression, {args.rows} made-up patients (examples/patients): private "
          f"dp-nss at epsilon {args.epsilon:g}, delta {spent.get('delta', 0.1 / args.rows):.3g}, "
          f"beside non-private NUTS on the same rows.")
    print(f"{'coefficient':<14}{'truth':>7}  {'NUTS (not private)':<26}{'dp-nss (private)':<26}"
          f"{'distance':>10}{'R-hat':>7}")
    worst_rhat = 0.0
    far = []
    for name, truth in TRUTH.items():
        p, r = priv[name], ref[name]
        distance = abs(p["mean"] - r["mean"]) / r["sd"]
        worst_rhat = max(worst_rhat, p["rhat"])
        if abs(p["mean"] - r["mean"]) > 4 * p["sd"]:
            far.append(name)
        cell = "{:6.3f} [{:6.3f}, {:6.3f}]"
        print(f"{name:<14}{truth:7.2f}  {cell.format(r['mean'], r['q5'], r['q95']):<26}"
              f"{cell.format(p['mean'], p['q5'], p['q95']):<26}{distance:7.2f} sd{p['rhat']:7.3f}")
    print("mean [5%, 95%] of the posterior; distance: |private - non-private mean| in "
          "non-private posterior sds")
    print(f"private draws (publishable): {private}/chain-*.csv, {private}/report.json; "
          f"full outputs: {private}.txt, {reference}.txt")
    warnings = report.get("warnings", [])
    for w in warnings:
        print(f"WARNING: {w['subject']}: {w['problem']}")
    if args.check and far:
        print(f"FAILED: private means more than 4 private sds from NUTS's: {', '.join(far)}")
        sys.exit(1)
    if warnings or not worst_rhat < 1.01:
        sys.exit(1)


if __name__ == "__main__":
    main()
