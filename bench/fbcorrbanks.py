#!/usr/bin/python3
"""What fbcorr's recorded rows say about its inner loop, per shape.

Reads the CSV of 'augur export --rows --kernel fbcorr' (every status, one
line a row) and prints, for each shape, its fastest time, the GFLOP/s that
time reaches against the paper's flop count (Eq. 5) and the GB/s against
its byte count (Eq. 6: image and filters read once, output written once),
and the rows grouped by the bank conflict of the inner loop's local-memory
read (the derived feature bank_ways, computed here as
datasets.fbcorrBankWays computes it):
per group, the mean log slowdown against the shape's fastest row, the
group's best as % of the shape's best, and its row count. The experiment
behind bench/RESULTS.md's "fbcorr's picks, session 19".

Usage: fbcorrbanks.py ROWS.csv
"""

import collections
import csv
import math
import sys


def bank_ways(bh, bw, w, d, pad):
    tw, dp = bw + w - 1, d + pad
    per = collections.Counter()
    for lane in range(min(32, bh * bw)):
        lx, ly = lane % bw, lane // bw
        per[((ly * tw + lx) * dp) % 32] += 1
    return max(per.values())


def main(path):
    shapes = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r["status"] != "ok":
            continue
        t = tuple(int(r["task." + k]) for k in "RCDFHW")
        ways = bank_ways(int(r["param.block_h"]), int(r["param.block_w"]),
                         t[5], t[2], int(r["param.pad_shared"]))
        shapes[t].append((float(r["time_ns"]), ways))
    print("shape R,C,D,F,H,W | best us | GFLOP/s | GB/s | bank_ways: mean ln slowdown / group best % of best (rows)")
    for t, rows in sorted(shapes.items(), key=lambda kv: (kv[0][2], kv[0])):
        r, c, d, f, h, w = t
        best = min(tm for tm, _ in rows)
        gflops = 2 * f * h * w * d * (r - h + 1) * (c - w + 1) / best
        gbs = 4 * (r * c * d + f * h * w * d + (r - h + 1) * (c - w + 1) * f) / best
        groups = collections.defaultdict(list)
        for tm, ways in rows:
            groups[ways].append(math.log(tm / best))
        cells = ["%d: %.2f / %.0f%% (%d)" % (k, sum(v) / len(v), 100 * math.exp(-min(v)), len(v))
                 for k, v in sorted(groups.items())]
        print("%s | %.0f | %.0f | %.0f | %s" % (",".join(map(str, t)), best / 1e3, gflops, gbs, "; ".join(cells)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
