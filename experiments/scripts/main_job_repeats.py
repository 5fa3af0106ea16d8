"""`make run`'s main job (scripts/main_job.py) repeated with fresh noise keys: does the private
analysis converge every time, and how close does it land? Each repeat runs the job in a fresh
output directory, so dp-nss draws a new secret key; the rows and the seed are the job's own, so
the non-private NUTS reference is the same every time and only the privacy noise varies.

Writes one row per repeat and coefficient: the job's exit code, seconds, the private mean and
90 % interval, the non-private mean and sd, the distance in non-private sds, whether the private
interval covers the truth and the non-private mean, R-hat, and the number of warnings.

    /usr/bin/python3 experiments/scripts/main_job_repeats.py BUILD_DIR WORK_DIR \
        [--repeats 10] [--out experiments/results/main-job/results.csv]
"""
import argparse
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from main_job import TRUTH, summary  # noqa: E402  (the rows' coefficients; a run's report)

FIELDS = ["repeat", "exit_code", "seconds", "parameter", "truth", "private_mean", "q5", "q95",
          "nonprivate_mean", "nonprivate_sd", "distance", "covers_truth", "covers_nonprivate",
          "rhat", "warnings"]


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("build")
    a.add_argument("work")
    a.add_argument("--repeats", type=int, default=10)
    a.add_argument("--out", default=os.path.join(HERE, "..", "results", "main-job", "results.csv"))
    args = a.parse_args()
    os.makedirs(args.work, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for r in range(1, args.repeats + 1):
            out = os.path.join(args.work, f"run-{r}")
            subprocess.run(["rm", "-rf", out], check=True)
            start = time.monotonic()
            with open(out + ".log", "w", encoding="utf-8") as log:
                code = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "scripts",
                                                                    "main_job.py"),
                                       args.build, out], stdout=log, stderr=subprocess.STDOUT
                                      ).returncode
            seconds = time.monotonic() - start
            report, priv = summary(os.path.join(out, "dp-nss"))
            _, ref = summary(os.path.join(out, "nuts"))
            for name, truth in TRUTH.items():
                p, q = priv[name], ref[name]
                w.writerow({"repeat": r, "exit_code": code, "seconds": f"{seconds:.1f}",
                            "parameter": name, "truth": truth, "private_mean": p["mean"],
                            "q5": p["q5"], "q95": p["q95"], "nonprivate_mean": q["mean"],
                            "nonprivate_sd": q["sd"],
                            "distance": abs(p["mean"] - q["mean"]) / q["sd"],
                            "covers_truth": int(p["q5"] <= truth <= p["q95"]),
                            "covers_nonprivate": int(p["q5"] <= q["mean"] <= p["q95"]),
                            "rhat": p["rhat"], "warnings": len(report.get("warnings", []))})
            f.flush()
            print(f"repeat {r}: exit {code}, {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    main()
