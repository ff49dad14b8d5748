#!/usr/bin/env python3
"""Model-free picks for unseen shapes, leave one shape out, over `augur export --csv` of one device.

fixed: the configuration with the best geometric mean of (shape's best / its time) over the other
shapes (what `augur eval --holdout shapes` reports as one configuration for every shape).
nearest k: the same over the k nearest other shapes, weighted by exp(-distance / tau), distance =
(ln area difference)^2 + 0.3 (ln aspect difference)^2 + w (filter width difference)^2.
Prints each rule's geometric mean and worst % of the held-out shape's best.

usage: bench/shapebaselines.py FILE.csv
"""
import collections
import csv
import math
import sys


def main(path):
    t = collections.defaultdict(dict)
    feat = {}
    for r in csv.DictReader(open(path)):
        t[r["shape"]][r["config"]] = float(r["time_ns"])
        feat[r["shape"]] = tuple(float(r[k]) for k in ("task.width", "task.height", "task.filter_w"))
    shapes = list(t)
    best = {s: min(t[s].values()) for s in shapes}

    def dist(a, b, w):
        (wa, ha, fa), (wb, hb, fb) = feat[a], feat[b]
        return (math.log(wa * ha / (wb * hb))) ** 2 + 0.3 * (math.log(wa / ha * hb / wb)) ** 2 + w * (fa - fb) ** 2

    def judge(rule):
        logs = []
        for h in shapes:
            weights = rule(h)
            cands = set(t[h])
            for s in weights:
                cands &= set(t[s])
            if not cands:
                continue
            pick = max(sorted(cands), key=lambda c: sum(w * math.log(best[s] / t[s][c]) for s, w in weights.items()))
            logs.append(math.log(100 * best[h] / t[h][pick]))
        return math.exp(sum(logs) / len(logs)), math.exp(min(logs)), len(logs)

    print("%s: %d shapes" % (path, len(shapes)))
    print("fixed                      %.1f (worst %.1f) over %d" % judge(lambda h: {s: 1.0 for s in shapes if s != h}))
    for w in (0.05, 0.3):
        for k in (1, 3, 5):
            for tau in (0.5, 1.0):
                def rule(h, w=w, k=k, tau=tau):
                    near = sorted((s for s in shapes if s != h), key=lambda s: dist(h, s, w))[:k]
                    return {s: math.exp(-dist(h, s, w) / tau) for s in near}
                print("nearest k=%d w=%.2f tau=%.1f %.1f (worst %.1f) over %d" % ((k, w, tau) + judge(rule)))


if __name__ == "__main__":
    main(sys.argv[1])
