#!/bin/sh
# classify.sh: the classifier of a categorical parameter ('augur train
# --target'), measured on leave-one-out folds: augur's random forest,
# golearn's, and scikit-learn's RandomForestClassifier on the same (shape,
# device) groups and the same folds. Prints one Markdown table (as pasted
# into bench/RESULTS.md). Not run by CI; a few seconds to a minute.
#
# Usage: bench/classify.sh DATA KERNEL PARAM [FOLD-BY [WORKDIR]]
#   FOLD-BY: comma-separated task features whose values make a fold (those
#   that name a kernel, for leave-one-kernel-out); empty: one fold a shape.
#
# Needs Go and /usr/bin/python3 with Debian's python3-sklearn.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 DATA KERNEL PARAM [FOLD-BY [WORKDIR]]" >&2; exit 2; }
data=$1 kernel=$2 param=$3 foldby=${4:-}
work=${5:-$(mktemp -d)}
data=$(cd "$data" && pwd)
cd "$(dirname "$0")/.."
mkdir -p "$work"
go build -o "$work/augur" ./cmd/augur
csv=$work/$kernel-$param.csv
rm -f "$csv" "$work"/report-*.txt
"$work/augur" export --data "$data" --kernel "$kernel" --target "$param" ${foldby:+--fold-by "$foldby"} --csv "$csv" >&2
# Five seeds: augur's forest draws from its seed; golearn's draws from
# math/rand's global source whatever the seed, so its runs differ too.
for seed in 1 2 3 4 5; do
	"$work/augur" train --data "$data" --kernel "$kernel" --out "$work/seed$seed.augur" --force --folds 1 \
		--regressor gbrt --trees 10 --target "$param" --learner auto ${foldby:+--fold-by "$foldby"} --seed "$seed" \
		>"$work/report-$seed.txt"
done
/usr/bin/python3 bench/classify.py --csv "$csv" --reports "$work"/report-*.txt --fold-by "${foldby:-every task feature}"
