#!/usr/bin/env python3
"""Made-up patient records for the user guide's "Your data, your model" example: N rows of the
schema patients.json (age, bmi, sex, region, died), with death drawn from a logistic model whose
coefficients in the schema's rescaled units are printed on stderr. Deterministic for a seed.

    python3 examples/patients/simulate.py [OUT_CSV] [--rows N] [--seed S]
"""
import argparse
import math
import random
import sys


def rescale(value, low, high):
    """The schema's default map of [low, high] onto [-1, 1] (docs/user-guide.md)."""
    return 2.0 * (value - low) / (high - low) - 1.0


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("out", nargs="?", default="patients.csv")
    a.add_argument("--rows", type=int, default=2000)
    a.add_argument("--seed", type=int, default=3)
    args = a.parse_args()
    rng = random.Random(args.seed)
    # intercept, age, bmi, sex = m, region = south, region = east
    beta = {"intercept": -0.5, "age": 2.0, "bmi": 1.0, "sex": 0.3, "region_south": 0.0,
            "region_east": 0.4}
    print("true coefficients: " + ", ".join(f"{k} {v}" for k, v in beta.items()), file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("id,age,bmi,sex,region,died\n")
        for i in range(args.rows):
            age = rng.uniform(18, 100)
            bmi = rng.uniform(15, 45)
            sex = rng.choice("fm")
            region = rng.choice(["north", "south", "east"])
            z = (beta["intercept"] + beta["age"] * rescale(age, 18, 100)
                 + beta["bmi"] * rescale(bmi, 12, 60) + beta["sex"] * (sex == "m")
                 + beta["region_south"] * (region == "south")
                 + beta["region_east"] * (region == "east"))
            died = 1 if rng.random() < 1.0 / (1.0 + math.exp(-z)) else 0
            f.write(f"{i},{age:.1f},{bmi:.1f},{sex},{region},{died}\n")


if __name__ == "__main__":
    main()
