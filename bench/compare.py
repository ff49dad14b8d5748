#!/usr/bin/python3
"""Compare augur's learners with XGBoost and scikit-learn on the same rows
and the same splits.

Run by bench/compare.sh; needs /usr/bin/python3 (Debian's python3-sklearn
and python3-xgboost). The data is a CSV written by 'augur export'; augur's
learners are fitted by bench/fitbench on split masks this script writes, so
every learner sees exactly the same training and test rows.

Two protocols:

kfold   K folds grouped by (shape, config), drawn from a fixed seed (the
        grouping augur's CrossValidate uses). Per learner: RMSE of the
        log-speedup over all out-of-fold rows; the mean over (platform,
        shape) of the Spearman correlation between predicted and measured
        log-speedup; top-1, the geometric mean over folds and shapes of
        t_best/t_pick, where t_pick is the time of the test row of the shape
        with the highest prediction and t_best the fastest test row of that
        shape; and the median time of one fit over the K folds, on one
        thread and on all threads (each fold is fitted again for the
        latter; the median keeps a busy neighbour's spike out).

sample  The protocol of the shared datasets' README.md, per platform: fit
        on a random 2% or 10% of the platform's rows, pick the row with the
        best prediction over all of them, report t_best/t_pick as a
        percentage, median over 10 seeds.
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import time

import numpy as np
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from threadpoolctl import threadpool_limits
import xgboost as xgb

FIT, PREDICT = 1, 2

# The README's table (median % of optimum over 10 seeds), for side by side.
README = {
    ("a4000", 0.02): {"random": 78.6, "xgboost": 72.2, "histgb": 64.6, "sklearn-rf": 74.7},
    ("w6600", 0.02): {"random": 81.4, "xgboost": 56.8, "histgb": 44.0, "sklearn-rf": 74.8},
    ("a4000", 0.10): {"random": 98.6, "xgboost": 72.7, "histgb": 74.1, "sklearn-rf": 78.1},
    ("w6600", 0.10): {"random": 83.4, "xgboost": 61.2, "histgb": 61.6, "sklearn-rf": 77.0},
}


class Data:
    """The columns of an 'augur export' CSV."""

    def __init__(self, path):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        head = rows[0]
        nf = head.index("log_speedup")
        col = {name: i for i, name in enumerate(head)}
        body = rows[1:]
        self.features = head[:nf]
        self.x = np.array([[float(v) for v in r[:nf]] for r in body])
        self.y = np.array([float(r[nf]) for r in body])
        self.time = np.array([float(r[col["time_ns"]]) if r[col["time_ns"]] else math.nan for r in body])
        self.platform = np.array([r[col["platform"]] for r in body])
        self.shape = np.array([r[col["shape"]] for r in body])
        self.config = np.array([r[col["config"]] for r in body])

    def __len__(self):
        return len(self.y)


# Python learners: name -> constructor taking (threads, seed); threads is 1
# or the CPU count. Settings mirror augur's GBRT defaults where the learner
# has them: 100 trees of depth 4, learning rate 0.1, 10 rows a leaf
# (min_child_weight is a hessian sum, which is the row count under squared
# loss).
def python_learners():
    return {
        "xgboost": lambda t, s: xgb.XGBRegressor(
            tree_method="hist", n_estimators=100, max_depth=4, learning_rate=0.1,
            min_child_weight=10, n_jobs=t, random_state=s),
        "histgb": lambda t, s: HistGradientBoostingRegressor(
            max_depth=4, max_iter=100, learning_rate=0.1, min_samples_leaf=10,
            early_stopping=False, random_state=s),
        "sklearn-rf": lambda t, s: RandomForestRegressor(n_estimators=100, n_jobs=t, random_state=s),
    }


def fit_python(make, data, masks, threads, seed):
    """Fits one model per mask column; returns predictions (nan where not
    predicted) and the fit times in seconds."""
    pred = np.full(masks.shape, math.nan)
    times = []
    for k in range(masks.shape[1]):
        fit = (masks[:, k] & FIT) != 0
        test = (masks[:, k] & PREDICT) != 0
        model = make(threads, seed)
        # HistGradientBoostingRegressor takes its threads from OpenMP only.
        with threadpool_limits(limits=threads, user_api="openmp"):
            start = time.perf_counter()
            model.fit(data.x[fit], data.y[fit])
            times.append(time.perf_counter() - start)
            pred[test, k] = model.predict(data.x[test])
    return pred, times


def fit_augur(fitbench, csv_path, flags, masks, threads, work):
    """Runs fitbench with flags (a list) on masks; returns its predictions
    and fit times."""
    split_path = os.path.join(work, "splits.csv")
    out_path = os.path.join(work, "pred.csv")
    np.savetxt(split_path, masks, fmt="%d", delimiter=",")
    res = subprocess.run([fitbench, "--csv", csv_path, "--splits", split_path, "--out", out_path,
                          "--threads", str(threads)] + flags,
                         check=True, capture_output=True, text=True)
    times = [float(line.split()[-1]) for line in res.stdout.splitlines()]
    pred = np.full(masks.shape, math.nan)
    with open(out_path) as f:
        for i, line in enumerate(f):
            for k, v in enumerate(line.rstrip("\n").split(",")):
                if v:
                    pred[i, k] = float(v)
    return pred, times


def spearman(a, b):
    """Spearman's rho as augur's CrossValidate computes it: None when b is
    constant, 0 when a is."""
    ra, rb = rankdata(a), rankdata(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    saa, sbb = (ra * ra).sum(), (rb * rb).sum()
    if sbb == 0:
        return None
    if saa == 0:
        return 0.0
    return float((ra * rb).sum() / math.sqrt(saa * sbb))


def kfold_masks(data, rows, folds, seed):
    """Masks for K folds over rows, grouped by (shape, config)."""
    keys = {}
    group = np.array([keys.setdefault((data.shape[i], data.config[i]), len(keys)) for i in rows])
    perm = np.random.default_rng(seed).permutation(len(keys))
    fold = perm[group] % folds
    masks = np.zeros((len(data), folds), dtype=int)
    for k in range(folds):
        masks[rows, k] = np.where(fold == k, PREDICT, FIT)
    return masks


def kfold_scores(data, masks, pred):
    measured = ~np.isnan(data.time)
    test = (masks & PREDICT) != 0
    oof = np.nansum(np.where(test, pred, 0), axis=1)
    scored = test.any(axis=1) & measured
    rmse = math.sqrt(np.mean((oof[scored] - data.y[scored]) ** 2))
    rhos = []
    for key in sorted(set(zip(data.platform[scored], data.shape[scored]))):
        sel = scored & (data.platform == key[0]) & (data.shape == key[1])
        if sel.sum() >= 3:
            rho = spearman(oof[sel], data.y[sel])
            if rho is not None:
                rhos.append(rho)
    logs = []
    for k in range(masks.shape[1]):
        tk = test[:, k] & measured
        for key in set(zip(data.platform[tk], data.shape[tk])):
            idx = np.flatnonzero(tk & (data.platform == key[0]) & (data.shape == key[1]))
            pick = idx[np.argmax(pred[idx, k])]
            logs.append(math.log(data.time[idx].min() / data.time[pick]))
    return rmse, float(np.mean(rhos)), 100 * math.exp(np.mean(logs))


def augur_learners(args):
    """augur's learners with their defaults, then the --augur variants."""
    out = {"augur gbrt": ["--model", "gbrt"], "augur rf": ["--model", "rf"]}
    for v in args.augur:
        name, _, flags = v.partition("=")
        out["augur " + name] = flags.split()
    return out


