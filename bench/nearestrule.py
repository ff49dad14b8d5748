#!/usr/bin/env python3
"""A pick rule measured offline: among each held-out shape's first M candidates (`augur eval --holdout
shapes --json`, field `candidates`, the model's pick first), the one with the best weighted geometric
mean of (shape's best / its time) over the K nearest other shapes of the export; a configuration that
failed or was not measured there counts as 0.1. Distance: the squared differences of the logs of every
task feature; weights exp(-distance / tau). Judged by the export's rows, as eval judges the picks.
Prints the model's picks and the rule's, geometric mean (worst shape), for a few M, K, tau.

With --nested M K TAU, the rule is applied to a held-out shape only where, on the other shapes (their own
held-out candidates, their neighbours without it), it scored at least the model's picks: a choice made per
kernel and device on held-out shapes, as a trainer could make it. (The other shapes' candidates come from
models that saw the held-out shape: a small leak a trainer's own folds would not have.)

usage: bench/nearestrule.py [--nested M K TAU] EXPORT.csv EVAL.json
       (EXPORT.csv from `augur export --data D --kernel K --csv`, EVAL.json from `augur eval --holdout shapes --json`)
"""
import collections
import csv
import json
import math
import sys


def main(path, report, nested=None):
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
    if nested:
        nested_choice(t, best, dist, shapes, *nested)
        return
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


def nested_choice(t, best, dist, shapes, m, k, tau):
    by = {x["shape"]: x for x in shapes}

    def pct(s, c):
        return 100 * best[s] / t[s][c] if c in t[s] else 10.0  # failed or unrecorded: the reference's order

    def rule(s, without):
        near = sorted((o for o in t if o != s and o != without), key=lambda o: dist(s, o))[:k]
        ws = [math.exp(-dist(s, o) / tau) for o in near]

        def score(c):
            return sum(w * math.log(best[o] / t[o][c] if c in t[o] else 0.1) for w, o in zip(ws, near)) / max(sum(ws), 1e-300)

        cands = by[s]["candidates"][:m]
        return max(cands, key=lambda c: (score(c), -cands.index(c)))

    model, out, applied = [], [], 0
    for s in by:
        others = [o for o in by if o != s]
        use = sum(math.log(pct(o, rule(o, s))) for o in others) >= sum(math.log(pct(o, by[o]["chosen"])) for o in others)
        applied += use
        model.append(pct(s, by[s]["chosen"]))
        out.append(pct(s, rule(s, None)) if use else model[-1])
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print("  nested choice (first %d, nearest %d, tau %.1f): %.1f (%.1f), the rule applied on %d of %d shapes"
          % (m, k, tau, geo(out), min(out), applied, len(by)))


if __name__ == "__main__":
    args = sys.argv[1:]
    nested = None
    if args[:1] == ["--nested"]:
        nested, args = (int(args[1]), int(args[2]), float(args[3])), args[4:]
    if len(args) != 2:
        sys.exit(__doc__)
    main(args[0], args[1], nested)
