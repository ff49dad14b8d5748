#!/usr/bin/python3
"""Fit XGBoost's hist trainer on the rows bench/trainbench writes with --csv,
as the baseline of the training memory and time table (issue 25).

Usage: xgbfit.py DATA.csv [--rows N] [--trees N] [--depth D] [--lr R] [--min-leaf M] [--threads T]

DATA.csv has a header of feature names then log_speedup, one row a line.
--rows repeats the rows in order up to N (or cuts them), as trainbench's
--rows does, so that both fit the same rows of a load test.
Prints one line: rows, features, the seconds of reading the CSV and of the
fit alone. Run under /usr/bin/time -v for the peak memory; the float64
array XGBoost is given counts in it, as augur's float64 rows count in
trainbench's. Settings mirror augur's GBRT: squared error, max_bin 255,
min_child_weight = least rows a leaf (the hessian is 1 a row), no
subsampling, depth-wise growth.
"""

import argparse
import time

import numpy as np
import xgboost as xgb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--min-leaf", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    t0 = time.perf_counter()
    with open(a.csv) as f:
        head = f.readline().strip().split(",")
    nf = head.index("log_speedup")
    data = np.loadtxt(a.csv, delimiter=",", skiprows=1, dtype=np.float64)
    x, y = np.ascontiguousarray(data[:, :nf]), data[:, nf].copy()
    del data
    if a.rows:
        idx = np.arange(a.rows) % len(y)
        x, y = np.ascontiguousarray(x[idx]), y[idx]
    load = time.perf_counter() - t0
    t1 = time.perf_counter()
    dm = xgb.QuantileDMatrix(x, label=y, max_bin=255, nthread=a.threads)
    params = {"tree_method": "hist", "objective": "reg:squarederror", "max_depth": a.depth,
              "eta": a.lr, "min_child_weight": a.min_leaf, "max_bin": 255, "lambda": 0.0,
              "nthread": a.threads}
    xgb.train(params, dm, num_boost_round=a.trees)
    fit = time.perf_counter() - t1
    print(f"rows {len(y)} features {nf} load_s {load:.2f} fit_s {fit:.2f}")


if __name__ == "__main__":
    main()
