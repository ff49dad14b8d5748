#!/bin/sh
# compare.sh: fit augur's learners, XGBoost and scikit-learn on the same
# rows and splits of every real dataset, and print one table per dataset
# (Markdown, as pasted into bench/RESULTS.md). Not run by CI; takes a few
# minutes on a 2-core machine.
#
# Usage: bench/compare.sh [WORKDIR]   (from anywhere; WORKDIR defaults to a new temporary directory)
#
# Needs Go and /usr/bin/python3 with Debian's python3-sklearn and
# python3-xgboost (the python3 first on PATH may lack them).
set -eu
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
py=/usr/bin/python3
kt=${AUGUR_KERNELTUNER_DIR:-../shared/datasets/kerneltuner} # the Kernel Tuner cache files

go build -o "$work/augur" ./cmd/augur
go build -o "$work/fitbench" ./bench/fitbench

# The H200 data may still be on its way into testdata; /tmp/full holds the same files.
h200=testdata/h200
[ -d "$h200/conv2d" ] || h200=/tmp/full

export_csv() { # DATA KERNEL NAME
	[ -f "$work/$3.csv" ] || "$work/augur" export --data "$1" --kernel "$2" --csv "$work/$3.csv"
}
if [ ! -d "$work/kerneltuner" ]; then
	"$work/augur" import --from kerneltuner "$kt/convolution_milo_A4000.json.gz" "$kt/convolution_milo_W6600.json.gz" \
		--kernel convolution --out "$work/kerneltuner" --spec "$kt/convolution_milo.T1.json" \
		--task-params filter_width,filter_height
fi
export_csv testdata/data conv2d pocl
export_csv "$h200" conv2d h200
export_csv "$work/kerneltuner" convolution kerneltuner

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; $(go version | cut -d' ' -f3); $($py -c 'import sklearn, xgboost; print("scikit-learn", sklearn.__version__ + ", xgboost", xgboost.__version__)')"
bench() { # NAME TITLE [compare.py flags]
	name=$1 title=$2
	shift 2
	mkdir -p "$work/$name.run"
	# Beside the defaults, two non-default augur settings: a forest grown as
	# scikit-learn grows one, and deeper boosted trees.
	$py bench/compare.py --csv "$work/$name.csv" --fitbench "$work/fitbench" --work "$work/$name.run" --name "$title" \
		--augur "rf depth32 leaf1 col1=--model rf --depth 32 --min-leaf 1 --colsample 1" \
		--augur "gbrt depth8=--model gbrt --depth 8" "$@"
}
bench pocl "conv2d, PoCL on the 2-core EPYC (testdata/data)"
bench h200 "conv2d, NVIDIA H200 ($h200)"
bench kerneltuner "convolution, Kernel Tuner spaces" --per-platform --sample
