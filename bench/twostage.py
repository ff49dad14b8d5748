#!/usr/bin/env python3
"""Summarises the two-stage rows of `augur eval --json` files: per device and
threshold, the mean count measured, then the geometric means over shapes of
the tuner's figure, random search's with one random order a seed
(random_pct_of_best) and its exact median (random_median_pct_of_best), and
how many shapes the tuner ends below each (by more than 0.05 points, so that
an optimum rounded to 99.99999 is not "below" 100), and the mean over shapes
of the measurements that failed on the device (both stages) and of the
configurations the second stage passed over as predicted to fail (files
written before session 16 have neither: "-"), and the mean count of
configurations random search draws from (within the device's limits;
files written before session 18 drew from the whole space: "-").

usage: twostage.py NAME=FILE.json ...
"""
import json, math, sys, collections


def top1(rs):
    """The sample model's favourite: geometric mean over the shapes where it
    ran, and how many it failed on (0%, a configuration that does not run)."""
    ok = [r["model_top1_pct_of_best"] for r in rs if r["model_top1_pct_of_best"] > 0]
    gm = math.exp(sum(math.log(v) for v in ok) / len(ok)) if ok else 0
    return f"{gm:.1f} (failed {len(rs) - len(ok)})"


def mean(rs, k):
    """The mean over shapes of field k, "-" where the file lacks it."""
    if any(k not in r for r in rs):
        return "-"
    return f"{sum(r[k] for r in rs) / len(rs):.1f}"


for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    groups = collections.defaultdict(list)
    for r in json.load(open(path))["two_stage"] or []:
        if r["pct_of_best"]:
            groups[(r["platform"], r["threshold"])].append(r)
    for (plat, t), rs in sorted(groups.items()):
        gm = lambda k: math.exp(sum(math.log(r[k]) for r in rs) / len(rs))
        below = lambda k: sum(r["pct_of_best"] < r[k] - 0.05 for r in rs)
        print(f"{name} {plat} T={t} shapes={len(rs)} measured={sum(r['measurements'] for r in rs) / len(rs):.0f} "
              f"tuner={gm('pct_of_best'):.1f} random={gm('random_pct_of_best'):.1f} "
              f"random_median={gm('random_median_pct_of_best'):.1f} below={below('random_pct_of_best')}/{below('random_median_pct_of_best')} "
              f"sample_model_top1={top1(rs)} failed={mean(rs, 'failed_measurements')} passed={mean(rs, 'passed_over')} "
              f"random_space={mean(rs, 'random_space_size')}")
