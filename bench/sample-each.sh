#!/bin/sh
# sample-each.sh: does drawing a collection's sample anew for each shape
# ('augur collect --sample random-each:N') give better zero-measurement
# picks than the same sample for every shape ('--sample random:N')? From a
# dataset directory of whole spaces, bench/subsample leaves out what each
# sampled collection would not have measured; 'augur eval --holdout shapes
# --test TEST' then scores the picks of a model trained on each, seed by
# seed. Not run by CI; about 20 s a seed on the 2-core machine.
#
# Usage: bench/sample-each.sh WHOLE KERNEL TEST N SEEDS [WORKDIR]
#   e.g. bench/sample-each.sh testdata/h200 conv2d testdata/h200-test 600 11
set -eu
[ $# -ge 5 ] || { echo "usage: $0 WHOLE KERNEL TEST N SEEDS [WORKDIR]" >&2; exit 2; }
whole=$1 kernel=$2 test=$3 n=$4 seeds=$5
work=${6:-$(mktemp -d)}
cd "$(dirname "$0")/.."
mkdir -p "$work"
go build -o "$work/augur" ./cmd/augur
go build -o "$work/subsample" ./bench/subsample
echo "| seed | same sample: geomean % (worst) | per shape: geomean % (worst) |"
echo "|---|---|---|"
seed=1
while [ "$seed" -le "$seeds" ]; do
	line="| $seed"
	for mode in same each; do
		out=$work/$mode-$seed
		rm -rf "$out"
		flag=
		[ "$mode" = each ] && flag=--each
		"$work/subsample" --data "$whole" --kernel "$kernel" --out "$out" --n "$n" --seed "$seed" $flag
		r=$("$work/augur" eval --data "$out" --kernel "$kernel" --holdout shapes --test "$test" --seeds 2 --two-stage-seeds 1 --json 2>/dev/null |
			/usr/bin/python3 -c 'import json,sys; h=json.load(sys.stdin)["holdout"]; print("%.1f (%.1f)" % (h["geomean_pct_of_best"], h["worst_pct_of_best"]))')
		line="$line | $r"
	done
	echo "$line |"
	seed=$((seed + 1))
done
