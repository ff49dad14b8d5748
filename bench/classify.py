#!/usr/bin/python3
"""Score scikit-learn's RandomForestClassifier on the groups and folds that
'augur export --target' wrote, beside augur's forest and golearn's as the
reports of 'augur train --target --learner auto' give them, and print one
Markdown table.

Run by bench/classify.sh; needs /usr/bin/python3 with Debian's
python3-sklearn.

The CSV has one row a (shape, device) group: the task and platform
features, the fold (leave-one-out by the task features named in
--fold-by), the device, the label (the index of the parameter's value in
the group's fastest configuration) and best_ns.* columns, the fastest time
of each value (empty when none ran). Per learner:

accuracy          the fraction of groups whose value is predicted right
                  (Garvey and Abdelrahman 2018, section 8.2: absolute
                  accuracy);
penalty-weighted  the mean over groups of t_best / t_pred, t_pred the
                  fastest time of the predicted value, 0 when none ran
                  (section 8.2: penalty-weighted accuracy).

Each figure is the mean over five seeds, with the least and largest.
"""

import argparse
import csv
import math
import re
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    fi = head.index("fold")
    best = [i for i, h in enumerate(head) if h.startswith("best_ns.")]
    x = np.array([[float(v) for v in r[:fi]] for r in rows[1:]])
    fold = np.array([int(r[fi]) for r in rows[1:]])
    label = np.array([int(r[head.index("label")]) for r in rows[1:]])
    t = np.array([[float(r[i]) if r[i] else math.inf for i in best] for r in rows[1:]])
    return x, fold, label, t, len(best)


def score(pred, label, t):
    acc = float(np.mean(pred == label))
    pw = [t[i, label[i]] / t[i, p] if math.isfinite(t[i, p]) else 0.0 for i, p in enumerate(pred)]
    return acc, float(np.mean(pw))


def sklearn_cv(x, fold, label, k, seed):
    pred = np.zeros_like(label)
    for f in np.unique(fold):
        test = fold == f
        m = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
        m.fit(x[~test], label[~test])
        # predict_proba over the classes seen in training, mapped back.
        p = m.predict_proba(x[test])
        full = np.zeros((p.shape[0], k))
        full[:, m.classes_] = p
        pred[test] = np.argmax(full, axis=1)
    return pred


def parse_report(path):
    """The classifier table of an 'augur train' report: learner -> (acc, pw, s)."""
    out = {}
    with open(path) as f:
        text = f.read()
    table = text[text.index("classifier of"):]
    for line in table.splitlines()[2:]:
        m = re.match(r"\s*(\S+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", line)
        if m:
            out[m.group(1)] = tuple(float(v) for v in m.group(2, 3, 4))
    return out


def cell(vals, fmt):
    return f"{np.mean(vals):{fmt}} ({min(vals):{fmt}}-{max(vals):{fmt}})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--reports", nargs="+", required=True)
    ap.add_argument("--fold-by", default="")
    a = ap.parse_args()
    x, fold, label, t, k = read(a.csv)
    counts = np.bincount(label, minlength=k)
    print(f"{len(label)} (shape, device) groups, {len(np.unique(fold))} folds by {a.fold_by}; "
          f"best-class counts {counts.tolist()}; always the commonest class: "
          f"accuracy {score(np.full_like(label, np.argmax(counts)), label, t)[0]:.3f}, "
          f"penalty-weighted {score(np.full_like(label, np.argmax(counts)), label, t)[1]:.4f}\n")
    rows = {}
    for path in a.reports:
        for name, v in parse_report(path).items():
            rows.setdefault("augur " + name if name == "forest" else name, []).append(v)
    sk = []
    for seed in range(1, 6):
        start = time.perf_counter()
        pred = sklearn_cv(x, fold, label, k, seed)
        sk.append(score(pred, label, t) + (time.perf_counter() - start,))
    rows["scikit-learn"] = sk
    print("| learner | accuracy | penalty-weighted accuracy | CV time s |")
    print("|---|---|---|---|")
    for name, vals in rows.items():
        acc, pw, s = zip(*vals)
        print(f"| {name} | {cell(acc, '.3f')} | {cell(pw, '.4f')} | {np.median(s):.2f} |")


if __name__ == "__main__":
    main()
