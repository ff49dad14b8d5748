#!/usr/bin/env python3
"""A pick rule measured offline: among each held-out shape's first M candidates (`augur eval --holdout
shapes --json`, field `candidates`, the model's pick first), the one with the best weighted geometric
mean of (shape's best / its time) over the K nearest other shapes of the export; a configuration that
failed or was not measured there counts as 0.1. Distance: the squared differences of the logs of every
task feature; weights exp(-distance / tau). Judged by the export's rows, as eval judges the picks.
Prints the model's picks and the rule's, geometric mean (worst shape), for a few M, K, tau.

usage: bench/nearestrule.py EXPORT.csv EVAL.json   (EXPORT.csv from `augur export --data D --kernel K --csv`)
"""
import collections
import csv
import json
import math
import sys


def main(path, report):
    t = collections.defaultdict(dict)
    feat = {}
    for r in csv.DictReader(open(path)):
        t[r["shape"]][r["config"]] = float(r["time_ns"])
        feat[r["shape"]] = tuple(math.log(max(float(r[k]), 1e-9)) for k in r if k.startswith("task."))
    best = {s: min(v.values()) for s, v in t.items()}

    def dist(a, b):
        return sum((x - y) ** 2 for x, y in zip(feat[a], feat[b]))

    def pct(s, c):
        return 100 * best[s] / t[s][c] if c in t[s] else None

    def geo(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs))

    shapes = json.load(open(report))["holdout"]["shapes"]
    model = [p for p in (pct(x["shape"], x["chosen"]) for x in shapes) if p]
    print("%s: model %.1f (%.1f) over %d shapes" % (report, geo(model), min(model), len(model)))
    for m, k, tau in ((3, 5, 1.0), (3, 5, 0.5), (3, 3, 1.0), (5, 5, 1.0)):
        out = []
        for x in shapes:
            s = x["shape"]
            near = sorted((o for o in t if o != s), key=lambda o: dist(s, o))[:k]
            ws = [math.exp(-dist(s, o) / tau) for o in near]

            def score(c):
                return sum(w * math.log(best[o] / t[o][c] if c in t[o] else 0.1) for w, o in zip(ws, near)) / max(sum(ws), 1e-300)

            cands = x["candidates"][:m]
            c = max(cands, key=lambda c: (score(c), -cands.index(c)))
            p = pct(s, c)
            if p:
                out.append(p)
        print("  first %d candidates, nearest %d, tau %.1f: %.1f (%.1f)" % (m, k, tau, geo(out), min(out)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
