#!/bin/sh
# refine.sh: do a few rounds of measurement around each shape's fastest
# ('augur collect --sample refine:K' after '--sample random:M') give better
# zero-measurement picks for new shapes than a larger random sample
# ('--sample random:N')? From a dataset directory of whole spaces,
# bench/subsample leaves out what each collection would not have measured;
# 'augur eval --holdout shapes --test TEST' then scores the picks of a model
# trained on each, seed by seed, beside the number of configurations each
# built (ran or failed after compiling: not pruned). Not run by CI; about
# 40 s a seed on the 2-core machine.
#
# Usage: bench/refine.sh WHOLE KERNEL TEST N M K SEEDS [WORKDIR]
#   e.g. bench/refine.sh testdata/h200 conv2d testdata/h200-test 600 400 3 8
set -eu
[ $# -ge 7 ] || { echo "usage: $0 WHOLE KERNEL TEST N M K SEEDS [WORKDIR]" >&2; exit 2; }
whole=$1 kernel=$2 test=$3 n=$4 m=$5 k=$6 seeds=$7
work=${8:-$(mktemp -d)}
cd "$(dirname "$0")/.."
mkdir -p "$work"
go build -o "$work/augur" ./cmd/augur
go build -o "$work/subsample" ./bench/subsample
echo "| seed | random:$n: geomean % (worst), configurations built | random:$m + refine:$k: geomean % (worst), built |"
echo "|---|---|---|"
seed=1
while [ "$seed" -le "$seeds" ]; do
	line="| $seed"
	for mode in random refine; do
		out=$work/$mode-$seed
		rm -rf "$out"
		if [ "$mode" = random ]; then
			built=$("$work/subsample" --data "$whole" --kernel "$kernel" --out "$out" --n "$n" --seed "$seed")
		else
			built=$("$work/subsample" --data "$whole" --kernel "$kernel" --out "$out" --n "$m" --refine "$k" --seed "$seed")
		fi
		r=$("$work/augur" eval --data "$out" --kernel "$kernel" --holdout shapes --test "$test" --seeds 2 --two-stage-seeds 1 --json 2>/dev/null |
			/usr/bin/python3 -c 'import json,sys; h=json.load(sys.stdin)["holdout"]; print("%.1f (%.1f)" % (h["geomean_pct_of_best"], h["worst_pct_of_best"]))')
		line="$line | $r, $built"
	done
	echo "$line |"
	seed=$((seed + 1))
done
