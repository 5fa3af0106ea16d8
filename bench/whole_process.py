#!/usr/bin/env python3
"""Whole process against sampling (issue 28, goal 1): runs `dpmcmc sample` for every sampler on
a preset it is made for, at the given data sizes, and prints the process's wall time, the
sampling phase's (from the run's timings: the curator report of a private run, the published
report with --publish-timings otherwise) and their ratio, with the largest other phase.

    python3 bench/whole_process.py build/dpmcmc --n 100000 1000000

A benchmark, not a test: the times depend on the machine and its load (docs/benchmarks.md).
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (sampler, preset, extra options): the preset whose published settings the sampler reproduces.
RUNS = [
    ("dp-penalty", "banana-tempered-2d", []),
    ("dp-penalty-ocu", "banana-tempered-2d", []),
    ("dp-penalty-gwmh", "banana-tempered-2d", []),
    ("dp-penalty-minibatch", "banana-tempered-2d", []),
    ("dp-penalty-minibatch-ocu", "banana-tempered-2d", []),
    ("dp-penalty-minibatch-gwmh", "banana-tempered-2d", []),
    ("dp-penalty-shared", "banana-tempered-2d", ["--owners", "4"]),
    ("dp-penalty-expfam", "gauss-box-2d", []),
    ("dp-hmc", "banana-dphmc-2d", []),
    ("dp-sgld", "gauss-10d", []),
    ("dp-sgnht", "gauss-10d", []),
    ("dp-barker", "banana-tempered-2d", []),
    ("dp-fast-mh", "mixture-fastmh-2d", []),
    ("dp-fast-mh-full", "mixture-fastmh-2d", []),
    ("rwmh", "banana-tempered-2d", ["--iter", "2000", "--warmup", "2000"]),
    ("hmc", "banana-dphmc-2d", ["--iter", "500", "--warmup", "500"]),
    ("nuts", "banana-dphmc-2d", ["--iter", "500", "--warmup", "500"]),
    ("tunamh", "mixture-fastmh-2d", ["--iter", "2000", "--warmup", "2000"]),
]
PRIVATE_BUDGET = ["--epsilon", "2"]


def run_one(binary, sampler, preset, extra, n, workdir):
    out = Path(workdir) / f"{sampler}-{n}"
    private = sampler.startswith("dp-")
    cmd = [binary, "sample", "--model", preset, "--sampler", sampler, "--n", str(n),
           "--chains", "1", "--seed", "1", "--quiet", "--out", str(out)]
    cmd += PRIVATE_BUDGET if private else []
    cmd += extra
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    report = out.parent / (out.name + ".curator") / "report.json" if private else out / "report.json"
    timings = json.loads(report.read_text())["timings"]
    phases = {k[: -len("_seconds")]: v for k, v in timings.items() if k != "total_seconds"}
    sampling = phases.pop("sampling")
    other = max(phases.items(), key=lambda kv: kv[1])
    return {"wall": wall, "sampling": sampling, "other": other}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--n", type=int, nargs="+", default=[100000])
    parser.add_argument("--only", nargs="*", help="samplers to run (default: all)")
    args = parser.parse_args()
    print("| sampler | preset | n | process s | sampling s | ratio | largest other phase |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as workdir:
        for n in args.n:
            for sampler, preset, extra in RUNS:
                if args.only and sampler not in args.only:
                    continue
                r = run_one(args.binary, sampler, preset, extra, n, workdir)
                if "error" in r:
                    print(f"| {sampler} | {preset} | {n} | - | - | - | {r['error']} |")
                else:
                    name, secs = r["other"]
                    print(f"| {sampler} | {preset} | {n} | {r['wall']:.3f} | {r['sampling']:.3f} "
                          f"| {r['wall'] / r['sampling']:.2f} | {name} {secs:.3f} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
