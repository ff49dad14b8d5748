"""Measures augur.Chooser.choose through Python: cold (a new shape each call,
on a fresh chooser), cached (one shape again and again) and candidates
(k = 5, a new shape each call); prints p50 and p99 of each in microseconds.

    AUGUR_LIB=bin/libaugur.so PYTHONPATH=python python3 libaugur/testdata/latency.py BUNDLE N
"""

import sys
import time

import augur


def report(what, t):
    t = sorted(t)
    print("%s: n=%d p50=%.3f us p99=%.3f us" % (what, len(t), t[len(t) // 2], t[int(len(t) * 0.99)]))


def main():
    bundle, n = sys.argv[1], int(sys.argv[2])
    with augur.Chooser(bundle) as chooser:
        t = []
        for i in range(n):
            f = 3 + 2 * (i % 3)
            t0 = time.perf_counter_ns()
            chooser.choose(width=256 + i, height=512 + 16 * (i % 7), filter_w=f, filter_h=f)
            t.append((time.perf_counter_ns() - t0) / 1e3)
        report("cold", t)
        t = []
        chooser.choose(width=1920, height=1080, filter_w=5, filter_h=5)
        for _ in range(n):
            t0 = time.perf_counter_ns()
            chooser.choose(width=1920, height=1080, filter_w=5, filter_h=5)
            t.append((time.perf_counter_ns() - t0) / 1e3)
        report("cached (by name)", t)
        t = []
        shape = [1920, 1080, 5, 5]
        for _ in range(n):
            t0 = time.perf_counter_ns()
            chooser.choose(shape)
            t.append((time.perf_counter_ns() - t0) / 1e3)
        report("cached (a list)", t)
        t = []
        for i in range(n):
            f = 3 + 2 * (i % 3)
            t0 = time.perf_counter_ns()
            chooser.candidates(5, width=300 + i, height=700 + 16 * (i % 7), filter_w=f, filter_h=f)
            t.append((time.perf_counter_ns() - t0) / 1e3)
        report("candidates k=5", t)


if __name__ == "__main__":
    main()
