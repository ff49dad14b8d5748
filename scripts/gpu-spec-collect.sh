#!/bin/sh
# Collects the whole spaces of the two user-kernel examples (examples/transpose,
# examples/rowsum) on device 0 of a GPU machine into $OUT/data, as
# datasets/data/README.md records them. AUGUR names the binary (default
# ./bin/augur); OUT the output folder.
set -eu
AUGUR=${AUGUR:-./bin/augur}
: "${OUT:?set OUT to the output folder}"
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
$AUGUR devices --json > "$OUT/devices.json" 2>&1
$AUGUR kernels --spec examples/transpose/transpose.json --device 0 > "$OUT/kernels.txt" 2>&1
$AUGUR kernels --spec examples/rowsum/rowsum.json --device 0 >> "$OUT/kernels.txt" 2>&1
T='width=512,height=512;width=1024,height=1024;width=2048,height=2048;width=4096,height=4096;width=1920,height=1080;width=1000,height=3000;width=3000,height=1000;width=8192,height=1024;width=256,height=4096;width=4096,height=256;width=2500,height=1500;width=1536,height=1536'
R='cols=4096,rows=4096;cols=1000,rows=1000;cols=100000,rows=64;cols=64,rows=100000;cols=512,rows=8192;cols=8192,rows=512;cols=16384,rows=2048;cols=2048,rows=16384;cols=300,rows=30000;cols=30000,rows=300;cols=1024,rows=1024;cols=65536,rows=256'
$AUGUR collect --spec examples/transpose/transpose.json --device 0 --out "$OUT/data" --shapes "$T" --sample all --seed 11 --repeats 7 --timeout 2s --programs-per-process 0 > "$OUT/collect-transpose.txt" 2>&1
$AUGUR collect --spec examples/rowsum/rowsum.json --device 0 --out "$OUT/data" --shapes "$R" --sample all --seed 11 --repeats 7 --timeout 2s --programs-per-process 0 > "$OUT/collect-rowsum.txt" 2>&1
(cd "$OUT" && tar czf spec-data.tgz data && rm -rf data)
