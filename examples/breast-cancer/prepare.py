"""Writes the Wisconsin diagnostic breast cancer data (569 tumours x 30 features, shipped by
Debian's python3-sklearn) as train.csv and test.csv: the ten "mean" features under short names
and the diagnosis as a label. The split is documented and fixed: a permutation of the 569 rows by
numpy's default_rng(2026); the first 455 (80 %) are the training rows (the private data of the
tutorial, docs/tutorial.md), the other 114 the public held-out rows.

    python3 examples/breast-cancer/prepare.py OUTDIR
"""
import csv
import os
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer

NAMES = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
         "concave_points", "symmetry", "fractal_dimension"]


def main(out_dir):
    d = load_breast_cancer()
    assert [f"mean {n.replace('_', ' ')}" for n in NAMES] == list(d.feature_names[:10])
    order = np.random.default_rng(2026).permutation(d.data.shape[0])
    train, test = order[:455], order[455:]
    os.makedirs(out_dir, exist_ok=True)
    for name, rows in (("train.csv", train), ("test.csv", test)):
        with open(os.path.join(out_dir, name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(NAMES + ["diagnosis"])
            for i in rows:
                # sklearn codes malignant as 0 and benign as 1.
                label = "malignant" if d.target[i] == 0 else "benign"
                w.writerow([repr(float(v)) for v in d.data[i, :10]] + [label])
    print(f"wrote {len(train)} training and {len(test)} test rows to {out_dir}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/breast-cancer")
