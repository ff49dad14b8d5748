#!/usr/bin/env python3
"""Judge augur eval's held-out picks by a second, independent timing.

    python3 bench/rejudge.py EVAL.json|- PASS1.csv[,PASS1b.csv] PASS2.csv[,...]

EVAL.json is `augur eval --holdout shapes --json`; the CSVs are `augur export
--rows` of the data eval read (pass 1) and of a second pass over the same
shapes and configurations (or of `augur collect --confirm`, which re-times
each shape's fastest: then only the picks it re-timed are judged). For each
device: the picks' time in pass 2 as % of pass 2's fastest (geometric mean
over shapes, worst), and the same for pass 1's fastest configuration (the
noise ceiling of one timing judged by another); with - for EVAL.json, only
the latter.
Needs Debian's python3-pandas.
"""
import json
import sys

import numpy as np
import pandas as pd


def times(paths):
    d = pd.concat([pd.read_csv(p) for p in paths.split(",")])
    d = d[d.status == "ok"]
    tasks = [c for c in d.columns if c.startswith("task.")]
    params = [c for c in d.columns if c.startswith("param.")]
    shape = d[tasks].astype(str).apply(lambda r: ",".join(f"{c[5:]}={v}" for c, v in zip(tasks, r)), axis=1)
    cfg = d[params].astype(str).apply(lambda r: ",".join(f"{c[6:]}={v}" for c, v in zip(params, r)), axis=1)
    return {k: g.set_index("cfg").time_ns for k, g in d.assign(shape=shape, cfg=cfg).groupby(["platform", "shape"])}


def main(eval_path, pass1, pass2):
    t1, t2 = times(pass1), times(pass2)
    if eval_path == "-":
        picks = [{"platform": p, "shape": sh, "chosen": None} for p, sh in t1]
    else:
        picks = json.load(open(eval_path))["holdout"]["shapes"]
    out = {}
    for s in picks:
        key = (s["platform"], s["shape"])
        if key not in t2:
            continue
        g1, g2 = t1[key], t2[key]
        r = out.setdefault(s["platform"], {"pick": [], "best": [], "missing": 0})
        # A second pass that re-timed part of the space (augur collect
        # --confirm) judges only the configurations it re-timed.
        for name, cfg in (("pick", s["chosen"]), ("best", g1.idxmin())):
            if cfg in g2.index:
                r[name].append(g2.min() / g2[cfg])
            elif name == "pick" and cfg is not None:
                r["missing"] += 1
    gm = lambda v: 100 * np.exp(np.mean(np.log(v)))
    for dev, r in out.items():
        line = f"{dev}: "
        if r["pick"]:
            line += (f"picks {gm(r['pick']):.2f}% of pass 2's best (worst {100 * min(r['pick']):.1f}; {len(r['pick'])} shapes, "
                     f"{r['missing']} picks not re-timed), ")
        print(line + f"pass 1's best {gm(r['best']):.2f}% (worst {100 * min(r['best']):.1f}; {len(r['best'])} shapes)")


if __name__ == "__main__":
    main(*sys.argv[1:4])
