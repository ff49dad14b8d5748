#!/usr/bin/env python3
"""How far one replay of random search moves: the median over SEEDS seeds of
the best of K random draws (without replacement) from one shape's space,
repeated SETS times, as % of the shape's best, beside the exact median
(search.RandomMedian). Input: a CSV of `augur export` holding one shape.

usage: randomspread.py FILE.csv SPACE_SIZE K [SEEDS=100] [SETS=20]
"""
import csv, math, random, statistics, sys

path, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 100
sets = int(sys.argv[5]) if len(sys.argv) > 5 else 20
times = {}
for r in csv.DictReader(open(path)):
    t = float(r["time_ns"])
    times[r["config"]] = min(t, times.get(r["config"], math.inf))
best = min(times.values())
pcts = [100 * best / t for t in times.values()] + [0.0] * (n - len(times))

def lcomb(a, b):
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

exact = 0.0
for j, p in enumerate(sorted(pcts, reverse=True)):
    rest = n - (j + 1)
    if rest < k or 1 - math.exp(lcomb(rest, k) - lcomb(n, k)) >= 0.5:
        exact = p
        break
rng = random.Random(1)
meds = [statistics.median(max(rng.sample(pcts, k)) for _ in range(seeds)) for _ in range(sets)]
print(f"K={k}: exact median {exact:.1f}; median of {seeds} seeds over {sets} sets: "
      f"min {min(meds):.1f}, median {statistics.median(meds):.1f}, max {max(meds):.1f}")