def run_kfold(args, data, rows, title):
    masks = kfold_masks(data, rows, args.folds, args.seed)
    ncpu = os.cpu_count()
    results = []
    for name, flags in augur_learners(args).items():
        pred, t1 = fit_augur(args.fitbench, args.csv, flags, masks, 1, args.work)
        _, tall = fit_augur(args.fitbench, args.csv, flags, masks, 0, args.work)
        results.append((name, pred, t1, tall))
    for name, make in python_learners().items():
        pred, t1 = fit_python(make, data, masks, 1, args.seed)
        _, tall = fit_python(make, data, masks, ncpu, args.seed)
        results.append((name, pred, t1, tall))
    shapes = len(set(zip(data.platform[rows], data.shape[rows])))
    print(f"\n### {title}: {len(rows)} rows, {shapes} shapes, {len(data.features)} features, "
          f"{args.folds} folds grouped by (shape, config), seed {args.seed}\n")
    print(f"| learner | RMSE log-speedup | mean Spearman | top-1 % of optimum | fit s, 1 thread | fit s, {ncpu} threads |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, pred, t1, tall in results:
        rmse, rho, top1 = kfold_scores(data, masks, pred)
        print(f"| {name} | {rmse:.3f} | {rho:.3f} | {top1:.1f} | {np.median(t1):.3f} | {np.median(tall):.3f} |")
    sys.stdout.flush()


def run_sample(args, data, platform, fracs=(0.02, 0.10), seeds=10):
    rows = np.flatnonzero((data.platform == platform) & ~np.isnan(data.time))
    cols, meta = [], []
    for frac in fracs:
        n = int(round(frac * len(rows)))
        for s in range(seeds):
            sample = np.random.default_rng([args.seed, s]).choice(rows, n, replace=False)
            m = np.zeros(len(data), dtype=int)
            m[rows] = PREDICT
            m[sample] |= FIT
            cols.append(m)
            meta.append((frac, n, sample))
    masks = np.stack(cols, axis=1)
    preds = {}
    for name, flags in augur_learners(args).items():
        preds[name], _ = fit_augur(args.fitbench, args.csv, flags, masks, 1, args.work)
    for name, make in python_learners().items():
        preds[name], _ = fit_python(make, data, masks, 1, args.seed)
    tbest = data.time[rows].min()
    key = next((k for k in ("a4000", "w6600") if k in platform), None)
    names = ["random"] + list(preds)
    print(f"\n### {platform}: README protocol, {len(rows)} valid configurations, median of {seeds} seeds\n")
    print("| sample | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for frac in fracs:
        idx = [k for k, m in enumerate(meta) if m[0] == frac]
        n = meta[idx[0]][1]
        cells = [np.median([100 * tbest / data.time[meta[k][2]].min() for k in idx])]
        for name in preds:
            ratios = [100 * tbest / data.time[rows[np.argmax(preds[name][rows, k])]] for k in idx]
            cells.append(np.median(ratios))
        line = f"| {frac:.0%} ({n}) | " + " | ".join(f"{c:.1f}" for c in cells) + " |"
        print(line)
        ref = README.get((key, frac))
        if ref:
            print(f"| README {frac:.0%} | " + " | ".join(
                f"{ref[n]:.1f}" if n in ref else "" for n in names) + " |")
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--csv", required=True, help="data written by 'augur export'")
    p.add_argument("--fitbench", required=True, help="the bench/fitbench binary")
    p.add_argument("--work", required=True, help="directory for split and prediction files")
    p.add_argument("--name", required=True, help="dataset name for the table titles")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-platform", action="store_true", help="one k-fold table per platform")
    p.add_argument("--sample", action="store_true", help="also run the README protocol per platform")
    p.add_argument("--augur", action="append", default=[], metavar="NAME=FLAGS",
                   help="also fit augur with these fitbench flags, e.g. 'rf-deep=--model rf --depth 32'")
    args = p.parse_args()
    data = Data(args.csv)
    platforms = sorted(set(data.platform))
    if args.per_platform:
        for pl in platforms:
            run_kfold(args, data, np.flatnonzero(data.platform == pl), f"{args.name}, {pl}")
    else:
        run_kfold(args, data, np.arange(len(data)), args.name)
    if args.sample:
        for pl in platforms:
            run_sample(args, data, pl)


if __name__ == "__main__":
    main()
