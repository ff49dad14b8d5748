#!/bin/sh
# Installs what augur needs to build and to reach an OpenCL device when it is
# missing: the OpenCL ICD loader and headers (for cgo), PoCL (a CPU OpenCL
# device, so that every machine has one) and clinfo. Debian or Ubuntu only.
set -eu
pkgs="ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "augur: missing OpenCL packages:$missing; install them (or your system's equivalent) and run again" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "augur: missing OpenCL packages:$missing; run as root or: apt-get install$missing" >&2
		exit 1
	fi
else
	SUDO=""
fi
echo "augur: installing$missing" >&2
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2 || {
	echo "augur: could not install$missing with apt-get; install them by hand and run again" >&2
	exit 1
}
