#!/usr/bin/env python3
"""XGBoost's picks on unseen shapes, beside augur eval's: a peer baseline.

Leave one shape out of an `augur export --csv` file: for each (device, shape)
group, fit XGBoost (hist; depth 8, 150 trees, learning rate 0.1, min child
weight 5, as `bench/xgbfit.py`) on every row of the other shapes (every
device), predict the held-out group's measured configurations and pick the
highest. Prints the geometric mean over groups of the pick's % of the
group's best (worst), the rule of augur eval's `top1_recorded_pct_of_best`.

    python3 bench/xgbpicks.py FILE.csv [reg|rel ...]

reg fits the log-speedup over the reference (the CSV's log_speedup), rel
the log of the group's best time over the row's (a per-group target).
Needs Debian's python3-xgboost and python3-pandas.
"""
import sys

import numpy as np
import pandas as pd
import xgboost as xgb


def main(path, kinds):
    d = pd.read_csv(path)
    feats = [c for c in d.columns if "." in c and c.split(".")[0] in ("task", "param", "platform")]
    d["grp"] = d["platform"] + "|" + d["shape"]
    d["rel"] = np.log(d.groupby("grp")["time_ns"].transform("min") / d["time_ns"])
    target = {"reg": "log_speedup", "rel": "rel"}
    picks = {k: [] for k in kinds}
    for _, te in d.groupby("grp"):
        tr = d[d["shape"] != te["shape"].iloc[0]]
        for k in kinds:
            m = xgb.XGBRegressor(max_depth=8, n_estimators=150, learning_rate=0.1, min_child_weight=5,
                                 tree_method="hist", n_jobs=2, verbosity=0)
            m.fit(tr[feats].values.astype(float), tr[target[k]].values)
            s = m.predict(te[feats].values.astype(float))
            picks[k].append(100 * np.exp(te["rel"].values[np.argmax(s)]))
    for k in kinds:
        v = np.array(picks[k])
        print(f"{path} {k}: {np.exp(np.log(v).mean()):.2f}% of the best (worst {v.min():.1f}%), {len(v)} shapes")


if __name__ == "__main__":
    main(sys.argv[1], (sys.argv[2:] or ["reg"]))
