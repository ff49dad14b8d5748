#!/bin/bash
# Collect on a device whose compiler, not its runs, bounds the collection
# (PoCL on a CPU builds one program at a time in a process, ~1 s of a core
# each for conv2d): first build the programs the run needs with N shard
# processes at once, which fills the driver's on-disk kernel cache (PoCL's
# ~/.cache/pocl), then time with one process, alone on the device, that
# loads every program from the cache. The fill's rows are thrown away; it
# skips the configurations OUT_DIR already holds, as the timing does.
#
#   deploy/collect-prefilled.sh N FILL_SHAPES OUT_DIR [collect flags...]
#   deploy/collect-prefilled.sh 14 'width=640,height=480,filter_w=7,filter_h=7' data \
#       --kernel conv2d --device 1 --repeats 3 --sample all --seed 11 --shapes "$SHAPES"
#
# FILL_SHAPES are shapes of the collection, one for each set of the values
# a program is compiled with (conv2d: one a filter size; the image size is
# an argument), so that the fill builds each program once. The collect
# flags are the timing run's; the fill runs them with --repeats 1 --warm-up 0 and its
# own --shapes, --shard and --out.
set -euo pipefail

n=${1:?usage: collect-prefilled.sh N FILL_SHAPES OUT_DIR [collect flags...]}
fill_shapes=${2:?usage: collect-prefilled.sh N FILL_SHAPES OUT_DIR [collect flags...]}
out=${3:?usage: collect-prefilled.sh N FILL_SHAPES OUT_DIR [collect flags...]}
shift 3
augur=${AUGUR:-augur}
if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
	echo "collect-prefilled: N must be a positive integer, got \"$n\"" >&2
	exit 2
fi

fill=$(mktemp -d)
trap 'rm -rf "$fill"' EXIT
if [ -d "$out" ]; then
	cp -r "$out/." "$fill/"
fi
echo "collect-prefilled: building the programs with $n fill processes (their rows are thrown away)..." >&2
start=$SECONDS
pids=()
for ((i = 0; i < n; i++)); do
	"$augur" collect "$@" --repeats 1 --warm-up 0 --shapes "$fill_shapes" --shard "$i/$n" --out "$fill" \
		>"$fill/fill-$i.log" 2>&1 &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		echo "collect-prefilled: fill shard $i/$n failed:" >&2
		tail -n 5 "$fill/fill-$i.log" >&2
		exit 1
	fi
	echo "collect-prefilled: fill shard $i/$n done: $(tail -n 1 "$fill/fill-$i.log")" >&2
done
echo "collect-prefilled: programs built in $((SECONDS - start)) s; timing with one process" >&2
exec "$augur" collect "$@" --out "$out"
